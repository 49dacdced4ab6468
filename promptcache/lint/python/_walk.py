"""
Walks of a syntax tree that cost less than `ast.walk`: the same nodes in the same order, but
the ones without children (`Load`, `Store`, operators), which no look-up of the linter reads.
`ast.walk` spends most of its time in its generic generators and on those leaves.
"""

from __future__ import annotations

import ast

__all__ = ["push_children", "walk"]


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
