"""
OpenAI Chat Completions (`client.chat.completions.create`): every prefix of 1,024 tokens or more
is cached automatically (hits in 128-token increments, kept 5-10 minutes); GPT-5.6 and later
also take explicit `prompt_cache_breakpoint` markers (`prompt_cache_options.mode: "explicit"`
turns automatic caching off). Reasoning effort is part of the cached prefix.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._parts import Message, ToolResult
from .._usage import CacheUsage
from ._elements import Span
from ._openai import RULES as OPENAI_RULES
from ._openai import (
    item_layers,
    openai_model,
    read_chat_usage,
    response_signs,
    supports_breakpoints,
)
from ._reading import (
    PromptParts,
    items,
    message,
    openai_content,
    openai_text,
    openai_tool,
    sample,
    texts,
)
from ._vendor import Vendor

__all__ = ["RULES", "VENDOR", "chat_layers", "chat_misfit", "chat_signs", "read_chat_prompt"]

RULES = OPENAI_RULES

CALL_PATHS: Mapping[tuple[str, ...], str] = {
    ("chat", "completions", "create"): "call",
    ("chat", "completions", "parse"): "call",  # structured outputs: a parsed ChatCompletion
    ("beta", "chat", "completions", "parse"): "call",  # the same, where older code calls it
    ("chat", "completions", "stream"): "chat-manager",
    ("beta", "chat", "completions", "stream"): "chat-manager",
}


def chat_layers(request: Mapping[str, Any]) -> dict[str, list[Span]]:
    """`messages`: leading system/developer messages are the system layer, the rest messages."""
    return item_layers(request, "messages", [], required=True)


# -- shape ---------------------------------------------------------------------------------

_FOREIGN_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking"})


def chat_misfit(request: Mapping[str, Any]) -> str | None:
    for key in ("contents", "input", "instructions", "system"):
        if key in request:
            return f"a top-level {key!r}"
    if "messages" not in request:
        return "no 'messages'"
    for i, m in sample(request["messages"]):
        content = m.get("content") if isinstance(m, dict) else None
        for _, block in sample(content):
            if isinstance(block, dict) and block.get("type") in _FOREIGN_BLOCKS:
                return f"messages[{i}] with a {block['type']!r} block"
    for i, t in sample(request.get("tools")):
        if isinstance(t, Mapping) and "input_schema" in t:
            return f"tools[{i}] with an 'input_schema' (Chat Completions: function.parameters)"
    return None


def chat_signs(request: Mapping[str, Any]) -> int:
    messages = [m for _, m in sample(request.get("messages")) if isinstance(m, Mapping)]
    found = int(any(m.get("role") in ("system", "developer", "tool") for m in messages))
    found += any(m.get("tool_calls") for m in messages)
    found += any(
        isinstance(t, Mapping) and t.get("type") == "function"
        for _, t in sample(request.get("tools"))
    )
    return found


def _signs(request: Mapping[str, Any]) -> int:
    own = ("prompt_cache_key", "prompt_cache_options", "max_completion_tokens")
    return chat_signs(request) + openai_model(request.get("model")) + any(k in request for k in own)


# -- request -> prompt ---------------------------------------------------------------------


def read_chat_prompt(request: Mapping[str, Any]) -> PromptParts:
    tools = [openai_tool(t.get("function", t)) for t in items(request, "tools")]
    system: list[str] = []
    messages: list[Message] = []
    for i, m in enumerate(items(request, "messages", required=True)):
        role, path = m.get("role"), f"messages[{i}]"
        if role in ("system", "developer") and not messages:
            system.extend(texts(m.get("content"), path))
        elif role == "tool":
            result = ToolResult(
                tool_use_id=m.get("tool_call_id", ""), content=openai_text(m.get("content"), path)
            )
            messages.append(Message.user([result]))
        elif role in ("system", "developer"):
            messages.append(Message.user(openai_text(m.get("content"), path)))
        else:
            messages.append(message(role, openai_content(m, path)))
    return tools, system, messages


def _read_usage(response: Any) -> CacheUsage:
    """A `ChatCompletion` (SDK object or JSON dict), or its `usage` alone."""
    return read_chat_usage(response, vendor="openai", endpoint="chat.completions")


VENDOR = Vendor(
    name="openai",
    title="OpenAI Chat Completions",
    aliases=("openai-chat", "chat", "chat-completions"),
    rules=RULES,
    layers=chat_layers,
    read_prompt=read_chat_prompt,
    read_usage=_read_usage,
    misfit=chat_misfit,
    signs=_signs,
    response_signs=lambda response: response_signs(response, "chat.completion", "prompt_tokens"),
    call_paths=CALL_PATHS,
    sdk="openai",
    supports_breakpoints=supports_breakpoints,
)
