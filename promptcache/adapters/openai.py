"""
OpenAI Chat Completions and Responses (`openai` SDK 3.57).

Two regimes, chosen by model:

- before GPT-5.6: automatic prefix caching from 1024 tokens, hits in 128-token steps; nothing to
  mark, so only `prompt_cache_key` is sent (it keeps requests that share a prefix on one machine);
- GPT-5.6 and later: `prompt_cache_breakpoint: {"mode": "explicit", "ttl"?}` on content parts
  (never on tool definitions or `instructions`, so system text goes in a system/developer
  message), `prompt_cache_options: {"mode": "implicit"|"explicit", "ttl"}`, up to 4 writes per
  request (3 explicit beside the implicit one in implicit mode).

Usage counts INCLUDE cache reads and writes:

    prompt_tokens (input_tokens) = uncached + cached_tokens + cache_write_tokens
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from .._errors import InputError
from .._parts import (
    Content,
    Doc,
    DocumentPart,
    ImagePart,
    Message,
    Part,
    SystemBlock,
    TextPart,
    ThinkingPart,
    Tool,
    ToolResult,
    ToolUse,
)
from .._plan import Plan
from .._plan import plan as make_plan
from .._prompt import Layer, Prompt, Rendered
from .._usage import CacheUsage
from ..vendors import Capabilities, openai_chat, openai_responses
from ..vendors._openai import OpenAIChatStream, read_chat_usage, supports_breakpoints
from ..vendors.openai_responses import OpenAIResponsesStream, read_responses_usage
from ._base import BaseAdapter
from ._pieces import block_parts, flat_layout, piece_of

__all__ = [
    "OpenAIChatAdapter",
    "OpenAIChatStream",
    "OpenAIResponsesAdapter",
    "OpenAIResponsesStream",
    "cache_key",
    "supports_breakpoints",
]

_MODE = ("implicit", "explicit")
_RESERVED_KWARGS = ("messages", "input", "tools", "model", "instructions")


def cache_key(prompt: Prompt | Rendered, model: str, tenant: str | None = None) -> str:
    """
    A `prompt_cache_key` from the hash of the static prefix (tools, system, docs), the model and
    an optional tenant; it never contains prompt text. The history is left out on purpose: a key
    that changed every turn would send each turn of a conversation to a different machine.
    """
    rendered = prompt.render() if isinstance(prompt, Prompt) else prompt
    static = rendered.static
    anchor = static[-1].hash if static else b""
    digest = hashlib.sha256(
        b"promptcache/1\0" + model.encode() + b"\0" + (tenant or "").encode() + b"\0" + anchor
    ).hexdigest()
    return f"pc1-{digest[:32]}"


_OPTIONS_TTL = "prompt_cache_options.ttl"


class _OpenAIBase(BaseAdapter):
    vendor = "openai"
    sdk = ("openai", "openai", "openai", "OpenAI", "AsyncOpenAI")
    capabilities: ClassVar[Capabilities] = openai_chat.RULES.capabilities
    # What prompt_cache_options.ttl accepts, the default first (the vendor's rules say).
    _request_ttls: ClassVar[tuple[str, ...]] = openai_chat.RULES.setting_ttls[_OPTIONS_TTL]
    _endpoint: ClassVar[str] = ""

    def to_request(
        self,
        prompt: Prompt,
        *,
        model: str,
        plan: Plan | None = None,
        cache_mode: str | None = None,
        cache_ttl: str | None = None,
        ttl: str | None = None,
        layer_ttls: Mapping[Layer, str] | None = None,
        tenant: str | None = None,
        prompt_cache_key: str | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """
        The keyword arguments of the SDK call. `cache_mode` and `cache_ttl` fill
        `prompt_cache_options` (GPT-5.6+); `ttl`/`layer_ttls` set per-breakpoint TTLs; `tenant`
        goes into the derived `prompt_cache_key` (or pass `prompt_cache_key=` yourself). Other
        keyword arguments pass through; `stream=True` also asks for the final usage chunk.
        """
        clash = [k for k in _RESERVED_KWARGS if k in options]
        if clash:
            raise InputError(f"{clash} come from the Prompt; build them with the Prompt builder")
        explicit = self.spec.supports_breakpoints(model)  # the format's (a platform's) own
        cache_options = self._cache_options(model, explicit, cache_mode, cache_ttl, options)
        if plan is not None and plan.vendor != self.name:
            raise InputError(
                f"this plan was made for {plan.vendor!r}; plan with vendor={self.name!r}"
            )
        if explicit and plan is None:
            plan = make_plan(
                prompt,
                vendor=self.name,
                model=model,
                ttl=ttl,
                layer_ttls=layer_ttls,
                automatic=cache_options.get("mode") != "explicit",
            )
        kwargs: dict[str, Any] = {"model": model, **self._body(prompt, plan if explicit else None)}
        kwargs["prompt_cache_key"] = prompt_cache_key or cache_key(prompt, model, tenant)
        if cache_options:
            kwargs["prompt_cache_options"] = cache_options
        kwargs.update(options)
        self._stream_usage(kwargs)
        return kwargs

    def _cache_options(
        self, model: str, explicit: bool, mode: str | None, ttl: str | None, options: dict[str, Any]
    ) -> dict[str, Any]:
        extra: dict[str, Any] = {
            k: options.pop(k) for k in ("prewarm", "comparison_response_id") if k in options
        }
        if extra and self._endpoint != "responses":
            raise InputError(
                f"{sorted(extra)} are Responses-only prompt_cache_options; use the "
                "'openai-responses' adapter"
            )
        if not explicit:
            if mode or ttl or extra:
                raise InputError(
                    f"prompt_cache_options (cache_mode, cache_ttl, prewarm) are for gpt-5.6 and "
                    f"later; {model!r} caches automatically. Drop them, or use a gpt-5.6 model"
                )
            return {}
        if mode is not None and mode not in _MODE:
            raise InputError(f"cache_mode must be 'implicit' or 'explicit', got {mode!r}")
        if ttl is not None and ttl not in self._request_ttls:
            raise InputError(
                f"cache_ttl {ttl!r} is not offered by {self._endpoint}; choose one of "
                f"{list(self._request_ttls)}"
            )
        out: dict[str, Any] = {"mode": mode or "implicit"}
        if ttl:
            out["ttl"] = ttl
        return {**out, **extra}

    def _body(self, prompt: Prompt, chosen: Plan | None) -> dict[str, Any]:
        raise NotImplementedError

    def _stream_usage(self, kwargs: dict[str, Any]) -> None:
        return None


def _breakpoint(ttl: str | None) -> dict[str, str]:
    return {"mode": "explicit", "ttl": ttl} if ttl else {"mode": "explicit"}


def _marks(rendered: Rendered, chosen: Plan | None) -> dict[int, str | None]:
    """The ttl of each marked block, by block index."""
    marks: dict[int, str | None] = {}
    for point in chosen.breakpoints if chosen else ():
        if not 0 <= point.block_index < len(rendered.blocks):
            raise InputError(
                f"the plan marks block {point.block_index} of a prompt with "
                f"{len(rendered.blocks)}; plan this prompt again"
            )
        marks[point.block_index] = point.ttl
    return marks


def _mark_last(parts: list[dict[str, Any]], ttl: str | None, markable: set[str]) -> None:
    """Put a breakpoint on a copy of the last markable part (`parts` is the request's own list)."""
    for at in range(len(parts) - 1, -1, -1):
        if parts[at].get("type") in markable:
            parts[at] = {**parts[at], "prompt_cache_breakpoint": _breakpoint(ttl)}
            return


class _Layout:
    """
    A request's sections from the blocks' unmarked pieces (`Flat`): the tool pieces, the system
    and document parts (marked where the plan says), and the message blocks' items.
    """

    def __init__(
        self, prompt: Prompt, chosen: Plan | None, kind: str, write: Callable[[Any], Any]
    ) -> None:
        self.prompt = prompt
        self.kind = kind
        self.write = write
        self.rendered, self.flat = flat_layout(prompt, kind, write)
        self.marks = _marks(self.rendered, chosen)
        self.tools_end = len(prompt.tools)
        self.system_end = self.tools_end + len(prompt.system) + len(prompt.docs)

    def tools(self) -> list[dict[str, Any]]:
        return self.flat.static[: self.tools_end]

    def system(self, markable: set[str]) -> list[dict[str, Any]]:
        parts = self.flat.static[self.tools_end : self.system_end]
        for index, ttl in self.marks.items():
            if self.tools_end <= index < self.system_end:
                at = index - self.tools_end
                if parts[at].get("type") in markable:
                    parts[at] = {**parts[at], "prompt_cache_breakpoint": _breakpoint(ttl)}
        return parts

    def messages(
        self, out: list[dict[str, Any]], mark: Callable[[list[dict[str, Any]], str | None], None]
    ) -> None:
        """Append the message blocks' items to `out`; `mark` marks a copy of a planned block's."""
        offset = len(out)
        out += self.flat.items
        for index, ttl in self.marks.items():
            if index >= self.system_end:
                block = list(self._piece(index))
                mark(block, ttl)
                end = offset + self._block_end(index)
                out[end - len(block) : end] = block

    def _piece(self, index: int) -> Any:
        part = next(block_parts(self.prompt, self.rendered.blocks, index, index + 1))
        return piece_of(part, self.kind, self.write)

    def _block_end(self, index: int) -> int:
        """Where block `index`'s items end among the message items."""
        end = self.flat.block_end(index)
        if end is None:  # far back (a lookback breakpoint at the previous request's end)
            end = sum(len(self._piece(i)) for i in range(self.system_end, index + 1))
        return end


def _data_url(media_type: str, data: str) -> str:
    return f"data:{media_type};base64,{data}"


# -- Chat Completions -------------------------------------------------------------------------

_CHAT_MARKABLE = {"text", "image_url", "input_audio", "file"}


class OpenAIChatAdapter(_OpenAIBase):
    """`client.chat.completions.create(**adapter.to_request(...))`."""

    name = "openai"
    _endpoint = "chat.completions"

    def __init__(self, *, system_role: str = "system", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.system_role = system_role

    def _body(self, prompt: Prompt, chosen: Plan | None) -> dict[str, Any]:
        layout = _Layout(prompt, chosen, "openai.chat", _chat_piece)
        out: list[dict[str, Any]] = []
        system = layout.system(_CHAT_MARKABLE)
        if system:
            out.append({"role": self.system_role, "content": system})
        layout.messages(out, _mark_chat)
        body: dict[str, Any] = {"messages": out}
        if prompt.tools:
            body["tools"] = layout.tools()
        return body

    def _stream_usage(self, kwargs: dict[str, Any]) -> None:
        # Chat streams carry usage only in an extra final chunk, and only when asked for.
        if kwargs.get("stream") and "stream_options" not in kwargs:
            kwargs["stream_options"] = {"include_usage": True}

    def read_usage(self, response: Any) -> CacheUsage:
        """A `ChatCompletion` (SDK object or JSON dict), or its `usage` alone."""
        return read_chat_usage(response, vendor="openai", endpoint="chat.completions")

    def accumulator(self) -> OpenAIChatStream:
        return OpenAIChatStream(vendor="openai")


def _chat_piece(part: Part) -> Any:
    """A block's piece for Chat Completions: a tool, a system text part, or a message's items."""
    if isinstance(part, Message):
        return _chat_message(part)
    if isinstance(part, Tool):
        return _chat_tool(part)
    return {"type": "text", "text": _system_text(part)}


def _system_text(part: Part) -> str:
    if isinstance(part, Doc):
        return _doc_text(part.text, part.title)
    assert isinstance(part, SystemBlock)
    return part.text


def _doc_text(text: str, title: str | None) -> str:
    return text if title is None else f"# {title}\n\n{text}"


def _chat_tool(tool: Tool) -> dict[str, Any]:
    function: dict[str, Any] = {"name": tool.name, "parameters": tool.sorted_json()["input_schema"]}
    if tool.description:
        function["description"] = tool.description
    return {"type": "function", "function": function}


def _chat_message(message: Message) -> list[dict[str, Any]]:
    """One prompt message becomes one chat message, plus one `tool` message per tool result."""
    out: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, ToolResult):
            content = (
                part.content
                if isinstance(part.content, str)
                else [_chat_part(c) for c in part.content]
            )
            out.append({"role": "tool", "tool_call_id": part.tool_use_id, "content": content})
        elif isinstance(part, ToolUse):
            calls.append(
                {
                    "id": part.id,
                    "type": "function",
                    "function": {
                        "name": part.name,
                        "arguments": json.dumps(dict(part.input), sort_keys=True),
                    },
                }
            )
        elif not isinstance(part, ThinkingPart):  # chat has no way to send reasoning back
            parts.append(_chat_part(part))
    if parts or calls:
        main: dict[str, Any] = {"role": message.role, "content": parts or None}
        if calls:
            main["tool_calls"] = calls
        out.append(main)
    return out


def _mark_chat(messages: list[dict[str, Any]], ttl: str | None) -> None:
    """Mark a copy of the last message with content (`messages` is the request's own list)."""
    for at in range(len(messages) - 1, -1, -1):
        message = messages[at]
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if content:
            content = list(content)
            _mark_last(content, ttl, _CHAT_MARKABLE)
            messages[at] = {**message, "content": content}
            return


def _chat_part(part: Content) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart):
        url = part.url if part.url is not None else _data_url(part.media_type, part.data or "")
        return {"type": "image_url", "image_url": {"url": url}}
    if isinstance(part, DocumentPart):
        if part.text is not None:
            return {"type": "text", "text": part.text}
        return {
            "type": "file",
            "file": {
                "file_data": _data_url(part.media_type, part.data or ""),
                "filename": part.title or "document.pdf",
            },
        }
    raise InputError(f"cannot render {type(part).__name__} as a chat content part")


# -- Responses --------------------------------------------------------------------------------

_RESPONSES_MARKABLE = {"input_text", "input_image", "input_file"}


class OpenAIResponsesAdapter(_OpenAIBase):
    """`client.responses.create(**adapter.to_request(...))`."""

    name = "openai-responses"
    capabilities: ClassVar[Capabilities] = openai_responses.RULES.capabilities
    _request_ttls = openai_responses.RULES.setting_ttls[_OPTIONS_TTL]
    _endpoint = "responses"

    def _body(self, prompt: Prompt, chosen: Plan | None) -> dict[str, Any]:
        layout = _Layout(prompt, chosen, "openai.responses", _responses_piece)
        items: list[dict[str, Any]] = []
        system = layout.system(_RESPONSES_MARKABLE)
        if system:  # not `instructions`: it cannot carry a breakpoint
            items.append({"role": "developer", "content": system})
        layout.messages(items, _mark_responses)
        body: dict[str, Any] = {"input": items}
        if prompt.tools:
            body["tools"] = layout.tools()
        return body

    def prewarm_request(self, prompt: Prompt, *, model: str, **options: Any) -> dict[str, Any]:
        """`prompt_cache_options.prewarm`: prepare the cache without generating (GPT-5.6+)."""
        return self.to_request(prompt, model=model, prewarm=True, **options)

    def read_usage(self, response: Any) -> CacheUsage:
        """A `Response` (SDK object or JSON dict); reads `prompt_cache_diagnostics` too."""
        return read_responses_usage(response)

    def accumulator(self) -> OpenAIResponsesStream:
        return OpenAIResponsesStream()


def _responses_tool(tool: Tool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "function",
        "name": tool.name,
        "parameters": tool.sorted_json()["input_schema"],
        "strict": False,
    }
    if tool.description:
        out["description"] = tool.description
    return out


def _responses_piece(part: Part) -> Any:
    """A block's piece for Responses: a tool, a developer text part, or a message's items."""
    if isinstance(part, Message):
        return _responses_items(part)
    if isinstance(part, Tool):
        return _responses_tool(part)
    return {"type": "input_text", "text": _system_text(part)}


def _responses_items(message: Message) -> list[dict[str, Any]]:
    """
    One message as Responses input items, in the message's own order: text runs become message
    items, and each call or result its own item (text before a call stays before it).
    """
    items: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, (ToolUse, ToolResult)):
            _flush_text(items, parts, message.role)
            parts = []
            items.append(_responses_call_item(part))
        elif not isinstance(part, ThinkingPart):
            parts.append(
                _responses_part(part)
                if message.role == "user"
                else {"type": "output_text", "text": getattr(part, "text", "")}
            )
    _flush_text(items, parts, message.role)
    return items


def _flush_text(items: list[dict[str, Any]], parts: list[dict[str, Any]], role: str) -> None:
    if not parts:
        return
    if role == "assistant":
        items.append({"role": "assistant", "content": "".join(p["text"] for p in parts)})
    else:
        items.append({"role": "user", "content": parts})


def _responses_call_item(part: ToolUse | ToolResult) -> dict[str, Any]:
    if isinstance(part, ToolUse):
        return {
            "type": "function_call",
            "call_id": part.id,
            "name": part.name,
            "arguments": json.dumps(dict(part.input), sort_keys=True),
        }
    output: Any = (
        part.content
        if isinstance(part.content, str)
        else [_responses_part(c) for c in part.content]
    )
    return {"type": "function_call_output", "call_id": part.tool_use_id, "output": output}


def _mark_responses(items: list[dict[str, Any]], ttl: str | None) -> None:
    """Mark a copy of the last item that can carry a breakpoint (`items` is the request's own)."""
    for at in range(len(items) - 1, -1, -1):
        item = items[at]
        is_output = item.get("type") == "function_call_output"
        field = "output" if is_output else "content"
        content = item.get(field)
        if is_output and isinstance(content, str):
            content = [{"type": "input_text", "text": content}]
        if item.get("role") != "assistant" and isinstance(content, list) and content:
            content = list(content)
            _mark_last(content, ttl, _RESPONSES_MARKABLE)
            items[at] = {**item, field: content}
            return


def _responses_part(part: Content) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "input_text", "text": part.text}
    if isinstance(part, ImagePart):
        url = part.url if part.url is not None else _data_url(part.media_type, part.data or "")
        return {"type": "input_image", "image_url": url, "detail": "auto"}
    if isinstance(part, DocumentPart):
        if part.text is not None:
            return {"type": "input_text", "text": part.text}
        return {
            "type": "input_file",
            "file_data": _data_url(part.media_type, part.data or ""),
            "filename": part.title or "document.pdf",
        }
    raise InputError(f"cannot render {type(part).__name__} as a Responses input part")
