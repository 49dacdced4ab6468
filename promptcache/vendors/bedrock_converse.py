"""
AWS Bedrock Converse (boto3 `bedrock-runtime` `converse`, `converse_stream`; botocore 1.44.8's
service model is the source of the field names): caches only at explicit `cachePoint` blocks,
`{"cachePoint": {"type": "default", "ttl"?: "5m" | "1h"}}`, each its own block in `system`,
`messages[].content` or `toolConfig.tools`, marking the end of the content before it. At most 4
per request; TTLs may not increase along toolConfig -> system -> messages (a 1h cache point never
after a 5m one); never right after a `reasoningContent` block. The model is `modelId`, which may
be a cross-region profile or an ARN (`_bedrock_models`).

Usage (`TokenUsage`, in the response's `usage` and the stream's last `metadata` event):
`inputTokens` EXCLUDES cache reads and writes, like Anthropic's `input_tokens`:

    total input = inputTokens + cacheWriteInputTokens + cacheReadInputTokens

`cacheDetails` splits the write by TTL. A Converse body is unmistakable: content blocks are keyed
by type (`{"text": ...}`), never `{"type": "text", ...}`.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import orjson

from .._errors import InputError, shown, shown_name
from .._parts import (
    Content,
    DocumentPart,
    ImagePart,
    TextPart,
    ThinkingPart,
    Tool,
    ToolResult,
    ToolUse,
)
from .._usage import CacheUsage
from ._bedrock_models import resolve_model, same_model
from ._elements import Placed, Span, check_list, messages_span, plain, required_list
from ._fields import get_field, get_int, require_usage
from ._reading import PromptParts, message, sample
from ._rules import CacheRules, Capabilities, Setting
from ._vendor import Vendor

__all__ = [
    "CACHE_POINT",
    "MAX_CACHE_POINTS",
    "RULES",
    "VENDOR",
    "ConverseStream",
    "cache_point",
    "cache_point_problems",
    "cache_point_segments",
    "cache_points",
    "caches_tools",
    "check_cache_points",
    "one_hour_ttl",
    "read_usage",
    "suspect_double_count",
]

CACHE_POINT = "cachePoint"
MAX_CACHE_POINTS = 4
# Blocks after which Bedrock refuses a cache point ("Cache point cannot be inserted after
# reasoning block.", opencode#36517).
_NOT_AFTER = frozenset({"reasoningContent"})

RULES = CacheRules(
    marking="explicit",
    capabilities=Capabilities(
        vendor="bedrock-converse",
        marking="explicit",
        max_breakpoints=MAX_CACHE_POINTS,
        # AWS's "simplified" caching for Claude: one cache point, about 20 blocks looked back
        lookback_blocks=20,
        ttls=("1h", "5m"),
        default_ttl="5m",
        ttl_order="non-increasing",
        unmarkable=frozenset({"thinking", "redacted_thinking"}),
        # AWS counts the minimum per cache point, from the one before it (AWS-PC)
        minimum_per_breakpoint=True,
    ),
    default_ttl_seconds=300.0,
    granularity_tokens=8,
    min_tokens_key="aws",
    billed_write_ttl="5m",
    render_order=("tools", "system", "messages"),
    invalidating=(
        Setting(path="modelId", cause="model_changed"),
        Setting(path="toolConfig.toolChoice", cause="tool_choice_changed", drops="messages"),
        Setting(
            path="additionalModelRequestFields.thinking", cause="thinking_changed", drops="messages"
        ),
        Setting(
            path="additionalModelRequestFields.reasoning_config",
            cause="thinking_changed",
            drops="messages",
        ),
        Setting(path="outputConfig.effort", cause="thinking_changed", drops="messages"),
    ),
)

# Models with Bedrock's 1-hour cache TTL: GA 2026-01-26 for Claude Sonnet 4.5, Haiku 4.5 and
# Opus 4.5 (AWS what's-new, via strands-agents#2042); Anthropic lists it on both Bedrock
# integrations for the later models. Earlier Claude and Amazon Nova: 5 minutes only.
_ONE_HOUR = (
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-opus-4-5",
    "claude-opus-4-6",
    "claude-sonnet-4-6",
    "claude-opus-4-7",
    "claude-opus-4-8",
    "claude-opus-5",
    "claude-sonnet-5",
    "claude-fable-5",
)
_FIVE_MINUTES = ("claude-3", "claude-sonnet-4-", "claude-opus-4-1", "claude-opus-4-", "nova")


# Models that cache no tools: Amazon Nova takes cache points in system and messages only (AWS's
# prompt-caching tables; vendors-cloud.md). Claude caches toolConfig.tools too.
_NO_TOOL_CACHING = ("nova",)


def caches_tools(model: str) -> bool | None:
    """Whether Bedrock caches `model`'s tools (a cache point in toolConfig.tools); None: not
    known."""
    name = model.lower().rsplit(".", 1)[-1] if "." in model else model.lower()
    if name.startswith(_NO_TOOL_CACHING):
        return False
    if "claude" in model.lower():
        return True
    return None


def model_capabilities(capabilities: Capabilities, model: str) -> Capabilities:
    """`Vendor.model_capabilities`: a model that caches no tools has them unmarkable."""
    if caches_tools(model) is not False:
        return capabilities
    return replace(capabilities, unmarkable_layers=capabilities.unmarkable_layers | {"tools"})


def one_hour_ttl(model: str) -> bool | None:
    """Whether Bedrock offers `model` (a foundation model id) a 1h TTL; None: not known."""
    name = model.lower().rsplit(".", 1)[-1]  # past the geography and provider prefixes
    if any(name == k or name.startswith(k + "-") for k in _ONE_HOUR):
        return True
    if name.startswith(_FIVE_MINUTES):
        return False
    return None


CALL_PATHS: Mapping[tuple[str, ...], str] = {
    ("converse",): "call",
    ("converse_stream",): "iter",
}


def cache_point(ttl: str | None = None) -> dict[str, Any]:
    """A cache point block as boto3 takes it; `ttl` only when asked (never `ttl: None`)."""
    inner: dict[str, str] = {"type": "default"}
    if ttl is not None:
        inner["ttl"] = ttl
    return {CACHE_POINT: inner}


# -- layers: cache points folded onto the block before them --------------------------------


def layers(request: Mapping[str, Any]) -> dict[str, list[Span]]:
    config = plain(request.get("toolConfig"))
    if config is not None and not isinstance(config, Mapping):
        raise InputError(f"toolConfig: expected an object, got {shown(config)}")
    tools = None if config is None else config.get("tools")
    messages = required_list(request, "messages")
    return {
        "tools": _folded_spans("tools", "toolConfig.tools", tools),
        "system": _folded_spans("system", "system", request.get("system")),
        "messages": messages_span(_folded_messages(messages), "messages", "content"),
    }


def _marker(block: Mapping[str, Any]) -> dict[str, str]:
    """A cache point in the neutral marker the judging code strips (`cache_control`)."""
    ttl = plain(block.get(CACHE_POINT))
    ttl = ttl.get("ttl") if isinstance(ttl, Mapping) else None
    return {"type": "ephemeral", "ttl": ttl} if isinstance(ttl, str) else {"type": "ephemeral"}


def _folded_spans(layer: str, path: str, items: Any) -> list[Span]:
    """
    Runs of `items` between cache points, each cache point folded onto the item before it, with
    their true indices: a cache point is where an entry is written, not cached content. A cache
    point with nothing before it in its list caches nothing here (`check_cache_points` says so).
    """
    check_list(path, items)
    if not items:
        return []
    spans: list[Span] = []
    run: list[Any] = []
    start = 0
    for index, item in enumerate(items):
        item = plain(item)
        if isinstance(item, Mapping) and CACHE_POINT in item:
            if run:
                run[-1] = {**run[-1], "cache_control": _marker(item)}
                spans.append(Span(layer, path, run, start))
            run, start = [], index + 1
        else:
            run.append(_wire(item))
    if run:
        spans.append(Span(layer, path, run, start))
    return spans


def _folded_messages(messages: Any) -> Any:
    if not isinstance(messages, (list, tuple)):
        return messages
    return [_folded_message(plain(m)) for m in messages]


def _folded_message(value: Any) -> Any:
    if not isinstance(value, Mapping) or not isinstance(value.get("content"), (list, tuple)):
        return value
    content: list[Any] = []
    positions: list[int] = []
    for index, block in enumerate(value["content"]):
        block = plain(block)
        if isinstance(block, Mapping) and CACHE_POINT in block:
            if content and isinstance(content[-1], Mapping):
                content[-1] = {**content[-1], "cache_control": _marker(block)}
            continue
        content.append(_wire(block))
        positions.append(index)
    # the blocks after a cache point keep their paths in the request (content[4], not [3])
    return {**value, "content": Placed(content, positions)}


def _wire(value: Any) -> Any:
    """`value` as botocore puts it on the wire: blobs (`bytes`) are base64 text in the JSON."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, Mapping):
        if not any(isinstance(v, (bytes, bytearray, Mapping, list)) for v in value.values()):
            return value
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_wire(v) for v in value]
    return value


# -- shape ---------------------------------------------------------------------------------

_OWN_BLOCKS = frozenset(
    {"toolUse", "toolResult", "cachePoint", "reasoningContent", "guardContent", "citationsContent"}
)


def misfit(request: Mapping[str, Any]) -> str | None:
    for key in ("contents", "input", "instructions", "tools", "max_tokens"):
        if key in request:
            return f"a top-level {key!r} (Converse: modelId, toolConfig, inferenceConfig)"
    if "messages" not in request:
        return "no 'messages'"
    system = request.get("system")
    if isinstance(system, str):
        return "a string 'system' (Converse: a list of {'text': ...} blocks)"
    for i, m in sample(request["messages"]):
        if not isinstance(m, Mapping):
            continue
        content = m.get("content")
        if isinstance(content, str):
            return f"messages[{i}].content as a string (Converse: a list of blocks)"
        for j, block in sample(content):
            if isinstance(block, Mapping) and "type" in block:
                return f"messages[{i}].content[{j}] with a 'type' key (Converse blocks are keyed)"
    return None


def signs(request: Mapping[str, Any]) -> int:
    found = 2 * int("modelId" in request)
    found += 2 * any(k in request for k in ("toolConfig", "inferenceConfig"))
    found += any(
        isinstance(b, Mapping) and not _OWN_BLOCKS.isdisjoint(b)
        for _, m in sample(request.get("messages"))
        if isinstance(m, Mapping)
        for _, b in sample(m.get("content"))
    )
    found += any(
        isinstance(b, Mapping) and CACHE_POINT in b for _, b in sample(request.get("system"))
    )
    # a keyed text block: {"text": ...} with no "type" (Anthropic, OpenAI: {"type": "text"})
    found += 2 * any(
        isinstance(b, Mapping) and "text" in b and "type" not in b
        for _, m in sample(request.get("messages"))
        if isinstance(m, Mapping)
        for _, b in sample(m.get("content"))
    )
    return found


def response_signs(response: Any) -> int:
    if not isinstance(response, Mapping):
        return 0
    usage = response.get("usage", response)
    found = int("stopReason" in response or ("output" in response and "metrics" in response))
    if isinstance(usage, Mapping):
        found += 2 * ("inputTokens" in usage)
        found += "cacheReadInputTokens" in usage or "cacheWriteInputTokens" in usage
    return found


# -- cache points: what Bedrock refuses ----------------------------------------------------


def cache_points(request: Mapping[str, Any]) -> list[tuple[str, str | None, str | None]]:
    """
    Every cache point in the order Bedrock reads them (toolConfig.tools, system, messages):
    (path, ttl, the key of the block before it in its list, None when there is none).
    """
    return [found for path, items in _sections(request) for found in _points_in(path, items)]


def _points_in(path: str, items: Any) -> list[tuple[str, str | None, str | None]]:
    out: list[tuple[str, str | None, str | None]] = []
    before: str | None = None
    for i, item in enumerate(_list(items)):
        item = plain(item)
        if not isinstance(item, Mapping):
            before = None
            continue
        if CACHE_POINT in item:
            inner = plain(item[CACHE_POINT])
            ttl = inner.get("ttl") if isinstance(inner, Mapping) else None
            out.append((f"{path}[{i}]", ttl if isinstance(ttl, str) else None, before))
        before = next(iter(item), None)
    return out


def cache_point_segments(
    request: Mapping[str, Any], count: Callable[[str], int]
) -> list[tuple[str, int, str | None]]:
    """
    Each cache point (path, tokens since the cache point before it or the start, that point's
    path or None), with `count` the tokens of a block's JSON: Bedrock counts the minimum per
    cache point, so one short of it caches nothing.
    """
    out: list[tuple[str, int, str | None]] = []
    since, before = 0, None
    for path, items in _sections(request):
        for i, item in enumerate(_list(items)):
            item = plain(item)
            if isinstance(item, Mapping) and CACHE_POINT in item:
                where = f"{path}[{i}]"
                out.append((where, since, before))
                since, before = 0, where
            else:
                since += count(orjson.dumps(item, option=orjson.OPT_SORT_KEYS).decode())
    return out


def _sections(request: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The lists that may hold cache points, in the order Bedrock reads them."""
    config = plain(request.get("toolConfig"))
    tools = config.get("tools") if isinstance(config, Mapping) else None
    out: list[tuple[str, Any]] = [("toolConfig.tools", tools), ("system", request.get("system"))]
    for m, msg in enumerate(_list(request.get("messages"))):
        msg = plain(msg)
        if isinstance(msg, Mapping):
            out.append((f"messages[{m}].content", msg.get("content")))
    return out


def _list(value: Any) -> Sequence[Any]:
    return value if isinstance(value, (list, tuple)) else ()


def cache_point_problems(
    request: Mapping[str, Any], *, one_hour: bool | None = None, tools: bool | None = None
) -> list[str]:
    """
    What Bedrock would answer a ValidationException to, each naming the rule and the fix: more
    than 4 cache points, a TTL Bedrock does not take, a 1h point after a 5m one, a point right
    after a reasoning block or with nothing before it. `one_hour=False`: the model has no 1h TTL;
    `tools=False`: the model caches no tools (Amazon Nova).
    """
    points = cache_points(request)
    problems = _type_problems(request)
    if tools is False:
        problems += [
            f"{path}: a cache point in toolConfig.tools, and Amazon Nova caches no tools (system "
            "and messages only); Bedrock refuses it or caches nothing there. Fix: leave the "
            "tools unmarked: the cache point at the end of system covers them"
            for path, _, _ in points
            if path.startswith("toolConfig.tools[")
        ]
    if len(points) > MAX_CACHE_POINTS:
        problems.append(
            f"{len(points)} cache points ({', '.join(p for p, _, _ in points)}) exceed Bedrock's "
            f"{MAX_CACHE_POINTS} per request; Bedrock answers ValidationException. Fix: keep the "
            "last cache point of each layer (Claude looks back about 20 blocks from each) or let "
            "promptcache plan them"
        )
    shorter: str | None = None
    for path, ttl, before in points:
        if ttl is not None and ttl not in RULES.capabilities.ttls:
            problems.append(
                f"{path}: cachePoint.ttl {shown_name(ttl)} is not one Bedrock takes (5m, 1h); "
                "leave ttl out for 5 minutes"
            )
        if ttl == "1h" and one_hour is False:
            problems.append(
                f"{path}: a 1h cachePoint on a model Bedrock offers only 5 minutes for; "
                "leave ttl out"
            )
        if ttl == "1h" and shorter is not None:
            problems.append(
                f"{path}: a ttl='1h' cache point after the 5m one at {shorter}; Bedrock "
                "answers ValidationException ('a ttl=\\'1h\\' cache_control block must not come "
                "after a ttl=\\'5m\\' cache_control block'). Fix: give the earlier points 1h too, "
                "or this one 5m (longer TTLs first, in toolConfig -> system -> messages order)"
            )
        if ttl != "1h" and shorter is None:
            shorter = path
        if before in _NOT_AFTER:
            problems.append(
                f"{path}: a cache point right after a {before} block; Bedrock answers "
                "'Cache point cannot be inserted after reasoning block.' Fix: put it after the "
                "text or tool block that follows, or before the reasoning block"
            )
        if before is None:
            problems.append(
                f"{path}: a cache point with no block before it in its list caches nothing "
                "there. Fix: put it after the content it should cache"
            )
    return problems


def _type_problems(request: Mapping[str, Any]) -> list[str]:
    """A cache point's `type` is required and has one value (botocore's CachePointType)."""
    return [
        f"{path}: cachePoint.type {shown_name(kind)} is not 'default', the one type Bedrock "
        "takes; it answers ValidationException. Fix: write {'cachePoint': {'type': 'default'}}"
        for path, kind in _point_types(request)
        if kind != "default"
    ]


def _point_types(request: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Each cache point's path and `type` (None where the block holds no object)."""
    config = plain(request.get("toolConfig"))
    lists = [("toolConfig.tools", config.get("tools") if isinstance(config, Mapping) else None)]
    lists.append(("system", request.get("system")))
    for m, msg in enumerate(_list(request.get("messages"))):
        msg = plain(msg)
        if isinstance(msg, Mapping):
            lists.append((f"messages[{m}].content", msg.get("content")))
    found: list[tuple[str, Any]] = []
    for path, items in lists:
        for i, item in enumerate(map(plain, _list(items))):
            if isinstance(item, Mapping) and CACHE_POINT in item:
                inner = plain(item[CACHE_POINT])
                found.append(
                    (f"{path}[{i}]", inner.get("type") if isinstance(inner, Mapping) else None)
                )
    return found


def marker_check(
    request: Mapping[str, Any],
) -> tuple[list[tuple[str, str | None]], list[str]]:
    """`Vendor.check_markers`: the cache points present and what Bedrock would refuse."""
    model = request.get("modelId")
    resolved = resolve_model(model).base if isinstance(model, str) and model.strip() else None
    one_hour = one_hour_ttl(resolved) if resolved else None
    tools = caches_tools(resolved) if resolved else None
    present = [(path, ttl) for path, ttl, _ in cache_points(request)]
    return present, cache_point_problems(request, one_hour=one_hour, tools=tools)


def check_cache_points(
    request: Mapping[str, Any], *, one_hour: bool | None = None, tools: bool | None = None
) -> None:
    """Refuse a Converse request Bedrock would refuse, with every rule it breaks."""
    problems = cache_point_problems(request, one_hour=one_hour, tools=tools)
    if problems:
        raise InputError("; ".join(problems))


# -- request -> prompt ---------------------------------------------------------------------


def read_prompt(request: Mapping[str, Any]) -> PromptParts:
    config = plain(request.get("toolConfig")) or {}
    tools = [_tool(t, f"toolConfig.tools[{i}]") for i, t in _blocks(config.get("tools"))]
    system = [_system_text(b, f"system[{i}]") for i, b in _blocks(request.get("system"))]
    messages = [
        message(
            m.get("role"),
            [_part(b, f"messages[{i}].content[{j}]") for j, b in _blocks(m.get("content"))],
        )
        for i, m in enumerate(_objects(required_list(request, "messages") or [], "messages"))
    ]
    return tools, system, messages


def _objects(values: Any, path: str) -> list[Mapping[str, Any]]:
    check_list(path, values)
    out = [plain(v) for v in values]
    for i, v in enumerate(out):
        if not isinstance(v, Mapping):
            raise InputError(f"{path}[{i}]: expected an object, got {shown(v)}")
    return out


def _blocks(values: Any) -> list[tuple[int, Mapping[str, Any]]]:
    """The blocks of a list with their indices, cache points left out (they are markers)."""
    check_list("blocks", values)
    return [
        (i, b)
        for i, b in enumerate(plain(v) for v in values or [])
        if not (isinstance(b, Mapping) and CACHE_POINT in b)
    ]


def _tool(item: Mapping[str, Any], path: str) -> Tool:
    spec = item.get("toolSpec") if isinstance(item, Mapping) else None
    if not isinstance(spec, Mapping) or "name" not in spec:
        raise InputError(f"{path}: expected {{'toolSpec': {{'name': ...}}}}, got {shown(item)}")
    schema = spec.get("inputSchema") or {}
    return Tool(
        name=spec["name"],
        description=spec.get("description", ""),
        input_schema=schema.get("json", {}) if isinstance(schema, Mapping) else {},
    )


def _system_text(block: Any, path: str) -> str:
    if not isinstance(block, Mapping) or "text" not in block:
        raise InputError(f"{path}: expected a {{'text': ...}} block, got {shown(block)}")
    return str(block["text"])


def _part(block: Mapping[str, Any], path: str) -> Content:
    if "text" in block:
        return TextPart(text=block["text"])
    if "image" in block:
        image = block["image"]
        return ImagePart(media_type=f"image/{image.get('format', 'png')}", data=_b64(image))
    if "document" in block:
        doc = block["document"]
        return DocumentPart(
            media_type=f"application/{doc.get('format', 'pdf')}",
            data=_b64(doc),
            title=doc.get("name"),
        )
    if "toolUse" in block:
        use = block["toolUse"]
        return ToolUse(id=use["toolUseId"], name=use["name"], input=use.get("input", {}))
    if "toolResult" in block:
        return _tool_result(block["toolResult"], path)
    if "reasoningContent" in block:
        text = (block["reasoningContent"] or {}).get("reasoningText") or {}
        return ThinkingPart(thinking=text.get("text", ""), signature=text.get("signature", ""))
    raise InputError(f"{path}: unsupported content block {shown_name(next(iter(block), None))}")


def _b64(media: Mapping[str, Any]) -> str | None:
    data = (media.get("source") or {}).get("bytes")
    if isinstance(data, (bytes, bytearray)):
        return base64.b64encode(data).decode("ascii")
    return data if isinstance(data, str) else None


def _tool_result(result: Mapping[str, Any], path: str) -> ToolResult:
    inner = result.get("content") or []
    parts = tuple(
        p for p in (_part(b, path) for b in inner if "json" not in b) if isinstance(p, TextPart)
    )
    body: str | tuple[TextPart | ImagePart, ...] = (
        parts[0].text if len(parts) == 1 and len(inner) == 1 else parts
    )
    return ToolResult(
        tool_use_id=result["toolUseId"], content=body, is_error=result.get("status") == "error"
    )


# -- usage ---------------------------------------------------------------------------------


def read_usage(response: Any) -> CacheUsage:
    """A Converse response (boto3's dict), a stream's `metadata` event, or `usage` alone."""
    usage = get_field(response, "usage")
    if usage is None and get_field(response, "metadata") is not None:
        usage = get_field(response, "metadata", "usage")
    if usage is None:
        usage = response
    require_usage(usage, "inputTokens", "Converse response")
    return _usage_from(usage, model=None, endpoint="converse")


def _usage_from(usage: Any, *, model: str | None, endpoint: str) -> CacheUsage:
    uncached = get_int(usage, "inputTokens")
    read = get_int(usage, "cacheReadInputTokens")
    write = get_int(usage, "cacheWriteInputTokens")
    by_ttl: dict[str, int] = {}
    for detail in get_field(usage, "cacheDetails") or []:
        ttl, tokens = get_field(detail, "ttl"), get_int(detail, "inputTokens")
        if isinstance(ttl, str) and tokens:
            by_ttl[ttl] = by_ttl.get(ttl, 0) + tokens
    problems: list[str] = []
    if by_ttl and write is not None and sum(by_ttl.values()) != write:
        problems.append(
            f"cacheDetails ({', '.join(f'{k}={v}' for k, v in by_ttl.items())}) sum to "
            f"{sum(by_ttl.values())}, but cacheWriteInputTokens is {write}"
        )
    problems += [
        f"{name} is negative ({value})"
        for name, value in (("inputTokens", uncached), ("cacheReadInputTokens", read))
        if value is not None and value < 0
    ]
    # A model without caching omits both cache fields: unknown, not zero (the monitor counts
    # such a call as unjudged rather than as a miss).
    reported = read is not None or write is not None
    return CacheUsage(
        uncached_input=uncached or 0,
        cache_read=(read or 0) if reported else None,
        cache_write=(write or 0) if reported else None,
        output=get_int(usage, "outputTokens"),
        cache_write_by_ttl=by_ttl,
        vendor="bedrock-converse",
        endpoint=endpoint,
        model=model,
        problems=tuple(problems),
        diagnosis=None,
    )


class ConverseStream:
    """
    Reads a `converse_stream` event stream (boto3's dicts: `{"messageStart": ...}`, ...,
    `{"metadata": {"usage": ...}}`): the usage comes only in the last, `metadata` event.

    `model` is the request's `modelId`, where known: a stream's usage that may count the cache
    write twice (`suspect_double_count`) is flagged for OpenAI models on Bedrock and for a model
    it cannot tell, not for the models not seen doing it (Claude, Nova).
    """

    def __init__(self, model: str | None = None) -> None:
        self._usage: Any = None
        self.model = model

    def feed(self, event: Any) -> None:
        metadata = get_field(event, "metadata")
        if metadata is not None and get_field(metadata, "usage") is not None:
            self._usage = get_field(metadata, "usage")

    @property
    def usage(self) -> CacheUsage:
        if self._usage is None:
            raise InputError(
                "the stream ended before its metadata event, so it carried no usage; read the "
                "stream to its end (the usage comes in the last event)"
            )
        usage = _usage_from(self._usage, model=None, endpoint="converse_stream")
        suspect = suspect_double_count(usage, self.model)
        return replace(usage, problems=(*usage.problems, suspect)) if suspect else usage


# Providers whose ConverseStream usage has been seen counting the cache write into inputTokens
# too: maximhq/bifrost#6942 (2026-09-07), `openai.gpt-5.6`, inputTokens 4,995 with
# cacheWriteInputTokens 4,993 on the stream where the same call unstreamed reported 2.
_DOUBLE_COUNTING = frozenset({"openai"})


def suspect_double_count(usage: CacheUsage, model: str | None) -> str | None:
    """
    Why a ConverseStream usage may count its cache tokens twice, or None: `inputTokens` at least
    the cache read plus write (more than 0) on a stream, for a model of a provider seen doing it
    or a model that cannot be told. Flagged as a problem, such a usage measures no cached
    prefix: the monitor takes no expectation from its numbers (as for any usage whose numbers
    do not add up) and `cost` prints the problem beside its figures.
    """
    cached = (usage.cache_read or 0) + (usage.cache_write or 0)
    if cached <= 0 or usage.uncached_input < cached:
        return None
    provider = resolve_model(model).provider if model else None
    if provider is not None and provider not in _DOUBLE_COUNTING:
        return None
    whose = f"an {provider} model" if provider else "its model not known"
    return (
        f"inputTokens ({usage.uncached_input}) is at least cacheReadInputTokens + "
        f"cacheWriteInputTokens ({cached}) on a ConverseStream ({whose}): Bedrock's stream "
        "for openai.gpt-5.6 has been seen counting the cache write into inputTokens as well "
        "(maximhq/bifrost#6942), so these figures may double count; no cache expectation is "
        "taken from them"
    )


def model_name(request: Mapping[str, Any]) -> str | None:
    """The model a request's `modelId` resolves to (None: no id, or an opaque ARN)."""
    model_id = request.get("modelId")
    if not isinstance(model_id, str) or not model_id.strip():
        return None
    return resolve_model(model_id).base


VENDOR = Vendor(
    name="bedrock-converse",
    title="AWS Bedrock Converse",
    # "aws.bedrock": the GenAI conventions' gen_ai.system for Bedrock
    aliases=("bedrock", "converse", "bedrock-converse-stream", "aws.bedrock"),
    rules=RULES,
    layers=layers,
    read_prompt=read_prompt,
    read_usage=read_usage,
    misfit=misfit,
    signs=signs,
    response_signs=response_signs,
    call_paths=CALL_PATHS,
    sdk="boto3",
    check_markers=marker_check,
    same_model=same_model,
    model_capabilities=model_capabilities,
)
