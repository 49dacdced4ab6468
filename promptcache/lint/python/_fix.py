"""
`promptcache lint --fix`: the rewrites that cannot change what a correct program means.

Three: `sort_keys=True` on a `json.dumps` (simplejson, ujson) whose result reaches a prefix (no
`**options` that might already set it), `option=orjson.OPT_SORT_KEYS` on an `orjson.dumps`
called through its module, and `sorted(...)` around a set of strings iterated into a prefix. Every
other finding is left for a person; the rewritten module must parse or nothing is written.
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .._config import LintConfig
from .._loader import read_source
from ._lint import PythonLinter
from ._project import display_path

__all__ = ["FixResult", "fix_file", "fix_paths", "fix_source"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FixResult:
    source: str
    applied: int


def fix_source(
    source: str, *, display: str, linter: PythonLinter, file: Path | None = None
) -> FixResult:
    """The source with every safe rewrite applied (the same text when there is none)."""
    linter.lint_source(source, display=display, file=file)
    edits: list[tuple[int, str]] = []
    seen: set[tuple[str, int, int]] = set()
    applied = 0  # the sites rewritten (a site seen but left as it is does not count)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return FixResult(source=source, applied=0)
    calls = {(n.lineno, n.col_offset): n for n in ast.walk(tree) if isinstance(n, ast.Call)}
    lines = source.splitlines(keepends=True)
    for hit in linter.last_hits:
        taint = hit.taint
        if taint.path != display or not taint.fixable or taint.fix is None:
            continue
        kind, line, col, end_line, end_col = taint.fix
        if (kind, line, col) in seen:
            continue
        seen.add((kind, line, col))
        if kind == "sort_keys":
            call = calls.get((line, col))
            if call is None or any(k.arg is None or k.arg == "sort_keys" for k in call.keywords):
                continue
            last = (call.keywords or call.args)[-1]
            assert last.end_lineno is not None and last.end_col_offset is not None
            edits.append((_offset(lines, last.end_lineno, last.end_col_offset), ", sort_keys=True"))
            applied += 1
        elif kind == "orjson_option":
            call = calls.get((line, col))
            found = _orjson_option(lines, call) if call is not None else None
            if found is None:
                continue
            edits.extend(found)
            applied += 1
        elif kind == "sorted":
            edits.append((_offset(lines, line, col), "sorted("))
            edits.append((_offset(lines, end_line, end_col), ")"))
            applied += 1
    if not edits:
        return FixResult(source=source, applied=0)
    text = source
    for offset, insert in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:offset] + insert + text[offset:]
    try:
        ast.parse(text)
    except SyntaxError:
        return FixResult(source=source, applied=0)
    return FixResult(source=text, applied=applied)


def _orjson_option(lines: list[str], call: ast.Call) -> list[tuple[int, str]] | None:
    """`orjson.dumps(d)` -> `orjson.dumps(d, option=orjson.OPT_SORT_KEYS)`, and an `option=X`
    already there -> `option=(X) | orjson.OPT_SORT_KEYS` (None when it cannot be told safe)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
        return None
    if len(call.args) > 2 or any(k.arg is None for k in call.keywords):
        return None  # a positional or `**` option may already sort
    flag = f"{func.value.id}.OPT_SORT_KEYS"
    option = next((k.value for k in call.keywords if k.arg == "option"), None)
    if option is None:
        last = (call.keywords or call.args)[-1]
        assert last.end_lineno is not None and last.end_col_offset is not None
        return [(_offset(lines, last.end_lineno, last.end_col_offset), f", option={flag}")]
    assert option.end_lineno is not None and option.end_col_offset is not None
    return [
        (_offset(lines, option.lineno, option.col_offset), "("),
        (_offset(lines, option.end_lineno, option.end_col_offset), f") | {flag}"),
    ]


def fix_file(path: Path, *, display: str, linter: PythonLinter) -> int:
    """Rewrite `path` in place with the safe fixes; the number applied."""
    try:
        source = read_source(path, max_bytes=linter.config.max_bytes)
    except (OSError, ValueError):
        return 0
    result = fix_source(source, display=display, linter=linter, file=path)
    if result.applied:
        temporary = path.with_name(path.name + ".promptcache-fix")
        temporary.write_text(result.source, encoding="utf-8")
        shutil.copymode(path, temporary)  # an executable script stays executable
        temporary.replace(path)
    return result.applied


def _offset(lines: list[str], line: int, byte_column: int) -> int:
    before = sum(len(text) for text in lines[: line - 1])
    current = lines[line - 1] if 0 < line <= len(lines) else ""
    return before + len(current.encode("utf-8")[:byte_column].decode("utf-8", "replace"))


def fix_paths(files: Iterable[Path], *, config: LintConfig) -> int:
    """Apply the safe rewrites to the Python files among `files` (as `discover` finds them)."""
    linter = PythonLinter(config)
    applied = 0
    for file in files:
        if file.suffix == ".py":
            applied += fix_file(file, display=display_path(file), linter=linter)
    return applied
