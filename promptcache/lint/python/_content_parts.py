"""
The parts of one turn given as a list (`frameworks/`' `Sink.parts`): Gemini's
`generate_content([pdf_part, PROMPT])` sends a list of parts that are not turns (texts, files,
images, `Part`s) as ONE user turn, in that order, not as a conversation. A document part before
the static instructions is then the opening of the newest turn: every document sends another
prefix before them, and the fix is to move the part (where the list places it) after them.
"""

from __future__ import annotations

import ast

from ._call_sites import _called
from ._flow import written_at
from ._turns import pieces_from
from ._values import Value

__all__ = ["one_turn_of_parts"]

# Keys that make a dict a turn (`{"role": "user", "parts": [...]}`), not a part of one.
_TURN_KEYS = ("role", "parts")


def one_turn_of_parts(value: Value, expr: ast.expr | None, display: str) -> Value | None:
    """The list `value` (the argument `expr`) as the one turn its parts make, each part's
    variation written where the list places it; None when it is no such list (an item is a turn,
    a spliced history, or the list is not known item by item)."""
    items = value.items
    if items is None or not items or value.spliced:
        return None
    if any(_turn_like(item) for item in items):
        return None
    elements = expr.elts if isinstance(expr, ast.List | ast.Tuple) else None
    if elements is not None:
        if len(elements) != len(items) or any(_turn_expr(e) for e in elements):
            return None
        items = tuple(
            written_at(item, display, element.lineno)
            for item, element in zip(items, elements, strict=True)
        )
    deps = frozenset(d for item in items for d in item.deps)
    return Value(deps=deps, pieces=pieces_from(items), kind="str")


def _turn_like(item: Value) -> bool:
    return (
        item.spliced
        or item.kind == "message"
        or item.items is not None
        or any(item.field(key) is not None for key in _TURN_KEYS)
    )


def _turn_expr(element: ast.expr) -> bool:
    """An element written as a turn: `types.Content(...)`, `{"role": ...}`, `*history`."""
    if isinstance(element, ast.Starred):
        return True
    if isinstance(element, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value in _TURN_KEYS for k in element.keys)
    if isinstance(element, ast.Call):
        return _called(element.func).endswith(("Content", "Message"))
    return False
