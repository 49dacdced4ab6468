"""
Anthropic Messages API (`anthropic` SDK 2.14).

Markers are block-level `cache_control: {"type": "ephemeral", "ttl"?: "5m"|"1h"}` on tools, system
text blocks and message content blocks; never on thinking blocks, and never on a plain-string
`system` (so system always renders as a list of text blocks). A request holds at most 4 markers,
counting the caller's own and the top-level automatic one; a 1h marker may not follow a 5m one.
`usage.input_tokens` EXCLUDES cache reads and writes:

    total input = input_tokens + cache_creation_input_tokens + cache_read_input_tokens

Documents render as system text blocks after the system prompt, so a document change keeps the
tools and system prompt cached.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from .._errors import InputError
from .._parts import (
    Content,
    Doc,
    DocumentPart,
    ImagePart,
    Message,
    SystemBlock,
    TextPart,
    ThinkingPart,
    Tool,
    ToolResult,
    ToolUse,
)
from .._plan import Plan, check_ttl_order
from .._plan import plan as make_plan
from .._prompt import Layer, Prompt
from .._usage import CacheUsage
from ..vendors import Capabilities
from ..vendors.anthropic import RULES, AnthropicStream, deferred, read_usage
from ._base import BaseAdapter
from ._pieces import block_marks, content_marks, pieces

__all__ = ["DIAGNOSTICS_BETA", "AnthropicAdapter", "AnthropicStream", "platform_of"]

DIAGNOSTICS_BETA = "cache-diagnosis-2026-04-07"
_PLATFORMS = ("anthropic", "aws", "bedrock", "vertex", "foundry")
# Automatic caching works everywhere but the legacy Bedrock integration (Anthropic, 2026-08-22;
# it used to be refused on Vertex AI too).
_NO_AUTOMATIC = ("bedrock",)
_RESERVED_KWARGS = ("tools", "system", "messages", "model")
_UNMARKABLE = ("thinking", "redacted_thinking")
_AUTOMATIC = "automatic (top-level cache_control)"


def platform_of(client: Any) -> str:
    """The platform an `anthropic` client talks to, from its class (AnthropicBedrock -> bedrock)."""
    name = type(client).__name__.lower()
    for platform in ("bedrock", "vertex", "foundry", "aws"):
        if platform in name:
            return platform
    return "anthropic"


class AnthropicAdapter(BaseAdapter):
    """Anthropic Messages: explicit block markers, or the top-level automatic mode."""

    name = "anthropic"
    vendor = "anthropic"
    sdk = ("anthropic", "anthropic", "anthropic", "Anthropic", "AsyncAnthropic")
    capabilities: ClassVar[Capabilities] = RULES.capabilities

    # -- request ----------------------------------------------------------------------------

    def to_request(
        self,
        prompt: Prompt,
        *,
        model: str,
        plan: Plan | None = None,
        max_tokens: int = 1024,
        automatic: bool = False,
        automatic_ttl: str | None = None,
        platform: str = "anthropic",
        ttl: str | None = None,
        layer_ttls: Mapping[Layer, str] | None = None,
        previous: Prompt | None = None,
        extra_tools: Sequence[Mapping[str, Any]] = (),
        diagnostics: bool = False,
        previous_message_id: str | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """
        The keyword arguments of `client.messages.create(...)`.

        `automatic=True` adds the top-level `cache_control` (first-party API and Claude Platform
        on AWS only; it takes one of the 4 slots). `extra_tools` are raw tool dicts (server
        tools, MCP toolsets) placed after the prompt's tools; markers they carry count against
        the budget. `diagnostics=True` (or a `previous_message_id`) asks for cache diagnostics:
        send it on every request so Anthropic stores the fingerprints. Other keyword arguments
        (temperature, thinking, stream, ...) pass through unchanged.
        """
        _check_options(options, platform, automatic, diagnostics or previous_message_id)
        reserved = sum(_count_markers(t) for t in extra_tools)
        if plan is not None and plan.vendor != self.name:
            raise InputError(
                f"this plan was made for {plan.vendor!r}; plan with vendor='anthropic'"
            )
        chosen = plan or make_plan(
            prompt,
            vendor=self.name,
            model=model,
            ttl=ttl,
            layer_ttls=layer_ttls,
            reserved=reserved,
            automatic=automatic,
            previous=previous,
        )
        kwargs: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
        body = _Body(prompt, chosen)
        if prompt.tools or extra_tools:
            kwargs["tools"] = body.tools(extra_tools)
        if prompt.system or prompt.docs:
            kwargs["system"] = body.system()
        kwargs["messages"] = body.messages()
        if automatic:
            kwargs["cache_control"] = _marker(automatic_ttl)
        if diagnostics or previous_message_id:
            kwargs["diagnostics"] = {"previous_message_id": previous_message_id}
            options["extra_headers"] = _with_beta(options.get("extra_headers"), DIAGNOSTICS_BETA)
        kwargs.update(options)
        if _marked(kwargs):
            body.markers.append((_AUTOMATIC, _ttl_of(kwargs)))
        # The body knows every marker it placed, so the request is not scanned again for them.
        _check_marker_list(body.markers)
        return kwargs

    def prewarm_request(self, prompt: Prompt, *, model: str, **options: Any) -> dict[str, Any]:
        """
        A request that only writes the cache: `max_tokens=0`, nothing generated or billed as output.

        The API rejects a pre-warm with streaming, enabled thinking, a structured output format or
        a forced tool choice; those are refused here with the reason.
        """
        _check_prewarm(options)
        if not (prompt.history or prompt.tail):
            # The API needs one message; it sits after the last breakpoint, outside the cache.
            prompt = prompt.with_tail(".")
        return self.to_request(prompt, model=model, **{**options, "max_tokens": 0})

    # -- usage ------------------------------------------------------------------------------

    def read_usage(self, response: Any) -> CacheUsage:
        """A `Message` (SDK object or JSON dict), or its `usage` alone."""
        return read_usage(response)

    def accumulator(self) -> AnthropicStream:
        return AnthropicStream()


# -- rendering --------------------------------------------------------------------------------


class _Body:
    """
    Lays out the request from each block's unmarked piece (`_pieces`), putting a marker on a copy
    of the pieces the plan names. `markers` lists the (where, ttl) of every marker placed, in the
    order the API reads them.
    """

    def __init__(self, prompt: Prompt, chosen: Plan) -> None:
        self.markers: list[tuple[str, str | None]] = []
        self.refused: InputError | None = None  # the first marker on a thinking block
        rendered, self.pieces = pieces(prompt, "anthropic", _piece)
        blocks = rendered.blocks
        self.tools_end = len(prompt.tools)
        self.system_end = self.tools_end + len(prompt.system) + len(prompt.docs)
        self.marks = block_marks(chosen, len(blocks))

    def _section(self, start: int, end: int, name: str) -> list[dict[str, Any]]:
        """The pieces of blocks `start` to `end` (tools, or system text), marked where planned."""
        out = self.pieces[start:end]
        for index, marks in self.marks.items():
            if start <= index < end and None in marks:
                ttl = marks[None]
                out[index - start] = {**out[index - start], "cache_control": _marker(ttl)}
                self.markers.append((f"{name}[{index - start}]", ttl or None))
        return out

    def tools(self, extra: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        out = self._section(0, self.tools_end, "tools")
        for raw in extra:
            if _marked(raw):
                self.markers.append((f"tools[{len(out)}]", _ttl_of(raw)))
            out.append(dict(raw))
        return out

    def system(self) -> list[dict[str, Any]]:
        return self._section(self.tools_end, self.system_end, "system")

    def messages(self) -> list[dict[str, Any]]:
        start = self.system_end
        out = self.pieces[start:]
        for index in sorted(self.marks):
            if index >= start:
                out[index - start] = self._message(
                    out[index - start], self.marks[index], index - start
                )
        if self.refused is not None:
            raise self.refused
        return out

    def _message(
        self, piece: dict[str, Any], marks: Mapping[int | None, str | None], m: int
    ) -> dict[str, Any]:
        """A copy of a message's piece with markers on the content blocks the plan names."""
        content = list(piece["content"])
        placed = content_marks(content, marks, _last_markable)  # never a thinking block
        for at, ttl in sorted(placed.items()):
            block, where = content[at], f"messages[{m}].content[{at}]"
            if block["type"] in _UNMARKABLE and self.refused is None:
                self.refused = _thinking_marked(where, block["type"])
            content[at] = {**block, "cache_control": _marker(ttl)}
            self.markers.append((where, ttl or None))
        return {"role": piece["role"], "content": content}


def _piece(part: Tool | SystemBlock | Doc | Message) -> dict[str, Any]:
    """A block's request piece, without a marker."""
    if isinstance(part, Message):
        return {"role": part.role, "content": [_content(c) for c in part.content]}
    if isinstance(part, Tool):
        return _tool(part)
    if isinstance(part, Doc):
        return {"type": "text", "text": _doc_text(part)}
    return {"type": "text", "text": part.text}


def _marker(ttl: str | None) -> dict[str, str]:
    return {"type": "ephemeral", "ttl": ttl} if ttl else {"type": "ephemeral"}


def _tool(tool: Tool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": tool.name, "input_schema": tool.sorted_json()["input_schema"]}
    if tool.description:
        out["description"] = tool.description
    return out


def _doc_text(doc: Doc) -> str:
    if doc.title is None and doc.source is None:
        return doc.text
    attrs = "".join(
        f' {k}="{v}"' for k, v in (("title", doc.title), ("source", doc.source)) if v is not None
    )
    return f"<document{attrs}>\n{doc.text}\n</document>"


def _last_markable(content: Sequence[Mapping[str, Any]]) -> int | None:
    return next(
        (c for c in reversed(range(len(content))) if content[c]["type"] not in _UNMARKABLE), None
    )


def _content(part: Content) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart):
        source = (
            {"type": "base64", "media_type": part.media_type, "data": part.data}
            if part.data is not None
            else {"type": "url", "url": part.url}
        )
        return {"type": "image", "source": source}
    if isinstance(part, DocumentPart):
        return _document(part)
    if isinstance(part, ToolUse):
        return {
            "type": "tool_use",
            "id": part.id,
            "name": part.name,
            "input": part.sorted_json()["input"],
        }
    if isinstance(part, ToolResult):
        return _tool_result(part)
    if isinstance(part, ThinkingPart):
        return {"type": "thinking", "thinking": part.thinking, "signature": part.signature}
    raise InputError(f"cannot render {type(part).__name__} for Anthropic")


def _document(part: DocumentPart) -> dict[str, Any]:
    source = (
        {"type": "base64", "media_type": part.media_type, "data": part.data}
        if part.data is not None
        else {"type": "text", "media_type": "text/plain", "data": part.text}
    )
    out: dict[str, Any] = {"type": "document", "source": source}
    if part.title is not None:
        out["title"] = part.title
    return out


def _tool_result(part: ToolResult) -> dict[str, Any]:
    body: Any = (
        part.content if isinstance(part.content, str) else [_content(c) for c in part.content]
    )
    out: dict[str, Any] = {"type": "tool_result", "tool_use_id": part.tool_use_id, "content": body}
    if part.is_error:
        out["is_error"] = True
    return out


# -- checks -----------------------------------------------------------------------------------


def _check_options(options: Mapping[str, Any], platform: str, automatic: bool, diag: Any) -> None:
    clash = [k for k in _RESERVED_KWARGS if k in options]
    if clash:
        raise InputError(
            f"{clash} come from the Prompt; build them with Prompt.add_tools/add_system/"
            "add_history/with_tail (raw server tools go in extra_tools=)"
        )
    if platform not in _PLATFORMS:
        raise InputError(f"platform must be one of {list(_PLATFORMS)}, got {platform!r}")
    if automatic and platform in _NO_AUTOMATIC:
        raise InputError(
            f"automatic caching (top-level cache_control) is not available on {platform}; "
            "use explicit breakpoints (automatic=False), which promptcache places for you"
        )
    if diag and platform != "anthropic":
        raise InputError(f"cache diagnostics are a first-party beta; not available on {platform}")


def _check_prewarm(options: Mapping[str, Any]) -> None:
    thinking = options.get("thinking") or {}
    tool_choice = options.get("tool_choice") or {}
    problems = {
        "stream=True": bool(options.get("stream")),
        "thinking enabled": isinstance(thinking, Mapping) and thinking.get("type") == "enabled",
        "output_config.format": bool((options.get("output_config") or {}).get("format")),
        "tool_choice any/tool": isinstance(tool_choice, Mapping)
        and tool_choice.get("type") in ("any", "tool"),
    }
    bad = [name for name, present in problems.items() if present]
    if bad:
        raise InputError(
            f"a pre-warm request (max_tokens=0) cannot use {', '.join(bad)}: the API rejects it. "
            "Drop those options from the pre-warm call"
        )


def _with_beta(headers: Mapping[str, str] | None, beta: str) -> dict[str, str]:
    out = dict(headers or {})
    present = [b.strip() for b in out.get("anthropic-beta", "").split(",") if b.strip()]
    if beta not in present:
        present.append(beta)
    out["anthropic-beta"] = ",".join(present)
    return out


def _count_markers(value: Any) -> int:
    if isinstance(value, Mapping):
        own = 1 if value.get("cache_control") else 0
        return own + sum(_count_markers(v) for k, v in value.items() if k != "cache_control")
    if isinstance(value, list | tuple):
        return sum(_count_markers(v) for v in value)
    return 0


def markers_in_order(kwargs: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    """
    (where, ttl) of every marker in the order the API reads them: tools, system, messages.

    Reads requests the caller wrote (`promptcache inspect` runs it on files), so anything that is
    not a marked JSON object is skipped rather than trusted.
    """
    for i, tool in enumerate(_items(kwargs.get("tools"))):
        if _marked(tool):
            if deferred(tool):
                raise _deferred_marked(f"tools[{i}]")
            yield f"tools[{i}]", _ttl_of(tool)
    for i, block in enumerate(_items(kwargs.get("system"))):
        if _marked(block):
            yield f"system[{i}]", _ttl_of(block)
    for m, message in enumerate(_items(kwargs.get("messages"))):
        content = message.get("content") if _is_object(message) else None
        for c, block in enumerate(_items(content)):
            if _marked(block):
                if block.get("type") in _UNMARKABLE:
                    raise _thinking_marked(f"messages[{m}].content[{c}]", block["type"])
                yield f"messages[{m}].content[{c}]", _ttl_of(block)
    if _marked(kwargs):
        yield _AUTOMATIC, _ttl_of(kwargs)


def _deferred_marked(where: str) -> InputError:
    # The API's own words (400 invalid_request_error), as users' trackers quote them.
    return InputError(
        f"{where} has defer_loading: true and cache_control; the API answers 400 'Tools with "
        "defer_loading cannot use prompt caching'. A deferred tool is not in the cached prefix: "
        "put the marker on the last tool without defer_loading"
    )


def _thinking_marked(where: str, kind: str) -> InputError:
    return InputError(
        f"{where} is a {kind} block with cache_control; the API rejects markers on thinking blocks"
    )


def _items(value: Any) -> Sequence[Any]:
    return value if type(value) is list or isinstance(value, list | tuple) else ()


def _is_object(value: Any) -> bool:
    # `type(...) is dict` first: this runs on every content block of every request, and the
    # Mapping ABC check costs several times more.
    return type(value) is dict or isinstance(value, Mapping)


def _marked(value: Any) -> bool:
    return _is_object(value) and bool(value.get("cache_control"))


def _ttl_of(value: Mapping[str, Any]) -> str | None:
    marker = value["cache_control"]
    ttl = marker.get("ttl") if isinstance(marker, Mapping) else None
    return ttl if isinstance(ttl, str) else None


def check_markers(kwargs: Mapping[str, Any]) -> None:
    """Refuse what Anthropic would answer 400 to: more than 4 markers, or 1h after 5m."""
    _check_marker_list(list(markers_in_order(kwargs)))


def _check_marker_list(markers: list[tuple[str, str | None]]) -> None:
    limit = AnthropicAdapter.capabilities.max_breakpoints
    if len(markers) > limit:
        raise InputError(
            f"{len(markers)} cache markers ({', '.join(w for w, _ in markers)}) exceed "
            f"Anthropic's {limit}; the API answers 400 'Found {len(markers)}'. Fix: let "
            "promptcache plan them (plan=None) or remove your own cache_control markers"
        )
    check_ttl_order(markers, AnthropicAdapter.capabilities)
