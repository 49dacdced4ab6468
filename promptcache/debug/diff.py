"""
`diff(a, b, vendor)`: the first place two requests diverge in the vendor's render order, whether
that loses any cache `a` wrote, and why.

A request (the SDK keyword arguments) is cut into *units* in render order: one per tool, one per
system block, and per message a head (role and other fields) and one unit per content block.
Cache markers are stripped from the units: they say where an entry is written, they are not part
of the cached bytes, and a rolling breakpoint moves every turn. The first unit whose bytes differ
is the divergence (`divergence`); a walk inside it finds the exact field and the changed text is
classified into a cause (`causes`).

`a` wrote cache at its breakpoints: explicit markers, a top-level automatic marker (Anthropic's
`cache_control`: the last block), or automatic prefix caching (every prefix of the whole request).
`b` loses the entries at or after the divergence. Parameters outside the render order never
invalidate, except the model and the vendor's own settings (`settings`).

The vendor is read from the registry (`promptcache.vendors`): any name or alias, or None to
detect it from the requests' shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .._canonical import refusing_deeper
from .._errors import InputError
from .._plan import unlisted_minimum_note
from .._pricing import load_min_tokens
from .._tokens import DEFAULT_COUNTER, TokenCounter
from ..vendors import Vendor, detect_vendor, resolve_vendor
from ..vendors._elements import Element, model_of_request, plain_request
from ..vendors._platform import named_models, unserved_base, unserved_base_fix
from .causes import Excerpt, Found, byte_offset, common_prefix, excerpt_of, locate, show
from .divergence import Divergence, Position, first_divergence, run_bytes, tokens_lost, write_points
from .settings import SettingChange, setting_change
from .text_forms import text_blocks_aligned

__all__ = ["DiffResult", "compare_elements", "diff", "identical"]


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffResult:
    """
    The first divergence between two requests and what it costs.

    `path` and `offset` locate the first differing byte: `offset` counts UTF-8 bytes into the
    string at `path`, or into the JSON of the value at `path` when it is not a string. When `b`
    loses nothing (`invalidated` is False, `cause` is "none") the location still names the first
    difference, if any, so a person can see that it sits after the last breakpoint. `cause`
    "not_cached": `a` carries no cache marker and the vendor caches only at markers, so nothing
    was cached to keep. "below_minimum": every prefix `a` cached is under the model's minimum
    (the shipped table), so the vendor cached nothing. `tokens_lost` None: unknown, because `a`'s
    estimated prefix is too close to the minimum to tell whether it was cached (`detail` says
    so). `in_tail`: the difference lies in the final user turn (the tail).
    """

    invalidated: bool
    layer: str | None
    cause: str
    path: str | None
    offset: int | None
    before: str | None
    after: str | None
    tokens_lost: int | None
    vendor: str = ""
    detail: str = ""
    excerpt: Excerpt | None = None
    in_tail: bool = False

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
    vendor: str | Vendor | None = None,
    *,
    counter: TokenCounter | None = None,
    min_tokens: int | None = None,
    base_models: Mapping[str, str] | None = None,
) -> DiffResult:
    """
    Compare request `b` against the earlier request `a` as `vendor` caches them. `vendor` is a
    name or alias from `promptcache vendors`, or None to detect it from `a`'s shape; a request
    that does not read as that vendor's is an `InputError`, never a silent "cache kept".
    `min_tokens` overrides `a`'s model's minimum cacheable prefix from the table (as in `plan`).
    `base_models` maps a model id that names no model (a Bedrock application inference profile
    ARN) to the model it serves, whose minimum then applies (as `Monitor(base_models=...)`).
    """
    a, b = plain_request(a, "a"), plain_request(b, "b")
    # Measured only if reading fails: a check up front serialises both requests again.
    with refusing_deeper(**{"request a": a, "request b": b}):
        spec = resolve_vendor(a, vendor)
        if vendor is None:
            _check_same_format(spec, b)
        second = resolve_vendor(b, spec)
        if second is not spec:
            _raise_mixed(spec, second)
        if base_models:
            spec = named_models(spec, base_models)
        ea, eb = _elements(spec, a, "a"), _elements(spec, b, "b")
        model = str(model_of_request(a) or "")
        minimum = (
            load_min_tokens().minimum(spec.family, spec.rules_model(model))
            if min_tokens is None
            else min_tokens
        )
        result = compare_elements(
            a, b, ea, eb, spec, counter or DEFAULT_COUNTER, minimum=(model, minimum)
        )
        note = None if min_tokens is not None else _assumed_minimum(spec, model, minimum)
        return result if note is None else replace(result, detail=f"{result.detail}; {note}")


def _assumed_minimum(spec: Vendor, model: str, minimum: int) -> str | None:
    """Why `minimum`, which the verdict rests on, is the table's default and not the model's
    own (an opaque profile ARN, a model no row names, no model at all), or None."""
    base = unserved_base(spec, model) if unknown_model(spec, model) else None
    if base is not None:
        return (
            f"the model id names no model, so its minimum cacheable prefix is unknown: "
            f"{minimum:,} tokens (the table's default) was assumed; {unserved_base_fix(base)}"
        )
    if unknown_model(spec, model):
        return (
            f"the model id names no model (an application inference profile?), so its minimum "
            f"cacheable prefix is unknown: {minimum:,} tokens (the table's default) was assumed; "
            "pass base_models={id: model} (--base-model) with the model it serves, or min_tokens="
        )
    if not model:
        return (
            f"request a names no model, so its minimum cacheable prefix is unknown: {minimum:,} "
            f"tokens ({spec.name}'s default) was assumed; name the model, or pass min_tokens="
        )
    return unlisted_minimum_note(spec, spec.rules_model(model), minimum)


def unknown_model(vendor: Vendor, model: str) -> bool:
    """A model name the vendor's own naming cannot resolve (`same_model` of it and itself)."""
    same = vendor.same_model
    return bool(model) and same is not None and same(model, model) is None


def _elements(spec: Vendor, request: Mapping[str, Any], name: str) -> list[Element]:
    """A request's elements, an unreadable one refused naming which request it is."""
    try:
        return spec.checked_elements(request)
    except InputError as error:
        raise InputError(f"request {name}: {error}") from None


def _check_same_format(spec: Vendor, b: Mapping[str, Any]) -> None:
    """With no vendor named, `b` is refused as its own format, or as not `a`'s, naming both."""
    problem = spec.misfit(b)
    if problem is None:
        return
    try:
        other = detect_vendor(b)
    except InputError:
        raise InputError(
            f"request b does not read as {spec.title}, the format of request a: it has {problem}"
        ) from None
    _raise_mixed(spec, other)


def _raise_mixed(first: Vendor, second: Vendor) -> None:
    raise InputError(
        f"request a reads as {first.title} but b as {second.title}: a cache is never shared "
        "between two API formats; compare two requests sent to the same endpoint"
    )


def compare_elements(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    ea: Sequence[Element],
    eb: Sequence[Element],
    vendor: Vendor,
    counter: TokenCounter,
    *,
    every_prefix: bool = False,
    minimum: tuple[str, int] | None = None,
) -> DiffResult:
    """
    The diff of two requests already cut into elements. `every_prefix=True` treats every prefix
    of `a` as cached, whatever its markers say: the monitor uses it once the server has already
    reported a short read, when any divergence inside `a` is an explanation. `minimum`: the model
    and its minimum cacheable prefix; `a`'s prefixes under it were never cached.
    """
    found = first_divergence(ea, eb)
    if found is not None and vendor.rules.string_is_text_block:
        # Rare, so checked only where the requests part: a string there may be the same block.
        aligned = text_blocks_aligned(ea, eb, found.element)
        if aligned is not None:
            ea, eb = aligned
            found = first_divergence(ea, eb)
    refused = None if every_prefix else _marked_deferred_tool(a, vendor)
    if refused is not None:
        return _refused_marker(vendor, refused)
    points = None if every_prefix else write_points(a, ea, vendor)
    if points == [] and ea:
        return _not_cached(vendor)
    result = _compared(a, b, ea, eb, vendor, counter, found, points, every_prefix)
    if minimum is None or minimum[1] <= 0 or every_prefix or not ea:
        return result  # (an empty request has no prefix to weigh)
    # A prefix under the minimum was never cached: b lost nothing of it, and nothing was kept
    # either (two identical short requests are not "cache kept": neither reads anything).
    size = _against_minimum(ea, points, minimum[1], vendor, counter)
    if size is None:
        return result
    if size[1] == "below":
        return _below_minimum(vendor, size[0], *minimum)
    return _uncertain(result, size[0], *minimum)


def _compared(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    ea: Sequence[Element],
    eb: Sequence[Element],
    vendor: Vendor,
    counter: TokenCounter,
    found: Divergence | None,
    points: list[Position] | None,
    every_prefix: bool,
) -> DiffResult:
    table = setting_change(a, b, vendor, ea)
    if table is not None and (found is None or table.cut <= found.position):
        return _setting_result(table, points, ea, vendor, counter)
    if found is None:
        return identical(vendor.name)
    located = locate(found, ea, eb, vendor.rules.render_order)
    lost = tokens_lost(ea, points, found.position, counter)
    tail = found.element >= _tail_start(ea) and found.element >= _tail_start(eb)
    if points is None and not every_prefix and tail:
        # Automatic prefix caching reads every prefix: a change only inside the final user turn
        # leaves everything before it read. Ordinary traffic, not a lost cache.
        return _result(located, None, vendor.name, tail, automatic=True)
    return _result(located, lost, vendor.name, tail)


# The default counter is within about 15% of real tokenizers: a prefix estimated that close to the
# minimum may sit on either side of the vendor's own count.
_ESTIMATE_SHARE = 0.15
# Counting stops once the prefix is clearly over the minimum; a token rarely spans more than this
# many characters, so a run that long holds at least as many tokens as counting needs.
_CHARS_PER_TOKEN_BOUND = 16


def _against_minimum(
    elements: Sequence[Element],
    points: Sequence[Position] | None,
    minimum: int,
    vendor: Vendor,
    counter: TokenCounter,
) -> tuple[int, str] | None:
    """
    `a`'s longest cached prefix (to its last breakpoint, or the whole request when every prefix
    is cached) against the minimum: (tokens, "below") when it is under by more than the
    estimate's margin, (tokens, "near") within it, None when clearly over. Counts element by
    element and stops once clearly over, so a long request costs one element's count, not all.
    """
    margin = max(vendor.rules.granularity_tokens, int(minimum * _ESTIMATE_SHARE))
    enough = minimum + margin
    end = len(elements) if points is None else max(points)[0] + 1
    total = 0
    for index in range(end):
        text = run_bytes(elements, index, index + 1).decode("utf-8")
        cap = (enough - total) * _CHARS_PER_TOKEN_BOUND
        total += counter.count(text[:cap] if len(text) > cap else text)
        if total >= enough:
            return None
    return (total, "below") if total < minimum - margin else (total, "near")


def _below_minimum(vendor: Vendor, tokens: int, model: str, minimum: int) -> DiffResult:
    return _nothing_cached(
        vendor,
        "below_minimum",
        f"request a's cached prefix is about {tokens} tokens, under the {minimum}-token "
        f"minimum for {_model_name(model)}: {vendor.title} cached nothing, so there was "
        "nothing to keep. Lengthen the stable prefix past the minimum, or expect no caching",
    )


def _uncertain(result: DiffResult, tokens: int, model: str, minimum: int) -> DiffResult:
    """A loss that holds only if `a` was cached at all, which its size leaves open."""
    detail = (
        f"{result.detail}; uncertain: request a's cached prefix is about {tokens} tokens "
        f"(an estimate), too close to the {minimum}-token minimum for {_model_name(model)} to "
        "tell whether the vendor cached it; if it did not, nothing was lost"
    )
    return replace(result, tokens_lost=None, detail=detail)


def _model_name(model: str) -> str:
    return model or "the vendor's default (request a names no model)"


def _tail_start(elements: Sequence[Element]) -> int:
    """Where the trailing run of user turns (the new question and what came with it) starts."""
    start = len(elements)
    while start > 0 and _user_turn(elements[start - 1]):
        start -= 1
    return start


def _user_turn(element: Element) -> bool:
    value = element.value
    if element.layer != "messages":
        return False
    if not isinstance(value, Mapping):
        return True  # a bare string `input` / `contents`: the user's turn
    return value.get("role", "user") == "user" and value.get("type") in (None, "message")


def _marked_deferred_tool(a: Mapping[str, Any], vendor: Vendor) -> str | None:
    """Where `a` puts a cache marker on a tool its vendor leaves out of the prefix, if it does."""
    flag = vendor.rules.unrendered_tool_flag
    tools = a.get("tools") if flag is not None else None
    if not isinstance(tools, list):
        return None
    for i, tool in enumerate(tools):
        if isinstance(tool, Mapping) and tool.get(flag) is True and "cache_control" in tool:
            return f"tools[{i}]"
    return None


def _refused_marker(vendor: Vendor, where: str) -> DiffResult:
    return _nothing_cached(
        vendor,
        "not_cached",
        f"request a has cache_control on {where}, a tool with defer_loading: true; "
        f"{vendor.title} answers such a request 400 ('Tools with defer_loading cannot use prompt "
        "caching'), so nothing was cached. Put the marker on the last tool without defer_loading",
    )


def _not_cached(vendor: Vendor) -> DiffResult:
    return _nothing_cached(
        vendor,
        "not_cached",
        f"request a carries no cache marker and {vendor.title} caches only at markers: "
        "nothing was cached, so there was nothing to keep. Add a breakpoint at the end of "
        "the stable prefix (promptcache's adapters place them)",
    )


def _nothing_cached(vendor: Vendor, cause: str, detail: str) -> DiffResult:
    """Request a cached nothing, so b lost nothing: not an invalidation, and no location."""
    return DiffResult(
        invalidated=False,
        layer=None,
        cause=cause,
        path=None,
        offset=None,
        before=None,
        after=None,
        tokens_lost=0,
        vendor=vendor.name,
        detail=detail,
    )


def _setting_result(
    change: SettingChange,
    points: Sequence[Position] | None,
    elements: Sequence[Element],
    vendor: Vendor,
    counter: TokenCounter,
) -> DiffResult:
    lost = tokens_lost(elements, points, change.cut, counter)
    before, after = show(change.before), show(change.after)
    excerpt = excerpt_of(before, after) if before is not None and after is not None else None
    return DiffResult(
        invalidated=lost is not None,
        layer=change.layer if lost is not None else None,
        cause=change.cause if lost is not None else "none",
        path=change.path,
        offset=byte_offset(before or "", common_prefix(before or "", after or "")),
        before=before,
        after=after,
        tokens_lost=lost or 0,
        vendor=vendor.name,
        detail=_setting_detail(change, vendor) + ("" if lost else "; a wrote no cache there"),
        excerpt=excerpt,
    )


def _setting_detail(change: SettingChange, vendor: Vendor) -> str:
    if change.cause == "model_changed":
        if one_model(vendor, change.before, change.after):
            return possibly_one_model(vendor, change.before, change.after)
        return "the model changed: caches are per model, so nothing written before is read"
    if change.cause == "cache_salt_changed":
        return f"`{change.path}` changed: the engine keeps each salt's cache apart, nothing is read"
    if change.layer == "messages":
        return (
            f"`{change.path}` changed: {vendor.title} keeps the tools and system cache, "
            "drops messages"
        )
    return f"`{change.path}` changed: the vendor drops the cached prefix"


def one_model(vendor: Vendor, before: Any, after: Any) -> bool:
    """Whether two model names are, by the vendor's own naming, one model (Bedrock's ids)."""
    same = vendor.same_model
    return (
        same is not None
        and isinstance(before, str)
        and isinstance(after, str)
        and bool(same(before, after))
    )


def possibly_one_model(vendor: Vendor, before: Any, after: Any) -> str:
    # Bedrock's names of one model include cross-region profiles, which route elsewhere
    why = " (a profile may route to another region)" if vendor.name.startswith("bedrock") else ""
    return (
        f"possibly model_changed: {before} and {after} are two names of one model; "
        f"{vendor.title} does not document whether they share a cache{why}, so this counts what "
        "is lost if they do not"
    )


def _result(
    found: Found, lost: int | None, vendor: str, tail: bool = False, *, automatic: bool = False
) -> DiffResult:
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
        detail=found.detail if invalidated else f"{found.detail}, {_kept_because(automatic)}",
        excerpt=excerpt,
        in_tail=tail,
    )


def _kept_because(automatic: bool) -> str:
    if automatic:
        return "in the final user turn: everything before it is still read from the cache"
    return "after the last breakpoint"


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
