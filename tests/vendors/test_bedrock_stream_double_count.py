"""
The ConverseStream double count (maximhq/bifrost#6942): Bedrock's stream for `openai.gpt-5.6`
reported inputTokens 4,995 with cacheWriteInputTokens 4,993, where the same call unstreamed
reported 2. A stream usage with inputTokens at least the cache read plus write is flagged as a
problem (for OpenAI models and models it cannot tell), so the monitor takes no expectation from
its numbers; the real boto3 client, wrapped, against a stub on 127.0.0.1 sends it.
"""

from __future__ import annotations

from typing import Any

import pytest

from promptcache import Monitor, wrap
from promptcache.vendors.bedrock_converse import ConverseStream, read_usage

from .._recording import aws_event_stream, stub_server
from ..debug.bedrock_cassettes import boto3_client

GPT = "openai.gpt-5.6"
CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
ARN = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"


def _usage(uncached: int, read: int, write: int) -> dict[str, int]:
    return {
        "inputTokens": uncached,
        "outputTokens": 12,
        "totalTokens": uncached + read + write + 12,
        "cacheReadInputTokens": read,
        "cacheWriteInputTokens": write,
    }


def _events(usage: dict[str, int]) -> list[tuple[str, Any]]:
    """A ConverseStream as boto3 yields it: the usage only in the last (metadata) event."""
    return [
        ("messageStart", {"role": "assistant"}),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "ok"}}),
        ("contentBlockStop", {"contentBlockIndex": 0}),
        ("messageStop", {"stopReason": "end_turn"}),
        ("metadata", {"usage": usage, "metrics": {"latencyMs": 380}}),
    ]


def _streamed(model: str | None, usage: dict[str, int]) -> Any:
    stream = ConverseStream(model)
    for kind, payload in _events(usage):
        stream.feed({kind: payload})
    return stream.usage


DOUBLED = _usage(4995, 0, 4993)  # the numbers of bifrost#6942


@pytest.mark.parametrize("model", [GPT, ARN, None])
def test_a_stream_that_may_double_count_is_flagged(model: str | None) -> None:
    usage = _streamed(model, DOUBLED)
    assert usage.cache_write == 4993 and usage.uncached_input == 4995  # figures kept as sent
    assert any("double count" in p and "bifrost#6942" in p for p in usage.problems)
    assert usage.prefix_measure is None  # measures no cached prefix


def test_the_same_numbers_unstreamed_or_from_claude_are_not_flagged() -> None:
    assert read_usage({"usage": DOUBLED}).problems == ()  # the guard is the stream's
    assert _streamed(CLAUDE, DOUBLED).problems == ()  # not seen on Claude
    assert _streamed(GPT, _usage(2, 0, 4993)).problems == ()  # the unstreamed call's shape
    assert _streamed(GPT, _usage(300, 0, 0)).problems == ()  # nothing cached, nothing doubled


def _request(question: str) -> dict[str, Any]:
    policy = "Shipwell order desk policy, refunds within thirty days. " * 100  # ~1,200 tokens
    return {
        "modelId": GPT,
        "system": [{"text": policy}, {"cachePoint": {"type": "default"}}],
        "messages": [{"role": "user", "content": [{"text": question}]}],
    }


def test_the_wrapped_boto3_stream_sets_no_expectation_from_a_doubled_write() -> None:
    # turn 1 claims a 4,993-token write (the doubled figure); turn 2 reads the ~1,200-token
    # prefix that really is there: a hit, not a miss of 3,800 tokens
    events: list[Any] = []
    monitor = Monitor("bedrock", on_invalidation=events.append, metrics=False)
    with stub_server() as stub:
        stub.serve(
            [
                aws_event_stream(_events(DOUBLED)),
                aws_event_stream(_events(_usage(14, 1210, 0))),
            ]
        )
        client = wrap(boto3_client(stub.url), monitor=monitor)
        for question in ("Where is SH-1?", "And SH-2?"):
            reply = client.converse_stream(**_request(question))
            for _ in reply["stream"]:
                pass
    assert [p for p, _ in stub.seen] == ["POST"] * 2
    assert monitor.stats()["observations"] == 2
    assert events == []


def test_a_clean_stream_of_the_same_write_does_expect_it() -> None:
    # the control: a 4,993-token write reported cleanly, then a read of 1,210, is a miss
    events: list[Any] = []
    monitor = Monitor("bedrock", on_invalidation=events.append, metrics=False)
    with stub_server() as stub:
        stub.serve(
            [
                aws_event_stream(_events(_usage(2, 0, 4993))),
                aws_event_stream(_events(_usage(14, 1210, 0))),
            ]
        )
        client = wrap(boto3_client(stub.url), monitor=monitor)
        for question in ("Where is SH-1?", "And SH-2?"):
            for _ in client.converse_stream(**_request(question))["stream"]:
                pass
    assert len(events) == 1 and events[0].expected_read == 4993
