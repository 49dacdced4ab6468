"""What a monitor's miss message says of the field: its own length, and why a body was not kept."""

from __future__ import annotations

from typing import Any

from promptcache import Monitor

SYSTEM = "You are the support agent of an online shop. " * 130 + "Be brief."


def _request(system: str) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 64,
        "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "Where is my order?"}],
    }


def _response(read: int, write: int) -> dict[str, Any]:
    usage = {"input_tokens": 8, "output_tokens": 5, "cache_read_input_tokens": read}
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "usage": {**usage, "cache_creation_input_tokens": write},
    }


def test_the_message_gives_the_field_s_length_not_the_excerpt_s() -> None:
    """A 6,011-char system text was "was str of 39 chars": the length of diff's excerpt."""
    monitor = Monitor("anthropic", clock=lambda: 100.0)
    first, second = _request(SYSTEM), _request("Now: 2026-12-01T10:00:00Z. " + SYSTEM)
    assert monitor.observe(first, _response(0, 1500), key="s") is None
    event = monitor.observe(second, _response(0, 1510), key="s")
    assert event is not None and event.cause == "timestamp"
    assert f"was str of {len(SYSTEM)} chars" in event.message(), event.message()
    assert f"now str of {len(second['system'][0]['text'])} chars" in event.message()


def test_with_a_store_that_keeps_no_bodies_the_miss_says_so(tmp_path: Any) -> None:
    """It said "body not kept: over the monitor's byte budget" of a RedisStore, which keeps none."""
    from promptcache import RedisStore

    from .redis_server import RedisServer

    server = RedisServer(tmp_path)
    server.start()
    try:
        store = RedisStore.from_url(server.url)
        ticks = iter(range(100, 10_000, 10))
        monitor = Monitor(
            "anthropic", store=store, background=False, clock=lambda: float(next(ticks))
        )
        monitor.observe(_request(SYSTEM), _response(0, 1500), key="s")
        event = monitor.observe(_request("Other. " + SYSTEM), _response(0, 1510), key="s")
        monitor.close()
    finally:
        server.stop()
    assert event is not None and event.path == "system[0]"
    assert "byte budget" not in event.detail, event.detail
    assert "keeps no request bodies" in event.detail and "keep_bodies=True" in event.detail
