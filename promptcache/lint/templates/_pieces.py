"""
What a branch writes, as pieces: runs of static text and the expressions between them (`a + b`
taken apart); whether two branches differ only by text at the end, or write only static text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

from jinja2 import nodes

from ._nodes import renders

__all__ = ["differ_only_at_the_end", "static_only", "static_text"]

_Piece = Union[str, nodes.Node]  # noqa: UP007 - a runtime alias on Python 3.10


def differ_only_at_the_end(body: Sequence[nodes.Node], else_: Sequence[nodes.Node]) -> bool:
    """Whether two branches write the same pieces, one followed only by more static text (or a
    special token: `content + eos_token` against `content`)."""
    first, second = _pieces(body), _pieces(else_)
    if first is None or second is None or first == second:
        return False
    return _ends_with_more_text(first, second) or _ends_with_more_text(second, first)


def _ends_with_more_text(short: Sequence[_Piece], long: Sequence[_Piece]) -> bool:
    """Whether `long` is `short` followed by static text only."""
    if not short or len(long) < len(short):
        return False
    head = len(short) - 1
    if short[:head] != long[:head]:
        return False
    last, rest = short[head], long[head:]
    if isinstance(last, str):  # the short side's last text starts the long side's
        return isinstance(rest[0], str) and rest[0].startswith(last) and _all_text(rest[1:])
    return rest[0] == last and _all_text(rest[1:])


def _all_text(pieces: Sequence[_Piece]) -> bool:
    """Static text or the tokenizer's special tokens (`eos_token`): a separator either way."""
    return all(isinstance(piece, str) or _special(piece) for piece in pieces)


def _pieces(stmts: Sequence[nodes.Node]) -> list[_Piece] | None:
    """What a branch writes, in order: runs of static text, and the expressions between them
    (`a + b` concatenations taken apart); None when it does more than write output."""
    pieces: list[_Piece] = []
    for stmt in stmts:
        if not isinstance(stmt, nodes.Output):
            return None
        for child in stmt.nodes:
            for piece in _concatenated(child):
                if isinstance(piece, str) and pieces and isinstance(pieces[-1], str):
                    pieces[-1] += piece
                else:
                    pieces.append(piece)
    return pieces


def _concatenated(expr: nodes.Node) -> list[_Piece]:
    if type(expr) is nodes.TemplateData:
        return [expr.data]
    if type(expr) is nodes.Const and isinstance(expr.value, str):
        return [expr.value]
    if type(expr) is nodes.Add:
        return [*_concatenated(expr.left), *_concatenated(expr.right)]
    if type(expr) is nodes.Concat:  # `a ~ b`
        return [piece for part in expr.nodes for piece in _concatenated(part)]
    return [expr]


def static_only(stmts: Sequence[nodes.Node]) -> bool:
    """Whether statements render only text written in the template or the tokenizer's special
    tokens (`eos_token`: the same on every request), no other variable and no call."""
    for stmt in stmts:
        if not isinstance(stmt, nodes.Output):
            if renders(stmt):
                return False
            continue
        for child in stmt.nodes:
            constant = type(child) is nodes.Const and isinstance(child.value, str)
            if type(child) is not nodes.TemplateData and not constant and not _special(child):
                return False
    return True


def _special(node: nodes.Node) -> bool:
    """A special token of the tokenizer (`eos_token`, `bos_token`), or text joined to one."""
    if type(node) is nodes.Name:
        return node.name.endswith("_token")
    if type(node) in (nodes.Add, nodes.Concat):
        return all(
            type(piece) is nodes.TemplateData or isinstance(piece, str) or _special(piece)
            for piece in _concatenated(node)
        )
    return False


def without_guards(stmts: Sequence[nodes.Node]) -> list[nodes.Node]:
    """`stmts` without the outputs that only call `raise_exception(...)`: a template's guard
    against a malformed request, which aborts the render rather than writing anything."""
    return [stmt for stmt in stmts if not _only_raises(stmt)]


def _only_raises(stmt: nodes.Node) -> bool:
    if not isinstance(stmt, nodes.Output):
        return False
    calls = [
        child
        for child in stmt.nodes
        if not (type(child) is nodes.TemplateData and not child.data.strip())
    ]
    return bool(calls) and all(
        type(c) is nodes.Call and type(c.node) is nodes.Name and c.node.name == "raise_exception"
        for c in calls
    )


def static_text(stmts: Sequence[nodes.Node]) -> str | None:
    """The text statements write when it is all static (None otherwise), without blank edges."""
    pieces = _pieces([stmt for stmt in stmts if renders(stmt)])
    if pieces is None or not all(isinstance(piece, str) for piece in pieces):
        return None
    return "".join(piece for piece in pieces if isinstance(piece, str)).strip() or None
