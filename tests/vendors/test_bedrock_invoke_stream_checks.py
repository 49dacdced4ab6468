"""
An `invoke_model_with_response_stream` reply reports its counts twice: in the Anthropic events
(`message_start`, the cumulative `message_delta`) and in the `amazon-bedrock-invocationMetrics`
of its last chunk, whose `inputTokenCount` excludes the cache reads and writes as `input_tokens`
does (BerriAI/litellm#36878). The ConverseStream double count (maximhq/bifrost#6942, an OpenAI
model) cannot come this way, since this body is Claude's, and no source shows Bedrock's Claude
stream counting the cache into `input_tokens`; so the same `input >= read + write` guard would
only flag honest Claude usage with a long uncached tail. What this stream can do, and is checked
here, with the real boto3 client against a stub on 127.0.0.1:

- the two reports disagree: flagged as a problem naming both (and a double count where the
  events' input is the metrics' plus the cache), so the monitor takes no expectation from it;
- the events carry no counts at all (a `message_start` without usage, as maximhq/bifrost#5629
  saw a gateway send): the metrics are read, not "caching not reported" with 0 input.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from promptcache import Monitor, wrap
from promptcache.adapters.bedrock import invoke_kwargs
from promptcache.vendors.bedrock_invoke import InvokeStream

from .._recording import aws_event_stream, stub_server
from ..debug.bedrock_cassettes import MODEL, boto3_client, invoke_body


def _metrics(uncached: int, read: int, write: int, output: int = 7) -> dict[str, int]:
    return {
        "inputTokenCount": uncached,
        "outputTokenCount": output,
        "invocationLatency": 812,
        "firstByteLatency": 300,
        "cacheReadInputTokenCount": read,
        "cacheWriteInputTokenCount": write,
    }


def _events(usage: dict[str, int] | None, metrics: dict[str, int]) -> list[dict[str, Any]]:
    """One Claude answer as InvokeModel streams it: Anthropic's events, the metrics last."""
    message: dict[str, Any] = {"id": "msg_1", "type": "message", "role": "assistant"}
    message["model"] = "claude-sonnet-4-5-20250929"
    if usage is not None:
        message["usage"] = {**usage, "output_tokens": 1}
    return [
        {"type": "message_start", "message": {**message, "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 7},
        },
        {"type": "message_stop", "amazon-bedrock-invocationMetrics": metrics},
    ]


def _anthropic(uncached: int, read: int, write: int) -> dict[str, int]:
    return {
        "input_tokens": uncached,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
    }


def _read(events: list[dict[str, Any]]) -> Any:
    stream = InvokeStream()
    for event in events:
        stream.feed({"chunk": {"bytes": json.dumps(event).encode()}})
    return stream.usage


def test_reports_that_agree_are_clean() -> None:
    usage = _read(_events(_anthropic(12, 1829, 0), _metrics(12, 1829, 0)))
    assert usage.problems == () and (usage.uncached_input, usage.cache_read) == (12, 1829)


def test_a_long_uncached_tail_is_no_double_count() -> None:
    # Claude with 3,000 new tokens after a 1,829-token cached prefix: input >= read + write, and
    # honest; the ConverseStream guard's shape, which this stream is not flagged for
    usage = _read(_events(_anthropic(3000, 1829, 0), _metrics(3000, 1829, 0)))
    assert usage.problems == ()


def test_events_that_count_the_cache_again_are_flagged_as_a_double_count() -> None:
    usage = _read(_events(_anthropic(12 + 1829 + 400, 1829, 400), _metrics(12, 1829, 400)))
    assert usage.uncached_input == 2241  # kept as sent, not repaired on a guess
    [problem] = usage.problems
    assert "input_tokens 2241 vs inputTokenCount 12" in problem
    assert "double count" in problem and "read and write" in problem
    assert usage.prefix_measure is None  # measures no cached prefix: no expectation


def test_reports_that_disagree_otherwise_are_flagged() -> None:
    usage = _read(_events(_anthropic(12, 1829, 0), _metrics(12, 0, 1829)))
    [problem] = usage.problems
    assert "cache_read_input_tokens 1829 vs cacheReadInputTokenCount 0" in problem
    assert "cache_creation_input_tokens 0 vs cacheWriteInputTokenCount 1829" in problem
    assert "double count" not in problem


def test_events_without_counts_are_read_from_the_metrics() -> None:
    usage = _read(_events(None, _metrics(12, 1829, 0)))
    assert (usage.uncached_input, usage.cache_read, usage.cache_write) == (12, 1829, 0)
    assert usage.output == 7 and usage.caching_reported and usage.problems == ()


def _chunks(events: list[dict[str, Any]]) -> Any:
    return aws_event_stream(
        [("chunk", {"bytes": base64.b64encode(json.dumps(e).encode()).decode()}) for e in events]
    )


def _streamed(client: Any, question: str) -> None:
    reply = client.invoke_model_with_response_stream(**invoke_kwargs(invoke_body(question)))
    for _ in reply["body"]:
        pass


def _judged(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> list[Any]:
    """Two turns through a wrapped boto3 client against the stub: the invalidations found."""
    events: list[Any] = []
    monitor = Monitor("bedrock-invoke", on_invalidation=events.append, metrics=False)
    with stub_server() as stub:
        stub.serve([_chunks(first), _chunks(second)])
        client = wrap(boto3_client(stub.url), monitor=monitor, vendor="bedrock-invoke")
        for question in ("Where is SH-1?", "And SH-2?"):
            _streamed(client, question)
    assert [p for p, _ in stub.seen] == ["POST"] * 2
    assert monitor.stats()["observations"] == 2
    assert MODEL.startswith("us.anthropic.")  # the Claude body the stub was sent
    return events


READ = _events(_anthropic(40, 1829, 0), _metrics(40, 1829, 0))  # turn 2 reads the real prefix


def test_the_wrapped_boto3_stream_takes_no_expectation_from_reports_that_disagree() -> None:
    # turn 1's events claim a 3,658-token write where its metrics say 1,829 (the shape of the
    # doubled stream write langchain-ai/langchain-aws#983 saw on Claude): turn 2 reading the
    # 1,829 really there is a hit, not a miss of 1,829 more
    first = _events(_anthropic(12, 0, 3658), _metrics(12, 0, 1829))
    assert _judged(first, READ) == []


def test_the_control_a_write_both_reports_agree_on_is_expected() -> None:
    [event] = _judged(_events(_anthropic(12, 0, 3658), _metrics(12, 0, 3658)), READ)
    assert event.expected_read == 3658


def test_the_wrapped_boto3_stream_without_event_counts_is_judged_from_the_metrics() -> None:
    # the events carry no counts; the metrics' 3,658-token write is what turn 2 is held to
    [event] = _judged(_events(None, _metrics(12, 0, 3658)), READ)
    assert event.expected_read == 3658


def test_anthropic_bedrock_streams_are_checked_the_same_way() -> None:
    """The anthropic SDK's `AnthropicBedrock` decodes the same chunks into its event objects;
    the metrics ride on its `message_stop` and the reports are compared as on boto3's path."""
    from ..debug.bedrock_cassettes import anthropic_bedrock_client

    seen: list[Any] = []
    with stub_server() as stub:
        stub.serve([_chunks(_events(_anthropic(12, 0, 3658), _metrics(12, 0, 1829)))])
        client = wrap(anthropic_bedrock_client(stub.url))
        monitor = object.__getattribute__(client, "_watcher").monitor
        real = monitor.observe

        def spy(request: Any, response: Any = None, **kw: Any) -> Any:
            seen.append(kw.get("usage"))
            return real(request, response, **kw)

        monitor.observe = spy
        with client.messages.create(**invoke_body("Where is SH-1?"), stream=True) as stream:
            for _ in stream:
                pass
    [usage] = seen
    [problem] = usage.problems
    assert "cache_creation_input_tokens 3658 vs cacheWriteInputTokenCount 1829" in problem
