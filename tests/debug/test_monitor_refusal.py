"""
A refused request does not poison its key: after `observe()` refuses a request (a tuple as a
dict key), the monitor's per-key state is as it was, and the next valid request of the key, and
one under another model, are judged normally, in process as with the Redis store.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptcache import CanonicalError, InputError
from promptcache.debug.monitor import Monitor

from . import pairs
from .redis_server import RedisServer
from .sim import AnthropicSim

_AT = 1_764_000_000.0


def _miss(model: str) -> dict[str, Any]:
    """A response that read nothing: the monitor diffs the request against the one before."""
    usage = {"input_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 1800}
    return {"model": model, "usage": {**usage, "output_tokens": 3}}


def _unreadable(request: dict[str, Any]) -> dict[str, Any]:
    bad = copy.deepcopy(request)
    bad["system"][0][("a", "b")] = 1  # a tuple as a dict key: no JSON of it exists
    return bad


def _state(monitor: Monitor) -> tuple[Any, ...]:
    keys = monitor._keys
    entries = tuple((k, id(e)) for k, e in keys.entries.items())
    return entries, dict(keys.bodies), keys.body_bytes, monitor.stats()["observations"]


@pytest.mark.parametrize("bad_answer", ["miss", "read"])
def test_a_refused_request_leaves_the_keys_state_as_it_was(
    bad_answer: str, caplog: pytest.LogCaptureFixture
) -> None:
    monitor, sim, request = Monitor("anthropic"), AnthropicSim(), pairs.anthropic()
    monitor.observe(request, sim.respond(request, _AT), key="s", at=_AT)
    before = _state(monitor)
    bad = _unreadable(request)
    if bad_answer == "miss":
        with pytest.raises((InputError, CanonicalError)):
            monitor.observe(bad, _miss(request["model"]), key="s", at=_AT + 1)
        assert _state(monitor) == before
    else:  # a read needs no diff: the request is kept, and must not refuse the next one
        monitor.observe(bad, sim.respond(request, _AT + 1), key="s", at=_AT + 1)
    following = pairs.next_turn(request, 0)
    event = monitor.observe(following, _miss(following["model"]), key="s", at=_AT + 2)
    if bad_answer == "miss":  # judged against the request before the refused one
        assert event is not None and event.cause == "none" and event.gap_seconds == 2.0
    else:  # the one before it cannot be read: judged as the key's first, and said
        assert event is None
        assert "could not be read; this one is judged as the key's first" in caplog.text
    other = copy.deepcopy(following)
    other["model"] = "claude-opus-4-1"
    event = monitor.observe(other, _miss(other["model"]), key="s", at=_AT + 3)
    assert event is not None and event.cause == "model_changed"


def test_the_same_request_refused_twice_then_valid_is_judged_against_the_last_valid() -> None:
    monitor, sim, request = Monitor("anthropic"), AnthropicSim(), pairs.anthropic()
    monitor.observe(request, sim.respond(request, _AT), key="s", at=_AT)
    for n in (1, 2):
        with pytest.raises((InputError, CanonicalError)):
            monitor.observe(_unreadable(request), _miss(request["model"]), key="s", at=_AT + n)
    stamped = copy.deepcopy(request)
    stamped["system"][0]["text"] = pairs.with_header("Now: 2026-11-29T20:41:07Z")
    event = monitor.observe(stamped, _miss(request["model"]), key="s", at=_AT + 3)
    assert event is not None and event.cause == "timestamp", event
    assert event.gap_seconds == 3.0  # against the first request, the last one observed


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    server = RedisServer(tmp_path)
    server.start()
    yield server.url
    server.stop()


def _redis_contents(url: str) -> dict[bytes, Any]:
    import redis

    client = redis.Redis.from_url(url)
    try:
        return {name: client.dump(name) for name in sorted(client.keys("*"))}
    finally:
        client.close()


def test_a_refused_request_leaves_the_redis_state_as_it_was(redis_url: str) -> None:
    from promptcache.debug.redis_store import RedisStore

    store = RedisStore.from_url(redis_url)
    monitor = Monitor("anthropic", store=store, background=False)
    sim, request = AnthropicSim(), pairs.anthropic()
    try:
        monitor.observe(request, sim.respond(request, _AT), key="s", at=_AT)
        before = _redis_contents(redis_url)
        for answer in (_miss(request["model"]), sim.respond(request, _AT + 1)):
            with pytest.raises((InputError, CanonicalError)):
                monitor.observe(_unreadable(request), answer, key="s", at=_AT + 1)
            assert _redis_contents(redis_url) == before
        stamped = copy.deepcopy(request)
        stamped["system"][0]["text"] = pairs.with_header("Now: 2026-11-29T20:41:07Z")
        event = monitor.observe(stamped, _miss(request["model"]), key="s", at=_AT + 2)
        # the store keeps hashes, not bodies: the changed block, not the field, is named
        assert event is not None and event.layer == "system", event
        assert event.cause in ("timestamp", "content_changed") and event.gap_seconds == 2.0
    finally:
        monitor.close()
