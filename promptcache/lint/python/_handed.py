"""
Where the object a call or literal makes goes, read from the syntax of the body it is made in:
handed straight to a keyword of another call or appended to a list, or bound to a local name
whose every read is one of those. Pure syntax; no state.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

__all__ = ["appended_to_kept_list", "only_handed_to", "parents_of"]


def parents_of(body: ast.AST) -> dict[int, ast.AST]:
    """Each node's parent under `body`, by the child's id."""
    return {id(child): node for node in ast.walk(body) for child in ast.iter_child_nodes(node)}


def only_handed_to(
    body: ast.AST, made: ast.Call, keyword: str, accepts: Callable[[ast.Call], bool]
) -> bool:
    """Whether what `made` returns reaches nothing but `keyword=` of calls that `accepts`:
    written there, or bound to a name (`memory = ...`) read only there. One kept anywhere else
    (on an object, in a container, returned) may go anywhere: False."""
    parents = parents_of(body)

    def handed(parent: ast.AST | None) -> bool:
        call = parents.get(id(parent))
        return (
            isinstance(parent, ast.keyword)
            and parent.arg == keyword
            and isinstance(call, ast.Call)
            and accepts(call)
        )

    reads = _reads(body, made, parents)
    return bool(reads) and all(handed(read) for read in reads)


def appended_to_kept_list(body: ast.AST, literal: ast.expr, *, to_parameters: bool) -> bool:
    """Whether `literal` is appended (`turns.append(literal)`, or through a name bound to it whose
    other reads only read its fields) to a list that `body` does not bind itself: an object's or
    a module's list, a history the function grows rather than makes; with `to_parameters`, a
    parameter's list too (a helper may be handed a fresh list to open)."""
    parents = parents_of(body)
    made = {ast.unparse(t) for node in ast.walk(body) for t in _targets(node)}
    if not to_parameters and isinstance(body, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        arguments = body.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        made |= {a.arg for a in every}
    appended = False
    for read in _reads(body, literal, parents):
        if isinstance(read, ast.Subscript):
            continue  # `message["content"]`: a field read, the message stays where it is
        func = read.func if isinstance(read, ast.Call) else None
        if not isinstance(func, ast.Attribute) or func.attr != "append":
            return False
        if ast.unparse(func.value) in made:
            return False
        appended = True
    return appended


def _reads(body: ast.AST, made: ast.expr, parents: dict[int, ast.AST]) -> list[ast.AST | None]:
    """The parents of the places `made`'s value is read: its own parent, or, where it is bound to
    a local name (`x = made`), the parent of each read of that name. Bound anywhere else: []."""
    parent = parents.get(id(made))
    if not isinstance(parent, ast.Assign):
        return [parent]
    if len(parent.targets) != 1 or not isinstance(parent.targets[0], ast.Name):
        return []
    name = parent.targets[0].id
    return [
        parents.get(id(node))
        for node in ast.walk(body)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
    ]


def _targets(node: ast.AST) -> list[ast.expr]:
    """The targets `node` binds (`a = b = ...`, `a, b = ...`, `a: list = ...`)."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign):
        targets = [node.target]
    else:
        return []
    return [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple | ast.List) else [t])]
