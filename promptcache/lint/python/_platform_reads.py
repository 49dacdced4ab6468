"""
Chat platforms' reads of a channel's newest messages (`frameworks/`' `HistoryRead`s): a bot
that rebuilds its conversation from `channel.history(limit=20)` on every message sends the
newest 20 messages, a window that slides with each new one (PC507 where they reach a request
as the conversation, as for any other window).
"""

from __future__ import annotations

import ast

from ._knowledge import HistoryRead
from ._request_data import imports_one
from ._sinks import HISTORY_READS

__all__ = ["history_read"]


def history_read(node: ast.Call, imports: dict[str, str]) -> str:
    """What the method call `node` keeps of a chat platform's channel ("the newest 20
    messages"), in a module whose `imports` (alias -> dotted name) name that platform; "" when
    it is no such read, or reads the whole history, the newest message alone or the messages
    from a fixed point on."""
    func = node.func
    if not isinstance(func, ast.Attribute):
        return ""
    for read in HISTORY_READS.get(func.attr, ()):
        if imports_one(imports, read.imported):
            return _kept(node, read)
    return ""


def _kept(node: ast.Call, read: HistoryRead) -> str:
    if any(k.arg in read.anchors and not _unset(k.value) for k in node.keywords):
        return ""
    limit = next((k.value for k in node.keywords if k.arg == read.limit), None)
    if limit is None and 0 <= read.position < len(node.args):
        limit = node.args[read.position]
    if limit is None:
        return f"the newest {read.default} messages, its default" if read.default > 1 else ""
    if not isinstance(limit, ast.Constant):
        return "the newest messages, as many as its limit"  # a number the code computes
    n = limit.value
    return f"the newest {n} messages" if type(n) is int and n > 1 else ""


def _unset(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and value.value in (None, False)
