"""What OpenAI's two request formats (Chat Completions, Responses) share: rules and shape."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._errors import InputError
from .._usage import CacheUsage
from ._elements import Span, check_list, list_span, required_list, scalar_span
from ._fields import get_field, get_int, require_usage
from ._rules import CacheRules, Capabilities, Setting

__all__ = [
    "AUTOMATIC",
    "EXPLICIT",
    "INVALIDATING",
    "MISS_REASONS",
    "RULES",
    "OpenAIChatStream",
    "item_layers",
    "leading_system",
    "openai_model",
    "partition_problems",
    "read_chat_usage",
    "response_model",
    "response_signs",
    "supports_breakpoints",
    "tool_spans",
    "total_problems",
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


# Chat Completions' rules; Responses' differ only in which parts take a breakpoint.
RULES = CacheRules(
    marking="automatic",
    capabilities=EXPLICIT,
    automatic_capabilities=AUTOMATIC,
    explicit_switch=("prompt_cache_options.mode", "explicit"),
    # In-memory caches last "5-10 minutes" of inactivity: the short end.
    default_ttl_seconds=300.0,
    ttl_settings=("prompt_cache_options.ttl", "prompt_cache_retention"),
    setting_ttls={"prompt_cache_options.ttl": ("30m",)},  # Responses adds "12h"
    granularity_tokens=128,
    min_tokens_key="openai",
    billed_write_ttl="30m",  # prompt_cache_options.ttl's default
    # Not documented; we assume the same as Anthropic's.
    render_order=("tools", "system", "messages"),
    invalidating=INVALIDATING,
    miss_reasons=MISS_REASONS,
)


def tool_spans(request: Mapping[str, Any]) -> list[Span]:
    return list_span("tools", "tools", request.get("tools"))


def item_layers(
    request: Mapping[str, Any], key: str, system: list[Span], *, required: bool = False
) -> dict[str, list[Span]]:
    """
    The layers of a request whose conversation is the item list at `key` (Chat `messages`,
    Responses `input`): leading system/developer items join `system`, the rest are messages.
    `required`: the API refuses the request without the list (Chat), so a null there is refused.
    """
    items = required_list(request, key) if required else request.get(key)
    tools = tool_spans(request)
    if isinstance(items, str):
        return {"tools": tools, "system": system, "messages": [scalar_span("messages", key, items)]}
    check_list(key, items)
    items = items or []
    lead = leading_system(items)
    if lead:
        system = [*system, Span("system", key, items[:lead], 0, True, "content")]
    rest = items[lead:]
    messages = [Span("messages", key, rest, lead, True, "content")] if rest else []
    return {"tools": tools, "system": system, "messages": messages}


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


# -- Chat Completions usage (OpenAI and the engines) ------------------------------------


def read_chat_usage(response: Any, *, vendor: str, endpoint: str) -> CacheUsage:
    """Chat Completions usage; also what vLLM, SGLang and llama.cpp return."""
    if type(response) is dict:
        plain = _plain_chat_usage(response, vendor, endpoint)
        if plain is not None:
            return plain
    usage = get_field(response, "usage")
    if usage is None:
        usage = response
    require_usage(usage, "prompt_tokens", "ChatCompletion (streamed: with include_usage)")
    details = get_field(usage, "prompt_tokens_details")
    prompt_tokens = get_int(usage, "prompt_tokens") or 0
    read = get_int(details, "cached_tokens")
    # OpenAI GPT-5.6 says cache_write_tokens; vLLM says created_cache_tokens.
    write = get_int(details, "cache_write_tokens")
    if write is None:
        write = get_int(details, "created_cache_tokens")
    timings = get_field(response, "timings")
    if details is None and timings is not None:
        read = get_int(timings, "cache_n")  # llama.cpp's native counters
    reported = read is not None or write is not None
    problems = partition_problems("prompt_tokens", prompt_tokens, read, write)
    output = get_int(usage, "completion_tokens")  # None: not reported (stripped), not 0
    problems += total_problems(usage, prompt_tokens, output)
    return CacheUsage(
        uncached_input=max(prompt_tokens - (read or 0) - (write or 0), 0),
        cache_read=(read or 0) if reported else None,
        cache_write=(write or 0) if reported else None,
        output=output,
        vendor=vendor,
        endpoint=endpoint,
        model=response_model(response),
        problems=tuple(problems),
    )


def _plain_chat_usage(response: dict[str, Any], vendor: str, endpoint: str) -> CacheUsage | None:
    """
    `read_chat_usage` of the JSON a log holds, in its common form (integer counts, none
    negative, that add up; no llama.cpp timings), read with plain dict lookups: `report` reads
    one per record. None for anything else, which the general reader takes (and words what is
    wrong).
    """
    usage = response.get("usage")
    if usage is None:
        usage = response
    if type(usage) is not dict:
        return None
    prompt = usage.get("prompt_tokens")
    output = usage.get("completion_tokens")
    total = usage.get("total_tokens")
    details = usage.get("prompt_tokens_details")
    read = write = None
    if type(details) is dict:
        read = details.get("cached_tokens")
        write = details.get("cache_write_tokens")
        if write is None:
            write = details.get("created_cache_tokens")
    elif details is not None or response.get("timings") is not None:
        return None
    if type(prompt) is not int or not all(
        value is None or (type(value) is int and value >= 0)
        for value in (output, total, read, write)
    ):
        return None
    if (read or 0) + (write or 0) > prompt or (
        total is not None and output is not None and total != prompt + output
    ):
        return None  # the general reader words the problem
    reported = read is not None or write is not None
    model = response.get("model")
    return CacheUsage(
        uncached_input=prompt - (read or 0) - (write or 0),
        cache_read=(read or 0) if reported else None,
        cache_write=(write or 0) if reported else None,
        output=output,
        vendor=vendor,
        endpoint=endpoint,
        model=model if isinstance(model, str) else None,
        problems=(),
    )


def partition_problems(name: str, total: int, read: int | None, write: int | None) -> list[str]:
    if (read or 0) + (write or 0) > total:
        return [
            f"{name} ({total}) is less than cached ({read or 0}) + written ({write or 0}); "
            "uncached input reported as 0"
        ]
    return []


def total_problems(usage: Any, prompt: int, output: int | None) -> list[str]:
    """`total_tokens` against input + output; not checked when the output was not reported."""
    total = get_int(usage, "total_tokens")
    if total is not None and output is not None and total != prompt + output:
        return [f"total_tokens ({total}) != input ({prompt}) + output ({output})"]
    return []


def response_model(response: Any) -> str | None:
    model = get_field(response, "model")
    return model if isinstance(model, str) else None


class OpenAIChatStream:
    """Keeps the last chunk that carries `usage` (the extra final chunk with `choices: []`)."""

    def __init__(self, *, vendor: str, endpoint: str = "chat.completions.stream") -> None:
        self._vendor = vendor
        self._endpoint = endpoint
        self._last: Any = None

    def feed(self, event: Any) -> None:
        if get_field(event, "usage") is not None:
            self._last = event

    @property
    def usage(self) -> CacheUsage:
        if self._last is None:
            raise InputError(
                "the stream had no usage chunk; create it with stream_options={'include_usage': "
                "True} (to_request adds it when stream=True), and read the stream to the end"
            )
        return read_chat_usage(self._last, vendor=self._vendor, endpoint=self._endpoint)
