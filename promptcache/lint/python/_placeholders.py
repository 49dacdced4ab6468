"""
Where a template's `{placeholder}` is written in the source: the line a finding about the value
filled into it names as `written_at`, since the fix (move the placeholder after the static
instructions) goes there, not where the value is read or where `.format(...)` is called.

A template's text keeps no position (`Value.pieces` are plain strings), so the placeholder is
found again among the module's string literals: the one literal that holds the template's text
around it. None when no literal does, or when several on different lines could (the same
template written twice): the caller then keeps the place it knew.
"""

from __future__ import annotations

import ast
import bisect
from typing import NamedTuple

from ._project import Module
from ._walk import walk

__all__ = ["Slot", "placeholder_line", "slot_at"]


class Slot(NamedTuple):
    """Where a template variable lands: the static characters after it, the position it reaches
    ("system", "messages", "template", ...) and, when its placeholder is found in a literal, the
    module and line it is written on."""

    after: int
    role: str
    written: tuple[str, int] | None = None
    lines: int | None = None  # lines holding text after it, where counted (`Hit.lines`)


def slot_at(
    module: Module | None,
    text: str,
    start: int,
    end: int,
    after: int,
    role: str,
    lines: int | None = None,
) -> Slot:
    """The slot of the placeholder `text[start:end]`, placed in `module` when it is written there."""
    line = None if module is None else placeholder_line(module, text, start, end)
    if module is None or line is None:
        return Slot(after, role, None, lines)
    return Slot(after, role, (module.display, line), lines)


def placeholder_line(
    module: Module, text: str, start: int, end: int, *, besides: ast.AST | None = None
) -> int | None:
    """The line of `module` where `text[start:end]`, a placeholder of template text `text`, is
    written: in the literal of the module that holds that part of `text` (other than `besides`,
    the literal that names it to a fill: `.replace("{now}", ...)`)."""
    placeholder = text[start:end]
    lines = {
        line
        for literal in _literals(module)
        if placeholder in literal[0] and literal[1] is not besides
        for line in [_line_in(module, literal, text, start, placeholder)]
        if line is not None
    }
    return lines.pop() if len(lines) == 1 else None


def _line_in(
    module: Module, literal: Literal, text: str, start: int, placeholder: str
) -> int | None:
    """The line of the placeholder at `start` of `text` in `literal`, when the literal is the
    part of `text` that holds it (its n-th use in the literal is the n-th in the source)."""
    value, node, before, escaped = literal
    at = text.find(value, max(0, start + len(placeholder) - len(value)))
    if at < 0 or not at <= start <= at + len(value) - len(placeholder):
        return None
    nth = before.count(placeholder) + value.count(placeholder, 0, start - at)
    written = placeholder.replace("{", "{{").replace("}", "}}") if escaped else placeholder
    source, wanted = _source_of(module, node), written.encode("utf-8")
    found = -1
    for _ in range(nth + 1):
        found = source.find(wanted, found + 1)
        if found < 0:  # written with escapes: its line is not known
            return None
    return node.lineno + source.count(b"\n", 0, found)


def _source_of(module: Module, node: ast.expr) -> bytes:
    """The literal as written, its lines joined by \\n (from the module's lines, split once:
    `ast.get_source_segment` splits the whole source at each call)."""
    first, last = node.lineno, node.end_lineno or node.lineno
    lines = [module.line_bytes(line) for line in range(first, last + 1)]
    lines[-1] = lines[-1][: node.end_col_offset]
    lines[0] = lines[0][node.col_offset :]
    return b"\n".join(lines)


# A string literal that may hold a placeholder: its text, the node whose source holds it, the
# text of the f-string before it, and whether it is an f-string's (its braces written doubled).
Literal = tuple[str, ast.expr, str, bool]


def _literals(module: Module) -> list[Literal]:
    """The module's string literals that may hold a placeholder (made once per module). The text
    of an f-string is found in the f-string's source (before Python 3.12 its parts carry no
    position of their own), as `{{name}}`."""
    if module.literals is None:
        found: list[Literal] = []
        inside: set[int] = set()
        for node in _braced_nodes(module):
            if isinstance(node, ast.JoinedStr):
                before = ""
                for part in node.values:
                    inside.add(id(part))
                    if isinstance(part, ast.Constant) and isinstance(part.value, str):
                        if "{" in part.value:
                            found.append((part.value, node, before, True))
                        before += part.value
            elif (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and "{" in node.value
                and id(node) not in inside
            ):
                found.append((node.value, node, "", False))
        module.literals = found
    return module.literals


def _braced_nodes(module: Module) -> list[ast.AST]:
    """The nodes of the module's top-level statements that have a `{` in their lines (each
    statement's nodes in `ast.walk`'s order, without the childless leaves). A literal of any
    other statement has no `{` written in it: `_line_in` finds no placeholder there (one its
    value holds through an escape, `\\x7b`, is not written as such), so it cannot place one, and
    the walk of most of a module is spared."""
    braces = _brace_lines(module.source)
    nodes: list[ast.AST] = []
    if not braces:
        return nodes
    for statement in module.tree.body:
        first = statement.lineno
        for decorator in getattr(statement, "decorator_list", ()):  # above its `def` line
            first = min(first, decorator.lineno)
        at = bisect.bisect_left(braces, first)
        if at < len(braces) and braces[at] <= (statement.end_lineno or statement.lineno):
            nodes.extend(walk(statement))
    return nodes


def _brace_lines(source: str) -> list[int]:
    """The lines (1-based, as `ast` counts them: a line ends at \\n, \\r\\n or \\r) holding a `{`."""
    if "{" not in source:
        return []
    if "\r" in source:
        source = source.replace("\r\n", "\n").replace("\r", "\n")
    lines: list[int] = []
    line, counted = 1, 0
    at = source.find("{")
    while at >= 0:
        line += source.count("\n", counted, at)
        counted = at
        lines.append(line)
        end = source.find("\n", at)
        if end < 0:
            break
        at = source.find("{", end)
    return lines
