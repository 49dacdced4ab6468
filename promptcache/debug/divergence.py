"""
Where two requests, cut into elements in a vendor's render order, first differ; where the first
request wrote cache entries; and how many of its cached tokens the second can no longer read.
Vendor-neutral: the vendor's rules come in as data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._tokens import TokenCounter
from ..vendors import Vendor
from ..vendors._elements import (
    Element,
    Unit,
    dumps,
    element_units,
    get_path,
    has_marker,
    plain_request,
    same_place,
    unit_count,
)

__all__ = [
    "Divergence",
    "Position",
    "automatic",
    "breakpoints",
    "first_divergence",
    "run_bytes",
    "tokens_between",
    "tokens_lost",
    "write_points",
]

Position = tuple[int, int]  # (element index, unit index inside the element)


@dataclass(frozen=True, slots=True)
class Divergence:
    element: int
    unit: int
    units_a: list[Unit]
    units_b: list[Unit]

    @property
    def position(self) -> Position:
        return (self.element, self.unit)


def first_divergence(ea: Sequence[Element], eb: Sequence[Element]) -> Divergence | None:
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
            return Divergence(k, 0, _units_at(ea, k), _units_at(eb, k))
        found = _inside(ea, eb, k)
        if found is not None:
            return found
        start = k + 1


def _first_unequal(ea: Sequence[Element], eb: Sequence[Element], start: int, end: int) -> int:
    for i in range(start, end):
        x, y = ea[i], eb[i]
        if x.value != y.value or not same_place(x.path, y.path):
            return i
    return end


def _first_reordered_element(
    ea: Sequence[Element], eb: Sequence[Element], start: int, end: int
) -> int | None:
    """The first element in [start, end) (equal as values) whose key order differs."""
    if end <= start or run_bytes(ea, start, end) == run_bytes(eb, start, end):
        return None
    lo, hi = start, end  # invariant: the run [start, hi) differs, [start, lo) does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if run_bytes(ea, start, mid) == run_bytes(eb, start, mid):
            lo = mid
        else:
            hi = mid
    return lo


def run_bytes(elements: Sequence[Element], start: int, end: int) -> bytes:
    return dumps([e.value for e in elements[start:end]], elements[start].path)


def _units_at(elements: Sequence[Element], index: int) -> list[Unit]:
    return element_units(elements[index]) if index < len(elements) else []


def _inside(ea: Sequence[Element], eb: Sequence[Element], k: int) -> Divergence | None:
    units_a, units_b = element_units(ea[k]), element_units(eb[k])
    if not same_place(ea[k].path, eb[k].path):
        return Divergence(k, 0, units_a, units_b)
    unit = _first_divergent_unit(units_a, units_b)
    return None if unit is None else Divergence(k, unit, units_a, units_b)


def _first_divergent_unit(a: Sequence[Unit], b: Sequence[Unit]) -> int | None:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x.data != y.data or not same_place(x.path, y.path):
            return index
    return None if len(a) == len(b) else min(len(a), len(b))


# -- breakpoints ----------------------------------------------------------------------------


def write_points(
    request: Mapping[str, Any], elements: Sequence[Element], vendor: Vendor
) -> list[Position] | None:
    """Positions after which `request` wrote a cache entry; None: every prefix (automatic)."""
    if automatic(request, vendor):
        return None
    marked = _marked(elements)
    top = vendor.rules.top_level_marker
    if top is not None and request.get(top) is not None and elements:
        last = len(elements) - 1
        marked = sorted({*marked, (last, unit_count(elements[last]) - 1)})
    return marked


def automatic(request: Mapping[str, Any], vendor: Vendor) -> bool:
    """
    Whether the vendor caches every prefix of `request` whatever its markers say: automatic
    prefix caching (OpenAI unless `prompt_cache_options` asks for explicit mode, Gemini implicit,
    engines). Explicit vendors (Anthropic) cache only at breakpoints.
    """
    rules = vendor.rules
    if rules.caches_only_at_markers:
        return False
    switch = rules.explicit_switch
    return switch is None or get_path(request, switch[0]) != switch[1]


def _marked(elements: Sequence[Element]) -> list[Position]:
    points: list[Position] = []
    for index, element in enumerate(elements):
        value, key = element.value, element.content_key
        if key is not None and isinstance(value, Mapping):
            content = value.get(key)
            if isinstance(content, (list, tuple)):
                points += [(index, j + 1) for j, c in enumerate(content) if has_marker(c)]
        elif has_marker(value):
            points.append((index, 0))
    return points


def breakpoints(request: Mapping[str, Any], vendor: Vendor) -> list[int]:
    """Unit indices (into `vendor.units(request)`) after which the request writes an entry."""
    request = plain_request(request, "request")
    elements = vendor.elements(request)
    offsets, total = [], 0
    for element in elements:
        offsets.append(total)
        total += unit_count(element)
    points = write_points(request, elements, vendor)
    if points is None:
        return list(range(total))
    return [offsets[e] + u for e, u in points]


def tokens_lost(
    elements: Sequence[Element],
    points: Sequence[Position] | None,
    at: Position,
    counter: TokenCounter,
) -> int | None:
    """Tokens `a` wrote up to its last breakpoint that `b` can no longer read; None: none lost."""
    if points is None:  # every prefix was cached: everything from the divergence on is lost
        return (
            tokens_between(elements, at[0], len(elements), counter)
            if at[0] < len(elements)
            else None
        )
    lost = [p for p in points if p >= at]
    if not lost:
        return None
    kept = max((p for p in points if p < at), default=None)
    first = 0 if kept is None else kept[0] + (1 if kept[0] < at[0] else 0)
    return tokens_between(elements, first, max(lost)[0] + 1, counter)


def tokens_between(elements: Sequence[Element], start: int, end: int, counter: TokenCounter) -> int:
    """Tokens of elements [start, end), serialised as sent."""
    if end <= start:
        return 0
    return counter.count(run_bytes(elements, start, end).decode("utf-8"))
