"""
Shapes of Jinja nodes, read without a walker: dotted names, the variable an expression shows,
loop attributes, `messages`, what a statement renders, namespace flags set and read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from jinja2 import nodes

from ..rules.PC302 import POSITION_ATTRS

__all__ = [
    "GENERATION_PROMPT",
    "calls",
    "chain_tests",
    "defaulted",
    "dotted_name",
    "flags_read",
    "is_empty_string",
    "is_look_ahead",
    "is_loop_attr",
    "is_loop_index",
    "is_messages",
    "is_negative",
    "namespace_sets",
    "reads_the_next_item",
    "renders",
    "shown_name",
    "with_self",
]

GENERATION_PROMPT = "add_generation_prompt"


def dotted_name(expr: nodes.Node) -> str | None:
    """`user.profile.name` for a chain of attribute (or constant-key item) lookups on a name."""
    parts: list[str] = []
    while True:
        kind = type(expr)
        if kind is nodes.Name:
            parts.append(expr.name)  # type: ignore[attr-defined]
            return ".".join(reversed(parts))
        if kind is nodes.Getattr:
            parts.append(expr.attr)  # type: ignore[attr-defined]
        elif kind is nodes.Getitem and type(expr.arg) is nodes.Const:  # type: ignore[attr-defined]
            parts.append(str(expr.arg.value))  # type: ignore[attr-defined]
        else:
            return None
        expr = expr.node  # type: ignore[attr-defined]


def calls(expr: nodes.Node) -> Iterable[nodes.Call]:
    return with_self(expr, nodes.Call)


def shown_name(expr: nodes.Node) -> str | None:
    """
    The variable a rendered expression shows (`tools` for `tools | tojson(indent=2)`), also
    written with a fallback for when it is missing (`body or ""`, `card if card else 'none'`)
    or formatted (`'%.2f' | format(total)`).
    """
    node: Any = expr
    while True:
        kind = type(node)
        if kind is nodes.Or and type(node.right) is nodes.Const:
            node = node.left
            continue
        if kind is nodes.CondExpr and (node.expr2 is None or type(node.expr2) is nodes.Const):
            node = node.expr1
            continue
        if kind is nodes.Filter and node.name == "format" and type(node.node) is nodes.Const:
            if len(node.args) != 1:
                return None
            node = node.args[0]
            continue
        through = kind in (nodes.Filter, nodes.Test, nodes.Call) or (
            kind is nodes.Getitem and type(node.arg) is not nodes.Const
        )
        if not through:
            break
        node = node.node
        if node is None:
            return None
    return dotted_name(node)


def is_look_ahead(expr: nodes.Node) -> bool:
    """`messages[loop.index:]`: the messages after the current one."""
    if type(expr) is not nodes.Getitem or type(expr.arg) is not nodes.Slice:
        return False
    start = expr.arg.start
    return start is not None and any(is_loop_index(n) for n in with_self(start, nodes.Getattr))


def namespace_sets(body: Sequence[nodes.Node]) -> set[str]:
    """The `ns.attr` names a body assigns with `{% set ns.attr = ... %}`."""
    found: set[str] = set()
    for stmt in body:
        for assign in with_self(stmt, nodes.Assign):
            if type(assign.target) is nodes.NSRef:
                found.add(f"{assign.target.name}.{assign.target.attr}")
    return found


def flags_read(test: nodes.Node) -> set[str]:
    return {
        f"{attr.node.name}.{attr.attr}"
        for attr in with_self(test, nodes.Getattr)
        if type(attr.node) is nodes.Name
    }


def is_messages(expr: nodes.Node) -> bool:
    if _is_range_call(expr):  # `range(messages | length)`: the history walked by index
        return any(is_messages(arg) for arg in expr.args)  # type: ignore[attr-defined]
    if type(expr) is nodes.CondExpr:  # `messages if messages is defined else []`: a guard
        return is_messages(expr.expr1) or (expr.expr2 is not None and is_messages(expr.expr2))
    dotted = dotted_name(expr)
    if dotted is None and type(expr) is nodes.Getitem:  # messages[1:]
        dotted = dotted_name(expr.node)
    if dotted is None and type(expr) is nodes.Filter and expr.node is not None:
        return is_messages(expr.node)
    return dotted is not None and "messages" in dotted.lower()


def _is_range_call(expr: nodes.Node) -> bool:
    return type(expr) is nodes.Call and type(expr.node) is nodes.Name and expr.node.name == "range"


def renders(stmt: nodes.Node) -> bool:
    """Whether a statement writes output (whitespace-only text does not count)."""
    if isinstance(stmt, (nodes.Assign, nodes.AssignBlock, nodes.ExprStmt, nodes.Macro)):
        return False
    if isinstance(stmt, nodes.Output):
        return any(
            not (type(child) is nodes.TemplateData and not child.data.strip())
            for child in stmt.nodes
        )
    return True


def reads_the_next_item(expr: nodes.Node) -> bool:
    """`messages[loop.index0 + 1]` or `messages[loop.index]`: the message after this one."""
    return any(
        (
            type(item.arg) is nodes.Add
            and any(is_loop_index(n) for n in with_self(item.arg, nodes.Getattr))
        )
        or (type(item.arg) is nodes.Getattr and is_loop_attr(item.arg, "index"))
        for item in with_self(expr, nodes.Getitem)
    )


def is_loop_attr(node: nodes.Getattr, attr: str) -> bool:
    return type(node.node) is nodes.Name and node.node.name == "loop" and node.attr == attr


def is_negative(node: nodes.Node) -> bool:
    if type(node) is nodes.Const:
        return isinstance(node.value, int) and not isinstance(node.value, bool) and node.value < 0
    return type(node) is nodes.Neg


def is_loop_index(node: nodes.Node) -> bool:
    return (
        type(node) is nodes.Getattr
        and type(node.node) is nodes.Name
        and node.node.name == "loop"
        and node.attr in POSITION_ATTRS
    )


def with_self(node: nodes.Node, kind: type[Any]) -> Iterable[Any]:
    """`node.find_all(kind)`, which skips `node` itself, plus `node` when it is a `kind`."""
    if isinstance(node, kind):
        yield node
    yield from node.find_all(kind)


def defaulted(expr: nodes.Node) -> tuple[str, str] | None:
    """(name, fallback) for `name if name is defined else 'text'` or `name | default('text')`."""
    fallback: nodes.Node | None
    if type(expr) is nodes.CondExpr:
        test, value, fallback = expr.test, expr.expr1, expr.expr2
        tested = type(test) is nodes.Test and test.name == "defined"
        name = dotted_name(test.node) if tested else None  # type: ignore[attr-defined]
        if name is None or value is None or dotted_name(value) != name:
            return None
    elif type(expr) is nodes.Filter and expr.name == "default" and expr.node is not None:
        name = dotted_name(expr.node)
        fallback = expr.args[0] if expr.args else None
        if name is None:
            return None
    else:
        return None
    if type(fallback) is nodes.Const and isinstance(fallback.value, str) and fallback.value.strip():
        return name, fallback.value
    return None


def chain_tests(node: nodes.If) -> list[nodes.Node]:
    return [node.test, *(elif_.test for elif_ in node.elif_)]


def is_empty_string(node: nodes.Node) -> bool:
    return type(node) is nodes.Const and node.value == ""
