"""
Rebuilding a request from GenAI-convention span attributes: tool calls and results, the tool
definitions' forms, and every part the rebuild cannot read named by path, never by content.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from promptcache.debug.span_requests import span_request
from promptcache.vendors import detect_vendor

SECRET = "Zebulon Quackenbush <zebulon.q@example.org>"


def _attributes(messages: list[Any], **more: Any) -> dict[str, Any]:
    return {
        "gen_ai.request.model": more.pop("model", "claude-sonnet-4-6"),
        "gen_ai.input.messages": json.dumps(messages),
        **{k: json.dumps(v) if isinstance(v, list) else v for k, v in more.items()},
    }


TURNS = [
    {"role": "user", "parts": [{"type": "text", "content": f"Weather for {SECRET}?"}]},
    {
        "role": "assistant",
        "parts": [
            {"type": "text", "content": "Checking."},
            {"type": "tool_call", "id": "call_1", "name": "weather", "arguments": {"city": "Oslo"}},
        ],
    },
    {
        "role": "tool",
        "parts": [{"type": "tool_call_response", "id": "call_1", "response": {"temp": 3}}],
    },
]


def test_anthropic_tool_turns_are_rebuilt_as_blocks() -> None:
    request = span_request(
        _attributes(
            TURNS,
            **{
                "gen_ai.system_instructions": [{"type": "text", "content": "Be brief."}],
                "gen_ai.tool.definitions": [
                    {"type": "function", "name": "weather", "parameters": {"type": "object"}}
                ],
                "gen_ai.request.max_tokens": 64,
            },
        ),
        "anthropic",
    )
    assert request.partial and request.body is not None
    body = request.body
    assert body["system"] == [{"type": "text", "text": "Be brief."}]
    assert body["max_tokens"] == 64
    assert body["messages"][1]["content"][1] == {
        "type": "tool_use",
        "id": "call_1",
        "name": "weather",
        "input": {"city": "Oslo"},
    }
    assert body["messages"][2] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": '{"temp": 3}'}],
    }
    assert body["tools"] == [{"name": "weather", "input_schema": {"type": "object"}}]
    assert detect_vendor(body).name == "anthropic"


def test_openai_tool_turns_are_rebuilt_as_messages() -> None:
    request = span_request(
        _attributes(
            TURNS,
            model="gpt-4o",
            **{"gen_ai.tool.definitions": [{"type": "function", "name": "weather"}]},
        ),
        "openai",
    )
    body = request.body
    assert body is not None
    assert body["messages"][1]["tool_calls"] == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "weather", "arguments": '{"city":"Oslo"}'},
        }
    ]
    assert body["messages"][2] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": '{"temp": 3}',
    }
    assert body["tools"] == [{"type": "function", "function": {"name": "weather"}}]
    assert detect_vendor(body).name == "openai"


@pytest.mark.parametrize(
    ("attributes", "vendor", "named"),
    [
        (
            _attributes([{"role": "user", "parts": [{"type": "blob", "content": SECRET}]}]),
            "anthropic",
            "gen_ai.input.messages[0].parts[0] is a 'blob' part",
        ),
        (
            _attributes([{"role": "user", "parts": [{"type": "text"}]}]),
            "openai",
            "gen_ai.input.messages[0].parts[0] is a text part without text",
        ),
        (
            {"gen_ai.request.model": "m", "gen_ai.input.messages": SECRET},
            "openai",
            "gen_ai.input.messages is not valid JSON",
        ),
        (  # a misplaced value where the part's type should be: named by its hash, not quoted
            _attributes([{"role": "user", "parts": [{"type": SECRET}]}]),
            "anthropic",
            "gen_ai.input.messages[0].parts[0] is a str of 43 chars, sha256",
        ),
        (  # an unknown system is named only when it reads as a name
            _attributes(TURNS, **{"gen_ai.system": SECRET}),
            SECRET,
            "its messages are for str of 43 chars, sha256",
        ),
        (
            _attributes([{"parts": []}]),
            "openai",
            "gen_ai.input.messages[0] is not a message with a role",
        ),
        (
            _attributes(TURNS, model="gemini-2.5-pro"),
            "gemini",
            "does not rebuild from spans",
        ),
        (
            {"gen_ai.input.messages": json.dumps(TURNS)},
            "openai",
            "no gen_ai.request.model",
        ),
    ],
)
def test_what_cannot_be_rebuilt_is_named_without_content(
    attributes: dict[str, Any], vendor: str, named: str
) -> None:
    request = span_request(attributes, vendor)
    assert request.body is None and named in request.reason
    assert "Quackenbush" not in request.reason and "zebulon" not in request.reason


def test_each_reason_a_span_is_not_judged_is_said_and_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # the first span carries no request, the later ones a part the rebuild cannot read: the
    # second reason must be said too (it was swallowed by the first), and each counted
    pytest.importorskip("opentelemetry.sdk")
    import logging

    from opentelemetry.sdk.trace import TracerProvider

    import promptcache
    from promptcache.debug.otel import MonitorSpanProcessor

    caplog.set_level(logging.DEBUG, logger="promptcache")
    provider = TracerProvider()
    processor = MonitorSpanProcessor(promptcache.Monitor(metrics=False))
    provider.add_span_processor(processor)
    usage = {
        "gen_ai.operation.name": "chat",
        "gen_ai.system": "anthropic",
        "gen_ai.usage.input_tokens": 2000,
        "gen_ai.usage.cache_read.input_tokens": 0,
        "gen_ai.usage.cache_creation.input_tokens": 1800,
    }
    image = [{"role": "user", "parts": [{"type": "image", "content": SECRET}]}]
    spans = [{"gen_ai.request.model": "claude-sonnet-4-6"}] + [_attributes(image)] * 2
    for attributes in spans:
        provider.get_tracer("t").start_span("chat", attributes={**usage, **attributes}).end()
    assert "carries no request" in caplog.text
    assert caplog.text.count("its gen_ai.input.messages[0].parts[0] is a 'image' part") == 1
    assert processor.unjudged == {
        "it carries no request (content capture off?)": 1,
        "its gen_ai.input.messages[*].parts[*] is a 'image' part, which is not rebuilt": 2,
    }
    assert "Zebulon" not in caplog.text


def test_a_key_function_that_returns_no_string_is_named(caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("opentelemetry.sdk")
    import logging

    from opentelemetry.sdk.trace import TracerProvider

    import promptcache
    from promptcache.debug.otel import MonitorSpanProcessor

    caplog.set_level(logging.DEBUG, logger="promptcache")
    provider = TracerProvider()
    processor = MonitorSpanProcessor(promptcache.Monitor(metrics=False), key=lambda a: 7)
    provider.add_span_processor(processor)
    attributes = {
        "gen_ai.system": "anthropic",
        "gen_ai.usage.input_tokens": 2000,
        "gen_ai.usage.cache_read.input_tokens": 0,
        "gen_ai.usage.cache_creation.input_tokens": 1800,
        **_attributes(TURNS),
    }
    provider.get_tracer("t").start_span("chat", attributes=attributes).end()
    assert "the key function returned int, not a string" in caplog.text
    # a span not judged is counted in unjudged, and said once, not once per span
    provider.get_tracer("t").start_span("chat", attributes=attributes).end()
    assert processor.unjudged == {"the monitor could not read its request": 2}
    assert caplog.text.count("the key function returned int") == 1
