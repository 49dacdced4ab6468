"""
Read the keyword arguments of a vendor SDK call back into a `Prompt`.

This is how `promptcache inspect` shows the cache layout of a request that promptcache did not
build. Tools keep the order the request sent them in (the vendor sees that order), cache markers
are dropped (they are layout, not content), and the last user turn becomes the tail.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from ._errors import InputError
from ._parts import (
    Content,
    DocumentPart,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    Tool,
    ToolResult,
    ToolUse,
)
from ._prompt import Prompt

__all__ = ["VENDORS", "Ingested", "detect_vendor", "prompt_from_request"]

VENDORS = ("anthropic", "openai", "openai-responses", "gemini")


@dataclass(frozen=True, slots=True, kw_only=True)
class Ingested:
    """A request read back: its prompt, model and vendor dialect."""

    prompt: Prompt
    model: str | None
    vendor: str


def _a_request(vendor: str | None) -> str:
    if vendor is None:
        return "a vendor SDK request"
    return f"{'an' if vendor[0] in 'aeio' else 'a'} {vendor} request"


_NOT_AN_OBJECT = re.compile(r"^'(\w+)' object has no attribute")
_NOT_A_LIST = re.compile(r"^'(\w+)' object is not (?:iterable|subscriptable)")


def _shape_problem(exc: Exception) -> str:
    """What a reader tripped on, in the words of the JSON the caller wrote."""
    if isinstance(exc, KeyError):
        return f"an object has no {exc.args[0]!r} key"
    names = {"str": "a string", "int": "a number", "float": "a number", "bool": "true or false"}
    names |= {"NoneType": "null", "list": "a list", "dict": "an object"}
    for pattern, wanted in ((_NOT_AN_OBJECT, "an object"), (_NOT_A_LIST, "a list")):
        found = pattern.match(str(exc))
        if found:
            return f"expected {wanted}, found {names.get(found[1], found[1])}"
    return f"a value has the wrong type ({exc})"


def detect_vendor(request: Mapping[str, Any]) -> str:
    """Guess the vendor dialect from the shape of the request's keyword arguments."""
    if "contents" in request:
        return "gemini"
    if "input" in request or "instructions" in request:
        return "openai-responses"
    if "messages" not in request:
        raise InputError(
            "cannot tell which vendor this request is for: it has none of 'messages', 'input' "
            f"or 'contents' (keys: {sorted(request)[:8]}); pass --vendor"
        )
    messages = request.get("messages") or []
    roles = {m.get("role") for m in messages if isinstance(m, Mapping)}
    tools = request.get("tools") or []
    if roles & {"system", "developer", "tool"} or any(
        isinstance(t, Mapping) and t.get("type") == "function" for t in tools
    ):
        return "openai"
    return "anthropic" if "system" in request or "max_tokens" in request else "openai"


def prompt_from_request(request: Mapping[str, Any], vendor: str | None = None) -> Ingested:
    """Turn SDK keyword arguments into an `Ingested` prompt (vendor auto-detected if None)."""
    if not isinstance(request, Mapping):
        raise InputError(
            f"a request must be a JSON object of keyword arguments, got {type(request).__name__}"
        )
    if vendor is not None and vendor not in _READERS:
        raise InputError(f"unknown vendor {vendor!r}; expected one of {', '.join(VENDORS)}")
    try:
        vendor = vendor or detect_vendor(request)
        tools, system, messages = _READERS[vendor](request)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        # The readers walk what the caller saved; the checks that name a path catch the common
        # mistakes, and anything else malformed (a string where an object belongs, an object
        # without its name) ends here instead of as an internal error.
        raise InputError(
            f"this does not read as {_a_request(vendor)}: {_shape_problem(exc)}. Fix: save the "
            "keyword arguments of the SDK call as JSON (messages or input or contents a list of "
            "objects, tools a list of objects with a name), or pass the right --vendor"
        ) from exc
    history, tail = _split_tail(messages)
    prompt = (
        Prompt(pin_tool_order=True, volatile="ignore")
        .add_tools(*tools)
        .add_system(*system)
        .add_history(*history)
        .with_tail(*tail)
    )
    model = request.get("model")
    return Ingested(prompt=prompt, model=str(model) if model is not None else None, vendor=vendor)


def _split_tail(messages: list[Message]) -> tuple[list[Message], list[Message]]:
    """The tail is the trailing run of user turns: the new question and what came with it."""
    cut = len(messages)
    while cut > 0 and messages[cut - 1].role == "user":
        cut -= 1
    if cut == 0 and messages:
        cut = len(messages) - 1
    return messages[:cut], messages[cut:]


_Read = tuple[list[Tool], list[str], list[Message]]


# -- Anthropic ------------------------------------------------------------------------------


def _read_anthropic(request: Mapping[str, Any]) -> _Read:
    tools = [
        Tool(
            name=t["name"],
            description=t.get("description", ""),
            input_schema=t.get("input_schema", {}),
        )
        for t in _items(request, "tools")
    ]
    system = request.get("system") or []
    texts = [system] if isinstance(system, str) else [_text(b, "system") for b in system]
    messages = [
        _message(m.get("role"), _anthropic_content(m.get("content"), f"messages[{i}]"))
        for i, m in enumerate(_items(request, "messages"))
    ]
    return tools, texts, messages


def _anthropic_content(content: Any, path: str) -> list[Content]:
    if isinstance(content, str):
        return [TextPart(text=content)]
    return [
        part
        for i, block in enumerate(content or [])
        if (part := _anthropic_part(block, f"{path}.content[{i}]"))
    ]


def _anthropic_part(block: Mapping[str, Any], path: str) -> Content | None:
    kind = block.get("type")
    if kind == "text":
        return TextPart(text=block["text"])
    if kind in ("image", "document"):
        source = block.get("source", {})
        if kind == "image":
            return ImagePart(
                media_type=source.get("media_type", "image/png"),
                data=source.get("data"),
                url=source.get("url"),
            )
        if source.get("type") == "text":
            return DocumentPart(
                media_type=source.get("media_type", "text/plain"),
                text=source.get("data"),
                title=block.get("title"),
            )
        return DocumentPart(
            media_type=source.get("media_type", "application/pdf"),
            data=source.get("data") or source.get("url"),
            title=block.get("title"),
        )
    if kind == "tool_use":
        return ToolUse(id=block["id"], name=block["name"], input=block.get("input", {}))
    if kind == "tool_result":
        inner = block.get("content", "")
        body = (
            inner
            if isinstance(inner, str)
            else tuple(
                p
                for p in (_anthropic_part(b, path) for b in inner)
                if isinstance(p, (TextPart, ImagePart))
            )
        )
        return ToolResult(
            tool_use_id=block["tool_use_id"], content=body, is_error=bool(block.get("is_error"))
        )
    if kind in ("thinking", "redacted_thinking"):
        return ThinkingPart(
            thinking=block.get("thinking", block.get("data", "")),
            signature=block.get("signature", ""),
        )
    raise InputError(f"{path}: unsupported content block type {kind!r}")


# -- OpenAI Chat Completions --------------------------------------------------------------


def _read_openai(request: Mapping[str, Any]) -> _Read:
    tools = [_openai_tool(t.get("function", t)) for t in _items(request, "tools")]
    system: list[str] = []
    messages: list[Message] = []
    for i, m in enumerate(_items(request, "messages")):
        role = m.get("role")
        if role in ("system", "developer") and not messages:
            system.extend(_texts(m.get("content"), f"messages[{i}]"))
        elif role == "tool":
            result = ToolResult(
                tool_use_id=m.get("tool_call_id", ""),
                content=_openai_text(m.get("content"), f"messages[{i}]"),
            )
            messages.append(Message.user([result]))
        elif role in ("system", "developer"):
            messages.append(Message.user(_openai_text(m.get("content"), f"messages[{i}]")))
        else:
            messages.append(_message(role, _openai_content(m, f"messages[{i}]")))
    return tools, system, messages


def _openai_tool(spec: Mapping[str, Any]) -> Tool:
    return Tool(
        name=spec["name"],
        description=spec.get("description", ""),
        input_schema=spec.get("parameters", {}),
    )


def _openai_content(message: Mapping[str, Any], path: str) -> list[Content]:
    content = message.get("content")
    parts: list[Content] = []
    if isinstance(content, str):
        parts.append(TextPart(text=content))
    else:
        parts.extend(_openai_part(p, f"{path}.content[{j}]") for j, p in enumerate(content or []))
    for call in message.get("tool_calls") or []:
        fn = call.get("function", {})
        parts.append(
            ToolUse(
                id=call.get("id", ""),
                name=fn.get("name", ""),
                input=_arguments(fn.get("arguments")),
            )
        )
    return parts


def _openai_part(part: Mapping[str, Any], path: str) -> Content:
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
    raise InputError(f"{path}: unsupported content part type {kind!r}")


def _texts(content: Any, path: str) -> list[str]:
    """A system or developer message's text parts, one system block each."""
    if isinstance(content, str):
        return [content]
    return [_text(p, path) for p in content or []]


def _openai_text(content: Any, path: str) -> str:
    if isinstance(content, str):
        return content
    return "".join(_text(p, path) for p in content or [])


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        value = orjson.loads(raw or "{}")
    except orjson.JSONDecodeError:
        return {"arguments": raw}
    return value if isinstance(value, dict) else {"arguments": value}


# -- OpenAI Responses ---------------------------------------------------------------------


def _read_openai_responses(request: Mapping[str, Any]) -> _Read:
    tools = [
        _openai_tool(t) for t in _items(request, "tools") if t.get("type", "function") == "function"
    ]
    system = [request["instructions"]] if request.get("instructions") else []
    text = request.get("input")
    items = (
        [{"role": "user", "content": text}] if isinstance(text, str) else _items(request, "input")
    )
    messages: list[Message] = []
    for i, item in enumerate(items):
        path = f"input[{i}]"
        kind = item.get("type", "message")
        if kind == "function_call":
            call = ToolUse(
                id=item.get("call_id", ""),
                name=item["name"],
                input=_arguments(item.get("arguments")),
            )
            _join(messages, "assistant", call)
        elif kind == "function_call_output":
            output = item.get("output", "")
            text = output if isinstance(output, str) else _openai_text(output, path)
            _join(messages, "user", ToolResult(tool_use_id=item.get("call_id", ""), content=text))
        elif item.get("role") in ("system", "developer") and not messages:
            system.extend(_texts(item.get("content"), path))
        else:
            role = "assistant" if item.get("role") == "assistant" else "user"
            messages.append(_message(role, _openai_content(item, path)))
    return tools, system, messages


def _join(messages: list[Message], role: Literal["user", "assistant"], part: Content) -> None:
    """
    Responses sends calls and their outputs as items of their own; they belong to the turn in
    front of them (the assistant's text and its calls, or one user turn of results).
    """
    previous = messages[-1] if messages else None
    calls_or_results = previous is not None and all(
        isinstance(p, (ToolResult if role == "user" else (TextPart, ToolUse, ThinkingPart)))
        for p in previous.content
    )
    if previous is not None and previous.role == role and calls_or_results:
        messages[-1] = Message(role=role, content=(*previous.content, part))
    else:
        messages.append(Message(role=role, content=[part]))


# -- Gemini -------------------------------------------------------------------------------


def _read_gemini(request: Mapping[str, Any]) -> _Read:
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
    system = [] if instruction is None else _gemini_texts(instruction)
    contents = request.get("contents") or []
    if isinstance(contents, str):
        contents = [{"role": "user", "parts": [{"text": contents}]}]
    messages = [
        _message(
            "assistant" if c.get("role") == "model" else "user",
            [
                _gemini_part(p, f"contents[{i}].parts[{j}]")
                for j, p in enumerate(c.get("parts", []))
            ],
        )
        for i, c in enumerate(contents)
    ]
    return tools, system, messages


def _gemini_texts(instruction: Any) -> list[str]:
    """Each part of a system instruction is one system block, as the adapter writes them."""
    if isinstance(instruction, str):
        return [instruction]
    return [p.get("text", "") for p in _get(instruction, "parts") or []]


def _gemini_part(part: Mapping[str, Any], path: str) -> Content:
    if "text" in part:
        return TextPart(text=part["text"])
    call = _get(part, "function_call")
    if call is not None:
        return ToolUse(id=call.get("id", ""), name=call.get("name", ""), input=call.get("args", {}))
    response = _get(part, "function_response")
    if response is not None:
        payload = response.get("response", {})
        # {"output": text} is how a plain-text tool result travels (the adapter writes it so).
        output = (
            payload.get("output") if isinstance(payload, Mapping) and len(payload) == 1 else None
        )
        body = (
            output
            if isinstance(output, str)
            else orjson.dumps(payload, option=orjson.OPT_SORT_KEYS).decode()
        )
        return ToolResult(tool_use_id=response.get("id", response.get("name", "")), content=body)
    inline = _get(part, "inline_data")
    if inline is not None:
        mime = _get(inline, "mime_type") or "application/octet-stream"
        kind = ImagePart if str(mime).startswith("image/") else DocumentPart
        return kind(media_type=mime, data=inline.get("data", ""))
    raise InputError(f"{path}: unsupported Gemini part with keys {sorted(part)}")


def _get(mapping: Mapping[str, Any], snake: str) -> Any:
    """Gemini accepts snake_case (Python SDK) and camelCase (wire) keys."""
    head, *rest = snake.split("_")
    camel = head + "".join(word.title() for word in rest)
    return mapping.get(snake, mapping.get(camel))


# -- shared -------------------------------------------------------------------------------


def _items(request: Mapping[str, Any], key: str) -> Sequence[Mapping[str, Any]]:
    value = request.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise InputError(
            f"{key!r} must be a list of objects, got {orjson.dumps(value)[:60].decode(errors='replace')}"
        )
    return value


def _text(block: Any, path: str) -> str:
    if isinstance(block, str):
        return block
    if not isinstance(block, Mapping) or "text" not in block:
        raise InputError(f"{path}: expected a text block, got {block!r:.60}")
    return str(block["text"])


def _message(role: Any, content: list[Content]) -> Message:
    if role not in ("user", "assistant"):
        raise InputError(f"message role must be 'user' or 'assistant', got {role!r}")
    return Message(role=role, content=content)


_READERS: dict[str, Callable[[Mapping[str, Any]], _Read]] = {
    "anthropic": _read_anthropic,
    "openai": _read_openai,
    "openai-responses": _read_openai_responses,
    "gemini": _read_gemini,
}
