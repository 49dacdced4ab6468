"""Where a node is, and how a finding names it (its source text, without string literals:
a label names code, and literals may be prompt text)."""

from __future__ import annotations

import ast

from ._project import Module
from ._values import Taint
from ._walk import walk

__all__ = ["method_name", "node_label", "node_location", "node_span", "taint_at"]


def node_location(module: Module, node: ast.AST) -> tuple[int, int]:
    """1-based line and column in characters (`ast` gives UTF-8 byte offsets)."""
    line = getattr(node, "lineno", 1)
    offset = getattr(node, "col_offset", 0)
    if offset:
        offset = module.char_column(line, offset)
    return line, offset + 1


def method_name(call: ast.Call) -> ast.AST:
    """Where the method a call runs is named: `.limit` on its own line of a chain written one
    call a line (`select(Message)` / `.order_by(...)` / `.limit(20)`), where the call itself
    starts at the chain's first line. The call when it is not a method's or fits one line."""
    func = call.func
    end, stop = func.end_lineno, func.end_col_offset
    if not isinstance(func, ast.Attribute) or end is None or stop is None or end == call.lineno:
        return call
    spot = ast.Name(id=func.attr)
    spot.lineno = spot.end_lineno = end
    spot.col_offset, spot.end_col_offset = stop - len(func.attr.encode()), stop
    return spot


def node_label(module: Module, node: ast.AST) -> str:
    """The node's source text, shortened: what a finding names (never more than 60 characters)."""
    line, end_line = getattr(node, "lineno", 0), getattr(node, "end_lineno", 0)
    start, end = getattr(node, "col_offset", 0), getattr(node, "end_col_offset", 0)
    raw = module.line_bytes(line)
    end = end if end_line == line else len(raw)
    text = _without_text(raw, node, line, start, end) + (b"" if end_line == line else b" ...")
    label = " ".join(text.decode("utf-8", "replace").split()) or type(node).__name__
    return label if len(label) <= 60 else label[:57] + "..."


def _without_text(raw: bytes, node: ast.AST, line: int, start: int, end: int) -> bytes:
    """
    `raw[start:end]` (of line `line`) with each string literal of `node` in it shown as
    `"..."`: a label names code, and its literals may be prompt text, which no finding carries.
    """
    segment = raw[start:end]
    if b"'" not in segment and b'"' not in segment:
        return segment  # no quote, no literal (`datetime.now()`): nothing to walk for
    spans = []
    for sub in walk(node):
        if not isinstance(sub, ast.JoinedStr | ast.Constant) or sub.lineno != line:
            continue
        if isinstance(sub, ast.Constant) and not isinstance(sub.value, str | bytes):
            continue
        stop = sub.end_col_offset if sub.end_lineno == line else None
        spans.append((max(sub.col_offset, start), min(stop or end, end)))
    kept, position = b"", start
    for first, stop in sorted(spans):
        if first >= position:  # a literal inside an f-string already hidden is skipped
            kept += raw[position:first] + b'"..."'
            position = stop
    return kept + raw[position:end]


def node_span(module: Module, node: ast.AST) -> tuple[int, int, int, int]:
    return (
        getattr(node, "lineno", 1),
        getattr(node, "col_offset", 0),
        getattr(node, "end_lineno", 1) or 1,
        getattr(node, "end_col_offset", 0) or 0,
    )


def taint_at(
    module: Module,
    code: str,
    label: str,
    node: ast.AST,
    *,
    fix: tuple[str, int, int, int, int] | None = None,
    fixable: bool = False,
    answer: bool = False,
) -> Taint:
    """A source of variation (`code`) found at `node` of `module`, named by `label`."""
    line, column = node_location(module, node)
    return Taint(
        code=code,
        label=label,
        path=module.display,
        line=line,
        column=column,
        fix=fix,
        fixable=fixable,
        answer=answer,
    )
