"""Bedrock InvokeModel with Anthropic's body: detection, markers, usage and the chunked stream."""

from __future__ import annotations

import json
from typing import Any

import pytest

from promptcache import InputError, Prompt, get_adapter
from promptcache.adapters.bedrock import invoke_kwargs
from promptcache.vendors import detect_vendor
from promptcache.vendors.bedrock_invoke import InvokeStream, check, read_usage

MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"


def _body(**extra: Any) -> dict[str, Any]:
    return {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 64,
        "system": [{"type": "text", "text": "S", "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        **extra,
    }


def test_an_invoke_body_is_told_from_anthropics_and_vertexs() -> None:
    assert detect_vendor(_body()).name == "bedrock-invoke"
    assert detect_vendor({**_body(), "anthropic_version": "2026-10-21"}).name == "bedrock-invoke"
    first_party = {k: v for k, v in _body().items() if k != "anthropic_version"}
    assert detect_vendor({**first_party, "model": "claude-sonnet-4-6"}).name == "anthropic"
    vertex = {**_body(), "anthropic_version": "vertex-2023-10-16"}
    assert detect_vendor(vertex).name != "bedrock-invoke"


def test_what_bedrock_answers_400_to() -> None:
    present, problems = check(_body())
    assert present == [("system[0]", None)] and problems == []
    _, problems = check(_body(cache_control={"type": "ephemeral"}))
    assert any("top-level cache_control" in p and "Fix" in p for p in problems)
    late = _body()
    late["messages"][0]["content"][0]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    _, problems = check(late)
    assert any(
        "messages[0].content[0]" in p and "after the 5m one at system[0]" in p for p in problems
    )


def test_usage_is_anthropics_arithmetic_under_bedrocks_name() -> None:
    usage = read_usage(
        {"usage": {"input_tokens": 3, "cache_read_input_tokens": 1300, "output_tokens": 9}}
    )
    assert (usage.uncached_input, usage.cache_read, usage.total_input) == (3, 1300, 1303)
    assert usage.vendor == "bedrock-invoke"


def _chunk(event: dict[str, Any]) -> dict[str, Any]:
    return {"chunk": {"bytes": json.dumps(event).encode()}}


def test_the_stream_is_read_from_its_chunks() -> None:
    stream = InvokeStream()
    start = {
        "type": "message_start",
        "message": {
            "usage": {
                "input_tokens": 4,
                "cache_read_input_tokens": 2000,
                "cache_creation_input_tokens": 0,
                "output_tokens": 1,
            }
        },
    }
    for event in (
        start,
        {"type": "message_delta", "delta": {}, "usage": {"output_tokens": 7}},
        {"type": "message_stop", "amazon-bedrock-invocationMetrics": {"inputTokenCount": 4}},
    ):
        stream.feed(_chunk(event))
    assert (stream.usage.cache_read, stream.usage.output) == (2000, 7)
    assert stream.usage.endpoint == "invoke_model_with_response_stream"


def test_without_anthropic_usage_the_invocation_metrics_are_read() -> None:
    stream = InvokeStream()
    metrics = {"inputTokenCount": 5, "outputTokenCount": 2, "cacheReadInputTokenCount": 900}
    stream.feed(_chunk({"type": "message_stop", "amazon-bedrock-invocationMetrics": metrics}))
    assert (stream.usage.cache_read, stream.usage.uncached_input) == (900, 5)
    with pytest.raises(InputError, match="message_start"):
        _ = InvokeStream().usage


def test_the_adapter_writes_bedrocks_body_and_boto3_kwargs() -> None:
    prompt = Prompt().add_system("Policy line. " * 400).with_tail("q")
    adapter = get_adapter("bedrock-invoke")
    request = adapter.to_request(prompt, model=MODEL)
    assert request["extra_body"]["anthropic_version"] == "bedrock-2023-05-31"
    assert request["system"][-1]["cache_control"] == {"type": "ephemeral"}
    sent = invoke_kwargs(request)
    assert sent["modelId"] == MODEL and "model" not in json.loads(sent["body"])
    assert json.loads(sent["body"])["anthropic_version"] == "bedrock-2023-05-31"
    with pytest.raises(InputError, match="not available on Bedrock"):
        adapter.to_request(prompt, model=MODEL, automatic=True)
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/x1"
    with pytest.raises(InputError, match="cannot tell which model"):
        adapter.to_request(prompt, model=arn)
