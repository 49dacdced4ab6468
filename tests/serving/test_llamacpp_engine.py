"""
Against a real llama.cpp server: promptcache's layout hits the prefix cache, a timestamp at the
top does not, diff and the monitor name it, and prefix-affinity routing keeps two replicas hitting
where round-robin misses. Assertions are on cached tokens, never on latency.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from promptcache import Prompt, cli
from promptcache.adapters import get_adapter
from promptcache.serving import Fleet, routing_key, scrape, tenant_salt
from promptcache.serving.llamacpp import LlamaServer
from promptcache.serving.metrics import interval

from .engine_kit import cached, chat, manual, ordered, post, timestamp_first, token_count, wrapped

MANUAL = manual("Warehouse")


def test_ordered_requests_hit_the_shared_prefix(llama: LlamaServer) -> None:
    prefix = token_count(llama.url, MANUAL)
    chat(llama.url, ordered(MANUAL, "Current time: 2026-11-30T05:00:01Z. Where is SH-1?"))
    second = chat(llama.url, ordered(MANUAL, "Current time: 2026-11-30T05:00:02Z. And SH-2?"))
    assert prefix <= cached(second) < second["usage"]["prompt_tokens"]
    usage = get_adapter("engine").read_usage(second)
    assert usage.cache_read == cached(second) == second["timings"]["cache_n"]


def test_timestamp_at_the_top_gets_next_to_nothing(llama: LlamaServer) -> None:
    prefix = token_count(llama.url, MANUAL)
    chat(llama.url, timestamp_first(MANUAL, "Where is SH-1?", "2026-11-30T05:10:01Z"))
    second = chat(llama.url, timestamp_first(MANUAL, "Where is SH-1?", "2026-11-30T05:10:02Z"))
    # Only the chat template's opening and "Current time: 2026-11-30T05:10:0" can match.
    assert cached(second) < 0.1 * prefix


def test_monitor_and_diff_name_the_timestamp(llama: LlamaServer, tmp_path: Path) -> None:
    client, events = wrapped(llama.url)
    first = timestamp_first(MANUAL, "Where is SH-3?", "2026-11-30T05:20:01Z")
    second = timestamp_first(MANUAL, "Where is SH-3?", "2026-11-30T05:20:02Z")
    client.chat.completions.create(**first)
    reply = client.chat.completions.create(**second)
    assert reply.usage.prompt_tokens_details.cached_tokens < 50  # the real engine's usage
    assert [(e.cause, e.path) for e in events] == [("timestamp", "messages[0].content")]
    assert events[0].actual_read == reply.usage.prompt_tokens_details.cached_tokens

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(first))
    b.write_text(json.dumps(second))
    assert cli.main(["diff", str(a), str(b), "--vendor", "engine", "--format", "json"]) == 1


def test_diff_output_names_timestamp(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], llama: LlamaServer
) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(timestamp_first(MANUAL, "q", "2026-11-30T05:30:01Z")))
    b.write_text(json.dumps(timestamp_first(MANUAL, "q", "2026-11-30T05:30:02Z")))
    cli.main(["diff", str(a), str(b), "--vendor", "engine", "--format", "json"])
    found = json.loads(capsys.readouterr().out)
    assert (found["cause"], found["path"]) == ("timestamp", "messages[0].content")


def test_ordered_requests_through_wrap_raise_no_invalidation(llama: LlamaServer) -> None:
    client, events = wrapped(llama.url)
    for second in (41, 42, 43):
        request = ordered(MANUAL, f"Current time: 2026-11-30T05:40:{second}Z. Status?")
        client.chat.completions.create(**request)
    assert events == []


def test_engine_metrics_count_the_hits(
    llama: LlamaServer, capsys: pytest.CaptureFixture[str]
) -> None:
    prefix = token_count(llama.url, MANUAL)
    before = scrape(llama.url)
    chat(llama.url, ordered(MANUAL, "Current time: 2026-11-30T05:50:01Z. Where is SH-7?"))
    second = chat(llama.url, ordered(MANUAL, "Current time: 2026-11-30T05:50:02Z. And SH-8?"))
    window = interval(before, scrape(llama.url), 1.0)
    assert window.engine == "llama.cpp"
    assert window.hit_tokens is not None and window.hit_tokens >= cached(second) >= prefix
    assert window.hit_rate is not None and 0 < window.hit_rate < 1

    assert cli.main(["engine-stats", llama.url, "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["engines"][0]
    assert row["engine"] == "llama.cpp" and row["hit_tokens"] >= prefix


# -- two replicas ---------------------------------------------------------------------------

SECRETS = {f"tenant{i}": f"tenant-{i}-secret-0123456789".encode() for i in range(16)}
MANUALS = {name: manual(name.title()) for name in SECRETS}


def _tenant_request(tenant: str, n: int) -> tuple[str, dict[str, object]]:
    prompt = Prompt().add_system(MANUALS[tenant]).with_tail(f"Question {n}: where is SH-{n}?")
    key = routing_key(prompt, salt=tenant_salt(SECRETS[tenant]))
    request = get_adapter("engine").to_request(
        prompt, model="smollm2", engine="llama.cpp", max_tokens=2, temperature=0
    )
    return key, request


def test_prefix_affinity_keeps_hitting_where_round_robin_misses(
    replica_pair: tuple[LlamaServer, LlamaServer],
) -> None:
    urls = [server.url for server in replica_pair]
    fleet = Fleet(urls)
    # Two tenants whose keys live on different replicas (the ring depends on the ports, so they
    # are picked here; of 16 tenants some always split across two replicas).
    homes = {t: fleet.replica_for(_tenant_request(t, 0)[0]) for t in SECRETS}
    first = next(iter(SECRETS))
    second = next(t for t in SECRETS if homes[t] != homes[first])
    order = [first, first, second, second, first, first, second, second]
    prefix = {t: token_count(urls[0], MANUALS[t]) for t in (first, second)}

    round_robin_hits = 0
    for n, tenant in enumerate(order):
        _, request = _tenant_request(tenant, n)
        answer = chat(urls[n % 2], request)
        round_robin_hits += cached(answer) >= prefix[tenant]

    affinity_hits = 0
    for n, tenant in enumerate(order, start=100):
        key, request = _tenant_request(tenant, n)
        body = {k: v for k, v in request.items() if k != "extra_body"}
        answer = fleet.post("/v1/chat/completions", body, key=key)
        assert answer.url == homes[tenant] and not answer.failed
        affinity_hits += cached(answer.body) >= prefix[tenant]

    # Round-robin lands every request on the replica that last served the other tenant.
    assert round_robin_hits <= 1
    # Affinity misses at most each tenant's first request.
    assert affinity_hits >= len(order) - 2


def _busy(url: str) -> bool:
    with urllib.request.urlopen(f"{url}/slots", timeout=5) as response:
        return any(slot.get("is_processing") for slot in json.loads(response.read()))


def test_no_request_is_lost_when_a_replica_dies_mid_run() -> None:
    from .conftest import _require_engine

    _require_engine()
    with (
        LlamaServer(n_ctx=2048, threads=1) as one,
        LlamaServer(n_ctx=2048, threads=1) as two,
    ):
        fleet = Fleet([one.url, two.url], retry_after=0.5)
        key, request = _tenant_request("tenant0", 1)
        home = fleet.replica_for(key)
        victim, survivor = (one, two) if home == one.url else (two, one)
        body = {k: v for k, v in request.items() if k != "extra_body"}
        slow = {**body, "max_tokens": 96, "ignore_eos": True}

        answers: list[object] = []
        worker = threading.Thread(
            target=lambda: answers.append(fleet.post("/v1/chat/completions", slow, key=key))
        )
        worker.start()
        deadline = time.monotonic() + 60
        while not _busy(victim.url) and time.monotonic() < deadline:
            time.sleep(0.02)
        victim.kill()  # mid-request, as a crash would
        worker.join(120)

        (answer,) = answers
        assert answer.status == 200 and answer.url == survivor.url  # type: ignore[attr-defined]
        assert [url for url, _ in answer.failed] == [victim.url]  # type: ignore[attr-defined]
        assert victim.url in fleet.down

        # The key's requests now stay on the survivor, and hit there.
        prefix = token_count(survivor.url, MANUALS["tenant0"])
        again = fleet.post("/v1/chat/completions", _tenant_request("tenant0", 2)[1], key=key)
        assert again.url == survivor.url and not again.failed
        assert cached(again.body) >= prefix

        # The replica comes back on its port: after retry_after it takes its keys back.
        with LlamaServer(n_ctx=2048, threads=1, port=victim.settings.port):
            time.sleep(0.6)
            back = fleet.post("/v1/chat/completions", _tenant_request("tenant0", 3)[1], key=key)
            assert back.url == victim.url and victim.url not in fleet.down


def test_native_completion_endpoint_reports_cache_n(llama: LlamaServer) -> None:
    body = {"prompt": MANUAL + "\nQ: status?", "n_predict": 1, "cache_prompt": True}
    post(llama.url, "/completion", body)
    second = post(llama.url, "/completion", {**body, "prompt": MANUAL + "\nQ: and now?"})
    usage = get_adapter("engine").read_usage(second)
    assert usage.endpoint == "completion"
    assert usage.cache_read is not None and usage.cache_read >= token_count(llama.url, MANUAL) - 2
