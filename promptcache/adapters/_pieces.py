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

from collections.abc import Callable, Iterator
from typing import Any

from .._parts import Part
from .._prompt import Block, Layer, Prompt, Rendered

__all__ = ["block_parts", "flat_items", "piece_of", "pieces"]


def block_parts(prompt: Prompt, blocks: tuple[Block, ...], start: int) -> Iterator[Part]:
    """The part behind each block from `start` on (tools in render order)."""
    layers: dict[Layer, tuple[Part, ...]] = {}
    for index in range(start, len(blocks)):
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


def flat_items(
    rendered: Rendered, kind: str, values: list[Any], start: int
) -> tuple[list[Any], list[int]]:
    """
    The items of the blocks from `start` on, one list (a Chat Completions message block is a
    message plus one per tool result), and where each block's items end in it. Kept with the
    rendering like the pieces, so a turn appends its new blocks' items to what it inherited.
    Read-only, like the pieces.
    """

    def extend(ends: list[int]) -> None:
        total = ends[-1] if ends else 0
        for index in range(len(ends), len(values)):
            if index >= start:
                total += len(values[index])
            ends.append(total)

    ends = rendered.aligned(f"{kind} item ends", extend)
    name = f"{kind} items"
    known = rendered._aligned.get(name)
    if known is not None and known[1] == len(ends) and len(known[0]) == (ends[-1] if ends else 0):
        return known[0], ends
    valid = known[1] if known is not None else 0
    items = known[0][: ends[valid - 1]] if known is not None and valid else []
    for index in range(max(valid, start), len(values)):
        items += values[index]
    rendered._aligned[name] = (items, len(ends))
    return items, ends
