"""
Two spellings of one prompt: where a vendor reads a string as one text block (Anthropic's
`system: "..."` and `content: "..."`), a request that switched between the string and the
one-block list sends the same prompt. The string side is rewritten as the block, so the compare
sees what the vendor renders (`CacheRules.string_is_text_block`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..vendors._elements import MARKERS, Element

__all__ = ["text_blocks_aligned"]


def text_blocks_aligned(
    ea: Sequence[Element], eb: Sequence[Element], start: int = 0
) -> tuple[list[Element], list[Element]] | None:
    """
    `ea` and `eb` with each string (from element `start` on) that the other request sends as
    one text block rewritten as that block; None when there is none.
    """
    out_a, out_b = list(ea), list(eb)
    changed = False
    for i in range(start, min(len(ea), len(eb))):
        x, y = ea[i], eb[i]
        if x.layer != y.layer or x.value == y.value:
            continue
        as_a, as_b = _as_block(x, y), _as_block(y, x)
        if as_a is not None:
            out_a[i], changed = as_a, True
        elif as_b is not None:
            out_b[i], changed = as_b, True
    return (out_a, out_b) if changed else None


def _as_block(plain: Element, blocks: Element) -> Element | None:
    """`plain` rewritten as `blocks`'s one text block, where it is that text as a string."""
    if isinstance(plain.value, str) and _one_text(blocks.value) == plain.value:
        return Element(plain.layer, blocks.path, {"type": "text", "text": plain.value})
    key = plain.content_key
    if key is None or not isinstance(plain.value, Mapping) or not isinstance(blocks.value, Mapping):
        return None
    text, listed = plain.value.get(key), blocks.value.get(key)
    if not isinstance(text, str) or not isinstance(listed, list) or len(listed) != 1:
        return None
    if _one_text(listed[0]) != text:
        return None
    value = {**plain.value, key: [{"type": "text", "text": text}]}
    return Element(plain.layer, plain.path, value, key)


def _one_text(block: Any) -> str | None:
    """The text of a plain text block (a cache marker aside), or None."""
    if not isinstance(block, Mapping) or block.get("type") != "text":
        return None
    if set(block) - {"type", "text", *MARKERS}:
        return None  # citations or other fields render more than the text
    text = block.get("text")
    return text if isinstance(text, str) else None
