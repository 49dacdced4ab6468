"""What OpenAI's two request formats (Chat Completions, Responses) share: rules and shape."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._elements import Span, list_span
from ._rules import Capabilities, Setting

__all__ = [
    "AUTOMATIC",
    "EXPLICIT",
    "INVALIDATING",
    "MISS_REASONS",
    "leading_system",
    "openai_model",
    "response_signs",
    "supports_breakpoints",
    "tool_spans",
]

_MODEL_VERSION = re.compile(r"gpt-(\d+)(?:\.(\d+))?")
_OPENAI_MODEL = re.compile(r"^(ft:)?(gpt-|chatgpt-|o\d|codex-|computer-use)")


def supports_breakpoints(model: str) -> bool:
    """True for GPT-5.6 and later (explicit breakpoints, cache-write fee, `prompt_cache_options`)."""
    match = _MODEL_VERSION.search(model.lower())
    if match is None:
        return False
    return (int(match.group(1)), int(match.group(2) or 0)) >= (5, 6)


def openai_model(model: Any) -> bool:
    return isinstance(model, str) and _OPENAI_MODEL.match(model.lower()) is not None


EXPLICIT = Capabilities(
    vendor="openai",
    marking="explicit",
    max_breakpoints=4,
    lookback_blocks=None,  # "up to the latest 80 breakpoints ... without a content-block lookback"
    ttls=("12h", "30m"),
    default_ttl=None,  # a breakpoint without ttl inherits prompt_cache_options.ttl
    ttl_order="none",
    unmarkable=frozenset({"thinking", "tool_use"}),
    unmarkable_layers=frozenset({"tools"}),
    automatic_mode=True,  # implicit mode is the default and takes one of the 4 writes
)
AUTOMATIC = Capabilities(
    vendor="openai",
    marking="automatic",
    max_breakpoints=0,
    increment_tokens=128,
)

# Reasoning effort is a documented `cache_miss` reason.
INVALIDATING = (
    Setting(path="reasoning_effort", cause="thinking_changed"),
    Setting(path="reasoning.effort", cause="thinking_changed"),
)
# Responses `prompt_cache_diagnostics.reason` in our causes.
MISS_REASONS = {
    "model_changed": "model_changed",
    "tools_changed": "tools_changed",
    "input_changed": "content_changed",
    "reasoning_effort_changed": "thinking_changed",
}


def tool_spans(request: Mapping[str, Any]) -> list[Span]:
    return list_span("tools", "tools", request.get("tools"))


def leading_system(items: Any) -> int:
    """How many system or developer messages open the list (they are the system layer)."""
    count = 0
    for item in items or ():
        if not (isinstance(item, Mapping) and item.get("role") in ("system", "developer")):
            break
        count += 1
    return count


def response_signs(response: Any, obj: str, usage_field: str) -> int:
    """`obj`: the response's `object`; `usage_field`: a field only this format's usage has."""
    if not isinstance(response, Mapping):
        return 0
    usage = response.get("usage", response)  # a response, or only its usage object
    found = int(str(response.get("object", "")).startswith(obj))
    found += isinstance(usage, Mapping) and usage_field in usage
    return found + openai_model(response.get("model"))
