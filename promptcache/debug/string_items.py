"""
The items one string holds, for telling a reordering from an edit: paragraphs apart by a blank
line (how templates join parts), entries on single lines (a list of skills, files, rules), and
repeated tags (`<skill>…</skill><skill>…</skill>`). A template that joins a dict's or a set's
values renders the same items in another order from one process to the next.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Reordering", "reordering"]

_LIMIT = 512 * 1024  # characters of both strings together; past it, no item compare
_SECTION_BREAK = re.compile(r"\n\s*\n")
_CLOSING_TAG = re.compile(r"</(?P<tag>[A-Za-z][\w.-]*)\s*>")


@dataclass(frozen=True, slots=True, kw_only=True)
class Reordering:
    """The same items in another order: what they are, and the first place they differ."""

    items: str  # "sections", "lines", "<skill> entries"
    item: str  # one of them: "section", "line", "entry"
    count: int
    index: int  # 0-based position of the first item that moved
    old: str
    new: str


def reordering(old: str, new: str) -> Reordering | None:
    """How `new` holds the items of `old` in another order, or None (an edit, or no items)."""
    if len(old) + len(new) > _LIMIT:
        return None
    for name, split in _SPLITS:
        a, b = split(old), split(new)
        if a is None or b is None or len(a) < 2 or a == b or sorted(a) != sorted(b):
            continue
        index = next(i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
        return Reordering(
            items=f"{name}s", item=name, count=len(a), index=index, old=a[index], new=b[index]
        )
    return _tags(old, new)


def _sections(text: str) -> list[str]:
    return [part.strip() for part in _SECTION_BREAK.split(text) if part.strip()]


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if line.strip()]


_SPLITS: tuple[tuple[str, Callable[[str], list[str] | None]], ...] = (
    ("section", _sections),
    ("line", _lines),
)


def _tags(old: str, new: str) -> Reordering | None:
    """Repeated elements of one tag reordered, the text around them unchanged."""
    closed = Counter(m.group("tag") for m in _CLOSING_TAG.finditer(old))
    for tag in (t for t, n in closed.items() if n >= 2):
        a, rest_a = _elements(old, tag)
        b, rest_b = _elements(new, tag)
        if len(a) < 2 or rest_a != rest_b or a == b or sorted(a) != sorted(b):
            continue
        index = next(i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
        return Reordering(
            items=f"<{tag}> entries",
            item="entry",
            count=len(a),
            index=index,
            old=a[index],
            new=b[index],
        )
    return None


def _elements(text: str, tag: str) -> tuple[list[str], str]:
    """The `<tag>` elements of `text`, and the text with each replaced by one marker."""
    pattern = re.compile(rf"<{re.escape(tag)}(?:\s[^<>]*)?>.*?</{re.escape(tag)}\s*>", re.DOTALL)
    found = [m.group() for m in pattern.finditer(text)]
    return found, pattern.sub("\0", text)
