"""Helpers the request readers share: lists of objects, text blocks, roles, OpenAI parts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from .._errors import InputError, shown, shown_name
from .._parts import Content, DocumentPart, ImagePart, Message, TextPart, Tool, ToolUse
from ._elements import required_list

__all__ = [
    "PromptParts",
    "arguments",
    "items",
    "message",
    "openai_content",
    "openai_part",
    "openai_text",
    "openai_tool",
    "sample",
    "text",
    "texts",
]

# What a reader makes of a request: tools, system texts, messages (the tail not yet split off).
PromptParts = tuple[list[Tool], list[str], list[Message]]


_SAMPLE = 2


def sample(values: Any) -> list[tuple[int, Any]]:
    """
    The first and last few entries of a list, with their indices: enough to tell a request's
    format (every message of one request is in the same format) at a cost that does not grow
    with the conversation.
    """
    if not isinstance(values, (list, tuple)):
        return []
    if len(values) <= 2 * _SAMPLE:
        return list(enumerate(values))
    tail = len(values) - _SAMPLE
    return [*enumerate(values[:_SAMPLE]), *((tail + i, v) for i, v in enumerate(values[tail:]))]


def items(
    request: Mapping[str, Any], key: str, *, required: bool = False
) -> Sequence[Mapping[str, Any]]:
    """The list of objects at `key`; `required`: a null there is refused, not read as empty."""
    value = (required_list(request, key) if required else request.get(key)) or []
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise InputError(f"{key!r} must be a list of objects, got {shown(value)}")
    return value


def text(block: Any, path: str) -> str:
    if isinstance(block, str):
        return block
    if not isinstance(block, Mapping) or "text" not in block:
        raise InputError(f"{path}: expected a text block, got {shown(block)}")
    return str(block["text"])


def message(role: Any, content: list[Content]) -> Message:
    if role not in ("user", "assistant"):
        raise InputError(f"message role must be 'user' or 'assistant', got {shown_name(role)}")
    return Message(role=role, content=content)


def arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        value = orjson.loads(raw or "{}")
    except orjson.JSONDecodeError:
        return {"arguments": raw}
    return value if isinstance(value, dict) else {"arguments": value}


# -- OpenAI (Chat Completions and Responses share their parts) --------------------------------


def openai_tool(spec: Mapping[str, Any]) -> Tool:
    return Tool(
        name=spec["name"],
        description=spec.get("description", ""),
        input_schema=spec.get("parameters", {}),
    )


def openai_content(item: Mapping[str, Any], path: str) -> list[Content]:
    content = item.get("content")
    parts: list[Content] = []
    if isinstance(content, str):
        parts.append(TextPart(text=content))
    else:
        parts.extend(openai_part(p, f"{path}.content[{j}]") for j, p in enumerate(content or []))
    for call in item.get("tool_calls") or []:
        fn = call.get("function", {})
        parts.append(
            ToolUse(
                id=call.get("id", ""),
                name=fn.get("name", ""),
                input=arguments(fn.get("arguments")),
            )
        )
    return parts


def openai_part(part: Mapping[str, Any], path: str) -> Content:
    kind = part.get("type")
    if kind in ("text", "input_text", "output_text"):
        return TextPart(text=part["text"])
    if kind in ("image_url", "input_image"):
        url = part.get("image_url")
        url = url.get("url") if isinstance(url, Mapping) else url
        return ImagePart(url=url or "")
    if kind in ("file", "input_file"):
        file = part.get("file", part)
        return DocumentPart(
            data=file.get("file_data") or file.get("file_id") or "", title=file.get("filename")
        )
    raise InputError(f"{path}: unsupported content part type {shown_name(kind)}")


def texts(content: Any, path: str) -> list[str]:
    """A system or developer message's text parts, one system block each."""
    if isinstance(content, str):
        return [content]
    return [text(p, path) for p in content or []]


def openai_text(content: Any, path: str) -> str:
    if isinstance(content, str):
        return content
    return "".join(text(p, path) for p in content or [])
