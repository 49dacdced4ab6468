"""
Message lists a function makes, grows and sends itself: `conversation = [{"role": "system", ...}]`,
then `conversation.append(user_turn)`, then `client.chat.completions.create(messages=conversation)`.

A system message that ends the list literal it is written in is judged there as if the whole
conversation followed it, since the list may be kept and grown into one. When the function only
appends to the list and sends it to an SDK call, what follows the system message is known where the
list is sent, and the sink judges it there (`Findings.messages`). Pure syntax over the function's
own body; no state.
"""

from __future__ import annotations

import ast

from ._handed import parents_of

__all__ = ["sent_where_grown"]

# The SDK calls a message list is sent to as `messages=`, named by their last attributes.
_SENDS = (
    ("chat", "completions", "create"),
    ("messages", "create"),
    ("completion",),
    ("acompletion",),
)


def sent_where_grown(function: ast.AST | None, literal: ast.List) -> bool:
    """Whether `literal` is bound to a local name of `function` that the function only grows
    (`append`), renames and sends as `messages=` to an SDK call: never returned, stored, passed
    on, iterated, nor used in a loop that sends it again."""
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    return _judged_at_send(function, id(literal))


def _judged_at_send(function: ast.FunctionDef | ast.AsyncFunctionDef, literal: int) -> bool:
    names = _local_names(function, literal)
    if not names:
        return False
    parents = parents_of(function)
    sends = 0
    for node, parent in _loads(function, parents):
        if node.id not in names:
            continue
        if isinstance(parent, ast.Attribute) and parent.attr == "append":
            continue
        if isinstance(parent, ast.Assign) and parent.value is node:
            continue  # a rename: its target is among the names
        if isinstance(parent, ast.keyword) and parent.arg == "messages":
            sends += 1
            continue
        return False
    return sends > 0 and not _sent_in_a_loop(function, names, parents)


def _local_names(function: ast.FunctionDef | ast.AsyncFunctionDef, literal: int) -> set[str]:
    """The name the literal is bound to, and the names bound to that name (`a = b`)."""
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Global | ast.Nonlocal):
            return set()
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if not isinstance(target, ast.Name):
                continue
            if id(node.value) == literal or (
                isinstance(node.value, ast.Name) and node.value.id in names
            ):
                names.add(target.id)
    return names


def _loads(function: ast.AST, parents: dict[int, ast.AST]) -> list[tuple[ast.Name, ast.AST]]:
    return [
        (node, parents.get(id(node), function))
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    ]


def _sent_in_a_loop(function: ast.AST, names: set[str], parents: dict[int, ast.AST]) -> bool:
    """Whether a send of the list sits in a loop (the list then grows into a conversation), or
    the call it is sent to is not one of the SDK calls the analysis judges a list at."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            value = keyword.value
            sent = keyword.arg == "messages" and isinstance(value, ast.Name) and value.id in names
            if sent and (not _is_send(node.func) or _in_loop(node, parents, function)):
                return True
    return False


def _is_send(func: ast.expr) -> bool:
    chain: list[str] = []
    while isinstance(func, ast.Attribute):
        chain.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        chain.append(func.id)
    chain.reverse()
    return any(tuple(chain[-len(send) :]) == send for send in _SENDS)


def _in_loop(node: ast.AST, parents: dict[int, ast.AST], function: ast.AST) -> bool:
    current = parents.get(id(node))
    while current is not None and current is not function:
        if isinstance(current, ast.For | ast.AsyncFor | ast.While):
            return True
        current = parents.get(id(current))
    return False
