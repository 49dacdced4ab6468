"""
The breakpoint planner: where to put cache markers, from the vendor's capabilities alone.

A breakpoint goes at the end of the shared prefix: the last block the next request repeats (the
last block in front of the tail). With slots to spare, in this order of priority:

1. the end of the prefix;
2. a lookback breakpoint when more content blocks than the vendor looks back over (Anthropic:
   20) lie between the previous request's breakpoint and this one, so that this request can still
   find the previous cache entry: at the previous request's prefix end when `previous=` is given;
   in a conversation (below) at the end of the newest user turn the assistant answered, only when
   more than the lookback follow it; else a lagging breakpoint 15 content blocks back;
3. in a conversation, the end of the tail (the turn end): the next request repeats it as history;
4. with `seen=`, a learned shared prefix: where an earlier request under the same key shared this
   prefix and then differed (see `_learned`);
5. the layer boundaries (end of docs, of system, of tools), so that a change to a later layer
   still reads the earlier ones from the cache.

A conversation is a prompt whose history holds a user turn followed by an assistant turn, planned
with `conversation=True` (the default): a chat or agent loop. Measured against an oracle under the
Anthropic emulation (`bench/bench_planner.py`), these two rules take an agent loop with wide tool
fan-outs from 0.96-0.97 of the oracle's saving to 0.997-0.999.

A breakpoint sits on a block's last content block that can carry a marker, except the lagging
one: it goes on the end of a message 10 to 15 content blocks back (where an earlier request's
entry would be), and when no message ends there, on the content block 15 back inside the message:
a parallel tool fan-out puts dozens of blocks into one assistant message and one user message,
and a marker on a message end would then sit at the prefix end itself or beyond the lookback.
Its path names the block: `history[4].content[2]`. When the lookback breakpoint cannot be placed
(no free slot, no block that can carry a marker), a note says the previous entry is out of reach.

A breakpoint whose prefix is below the model's minimum is skipped (the vendor would not cache it
and the slot would be wasted); the plan's notes say why, in words `promptcache inspect` prints.

    p = plan(prompt, vendor="anthropic", model="claude-sonnet-4-6")
    p.breakpoints  -> (Breakpoint(block_index=7, path='history[3]', ttl='5m', reason=...), ...)
    p.notes        -> ("no breakpoint at tools[1]: only 312 tokens before it, ...",)
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import orjson

from ._canonical import json_path
from ._errors import InputError, shown_name
from ._pricing import load_min_tokens
from ._prompt import Block, Layer, Prompt, Rendered, last_through
from ._tokens import TokenCounter
from .vendors import Vendor, get_vendor

if TYPE_CHECKING:
    from ._learned import SharedPrefixes
    from .vendors import Capabilities

__all__ = ["Breakpoint", "Plan", "plan"]

# Anthropic's guidance: with a 20-block lookback, add an intermediate breakpoint every ~15 blocks.
_LAG_FRACTION = 0.75
# A message end this close to the 15 is taken instead (10 of 20 blocks back: it still reaches 30).
_LAG_NEAREST_FRACTION = 0.5


@dataclass(frozen=True, slots=True, kw_only=True)
class Breakpoint:
    """
    A cache marker on one rendered block (`block_index` indexes `Rendered.blocks`).

    `part` is the content block of a message that carries it (an index into `Message.content`);
    None: the block's last content block that can carry one (a tool, system block or document is
    one block). Only the lagging lookback breakpoint inside a long message sets it.
    """

    block_index: int
    path: str
    ttl: str | None
    reason: str
    tokens: int  # prefix tokens up to and including this block (or content block)
    part: int | None = None


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

    def explain(self) -> str:
        """Each breakpoint with the reason it is there, then why others are not, in words."""
        lines = [f"{self.vendor} {self.model}: {len(self.breakpoints)} breakpoint(s)"]
        lines += [
            f"  {b.path} (ttl {b.ttl or 'default'}, {b.tokens} tokens): {b.reason}"
            for b in self.breakpoints
        ]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)

    def at(self, block_index: int) -> Breakpoint | None:
        """The breakpoint on a block, if there is one (the first, if a message has two)."""
        return next((b for b in self.breakpoints if b.block_index == block_index), None)


class _Refusal(NamedTuple):
    """Why a breakpoint was not placed: no free slot, no markable block, or under the minimum."""

    cause: Literal["slots", "unmarkable", "minimum"]
    note: str


class _Chosen(NamedTuple):
    """A breakpoint the planner placed, before the TTLs: where, why, and the prefix tokens."""

    block_index: int
    part: int | None
    reason: str
    tokens: int


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
    vendor_added: int = 0,
    conversation: bool = True,
    seen: SharedPrefixes | None = None,
    key: str | None = None,
) -> Plan:
    """
    Plan the breakpoints of one request for `vendor` (a name or alias from the registry in
    `promptcache.vendors`) and `model`.

    `ttl` applies to every breakpoint unless `layer_ttls` names the block's layer. `reserved`
    counts markers the caller sets themselves (they use up the same slots). `automatic` says the
    vendor's own automatic breakpoint is on (Anthropic's top-level `cache_control`, OpenAI's
    implicit mode); it takes one slot; None means the vendor's default. `previous` is the prompt
    of the request before this one, which lets the lookback rule place its breakpoint exactly.
    `min_tokens` overrides the model's minimum from the table. `vendor_added` counts tokens the
    vendor puts ahead of the request's own (Anthropic's tool-use system prompt): they count
    toward the minimum, and the notes say so.

    `conversation` (the default) treats a prompt whose history holds a user turn answered by the
    assistant as one turn of a chat or agent loop: the next request is this one plus a reply and
    a new user turn. Two placement rules follow: the end of the tail is cached too (the next
    request repeats it as history), unless the vendor's automatic breakpoint already marks it;
    and without `previous=` the lookback breakpoint goes at the end of the newest user turn of
    the history (where the previous request's entries end) only when more content blocks than
    the lookback follow it, instead of a lagging breakpoint 15 blocks back; otherwise the slot
    goes to the layer ends.
    `conversation=False` keeps the rules-only placement (prefix end, lagging lookback, layer
    ends). A prompt with no answered user turn in its history (one-shot questions over documents)
    is planned the same either way.

    `seen` (a `SharedPrefixes`) learns what repeats from the requests planned before under the
    same `key` (default: vendor and model, the vendor's own cache scope): where an earlier
    request shared this one's prefix and then went another way, a breakpoint goes at that fork,
    ahead of the layer ends. The prompt is then recorded in `seen`.
    """
    spec = get_vendor(vendor)
    vendor = spec.name
    caps = spec.capabilities_for(model)
    rendered = prompt.render(counter) if isinstance(prompt, Prompt) else prompt
    unlisted = None
    if min_tokens is None:
        _check_named(spec, model)
        min_tokens = load_min_tokens().minimum(spec.family, model)
        unlisted = unlisted_minimum_note(spec, model, min_tokens)
    minimum = min_tokens
    use_auto = caps.automatic_mode if automatic is None else automatic
    if vendor_added < 0:
        raise InputError(f"vendor_added must be >= 0 (tokens the vendor adds), got {vendor_added}")
    builder = _Planner(caps, rendered, model, minimum, use_auto)
    builder.vendor_added = vendor_added
    builder.conversation = conversation
    if reserved < 0:
        raise InputError(f"reserved must be >= 0 (markers the caller set), got {reserved}")
    builder.budget = (
        caps.max_breakpoints - reserved - (1 if use_auto and caps.max_breakpoints else 0)
    )
    scope = key if key is not None else f"{vendor}:{model}"
    builder.fork = seen.fork(scope, rendered) if seen is not None else None
    builder.place(previous.render(counter) if isinstance(previous, Prompt) else previous)
    if unlisted is not None:
        builder.notes.append(unlisted)
    if seen is not None:
        seen.record(scope, rendered)
    breakpoints = _with_ttls(builder.chosen, caps, ttl, layer_ttls, rendered.blocks)
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
        self.vendor_added = 0  # the vendor's own tokens ahead of the request's: they count too
        self.automatic = automatic
        self.budget = 0
        self.conversation = False
        self.fork: int | None = None  # where a learned shared prefix ends (see _learned)
        self.notes: list[str] = []
        self.chosen: list[_Chosen] = []
        self.contents: dict[int, list[Any]] = {}  # the parsed content blocks, by message index
        self.markable: dict[int, list[bool]] = {}  # which of them can carry a marker
        self.unmarkable_layers = _layers_named(caps.unmarkable_layers)
        self.cumulative: list[int] = rendered.aligned("tokens through", self._running_tokens)
        self.prefix_end = last_through(self.blocks, Layer.HISTORY)
        self.prefix_tokens = self.cumulative[self.prefix_end] if self.prefix_end >= 0 else 0

    def _running_tokens(self, sums: list[int]) -> None:
        """Prefix tokens through each block, from the last one already summed."""
        start = len(sums)
        sums += accumulate(map(_TOKENS, self.blocks[start:]), initial=sums[-1] if sums else 0)
        del sums[start]  # the initial value accumulate repeats

    def place(self, previous: Rendered | None) -> None:
        if self.prefix_end < 0:
            self.notes.append("no breakpoint: the prompt has no stable prefix (everything is tail)")
            return
        if self.prefix_tokens + self.vendor_added < self.minimum:
            self.notes.append(
                f"no breakpoint: prefix of {self.prefix_tokens} tokens{self._added()} is below "
                f"{self.model}'s minimum of {self.minimum}"
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
        if self.conversation:
            self._add_turn_end()
        if self.fork is not None and self.fork < self.prefix_end:
            self._add(
                self.fork,
                "learned shared prefix: an earlier request under this key repeated the prompt up "
                "to here, then went another way",
            )
        for layer in (Layer.DOCS, Layer.SYSTEM, Layer.TOOLS):
            self._add_layer_end(layer)

    def _added(self) -> str:
        return f" (plus {self.vendor_added} the vendor adds)" if self.vendor_added else ""

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

    def _add(self, index: int, reason: str, part: int | None = None) -> None:
        """Place a breakpoint on block `index` (content block `part`), or note why not."""
        refused = self._place(index, part, reason)
        if refused is not None:
            self.notes.append(refused.note)

    def _place(self, index: int, part: int | None, reason: str) -> _Refusal | None:
        """Place a breakpoint; None when placed (or already there), else why not."""
        if len(self.chosen) >= self.budget:
            where = _path(self.blocks[index], part)
            note = f"no breakpoint at {where} ({reason}): the {self.budget} free slot(s) are used"
            return _Refusal("slots", note)
        target = self._markable_at_or_before(index, part)
        if target is None:
            where = _path(self.blocks[index], part)
            note = f"no breakpoint for {reason}: no block at or before {where} can carry a marker"
            return _Refusal("unmarkable", note)
        if target[0] != index or (part is not None and target[1] != part):
            reason += f"; moved from {_path(self.blocks[index], part)}, which cannot carry a marker"
        spot = self._normal(*target)
        tokens = self._tokens_through(*spot)
        if tokens + self.vendor_added < self.minimum:
            return _Refusal(
                "minimum",
                f"no breakpoint at {_path(self.blocks[spot[0]], spot[1])} "
                f"({reason.split(';')[0]}): only {tokens} tokens before it{self._added()}, below "
                f"{self.model}'s minimum of {self.minimum}",
            )
        if any((c.block_index, c.part) == spot for c in self.chosen):
            return None
        if self.caps.minimum_per_breakpoint:
            short = self._segment_short(spot, tokens, reason)
            if short is not None:
                return short
        self.chosen.append(_Chosen(*spot, reason, tokens))
        return None

    def _segment_short(
        self, spot: tuple[int, int | None], tokens: int, reason: str
    ) -> _Refusal | None:
        """
        Where the minimum counts per breakpoint (Bedrock): why a breakpoint at `spot` would hold
        fewer than the minimum since the one before it, or leave the one after it short; None
        when both segments are long enough.
        """
        order = _order_key(*spot)
        before = [c for c in self.chosen if _order_key(c.block_index, c.part) < order]
        after = [c for c in self.chosen if _order_key(c.block_index, c.part) > order]
        where = _path(self.blocks[spot[0]], spot[1])
        rule = f"{self.caps.vendor} counts the minimum per cache point, from the one before it"
        start = max(before, key=attrgetter("tokens"), default=None)
        if start is not None and tokens - start.tokens < self.minimum:
            return _Refusal(
                "minimum",
                f"no breakpoint at {where} ({reason.split(';')[0]}): only "
                f"{tokens - start.tokens} tokens since the breakpoint at "
                f"{_path(self.blocks[start.block_index], start.part)}, below {self.model}'s "
                f"minimum of {self.minimum} ({rule})",
            )
        end = min(after, key=attrgetter("tokens"), default=None)
        if end is not None and end.tokens - tokens < self.minimum:
            return _Refusal(
                "minimum",
                f"no breakpoint at {where} ({reason.split(';')[0]}): it would leave the "
                f"breakpoint at {_path(self.blocks[end.block_index], end.part)} only "
                f"{end.tokens - tokens} tokens after it, below {self.model}'s minimum of "
                f"{self.minimum} ({rule})",
            )
        return None

    def _add_lookback(self, previous: Rendered | None) -> None:
        window = self.caps.lookback_blocks
        if window is None:
            return
        anchor = self._previous_end(previous) if previous is not None else None
        if anchor is not None:
            gap = self._parts_between(anchor, self.prefix_end)
            if gap > window:
                self._add_reaching(
                    anchor,
                    None,
                    f"lookback: {gap} content blocks since the previous request's "
                    f"breakpoint exceed the {window}-block lookback",
                    f"this request cannot read the previous request's cache entry at "
                    f"{self.blocks[anchor].path}, {gap} content blocks before the end of the "
                    f"prefix (beyond the {window}-block lookback): no lookback breakpoint can go "
                    "there",
                )
            return
        turn = self._newest_user_turn() if self.conversation else None
        if turn is not None:
            self._add_turn_lookback(turn, window)
            return
        if not self._more_parts_than(window, self._static_end(), self.prefix_end):
            return
        lag = self._lagging_point(int(window * _LAG_FRACTION), int(window * _LAG_NEAREST_FRACTION))
        if lag is not None:
            self._add_reaching(
                *lag,
                f"lookback: more than {window} content blocks of history; a lagging "
                f"breakpoint keeps the previous entry within reach",
                f"if this request added more than {window} content blocks since the previous "
                "one (a parallel tool fan-out), it cannot read the previous request's cache "
                f"entry: no lagging breakpoint can go at {_path(self.blocks[lag[0]], lag[1])}",
            )

    # -- placement policy for conversations (a chat or agent loop) ------------------------------
    #
    # In a loop each request is the previous one plus the reply and a new user turn (a question or
    # tool results). The previous request's entries therefore end at the newest user turn of the
    # history: at its end when that request cached its tail (the turn-end breakpoint below), and
    # just before it (its prefix end) otherwise.

    def _newest_user_turn(self) -> int | None:
        """
        Where the previous request of the loop ended: the newest user message in front of the
        history's newest assistant message (the reply to it). None when the history holds no
        such pair, so the prompt does not look like a loop.
        """
        start = self._static_end()
        reply = next(
            (i for i in range(self.prefix_end, start, -1) if self.blocks[i].role == "assistant"),
            None,
        )
        if reply is None:
            return None
        return next((i for i in range(reply - 1, start, -1) if self.blocks[i].role == "user"), None)

    def _add_turn_lookback(self, turn: int, window: int) -> None:
        """
        A lookback breakpoint at the end of the newest user turn, only when more content blocks
        than the vendor looks back over follow it (a parallel tool fan-out); otherwise the end of
        the prefix reaches that entry and the slot goes to the turn end and the layer ends.
        """
        gap = self._parts_between(turn, self.prefix_end)
        if gap <= window:
            return
        self._add_reaching(
            turn,
            None,
            f"lookback: the previous request in this loop ended at {self.blocks[turn].path} "
            f"(the newest user turn), {gap} content blocks before the end of the prefix, beyond "
            f"the {window}-block lookback",
            f"this request cannot read the previous request's cache entry at "
            f"{self.blocks[turn].path}, {gap} content blocks before the end of the prefix",
        )

    def _add_turn_end(self) -> None:
        """
        In a loop, cache the tail too: the next request repeats it as history, so writing it now
        (1.25x once, then 0.1x) beats sending it uncached now and writing it next time. A prompt
        with no answered user turn in its history (one-shot questions over documents) gets no such
        marker: its tail is never repeated.
        """
        last = len(self.blocks) - 1
        if last <= self.prefix_end or self._newest_user_turn() is None:
            return
        if self.automatic:
            # The vendor's automatic breakpoint (Anthropic's top-level one, OpenAI's implicit one)
            # already sits at the end of the request: a marker there would waste a slot.
            return
        self._add(
            last,
            "end of the turn: in a conversation the next request repeats this turn as history",
        )

    def _add_reaching(self, index: int, part: int | None, reason: str, lost: str) -> None:
        """
        Place a lookback breakpoint. When it cannot go in, `lost` says in plain words what that
        costs, and the note adds why; under the minimum there is no entry to reach, so the usual
        note is enough.
        """
        refused = self._place(index, part, reason)
        if refused is None:
            return
        if refused.cause == "slots":
            # The end of the prefix comes first, so this is the case of a single free slot.
            automatic = " or turn the automatic one off" if self.automatic else ""
            self.notes.append(
                f"{lost}, as no slot is left (the one free slot marks the end of the prefix; set "
                f"fewer cache markers of your own{automatic})"
            )
        elif refused.cause == "unmarkable":
            self.notes.append(
                f"{lost}, as no block at or before it can carry a marker (thinking blocks cannot)"
            )
        else:
            self.notes.append(refused.note)

    def _add_layer_end(self, layer: Layer) -> None:
        end = last_through(self.blocks, layer)  # the tools, system and docs precede the tail
        if (
            end >= 0
            and self.blocks[end].layer == layer
            and end != self.prefix_end
            and layer not in self.unmarkable_layers
        ):
            self._add(end, f"end of the {layer} layer")

    def _previous_end(self, previous: Rendered) -> int | None:
        # A chained hash covers every block up to its own, so only the block at the same index
        # can carry it.
        end = last_through(previous.blocks, Layer.HISTORY)
        if end < 0 or end >= len(self.blocks):
            return None
        return end if self.blocks[end].hash == previous.blocks[end].hash else None

    def _parts_between(self, start: int, end: int) -> int:
        """Content blocks after `start` up to and including `end`."""
        return sum(map(_PARTS, self.blocks[start + 1 : end + 1]))

    def _more_parts_than(self, limit: int, start: int, end: int) -> bool:
        """Whether more than `limit` content blocks lie after `start` up to `end`, counted from
        the end: the history before the last few blocks does not matter."""
        seen = 0
        for index in range(end, start, -1):
            seen += self.blocks[index].parts
            if seen > limit:
                return True
        return False

    def _static_end(self) -> int:
        """The last block in front of the history (-1 when there is none)."""
        return last_through(self.blocks, Layer.DOCS)

    def _lagging_point(self, spacing: int, nearest: int) -> tuple[int, int | None] | None:
        """
        Where the lagging breakpoint goes, as (block index, content index or None): the end of the
        message with `nearest` to `spacing` content blocks after it, else the content block with
        `spacing` after it, inside the message that holds it.
        """
        after = 0
        for index in range(self.prefix_end, -1, -1):
            parts = self.blocks[index].parts
            if after + parts > spacing:
                if after >= nearest:
                    return index, None
                return index, parts - 1 - (spacing - after)
            after += parts
        return None

    def _markable_at_or_before(self, index: int, part: int | None) -> tuple[int, int | None] | None:
        """
        The last place at or before content block `part` of block `index` (None: its last) that
        can carry a marker: (block index, content index; None for a block that is not a message).
        """
        for i in range(index, -1, -1):
            block = self.blocks[i]
            if block.layer in self.unmarkable_layers:
                continue
            if block.layer < Layer.HISTORY:
                return i, None
            flags = self._markable_parts(i)
            last = part if i == index and part is not None else len(flags) - 1
            for c in range(min(last, len(flags) - 1), -1, -1):
                if flags[c]:
                    return i, c
        return None

    def _normal(self, index: int, part: int | None) -> tuple[int, int | None]:
        """A place with `part` None when it is the block's last markable content block."""
        if part is None:
            return index, None
        flags = self._markable_parts(index)
        last = max(c for c, markable in enumerate(flags) if markable)
        return index, None if part == last else part

    def _markable_parts(self, index: int) -> list[bool]:
        """For each content block of message `index`, whether it can carry a marker."""
        flags = self.markable.get(index)
        if flags is None:
            role = self.blocks[index].role
            flags = [_markable_part(role, part, self.caps) for part in self._content(index)]
            self.markable[index] = flags
        return flags

    def _content(self, index: int) -> list[Any]:
        """The content blocks of message `index`, parsed from its bytes once per plan."""
        content = self.contents.get(index)
        if content is None:
            content = self.contents[index] = orjson.loads(self.blocks[index].data).get(
                "content", []
            )
        return content

    def _tokens_through(self, index: int, part: int | None) -> int:
        """
        Prefix tokens up to and including content block `part` of block `index`. Inside a message
        the count is estimated: the message's tokens are shared out in proportion to the
        serialised size of its content blocks (a short text block costs little, a long tool result
        much), and added to the exact count of the blocks in front of it.
        """
        if part is None:
            return self.cumulative[index]
        before = self.cumulative[index - 1] if index else 0
        sizes = [len(orjson.dumps(c)) for c in self._content(index)]
        share = sum(sizes[: part + 1]) / sum(sizes) if sum(sizes) else 1.0
        return before + int(self.blocks[index].tokens * share)


def _order_key(index: int, part: int | None) -> tuple[int, bool, int]:
    """A place's position in the request: a content block inside a message before its end."""
    return index, part is None, part or 0


def _check_named(spec: Vendor, model: str) -> None:
    """
    Refuse a model name the vendor's own naming says names no model (a Bedrock application
    inference profile ARN), whose minimum would otherwise be the table's default, a guess.
    """
    same = spec.same_model
    if same is not None and model and same(model, model) is None:
        raise InputError(
            f"cannot tell which model {shown_name(model)} names (an application inference "
            "profile?), so its minimum cacheable prefix is unknown. Pass min_tokens=, or the "
            "foundation model id it serves (aws bedrock get-inference-profile lists it; "
            "--base-model on the command line)"
        )


def unlisted_minimum_note(spec: Vendor, model: str, minimum: int) -> str | None:
    """
    Said when the vendor's minimum differs by model and no row of the minimum-token table names
    `model` (a typo, a new model, an alias): its minimum is then the vendor's default, an
    assumption, not a fact. An engine's minimum is its cache block size whatever the model is.
    """
    if spec.family == "engine" or load_min_tokens().lists(spec.family, model):
        return None
    return (
        f"{shown_name(model)} is in no row of the minimum-token table: {minimum} is {spec.name}'s default, "
        "assumed, not the model's documented minimum; check the model name, or pass min_tokens="
    )


@functools.lru_cache(maxsize=16)
def _layers_named(names: frozenset[str]) -> frozenset[Layer]:
    """The layers with these names (`tools`), looked up once per set of names."""
    return frozenset(layer for layer in Layer if str(layer) in names)


def _markable_part(role: str, part: Any, caps: Capabilities) -> bool:
    kind = part.get("type") if isinstance(part, dict) else None
    return kind not in caps.unmarkable and f"{role}:{kind}" not in caps.unmarkable


def _path(block: Block, part: int | None) -> str:
    """`history[4]`, or `history[4].content[2]` for a content block inside the message."""
    return block.path if part is None else json_path(json_path(block.path, "content"), part)


_TOKENS = attrgetter("tokens")
_PARTS = attrgetter("parts")


def _with_ttls(
    chosen: list[_Chosen],
    caps: Capabilities,
    ttl: str | None,
    layer_ttls: Mapping[Layer, str] | None,
    blocks: Sequence[Block],
) -> tuple[Breakpoint, ...]:
    out = []
    # In request order: a content block inside a message comes before the message's last one.
    for point in sorted(chosen, key=lambda c: _order_key(c.block_index, c.part)):
        block = blocks[point.block_index]
        chosen_ttl = (layer_ttls or {}).get(block.layer, ttl) or caps.default_ttl
        if chosen_ttl is not None and caps.ttls and chosen_ttl not in caps.ttls:
            raise InputError(
                f"{caps.vendor} does not offer a cache TTL of {chosen_ttl!r}; choose one of "
                f"{list(caps.ttls)}"
            )
        out.append(
            Breakpoint(
                block_index=point.block_index,
                path=_path(block, point.part),
                ttl=chosen_ttl,
                reason=point.reason,
                tokens=point.tokens,
                part=point.part,
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
