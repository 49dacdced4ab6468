"""
The Bedrock emulator behind boto3's real `bedrock-runtime` client (a botocore before-send hook:
nothing leaves the process): Converse and InvokeModel, streamed as real event-stream frames.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

botocore_exceptions = pytest.importorskip("botocore.exceptions")

from promptcache import Message, Prompt, get_adapter  # noqa: E402
from promptcache.sim import BedrockEmulator, ManualClock, emulator_for  # noqa: E402
from promptcache.vendors.bedrock_converse import ConverseStream  # noqa: E402

MODEL = "global.anthropic.claude-sonnet-4-5-20250929-v1:0"
SYSTEM = "Policy line for the support agent, kept identical on every turn. " * 120


def _prompt(tail: str = "Where is SH-1?") -> Prompt:
    return Prompt().add_system(SYSTEM).with_tail(tail)


def test_converse_writes_then_reads_through_boto3() -> None:
    clock = ManualClock()
    emulator = emulator_for("bedrock", clock=clock)
    assert isinstance(emulator, BedrockEmulator)
    client = emulator.client()
    adapter = get_adapter("bedrock")
    first = client.converse(**adapter.to_request(_prompt(), model=MODEL))
    usage = adapter.read_usage(first)
    assert usage.cache_write and usage.cache_write > 1024 and usage.cache_read == 0
    clock.advance(30)
    again = adapter.read_usage(client.converse(**adapter.to_request(_prompt("Q2"), model=MODEL)))
    assert again.cache_read == usage.cache_write
    assert first["ResponseMetadata"]["HTTPHeaders"]["x-promptcache-emulation"] == "true"
    clock.advance(301)  # past the 5-minute TTL
    late = adapter.read_usage(client.converse(**adapter.to_request(_prompt("Q3"), model=MODEL)))
    assert late.cache_read == 0


def test_a_one_hour_point_is_split_by_ttl_in_cache_details() -> None:
    client = BedrockEmulator(clock=ManualClock()).client()
    kwargs = get_adapter("bedrock").to_request(_prompt(), model=MODEL, ttl="1h")
    usage = client.converse(**kwargs)["usage"]
    assert usage["cacheDetails"] == [{"ttl": "1h", "inputTokens": usage["cacheWriteInputTokens"]}]


def test_converse_stream_is_real_event_stream_frames() -> None:
    client = BedrockEmulator(clock=ManualClock()).client()
    kwargs = get_adapter("bedrock").to_request(_prompt(), model=MODEL)
    reply = client.converse_stream(**kwargs)
    events = list(reply["stream"])  # botocore's own decoder reads our frames
    assert [next(iter(e)) for e in events] == [
        "messageStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
    ]
    stream = ConverseStream()
    for item in events:
        stream.feed(item)
    assert stream.usage.cache_write and stream.usage.cache_write > 1024


def test_what_bedrock_refuses_is_a_validation_exception() -> None:
    client = BedrockEmulator(clock=ManualClock()).client()
    point = {"cachePoint": {"type": "default"}}
    body: dict[str, Any] = {
        "modelId": MODEL,
        "system": [b for _ in range(5) for b in ({"text": SYSTEM}, point)],
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
    }
    with pytest.raises(botocore_exceptions.ClientError, match="A maximum of 4"):
        client.converse(**body)
    body["system"] = [{"text": "x"}]
    body["messages"] = [
        {"role": "user", "content": [{"text": "hi"}]},
        {
            "role": "assistant",
            "content": [
                {"reasoningContent": {"reasoningText": {"text": "t", "signature": "s"}}},
                point,
            ],
        },
        {"role": "user", "content": [{"text": "and?"}]},
    ]
    with pytest.raises(botocore_exceptions.ClientError, match="after reasoning block"):
        client.converse(**body)


def test_invoke_model_with_anthropics_body() -> None:
    clock = ManualClock()
    emulator = emulator_for("bedrock-invoke", clock=clock)  # InvokeModel is Bedrock's too
    assert isinstance(emulator, BedrockEmulator)
    client = emulator.client()
    body = {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 16,
        "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "hi"}],
    }
    reply = client.invoke_model(modelId=MODEL, body=json.dumps(body))
    usage = json.loads(reply["body"].read())["usage"]
    assert usage["cache_creation_input_tokens"] > 1024
    streamed = client.invoke_model_with_response_stream(modelId=MODEL, body=json.dumps(body))
    chunks = [json.loads(e["chunk"]["bytes"]) for e in streamed["body"]]
    assert chunks[0]["type"] == "message_start"
    assert (
        chunks[0]["message"]["usage"]["cache_read_input_tokens"]
        == usage["cache_creation_input_tokens"]
    )
    assert "amazon-bedrock-invocationMetrics" in chunks[-1]


def test_history_keeps_the_cache_across_turns() -> None:
    clock = ManualClock()
    client = BedrockEmulator(clock=clock).client()
    adapter = get_adapter("bedrock")
    prompt = _prompt("Q1")
    client.converse(**adapter.to_request(prompt, model=MODEL))
    grown = prompt.commit_tail(Message.assistant("A1")).with_tail("Q2")
    clock.advance(5)
    usage = adapter.read_usage(client.converse(**adapter.to_request(grown, model=MODEL)))
    assert usage.cache_read and usage.uncached_input < 50
