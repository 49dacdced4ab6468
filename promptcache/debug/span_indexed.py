"""
The request rebuilt from OpenLLMetry's indexed prompt attributes, the form its releases before the
GenAI conventions' `gen_ai.input.messages` wrote (`opentelemetry-instrumentation-openai` up to
0.54, `-anthropic` up to 0.53):

    gen_ai.prompt.N.role, gen_ai.prompt.N.content          a message (content: a string, or
                                                           its parts as a JSON array)
    gen_ai.prompt.N.tool_call_id                           OpenAI: the call a tool message answers
    gen_ai.prompt.N.tool_calls.K.id / .name / .arguments   the message's tool calls
    llm.request.functions.N.name / .description /          a tool
        .parameters (OpenAI) or .input_schema (Anthropic)  (its schema as JSON)

The answer (`gen_ai.completion.N.*`) is no part of the request and is not read. Like the
conventions' rebuild, the body is partial: no cache markers, cache key or settings. OpenLLMetry's
Anthropic instrumentation also joins a system prompt or message written as text blocks into one
string, so those are rebuilt as strings (`system`, `messages[N].content`): a change in them is
named at that path, not at the block it was in. An attribute this module does not know, a missing
index or a value of the wrong type makes the whole request unreadable (`IndexedUnreadable`, its
message naming the attribute and the value's type, never the value): a guess at the rest could
name a wrong cause. So does an OpenAI message other than the assistant's without content: the
OpenAI instrumentation, as set up by default, fails on a base64 image part and records that
message's role only, and none of the messages after it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .._errors import shown, shown_name

__all__ = ["FUNCTIONS", "PROMPT", "IndexedUnreadable", "carries_indexed_prompt", "indexed_body"]

PROMPT = "gen_ai.prompt"
FUNCTIONS = "llm.request.functions"
# OpenLLMetry's OpenAI instrumentation puts Azure's prompt filter results under the prompt prefix
_NOT_PROMPT = frozenset({"prompt_filter_results"})
# An index as the instrumentations write it: no sign, no leading zero, bounded
_INDEX = re.compile(r"0|[1-9][0-9]{0,5}")
_MESSAGE_KEYS = frozenset({"role", "content", "tool_call_id"})
_CALL_KEYS = frozenset({"id", "name", "arguments"})
_TOOL_KEYS = frozenset({"name", "description", "parameters", "input_schema"})


class IndexedUnreadable(Exception):
    """An indexed attribute the rebuild cannot read; the message names it, never its value."""


def carries_indexed_prompt(attributes: Mapping[str, Any]) -> bool:
    """Whether any attribute is one of OpenLLMetry's indexed prompt attributes."""
    head = PROMPT + "."
    return any(isinstance(name, str) and name.startswith(head) for name in attributes)


def indexed_body(
    attributes: Mapping[str, Any], vendor: str, model: str, max_tokens: int | None
) -> dict[str, Any]:
    """
    The request for `vendor` ("openai" or "anthropic") from the indexed attributes; `max_tokens`
    (read by the caller, None: not said) goes into an Anthropic body.
    """
    messages = _indexed(attributes, PROMPT, skip=_NOT_PROMPT)
    if not messages:
        raise IndexedUnreadable(f"it carries no {PROMPT}.N message attributes")
    tools = _indexed(attributes, FUNCTIONS)
    if vendor == "anthropic":
        return _anthropic(model, messages, tools, max_tokens)
    return _openai(model, messages, tools)


def _indexed(
    attributes: Mapping[str, Any], prefix: str, *, skip: frozenset[str] = frozenset()
) -> list[tuple[str, dict[str, Any]]]:
    """
    The attributes `prefix.N.rest`, grouped by N: (`prefix.N`, {rest: value}) for N = 0, 1, ...
    Every index up to the last must be there: a gap is an item the span lost.
    """
    head = prefix + "."
    groups: dict[int, dict[str, Any]] = {}
    for name, value in attributes.items():
        if not isinstance(name, str) or not name.startswith(head):
            continue
        index, _, rest = name[len(head) :].partition(".")
        if index in skip and not rest:
            continue
        if not _INDEX.fullmatch(index) or not rest:
            raise IndexedUnreadable(
                f"its attribute {_attribute(head, name)} is not {prefix}.N.<field>, which is not "
                "rebuilt"
            )
        groups.setdefault(int(index), {})[rest] = value
    for number in range(len(groups)):
        if number not in groups:
            raise IndexedUnreadable(
                f"its {prefix}.N attributes have no {prefix}.{number}.*: an item the span does "
                "not carry"
            )
    return [(f"{prefix}.{n}", groups[n]) for n in range(len(groups))]


def _reads_as_name(rest: str) -> bool:
    """
    Whether each dotted part of `rest`, an attribute's name after a prefix, is an index or reads
    as a name (`shown_name` takes a dotted name as an API name, `first.Alice` included).
    """
    return all(part.isdigit() or shown_name(part) == repr(part) for part in rest.split("."))


def _attribute(head: str, name: str) -> str:
    """An attribute's name for a reason: quoted, else `head` and the rest by its hash."""
    rest = name[len(head) :]
    return repr(name) if _reads_as_name(rest) else head + shown(rest)


def _unknown(fields: Mapping[str, Any], known: frozenset[str], path: str, *, calls: bool) -> None:
    """Refuses a field not in `known` (nor a tool call's, where `calls`)."""
    for rest in fields:
        if rest not in known and not (calls and rest.startswith("tool_calls.")):
            named = repr(rest) if _reads_as_name(rest) else shown(rest)
            raise IndexedUnreadable(f"its {path}.{named} is not an attribute it reads")


def _optional(fields: Mapping[str, Any], name: str, path: str) -> str | None:
    """The field's string; None when absent (the instrumentations leave out None and "")."""
    value = fields.get(name)
    if value is None or isinstance(value, str):
        return value
    raise IndexedUnreadable(f"its {path}.{name} is a {type(value).__name__}, not a string")


def _needed(fields: Mapping[str, Any], name: str, path: str) -> str:
    value = _optional(fields, name, path)
    if value is None:
        raise IndexedUnreadable(f"its {path}.{name} is missing")
    return value


def _parts(content: str) -> list[dict[str, Any]] | None:
    """
    A content the instrumentation wrote as its parts (a JSON array of typed objects), else None:
    a string that does not parse as one is taken as the text it is.
    """
    if not content.startswith("["):
        return None
    try:
        parts = json.loads(content)
    except ValueError:
        return None
    if not isinstance(parts, list) or not parts:
        return None
    if not all(isinstance(p, dict) and isinstance(p.get("type"), str) for p in parts):
        return None
    return parts


def _calls(fields: Mapping[str, Any], path: str) -> list[tuple[str, dict[str, Any]]]:
    """The message's `tool_calls.K.*`, grouped by K, each field checked."""
    calls = _indexed(fields, "tool_calls")
    for where, call in calls:
        named = f"{path}.{where}"
        _unknown(call, _CALL_KEYS, named, calls=False)
        _needed(call, "name", named)
        _optional(call, "id", named)
        _optional(call, "arguments", named)
    return calls


def _schema(fields: Mapping[str, Any], name: str, path: str) -> Any:
    """A tool's schema, which the instrumentations write as JSON; None when absent or null."""
    value = _optional(fields, name, path)
    if value is None:
        return None
    try:
        return json.loads(value)
    except ValueError:
        raise IndexedUnreadable(f"its {path}.{name} is not valid JSON") from None


def _tool(fields: Mapping[str, Any], path: str) -> tuple[dict[str, Any], Any]:
    """A tool's name and description, and its schema (`parameters` or `input_schema`)."""
    _unknown(fields, _TOOL_KEYS, path, calls=False)
    tool: dict[str, Any] = {"name": _needed(fields, "name", path)}
    description = _optional(fields, "description", path)
    if description is not None:
        tool["description"] = description
    schemas = [n for n in ("parameters", "input_schema") if n in fields]
    if len(schemas) > 1:
        raise IndexedUnreadable(f"its {path} has both .parameters and .input_schema")
    return tool, _schema(fields, schemas[0], path) if schemas else None


# -- OpenAI Chat Completions ----------------------------------------------------------------


def _openai(
    model: str,
    messages: list[tuple[str, dict[str, Any]]],
    tools: list[tuple[str, dict[str, Any]]],
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": []}
    for path, fields in messages:
        body["messages"].append(_openai_message(fields, path))
    if tools:
        body["tools"] = [_openai_tool(fields, path) for path, fields in tools]
    return body


def _openai_message(fields: Mapping[str, Any], path: str) -> dict[str, Any]:
    _unknown(fields, _MESSAGE_KEYS, path, calls=True)
    message: dict[str, Any] = {"role": _needed(fields, "role", path)}
    content = _optional(fields, "content", path)
    calls = _calls(fields, path)
    if content is None and not calls and message["role"] != "assistant":
        raise IndexedUnreadable(
            f"its {path}.content is missing: an empty content, or one the instrumentation did "
            "not record (OpenLLMetry's OpenAI instrumentation stops at a message with a base64 "
            "image, and records none of the messages after it)"
        )
    if content is not None or not calls:  # the instrumentation leaves an empty content out
        message["content"] = None if content is None else (_parts(content) or content)
    if calls:
        message["tool_calls"] = [
            {
                "id": call.get("id"),
                "type": "function",
                "function": {"name": call["name"], "arguments": call.get("arguments")},
            }
            for _, call in calls
        ]
    answered = _optional(fields, "tool_call_id", path)
    if answered is not None:
        message["tool_call_id"] = answered
    return message


def _openai_tool(fields: Mapping[str, Any], path: str) -> dict[str, Any]:
    function, schema = _tool(fields, path)
    if schema is not None:
        function["parameters"] = schema
    return {"type": "function", "function": function}


# -- Anthropic Messages ---------------------------------------------------------------------


def _anthropic(
    model: str,
    messages: list[tuple[str, dict[str, Any]]],
    tools: list[tuple[str, dict[str, Any]]],
    max_tokens: int | None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model}
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    system: list[Any] = []
    turns: list[dict[str, Any]] = []
    for path, fields in messages:
        _unknown(fields, _MESSAGE_KEYS - {"tool_call_id"}, path, calls=True)
        role = _needed(fields, "role", path)
        content = _anthropic_content(fields, path)
        if role == "system":
            system.append(content)
        elif role in ("user", "assistant"):
            turns.append({"role": role, "content": content})
        else:
            raise IndexedUnreadable(f"its {path}.role is {shown_name(role)}, not an Anthropic role")
    if len(system) == 1:
        body["system"] = system[0]
    elif system:
        body["system"] = [
            block
            for content in system
            for block in (
                [{"type": "text", "text": content}] if isinstance(content, str) else content
            )
        ]
    body["messages"] = turns
    if tools:
        body["tools"] = [_anthropic_tool(fields, path) for path, fields in tools]
    return body


def _anthropic_content(fields: Mapping[str, Any], path: str) -> Any:
    """
    The message's content: a string (as sent, or its text blocks joined by the instrumentation),
    or its blocks, without cache markers (the rebuild claims none). Its tool calls are among the
    blocks already (the `tool_calls.K.*` attributes repeat them), so a string cannot have any.
    """
    content = _needed(fields, "content", path)
    calls = _calls(fields, path)
    blocks = _parts(content)
    if blocks is None:
        if calls:
            raise IndexedUnreadable(f"its {path} has tool calls but no content blocks to hold them")
        return content
    if any(block["type"] == "image_url" for block in blocks):  # no Anthropic block type
        raise IndexedUnreadable(
            f"its {path}.content holds an image the instrumentation uploaded "
            "(upload_base64_image) and recorded as a link, which is new in every span"
        )
    return [{k: v for k, v in block.items() if k != "cache_control"} for block in blocks]


def _anthropic_tool(fields: Mapping[str, Any], path: str) -> dict[str, Any]:
    tool, schema = _tool(fields, path)
    if schema is not None:
        tool["input_schema"] = schema
    return tool
