"""
The SDKs serialise dicts in insertion order (json.dumps without sort_keys), so what the adapters
hand them must already be in canonical key order: the same schema built in another order must go
out as the same bytes (peers.md C1, C2: jsonb round trips and swapped `properties`/`required`).
"""

from __future__ import annotations

import json

import pytest

from promptcache import Message, Prompt, Tool, ToolResult, ToolUse, get_adapter

MODELS = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-5.6-terra",
    "openai-responses": "gpt-5.6-terra",
    "gemini": "gemini-2.5-pro",
    "engine": "qwen3-32b",
}
SCHEMA = {
    "type": "object",
    "properties": {"b": {"type": "string", "enum": ["x", "y"]}, "a": {"type": "integer"}},
    "required": ["a"],
}
REORDERED = {
    "required": ["a"],
    "properties": {"a": {"type": "integer"}, "b": {"enum": ["x", "y"], "type": "string"}},
    "type": "object",
}


def _prompt(schema: dict[str, object], arguments: dict[str, object]) -> Prompt:
    call = ToolUse(id="c1", name="lookup", input=arguments)
    return (
        Prompt()
        .add_tools(Tool(name="lookup", description="Find it", input_schema=schema))
        .add_system("You are terse.")
        .add_history(
            Message.user("find it"),
            Message.assistant([call]),
            Message.user([ToolResult(tool_use_id="c1", content="found")]),
        )
        .with_tail("thanks")
    )


@pytest.mark.parametrize("vendor", sorted(MODELS))
def test_reordered_keys_send_the_same_bytes(vendor: str) -> None:
    adapter = get_adapter(vendor)
    first = adapter.to_request(
        _prompt(SCHEMA, {"z": 1, "a": {"y": 2, "x": 3}}), model=MODELS[vendor]
    )
    second = adapter.to_request(
        _prompt(REORDERED, {"a": {"x": 3, "y": 2}, "z": 1}), model=MODELS[vendor]
    )
    assert json.dumps(first) == json.dumps(second)


def test_the_caller_schema_is_not_shared_with_the_request() -> None:
    schema = json.loads(json.dumps(SCHEMA))
    kwargs = get_adapter("anthropic").to_request(_prompt(schema, {}), model=MODELS["anthropic"])
    kwargs["tools"][0]["input_schema"]["type"] = "array"
    assert schema["type"] == "object"
