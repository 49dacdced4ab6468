from __future__ import annotations

from typing import Any

import pytest

from promptcache import InputError, Layer, ThinkingPart, ToolResult, ToolUse
from promptcache._ingest import prompt_from_request
from promptcache.vendors import detect_vendor

ANTHROPIC: dict[str, Any] = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 256,
    "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
    "tools": [
        {"name": "zeta", "description": "z", "input_schema": {"type": "object"}},
        {"name": "alpha", "description": "a", "input_schema": {"type": "object"}},
    ],
    "messages": [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "s"},
                {"type": "tool_use", "id": "t1", "name": "alpha", "input": {"q": 1}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
        },
        {"role": "assistant", "content": "done"},
        {
            "role": "user",
            "content": [{"type": "text", "text": "next?", "cache_control": {"type": "ephemeral"}}],
        },
    ],
}

OPENAI: dict[str, Any] = {
    "model": "gpt-5.4",
    "messages": [
        {"role": "developer", "content": "You are terse."},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "alpha", "arguments": '{"q": 1}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "user", "content": "next?"},
    ],
    "tools": [
        {
            "type": "function",
            "function": {"name": "alpha", "description": "a", "parameters": {"type": "object"}},
        }
    ],
}

RESPONSES: dict[str, Any] = {
    "model": "gpt-5.6-terra",
    "instructions": "You are terse.",
    "tools": [
        {"type": "function", "name": "alpha", "description": "a", "parameters": {"type": "object"}}
    ],
    "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "function_call", "call_id": "c1", "name": "alpha", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        {"role": "user", "content": "next?"},
    ],
}

GEMINI: dict[str, Any] = {
    "model": "gemini-2.5-flash",
    "contents": [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "alpha", "args": {"q": 1}}}]},
        {
            "role": "user",
            "parts": [{"function_response": {"name": "alpha", "response": {"r": "ok"}}}],
        },
        {"role": "user", "parts": [{"text": "next?"}]},
    ],
    "config": {
        "systemInstruction": {"parts": [{"text": "You are terse."}]},
        "tools": [
            {
                "function_declarations": [
                    {"name": "alpha", "description": "a", "parameters": {"type": "object"}}
                ]
            }
        ],
    },
}


@pytest.mark.parametrize(
    ("request_", "vendor", "roles"),
    [
        (ANTHROPIC, "anthropic", ["user", "assistant", "user", "assistant"]),
        # The tool result is a user turn, so it joins the trailing run of user turns: the tail.
        (OPENAI, "openai", ["user", "assistant"]),
        (RESPONSES, "openai-responses", ["user", "assistant"]),
        (GEMINI, "gemini", ["user", "assistant"]),
    ],
)
def test_each_vendor_shape_is_read(request_: dict[str, Any], vendor: str, roles: list[str]) -> None:
    assert detect_vendor(request_).name == vendor
    ingested = prompt_from_request(request_)
    prompt = ingested.prompt
    assert ingested.vendor == vendor and ingested.model == request_["model"]
    assert [s.text for s in prompt.system] == ["You are terse."]
    assert prompt.tail[-1].text == "next?"
    assert [m.role for m in prompt.history] == roles
    kinds = {type(p) for m in prompt.history + prompt.tail for p in m.content}
    assert ToolResult in kinds and ToolUse in kinds


def test_anthropic_keeps_the_request_tool_order_and_drops_markers() -> None:
    prompt = prompt_from_request(ANTHROPIC).prompt
    assert [t.name for t in prompt.layer(Layer.TOOLS)] == ["zeta", "alpha"]
    assert b"cache_control" not in b"".join(b.data for b in prompt.render())
    assert isinstance(prompt.history[1].content[0], ThinkingPart)


def test_cache_markers_do_not_change_hashes() -> None:
    unmarked = {**ANTHROPIC, "system": "You are terse."}
    a = prompt_from_request(ANTHROPIC).prompt.render()
    b = prompt_from_request(unmarked).prompt.render()
    assert [x.hash for x in a] == [x.hash for x in b]


def test_openai_tool_arguments_are_parsed() -> None:
    prompt = prompt_from_request(OPENAI).prompt
    call = prompt.history[1].content[0]
    assert isinstance(call, ToolUse) and dict(call.input) == {"q": 1}


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        ({"model": "x"}, "cannot tell which vendor"),
        ({"messages": "hello", "max_tokens": 1}, "'messages' must be a list of objects"),
        (
            {"messages": [{"role": "robot", "content": "x"}], "max_tokens": 1},
            "role must be 'user' or 'assistant'",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "video"}]}], "max_tokens": 1},
            "unsupported content block type 'video'",
        ),
    ],
)
def test_bad_requests_get_clear_errors(request_: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        prompt_from_request(request_)


def test_unknown_vendor_is_refused() -> None:
    with pytest.raises(InputError, match="unknown vendor 'palm'"):
        prompt_from_request(ANTHROPIC, "palm")


_SECRET = "SECRET-4417 my card number"


@pytest.mark.parametrize(
    ("vendor", "request_"),
    [
        ("openai", {"model": "gpt-4o", "messages": [_SECRET]}),
        ("openai", {"model": "gpt-4o", "messages": [{"role": "user", "content": [_SECRET]}]}),
        (
            "openai",
            {
                "model": "gpt-4o",
                "messages": [{"role": "user", "content": [{"type": "text", "text": [_SECRET]}]}],
            },
        ),
        ("anthropic", {"model": "claude-x", "system": {"note": _SECRET}, "messages": []}),
        (
            "openai-responses",
            {
                "model": "gpt-5.6",
                "input": [{"role": "user", "content": [{"type": "input_text", "text": [_SECRET]}]}],
            },
        ),
        (
            "gemini",
            {
                "model": "gemini-2.5-flash",
                "contents": [{"role": "user", "parts": [{"text": [_SECRET]}]}],
            },
        ),
    ],
    ids=[
        "message-a-string",
        "part-a-string",
        "text-a-list",
        "system-an-object",
        "responses",
        "gemini",
    ],
)
def test_a_misshapen_request_is_refused_without_quoting_its_text(
    vendor: str, request_: dict[str, Any]
) -> None:
    # Prompts are personal data: the error names the path, type, length and a hash instead.
    with pytest.raises(InputError) as caught:
        prompt_from_request(request_, vendor)
    assert "SECRET" not in str(caught.value)


@pytest.mark.parametrize(
    ("request_", "vendor", "key"),
    [
        ({"model": "claude-sonnet-4-6", "messages": None}, "anthropic", "messages"),
        ({"model": "gpt-4o", "messages": None}, "openai", "messages"),
        ({"model": "gemini-2.5-flash", "contents": None}, "gemini", "contents"),
    ],
)
def test_a_null_conversation_is_refused_not_read_as_empty(
    request_: dict[str, Any], vendor: str, key: str
) -> None:
    with pytest.raises(InputError, match=rf"^{key}: null, which the API refuses: send a list"):
        prompt_from_request(request_, vendor)
