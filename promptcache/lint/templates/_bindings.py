"""
What a scope binds a name to: a hazard, a stable value, a captured block of static text, a
macro, or an imported template's macros; and binding names, including those an `if` sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from jinja2 import nodes

from ._events import Event, Hazard
from ._nodes import with_self

if TYPE_CHECKING:
    from ._walker import Walker


__all__ = [
    "STABLE",
    "Captured",
    "Macro",
    "Scope",
    "assigned_names",
    "bind",
    "mutated_name",
    "scope_with",
    "set_under",
]


class _Stable:
    """A locally bound name whose value is the same on every request (it shadows globals)."""


STABLE = _Stable()


@dataclass(slots=True)
class Captured:
    """A `{% set x %}...{% endset %}` of static text: rendering `x` renders these tokens."""

    tokens: int


@dataclass(slots=True, eq=False)
class Macro:
    name: str
    node: nodes.Macro
    scope: dict[str, Any]
    walker: Walker
    events: list[Event] | None = None
    busy: bool = False


_Binding = Union[Hazard, _Stable, Captured, Macro, dict[str, Macro]]  # noqa: UP007
Scope = dict[str, Any]


def assigned_names(node: nodes.If) -> set[str]:
    """The names an `if` chain's branches set (`x`, `ns.attr`), nested branches included."""
    names: set[str] = set()
    for branch in (node.body, node.else_, *(e.body for e in node.elif_)):
        for stmt in branch:
            assigns = [*with_self(stmt, nodes.Assign), *with_self(stmt, nodes.AssignBlock)]
            for assign in assigns:
                target = assign.target
                if type(target) is nodes.NSRef:
                    names.add(f"{target.name}.{target.attr}")
                else:
                    names |= {n.name for n in with_self(target, nodes.Name)}
            names |= {name for call in with_self(stmt, nodes.Call) if (name := mutated_name(call))}
    return names


# Methods that change a list or dict in place: `{% set _ = missing.append(req) %}` and
# `{% do seen.update(more) %}` fill a value the template renders later.
_MUTATORS = frozenset({"append", "extend", "insert", "update", "add", "setdefault"})


def mutated_name(call: nodes.Call) -> str | None:
    """The name a call changes in place (`missing` for `missing.append(req)`), or None."""
    callee = call.node
    if type(callee) is nodes.Getattr and callee.attr in _MUTATORS:
        receiver = callee.node
        if type(receiver) is nodes.Name:
            return receiver.name
    return None


def set_under(test: Hazard, name: str, line: int, origin: str) -> Hazard:
    """What a name set in a branch on `test` is: per-request, for the same cause."""
    cause, cause_line = test.origin_of()
    detail = f"`{name}`, set under an `{{% if %}}` on {cause} (line {cause_line})"
    return Hazard(
        test.code,
        line,
        name.split(".", 1)[0],
        detail,
        origin,
        cause=f"an `{{% if %}}` on {cause}",
        cause_line=line,
        fix=test.fix,
        conversation=test.conversation,
        per_conversation=test.per_conversation,
    )


def scope_with(scope: Scope, target: nodes.Node) -> Scope:
    inner = dict(scope)
    bind(inner, target, STABLE)
    return inner


def bind(scope: Scope, target: object, value: _Binding) -> None:
    if isinstance(target, str):
        scope[target] = value
    elif isinstance(target, nodes.Name):
        scope[target.name] = value
    elif isinstance(target, nodes.Tuple):
        for item in target.items:
            bind(scope, item, value)
