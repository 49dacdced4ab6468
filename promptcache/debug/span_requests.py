"""
The request a GenAI span carries, in the vendor's own request format, when it carries one.

Three forms are read. OpenInference puts the request body itself in `input.value` (JSON): every
field the vendor saw, cache markers and cache key included. The GenAI semantic conventions
(OpenLLMetry, Logfire, the official OpenTelemetry instrumentations in their span content mode)
carry the messages as `gen_ai.input.messages`, the system prompt as `gen_ai.system_instructions`
and sometimes the tools as `gen_ai.tool.definitions`, each as JSON parts; the request is rebuilt
from them in the vendor's shape. That rebuild is `partial`: the spans keep no cache markers, no
`prompt_cache_key` or `metadata.user_id` and no settings, so only a change in what they do keep
can be named. Without those attributes, OpenLLMetry's older indexed ones (`gen_ai.prompt.N.*`,
`llm.request.functions.N.*`; `span_indexed`) are read the same way, as partial. Nothing here logs
or raises prompt text: a reason names paths and types only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import shown_name
from .counted import token_count
from .span_indexed import IndexedUnreadable, carries_indexed_prompt, indexed_body

__all__ = ["SpanRequest", "span_request"]

INPUT_MESSAGES = "gen_ai.input.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
TOOL_DEFINITIONS = "gen_ai.tool.definitions"
REQUEST_MODEL = ("gen_ai.request.model", "llm.request.model_name", "llm.model_name")
MAX_TOKENS = "gen_ai.request.max_tokens"


@dataclass(frozen=True, slots=True, kw_only=True)
class SpanRequest:
    """
    The span's request (`body`), or why there is none (`reason`, no prompt text in it).
    `partial`: rebuilt from span messages (the GenAI conventions' or OpenLLMetry's indexed
    attributes), without markers, cache key or settings.
    """

    body: dict[str, Any] | None
    partial: bool = False
    reason: str = ""


class _Unreadable(Exception):
    """A part of the span's messages this module cannot rebuild; the message names its path."""


def span_request(attributes: Mapping[str, Any], vendor: str) -> SpanRequest:
    """The request `attributes` carry for `vendor` (the registry's name), else the reason why not."""
    if "input.value" in attributes:
        return _openinference(attributes)
    if INPUT_MESSAGES in attributes:
        return _conventions(attributes, vendor)
    if carries_indexed_prompt(attributes):
        return _indexed(attributes, vendor)
    return SpanRequest(body=None, reason="it carries no request (content capture off?)")


def _openinference(attributes: Mapping[str, Any]) -> SpanRequest:
    value = attributes.get("input.value")
    if not isinstance(value, str) or attributes.get("input.mime_type") != "application/json":
        return SpanRequest(body=None, reason="its input.value is not the request as JSON")
    try:
        request = json.loads(value)
    except ValueError:
        return SpanRequest(body=None, reason="its input.value is not valid JSON")
    if not isinstance(request, dict) or not isinstance(request.get("model"), str):
        return SpanRequest(body=None, reason="its input.value is not a request with a model")
    return SpanRequest(body=request)


def _model(attributes: Mapping[str, Any]) -> str | None:
    return next((m for n in REQUEST_MODEL if isinstance(m := attributes.get(n), str)), None)


def _max_tokens(attributes: Mapping[str, Any]) -> int | None:
    """The request's max_tokens (Anthropic requires it); None where the span does not say."""
    return token_count(attributes.get(MAX_TOKENS))


def _not_rebuilt(vendor: str) -> _Unreadable:
    return _Unreadable(
        f"its messages are for {shown_name(vendor) if vendor else 'an unnamed vendor'}, "
        "whose request promptcache does not rebuild from spans (Anthropic Messages and "
        "OpenAI Chat Completions only)"
    )


def _conventions(attributes: Mapping[str, Any], vendor: str) -> SpanRequest:
    model = _model(attributes)
    if model is None:
        return SpanRequest(body=None, reason="it carries messages but no gen_ai.request.model")
    try:
        messages = _json_list(attributes, INPUT_MESSAGES)
        system = _json_list(attributes, SYSTEM_INSTRUCTIONS)
        tools = _json_list(attributes, TOOL_DEFINITIONS)
        if vendor == "anthropic":
            body = _anthropic(model, messages, system, tools, _max_tokens(attributes))
        elif vendor == "openai":
            body = _openai(model, messages, system, tools)
        else:
            raise _not_rebuilt(vendor)
    except _Unreadable as error:
        return SpanRequest(body=None, reason=str(error))
    return SpanRequest(body=body, partial=True)


def _indexed(attributes: Mapping[str, Any], vendor: str) -> SpanRequest:
    """OpenLLMetry's indexed `gen_ai.prompt.N.*` attributes (its releases before the conventions)."""
    model = _model(attributes)
    if model is None:
        return SpanRequest(
            body=None, reason="it carries gen_ai.prompt.N but no gen_ai.request.model"
        )
    try:
        if vendor != "anthropic" and vendor != "openai":
            raise _not_rebuilt(vendor)
        body = indexed_body(attributes, vendor, model, _max_tokens(attributes))
    except (_Unreadable, IndexedUnreadable) as error:
        return SpanRequest(body=None, reason=str(error))
    return SpanRequest(body=body, partial=True)


def _json_list(attributes: Mapping[str, Any], name: str) -> list[Any]:
    """An attribute holding a JSON array (as a string, or already a sequence); absent: []."""
    value = attributes.get(name)
    if value is None:
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise _Unreadable(f"its {name} is not valid JSON") from None
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return list(value)
    raise _Unreadable(f"its {name} is a {type(value).__name__}, not a JSON array")


def _messages(messages: list[Any]) -> list[tuple[str, list[Mapping[str, Any]], str]]:
    """Each message's role, parts and path, checked for shape."""
    out = []
    for n, message in enumerate(messages):
        path = f"{INPUT_MESSAGES}[{n}]"
        if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
            raise _Unreadable(f"its {path} is not a message with a role")
        parts = message.get("parts")
        if not isinstance(parts, Sequence) or isinstance(parts, (str, bytes)):
            raise _Unreadable(f"its {path}.parts is not a list")
        for k, part in enumerate(parts):
            if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
                raise _Unreadable(f"its {path}.parts[{k}] is not a typed part")
        out.append((message["role"], list(parts), path))
    return out


def _text(part: Mapping[str, Any], path: str) -> str:
    content = part.get("content")
    if not isinstance(content, str):
        raise _Unreadable(f"its {path} is a text part without text (content capture off?)")
    return content


def _arguments(value: Any) -> Any:
    """Tool call arguments as an object (the conventions allow the JSON string too)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _unsupported(part: Mapping[str, Any], path: str) -> _Unreadable:
    # the type is named only when it reads as one: a misplaced value may be prompt text
    return _Unreadable(f"its {path} is a {shown_name(part['type'])} part, which is not rebuilt")


# -- OpenAI Chat Completions ----------------------------------------------------------------


def _openai(model: str, messages: list[Any], system: list[Any], tools: list[Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": []}
    if system:
        texts = [_system_text(p, k) for k, p in enumerate(system)]
        body["messages"].append({"role": "system", "content": _openai_content(texts)})
    for role, parts, path in _messages(messages):
        body["messages"].append(_openai_message(role, parts, path))
    if tools:
        body["tools"] = [_openai_tool(t) for t in tools]
    return body


def _system_text(part: Any, number: int) -> str:
    where = f"{SYSTEM_INSTRUCTIONS}[{number}]"
    if not isinstance(part, Mapping) or part.get("type") != "text":
        raise _Unreadable(f"its {where} is not a text part")
    return _text(part, where)


def _openai_content(texts: Sequence[Any]) -> Any:
    """One text is sent as a string (what the SDKs' users write); several as text parts."""
    if len(texts) == 1:
        return texts[0]
    return [{"type": "text", "text": t} for t in texts]


def _openai_message(role: str, parts: list[Mapping[str, Any]], path: str) -> dict[str, Any]:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    message: dict[str, Any] = {"role": role}
    for k, part in enumerate(parts):
        where = f"{path}.parts[{k}]"
        kind = part["type"]
        if kind == "text":
            texts.append(_text(part, where))
        elif kind == "tool_call":
            arguments = part.get("arguments")
            calls.append(
                {
                    "id": part.get("id"),
                    "type": "function",
                    "function": {
                        "name": part.get("name"),
                        "arguments": arguments
                        if isinstance(arguments, str)
                        else json.dumps(arguments, separators=(",", ":")),
                    },
                }
            )
        elif kind == "tool_call_response":
            message["role"] = "tool"
            message["tool_call_id"] = part.get("id")
            response = part.get("response")
            texts.append(response if isinstance(response, str) else json.dumps(response))
        else:
            raise _unsupported(part, where)
    if texts or not calls:
        message["content"] = _openai_content(texts) if texts else None
    if calls:
        message["tool_calls"] = calls
    return message


def _openai_tool(tool: Any) -> Any:
    """A Chat Completions tool; the flattened form OpenLLMetry records is put back."""
    if isinstance(tool, Mapping) and "function" not in tool and "name" in tool:
        function = {
            k: tool[k] for k in ("name", "description", "parameters", "strict") if k in tool
        }
        return {"type": "function", "function": function}
    return tool


# -- Anthropic Messages ---------------------------------------------------------------------


def _anthropic(
    model: str, messages: list[Any], system: list[Any], tools: list[Any], max_tokens: int | None
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model}
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    blocks = [{"type": "text", "text": _system_text(p, k)} for k, p in enumerate(system)]
    turns: list[dict[str, Any]] = []
    for role, parts, path in _messages(messages):
        content = [_anthropic_block(p, f"{path}.parts[{k}]") for k, p in enumerate(parts)]
        if role == "system":  # some instrumentations keep the system prompt among the messages
            blocks.extend(content)
            continue
        turns.append({"role": "assistant" if role == "assistant" else "user", "content": content})
    if blocks:
        body["system"] = blocks
    body["messages"] = turns
    if tools:
        body["tools"] = [_anthropic_tool(t) for t in tools]
    return body


def _anthropic_block(part: Mapping[str, Any], path: str) -> dict[str, Any]:
    kind = part["type"]
    if kind == "text":
        return {"type": "text", "text": _text(part, path)}
    if kind == "tool_call":
        return {
            "type": "tool_use",
            "id": part.get("id"),
            "name": part.get("name"),
            "input": _arguments(part.get("arguments")),
        }
    if kind == "tool_call_response":
        response = part.get("response")
        return {
            "type": "tool_result",
            "tool_use_id": part.get("id"),
            "content": response if isinstance(response, str) else json.dumps(response),
        }
    raise _unsupported(part, path)


def _anthropic_tool(tool: Any) -> Any:
    """An Anthropic tool; one recorded in the flattened function form is put back."""
    if isinstance(tool, Mapping) and "input_schema" not in tool and "parameters" in tool:
        named = {k: tool[k] for k in ("name", "description") if k in tool}
        return {**named, "input_schema": tool["parameters"]}
    return tool
