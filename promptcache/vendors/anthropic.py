"""
Anthropic Messages (`client.messages.create`): caches only at explicit `cache_control` markers
(block-level, or the top-level automatic one that marks the last block), at most 4 per request,
looking back at most 20 content blocks from each; 5m and 1h TTLs, a 1h marker never after a 5m
one. Render order tools -> system -> messages. `tool_choice` and thinking settings drop the
messages' cache but keep tools and system.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from .._errors import InputError, shown_name
from .._parts import (
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
from .._usage import CacheDiagnosis, CacheUsage
from ._elements import (
    Span,
    check_list,
    list_span,
    messages_span,
    required_list,
    strip_markers,
    system_spans,
)
from ._fields import MAX_COUNT, get_field, get_int, require_usage
from ._reading import PromptParts, items, message, sample, text
from ._rules import CacheRules, Capabilities, Setting
from ._vendor import Vendor

__all__ = ["RULES", "VENDOR", "AnthropicStream", "read_usage"]

RULES = CacheRules(
    marking="explicit",
    capabilities=Capabilities(
        vendor="anthropic",
        marking="explicit",
        max_breakpoints=4,
        lookback_blocks=20,
        ttls=("1h", "5m"),
        default_ttl="5m",
        ttl_order="non-increasing",
        unmarkable=frozenset({"thinking", "redacted_thinking"}),
        automatic_mode=False,
    ),
    top_level_marker="cache_control",
    default_ttl_seconds=300.0,
    ttl_settings=("cache_control.ttl",),
    # Reads are exact to the breakpoint; the slack covers our token estimate only.
    granularity_tokens=8,
    min_tokens_key="anthropic",
    billed_write_ttl="5m",
    render_order=("tools", "system", "messages"),
    # "tool_choice ... No for messages", "thinking config or output_config.effort ... No for
    # messages": tools and system stay cached.
    invalidating=(
        Setting(path="tool_choice", cause="tool_choice_changed", drops="messages"),
        Setting(path="thinking", cause="thinking_changed", drops="messages"),
        Setting(path="output_config.effort", cause="thinking_changed", drops="messages"),
    ),
    miss_reasons={
        "model_changed": "model_changed",
        "tools_changed": "tools_changed",
        "system_changed": "content_changed",
        "messages_changed": "content_changed",
    },
    # Tool search: "Deferred tools are not included in the system-prompt prefix"; a tool found
    # by search comes in as a `tool_reference` in the conversation, so the prefix is untouched.
    unrendered_tool_flag="defer_loading",
    # A string `system` or message `content` is shorthand for one text block: the same prompt.
    string_is_text_block=True,
)

CALL_PATHS: Mapping[tuple[str, ...], str] = {
    ("messages", "create"): "call",
    ("messages", "parse"): "call",  # structured outputs: a ParsedMessage
    ("messages", "stream"): "anthropic-manager",
    ("beta", "messages", "create"): "call",
    ("beta", "messages", "parse"): "call",
    ("beta", "messages", "stream"): "anthropic-manager",
}


def layers(request: Mapping[str, Any]) -> dict[str, list[Span]]:
    return {
        "tools": rendered_tool_spans(request.get("tools")),
        "system": system_spans("system", request.get("system")),
        "messages": messages_span(required_list(request, "messages"), "messages", "content"),
    }


def deferred(tool: Any) -> bool:
    """A tool the API keeps out of the prompt until tool search returns it (`defer_loading`)."""
    return isinstance(tool, Mapping) and tool.get(RULES.unrendered_tool_flag) is True


def rendered_tool_spans(tools: Any) -> list[Span]:
    """The runs of tools that are rendered into the prefix (deferred ones left out), in order."""
    spans = list_span("tools", "tools", tools)
    if not spans or not any(deferred(t) for t in tools):
        return spans
    runs, start = [], 0
    for i, tool in enumerate([*tools, None]):
        if tool is None or deferred(tool):
            if i > start:
                runs.append(Span("tools", "tools", tools[start:i], start))
            start = i + 1
    return runs


TOOL_PROMPT = "the tool-use system prompt the API adds when tools are given"

# The size of that tool-use system prompt, by model and `tool_choice` type, as the vendor
# documents it: the "Pricing" table of Anthropic's tool use overview
# (https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview, read 2026-12-01, the
# table then listing Opus 4.7 back to Haiku 3), which gives `auto` and `none` one size and `any`
# and `tool` another, "assuming at least 1 tool is provided". A model the table does not list
# (newer ones) keeps the prompt named, not counted.
_CLAUDE_4 = {"auto": 346, "none": 346, "any": 313, "tool": 313}
TOOL_PROMPT_TOKENS: Mapping[str, Mapping[str, int]] = {
    "claude-opus-4-7": _CLAUDE_4,
    "claude-opus-4-6": _CLAUDE_4,
    "claude-opus-4-5": _CLAUDE_4,
    "claude-opus-4-1": _CLAUDE_4,
    "claude-opus-4": _CLAUDE_4,
    "claude-sonnet-4-6": _CLAUDE_4,
    "claude-sonnet-4-5": _CLAUDE_4,
    "claude-sonnet-4": _CLAUDE_4,
    "claude-3-7-sonnet": _CLAUDE_4,
    "claude-haiku-4-5": _CLAUDE_4,
    "claude-3-5-haiku": {"auto": 264, "none": 264, "any": 340, "tool": 340},
    "claude-3-opus": {"auto": 530, "none": 530, "any": 281, "tool": 281},
    "claude-3-sonnet": {"auto": 159, "none": 159, "any": 235, "tool": 235},
    "claude-3-haiku": {"auto": 264, "none": 264, "any": 340, "tool": 340},
}
# A listed model inside a first-party, Bedrock (`us.anthropic.claude-opus-4-1-20250805-v1:0`) or
# Vertex (`claude-opus-4-1@20250805`) name: only a snapshot may follow it (a date, Bedrock's
# version, `-latest`), so `claude-opus-4-8` is no `claude-opus-4`; longest names first.
_LISTED = re.compile(
    r"(?:^|[./])("
    + "|".join(re.escape(name) for name in sorted(TOOL_PROMPT_TOKENS, key=len, reverse=True))
    + r")(?=$|[@:]|-\d{8}(?:-v\d+(?::\d+)?)?$|-v\d+(?::\d+)?$|-latest$)"
)


def added_tokens(request: Mapping[str, Any], model: str | None) -> dict[str, int]:
    """What the API adds to the prompt that the vendor documents a size for, for `model`."""
    tools = [t for t in request.get("tools") or () if isinstance(t, Mapping)]
    found = _LISTED.search(model or "")
    if not tools or found is None:
        return {}
    choice = request.get("tool_choice")
    kind = choice.get("type", "auto") if isinstance(choice, Mapping) else "auto"
    size = TOOL_PROMPT_TOKENS[found.group(1)].get(str(kind))
    return {TOOL_PROMPT: size} if size is not None else {}


def unestimated(request: Mapping[str, Any]) -> list[str]:
    """
    What the API adds to the prompt that a count of the request's own text leaves out: the
    tool-use system prompt it writes when `tools` are given, and the definitions of its server
    tools (`type` names one: web search, code execution, tool search...), which it renders
    itself. Where a size is documented for the model, `added_tokens` counts it instead.
    """
    tools = [t for t in request.get("tools") or () if isinstance(t, Mapping)]
    if not tools:
        return []
    found = [TOOL_PROMPT]
    server = sorted({str(t["type"]) for t in tools if t.get("type") not in (None, "custom")})
    if server:
        found.append(f"the definitions of the server tools the API renders ({', '.join(server)})")
    return found


# -- shape ---------------------------------------------------------------------------------

_OWN_BLOCKS = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "document"})
_FOREIGN_BLOCKS = frozenset({"image_url", "input_text", "input_image", "input_audio", "file"})


def misfit(request: Mapping[str, Any]) -> str | None:
    # Converse's camelCase keys too: its `system` and `messages` read as Anthropic's otherwise.
    for key in ("contents", "input", "instructions", "modelId", "toolConfig", "inferenceConfig"):
        if key in request:
            return f"a top-level {key!r}"
    if "messages" not in request:
        return "no 'messages'"
    for i, m in sample(request["messages"]):
        role = m.get("role") if isinstance(m, dict) else None
        # The API takes `system` messages inside `messages` too; a request that shows nothing
        # else of Anthropic's is read as the OpenAI shape it then is.
        if role in ("developer", "tool") or (role == "system" and not _own_signs(request)):
            return f"messages[{i}] with role {role!r} (Anthropic: user or assistant)"
        if isinstance(m, dict) and m.get("tool_calls"):
            return f"messages[{i}].tool_calls"
        kinds = _block_types(m)
        if kinds & _FOREIGN_BLOCKS:
            return f"messages[{i}] with a {sorted(kinds & _FOREIGN_BLOCKS)[0]!r} part"
    for i, t in sample(request.get("tools")):
        if isinstance(t, dict) and t.get("type") == "function":
            return f"tools[{i}] of type 'function'"
    return None


def signs(request: Mapping[str, Any]) -> int:
    return _own_signs(request) + ("max_tokens" in request)  # required here; OpenAI's differs


def _own_signs(request: Mapping[str, Any]) -> int:
    """What only an Anthropic request carries (`max_tokens` aside, which OpenAI's took too)."""
    found = int(_CLAUDE.search(str(request.get("model") or "")) is not None)
    found += "system" in request
    found += any(_block_types(m) & _OWN_BLOCKS for _, m in sample(request.get("messages")))
    found += any(
        isinstance(t, Mapping) and "input_schema" in t for _, t in sample(request.get("tools"))
    )
    found += any(k in request for k in ("cache_control", "thinking", "output_config"))
    return found


def response_signs(response: Any) -> int:
    if not isinstance(response, Mapping):
        return 0
    usage = response.get("usage", response)  # a response, or only its usage object
    found = int(response.get("type") == "message")
    found += _CLAUDE.search(str(response.get("model") or "")) is not None
    if isinstance(usage, Mapping):
        found += "cache_read_input_tokens" in usage or "cache_creation_input_tokens" in usage
    return found


_CLAUDE = re.compile(r"(^|[./])claude")


def _block_types(message: Any) -> set[str]:
    content = message.get("content") if isinstance(message, dict) else None
    return {str(b.get("type")) for _, b in sample(content) if isinstance(b, dict)}


# -- request -> prompt ---------------------------------------------------------------------


def read_prompt(request: Mapping[str, Any]) -> PromptParts:
    # a deferred tool is not in the prompt the vendor caches: leave it out of the layout
    tools = [
        Tool(
            name=t["name"],
            description=t.get("description", ""),
            input_schema=t.get("input_schema", {}),
        )
        for t in items(request, "tools")
        if not deferred(t)
    ]
    system = request.get("system") or []
    if not isinstance(system, str):
        check_list("system", system)  # a dict would read as its keys
    texts = [system] if isinstance(system, str) else [text(b, "system") for b in system]
    messages: list[Message] = []
    for i, m in enumerate(items(request, "messages", required=True)):
        content = _content(m.get("content"), f"messages[{i}]")
        if m.get("role") != "system":
            messages.append(message(m.get("role"), content))
        elif not messages:  # before the conversation: part of the system prompt
            texts += [p.text for p in content if isinstance(p, TextPart)]
        else:  # inside it: rendered where it stands, among the turns
            messages.append(message("user", content))
    return tools, texts, messages


def _content(content: Any, path: str) -> list[Content]:
    if isinstance(content, str):
        return [TextPart(text=content)]
    return [
        part
        for i, block in enumerate(content or [])
        if (part := _part(block, f"{path}.content[{i}]"))
    ]


def _part(block: Mapping[str, Any], path: str) -> Content | None:
    kind = block.get("type")
    if kind == "text":
        return TextPart(text=block["text"])
    if kind == "image":
        source = block.get("source", {})
        return ImagePart(
            media_type=source.get("media_type", "image/png"),
            data=source.get("data"),
            url=source.get("url"),
        )
    if kind == "document":
        return _document(block)
    if kind == "tool_use":
        return ToolUse(id=block["id"], name=block["name"], input=block.get("input", {}))
    if kind == "tool_result":
        return _tool_result(block, path)
    if kind in ("thinking", "redacted_thinking"):
        return ThinkingPart(
            thinking=block.get("thinking", block.get("data", "")),
            signature=block.get("signature", ""),
        )
    if kind in _SERVER_BLOCKS:
        # Server tools' blocks and file references: rendered from their JSON, which is what
        # their tokens are counted from here.
        return TextPart(
            text=orjson.dumps(strip_markers(block)[0], option=orjson.OPT_SORT_KEYS).decode()
        )
    raise InputError(f"{path}: unsupported content block type {shown_name(kind)}")


# Content blocks the API renders that are no part of promptcache's own vocabulary: what server
# tools (web search and fetch, code execution, tool search, MCP) put in a turn, and file
# references (`container_upload`, for code execution).
_SERVER_BLOCKS = frozenset(
    {
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "tool_reference",
        "mcp_tool_use",
        "mcp_tool_result",
        "container_upload",
        "search_result",
        "compaction",
    }
)


def _document(block: Mapping[str, Any]) -> DocumentPart:
    source = block.get("source", {})
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


def _tool_result(block: Mapping[str, Any], path: str) -> ToolResult:
    inner = block.get("content", "")
    body = (
        inner
        if isinstance(inner, str)
        else tuple(
            p for p in (_part(b, path) for b in inner) if isinstance(p, (TextPart, ImagePart))
        )
    )
    return ToolResult(
        tool_use_id=block["tool_use_id"], content=body, is_error=bool(block.get("is_error"))
    )


# -- usage ---------------------------------------------------------------------------------


def read_usage(response: Any) -> CacheUsage:
    """A `Message` (SDK object or JSON dict), or its `usage` alone."""
    if type(response) is dict:
        plain = _plain_usage(response)
        if plain is not None:
            return plain
    usage = get_field(response, "usage")
    if usage is None:
        usage = response
    require_usage(usage, "input_tokens", "Message")
    return _usage_from(
        _fields(usage),
        get_field(usage, "cache_creation"),
        model=get_field(response, "model"),
        diagnosis=_diagnosis(response),
        endpoint="messages",
        passes=_passes(usage),
    )


def _plain_usage(response: dict[str, Any]) -> CacheUsage | None:
    """
    `read_usage` of the JSON a log holds, in its common form (integer counts, none negative, a
    TTL split that adds up or none, no diagnostics), read with plain dict lookups: `report` reads
    one per record. None for anything else, which the general reader takes (and words what is
    wrong).
    """
    usage = response.get("usage", response)
    if type(usage) is not dict:
        return None
    uncached = usage.get("input_tokens")
    output = usage.get("output_tokens")
    write = usage.get("cache_creation_input_tokens")
    read = usage.get("cache_read_input_tokens")
    if (
        type(uncached) is not int
        or uncached < 0
        or not (output is None or (type(output) is int and output >= 0))
        or not (write is None or (type(write) is int and write >= 0))
        or not (read is None or (type(read) is int and read >= 0))
        or max(uncached, output or 0, write or 0, read or 0) > MAX_COUNT
        or response.get("diagnostics") is not None
        or usage.get("iterations")
        or usage.get("server_tool_use")
    ):
        return None
    creation = usage.get("cache_creation")
    by_ttl: dict[str, int] = {}
    if creation is not None:
        by_ttl_or_none = _plain_split(creation, write)
        if by_ttl_or_none is None:
            return None
        by_ttl = by_ttl_or_none
    reported = write is not None or read is not None
    model = response.get("model")
    return CacheUsage(
        uncached_input=uncached,
        cache_read=(read or 0) if reported else None,
        cache_write=(write or 0) if reported else None,
        output=output,
        cache_write_by_ttl=by_ttl,
        vendor="anthropic",
        endpoint="messages",
        model=model if isinstance(model, str) else None,
        problems=(),
        diagnosis=None,
    )


def _plain_split(creation: Any, write: int | None) -> dict[str, int] | None:
    """`_ttl_split` of a JSON `cache_creation` whose counts are integers, none negative, summing
    to `write` (the full-content log's common case), with its zeros left out as `_usage_from`
    leaves them; None for anything else (the general reader words what is wrong)."""
    if type(creation) is not dict or write is None:
        return None
    five = creation.get("ephemeral_5m_input_tokens")
    hour = creation.get("ephemeral_1h_input_tokens")
    if not (five is None or (type(five) is int and five >= 0)) or not (
        hour is None or (type(hour) is int and hour >= 0)
    ):
        return None
    if (five or 0) + (hour or 0) != write:
        return None
    split = {}
    if five:
        split["5m"] = five
    if hour:
        split["1h"] = hour
    return split


class AnthropicStream:
    """
    Reads `message_start` (input, cache, TTL split) and each `message_delta` (cumulative output and
    optional cumulative input/cache counts; later non-null values replace earlier ones, as the
    SDK's own accumulator does). The TTL split only comes in `message_start`. The output is the
    last `message_delta`'s: without one it is unknown (None), not `message_start`'s provisional
    count.
    """

    def __init__(self) -> None:
        self._fields: dict[str, int | None] = {}
        self._creation: Any = None
        self._model: str | None = None
        self._diagnosis: CacheDiagnosis | None = None
        self._passes = Passes(count=1, totals=None, last_cached=None)
        self._started = False

    def feed(self, event: Any) -> None:
        kind = get_field(event, "type")
        if kind == "message_start":
            message = get_field(event, "message")
            usage = get_field(message, "usage")
            self._fields = _fields(usage)
            # message_start's output count is provisional (the first token or so): a stream that
            # ends before a message_delta said the output never reported it
            self._fields["output_tokens"] = None
            self._creation = get_field(usage, "cache_creation")
            self._model = get_field(message, "model")
            self._diagnosis = _diagnosis(message)
            self._passes = _passes(usage)
            self._started = True
        elif kind == "message_delta":
            usage = get_field(event, "usage")
            for name, value in _fields(usage).items():
                # Counts are cumulative: a 0 in a delta (a compaction stream's) is no reason to
                # forget the reads message_start reported.
                if value is not None and (
                    name == "output_tokens" or value >= (self._fields.get(name) or 0)
                ):
                    self._fields[name] = value
            if get_field(usage, "iterations") or get_field(usage, "server_tool_use"):
                self._passes = _passes(usage)

    @property
    def reported_input(self) -> bool:
        """Whether an event so far carried the input count (a gateway may send none)."""
        return self._fields.get("input_tokens") is not None

    @property
    def usage(self) -> CacheUsage:
        if not self._started:
            raise InputError(
                "the stream ended before a message_start event, so it carried no usage; feed "
                "every event of the stream (or the SDK's final message) to the accumulator"
            )
        return _usage_from(
            self._fields,
            self._creation,
            model=self._model,
            diagnosis=self._diagnosis,
            endpoint="messages.stream",
            passes=self._passes,
        )


_USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


def _fields(usage: Any) -> dict[str, int | None]:
    return {name: get_int(usage, name) for name in _USAGE_FIELDS}


@dataclass(frozen=True, slots=True, kw_only=True)
class Passes:
    """
    The sampling passes one usage covers. `usage.iterations` itemises them: `message` entries are
    the passes of a server-side tool loop (summed in the top-level fields), `compaction` entries
    the summarising pass, which the top-level fields leave out. `totals` is every entry summed
    (None: not itemised); `last_cached` what the last `message` pass read and wrote.
    """

    count: int
    totals: dict[str, int | None] | None
    last_cached: int | None
    split: dict[str, int] | None = None  # the TTL split of the writes, summed over the entries

    def split_as_creation(self) -> dict[str, int]:
        """`split` in the shape of a `cache_creation` object."""
        return {f"ephemeral_{ttl}_input_tokens": n for ttl, n in (self.split or {}).items()}


def _passes(usage: Any) -> Passes:
    iterations = get_field(usage, "iterations")
    if isinstance(iterations, (list, tuple)) and iterations:
        return _itemised(iterations)
    # A server tool ran (web search, code execution) without an itemised usage: several passes
    # were billed as one, and what the last one held is not known.
    tools = get_field(usage, "server_tool_use")
    calls = (
        sum(
            v
            for v in (tools if isinstance(tools, Mapping) else _model_fields(tools)).values()
            if type(v) is int
        )
        if tools is not None
        else 0
    )
    return Passes(count=1 + calls, totals=None, last_cached=None)


def _model_fields(obj: Any) -> dict[str, Any]:
    dump = getattr(obj, "model_dump", None)
    return dict(dump()) if callable(dump) else {}


def _itemised(iterations: Any) -> Passes:
    totals: dict[str, int | None] = dict.fromkeys(_USAGE_FIELDS, 0)
    split: dict[str, int] | None = None
    messages, last = 0, None
    for item in iterations:
        fields = _fields(item)
        creation = get_field(item, "cache_creation")
        if creation is not None:
            split = split or {}
            for ttl, tokens in _ttl_split(creation).items():
                split[ttl] = split.get(ttl, 0) + tokens
        for name, value in fields.items():
            totals[name] = (totals[name] or 0) + (value or 0)
        if get_field(item, "type") != "compaction":
            messages += 1
            last = (fields["cache_read_input_tokens"] or 0) + (
                fields["cache_creation_input_tokens"] or 0
            )
    return Passes(count=max(messages, 1), totals=totals, last_cached=last, split=split)


def _usage_from(
    fields: Mapping[str, int | None],
    creation: Any,
    *,
    model: Any,
    diagnosis: CacheDiagnosis | None,
    endpoint: str,
    passes: Passes | None = None,
) -> CacheUsage:
    problems: list[str] = []
    if passes is not None and passes.split is not None:
        creation = passes.split_as_creation()
    if passes is not None and passes.totals is not None:
        # The iterations are the whole bill; the top-level fields leave compaction out.
        fields = {**fields, **{k: v for k, v in passes.totals.items() if k != "output_tokens"}}
        fields["output_tokens"] = _more(fields.get("output_tokens"), passes.totals["output_tokens"])
    by_ttl = _ttl_split(creation)
    write = fields.get("cache_creation_input_tokens")
    read = fields.get("cache_read_input_tokens")
    reported = write is not None or read is not None or creation is not None
    if write is None and by_ttl:
        write = sum(by_ttl.values())
    if by_ttl and write is not None and sum(by_ttl.values()) != write:
        problems.append(
            f"cache_creation TTL split ({', '.join(f'{k}={v}' for k, v in by_ttl.items())}) sums "
            f"to {sum(by_ttl.values())}, but cache_creation_input_tokens is {write}"
        )
    problems += [
        f"{name} is negative ({value})"
        for name, value in fields.items()
        if value is not None and value < 0
    ]
    return CacheUsage(
        uncached_input=fields.get("input_tokens") or 0,
        cache_read=(read or 0) if reported else None,
        cache_write=(write or 0) if reported else None,
        output=fields.get("output_tokens"),  # None: not reported (a stripped usage), not 0
        cache_write_by_ttl={k: v for k, v in by_ttl.items() if v},
        vendor="anthropic",
        endpoint=endpoint,
        model=model if isinstance(model, str) else None,
        problems=tuple(problems),
        diagnosis=diagnosis,
        passes=1 if passes is None else passes.count,
        last_pass_cached=None if passes is None else passes.last_cached,
    )


def _more(a: int | None, b: int | None) -> int | None:
    return a if b is None else b if a is None else max(a, b)


def _ttl_split(creation: Any) -> dict[str, int]:
    if creation is None:
        return {}
    split = {
        "5m": get_int(creation, "ephemeral_5m_input_tokens"),
        "1h": get_int(creation, "ephemeral_1h_input_tokens"),
    }
    return {k: v for k, v in split.items() if v is not None}


def _diagnosis(message: Any) -> CacheDiagnosis | None:
    diagnostics = get_field(message, "diagnostics")
    if diagnostics is None:
        return None
    reason = get_field(diagnostics, "cache_miss_reason")
    if reason is None:
        return CacheDiagnosis(reason=None)
    raw = reason if isinstance(reason, Mapping) else reason.model_dump()
    return CacheDiagnosis(
        reason=get_field(reason, "type"),
        missed_tokens=get_int(reason, "cache_missed_input_tokens"),
        raw=dict(raw),
    )


VENDOR = Vendor(
    name="anthropic",
    title="Anthropic Messages",
    aliases=("claude", "anthropic-messages", "messages"),
    rules=RULES,
    layers=layers,
    read_prompt=read_prompt,
    read_usage=read_usage,
    misfit=misfit,
    signs=signs,
    response_signs=response_signs,
    call_paths=CALL_PATHS,
    sdk="anthropic",
    unestimated=unestimated,
    added_tokens=added_tokens,
)
