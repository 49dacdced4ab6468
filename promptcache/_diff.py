"""
`diff(a, b, vendor)`: the first place two requests diverge in the vendor's render order, whether
that loses any cache `a` wrote, and why.

A request (the SDK keyword arguments) is cut into *units* in render order: one per tool, one per
system block, and per message a head (role and other fields) and one unit per content block.
Cache markers (`cache_control`, `prompt_cache_breakpoint`) are stripped from the units: they say
where an entry is written, they are not part of the cached bytes, and a rolling breakpoint moves
every turn. The first unit whose bytes differ is the divergence; a walk inside it finds the exact
field; the changed text is classified into a cause.

`a` wrote cache at its breakpoints: explicit markers, Anthropic's top-level `cache_control`
(the last block), or automatic prefix caching (OpenAI, Gemini, engines: every prefix of the whole
request). `b` loses the entries at or after the divergence. Parameters outside the render order
(sampling, `max_tokens`, `metadata`, `stream`) never invalidate; the vendor's invalidation table
adds the parameters that do (model everywhere; `tool_choice` and `thinking` on Anthropic;
reasoning effort on OpenAI; `cache_salt`, chat template kwargs and reasoning effort on engines),
read from the body as sent, `extra_body` merged in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import orjson

from ._canonical import canonical_bytes, json_path
from ._errors import InputError
from ._tokens import DEFAULT_COUNTER, TokenCounter
from ._volatile import describe, find_volatile

__all__ = [
    "CAUSES",
    "MARKERS",
    "VENDORS",
    "DiffResult",
    "Element",
    "Excerpt",
    "Unit",
    "automatic",
    "check_vendor",
    "compare_elements",
    "diff",
    "identical",
    "plain",
    "plain_request",
    "request_elements",
    "request_units",
    "strip_markers",
    "table_change",
]

VENDORS: tuple[str, ...] = ("anthropic", "openai", "gemini", "engine")
CAUSES: tuple[str, ...] = (
    "timestamp",
    "random_id",
    "key_order",
    "tools_changed",
    "tool_order",
    "block_order",
    "model_changed",
    "whitespace",
    "content_changed",
    "tool_choice_changed",
    "thinking_changed",
    "cache_salt_changed",
    "none",
)

# Render order of the layers. Anthropic documents tools -> system -> messages. OpenAI and Gemini
# do not document theirs; we assume the same. Engines render tools through the chat template,
# which (Qwen, Hermes, Llama 3.x templates) writes them into the system turn after its text.
_ORDER: dict[str, tuple[str, ...]] = {
    "anthropic": ("tools", "system", "messages"),
    "openai": ("tools", "system", "messages"),
    "gemini": ("tools", "system", "messages"),
    "engine": ("system", "tools", "messages"),
}
MARKERS = ("cache_control", "prompt_cache_breakpoint")
_TIME_KINDS = frozenset({"iso_timestamp", "rfc2822", "date", "date_words", "clock_time", "epoch"})
# A value that changed between two requests and parses as a time is a clock reading whatever
# date it names, so the "near now" window of the volatile guard is opened wide.
_ANY_TIME = timedelta(days=365 * 200)
_CONTEXT, _SHOWN = 24, 48
_DEEP_LIMIT = 256 * 1024


@dataclass(frozen=True, slots=True)
class Unit:
    """One piece of a request in render order, markers stripped, serialised as sent."""

    layer: str
    path: str
    value: Any
    data: bytes
    marker: bool
    ttl: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Excerpt:
    """The text around a divergence: shared lead, the old and new middle, and what follows."""

    lead: str
    old: str
    new: str
    trail_old: str
    trail_new: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffResult:
    """
    The first divergence between two requests and what it costs.

    `path` and `offset` locate the first differing byte: `offset` counts UTF-8 bytes into the
    string at `path`, or into the JSON of the value at `path` when it is not a string. When `b`
    loses nothing (`invalidated` is False, `cause` is "none") the location still names the first
    difference, if any, so a person can see that it sits after the last breakpoint.
    """

    invalidated: bool
    layer: str | None
    cause: str
    path: str | None
    offset: int | None
    before: str | None
    after: str | None
    tokens_lost: int | None
    vendor: str = "anthropic"
    detail: str = ""
    excerpt: Excerpt | None = None

    def to_json(self) -> dict[str, Any]:
        """The stable machine contract: exactly these keys."""
        return {
            "invalidated": self.invalidated,
            "layer": self.layer,
            "cause": self.cause,
            "path": self.path,
            "offset": self.offset,
            "before": self.before,
            "after": self.after,
            "tokens_lost": self.tokens_lost,
        }


def diff(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    vendor: str = "anthropic",
    *,
    counter: TokenCounter | None = None,
) -> DiffResult:
    """Compare request `b` against the earlier request `a` as `vendor` caches them."""
    vendor = check_vendor(vendor)
    a, b = plain_request(a, "a"), plain_request(b, "b")
    ea, eb = request_elements(a, vendor), request_elements(b, vendor)
    return compare_elements(a, b, ea, eb, vendor, counter or DEFAULT_COUNTER)


def check_vendor(vendor: str) -> str:
    name = "openai" if vendor == "openai-responses" else vendor
    if name not in VENDORS:
        raise InputError(
            f"unknown vendor {vendor!r}; use one of {', '.join(VENDORS)} "
            "(engine: vLLM, SGLang or llama.cpp through their OpenAI-compatible API)"
        )
    return name


def compare_elements(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    ea: Sequence[Element],
    eb: Sequence[Element],
    vendor: str,
    counter: TokenCounter,
    *,
    every_prefix: bool = False,
) -> DiffResult:
    """
    The diff of two requests already cut into elements. `every_prefix=True` treats every prefix
    of `a` as cached, whatever its markers say: the monitor uses it once the server has already
    reported a short read, when any divergence inside `a` is an explanation.
    """
    found = _first_divergence(ea, eb)
    points = None if every_prefix else _breakpoints(a, ea, vendor)
    table = table_change(a, b, vendor, ea)
    if table is not None and (found is None or table.cut <= found.position):
        return _table_result(table, points, ea, vendor, counter)
    if found is None:
        return identical(vendor)
    located = _locate(found, ea, eb, vendor)
    lost = _tokens_lost(ea, points, found.position, counter)
    return _result(located, lost, vendor)


# -- cutting a request into elements and units ----------------------------------------------


@dataclass(frozen=True, slots=True)
class Element:
    """A top-level item in render order: a tool, a system block, a message (markers kept)."""

    layer: str
    path: str
    value: Any
    content_key: str | None = None


@dataclass(frozen=True, slots=True)
class Span:
    """A run of elements from one container: `messages[2:]`, `tools`, the scalar `system`."""

    layer: str
    path: str
    items: Sequence[Any]
    start: int = 0
    listed: bool = True
    content_key: str | None = None

    def path_of(self, index: int) -> str:
        return f"{self.path}[{self.start + index}]" if self.listed else self.path


def request_elements(request: Mapping[str, Any], vendor: str) -> list[Element]:
    """The request's elements in the vendor's render order."""
    return [
        Element(span.layer, span.path_of(i), plain(item), span.content_key)
        for span in request_spans(request, vendor)
        for i, item in enumerate(span.items)
    ]


def request_units(request: Mapping[str, Any], vendor: str) -> list[Unit]:
    """The request's units (message heads and content blocks split) in render order."""
    return [u for e in request_elements(request, vendor) for u in element_units(e)]


def element_units(element: Element) -> list[Unit]:
    value, key = element.value, element.content_key
    if key is not None and isinstance(value, Mapping):
        return _one_message(value, element.path, key, element.layer)
    return [_unit(element.layer, element.path, value)]


def request_spans(request: Mapping[str, Any], vendor: str) -> list[Span]:
    """The containers of a request in render order, without touching their items."""
    by_layer = _layers(request, vendor)
    return [span for layer in _ORDER[vendor] for span in by_layer.get(layer, ())]


def _layers(request: Mapping[str, Any], vendor: str) -> dict[str, list[Span]]:
    if vendor == "gemini":
        return _gemini_layers(request)
    if vendor == "anthropic":
        return {
            "tools": _list("tools", "tools", request.get("tools")),
            "system": _system("system", request.get("system")),
            "messages": _messages(request.get("messages"), "messages", "content"),
        }
    return _openai_layers(request)


def _openai_layers(request: Mapping[str, Any]) -> dict[str, list[Span]]:
    """Chat Completions (`messages`) or Responses (`instructions` + `input`)."""
    name = "input" if "input" in request or "instructions" in request else "messages"
    items = request.get(name)
    system: list[Span] = []
    if request.get("instructions") is not None:
        system = _system("instructions", request["instructions"])
    tools = _list("tools", "tools", request.get("tools"))
    if isinstance(items, str):
        return {"tools": tools, "system": system, "messages": [_scalar("messages", name, items)]}
    _check_list(name, items)
    items = items or []
    lead = _leading_system(items)
    if lead:
        system.append(Span("system", name, items[:lead], 0, True, "content"))
    rest = (
        [Span("messages", name, items[lead:], lead, True, "content")] if len(items) > lead else []
    )
    return {"tools": tools, "system": system, "messages": rest}


def _gemini_layers(request: Mapping[str, Any]) -> dict[str, list[Span]]:
    config = plain(request.get("config")) or {}
    if not isinstance(config, Mapping):
        raise InputError(f"config: expected a dict, got {type(config).__name__}")
    system = _pick(config, "system_instruction", "systemInstruction")
    if system is None:
        system = _pick(request, "system_instruction", "systemInstruction")
    tools = config.get("tools", request.get("tools"))
    where = "config.tools" if "tools" in config else "tools"
    contents = request.get("contents")
    if isinstance(contents, str):
        messages = [_scalar("messages", "contents", contents)]
    else:
        messages = _messages(contents, "contents", "parts")
    return {
        "tools": _list("tools", where, tools),
        "system": [] if system is None else [_scalar("system", _system_path(config), system)],
        "messages": messages,
    }


def _system_path(config: Mapping[str, Any]) -> str:
    if "system_instruction" in config:
        return "config.system_instruction"
    return "config.systemInstruction" if "systemInstruction" in config else "system_instruction"


def _leading_system(items: Any) -> int:
    count = 0
    for item in items or ():
        if not (isinstance(item, Mapping) and item.get("role") in ("system", "developer")):
            break
        count += 1
    return count


def _check_list(path: str, items: Any) -> None:
    if items is not None and not isinstance(items, (list, tuple)):
        raise InputError(f"{path}: expected a list, got {type(items).__name__} {items!r:.60}")


def _scalar(layer: str, path: str, value: Any) -> Span:
    return Span(layer, path, (value,), 0, False)


def _list(layer: str, path: str, items: Any) -> list[Span]:
    _check_list(path, items)
    return [Span(layer, path, items)] if items else []


def _system(path: str, system: Any) -> list[Span]:
    if system is None:
        return []
    if isinstance(system, (list, tuple)):
        return _list("system", path, system)
    return [_scalar("system", path, system)]


def _messages(messages: Any, path: str, content_key: str) -> list[Span]:
    if messages is not None and not isinstance(messages, (list, tuple)):
        raise InputError(f"{path}: expected a list of messages, got {type(messages).__name__}")
    return [Span("messages", path, messages, 0, True, content_key)] if messages else []


def _one_message(message: Mapping[str, Any], where: str, key: str, layer: str) -> list[Unit]:
    head = {k: v for k, v in message.items() if k != key}
    units = [_unit(layer, where, head)]
    content = message.get(key)
    if isinstance(content, (list, tuple)):
        units += [
            _unit(layer, json_path(json_path(where, key), j), c) for j, c in enumerate(content)
        ]
    elif key in message:
        units.append(_unit(layer, json_path(where, key), content))
    return units


def _unit(layer: str, path: str, value: Any) -> Unit:
    value, ttl, marked = strip_markers(plain(value))
    return Unit(layer, path, value, _dumps(value, path), marked, ttl)


def strip_markers(value: Any) -> tuple[Any, str | None, bool]:
    """`value` without its cache markers, the first marker's TTL, and whether it had one."""
    if not _has_marker(value):
        return value, None, False
    marker = next(value[m] for m in MARKERS if m in value)
    ttl = marker.get("ttl") if isinstance(marker, Mapping) else None
    stripped = {k: v for k, v in value.items() if k not in MARKERS}
    return stripped, ttl if isinstance(ttl, str) else None, True


def _dumps(value: Any, path: str) -> bytes:
    """The bytes as the SDK sends them: keys in insertion order, which is what the vendor hashes."""
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        canonical_bytes(value, path)  # names the offending path and the fix
        raise InputError(f"{path}: cannot serialise {type(value).__name__}") from None


def plain(value: Any) -> Any:
    """SDK objects (pydantic models) become the JSON they are sent as; everything else as is."""
    if type(value) in (dict, list, str):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, Mapping):
        return dump(mode="json", exclude_none=True, by_alias=False)
    return value


def plain_request(request: Any, name: str) -> Mapping[str, Any]:
    request = plain(request)
    if not isinstance(request, Mapping):
        raise InputError(
            f"request {name} must be a dict of SDK keyword arguments, got {type(request).__name__}"
        )
    return request


def _pick(mapping: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if mapping.get(name) is not None:
            return plain(mapping[name])
    return None


# -- the first divergence -------------------------------------------------------------------

Position = tuple[int, int]  # (element index, unit index inside the element)


@dataclass(frozen=True, slots=True)
class _Divergence:
    element: int
    unit: int
    units_a: list[Unit]
    units_b: list[Unit]

    @property
    def position(self) -> Position:
        return (self.element, self.unit)


def _first_divergence(ea: Sequence[Element], eb: Sequence[Element]) -> _Divergence | None:
    """
    Elements equal as values are skipped in C (`==`); one bulk serialisation of that run checks
    they also agree on key order. Only the first unequal element is cut into units. An element
    that differs only by where its cache markers sit is not a divergence (markers move freely).
    """
    n, start = min(len(ea), len(eb)), 0
    while True:
        k = _first_unequal(ea, eb, start, n)
        reordered = _first_reordered_element(ea, eb, start, k)
        if reordered is not None:
            return _inside(ea, eb, reordered)
        if k == n:
            if len(ea) == len(eb):
                return None
            return _Divergence(k, 0, _units_at(ea, k), _units_at(eb, k))
        found = _inside(ea, eb, k)
        if found is not None:
            return found
        start = k + 1


def _first_unequal(ea: Sequence[Element], eb: Sequence[Element], start: int, end: int) -> int:
    for i in range(start, end):
        x, y = ea[i], eb[i]
        if x.path != y.path or x.value != y.value:
            return i
    return end


def _first_reordered_element(
    ea: Sequence[Element], eb: Sequence[Element], start: int, end: int
) -> int | None:
    """The first element in [start, end) (equal as values) whose key order differs."""
    if end <= start or _run_bytes(ea, start, end) == _run_bytes(eb, start, end):
        return None
    lo, hi = start, end  # invariant: the run [start, hi) differs, [start, lo) does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _run_bytes(ea, start, mid) == _run_bytes(eb, start, mid):
            lo = mid
        else:
            hi = mid
    return lo


def _run_bytes(elements: Sequence[Element], start: int, end: int) -> bytes:
    return _dumps([e.value for e in elements[start:end]], elements[start].path)


def _units_at(elements: Sequence[Element], index: int) -> list[Unit]:
    return element_units(elements[index]) if index < len(elements) else []


def _inside(ea: Sequence[Element], eb: Sequence[Element], k: int) -> _Divergence | None:
    units_a, units_b = element_units(ea[k]), element_units(eb[k])
    if ea[k].path != eb[k].path:
        return _Divergence(k, 0, units_a, units_b)
    unit = _first_divergent_unit(units_a, units_b)
    return None if unit is None else _Divergence(k, unit, units_a, units_b)


def _first_divergent_unit(a: Sequence[Unit], b: Sequence[Unit]) -> int | None:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x.data != y.data or x.path != y.path:
            return index
    return None if len(a) == len(b) else min(len(a), len(b))


# -- breakpoints ----------------------------------------------------------------------------


def _breakpoints(
    request: Mapping[str, Any], elements: Sequence[Element], vendor: str
) -> list[Position] | None:
    """Positions after which `request` wrote a cache entry; None: every prefix (automatic)."""
    if automatic(request, vendor):
        return None
    marked = _marked(elements)
    if vendor == "anthropic" and request.get("cache_control") is not None and elements:
        last = len(elements) - 1
        marked = sorted({*marked, (last, _unit_count(elements[last]) - 1)})
    return marked


def automatic(request: Mapping[str, Any], vendor: str) -> bool:
    """
    Whether the vendor caches every prefix of `request` whatever its markers say: automatic
    prefix caching (OpenAI unless `prompt_cache_options` asks for explicit mode, Gemini implicit,
    engines). Anthropic caches only at breakpoints.
    """
    if vendor == "anthropic":
        return False
    options = request.get("prompt_cache_options")
    return not (
        vendor == "openai" and isinstance(options, Mapping) and options.get("mode") == "explicit"
    )


def _marked(elements: Sequence[Element]) -> list[Position]:
    points: list[Position] = []
    for index, element in enumerate(elements):
        value, key = element.value, element.content_key
        if key is not None and isinstance(value, Mapping):
            content = value.get(key)
            if isinstance(content, (list, tuple)):
                points += [(index, j + 1) for j, c in enumerate(content) if _has_marker(c)]
        elif _has_marker(value):
            points.append((index, 0))
    return points


def _has_marker(value: Any) -> bool:
    return isinstance(value, Mapping) and any(m in value for m in MARKERS)


def _unit_count(element: Element) -> int:
    value, key = element.value, element.content_key
    if key is None or not isinstance(value, Mapping):
        return 1
    content = value.get(key)
    if isinstance(content, (list, tuple)):
        return 1 + len(content)
    return 2 if key in value else 1


def breakpoints(request: Mapping[str, Any], vendor: str) -> list[int]:
    """Unit indices (into `request_units`) after which the request writes a cache entry."""
    vendor = check_vendor(vendor)
    request = plain_request(request, "request")
    elements = request_elements(request, vendor)
    offsets, total = [], 0
    for element in elements:
        offsets.append(total)
        total += _unit_count(element)
    points = _breakpoints(request, elements, vendor)
    if points is None:
        return list(range(total))
    return [offsets[e] + u for e, u in points]


def _tokens_lost(
    elements: Sequence[Element],
    points: Sequence[Position] | None,
    at: Position,
    counter: TokenCounter,
) -> int | None:
    """Tokens `a` wrote up to its last breakpoint that `b` can no longer read; None: none lost."""
    if points is None:  # every prefix was cached: everything from the divergence on is lost
        return _tokens(elements, at[0], len(elements), counter) if at[0] < len(elements) else None
    lost = [p for p in points if p >= at]
    if not lost:
        return None
    kept = max((p for p in points if p < at), default=None)
    first = 0 if kept is None else kept[0] + (1 if kept[0] < at[0] else 0)
    return _tokens(elements, first, max(lost)[0] + 1, counter)


def _tokens(elements: Sequence[Element], start: int, end: int, counter: TokenCounter) -> int:
    if end <= start:
        return 0
    return counter.count(_run_bytes(elements, start, end).decode("utf-8"))


# -- the vendor's invalidation table --------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _TableChange:
    cut: Position
    cause: str
    layer: str
    path: str
    before: Any
    after: Any


def table_change(
    a: Mapping[str, Any], b: Mapping[str, Any], vendor: str, elements: Sequence[Element]
) -> _TableChange | None:
    """A parameter outside the render order whose change still drops cache tiers."""
    if a.get("model") != b.get("model"):
        return _TableChange(
            cut=(0, 0),
            cause="model_changed",
            layer="model",
            path="model",
            before=a.get("model"),
            after=b.get("model"),
        )
    for name, cause in _TABLE.get(vendor, ()):
        (path_a, before), (path_b, after) = _setting(a, name), _setting(b, name)
        if before != after:
            path = path_b if after is not None else path_a
            cut = (_first_in_layer(elements, "messages") if vendor == "anthropic" else 0, 0)
            layer = "messages" if vendor == "anthropic" else "model"
            return _TableChange(
                cut=cut, cause=cause, layer=layer, path=path, before=before, after=after
            )
    return None


# Anthropic: "tool_choice ... No for messages", "thinking config or output_config.effort ... No
# for messages". OpenAI: reasoning effort is a documented `cache_miss` reason. Engines: chat
# template kwargs (enable_thinking) and reasoning_effort change what the template renders from
# the top; vLLM and SGLang hash `cache_salt` into the first block, so one salt never reads
# another's cache.
_TABLE: dict[str, tuple[tuple[str, str], ...]] = {
    "anthropic": (
        ("tool_choice", "tool_choice_changed"),
        ("thinking", "thinking_changed"),
        ("output_config.effort", "thinking_changed"),
    ),
    "openai": (("reasoning_effort", "thinking_changed"), ("reasoning.effort", "thinking_changed")),
    "engine": (
        ("cache_salt", "cache_salt_changed"),
        ("chat_template_kwargs", "thinking_changed"),
        ("reasoning_effort", "thinking_changed"),
    ),
}


def _setting(request: Mapping[str, Any], dotted: str) -> tuple[str, Any]:
    """
    Where a setting is and its value as sent: the SDKs merge `extra_body` over the named
    arguments, and fields the SDK has no parameter for (engine `cache_salt`) can only go there.
    """
    extra = plain(request.get("extra_body"))
    if isinstance(extra, Mapping) and dotted.split(".", 1)[0] in extra:
        return f"extra_body.{dotted}", _get_path(extra, dotted)
    return dotted, _get_path(request, dotted)


def _get_path(request: Mapping[str, Any], dotted: str) -> Any:
    value: Any = request
    for name in dotted.split("."):
        value = plain(value)
        if not isinstance(value, Mapping):
            return None
        value = value.get(name)
    return plain(value)


def _first_in_layer(elements: Sequence[Element], layer: str) -> int:
    return next((i for i, e in enumerate(elements) if e.layer == layer), len(elements))


def _table_result(
    change: _TableChange,
    points: Sequence[Position] | None,
    elements: Sequence[Element],
    vendor: str,
    counter: TokenCounter,
) -> DiffResult:
    lost = _tokens_lost(elements, points, change.cut, counter)
    before, after = _show(change.before), _show(change.after)
    excerpt = _excerpt(before, after) if before is not None and after is not None else None
    return DiffResult(
        invalidated=lost is not None,
        layer=change.layer if lost is not None else None,
        cause=change.cause if lost is not None else "none",
        path=change.path,
        offset=_byte_offset(before or "", _common_prefix(before or "", after or "")),
        before=before,
        after=after,
        tokens_lost=lost or 0,
        vendor=vendor,
        detail=_table_detail(change, vendor) + ("" if lost else "; a wrote no cache there"),
        excerpt=excerpt,
    )


def _table_detail(change: _TableChange, vendor: str) -> str:
    if change.cause == "model_changed":
        return "the model changed: caches are per model, so nothing written before is read"
    if change.cause == "cache_salt_changed":
        return f"`{change.path}` changed: the engine keeps each salt's cache apart, nothing is read"
    if vendor == "anthropic":
        return (
            f"`{change.path}` changed: Anthropic keeps the tools and system cache, drops messages"
        )
    return f"`{change.path}` changed: the vendor drops the cached prefix"


def _show(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else orjson.dumps(value).decode()


# -- inside the divergent unit --------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Found:
    layer: str
    path: str
    cause: str
    old: Any
    new: Any
    excerpt: Excerpt | None
    offset: int | None
    detail: str


_MISSING: Any = object()


def _locate(
    found: _Divergence, ea: Sequence[Element], eb: Sequence[Element], vendor: str
) -> _Found:
    a, b, index = found.units_a, found.units_b, found.unit
    ua = a[index] if index < len(a) else None
    ub = b[index] if index < len(b) else None
    if ua is None or ub is None or ua.path != ub.path:
        return _structural(ua, ub, _ORDER[vendor])
    layer = ua.layer
    if layer == "tools" and _same_tools_reordered(ea, eb):
        return _tool_order(ua, ub)
    if layer == "system" and _same_blocks_reordered(ea, eb, layer):
        return _block_order(ua, ub)
    if ua.value == ub.value:
        return _key_order(ua, ub)
    path, old, new = _first_leaf(ua.value, ub.value, ua.path)
    return _classify(layer, path, old, new, ea, eb)


def _structural(ua: Unit | None, ub: Unit | None, order: Sequence[str]) -> _Found:
    """One request has a unit where the other has none, or a different one (a block added)."""
    present = [u for u in (ub, ua) if u is not None]
    unit = min(present, key=lambda u: order.index(u.layer))  # the earlier layer changed
    if (
        ua is not None and ub is not None and ua.layer != ub.layer
    ):  # added or removed at a layer end
        ua, ub = (None, ub) if unit is ub else (ua, None)
    old = None if ua is None else ua.data.decode()
    new = None if ub is None else ub.data.decode()
    cause = "tools_changed" if unit.layer == "tools" else "content_changed"
    where = "removed from" if ub is None else "added to" if ua is None else "restructured in"
    excerpt = _excerpt(old or "", new or "")
    return _Found(
        layer=unit.layer,
        path=unit.path,
        cause=cause,
        old=old,
        new=new,
        excerpt=excerpt,
        offset=0 if old is None or new is None else _json_offset(old, new),
        detail=f"a block was {where} {unit.layer} at {unit.path}",
    )


def _tool_values(elements: Sequence[Element]) -> list[Any]:
    return [strip_markers(e.value)[0] for e in elements if e.layer == "tools"]


def _same_tools_reordered(ea: Sequence[Element], eb: Sequence[Element]) -> bool:
    tools_a, tools_b = _tool_values(ea), _tool_values(eb)
    if len(tools_a) != len(tools_b) or tools_a == tools_b:
        return False
    if len(orjson.dumps(tools_a)) <= _DEEP_LIMIT:
        from deepdiff import DeepDiff  # structural compare, blind to list order at every level

        return not DeepDiff(tools_a, tools_b, ignore_order=True)
    return sorted(map(canonical_bytes, tools_a)) == sorted(map(canonical_bytes, tools_b))


def _same_blocks_reordered(ea: Sequence[Element], eb: Sequence[Element], layer: str) -> bool:
    """The layer holds the same blocks (markers aside, byte for byte) in another order."""
    count = sum(e.layer == layer for e in ea)
    if count < 2 or count != sum(e.layer == layer for e in eb):
        return False  # one block cannot be reordered: don't serialise a long system prompt again
    blocks_a, blocks_b = _layer_blocks(ea, layer), _layer_blocks(eb, layer)
    return blocks_a != blocks_b and sorted(blocks_a) == sorted(blocks_b)


def _layer_blocks(elements: Sequence[Element], layer: str) -> list[bytes]:
    return [b"".join(u.data for u in element_units(e)) for e in elements if e.layer == layer]


def _block_order(ua: Unit, ub: Unit) -> _Found:
    old, new = _block_text(ua.value), _block_text(ub.value)
    return _Found(
        layer=ua.layer,
        path=ua.path,
        cause="block_order",
        old=old,
        new=new,
        excerpt=_whole(old, new),
        offset=_unit_offset(ua, ub),
        detail=(
            f"same {ua.layer} blocks in a different order: {ua.path} was {_clip(old)!r}, "
            f"now {_clip(new)!r}"
        ),
    )


def _block_text(block: Any) -> str:
    if isinstance(block, Mapping) and isinstance(block.get("text"), str):
        return str(block["text"])
    return block if isinstance(block, str) else orjson.dumps(block).decode()


def _unit_offset(ua: Unit, ub: Unit) -> int:
    """Bytes into the string at the unit's path, or into its JSON when it is not a string."""
    if isinstance(ua.value, str) and isinstance(ub.value, str):
        return _json_offset(ua.value, ub.value)
    return _json_offset(ua.data.decode(), ub.data.decode())


def _tool_order(ua: Unit, ub: Unit) -> _Found:
    old, new = _tool_name(ua.value), _tool_name(ub.value)
    return _Found(
        layer="tools",
        path=ua.path,
        cause="tool_order",
        old=old,
        new=new,
        excerpt=_whole(old, new),
        offset=_json_offset(ua.data.decode(), ub.data.decode()),
        detail=f"same tools in a different order: {ua.path} was {old!r}, now {new!r}",
    )


def _tool_name(tool: Any) -> str:
    if isinstance(tool, Mapping):
        name = tool.get("name") or _get_path(tool, "function.name")
        if isinstance(name, str):
            return name
        decls = tool.get("function_declarations") or tool.get("functionDeclarations")
        if isinstance(decls, list):
            return ",".join(str(d.get("name")) for d in decls if isinstance(d, Mapping))
    return orjson.dumps(tool).decode()[:_SHOWN]


def _key_order(ua: Unit, ub: Unit) -> _Found:
    path, ka, kb = _first_reordered(ua.value, ub.value, ua.path)
    detail = f"same content, keys of {path} serialised in a different order"
    offset = _json_offset(ua.data.decode(), ub.data.decode())
    return _reordered_keys(ua.layer, path, ka, kb, offset, detail)


def _reordered_keys(
    layer: str, path: str, ka: list[str], kb: list[str], offset: int, detail: str
) -> _Found:
    old, new = ", ".join(ka), ", ".join(kb)
    return _Found(
        layer=layer,
        path=path,
        cause="key_order",
        old=old,
        new=new,
        excerpt=_whole(old, new),
        offset=offset,
        detail=detail,
    )


def _serialised_json(layer: str, path: str, old: str, new: str) -> _Found | None:
    """
    JSON carried as a string (OpenAI tool-call arguments, tool results) serialised again: the
    same value with its keys in another order (`json.dumps` without `sort_keys`) is key_order,
    with other spacing only (other `separators`) is whitespace.
    """
    value_old, value_new = _json_container(old), _json_container(new)
    if value_old is None or value_old != value_new:
        return None
    where, ka, kb = _first_reordered(value_old, value_new, path)
    offset = _byte_offset(old, _common_prefix(old, new))
    if ka:
        keys = "its keys" if where == path else f"the keys of {where}"
        detail = f"same JSON in the string at {path}, {keys} in a different order"
        return _reordered_keys(layer, path, ka, kb, offset, detail)
    if _SPACE.sub("", old) == _SPACE.sub("", new):
        return _Found(
            layer=layer,
            path=path,
            cause="whitespace",
            old=old,
            new=new,
            excerpt=_excerpt(old, new),
            offset=offset,
            detail=f"same JSON in the string at {path}, serialised with other spacing",
        )
    return None


def _json_container(text: str) -> Any:
    """The object or array `text` holds as JSON, or None."""
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, (dict, list)) else None


def _first_reordered(a: Any, b: Any, path: str) -> tuple[str, list[str], list[str]]:
    """The first object whose keys come in a different order (a and b are equal as values)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if list(a) != list(b):
            return path, list(a), list(b)
        for key in a:
            found = _first_reordered(a[key], b[key], json_path(path, key))
            if found[1]:
                return found
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _first_reordered(x, y, json_path(path, i))
            if found[1]:
                return found
    return path, [], []


def _first_leaf(a: Any, b: Any, path: str) -> tuple[str, Any, Any]:
    """The first differing field, walking in the order the request serialises (a's key order)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in a:
            if key not in b:
                return json_path(path, key), a[key], _MISSING
            if a[key] != b[key]:
                return _first_leaf(a[key], b[key], json_path(path, key))
        added = next(k for k in b if k not in a)
        return json_path(path, added), _MISSING, b[added]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return _first_leaf(x, y, json_path(path, i))
        i = min(len(a), len(b))
        return (
            json_path(path, i),
            a[i] if i < len(a) else _MISSING,
            b[i] if i < len(b) else _MISSING,
        )
    return path, a, b


def _classify(
    layer: str, path: str, old: Any, new: Any, ea: Sequence[Element], eb: Sequence[Element]
) -> _Found:
    if isinstance(old, str) and isinstance(new, str):
        return _serialised_json(layer, path, old, new) or _classify_text(layer, path, old, new)
    shown_old = None if old is _MISSING else _show(old) or "null"
    shown_new = None if new is _MISSING else _show(new) or "null"
    cause = "tools_changed" if layer == "tools" else "content_changed"
    detail = _tools_detail(ea, eb) if layer == "tools" else _what_changed(path, old, new)
    return _Found(
        layer=layer,
        path=path,
        cause=cause,
        old=shown_old,
        new=shown_new,
        excerpt=_excerpt(shown_old or "", shown_new or ""),
        offset=0 if shown_old is None or shown_new is None else _json_offset(shown_old, shown_new),
        detail=detail,
    )


def _what_changed(path: str, old: Any, new: Any) -> str:
    if old is _MISSING:
        return f"{path} was added"
    if new is _MISSING:
        return f"{path} was removed"
    return f"{path} changed"


def _classify_text(layer: str, path: str, old: str, new: str) -> _Found:
    start = _common_prefix(old, new)
    end_old, end_new = _divergent_ends(old, new, start)
    volatile = _volatile_cause(old, new, start, end_old, end_new)
    if volatile is not None:
        cause, label = volatile
        detail = f"{describe(label)} changed between the requests"
    elif _same_but_spacing(old, new, start, end_old, end_new):
        cause, detail = "whitespace", f"only whitespace differs at {path}"
    else:
        cause = "tools_changed" if layer == "tools" else "content_changed"
        detail = f"text of {path} changed"
    excerpt = _text_excerpt(old, new, start, end_old, end_new)
    return _Found(
        layer=layer,
        path=path,
        cause=cause,
        old=old,
        new=new,
        excerpt=excerpt,
        offset=_byte_offset(old, start),
        detail=detail,
    )


def _volatile_cause(
    old: str, new: str, start: int, end_old: int, end_new: int
) -> tuple[str, str] | None:
    """A time or an id in the changed span of both texts: the classic per-request value."""
    found_old = _volatile_near(old, start, end_old)
    found_new = _volatile_near(new, start, end_new)
    for kind, label in found_old:
        if any(kind_new in _kind_group(kind) for kind_new, _ in found_new):
            return ("timestamp" if kind in _TIME_KINDS else "random_id"), label
    if found_new and not found_old:  # a value appeared (a timestamp added to the prompt)
        kind, label = found_new[0]
        return ("timestamp" if kind in _TIME_KINDS else "random_id"), label
    if _clock_at(old, start, end_old) and _clock_at(new, start, end_new):
        return "timestamp", "clock time"
    return None


# A bare wall-clock reading, `14:03` or `9:05:59`: too common in prose for the volatile scan,
# which wants seconds or AM/PM, but a time when it is the token that changed on both sides.
_CLOCK = re.compile(r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?")
_CLOCK_LEN = len("23:59:59")


def _clock_at(text: str, start: int, end: int) -> bool:
    """The changed span [start, end) lies inside a word that is a valid clock time."""
    lo, hi, reach = start, end, _CLOCK_LEN + 1  # a word longer than a clock is not one
    while lo > max(0, start - reach) and _in_word(text[lo - 1]):
        lo -= 1
    while hi < min(len(text), end + reach) and _in_word(text[hi]):
        hi += 1
    return hi - lo <= _CLOCK_LEN and _CLOCK.fullmatch(text, lo, hi) is not None


def _in_word(char: str) -> bool:
    return char.isalnum() or char in ":_"


def _kind_group(kind: str) -> frozenset[str]:
    return _TIME_KINDS if kind in _TIME_KINDS else frozenset({"uuid", "hex_nonce", "base64_nonce"})


def _volatile_near(text: str, start: int, end: int) -> list[tuple[str, str]]:
    """Volatile matches that overlap [start, end) (or touch it, for an insertion)."""
    lo, hi = max(0, start - 64), min(len(text), end + 64)
    window = text[lo:hi]
    return [
        (m.kind, m.label)
        for m in find_volatile(window, window=_ANY_TIME)
        if lo + m.offset <= end and lo + m.offset + len(m.value) >= start
    ]


_SPACE = re.compile(r"\s+")


def _same_but_spacing(old: str, new: str, start: int, end_old: int, end_new: int) -> bool:
    changed_old, changed_new = old[start:end_old], new[start:end_new]
    if (changed_old or changed_new) and not changed_old.strip() and not changed_new.strip():
        return True
    if len(old) + len(new) > 2 * _DEEP_LIMIT:
        return False
    return _SPACE.sub(" ", old).strip() == _SPACE.sub(" ", new).strip()


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix; compares 4 KiB slices in C before going char by char."""
    limit, i, step = min(len(a), len(b)), 0, 4096
    while i < limit and a[i : i + step] == b[i : i + step]:
        i += step
    i = min(i, limit)
    while i < limit and a[i] == b[i]:
        i += 1
    return i


def _divergent_ends(a: str, b: str, start: int) -> tuple[int, int]:
    """Where the changed span ends in each text (the common suffix not overlapping the prefix)."""
    room = min(len(a), len(b)) - start
    k, step = 0, 4096
    while (
        k + step <= room and a[len(a) - k - step : len(a) - k] == b[len(b) - k - step : len(b) - k]
    ):
        k += step
    while k < room and a[len(a) - 1 - k] == b[len(b) - 1 - k]:
        k += 1
    return len(a) - k, len(b) - k


def _byte_offset(text: str, index: int) -> int:
    return index if text.isascii() else len(text[:index].encode("utf-8"))


def _json_offset(old: str, new: str) -> int:
    return _byte_offset(old, _common_prefix(old, new))


def _excerpt(old: str, new: str) -> Excerpt:
    start = _common_prefix(old, new)
    end_old, end_new = _divergent_ends(old, new, start)
    return _text_excerpt(old, new, start, end_old, end_new)


def _whole(old: str, new: str) -> Excerpt:
    return Excerpt(lead="", old=_clip(old), new=_clip(new), trail_old="", trail_new="")


def _text_excerpt(old: str, new: str, start: int, end_old: int, end_new: int) -> Excerpt:
    lead = old[max(0, start - _CONTEXT) : start]
    if start > _CONTEXT:
        lead = "…" + lead
    return Excerpt(
        lead=lead,
        old=_clip(old[start:end_old]),
        new=_clip(new[start:end_new]),
        trail_old=_trail(old, end_old),
        trail_new=_trail(new, end_new),
    )


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _trail(text: str, end: int) -> str:
    tail = text[end : end + _CONTEXT // 2]
    return tail + "…" if end + _CONTEXT // 2 < len(text) else tail


def _tools_detail(ea: Sequence[Element], eb: Sequence[Element]) -> str:
    """Which tools were added, removed or edited (deepdiff on the tool list, keyed by name)."""
    tools_a = {_tool_name(v): v for v in _tool_values(ea)}
    tools_b = {_tool_name(v): v for v in _tool_values(eb)}
    added = sorted(set(tools_b) - set(tools_a))
    removed = sorted(set(tools_a) - set(tools_b))
    parts = [f"added {', '.join(added)}"] if added else []
    parts += [f"removed {', '.join(removed)}"] if removed else []
    edited = _edited_tools(tools_a, tools_b)
    parts += [f"edited {', '.join(edited)}"] if edited else []
    return "tools changed: " + ("; ".join(parts) or "definitions differ")


def _edited_tools(tools_a: Mapping[str, Any], tools_b: Mapping[str, Any]) -> list[str]:
    common = [name for name in tools_a if name in tools_b]
    size = sum(len(orjson.dumps(tools_a[n])) for n in common)
    if size > _DEEP_LIMIT:
        return [n for n in common if tools_a[n] != tools_b[n]]
    from deepdiff import DeepDiff

    return [n for n in common if DeepDiff(tools_a[n], tools_b[n], ignore_order=False)]


# -- results --------------------------------------------------------------------------------


def _result(found: _Found, lost: int | None, vendor: str) -> DiffResult:
    excerpt = found.excerpt
    before = None if found.old is None else _joined(excerpt, old=True)
    after = None if found.new is None else _joined(excerpt, old=False)
    invalidated = lost is not None
    return DiffResult(
        invalidated=invalidated,
        layer=found.layer,
        cause=found.cause if invalidated else "none",
        path=found.path,
        offset=found.offset,
        before=before,
        after=after,
        tokens_lost=lost or 0,
        vendor=vendor,
        detail=found.detail if invalidated else f"{found.detail}, after the last breakpoint",
        excerpt=excerpt,
    )


def _joined(excerpt: Excerpt | None, *, old: bool) -> str | None:
    if excerpt is None:
        return None
    if old:
        return excerpt.lead + excerpt.old + excerpt.trail_old
    return excerpt.lead + excerpt.new + excerpt.trail_new


def identical(vendor: str) -> DiffResult:
    """The result for two requests that do not differ in anything the cache sees."""
    return DiffResult(
        invalidated=False,
        layer=None,
        cause="none",
        path=None,
        offset=None,
        before=None,
        after=None,
        tokens_lost=0,
        vendor=vendor,
        detail="no difference in anything the cache sees",
    )
