"""The Anthropic cache emulation: breakpoints, lookback, TTLs, minimums, models, refusals."""

from __future__ import annotations

from typing import Any

import pytest

from promptcache.sim import EMULATION, AnthropicEmulator, ManualClock
from promptcache.sim._core import tokens_of

MODEL = "claude-sonnet-4-6"  # minimum 1024 tokens in the table
BIG = "policy text " * 600  # about 1,800 tokens by the emulators' ruler
EPHEMERAL = {"type": "ephemeral"}


def request(
    *messages: Any, system: str = BIG, marker: dict[str, Any] | None = EPHEMERAL, **extra: Any
) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": system}
    if marker is not None:
        block["cache_control"] = marker
    return {
        "model": MODEL,
        "max_tokens": 16,
        "system": [block],
        "messages": list(messages) or [{"role": "user", "content": "hi"}],
        **extra,
    }


def send(emulator: AnthropicEmulator, body: dict[str, Any]) -> dict[str, Any]:
    status, answer = emulator.handle("POST", "/v1/messages", body)
    assert status == 200, answer
    usage: dict[str, Any] = answer["usage"]
    return usage


@pytest.fixture
def emulator(clock: ManualClock) -> AnthropicEmulator:
    return AnthropicEmulator(clock=clock)


def test_first_request_writes_the_second_reads(emulator: AnthropicEmulator) -> None:
    first = send(emulator, request())
    assert first["cache_read_input_tokens"] == 0
    assert first["cache_creation_input_tokens"] > 1024
    assert (
        first["cache_creation"]["ephemeral_5m_input_tokens"] == first["cache_creation_input_tokens"]
    )
    second = send(emulator, request())
    assert second["cache_read_input_tokens"] == first["cache_creation_input_tokens"]
    assert second["cache_creation_input_tokens"] == 0
    assert second["input_tokens"] == first["input_tokens"] > 0  # the message after the marker


def test_the_answer_says_it_is_an_emulation(emulator: AnthropicEmulator) -> None:
    status, answer = emulator.handle("POST", "/v1/messages", request())
    assert status == 200 and answer["content"][0]["text"] == EMULATION
    assert answer["id"].startswith("msg_emulated_")


def test_no_marker_caches_nothing(emulator: AnthropicEmulator) -> None:
    for _ in range(2):
        usage = send(emulator, request(marker=None))
        assert usage["cache_read_input_tokens"] == usage["cache_creation_input_tokens"] == 0


def test_a_changed_system_prompt_misses(emulator: AnthropicEmulator) -> None:
    send(emulator, request())
    assert (
        send(emulator, request(system="Now: 2026-11-30T06:12Z. " + BIG))["cache_read_input_tokens"]
        == 0
    )


def test_below_the_minimum_nothing_is_written(emulator: AnthropicEmulator) -> None:
    for _ in range(2):
        usage = send(emulator, request(system="short system prompt"))
        assert usage["cache_creation_input_tokens"] == usage["cache_read_input_tokens"] == 0


def test_the_minimum_comes_from_the_table_per_model(emulator: AnthropicEmulator) -> None:
    body = request(system="policy text " * 1000)  # ~3,000 tokens: over 1024, under haiku's 4096
    assert send(emulator, {**body, "model": "claude-haiku-4-5"})["cache_creation_input_tokens"] == 0
    assert send(emulator, body)["cache_creation_input_tokens"] > 0


def test_each_model_has_its_own_cache(emulator: AnthropicEmulator) -> None:
    send(emulator, request())
    other = send(emulator, {**request(), "model": "claude-opus-4-8"})
    assert other["cache_read_input_tokens"] == 0 and other["cache_creation_input_tokens"] > 0


def test_ttl_expires_and_a_read_refreshes_it(
    emulator: AnthropicEmulator, clock: ManualClock
) -> None:
    send(emulator, request())
    clock.advance(250)
    assert send(emulator, request())["cache_read_input_tokens"] > 0  # read at 250 s: refreshed
    clock.advance(250)  # 500 s after the write, 250 after the read
    assert send(emulator, request())["cache_read_input_tokens"] > 0
    clock.advance(301)
    assert send(emulator, request())["cache_read_input_tokens"] == 0


def test_a_1h_entry_outlives_five_minutes(emulator: AnthropicEmulator, clock: ManualClock) -> None:
    send(emulator, request(marker={"type": "ephemeral", "ttl": "1h"}))
    clock.advance(1800)
    usage = send(emulator, request(marker={"type": "ephemeral", "ttl": "1h"}))
    assert usage["cache_read_input_tokens"] > 0


def test_the_write_is_split_by_ttl() -> None:
    emulator = AnthropicEmulator(clock=ManualClock())
    body = request(
        {"role": "user", "content": [{"type": "text", "text": BIG, "cache_control": EPHEMERAL}]},
        marker={"type": "ephemeral", "ttl": "1h"},
    )
    usage = send(emulator, body)
    split = usage["cache_creation"]
    assert split["ephemeral_1h_input_tokens"] > 0 and split["ephemeral_5m_input_tokens"] > 0
    assert sum(split.values()) == usage["cache_creation_input_tokens"]


def _turns(count: int) -> list[dict[str, Any]]:
    return [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": [{"type": "text", "text": f"turn {i}"}],
        }
        for i in range(count)
    ]


def _marked_last(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = [dict(m, content=[dict(c) for c in m["content"]]) for m in messages]
    out[-1]["content"][-1]["cache_control"] = EPHEMERAL
    return out


def test_lookback_reaches_20_blocks_back_and_no_further(emulator: AnthropicEmulator) -> None:
    history = _turns(3)
    send(emulator, request(*_marked_last(history), marker=None))
    within = send(emulator, request(*_marked_last(_turns(3 + 20)), marker=None))
    assert within["cache_read_input_tokens"] > 1024  # the entry 20 blocks back is found

    other = AnthropicEmulator(clock=ManualClock())
    send(other, request(*_marked_last(history), marker=None))
    beyond = send(other, request(*_marked_last(_turns(3 + 21)), marker=None))
    assert beyond["cache_read_input_tokens"] == 0  # 21 blocks back: out of reach


def test_automatic_caching_marks_the_last_block(emulator: AnthropicEmulator) -> None:
    first = send(emulator, request(marker=None, cache_control=EPHEMERAL))
    total = first["cache_creation_input_tokens"] + first["input_tokens"]
    assert first["input_tokens"] == 0 and total > 1024
    grown = request(
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "more"},
        marker=None,
        cache_control=EPHEMERAL,
    )
    assert send(emulator, grown)["cache_read_input_tokens"] == total


def test_tool_choice_changes_keep_the_system_but_not_the_messages(
    emulator: AnthropicEmulator,
) -> None:
    messages = _marked_last(_turns(1))
    first = send(emulator, request(*messages, tool_choice={"type": "auto"}))
    usage = send(emulator, request(*messages, tool_choice={"type": "any"}))
    system = tokens_of(b'{"system":{"text":"' + BIG.encode() + b'","type":"text"}}')
    assert usage["cache_read_input_tokens"] == system  # the system prompt's entry
    assert usage["cache_creation_input_tokens"] == first["cache_creation_input_tokens"] - system


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (request(marker={"type": "ephemeral", "ttl": "1d"}), "ttl"),
        (request(marker={"type": "persistent"}), "ephemeral"),
        (
            request(
                *[
                    {
                        "role": "user",
                        "content": [{"type": "text", "text": str(i), "cache_control": EPHEMERAL}],
                    }
                    for i in range(4)
                ]
            ),
            "A maximum of 4 blocks",
        ),
        (
            request(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "text",
                            "text": "x",
                            "cache_control": {"type": "ephemeral", "ttl": "1h"},
                        }
                    ],
                }
            ),
            "must not come after",
        ),
        (
            request(
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "thinking",
                            "thinking": "x",
                            "signature": "s",
                            "cache_control": EPHEMERAL,
                        }
                    ],
                }
            ),
            "thinking",
        ),
        ({"model": MODEL, "max_tokens": 5, "messages": "hi"}, "messages"),
        (request(stream=True), "stream"),
    ],
)
def test_refuses_what_the_api_refuses(
    emulator: AnthropicEmulator, body: dict[str, Any], message: str
) -> None:
    status, answer = emulator.handle("POST", "/v1/messages", body)
    assert status == 400 and answer["type"] == "error"
    assert message in answer["error"]["message"]


def test_prewarm_writes_without_output(emulator: AnthropicEmulator) -> None:
    status, answer = emulator.handle("POST", "/v1/messages", {**request(), "max_tokens": 0})
    assert status == 200 and answer["content"] == [] and answer["stop_reason"] == "max_tokens"
    assert answer["usage"]["output_tokens"] == 0
    assert send(emulator, request())["cache_read_input_tokens"] > 0


def test_what_if_does_not_touch_the_cache(emulator: AnthropicEmulator) -> None:
    prepared = emulator.prepare(request(marker=None))
    change = emulator.what_if(prepared, [(0, "5m")], emulator.clock())
    assert change.outcome.write > 0 and len(emulator.store) == 0
    emulator.apply(change, emulator.clock())
    assert len(emulator.store) == 1


def test_a_manual_clock_only_moves_forward() -> None:
    from promptcache import InputError

    with pytest.raises(InputError, match="only moves forward"):
        ManualClock().advance(-1)


def test_every_breakpoints_entry_found_is_read_and_refreshed(
    emulator: AnthropicEmulator, clock: ManualClock
) -> None:
    """A shared system entry stays alive while a longer entry behind it is being read."""
    turn = _marked_last([{"role": "user", "content": [{"type": "text", "text": BIG}]}])
    send(emulator, request(*turn))  # writes the system entry and the longer one
    clock.advance(200)
    assert send(emulator, request(*turn))["cache_read_input_tokens"] > 2000  # the longer one
    clock.advance(200)  # 400 s after the system entry was written, 200 after it was found
    other = request({"role": "user", "content": [{"type": "text", "text": "another question"}]})
    assert send(emulator, other)["cache_read_input_tokens"] > 1024
