"""
Iteration: comprehensions, and the elements of what a loop iterates, with the order taint
(PC504) of iterating a set or a dict of outside order.

Functions of a `Frame` (`_frame`). State: binds a comprehension's targets in `Scope.env` and
restores the bindings after it (its variables do not leak); evaluates through `frame.eval`.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ._flow import (
    merge_all,
)
from ._locations import node_label, node_span
from ._request_data import NEWEST_TURN
from ._turns import newest_first
from ._values import (
    EMPTY,
    PER_REQUEST,
    Dep,
    Taint,
    Value,
)

if TYPE_CHECKING:
    from ._frame import Frame

__all__ = ["comprehension", "element", "order_taint", "sorting_fix"]

# Where `--fix` puts `sorted(...)`: ("sorted", line, column, end line, end column).
SortingFix = tuple[str, int, int, int, int]


def comprehension(
    frame: Frame, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
) -> tuple[Value, Value, bool, SortingFix | None, bool]:
    """The key and element of a comprehension, whether it iterates an unordered source, where
    `sorted(...)` mends that order (one generator over a set of strings; else None), and whether
    it goes in an order the code fixes (every generator over a literal of the code)."""
    saved = dict(frame.scope.env)
    iter_deps: set[Dep] = set()
    unordered = False
    fix = None
    ordered = True  # every generator goes in an order the code fixes
    for generator in node.generators:
        iterated = frame.eval(generator.iter)
        each = element(frame, iterated, generator.iter)
        if (
            isinstance(node, ast.GeneratorExp | ast.ListComp)
            and iterated.items is None
            and newest_first(generator.iter)
        ):  # `next(m for m in reversed(history) if ...)`: the newest turn, as a loop's (`_s_For`)
            label = f"`{node_label(frame.module, generator.iter)}` ({NEWEST_TURN})"
            newest = each.deps | {frame.taint(PER_REQUEST, label, generator.iter)}
            each = Value(deps=newest, pieces=(newest,))
        unordered = unordered or iterated.kind in ("set", "udict", "uview")
        ordered = ordered and _in_code_order(frame, iterated, generator.iter)
        if len(node.generators) == 1:
            fix = sorting_fix(frame, iterated, generator.iter)
        if isinstance(node, ast.DictComp):  # the order lives in the kind ("udict") instead
            each = Value(
                deps=frozenset(
                    d for d in each.deps if not (isinstance(d, Taint) and d.code == "PC504")
                )
            )
        iter_deps |= each.deps
        frame.assign(generator.target, each)
        for condition in generator.ifs:
            frame.eval(condition)
    if isinstance(node, ast.DictComp):
        key, value = frame.eval(node.key), frame.eval(node.value)
    else:
        outer, frame.item_text = frame.item_text, node.elt  # an item: `f"- {doc}" for doc in docs`
        key, value = EMPTY, frame.eval(node.elt)
        frame.item_text = outer
    frame.scope.env.clear()
    frame.scope.env.update(saved)
    return key.with_deps(iter_deps), value.with_deps(iter_deps), unordered, fix, ordered


def _in_code_order(frame: Frame, iterated: Value, node: ast.expr) -> bool:
    """Whether iterating `node` goes in an order the code fixes: a literal of the code, or the
    `.items()`, `.keys()` or `.values()` of a dict literal (a taxonomy in a module or a settings
    class), whose order is the order it is written in."""
    if iterated.fixed and iterated.kind not in ("set", "udict", "uview"):
        return True
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("items", "keys", "values")
        and not node.args
        and not node.keywords
    ):
        return False
    mapping = frame.eval(node.func.value)
    return mapping.fixed and mapping.kind == "dict"


def element(frame: Frame, iterated: Value, node: ast.expr) -> Value:
    """One element of iterating `iterated`: ordered by the source, or flagged when not."""
    deps = set(iterated.deps)
    if iterated.items is not None and iterated.items and not any(i.spliced for i in iterated.items):
        merged = merge_all(list(iterated.items))
        return merged.with_deps(deps)
    if iterated.kind in ("set", "udict", "uview"):
        deps.add(order_taint(frame, iterated, node))
    return Value(deps=frozenset(deps)) if deps else EMPTY


def order_taint(frame: Frame, iterated: Value, node: ast.expr) -> Taint:
    what = "a set" if iterated.kind == "set" else "a dict built from an unordered source"
    # A dict built from a set of strings is mended where it is built (`sorting_fix`): sorting
    # it where it is iterated would change what the loop sees (its keys instead of its pairs).
    built = iterated.meta if iterated.kind in ("udict", "uview") else None
    return frame.taint(
        "PC504",
        f"iteration order of {what} (`{node_label(frame.module, node)}`)",
        node,
        fix=built if isinstance(built, tuple) else ("sorted", *node_span(frame.module, node)),
        fixable=isinstance(built, tuple) or (iterated.kind == "set" and iterated.meta is True),
    )


def sorting_fix(frame: Frame, iterated: Value, node: ast.expr) -> SortingFix | None:
    """Where `sorted(...)` makes iterating `iterated` (a set of strings, which sort without
    error) ordered: around `node`; None for anything else."""
    if iterated.kind == "set" and iterated.meta is True:
        return ("sorted", *node_span(frame.module, node))
    return None
