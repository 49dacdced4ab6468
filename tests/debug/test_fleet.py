"""
The monitor across a fleet: per-key state in a real Redis server (started here on 127.0.0.1),
several processes observing interleaved conversations of the same keys, ordering, an outage.
"""

from __future__ import annotations

import copy
import logging
import multiprocessing
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from promptcache import InputError, Invalidation, Monitor, RedisStore
from promptcache._errors import short_hash
from promptcache.debug.privacy import stored_key
from promptcache.debug.store import CircuitBreaker, Exchange, StoreUnavailable, decode_entry

from . import pairs
from .redis_server import RedisServer
from .sim import AnthropicSim
from .spans import memory_tracer

redis = pytest.importorskip("redis")

Row = tuple[str, str, str | None, str | None, int, int, float]
# key index, turn, request, response, sent_at, at
Item = tuple[int, int, dict[str, Any], dict[str, Any], float, float]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RedisServer]:
    running = RedisServer(tmp_path)
    running.start()
    yield running
    running.stop()


def _row(event: Invalidation) -> Row:
    return (
        event.key,
        event.cause,
        event.layer,
        event.path,
        event.expected_read,
        event.actual_read,
        event.at,
    )


def _stamp(request: dict[str, Any]) -> dict[str, Any]:
    changed = copy.deepcopy(request)
    changed["system"][0]["text"] = pairs.with_header("Now: 2026-11-29T20:41:07Z")
    return changed


def _log(keys: int, turns: int, *, planted: bool) -> list[Item]:
    """
    `keys` conversations of `turns` turns, interleaved turn by turn. Planted: key 1's system
    prompt gets a timestamp at turn 3, key 2 waits 15 minutes before turn 4, the server drops
    key 3's entries before turn 5.
    """
    sims = [AnthropicSim() for _ in range(keys)]
    requests = [pairs.anthropic() for _ in range(keys)]
    clocks = [1_000.0 + k * 0.25 for k in range(keys)]
    log: list[Item] = []
    for turn in range(turns):
        for k in range(keys):
            if planted and (k, turn) == (1, 3):
                requests[k] = _stamp(requests[k])
            clocks[k] += 900.0 if planted and (k, turn) == (2, 4) else 20.0
            if planted and (k, turn) == (3, 5):
                sims[k].evict()
            sent = clocks[k]
            done = sent + 3.0
            log.append((k, turn, requests[k], sims[k].respond(requests[k], sent), sent, done))
            requests[k] = pairs.next_turn(requests[k], turn)
    return log


def _one_process(log: list[Item], **options: Any) -> list[Row]:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False, **options)
    for k, _, request, response, sent, done in log:
        monitor.observe(request, response, key=f"chat-{k}", sent_at=sent, at=done)
    return sorted(_row(e) for e in events)


def _fleet_worker(
    url: str,
    items: list[Item],
    counters: Any,
    turned: Any,
    out: Any,
    keep_bodies: bool,
) -> None:
    events: list[Invalidation] = []
    store = RedisStore.from_url(url, keep_bodies=keep_bodies, timeout=5.0)
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False, store=store)
    for k, turn, request, response, sent, done in items:
        with turned:  # a conversation's next turn is sent after its previous response came
            turned.wait_for(lambda k=k, turn=turn: counters[k] == turn, timeout=60)
        monitor.observe(request, response, key=f"chat-{k}", sent_at=sent, at=done)
        assert monitor.flush(30)
        with turned:
            counters[k] += 1
            turned.notify_all()
    stats = monitor.stats()
    monitor.close()
    out.put(([_row(e) for e in events], stats["store_fallbacks"]))


def _fleet(url: str, log: list[Item], processes: int, *, keep_bodies: bool) -> list[Row]:
    # spawn, not fork: each process starts its own interpreter, with its own hash salt, as the
    # pods of a fleet do
    context = multiprocessing.get_context("spawn")
    counters = context.Array("i", max(k for k, *_ in log) + 1)
    turned = context.Condition()
    out = context.Queue()
    workers = [
        context.Process(
            target=_fleet_worker,
            args=(url, log[p::processes], counters, turned, out, keep_bodies),
        )
        for p in range(processes)
    ]
    for worker in workers:
        worker.start()
    rows: list[Row] = []
    for _ in workers:
        found, fallbacks = out.get(timeout=120)
        assert fallbacks == 0
        rows.extend(tuple(r) for r in found)
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0
    return sorted(rows)


def test_a_fleet_finds_exactly_what_one_process_finds(server: RedisServer) -> None:
    log = _log(4, 8, planted=True)
    alone = _one_process(log)
    assert {(r[0], r[1]) for r in alone} == {
        ("chat-1", "timestamp"),
        ("chat-2", "ttl_expired"),
        ("chat-3", "none"),
    }
    assert _fleet(server.url, log, 4, keep_bodies=True) == alone


def test_a_fleet_keeping_hashes_only_matches_one_process_keeping_hashes_only(
    server: RedisServer,
) -> None:
    log = _log(4, 8, planted=True)
    alone = _one_process(log, body_budget=0)
    assert {(r[0], r[1], r[3]) for r in alone} == {
        ("chat-1", "content_changed", "system[0]"),
        ("chat-2", "ttl_expired", None),
        ("chat-3", "none", None),
    }
    assert _fleet(server.url, log, 3, keep_bodies=False) == alone


def test_a_fleet_finds_nothing_when_nothing_changed(server: RedisServer) -> None:
    log = _log(3, 8, planted=False)
    assert _one_process(log) == []
    assert _fleet(server.url, log, 4, keep_bodies=False) == []


# -- what is stored ---------------------------------------------------------------------------


def _stored(server: RedisServer, key: str) -> list[bytes]:
    client = redis.Redis.from_url(server.url)
    try:
        return list(client.zrange(f"promptcache:v3:{{{stored_key(key)}}}:states", 0, -1))
    finally:
        client.close()


def test_no_prompt_text_is_stored_unless_bodies_are_kept(server: RedisServer) -> None:
    secret = "my card number is 4111 1111 1111 1111"
    request = pairs.anthropic()
    request["messages"][0]["content"] = secret
    response = AnthropicSim().respond(request, 100.0)
    plain = Monitor("anthropic", metrics=False, store=RedisStore.from_url(server.url))
    plain.observe(request, response, key="a", at=100.0)
    plain.close()
    [state] = _stored(server, "a")
    tool = orjson.dumps(request["tools"][0]["description"])
    system = request["system"][0]["text"][:40].encode()
    assert secret.encode() not in state and tool not in state and system not in state
    entry = decode_entry(state)
    assert entry.body is None and entry.model == request["model"] and entry.records

    kept = RedisStore.from_url(server.url, keep_bodies=True)
    keeping = Monitor("anthropic", metrics=False, store=kept)
    keeping.observe(request, response, key="b", at=100.0)
    keeping.close()
    [state] = _stored(server, "b")
    assert secret.encode() in state and decode_entry(state).body == request

    small = RedisStore.from_url(server.url, keep_bodies=True, max_body_bytes=1024)
    bounded = Monitor("anthropic", metrics=False, store=small)
    bounded.observe(request, response, key="c", at=100.0)
    bounded.close()
    [state] = _stored(server, "c")
    assert secret.encode() not in state and decode_entry(state).body is None


def test_states_expire_with_the_vendor_ttl_plus_slack(server: RedisServer) -> None:
    request = pairs.anthropic()
    response = AnthropicSim().respond(request, 100.0)
    store = RedisStore.from_url(server.url, slack_seconds=60)
    monitor = Monitor("anthropic", metrics=False, store=store, background=False)
    monitor.observe(request, response, key="a", at=100.0)
    client = redis.Redis.from_url(server.url)
    ttl = client.pttl(f"promptcache:v3:{{{stored_key('a')}}}:states")
    client.close()
    assert 300_000 < ttl <= 360_000  # Anthropic's default 5 minutes, plus one of slack

    hour = copy.deepcopy(request)
    hour["system"][0]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    monitor.observe(hour, AnthropicSim().respond(hour, 100.0), key="b", at=100.0)
    client = redis.Redis.from_url(server.url)
    hours = client.pttl(f"promptcache:v3:{{{stored_key('b')}}}:states")
    client.close()
    assert 3_600_000 < hours <= 3_660_000  # the longest TTL the markers asked for


def test_a_key_that_may_be_personal_data_never_names_a_redis_key(server: RedisServer) -> None:
    # Keys leave the process here as everywhere: an e-mail address as the cache key is stored
    # under its hash, an opaque session id as itself.
    request = pairs.anthropic()
    response = AnthropicSim().respond(request, 100.0)
    monitor = Monitor("anthropic", metrics=False, store=RedisStore.from_url(server.url))
    monitor.observe(request, response, key="jane.doe@example.com", at=100.0)
    monitor.observe(request, response, key="session-42", at=100.0)
    monitor.close()
    client = redis.Redis.from_url(server.url)
    names = sorted(name.decode() for name in client.keys("*"))
    client.close()
    assert not any("jane" in name or "example.com" in name for name in names), names
    assert "promptcache:v3:{session-42}:states" in names
    # 128 bits of its SHA-256, whose first 12 hex digits are the hash logs and spans name it by:
    # two keys a 48-bit hash confuses would be judged against each other's states
    [hashed] = [name for name in names if name.startswith("promptcache:v3:{key:")]
    digits = hashed.removeprefix("promptcache:v3:{key:").removesuffix("}:states")
    assert len(digits) == 32 and digits.startswith(short_hash("jane.doe@example.com"))


def test_states_of_an_older_format_are_never_compared(server: RedisServer) -> None:
    # v1 states (keys without a version) hashed elements with BLAKE2b: compared with v2's
    # hashes every element would differ, and a miss be blamed on a change nobody made.
    sim, request = AnthropicSim(), pairs.anthropic()
    old = Monitor(
        "anthropic", metrics=False, store=RedisStore.from_url(server.url), background=False
    )
    old.observe(request, sim.respond(request, 100.0), key="a", at=100.0)
    client = redis.Redis.from_url(server.url)
    name = f"promptcache:v3:{{{stored_key('a')}}}:states"
    [state] = client.zrange(name, 0, -1, withscores=True)
    client.delete(name)
    stale = orjson.loads(state[0])
    stale["records"] = [[*r[:2], r[2] ^ 1, *r[3:]] for r in stale["records"]]  # other hashes
    client.zadd("promptcache:{a}:states", {orjson.dumps(stale): state[1]})  # where v1 kept it
    client.close()
    events: list[Invalidation] = []
    fresh = Monitor(
        "anthropic",
        metrics=False,
        store=RedisStore.from_url(server.url),
        background=False,
        on_invalidation=events.append,
    )
    miss = sim.respond(request, 110.0)
    miss["usage"]["cache_read_input_tokens"] = 0
    fresh.observe(request, miss, key="a", at=110.0)
    assert events == []  # no previous state of this format: nothing to judge against


def test_an_element_hash_is_the_same_in_every_process() -> None:
    """Python's hash() of bytes is salted per process; states are compared across processes."""
    request = pairs.anthropic()
    here = _digests(request)
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        there = pool.apply(_digests, (request,))
    assert here == there


def _digests(request: dict[str, Any]) -> list[int]:
    from promptcache.vendors import get_vendor

    monitor = Monitor("anthropic", metrics=False)
    return [monitor._record(e).digest for e in get_vendor("anthropic").elements(request)]


# -- ordering ---------------------------------------------------------------------------------


def _three_turns() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    sim, request, turns = AnthropicSim(), pairs.anthropic(), []
    for n, at in enumerate((100.0, 120.0, 140.0)):
        turns.append((request, sim.respond(request, at)))
        request = pairs.next_turn(request, n)
    return turns


def test_a_response_that_finishes_late_is_judged_against_the_state_sent_before_it(
    server: RedisServer,
) -> None:
    (r0, u0), (r1, u1), (r2, u2) = _three_turns()
    events: list[Invalidation] = []
    store = RedisStore.from_url(server.url)
    monitor = Monitor(
        "anthropic", metrics=False, store=store, background=False, on_invalidation=events.append
    )
    monitor.observe(r0, u0, key="k", sent_at=100.0, at=101.0)
    monitor.observe(r2, u2, key="k", sent_at=140.0, at=141.0)  # turn 2 came back first
    monitor.observe(r1, u1, key="k", sent_at=120.0, at=150.0)
    assert events == []


def test_in_process_a_late_response_is_said_to_be_ambiguous_not_given_a_cause() -> None:
    (r0, u0), (r1, u1), (r2, u2) = _three_turns()
    monitor = Monitor("anthropic", metrics=False)
    monitor.observe(r0, u0, key="k", sent_at=100.0, at=101.0)
    monitor.observe(r2, u2, key="k", sent_at=140.0, at=141.0)
    event = monitor.observe(r1, u1, key="k", sent_at=120.0, at=150.0)
    assert event is not None and event.cause == "order_ambiguous"
    assert "observed before this one" in event.detail and event.path is None


def test_a_request_sent_while_the_previous_was_in_flight_is_ambiguous(
    server: RedisServer,
) -> None:
    request = pairs.anthropic()
    sim = AnthropicSim()
    first = sim.respond(request, 100.0)
    second = pairs.next_turn(request, 0)
    nothing = {"model": request["model"], "usage": dict(first["usage"])}
    nothing["usage"].update(cache_read_input_tokens=0, cache_creation_input_tokens=0)
    for store in (None, RedisStore.from_url(server.url)):
        monitor = Monitor("anthropic", metrics=False, store=store, background=False)
        monitor.observe(request, first, key="k", sent_at=100.0, at=109.0)
        event = monitor.observe(second, nothing, key="k", sent_at=105.0, at=110.0)
        assert event is not None and event.cause == "order_ambiguous", store
        assert "had not finished when this one was sent" in event.detail
        monitor.close()


# -- failure behaviour ------------------------------------------------------------------------


def _session(at: float, turns: int) -> Iterator[tuple[dict[str, Any], dict[str, Any], float]]:
    sim, request = AnthropicSim(), pairs.anthropic()
    for n in range(turns):
        at += 20.0
        if n == 4:
            request = _stamp(request)
        yield request, sim.respond(request, at), at
        request = pairs.next_turn(request, n)


def test_an_outage_falls_back_in_process_once_and_recovers(
    server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    from prometheus_client import CollectorRegistry

    registry = CollectorRegistry()
    events: list[Invalidation] = []
    store = RedisStore.from_url(server.url, timeout=0.2, failures=1, cooldown=0.3)
    monitor = Monitor(
        "anthropic", store=store, on_invalidation=events.append, prometheus_registry=registry
    )
    turns = list(_session(1_000.0, 9))
    caplog.set_level(logging.WARNING, "promptcache.monitor")
    for request, response, at in turns[:3]:
        assert monitor.observe(request, response, key="k", at=at) is None
    assert monitor.flush(10) and len(_stored(server, "k")) == 3

    server.stop()
    for request, response, at in turns[3:6]:  # turn 4 plants a timestamp
        monitor.observe(request, response, key="k", at=at)
    assert monitor.flush(10)
    assert [e.cause for e in events] == ["timestamp"]  # judged in-process meanwhile
    stats = monitor.stats()
    assert stats["store_outages"] == 1 and stats["store_fallbacks"] == 3
    assert registry.get_sample_value("promptcache_store_fallbacks_total") == 3
    down = [r for r in caplog.records if "unavailable" in r.getMessage()]
    assert len(down) == 1

    server.start()  # empty, as a restarted cache server comes back
    threading.Event().wait(0.35)  # the breaker's cooldown
    for request, response, at in turns[6:]:
        monitor.observe(request, response, key="k", at=at)
    assert monitor.flush(10)
    assert len(_stored(server, "k")) == 3
    assert any("answers again" in r.getMessage() for r in caplog.records)
    assert monitor.stats()["store_outages"] == 1 and [e.cause for e in events] == ["timestamp"]
    monitor.close()


class _Stuck:
    """A store that never answers until released: the caller must not wait for it."""

    available = True

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()

    def exchange(self, key: str, entry: Any, *, ttl_seconds: float) -> Exchange:
        self.entered.set()
        self.release.wait(10)
        raise StoreUnavailable("timed out")

    def amend(self, key: str, entry: Any, *, ttl_seconds: float) -> None: ...

    def first_time(self, key: str, cause: str, *, ttl_seconds: float) -> bool:
        return True

    def forget(self, key: str) -> None: ...

    def close(self) -> None: ...


def test_observing_never_waits_on_the_store() -> None:
    stuck = _Stuck()
    monitor = Monitor("anthropic", metrics=False, store=stuck)
    (r0, u0), (r1, u1), _ = _three_turns()
    assert monitor.observe(r0, u0, key="k", at=100.0) is None
    assert stuck.entered.wait(5)  # the worker is inside the store ...
    monitor.observe(r1, u1, key="k", at=120.0)  # ... and the caller goes on
    assert not monitor.flush(0.05)
    stuck.release.set()
    assert monitor.flush(10) and monitor.stats()["store_fallbacks"] == 2


def _overflowed(caplog: pytest.LogCaptureFixture, drops: int) -> Monitor:
    """A background monitor whose store is stuck on turn 0, turn 1 queued, then `drops` more."""
    stuck = _Stuck()
    monitor = Monitor("anthropic", metrics=False, store=stuck, queue_size=1)
    (r0, u0), (r1, u1), (r2, u2) = _three_turns()
    monitor.observe(r0, u0, key="k", at=100.0)
    assert stuck.entered.wait(5)
    monitor.observe(r1, u1, key="k", at=120.0)  # queued
    with caplog.at_level(logging.WARNING, "promptcache.monitor"):
        for i in range(drops):
            monitor.observe(r2, u2, key="k", at=140.0 + 20 * i)  # no room
    stuck.release.set()
    return monitor


def test_a_full_queue_drops_with_a_warning_and_a_count(caplog: pytest.LogCaptureFixture) -> None:
    monitor = _overflowed(caplog, drops=1)
    assert monitor.flush(10) and monitor.stats()["dropped"] == 1
    assert any("queue is full" in r.getMessage() for r in caplog.records)


def test_a_full_queue_is_said_once_and_every_drop_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    monitor = _overflowed(caplog, drops=2)
    assert monitor.flush(10) and monitor.stats()["dropped"] == 2
    assert sum("queue is full" in r.getMessage() for r in caplog.records) == 1


def test_the_breaker_opens_after_failures_and_lets_one_try_after_cooldown() -> None:
    now = [0.0]
    breaker = CircuitBreaker(threshold=2, cooldown=5.0, clock=lambda: now[0])
    assert not breaker.failure() and breaker.allows()
    assert breaker.failure() and not breaker.allows() and breaker.opened == 1
    now[0] = 5.0
    assert breaker.allows()
    assert not breaker.failure() and not breaker.allows()  # the trial failed: wait again
    now[0] = 10.0
    assert breaker.success() and breaker.closed and breaker.opened == 1


def test_a_store_on_a_dead_address_costs_bounded_time_and_opens() -> None:
    store = RedisStore.from_url("redis://127.0.0.1:1/0", timeout=0.1, failures=2)
    monitor = Monitor("anthropic", metrics=False, store=store, background=False)
    for request, response, at in list(_session(0.0, 4)):
        monitor.observe(request, response, key="k", at=at)
    assert not store.available and monitor.stats()["store_fallbacks"] == 4


def test_bad_settings_and_a_missing_client_say_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InputError, match="not a Redis URL: 'http://x'"):
        RedisStore.from_url("http://x")
    with pytest.raises(InputError, match="keep_states"):
        RedisStore.from_url("redis://127.0.0.1:1/0", keep_states=0)
    monkeypatch.setitem(__import__("sys").modules, "redis", None)
    with pytest.raises(ImportError, match=r"pip install 'promptcache-sdk\[fleet\]'"):
        RedisStore.from_url("redis://127.0.0.1:1/0")


def test_state_bytes_are_plain_json() -> None:
    request = pairs.anthropic()
    monitor = Monitor("anthropic", metrics=False)
    vendor = monitor._vendor_of(request, None)
    usage = vendor.read_usage(AnthropicSim().respond(request, 1.0))
    from promptcache.debug.store import encode_entry

    entry = monitor._entry(request, vendor, usage, 1.0)
    state = orjson.loads(encode_entry(entry, monitor._chain(entry), body_limit=None))
    assert set(state) == {
        "at",
        "sent",
        "vendor",
        "read",
        "write",
        "total",
        "model",
        "params",
        "records",
        "size",
        "written",
        "dry",
        "prefix",
    }


def test_the_hash_chain_sees_a_marker_moved_in_place() -> None:
    """Elements sent again are hashed once; a marker moved or edited in place still counts."""
    request = pairs.anthropic()
    monitor = Monitor("anthropic", metrics=False)
    vendor = monitor._vendor_of(request, None)
    usage = vendor.read_usage(AnthropicSim().respond(request, 1.0))

    def marked() -> list[tuple[str, str | None]]:
        entry = monitor._entry(request, vendor, usage, 1.0)
        return [(r.path, r.ttl) for r in monitor._chain(entry) if r.marked]

    before = marked()
    assert before
    path = f"system[{len(request['system']) - 1}]"
    system = request["system"][-1]
    system["cache_control"] = {"type": "ephemeral", "ttl": "1h"}  # edited in place
    assert (path, "1h") in marked() and (path, "1h") not in before
    del system["cache_control"]  # moved away in place
    assert all(p != path for p, _ in marked())


def _observe_in_child(monitor: Monitor, out: Any) -> None:
    for request, response, at in _session(0.0, 3):
        monitor.observe(request, response, key="forked", at=at)
    out.put((monitor.flush(10), monitor.stats()["observations"]))


def test_a_monitor_built_before_a_fork_observes_in_the_child(server: RedisServer) -> None:
    """Pre-forking servers (gunicorn --preload) build the monitor once, then fork the workers."""
    monitor = Monitor("anthropic", metrics=False, store=RedisStore.from_url(server.url))
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    child = context.Process(target=_observe_in_child, args=(monitor, out))
    child.start()
    assert out.get(timeout=30) == (True, 3)
    child.join(10)
    assert len(_stored(server, "forked")) == 3
    monitor.close()


def test_in_the_background_the_usage_still_goes_on_the_callers_span() -> None:
    tracer, exporter = memory_tracer()
    stuck = _Stuck()
    stuck.release.set()  # answers at once (as an outage)
    monitor = Monitor("anthropic", store=stuck, prometheus_registry=_registry())
    (request, response), *_ = _three_turns()
    with tracer.start_as_current_span("call"):
        monitor.observe(request, response, key="k", at=100.0)
    assert monitor.flush(10)
    [span] = exporter.get_finished_spans()
    assert span.attributes is not None
    assert span.attributes["gen_ai.usage.input_tokens"] > 0


def _registry() -> Any:
    from prometheus_client import CollectorRegistry

    return CollectorRegistry()


def test_a_redis_refusing_writes_falls_back_and_never_raises(server: RedisServer) -> None:
    client = redis.Redis.from_url(server.url)
    client.config_set("maxmemory", 1)  # every write is refused: OOM
    client.close()
    store = RedisStore.from_url(server.url)
    monitor = Monitor("anthropic", metrics=False, store=store, background=False)
    for request, response, at in list(_session(0.0, 2)):
        monitor.observe(request, response, key="k", at=at)
    assert monitor.stats()["store_fallbacks"] == 2


def test_a_redis_that_never_answers_costs_one_timeout_per_try_then_nothing() -> None:
    import socket
    import time

    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        store = RedisStore.from_url(url, timeout=0.1, failures=2, cooldown=60)
        monitor = Monitor("anthropic", metrics=False, store=store, background=False)
        started = time.monotonic()
        for request, response, at in list(_session(0.0, 6)):
            monitor.observe(request, response, key="k", at=at)
        spent = time.monotonic() - started
    stats = monitor.stats()
    assert stats["store_fallbacks"] == 6 and stats["store_outages"] == 1
    assert not store.available
    assert spent < 2.0  # two tries of 0.1 s (no retries, no backoff), then the circuit is open


_PASSWORD = "s3cret-Pa55-Zx9"
_KEY = "zebulon.quackenbush@example.org"  # a cache key that is personal data


def test_a_store_failure_is_said_without_the_key_the_state_or_the_password(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A Redis (or a proxy) without EVALSHA answers "unknown command `EVALSHA`, with args
    # beginning with: <sha>, 2, promptcache:{<the cache key>}:states, ..., <the state>": the
    # monitor's warning quoted that text, key and state included.
    server = RedisServer(tmp_path, "--requirepass", _PASSWORD, "--rename-command", "EVALSHA", "")
    server.start()
    try:
        url = f"redis://:{_PASSWORD}@127.0.0.1:{server.port}/0"
        store = RedisStore.from_url(url, keep_bodies=True)
        monitor = Monitor("anthropic", metrics=False, store=store, background=False)
        caplog.set_level(logging.WARNING, "promptcache")
        for request, response, at in list(_session(0.0, 2)):
            monitor.observe(request, response, key=_KEY, at=at)
        monitor.forget(_KEY)
        assert monitor.stats()["store_fallbacks"] >= 2
    finally:
        server.stop()
    said = caplog.text
    assert (
        f"state store is unavailable (ResponseError from the Redis at 127.0.0.1:{server.port} "
        "while exchanging a key's state)" in said
    ), said
    for secret in (_KEY, "zebulon", _PASSWORD, "EVALSHA", "promptcache:{", "promptcache:v3:{"):
        assert secret.lower() not in said.lower(), secret


def test_each_store_call_says_what_failed_and_where_only(server: RedisServer) -> None:
    client = redis.Redis.from_url(server.url)
    client.set(f"promptcache:v3:{{{stored_key(_KEY)}}}:states", "not a sorted set")  # WRONGTYPE
    client.close()
    store = RedisStore.from_url(server.url)
    monitor = Monitor("anthropic", metrics=False, background=False)
    request, response, at = next(_session(0.0, 1))
    vendor = monitor._vendor_of(request, None)
    entry = monitor._entry(request, vendor, vendor.read_usage(response), at)
    with pytest.raises(StoreUnavailable) as failed:
        store.exchange(_KEY, entry, ttl_seconds=300)
    where = f"the Redis at 127.0.0.1:{server.port}"
    assert str(failed.value) == f"ResponseError from {where} while exchanging a key's state"
    server.stop()
    with pytest.raises(StoreUnavailable) as failed:
        store.forget(_KEY)
    assert str(failed.value) == f"ConnectionError from {where} while forgetting a key"


@pytest.mark.parametrize(
    "url",
    [
        f"http://:{_PASSWORD}@127.0.0.1:6379/0",
        f"http://zebulon:{_PASSWORD}@127.0.0.1/0",
        f"http://127.0.0.1/0?password={_PASSWORD}",
    ],
)
def test_a_bad_url_is_named_without_its_password(url: str) -> None:
    with pytest.raises(InputError, match="not a Redis URL") as refused:
        RedisStore.from_url(url)
    assert _PASSWORD not in str(refused.value) and "***" in str(refused.value)


@pytest.mark.parametrize("cut", ["#", "?", "/"])
def test_a_password_the_url_parser_cuts_is_not_quoted_in_part(cut: str) -> None:
    # A password not percent-encoded is cut at `# ? /`: the parser takes its first piece for the
    # port and quotes it ("Port could not be cast to integer value as 's3cret-Pa'"), and the
    # redaction stopped at the cut, so the URL shown kept the piece after it.
    head, tail = _PASSWORD[:9], _PASSWORD[9:]
    url = f"redis://zebulon:{head}{cut}{tail}@127.0.0.1:6379/0"
    with pytest.raises(InputError, match="not a Redis URL") as refused:
        RedisStore.from_url(url)
    said = str(refused.value)
    assert head not in said and tail not in said and "***" in said, said
