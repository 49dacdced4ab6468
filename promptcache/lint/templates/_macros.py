"""
Macros: a macro's events, walked once per macro with its arguments stable, then inlined (and its
hazards reported) at each call.

Functions of a `Walker` (`_walker`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jinja2 import nodes

from ._bindings import STABLE, Macro, Scope, bind
from ._events import Event, Hazard
from ._nodes import calls

if TYPE_CHECKING:
    from ._walker import Walker


__all__ = ["called_macro", "inline", "macro_hazard"]


def called_macro(walker: Walker, callee: nodes.Expr, scope: Scope) -> Macro | None:
    if type(callee) is nodes.Name:
        found = scope.get(callee.name)
    elif type(callee) is nodes.Getattr and type(callee.node) is nodes.Name:
        module = scope.get(callee.node.name)
        found = module.get(callee.attr) if isinstance(module, dict) else None
    else:
        return None
    return found if isinstance(found, Macro) else None


def _macro_events(walker: Walker, macro: Macro) -> list[Event]:
    if macro.events is not None:
        return macro.events
    if macro.busy:  # a recursive macro: its own output is already being counted
        return []
    macro.busy = True
    inner = dict(macro.scope)
    for arg in (*macro.node.args, "caller", "varargs", "kwargs"):
        bind(inner, arg, STABLE)
    events: list[Event] = []
    macro.walker.body(macro.node.body, inner, events)
    macro.events = _compact(events)
    macro.busy = False
    return macro.events


def inline(walker: Walker, macro: Macro, line: int) -> list[Event]:
    where = "" if macro.walker.origin == walker.origin else f" of {macro.walker.origin}"

    def describe(hazard: Hazard) -> str:
        return f"macro `{macro.name}()` (line {hazard.line}{where}) renders {hazard.detail}"

    return walker.relocate(_macro_events(walker, macro), line, macro.name, describe, always=True)


def macro_hazard(walker: Walker, expr: nodes.Node, scope: Scope) -> Hazard | None:
    for call in calls(expr):
        macro = called_macro(walker, call.node, scope)
        if macro is not None:
            inlined = inline(walker, macro, call.lineno)
            found = next((e for e in inlined if isinstance(e, Hazard)), None)
            if found is not None:
                return found
    return None


def _compact(events: list[Event]) -> list[Event]:
    """Merge runs of token counts, so inlining a macro many times stays cheap."""
    merged: list[Event] = []
    for event in events:
        if isinstance(event, int) and merged and isinstance(merged[-1], int):
            merged[-1] += event
        else:
            merged.append(event)
    return merged
