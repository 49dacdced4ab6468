"""The OpenAI cache emulation: automatic 128-token steps, GPT-5.6 breakpoints, retention."""

from __future__ import annotations

from typing import Any

import pytest

from promptcache.sim import ManualClock, OpenAIEmulator

BIG = "policy text " * 600  # about 1,800 tokens


def chat(*user: str, model: str = "gpt-5.4", system: str = BIG, **extra: Any) -> dict[str, Any]:
    messages = [{"role": "system", "content": system}]
    messages += [{"role": "user", "content": text} for text in user or ("hi",)]
    return {"model": model, "messages": messages, **extra}


def send(
    emulator: OpenAIEmulator, body: dict[str, Any], path: str = "/v1/chat/completions"
) -> dict[str, Any]:
    status, answer = emulator.handle("POST", path, body)
    assert status == 200, answer
    return answer["usage"]  # type: ignore[no-any-return]


@pytest.fixture
def emulator(clock: ManualClock) -> OpenAIEmulator:
    return OpenAIEmulator(clock=clock)


def test_automatic_reads_in_128_token_steps(emulator: OpenAIEmulator) -> None:
    first = send(emulator, chat("first question"))
    assert first["prompt_tokens_details"]["cached_tokens"] == 0
    assert "cache_write_tokens" not in first["prompt_tokens_details"]  # nothing billed as a write
    second = send(emulator, chat("another question"))
    cached = second["prompt_tokens_details"]["cached_tokens"]
    assert cached >= 1024 and cached % 128 == 0
    assert (
        second["prompt_tokens"] - cached < 128 + 20
    )  # all but the last partial step and the question


def test_automatic_reads_up_to_a_change_inside_a_message(emulator: OpenAIEmulator) -> None:
    send(emulator, chat(system=BIG + BIG))
    changed = send(emulator, chat(system=BIG + "Now: 06:12. " + BIG))
    cached = changed["prompt_tokens_details"]["cached_tokens"]
    assert 1024 <= cached <= 1900  # the unchanged first half, in 128-token steps


def test_automatic_needs_the_minimum(emulator: OpenAIEmulator) -> None:
    for _ in range(2):
        assert send(emulator, chat(system="short"))["prompt_tokens_details"]["cached_tokens"] == 0


def test_prompt_cache_key_separates_caches(emulator: OpenAIEmulator) -> None:
    send(emulator, chat(prompt_cache_key="tenant-a"))
    assert (
        send(emulator, chat(prompt_cache_key="tenant-b"))["prompt_tokens_details"]["cached_tokens"]
        == 0
    )
    assert (
        send(emulator, chat(prompt_cache_key="tenant-a"))["prompt_tokens_details"]["cached_tokens"]
        > 0
    )


def test_in_memory_retention_expires_and_24h_does_not(
    emulator: OpenAIEmulator, clock: ManualClock
) -> None:
    send(emulator, chat(prompt_cache_retention="in_memory"))
    clock.advance(301)
    assert (
        send(emulator, chat(prompt_cache_retention="in_memory"))["prompt_tokens_details"][
            "cached_tokens"
        ]
        == 0
    )
    send(emulator, chat(prompt_cache_retention="24h"))
    clock.advance(6 * 3600)
    assert (
        send(emulator, chat(prompt_cache_retention="24h"))["prompt_tokens_details"]["cached_tokens"]
        > 0
    )


def _marked(text: str, ttl: str | None = None) -> dict[str, Any]:
    point = {"mode": "explicit", **({"ttl": ttl} if ttl else {})}
    return {
        "role": "system",
        "content": [{"type": "text", "text": text, "prompt_cache_breakpoint": point}],
    }


def test_56_implicit_breakpoint_at_the_end_is_written_and_read_by_the_next_turn(
    emulator: OpenAIEmulator,
) -> None:
    first = send(emulator, chat("q1", model="gpt-5.6-terra"))
    details = first["prompt_tokens_details"]
    assert details["cached_tokens"] == 0 and details["cache_write_tokens"] == first["prompt_tokens"]
    body = chat("q1", model="gpt-5.6-terra")
    body["messages"] += [{"role": "assistant", "content": "a1"}, {"role": "user", "content": "q2"}]
    second = send(emulator, body)["prompt_tokens_details"]
    assert second["cached_tokens"] == details["cache_write_tokens"]


def test_56_matches_only_at_a_breakpoint(emulator: OpenAIEmulator) -> None:
    """No fallback to a shorter, unmarked prefix: a new question after an unmarked system misses."""
    send(emulator, chat("q1", model="gpt-5.6-terra"))
    other = send(emulator, chat("a different question", model="gpt-5.6-terra"))
    assert other["prompt_tokens_details"]["cached_tokens"] == 0
    marked = {
        "model": "gpt-5.6-terra",
        "messages": [_marked(BIG), {"role": "user", "content": "q0"}],
    }
    send(emulator, marked)
    again = {
        "model": "gpt-5.6-terra",
        "messages": [_marked(BIG), {"role": "user", "content": "q2"}],
    }
    assert send(emulator, again)["prompt_tokens_details"]["cached_tokens"] > 1024


def test_56_writes_at_most_four_breakpoints(emulator: OpenAIEmulator) -> None:
    parts = [
        {"type": "text", "text": BIG + str(i), "prompt_cache_breakpoint": {"mode": "explicit"}}
        for i in range(6)
    ]
    body = {
        "model": "gpt-5.6-terra",
        "prompt_cache_options": {"mode": "explicit"},
        "messages": [{"role": "system", "content": parts}, {"role": "user", "content": "q"}],
    }
    send(emulator, body)
    assert len(emulator.store) == 4  # the latest four
    shorter = {
        **body,
        "messages": [{"role": "system", "content": parts[:2]}, {"role": "user", "content": "q"}],
    }
    assert send(emulator, shorter)["prompt_tokens_details"]["cached_tokens"] == 0  # not written


def test_responses_report_writes_by_ttl(emulator: OpenAIEmulator) -> None:
    body = {
        "model": "gpt-5.6-terra",
        "input": [
            {
                "role": "developer",
                "content": [
                    {
                        "type": "input_text",
                        "text": BIG,
                        "prompt_cache_breakpoint": {"mode": "explicit", "ttl": "12h"},
                    }
                ],
            },
            {"role": "user", "content": "hi"},
        ],
        "prompt_cache_options": {"mode": "explicit"},
    }
    usage = send(emulator, body, "/v1/responses")
    split = usage["input_tokens_details"]["cache_write_tokens_details"]
    assert split["ttl_12h_tokens"] == usage["input_tokens_details"]["cache_write_tokens"] > 1024
    assert split["ttl_30m_tokens"] == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (chat(prompt_cache_options={"mode": "explicit"}), "prompt_cache_options"),
        (chat(prompt_cache_retention="forever"), "prompt_cache_retention"),
        (chat(model="gpt-5.6-terra", prompt_cache_options={"mode": "sometimes"}), "mode"),
        (
            chat(model="gpt-5.6-terra", prompt_cache_options={"ttl": "1d"}),
            "prompt_cache_options.ttl",
        ),
        (chat(stream=True), "stream"),
        ({"model": "gpt-5.4", "messages": {"role": "user"}}, "messages"),
    ],
)
def test_refuses_bad_requests(emulator: OpenAIEmulator, body: dict[str, Any], message: str) -> None:
    status, answer = emulator.handle("POST", "/v1/chat/completions", body)
    assert status == 400 and message in answer["error"]["message"]


@pytest.mark.parametrize(
    ("path", "ttl", "refused"),
    [
        ("/v1/chat/completions", "12h", True),  # Chat takes "30m" only (vendors.md)
        ("/v1/chat/completions", "30m", False),
        ("/v1/chat/completions", "1h", True),  # a breakpoint TTL is no request-wide setting
        ("/v1/responses", "12h", False),
        ("/v1/responses", "30m", False),
    ],
)
def test_the_request_wide_ttl_is_checked_against_the_setting_not_the_breakpoints(
    emulator: OpenAIEmulator, path: str, ttl: str, refused: bool
) -> None:
    body = chat(model="gpt-5.6-terra", prompt_cache_options={"ttl": ttl})
    if path == "/v1/responses":
        body = {
            "model": body["model"],
            "input": body["messages"],
            "prompt_cache_options": {"ttl": ttl},
        }
    status, answer = emulator.handle("POST", path, body)
    if refused:
        assert status == 400
        assert "prompt_cache_options.ttl: expected one of ['30m']" in answer["error"]["message"]
    else:
        assert status == 200, answer
