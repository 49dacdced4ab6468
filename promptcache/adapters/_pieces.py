"""
Request pieces: what a request format writes for each rendered block, made once per block.

A request is the same few pieces every turn (a tool definition, a system text block, a message)
plus the cache markers the plan puts on some of them. Each adapter writes a block's piece
without markers once; the pieces of a rendering are kept with it, and a rendering grown from it
inherits those of its unchanged blocks (`Rendered.aligned`), so a turn writes only its new blocks.
A part also remembers its piece, so a prompt assembled afresh from held parts writes nothing twice.

Pieces are shared by every request that holds them, so nothing may change one: a marker goes on a
copy of the piece (`marked_copy`), made for the one request that carries it. That keeps earlier
requests as they were when they were returned.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._errors import InputError
from .._parts import Part
from .._plan import Plan
from .._prompt import Block, Layer, Prompt, Rendered

__all__ = [
    "Flat",
    "block_marks",
    "block_parts",
    "content_marks",
    "flat_layout",
    "piece_of",
    "pieces",
]


def block_parts(
    prompt: Prompt, blocks: tuple[Block, ...], start: int, end: int | None = None
) -> Iterator[Part]:
    """The part behind each block from `start` on, up to `end` (tools in render order)."""
    layers: dict[Layer, tuple[Part, ...]] = {}
    for index in range(start, len(blocks) if end is None else end):
        block = blocks[index]
        parts = layers.get(block.layer)
        if parts is None:
            parts = layers[block.layer] = prompt.layer(block.layer)
        yield parts[block.index]


def piece_of(part: Part, kind: str, write: Callable[[Any], Any]) -> Any:
    """The piece `write` makes of `part` for request format `kind`, made once per part."""
    memo = part._memo
    known = memo.pieces
    if known is None:
        known = memo.pieces = {}
    piece = known.get(kind)
    if piece is None:
        piece = known[kind] = write(part)
    return piece


def pieces(
    prompt: Prompt, kind: str, write: Callable[[Any], Any], *, memoise: bool = True
) -> tuple[Rendered, list[Any]]:
    """
    The prompt's rendering and the unmarked piece of each of its blocks for format `kind`,
    aligned with the blocks. Read-only: the list and its pieces are shared with other requests.
    `memoise=False`: `write` decides itself which parts may remember their piece (a piece that
    depends on other blocks may not).
    """
    rendered = prompt.render()

    def extend(values: list[Any]) -> None:
        for part in block_parts(prompt, rendered.blocks, len(values)):
            values.append(piece_of(part, kind, write) if memoise else write(part))

    return rendered, rendered.aligned(kind, extend)


# How many of the last blocks a flat layout remembers the item counts of: enough to drop the
# previous turn's tail and to find any breakpoint near the end without looking at the history.
_RECENT = 64


@dataclass(frozen=True, slots=True)
class Flat:
    """
    A request format that writes each message block as a run of items (Chat Completions: a
    message plus one per tool result), laid out once per rendering: the pieces of the tools,
    system and document blocks, every message block's items in one list, and the item counts of
    the last few blocks. A rendering grown from this one shares `static` and copies `items` once.
    Read-only, like the pieces.
    """

    static: list[Any]
    items: list[Any]
    counts: tuple[int, ...]  # items of each of the last len(counts) blocks
    blocks: int

    def block_end(self, index: int) -> int | None:
        """Where block `index`'s items end in `items`; None when it is not among the last few."""
        behind = self.blocks - 1 - index
        if behind >= len(self.counts):
            return None
        return len(self.items) - sum(self.counts[len(self.counts) - behind :])


def flat_layout(prompt: Prompt, kind: str, write: Callable[[Any], Any]) -> tuple[Rendered, Flat]:
    """The prompt's rendering and its `Flat` layout for request format `kind`."""
    rendered = prompt.render()
    blocks = rendered.blocks
    known = rendered._aligned.get(kind)
    if known is not None and known[1] == known[0].blocks == len(blocks):
        done: Flat = known[0]
        return rendered, done
    static_end = len(prompt.tools) + len(prompt.system) + len(prompt.docs)
    old: Flat | None = known[0] if known is not None else None
    valid = known[1] if known is not None else 0
    dropped = old.blocks - valid if old is not None else 0
    if old is None or valid < static_end or dropped > len(old.counts):
        static = [
            piece_of(part, kind, write) for part in block_parts(prompt, blocks, 0, static_end)
        ]
        items: list[Any] = []
        counts: list[int] = []
        start = static_end
    else:
        static = old.static
        kept = len(old.counts) - dropped
        items = old.items[: len(old.items) - sum(old.counts[kept:])]
        counts = list(old.counts[:kept])
        start = valid
    for part in block_parts(prompt, blocks, start):
        piece = piece_of(part, kind, write)
        items += piece
        counts.append(len(piece))
    flat = Flat(static, items, tuple(counts[-_RECENT:]), len(blocks))
    rendered._aligned[kind] = (flat, len(blocks))
    return rendered, flat


def block_marks(chosen: Plan, block_count: int) -> dict[int, dict[int | None, str | None]]:
    """The plan's breakpoints by block index: {content index (None: the block's last markable
    one) -> ttl}. A plan made for another prompt (a block past the end) is refused."""
    marks: dict[int, dict[int | None, str | None]] = {}
    for point in chosen.breakpoints:
        if not 0 <= point.block_index < block_count:
            raise InputError(
                f"the plan marks block {point.block_index} of a prompt with {block_count}; "
                "plan this prompt again"
            )
        marks.setdefault(point.block_index, {})[point.part] = point.ttl
    return marks


def content_marks(
    content: Sequence[Mapping[str, Any]],
    marks: Mapping[int | None, str | None],
    last_markable: Callable[[Sequence[Mapping[str, Any]]], int | None],
) -> dict[int, str | None]:
    """The content blocks of one message the plan marks, {content index -> ttl}: a part of None
    is the message's last markable block (skipped when it has none); a number is a block the plan
    chose inside the message (a lagging lookback one), refused when the message has no such block."""
    placed: dict[int, str | None] = {}
    for part, ttl in marks.items():
        at = last_markable(content) if part is None else part
        if at is None:
            continue
        if not 0 <= at < len(content):
            raise InputError(
                f"the plan marks content block {at} of a message with {len(content)}; "
                "plan this prompt again"
            )
        placed[at] = ttl
    return placed
