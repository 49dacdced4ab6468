"""
Chat platforms' reads of a channel's newest messages (`frameworks/`' `HistoryRead`s): a bot
that rebuilds its conversation from `channel.history(limit=20)` on every message sends the
newest 20 messages, a window that slides with each new one (PC507 where they reach a request
as the conversation, as for any other window).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from ._knowledge import HistoryRead
from ._request_data import imports_one
from ._sinks import HISTORY_READS
from ._walk import statements

__all__ = ["history_read"]


def history_read(
    node: ast.Call, imports: dict[str, str], scope: Sequence[ast.stmt]
) -> tuple[str, ast.AST] | None:
    """What the method call `node` keeps of a chat platform's channel ("reads the channel's
    newest 20 messages"), in a module whose `imports` (alias -> dotted name) name that platform,
    and what makes it slide (the call, or the time counted back that it reads from); None when it
    is no such read, or reads the whole history, the newest message alone or the messages from a
    fixed point on. `scope`: the statements of the function the call is made in."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        return None
    for read in HISTORY_READS.get(func.attr, ()):
        if imports_one(imports, read.imported):
            return _kept(node, read, scope)
    return None


def _kept(
    node: ast.Call, read: HistoryRead, scope: Sequence[ast.stmt]
) -> tuple[str, ast.AST] | None:
    anchors = [k.value for k in node.keywords if k.arg in read.anchors]
    anchors += [node.args[i] for i in read.anchor_positions if i < len(node.args)]
    anchors = [a for a in anchors if not _unset(a)]
    for anchor in anchors:
        moving = _counted_back(anchor, scope)
        if moving is not None:
            return "where a channel's history read starts: a time counted back from now", moving
    if anchors:
        return None
    kept = _newest(node, read)
    return (f"reads {kept}", node) if kept else None


def _newest(node: ast.Call, read: HistoryRead) -> str:
    limit = next((k.value for k in node.keywords if k.arg == read.limit), None)
    if limit is None and 0 <= read.position < len(node.args):
        limit = node.args[read.position]
    if limit is None and _splatted(node) and read.default > 1:
        # `history(**opts)`: the limit is in what the analysis does not read. A window with no
        # limit given, and with any limit but None, 0 or 1: said so, not taken as the default.
        return (
            f"the channel's newest messages, as many as its unread arguments say"
            f" ({read.default} when they give no limit)"
        )
    if limit is None:
        return (
            f"the channel's newest {read.default} messages, its default" if read.default > 1 else ""
        )
    if not isinstance(limit, ast.Constant):
        return "the channel's newest messages, as many as its limit"  # a number the code computes
    n = limit.value
    return f"the channel's newest {n} messages" if type(n) is int and n > 1 else ""


def _splatted(node: ast.Call) -> bool:
    """`history(**opts)` or `history(*args)`: arguments the analysis does not read."""
    return any(k.arg is None for k in node.keywords) or any(
        isinstance(a, ast.Starred) for a in node.args
    )


def _unset(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and value.value in (None, False)


def _counted_back(anchor: ast.expr, scope: Sequence[ast.stmt]) -> ast.expr | None:
    """A point counted back from now or from this message (`message.created_at -
    timedelta(hours=1)`, also through a name the function assigns it to): it moves with every
    request, so the messages after it are a window that slides (the last hour's). None for
    anything else."""
    if isinstance(anchor, ast.Name):
        anchor = next(
            (v for s in statements(list(scope)) if (v := _assigned(s, anchor.id)) is not None),
            anchor,
        )
    return anchor if isinstance(anchor, ast.BinOp) and isinstance(anchor.op, ast.Sub) else None


def _assigned(statement: ast.stmt, name: str) -> ast.expr | None:
    """The value `statement` assigns to `name` (`since = ...`, `since: datetime = ...`)."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign):
        target = statement.target
    else:
        return None
    return statement.value if isinstance(target, ast.Name) and target.id == name else None
