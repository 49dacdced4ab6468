"""
The breakpoint planner: where to put cache markers, from the vendor's capabilities alone.

A breakpoint goes at the end of the shared prefix: the last block the next request repeats (the
last block in front of the tail). With slots to spare, in this order of priority:

1. the end of the prefix;
2. a lookback breakpoint when more content blocks than the vendor looks back over (Anthropic:
   20) lie between the previous request's breakpoint and this one, so that this request can still
   find the previous cache entry: at the previous request's prefix end when `previous=` is given,
   else a lagging breakpoint 15 content blocks back from the end;
3. the layer boundaries (end of docs, of system, of tools), so that a change to a later layer
   still reads the earlier ones from the cache.

A breakpoint whose prefix is below the model's minimum is skipped (the vendor would not cache it
and the slot would be wasted); the plan's notes say why, in words `promptcache inspect` prints.

    p = plan(prompt, vendor="anthropic", model="claude-sonnet-4-6")
    p.breakpoints  -> (Breakpoint(block_index=7, path='history[3]', ttl='5m', reason=...), ...)
    p.notes        -> ("no breakpoint at tools[1]: only 312 tokens before it, ...",)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson

from ._errors import InputError
from ._prompt import Block, Layer, Prompt, Rendered
from ._tokens import TokenCounter

if TYPE_CHECKING:
    from .adapters._base import Capabilities

__all__ = ["Breakpoint", "Plan", "plan"]

# Anthropic's guidance: with a 20-block lookback, add an intermediate breakpoint every ~15 blocks.
_LAG_FRACTION = 0.75


@dataclass(frozen=True, slots=True, kw_only=True)
class Breakpoint:
    """A cache marker on one rendered block (`block_index` indexes `Rendered.blocks`)."""

    block_index: int
    path: str
    ttl: str | None
    reason: str
    tokens: int  # prefix tokens up to and including this block


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """Where the markers go for one request, and why (or why not)."""

    vendor: str
    model: str
    breakpoints: tuple[Breakpoint, ...]
    notes: tuple[str, ...]
    prefix_tokens: int
    min_tokens: int
    budget: int
    automatic: bool = False

    def at(self, block_index: int) -> Breakpoint | None:
        """The breakpoint on a block, if there is one."""
        return next((b for b in self.breakpoints if b.block_index == block_index), None)


def plan(
    prompt: Prompt | Rendered,
    *,
    vendor: str,
    model: str,
    ttl: str | None = None,
    layer_ttls: Mapping[Layer, str] | None = None,
    reserved: int = 0,
    automatic: bool | None = None,
    previous: Prompt | Rendered | None = None,
    counter: TokenCounter | None = None,
    min_tokens: int | None = None,
) -> Plan:
    """
    Plan the breakpoints of one request for `vendor` (an adapter name) and `model`.

    `ttl` applies to every breakpoint unless `layer_ttls` names the block's layer. `reserved`
    counts markers the caller sets themselves (they use up the same slots). `automatic` says the
    vendor's own automatic breakpoint is on (Anthropic's top-level `cache_control`, OpenAI's
    implicit mode); it takes one slot; None means the vendor's default. `previous` is the prompt
    of the request before this one, which lets the lookback rule place its breakpoint exactly.
    `min_tokens` overrides the model's minimum from the table.
    """
    from .adapters import get_adapter

    adapter = get_adapter(vendor)
    caps = adapter.capabilities_for(model)
    rendered = prompt.render(counter) if isinstance(prompt, Prompt) else prompt
    minimum = adapter.min_cacheable_tokens(model) if min_tokens is None else min_tokens
    use_auto = caps.automatic_mode if automatic is None else automatic
    builder = _Planner(caps, rendered, model, minimum, use_auto)
    if reserved < 0:
        raise InputError(f"reserved must be >= 0 (markers the caller set), got {reserved}")
    builder.budget = (
        caps.max_breakpoints - reserved - (1 if use_auto and caps.max_breakpoints else 0)
    )
    builder.place(previous.render(counter) if isinstance(previous, Prompt) else previous)
    breakpoints = _with_ttls(builder.chosen, caps, ttl, layer_ttls, rendered)
    return Plan(
        vendor=vendor,
        model=model,
        breakpoints=breakpoints,
        notes=tuple(builder.notes),
        prefix_tokens=builder.prefix_tokens,
        min_tokens=minimum,
        budget=max(builder.budget, 0),
        automatic=use_auto,
    )


class _Planner:
    """The mutable working state of one `plan` call."""

    def __init__(
        self, caps: Capabilities, rendered: Rendered, model: str, minimum: int, automatic: bool
    ) -> None:
        self.caps = caps
        self.blocks = rendered.blocks
        self.model = model
        self.minimum = minimum
        self.automatic = automatic
        self.budget = 0
        self.notes: list[str] = []
        self.chosen: list[tuple[int, str]] = []
        self.cumulative = _cumulative(self.blocks)
        self.prefix_end = _last_prefix_index(self.blocks)
        self.prefix_tokens = self.cumulative[self.prefix_end] if self.prefix_end >= 0 else 0

    def place(self, previous: Rendered | None) -> None:
        if self.prefix_end < 0:
            self.notes.append("no breakpoint: the prompt has no stable prefix (everything is tail)")
            return
        if self.prefix_tokens < self.minimum:
            self.notes.append(
                f"no breakpoint: prefix of {self.prefix_tokens} tokens is below {self.model}'s "
                f"minimum of {self.minimum}"
            )
            return
        if self.caps.marking == "automatic" or self.caps.max_breakpoints == 0:
            self.notes.append(self._automatic_note())
            return
        if self.budget <= 0:
            self.notes.append(
                f"no breakpoint: all {self.caps.max_breakpoints} cache slots are already used "
                f"by the caller's markers{' and the automatic breakpoint' if self.automatic else ''}"
            )
            return
        self._add(self.prefix_end, "end of the shared prefix")
        self._add_lookback(previous)
        for layer in (Layer.DOCS, Layer.SYSTEM, Layer.TOOLS):
            self._add_layer_end(layer)

    def _automatic_note(self) -> str:
        step = self.caps.increment_tokens
        cached = (self.prefix_tokens // step) * step if step else self.prefix_tokens
        note = (
            f"no explicit breakpoint: {self.caps.vendor} caches {self.model}'s prompts "
            f"automatically; keep the {self.prefix_tokens}-token stable prefix first and unchanged"
        )
        if step:
            note += f" (cached in {step}-token steps: up to {cached} tokens)"
        return note

    def _add(self, index: int, reason: str) -> None:
        if len(self.chosen) >= self.budget:
            self.notes.append(
                f"no breakpoint at {self.blocks[index].path} ({reason}): the {self.budget} "
                f"free slot(s) are used"
            )
            return
        target = self._markable_at_or_before(index)
        if target is None:
            self.notes.append(
                f"no breakpoint for {reason}: no block at or before "
                f"{self.blocks[index].path} can carry a marker"
            )
            return
        if target != index:
            reason += f"; moved from {self.blocks[index].path}, which cannot carry a marker"
        if self.cumulative[target] < self.minimum:
            self.notes.append(
                f"no breakpoint at {self.blocks[target].path} ({reason.split(';')[0]}): only "
                f"{self.cumulative[target]} tokens before it, below {self.model}'s minimum of "
                f"{self.minimum}"
            )
            return
        if all(target != chosen for chosen, _ in self.chosen):
            self.chosen.append((target, reason))

    def _add_lookback(self, previous: Rendered | None) -> None:
        window = self.caps.lookback_blocks
        if window is None:
            return
        anchor = self._previous_end(previous) if previous is not None else None
        if anchor is not None:
            gap = self._parts_between(anchor, self.prefix_end)
            if gap > window:
                self._add(
                    anchor,
                    f"lookback: {gap} content blocks since the previous request's "
                    f"breakpoint exceed the {window}-block lookback",
                )
            return
        lag = self._lagging_index(int(window * _LAG_FRACTION))
        if lag is not None and self._parts_between(self._static_end(), self.prefix_end) > window:
            self._add(
                lag,
                f"lookback: more than {window} content blocks of history; a lagging "
                f"breakpoint keeps the previous entry within reach",
            )

    def _add_layer_end(self, layer: Layer) -> None:
        indices = [i for i, b in enumerate(self.blocks[: self.prefix_end + 1]) if b.layer == layer]
        if (
            indices
            and indices[-1] != self.prefix_end
            and str(layer) not in self.caps.unmarkable_layers
        ):
            self._add(indices[-1], f"end of the {layer} layer")

    def _previous_end(self, previous: Rendered) -> int | None:
        prefix = previous.prefix
        if not prefix:
            return None
        wanted = prefix[-1].hash
        return next((i for i, b in enumerate(self.blocks) if b.hash == wanted), None)

    def _parts_between(self, start: int, end: int) -> int:
        """Content blocks after `start` up to and including `end`."""
        return sum(b.parts for b in self.blocks[start + 1 : end + 1])

    def _static_end(self) -> int:
        """The last block in front of the history (-1 when there is none)."""
        ends = [i for i, b in enumerate(self.blocks) if b.layer < Layer.HISTORY]
        return ends[-1] if ends else -1

    def _lagging_index(self, spacing: int) -> int | None:
        parts = 0
        for index in range(self.prefix_end, -1, -1):
            parts += self.blocks[index].parts
            if parts > spacing:
                return index
        return None

    def _markable_at_or_before(self, index: int) -> int | None:
        for i in range(index, -1, -1):
            if _markable(self.blocks[i], self.caps):
                return i
        return None


def _markable(block: Block, caps: Capabilities) -> bool:
    if str(block.layer) in caps.unmarkable_layers:
        return False
    if block.layer < Layer.HISTORY:
        return True
    message = orjson.loads(block.data)
    role = message.get("role", "")
    return any(
        part.get("type") not in caps.unmarkable
        and f"{role}:{part.get('type')}" not in caps.unmarkable
        for part in message.get("content", [])
    )


def _cumulative(blocks: Sequence[Block]) -> list[int]:
    out, total = [], 0
    for block in blocks:
        total += block.tokens
        out.append(total)
    return out


def _last_prefix_index(blocks: Sequence[Block]) -> int:
    indices = [i for i, b in enumerate(blocks) if b.layer < Layer.TAIL]
    return indices[-1] if indices else -1


def _with_ttls(
    chosen: list[tuple[int, str]],
    caps: Capabilities,
    ttl: str | None,
    layer_ttls: Mapping[Layer, str] | None,
    rendered: Rendered,
) -> tuple[Breakpoint, ...]:
    cumulative = _cumulative(rendered.blocks)
    out = []
    for index, reason in sorted(chosen):
        block = rendered.blocks[index]
        chosen_ttl = (layer_ttls or {}).get(block.layer, ttl) or caps.default_ttl
        if chosen_ttl is not None and caps.ttls and chosen_ttl not in caps.ttls:
            raise InputError(
                f"{caps.vendor} does not offer a cache TTL of {chosen_ttl!r}; choose one of "
                f"{list(caps.ttls)}"
            )
        out.append(
            Breakpoint(
                block_index=index,
                path=block.path,
                ttl=chosen_ttl,
                reason=reason,
                tokens=cumulative[index],
            )
        )
    check_ttl_order([(b.path, b.ttl) for b in out], caps)
    return tuple(out)


def check_ttl_order(markers: Sequence[tuple[str, str | None]], caps: Capabilities) -> None:
    """
    Raise if a longer TTL follows a shorter one where the vendor forbids it.

    `markers` are (where, ttl) in request order; a None TTL is the vendor's default.
    """
    if caps.ttl_order != "non-increasing":
        return
    rank = {ttl: i for i, ttl in enumerate(caps.ttls)}  # ttls are listed longest first
    shortest: tuple[str, str] | None = None
    for where, ttl in markers:
        ttl = ttl or caps.default_ttl or ""
        if shortest is not None and rank.get(ttl, 0) < rank.get(shortest[1], 0):
            raise InputError(
                f"cache marker at {where} has ttl {ttl!r} after a {shortest[1]!r} marker at "
                f"{shortest[0]}; {caps.vendor} rejects a longer TTL after a shorter one (400). "
                f"Fix: give the earlier layers the longer TTL, e.g. layer_ttls={{Layer.TOOLS: "
                f"{ttl!r}, Layer.SYSTEM: {ttl!r}}}, or use one TTL throughout"
            )
        if shortest is None or rank.get(ttl, 0) > rank.get(shortest[1], 0):
            shortest = (where, ttl)
