"""
Planted names and e-mail addresses, searched for in every output: keys that look like names are
hashed (the "looks opaque" rule lets only clear ids through), `Invalidation.to_json()` and its
repr carry no raw key, `report --by key` hashes keys in all four formats unless `--clear-keys`
asks, the span processor's warnings do not quote a span's name, and every hash is keyed by
$PROMPTCACHE_HASH_KEY when it is set.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import hmac
import io
import json
import logging
from pathlib import Path
from types import SimpleNamespace

import pytest

from promptcache.cli import main
from promptcache.debug.monitor import Monitor
from promptcache.debug.otel import MonitorSpanProcessor
from promptcache.debug.privacy import export_key, looks_opaque, short_hash, stored_key

from . import pairs
from .sim import AnthropicSim

NAME = "Zebulon Quackenbush"
EMAIL = "zebulon.quackenbush@example.org"
_PLANTED = ("Zebulon", "zebulon", "Quackenbush", "quackenbush", "example.org")


def _leaks(text: str) -> list[str]:
    return [word for word in _PLANTED if word in text]


@pytest.mark.parametrize(
    "key",
    [
        "zebulon.quackenbush",
        "quackenbush_42",
        "zebulon-1985",
        "Zebulon.Quackenbush",
        "zq-1985",
        "user_1985",
        "smith:7",
        EMAIL,
        NAME,
    ],
)
def test_a_name_shaped_key_is_hashed(key: str) -> None:
    assert not looks_opaque(key)
    assert export_key(key) == f"key:{short_hash(key)}"
    assert stored_key(key).startswith("key:") and key not in stored_key(key)


@pytest.mark.parametrize(
    "key",
    [
        "session-42",
        "tenant_7",
        "conv:123456",
        "550e8400-e29b-41d4-a716-446655440000",
        "3f2a9c81d0e4b7aa",
        "sess_8f3kQ2ab",
        "anthropic:claude-sonnet-4-6",
        "key:0123456789ab",
    ],
)
def test_a_clear_opaque_id_is_shown_as_it_is(key: str) -> None:
    assert looks_opaque(key) and export_key(key) == key


def _miss_event(key: str) -> object:
    monitor, sim, request = Monitor("anthropic"), AnthropicSim(), pairs.anthropic()
    monitor.observe(request, sim.respond(request, 0.0), key=key, at=0.0)
    stamped = copy.deepcopy(request)
    stamped["system"][0]["text"] = pairs.with_header("Now: 2026-11-29T20:41:07Z")
    event = monitor.observe(stamped, sim.respond(stamped, 1.0), key=key, at=1.0)
    assert event is not None
    return event


@pytest.mark.parametrize("key", [NAME, EMAIL, "quackenbush_42"])
def test_an_invalidation_carries_no_raw_key_in_its_json_or_repr(key: str) -> None:
    event = _miss_event(key)
    for text in (json.dumps(event.to_json()), repr(event), str(event), event.message()):  # type: ignore[attr-defined]
        assert _leaks(text) == [], text
    assert event.to_json()["key"] == export_key(key)  # type: ignore[attr-defined]
    assert event.key == key  # type: ignore[attr-defined]  # the caller's own value, in process


def _log(tmp_path: Path) -> Path:
    sim, request, records = AnthropicSim(), pairs.anthropic(), []
    for n, key in enumerate((NAME, EMAIL, NAME)):
        records.append(
            {
                "vendor": "anthropic",
                "key": key,
                "at": float(n * 30),
                "request": request,
                "response": sim.respond(request, float(n * 30)),
            }
        )
        request = pairs.next_turn(request, n)
    log = tmp_path / "calls.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    return log


@pytest.mark.parametrize("form", ["text", "json", "csv", "html"])
def test_report_by_key_hashes_keys_in_every_format(
    form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _log(tmp_path)
    page = tmp_path / "r.html"
    argv = ["report", str(log), "--by", "key"]
    argv += ["--html", str(page)] if form == "html" else ["--format", form]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    shown = page.read_text() if form == "html" else out
    assert _leaks(shown + err) == [], shown
    assert export_key(NAME) in shown and export_key(EMAIL) in shown
    if form == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert {r["group"] for r in rows} == {export_key(NAME), export_key(EMAIL)}
    assert main([*argv, "--clear-keys"]) == 0  # asked for: the keys as the log holds them
    out, _ = capsys.readouterr()
    shown = page.read_text() if form == "html" else out
    assert "Quackenbush" in shown


def test_the_span_processors_warnings_do_not_quote_the_span_name(
    caplog: pytest.LogCaptureFixture,
) -> None:
    processor = MonitorSpanProcessor(Monitor(metrics=False))
    prompt_name = f"chat {NAME} <{EMAIL}>"
    spans = [
        SimpleNamespace(
            name=prompt_name,
            attributes={"gen_ai.operation.name": "chat", "gen_ai.system": "anthropic"},
        ),
        SimpleNamespace(
            name=prompt_name,
            attributes={"gen_ai.usage.input_tokens": 10, "gen_ai.system": "anthropic"},
        ),
        SimpleNamespace(name=prompt_name),  # no attributes at all: reading it raises
    ]
    with caplog.at_level(logging.WARNING):
        for span in spans:
            processor.on_end(span)
    assert caplog.records, "the processor said nothing"
    assert _leaks(caplog.text) == [], caplog.text
    assert "sha256" in caplog.text


def test_every_hash_is_keyed_when_a_hash_key_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = hashlib.sha256(EMAIL.encode()).hexdigest()
    assert short_hash(EMAIL) == plain[:12]
    monkeypatch.setenv("PROMPTCACHE_HASH_KEY", "a secret of this deployment")
    keyed = hmac.new(b"a secret of this deployment", EMAIL.encode(), hashlib.sha256).hexdigest()
    assert short_hash(EMAIL) == keyed[:12] != plain[:12]
    assert export_key(EMAIL) == f"key:{keyed[:12]}"
    assert stored_key(EMAIL) == f"key:{keyed[:32]}"
    event = _miss_event(EMAIL)
    assert event.to_json()["key"] == f"key:{keyed[:12]}"  # type: ignore[attr-defined]


def _redis_values(url: str) -> str:
    """Every key name and every stored value of the Redis at `url`, as one searchable text."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        parts = []
        for name in client.keys("*"):
            parts.append(name.decode())
            kind = client.type(name).decode()
            if kind == "zset":
                parts += [v.decode("utf-8", "replace") for v in client.zrange(name, 0, -1)]
            elif kind == "set":
                parts += [v.decode("utf-8", "replace") for v in client.smembers(name)]
            else:
                parts.append(repr(client.dump(name)))
        return "\n".join(parts)
    finally:
        client.close()


def test_redis_keeps_which_settings_changed_as_hashes_not_the_settings(tmp_path: Path) -> None:
    from promptcache.debug.redis_store import RedisStore

    from .redis_server import RedisServer

    server = RedisServer(tmp_path)
    server.start()
    monitor = Monitor("anthropic", store=RedisStore.from_url(server.url), background=False)
    try:
        sim, request = AnthropicSim(), pairs.anthropic()
        request |= {
            "metadata": {"user_id": EMAIL},
            "stop_sequences": [f"Goodbye, {NAME}"],
            "tool_choice": {"type": "auto"},
            "extra_body": {"user": EMAIL, "safety_identifier": NAME},
        }
        monitor.observe(request, sim.respond(request, 0.0), key=EMAIL, at=0.0)
        stored = _redis_values(server.url)
        assert stored and _leaks(stored) == [], stored
        changed = copy.deepcopy(pairs.next_turn(request, 0))
        changed["tool_choice"] = {"type": "any"}
        miss = {
            "model": request["model"],
            "usage": {
                "input_tokens": 5,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 1800,
                "output_tokens": 1,
            },
        }
        event = monitor.observe(changed, miss, key=EMAIL, at=1.0)
        assert event is not None and event.cause == "tool_choice_changed", event
        same = copy.deepcopy(pairs.next_turn(changed, 1))
        event = monitor.observe(same, sim.respond(same, 2.0), key=EMAIL, at=2.0)
        assert event is None or event.cause != "tool_choice_changed"
        assert _leaks(_redis_values(server.url)) == []
    finally:
        monitor.close()
        server.stop()
