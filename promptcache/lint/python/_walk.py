"""
Walks of a syntax tree that cost less than `ast.walk`: the same nodes in the same order, but
the ones without children (`Load`, `Store`, operators), which no look-up of the linter reads.
`ast.walk` spends most of its time in its generic generators and on those leaves.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

__all__ = ["push_children", "statements", "walk"]


def push_children(node: ast.AST, todo: list[ast.AST]) -> None:
    """`todo.extend(ast.iter_child_nodes(node))`, in the same order, without childless nodes."""
    for field in node._fields:
        child = getattr(node, field, None)
        if isinstance(child, list):
            todo.extend([c for c in child if isinstance(c, ast.AST) and c._fields])
        elif isinstance(child, ast.AST) and child._fields:
            todo.append(child)


def walk(tree: ast.AST) -> list[ast.AST]:
    """The nodes of `ast.walk(tree)` in its order (breadth first), without childless nodes."""
    nodes = [tree]
    append, extend = nodes.append, nodes.extend
    for node in nodes:  # the list grows as it is read: each node's children join its end
        for field in node._fields:  # `push_children`, inlined: a call per node cost a third
            child = getattr(node, field, None)
            if isinstance(child, list):
                extend([c for c in child if isinstance(c, ast.AST) and c._fields])
            elif isinstance(child, ast.AST) and child._fields:
                append(child)
    return nodes


def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement, nested ones included, without walking into expressions (imports are
    statements, so this finds them all at a fraction of `ast.walk`'s cost)."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        kind = type(node)
        fields = _NESTED_BY_TYPE.get(kind)
        if fields is None:
            fields = _nested_fields(kind)
        for name in fields:
            children = getattr(node, name, None)
            if isinstance(children, list):
                stack.extend(reversed(children))


_NESTED = ("body", "orelse", "finalbody", "handlers", "cases")


_NESTED_BY_TYPE: dict[type, tuple[str, ...]] = {}


def _nested_fields(kind: type) -> tuple[str, ...]:
    """Which of the statement-list fields a node type has (most statements have none), in the
    order the walk has always taken them."""
    found = _NESTED_BY_TYPE.get(kind)
    if found is None:
        fields = getattr(kind, "_fields", ())
        found = _NESTED_BY_TYPE[kind] = tuple(name for name in _NESTED if name in fields)
    return found
