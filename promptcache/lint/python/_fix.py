"""
`promptcache lint --fix`: the rewrites that cannot change what a correct program means.

Three: `sort_keys=True` on a `json.dumps` (simplejson, ujson) whose result reaches a prefix (no
`**options` that might already set it), `option=orjson.OPT_SORT_KEYS` on an `orjson.dumps`
called through its module, and `sorted(...)` around a set of strings iterated into a prefix, or
around the one a dict is built from (`dict.fromkeys(names)`, a comprehension over it) when that
dict is. Every other finding is left for a person; the rewritten module must parse or nothing is
written.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..._errors import InputError
from ..._inputs import read_bounded
from ..._outputs import write_failure
from .._config import LintConfig
from .._loader import decode_python
from ._lint import PythonLinter
from ._parse import Rewrite, parse_python
from ._project import display_path

__all__ = ["FixResult", "fix_file", "fix_paths", "fix_source"]

# The line ends Python's tokenizer knows (`str.splitlines` knows more: a form feed, U+2028).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


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
        tree, rewrite = parse_python(source)
    except (SyntaxError, ValueError, RecursionError):
        return FixResult(source=source, applied=0)
    calls = {(n.lineno, n.col_offset): n for n in ast.walk(tree) if isinstance(n, ast.Call)}
    lines = _LINE.findall(source)
    for hit in linter.last_hits:
        taint = hit.taint
        if taint.path != display or not taint.fixable or taint.fix is None:
            continue
        kind, line, col = taint.fix[:3]
        if (kind, line, col) in seen:
            continue
        seen.add((kind, line, col))
        found = _site_edits(kind, tree, calls, lines, taint.fix)
        if found is None or not _outside(found, rewrite):
            continue
        edits.extend(found)
        applied += 1
    if not edits:
        return FixResult(source=source, applied=0)
    text = source
    for offset, insert in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:offset] + insert + text[offset:]
    try:
        _, again = parse_python(text)
    except SyntaxError:
        return FixResult(source=source, applied=0)
    if not _same_rewrite(rewrite, again, edits, source, text):
        return FixResult(source=source, applied=0)
    return FixResult(source=text, applied=applied)


def _site_edits(
    kind: str,
    tree: ast.Module,
    calls: dict[tuple[int, int], ast.Call],
    lines: list[str],
    fix: tuple[str, int, int, int, int],
) -> list[tuple[int, str]] | None:
    """The insertions that fix one site (None when it cannot be told safe)."""
    _, line, col, end_line, end_col = fix
    if kind == "sort_keys":
        call = calls.get((line, col))
        if call is None or any(k.arg is None or k.arg == "sort_keys" for k in call.keywords):
            return None
        last = (call.keywords or call.args)[-1]
        assert last.end_lineno is not None and last.end_col_offset is not None
        return [(_offset(lines, last.end_lineno, last.end_col_offset), ", sort_keys=True")]
    if kind == "orjson_option":
        call = calls.get((line, col))
        return _orjson_option(lines, call) if call is not None else None
    if kind == "sorted":
        if _binds(tree, "sorted"):  # the module's own `sorted` need not sort
            return None
        return [(_offset(lines, line, col), "sorted("), (_offset(lines, end_line, end_col), ")")]
    return None


def _outside(edits: list[tuple[int, str]], rewrite: Rewrite | None) -> bool:
    """Whether every insertion is outside the strings the module was parsed through a rewrite
    of (3.12 f-strings read by an older Python): there its text is the one the tree was read
    from, so the fix maps back to the file exactly."""
    if rewrite is None:
        return True
    return not any(start < offset < end for offset, _ in edits for start, end in rewrite.spans)


def _same_rewrite(
    before: Rewrite | None,
    after: Rewrite | None,
    edits: list[tuple[int, str]],
    source: str,
    text: str,
) -> bool:
    """Whether the fixed text is read as the source was: directly, or through the same rewrite
    (the same strings rewritten, unchanged, only moved by the insertions before them)."""
    if before is None or after is None:
        return before is None and after is None
    if len(before.spans) != len(after.spans):
        return False
    for (start, end), (new_start, new_end) in zip(before.spans, after.spans, strict=True):
        moved = sum(len(insert) for offset, insert in edits if offset <= start)
        if (new_start, new_end) != (start + moved, end + moved):
            return False
        if text[new_start:new_end] != source[start:end]:
            return False
    return True


def _binds(tree: ast.Module, name: str) -> bool:
    """Whether the module binds `name` anywhere (a def, a class, an assignment, an import, a
    parameter): a call of it may then not be the builtin's."""
    return any(_bound_name(node) == name for node in ast.walk(tree))


def _bound_name(node: ast.AST) -> str | None:
    """The name `node` binds, if it binds one."""
    if isinstance(node, ast.Name):
        return None if isinstance(node.ctx, ast.Load) else node.id
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name
    if isinstance(node, ast.alias):
        return node.asname or node.name.split(".")[0]
    if isinstance(node, ast.arg):
        return node.arg
    return None


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
    """
    Rewrite `path` in place with the safe fixes, in the encoding, BOM and line ends it has; the
    number applied. Written whole or not at all (a temporary file renamed over it; a link keeps
    pointing at it). A read-only file is refused (InputError naming it), as is a failed write.
    """
    try:
        data = read_bounded(path, max_bytes=linter.config.max_bytes, flag="--max-bytes")
        source, encoding = decode_python(data)
    except (OSError, ValueError, InputError):
        return 0  # the lint that follows reports why it cannot be read
    result = fix_source(source, display=display, linter=linter, file=path)
    if result.applied:
        _check_writable(path, display)
        _replace(Path(os.path.realpath(path)), result.source.encode(encoding), display)
    return result.applied


def _check_writable(path: Path, display: str) -> None:
    # Decided by the mode as well as by access(): root may write to (and rename over) any file,
    # yet a file nobody may write to was made read-only to be left alone.
    try:
        mode = path.stat().st_mode
    except OSError as exc:  # gone or moved since it was read
        raise InputError(f"cannot fix {display!r}: {exc.strerror or exc}") from None
    if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise InputError(
            f"cannot fix {display!r}: it is read-only; make it writable (chmod u+w) to apply "
            "the fix, or run without --fix"
        )


def _replace(target: Path, data: bytes, display: str) -> None:
    """Write `data` over `target` atomically, keeping its mode; on failure leave it as it was."""
    mode = stat.S_IMODE(target.stat().st_mode)  # an executable script stays executable
    try:
        fd, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".promptcache-fix"
        )
    except OSError as exc:
        raise write_failure(repr(display), exc) from None
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise write_failure(repr(display), exc) from None
        raise


def _offset(lines: list[str], line: int, byte_column: int) -> int:
    before = sum(len(text) for text in lines[: line - 1])
    current = lines[line - 1] if 0 < line <= len(lines) else ""
    return before + len(current.encode("utf-8")[:byte_column].decode("utf-8", "replace"))


def fix_paths(
    files: Iterable[Path], *, config: LintConfig, refused: list[str] | None = None
) -> int:
    """
    Apply the safe rewrites to the Python files among `files` (as `discover` finds them). A
    file that cannot be rewritten (read-only, a failed write) raises InputError naming it, or,
    given `refused`, is left as it is with the reason appended there and the others go on.
    """
    linter = PythonLinter(config)
    applied = 0
    for file in files:
        if file.suffix != ".py":
            continue
        try:
            applied += fix_file(file, display=display_path(file), linter=linter)
        except InputError as exc:
            if refused is None:
                raise
            refused.append(str(exc))
    return applied
