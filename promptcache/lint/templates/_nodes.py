"""
Shapes of Jinja nodes, read without a walker: dotted names, the variable an expression shows,
loop attributes, `messages`, what a statement renders, namespace flags set and read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from jinja2 import nodes

from ..rules.PC302 import POSITION_ATTRS

_GENERATION_PROMPT = "add_generation_prompt"


def _dotted(expr: nodes.Node) -> str | None:
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


def _calls(expr: nodes.Node) -> Iterable[nodes.Call]:
    return _with_self(expr, nodes.Call)


def _shown_name(expr: nodes.Node) -> str | None:
    """The variable a rendered expression shows (`tools` for `tools | tojson(indent=2)`)."""
    node: Any = expr
    while True:
        kind = type(node)
        through = kind in (nodes.Filter, nodes.Test, nodes.Call) or (
            kind is nodes.Getitem and type(node.arg) is not nodes.Const
        )
        if not through:
            break
        node = node.node
        if node is None:
            return None
    return _dotted(node)


def _is_look_ahead(expr: nodes.Node) -> bool:
    """`messages[loop.index:]`: the messages after the current one."""
    if type(expr) is not nodes.Getitem or type(expr.arg) is not nodes.Slice:
        return False
    start = expr.arg.start
    return start is not None and any(_is_loop_index(n) for n in _with_self(start, nodes.Getattr))


def _namespace_sets(body: Sequence[nodes.Node]) -> set[str]:
    """The `ns.attr` names a body assigns with `{% set ns.attr = ... %}`."""
    found: set[str] = set()
    for stmt in body:
        for assign in _with_self(stmt, nodes.Assign):
            if type(assign.target) is nodes.NSRef:
                found.add(f"{assign.target.name}.{assign.target.attr}")
    return found


def _flags_read(test: nodes.Node) -> set[str]:
    return {
        f"{attr.node.name}.{attr.attr}"
        for attr in _with_self(test, nodes.Getattr)
        if type(attr.node) is nodes.Name
    }


def _is_messages(expr: nodes.Node) -> bool:
    if _is_range_call(expr):  # `range(messages | length)`: the history walked by index
        return any(_is_messages(arg) for arg in expr.args)  # type: ignore[attr-defined]
    dotted = _dotted(expr)
    if dotted is None and type(expr) is nodes.Getitem:  # messages[1:]
        dotted = _dotted(expr.node)
    if dotted is None and type(expr) is nodes.Filter and expr.node is not None:
        return _is_messages(expr.node)
    return dotted is not None and "messages" in dotted.lower()


def _is_range_call(expr: nodes.Node) -> bool:
    return type(expr) is nodes.Call and type(expr.node) is nodes.Name and expr.node.name == "range"


def _renders(stmt: nodes.Node) -> bool:
    """Whether a statement writes output (whitespace-only text does not count)."""
    if isinstance(stmt, (nodes.Assign, nodes.AssignBlock, nodes.ExprStmt, nodes.Macro)):
        return False
    if isinstance(stmt, nodes.Output):
        return any(
            not (type(child) is nodes.TemplateData and not child.data.strip())
            for child in stmt.nodes
        )
    return True


def _reads_the_next_item(expr: nodes.Node) -> bool:
    """`messages[loop.index0 + 1]` or `messages[loop.index]`: the message after this one."""
    return any(
        (
            type(item.arg) is nodes.Add
            and any(_is_loop_index(n) for n in _with_self(item.arg, nodes.Getattr))
        )
        or (type(item.arg) is nodes.Getattr and _is_loop_attr(item.arg, "index"))
        for item in _with_self(expr, nodes.Getitem)
    )


def _is_loop_attr(node: nodes.Getattr, attr: str) -> bool:
    return type(node.node) is nodes.Name and node.node.name == "loop" and node.attr == attr


def _is_negative(node: nodes.Node) -> bool:
    if type(node) is nodes.Const:
        return isinstance(node.value, int) and not isinstance(node.value, bool) and node.value < 0
    return type(node) is nodes.Neg


def _is_loop_index(node: nodes.Node) -> bool:
    return (
        type(node) is nodes.Getattr
        and type(node.node) is nodes.Name
        and node.node.name == "loop"
        and node.attr in POSITION_ATTRS
    )


def _with_self(node: nodes.Node, kind: type[Any]) -> Iterable[Any]:
    """`node.find_all(kind)`, which skips `node` itself, plus `node` when it is a `kind`."""
    if isinstance(node, kind):
        yield node
    yield from node.find_all(kind)


def _defaulted(expr: nodes.Node) -> tuple[str, str] | None:
    """(name, fallback) for `name if name is defined else 'text'` or `name | default('text')`."""
    fallback: nodes.Node | None
    if type(expr) is nodes.CondExpr:
        test, value, fallback = expr.test, expr.expr1, expr.expr2
        tested = type(test) is nodes.Test and test.name == "defined"
        name = _dotted(test.node) if tested else None  # type: ignore[attr-defined]
        if name is None or value is None or _dotted(value) != name:
            return None
    elif type(expr) is nodes.Filter and expr.name == "default" and expr.node is not None:
        name = _dotted(expr.node)
        fallback = expr.args[0] if expr.args else None
        if name is None:
            return None
    else:
        return None
    if type(fallback) is nodes.Const and isinstance(fallback.value, str) and fallback.value.strip():
        return name, fallback.value
    return None


def _chain_tests(node: nodes.If) -> list[nodes.Node]:
    return [node.test, *(elif_.test for elif_ in node.elif_)]


def _is_empty_string(node: nodes.Node) -> bool:
    return type(node) is nodes.Const and node.value == ""
