"""
Gemini (`client.models.generate_content`): implicit caching of every prefix over the model's
minimum (the shipped table), no markers; an explicit cache is a separate resource
(`cached_content`). The implicit cache's lifetime is undocumented.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import orjson

from .._errors import InputError, shown_keys
from .._parts import Content, DocumentPart, ImagePart, TextPart, Tool, ToolResult, ToolUse
from .._usage import CacheUsage
from ._elements import Span, list_span, messages_span, pick, plain, required_list, scalar_span
from ._fields import first_int, get_field
from ._reading import PromptParts, message
from ._rules import CacheRules, Capabilities
from ._vendor import Vendor

__all__ = ["RULES", "VENDOR", "GeminiStream", "read_usage"]

RULES = CacheRules(
    marking="automatic",
    capabilities=Capabilities(
        vendor="gemini",
        marking="automatic",
        max_breakpoints=0,
        ttls=(),
        default_ttl=None,
    ),
    # Undocumented for the implicit cache; we assume the Anthropic/OpenAI five minutes.
    default_ttl_seconds=300.0,
    granularity_tokens=256,
    min_tokens_key="gemini",
    render_order=("tools", "system", "messages"),
)

CALL_PATHS: Mapping[tuple[str, ...], str] = {
    ("models", "generate_content"): "call",
    ("models", "generate_content_stream"): "iter",
    ("aio", "models", "generate_content"): "call",
    ("aio", "models", "generate_content_stream"): "iter",
    # A chat session sends through the models it was made with: hand it the observed ones.
    ("chats", "create"): "chat-session",
    ("aio", "chats", "create"): "chat-session",
}


def layers(request: Mapping[str, Any]) -> dict[str, list[Span]]:
    config = plain(request.get("config")) or {}
    if not isinstance(config, Mapping):
        raise InputError(f"config: expected a dict, got {type(config).__name__}")
    system = pick(config, "system_instruction", "systemInstruction")
    if system is None:
        system = pick(request, "system_instruction", "systemInstruction")
    tools = config.get("tools", request.get("tools"))
    where = "config.tools" if "tools" in config else "tools"
    contents = required_list(request, "contents")
    if isinstance(contents, str):
        messages = [scalar_span("messages", "contents", contents)]
    else:
        messages = messages_span(contents, "contents", "parts", loose=True)
    return {
        "tools": list_span("tools", where, tools),
        "system": [] if system is None else [scalar_span("system", _system_path(config), system)],
        "messages": messages,
    }


def _system_path(config: Mapping[str, Any]) -> str:
    if "system_instruction" in config:
        return "config.system_instruction"
    return "config.systemInstruction" if "systemInstruction" in config else "system_instruction"


def misfit(request: Mapping[str, Any]) -> str | None:
    for key in ("messages", "input", "instructions", "system"):
        if key in request:
            return f"a top-level {key!r}"
    if "contents" not in request:
        return "no 'contents'"
    return None


_GEMINI = re.compile(r"(^|/)(gemini|gemma)")


def signs(request: Mapping[str, Any]) -> int:
    return 1 + int(_GEMINI.search(str(request.get("model") or "")) is not None)


def response_signs(response: Any) -> int:
    if not isinstance(response, Mapping):
        return 0
    found = int(any(k in response for k in ("usage_metadata", "usageMetadata", "candidates")))
    found += any(k in response for k in ("promptTokenCount", "prompt_token_count"))
    model = response.get("model_version", response.get("modelVersion"))
    return found + (_GEMINI.search(str(model or "")) is not None)


# -- request -> prompt ---------------------------------------------------------------------


def read_prompt(request: Mapping[str, Any]) -> PromptParts:
    config = request.get("config") or {}
    tools = [
        Tool(
            name=d["name"],
            description=d.get("description", ""),
            input_schema=_get(d, "parameters_json_schema") or d.get("parameters") or {},
        )
        for group in _get(config, "tools") or []
        for d in _get(group, "function_declarations") or []
    ]
    instruction = _get(config, "system_instruction")
    system = [] if instruction is None else _texts(instruction)
    contents = required_list(request, "contents") or []
    if isinstance(contents, str):
        contents = [{"role": "user", "parts": [{"text": contents}]}]
    messages = [
        message(
            "assistant" if c.get("role") == "model" else "user",
            [_part(p, f"contents[{i}].parts[{j}]") for j, p in enumerate(c.get("parts", []))],
        )
        for i, c in enumerate(contents)
    ]
    return tools, system, messages


def _texts(instruction: Any) -> list[str]:
    """Each part of a system instruction is one system block, as the adapter writes them."""
    if isinstance(instruction, str):
        return [instruction]
    return [p.get("text", "") for p in _get(instruction, "parts") or []]


def _part(part: Mapping[str, Any], path: str) -> Content:
    if "text" in part:
        return TextPart(text=part["text"])
    call = _get(part, "function_call")
    if call is not None:
        return ToolUse(id=call.get("id", ""), name=call.get("name", ""), input=call.get("args", {}))
    response = _get(part, "function_response")
    if response is not None:
        return _tool_result(response)
    inline = _get(part, "inline_data")
    if inline is not None:
        mime = _get(inline, "mime_type") or "application/octet-stream"
        kind = ImagePart if str(mime).startswith("image/") else DocumentPart
        return kind(media_type=mime, data=inline.get("data", ""))
    raise InputError(f"{path}: unsupported Gemini part with keys {shown_keys(part)}")


def _tool_result(response: Mapping[str, Any]) -> ToolResult:
    payload = response.get("response", {})
    # {"output": text} is how a plain-text tool result travels (the adapter writes it so).
    output = payload.get("output") if isinstance(payload, Mapping) and len(payload) == 1 else None
    body = (
        output
        if isinstance(output, str)
        else orjson.dumps(payload, option=orjson.OPT_SORT_KEYS).decode()
    )
    return ToolResult(tool_use_id=response.get("id", response.get("name", "")), content=body)


def _get(mapping: Mapping[str, Any], snake: str) -> Any:
    """Gemini accepts snake_case (Python SDK) and camelCase (wire) keys."""
    head, *rest = snake.split("_")
    camel = head + "".join(word.title() for word in rest)
    return mapping.get(snake, mapping.get(camel))


# -- usage ---------------------------------------------------------------------------------


def read_usage(response: Any) -> CacheUsage:
    """A `GenerateContentResponse` (SDK object or JSON dict), or its usage metadata alone."""
    usage = _usage_metadata(response)
    if usage is None:
        raise InputError(
            "the response has no usage_metadata (usageMetadata); pass the whole "
            "GenerateContentResponse or its JSON"
        )
    return _usage_from(usage, model=_model(response), endpoint="generateContent")


def _usage_metadata(response: Any) -> Any:
    usage = get_field(response, "usage_metadata")
    if usage is None:
        usage = get_field(response, "usageMetadata")
    if usage is None and first_int(response, "prompt_token_count", "promptTokenCount") is not None:
        usage = response
    return usage


def _model(response: Any) -> str | None:
    model = get_field(response, "model_version")
    if model is None:
        model = get_field(response, "modelVersion")
    return model if isinstance(model, str) else None


def _usage_from(usage: Any, *, model: str | None, endpoint: str) -> CacheUsage:
    prompt = first_int(usage, "prompt_token_count", "promptTokenCount") or 0
    cached = first_int(usage, "cached_content_token_count", "cachedContentTokenCount") or 0
    tool_use = first_int(usage, "tool_use_prompt_token_count", "toolUsePromptTokenCount") or 0
    candidates = first_int(usage, "candidates_token_count", "candidatesTokenCount")
    thoughts = first_int(usage, "thoughts_token_count", "thoughtsTokenCount")
    total = first_int(usage, "total_token_count", "totalTokenCount")
    problems = []
    if cached > prompt:
        problems.append(f"cachedContentTokenCount ({cached}) exceeds promptTokenCount ({prompt})")
    if candidates is None and thoughts is None:
        output = _output_from_total(total, prompt + tool_use, problems)
    else:
        output = (candidates or 0) + (thoughts or 0)
        expected = prompt + tool_use + output
        if total is not None and total != expected:
            problems.append(
                f"totalTokenCount ({total}) != prompt ({prompt}) + tool-use prompt ({tool_use}) + "
                f"candidates ({candidates or 0}) + thoughts ({thoughts or 0}) = {expected}"
            )
    return CacheUsage(
        # Tool-use prompt tokens are billed as input; thoughts are billed as output.
        uncached_input=max(prompt - cached, 0) + tool_use,
        cache_read=cached,
        cache_write=0,
        output=output,
        vendor="gemini",
        endpoint=endpoint,
        model=model,
        problems=tuple(problems),
    )


def _output_from_total(total: int | None, input_tokens: int, problems: list[str]) -> int | None:
    """
    The output of a usage with neither candidatesTokenCount nor thoughtsTokenCount. Gemini's
    JSON leaves zero counts out, so with a totalTokenCount the output is what the total leaves
    after the input; without one (a usage cut short, a proxy that dropped it) it is unknown.
    """
    if total is None:
        return None
    if total < input_tokens:
        problems.append(
            f"totalTokenCount ({total}) is less than the prompt and tool-use prompt "
            f"({input_tokens}), and no candidatesTokenCount says the output; output unknown"
        )
        return None
    return total - input_tokens


class GeminiStream:
    """
    Each chunk's usage is the running total of its HTTP stream, so the last one wins. The SDK's
    automatic continuation re-sends the request when a response ends with finish reason
    CONTINUATION and yields chunks whose usage already sums the hops: for SDK objects the last
    chunk is the answer. Raw JSON chunks are per hop: a CONTINUATION finish closes a hop, and the
    hops are summed here the way the SDK sums them.
    """

    _FIELDS = (
        "prompt_token_count",
        "cached_content_token_count",
        "tool_use_prompt_token_count",
        "candidates_token_count",
        "thoughts_token_count",
        "total_token_count",
    )

    def __init__(self) -> None:
        self._done: dict[str, int] = {}
        self._current: Any = None
        self._model: str | None = None
        self._hops = 0

    def feed(self, event: Any) -> None:
        usage = _usage_metadata(event)
        if usage is not None:
            self._current = usage
        self._model = _model(event) or self._model
        if isinstance(event, Mapping) and _finish(event) == "CONTINUATION":
            self._close_hop()

    def _close_hop(self) -> None:
        if self._current is None:
            return
        for name in self._FIELDS:
            camel = "".join(w.capitalize() if i else w for i, w in enumerate(name.split("_")))
            value = first_int(self._current, name, camel)
            if value is not None:  # a count no hop reported stays unreported
                self._done[name] = self._done.get(name, 0) + value
        self._current = None
        self._hops += 1

    @property
    def usage(self) -> CacheUsage:
        if self._current is None and not self._done:
            raise InputError("the stream carried no usageMetadata; read it to the end")
        if self._hops:
            self._close_hop()
            merged: Any = dict(self._done)
            return _usage_from(merged, model=self._model, endpoint="streamGenerateContent")
        return _usage_from(self._current, model=self._model, endpoint="streamGenerateContent")


def _finish(chunk: Mapping[str, Any]) -> Any:
    candidates = chunk.get("candidates") or [{}]
    first = candidates[0] if isinstance(candidates[0], Mapping) else {}
    return first.get("finishReason", first.get("finish_reason"))


VENDOR = Vendor(
    name="gemini",
    title="Gemini generateContent",
    aliases=("google", "google-genai", "gemini-api"),
    rules=RULES,
    layers=layers,
    read_prompt=read_prompt,
    read_usage=read_usage,
    misfit=misfit,
    signs=signs,
    response_signs=response_signs,
    call_paths=CALL_PATHS,
    sdk="google-genai",
)
