"""
Where the project calls a function, and whether every call passes a constant for a parameter.

PC508 asks about a parameter no call in its own module fills. Its calls may be in other modules
of the project (a subclass's `self.ask(SYSTEM_MSG)`, a route's `answer(PROMPT, question)`):
when every call found passes a constant for it (a literal, a name bound only to literals, a
module constant), the project shows it is the same on every request. The project's files are
read as text (each once per run, at the first question) and parsed only where they name the
function; a file that names it and does not parse, a call that spreads `*args` or `**kwargs`,
and a value the reading cannot tell is not a constant. What the reading cannot see leaves the
proof unknown, never taken as "no other caller": a file it cannot read (not a regular file, over
the size bound, unreadable) and a project past the bound on files. Test files are not read: a
test's literal says nothing about what the application passes.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from pathlib import Path

from ..._errors import InputError
from ..._inputs import read_bounded
from ._parse import parse_module
from ._project import Project

__all__ = ["NOT_CALLED", "CallSites", "call_argument"]

NOT_CALLED = "no call in the project passes it"  # the answer when the project never calls it

# Folders that hold other projects' code or generated files, not the project's own calls
# (a virtualenv's packages are under site-packages; `env/` is often the project's own package).
_SKIPPED = frozenset({"node_modules", "site-packages", "__pycache__", "venv", "build", "dist"})
_TEST_FOLDERS = frozenset({"tests", "test", "testing"})
_MAX_FILES = 5000  # a bound on the files read: beyond it the proof is unknown
_MAX_BYTES = 2 * 1024 * 1024  # a larger file is generated or data, not a caller
_KEPT_BYTES = 32 * 1024 * 1024  # the texts kept between questions; past it, the names called
_DEPTH = 4  # how far a name bound to another name is followed
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CALLED = re.compile(r"([A-Za-z_]\w*)\(")  # a name called as `name(` or `x.name(`
# The functions a call is in, the innermost last (the module's own names are looked up after).
_Scopes = tuple[ast.FunctionDef | ast.AsyncFunctionDef, ...]


# A class statement with bases: its name, then what its parentheses hold (one line or several).
# (Searched from its literal `class`, which the engine skips to; the line before it is checked.)
_CLASS_STATEMENT = re.compile(r"class[ \t]+(\w+)[ \t]*\(([^)]*)\)")
_WORD = re.compile(r"\b\w+\b")


class CallSites:
    """The calls a project's files make of a function, found by reading them (for PC508)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        # Read once per run, at the first question: each file's text while the bound on kept
        # texts allows, past it only the names the file calls (a question then never reads
        # a file again unless it calls the name), and why the reading was short.
        self._entries: list[tuple[Path, str | frozenset[str]]] | None = None
        self._short: str | None = None
        self._trees: dict[Path, ast.Module | None] = {}
        self._any_called: dict[frozenset[str], bool | None] = {}  # `calls_any`, once per run
        self._mentioned: dict[tuple[str, Path], bool | None] = {}  # `mentions`, once per run
        self._texts: dict[str, str] | None = None  # the texts kept, by path (`text_of`)
        # A word named among a class statement's bases -> (file, class) (`classes_naming`).
        self._classes: dict[str, list[tuple[Path, str]]] | None = None
        self._resolved: dict[Path, Path] = {}  # each file's resolved path (`_real`), once per run
        self._names: dict[Path, str] = {}  # each file's path as the project names it (`_shown`)

    def clear(self) -> None:
        self._entries = None
        self._short = None
        self._trees.clear()
        self._any_called.clear()
        self._mentioned.clear()
        self._texts = None
        self._classes = None
        self._resolved.clear()
        self._names.clear()

    def text_of(self, path: Path) -> str | None:
        """
        The text of `path` as `read_source` gives it, when the files were read already (for a
        question) and this one is plain: ASCII (so decoded as UTF-8 either way, no BOM, no
        undecodable byte), no NUL byte, no coding comment. The lint then reads it from here
        rather than from the disk again. None: read it.
        """
        if self._entries is None:
            return None
        if self._texts is None:  # (made at the first file asked for, not for every question)
            # (absolute already, walked from the root; a Path keeps its string once made)
            self._texts = {str(p): text for p, text in self._entries if isinstance(text, str)}
        text = self._texts.get(os.path.abspath(path))
        return text if text is not None and _plain(text) else None

    def why_not_constant(
        self, name: str, homes: tuple[str, ...], *, index: int, keyword: str, shift: int
    ) -> str | None:
        """
        None when the project calls `name` and every call passes a constant for the parameter
        at `index` (as the definition counts it; `shift` positions are taken by `self` or
        `cls`) or `keyword`; else why the calls do not show one (a file and line, never the
        value). Only files that name one of `homes` (the defining module's last dotted name,
        its class) are looked in: another module's function of the same name is not it.
        """
        entries = self._read_all()
        if self._short is not None:
            return self._short
        found = False
        for path, entry in entries:
            if isinstance(entry, str):
                if f"{name}(" not in entry:
                    continue
                text: str | None = entry
            elif name not in entry:
                continue
            else:
                text = _read(path, min(self.project.max_bytes, _MAX_BYTES))
            if text is None:
                return f"`{self._shown(path)}` could not be read again for its calls"
            if not any(home in text for home in homes):
                continue
            tree = self._tree(path, text)
            if tree is None:
                return f"`{self._shown(path)}` names it and does not parse"
            for call, scopes in _calls(tree, text, name):
                argument = call_argument(call, index - shift, keyword)
                if argument is None:
                    where = f"`{self._shown(path)}` line {call.lineno}"
                    return f"the call at {where} spreads its arguments or leaves it out"
                if not _constant(argument, scopes, tree, _DEPTH):
                    where = f"`{self._shown(path)}` line {call.lineno}"
                    return f"the call at {where} passes a value that is not a constant"
                found = True
        return None if found else NOT_CALLED

    def calls_any(self, names: frozenset[str]) -> bool | None:
        """Whether a file of the project calls one of `names` (as `name(` or `x.name(`, read as
        text); None when the reading was short (a file unread, a project past the bound), where
        a call may be in what was not read."""
        if names not in self._any_called:
            self._any_called[names] = self._find_any(names)
        return self._any_called[names]

    def _find_any(self, names: frozenset[str]) -> bool | None:
        entries = self._read_all()
        if self._short is not None:
            return None
        for _, entry in entries:
            called = _CALLED.findall(entry) if isinstance(entry, str) else entry
            if not names.isdisjoint(called):
                return True
        return False

    def mentions(self, word: str, besides: Path) -> bool | None:
        """Whether a file of the project other than `besides` writes `word` (as a whole word,
        read as text: an import of it, a use); None when the reading was short, or when a file
        past the bound on kept texts keeps only the names it calls and `word` is not one."""
        key = (word, besides)
        if key not in self._mentioned:
            self._mentioned[key] = self._find_word(word, besides)
        return self._mentioned[key]

    def _find_word(self, word: str, besides: Path) -> bool | None:
        entries = self._read_all()
        if self._short is not None:
            return None
        pattern = re.compile(rf"\b{re.escape(word)}\b")
        own = None
        unknown = False
        for path, entry in entries:
            if isinstance(entry, str):
                found = word in entry and pattern.search(entry) is not None
            else:
                found = word in entry
                unknown = unknown or not found
            if found:
                own = self._real(besides) if own is None else own
                if self._real(path) != own:
                    return True
        return None if unknown else False

    def _real(self, path: Path) -> Path:
        """`path.resolve()`, asked of the same few files by every question: once per run."""
        real = self._resolved.get(path)
        if real is None:
            real = self._resolved[path] = path.resolve()
        return real

    def files_naming(self, word: str, besides: Path) -> list[tuple[str, ast.Module]] | None:
        """The files of the project other than `besides` that write `word` (as a whole word),
        each as the project names it and parsed; None when the reading was short, or a file
        keeps only the names it calls or does not parse (what it does with `word` is unknown)."""
        entries = self._read_all()
        if self._short is not None:
            return None
        pattern = re.compile(rf"\b{re.escape(word)}\b")
        own = self._real(besides)
        found: list[tuple[str, ast.Module]] = []
        for path, entry in entries:
            if not isinstance(entry, str):
                return None
            if word not in entry or pattern.search(entry) is None or self._real(path) == own:
                continue
            tree = self._tree(path, entry)
            if tree is None:
                return None
            found.append((self._shown(path), tree))
        return found

    def defines(self, name: str) -> bool:
        """Whether a file of the project may define `name` (`def name`, `class name`, or a file
        kept only as the names it calls, or a reading that fell short: it may be there)."""
        entries = self._read_all()
        if self._short is not None:
            return True
        pattern = re.compile(rf"\b(?:def|class)\s+{re.escape(name)}\b")
        return any(
            not isinstance(entry, str) or (name in entry and pattern.search(entry) is not None)
            for _, entry in entries
        )

    def classes_naming(self, word: str) -> list[tuple[Path, str]]:
        """The class statements of the project's kept texts that name `word` among their bases
        (`class Bot(LLM):`, `class Bot(mixins.LLM, Base):`), as (file, class name): every file
        scanned once per run, not once per question."""
        if self._classes is None:
            index: dict[str, list[tuple[Path, str]]] = {}
            for path, text in self.texts():
                if "class" not in text:
                    continue
                for found in _CLASS_STATEMENT.finditer(text):
                    start = found.start()
                    line_start = text.rfind("\n", 0, start) + 1
                    if text[line_start:start].strip(" \t"):
                        continue  # not a statement: `class` inside a line
                    for named in set(_WORD.findall(found.group(2))):
                        index.setdefault(named, []).append((path, found.group(1)))
            self._classes = index
        return self._classes.get(word, [])

    def texts(self) -> list[tuple[Path, str]]:
        """The project's files kept as text (a file past the bound on kept texts is left out)."""
        return [(path, entry) for path, entry in self._read_all() if isinstance(entry, str)]

    def _shown(self, path: Path) -> str:
        """The path as the project names it (relative to its root), for a finding's note."""
        shown = self._names.get(path)
        if shown is None:
            try:
                shown = path.relative_to(self.project.root).as_posix()
            except ValueError:
                shown = path.as_posix()
            self._names[path] = shown
        return shown

    def _read_all(self) -> list[tuple[Path, str | frozenset[str]]]:
        if self._entries is None:
            self._entries = []
            kept = 0
            for path in _python_files(self.project.root):
                if path is None:
                    self._short = (
                        f"the project's files past the first {_MAX_FILES} were not read for "
                        "its calls"
                    )
                    break
                text = _read(path, min(self.project.max_bytes, _MAX_BYTES))
                if text is None:
                    self._short = f"`{self._shown(path)}` could not be read for its calls"
                    break
                if kept + len(text) <= _KEPT_BYTES:
                    kept += len(text)
                    self._entries.append((path, text))
                else:
                    self._entries.append((path, frozenset(_CALLED.findall(text))))
        return self._entries

    def _tree(self, path: Path, text: str) -> ast.Module | None:
        if path not in self._trees:
            known = self.project.loaded(path, text)  # parsed already, as a module of the run
            try:
                self._trees[path] = known.tree if known is not None else parse_module(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._trees[path] = None
        return self._trees[path]


def _python_files(root: Path) -> Iterator[Path | None]:
    """The project's Python files, test files left out; past `_MAX_FILES`, one `None` says the
    rest were not looked in."""
    count = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIPPED | _TEST_FOLDERS]
        for file in files:
            if file.endswith(".py") and not _is_test(file):
                count += 1
                if count > _MAX_FILES:
                    yield None
                    return
                yield Path(folder, file)


def _is_test(file: str) -> bool:
    return file.startswith("test_") or file.endswith("_test.py") or file == "conftest.py"


def _plain(text: str) -> bool:
    """Whether `text` (decoded with replacements) is what `read_source` makes of the same bytes:
    ASCII bytes, none NUL where it looks, and no line of the two a coding comment must be on
    names one (see `_loader.decode_python`)."""
    second_end = text.find("\n", text.find("\n") + 1)
    head = text if second_end < 0 else text[:second_end]
    return text.isascii() and text.find("\0", 0, 8192) < 0 and "coding" not in head


def _read(path: Path, max_bytes: int) -> str | None:
    """The file's text (undecodable bytes replaced: only call sites are looked for), or None:
    not a regular file (a FIFO would block, a device never end), over `max_bytes`, unreadable."""
    try:
        data = read_bounded(path, max_bytes=max_bytes, flag=None)
    except (InputError, OSError):
        return None
    return data.decode("utf-8", errors="replace")


def _calls(tree: ast.Module, text: str, name: str) -> Iterator[tuple[ast.Call, _Scopes]]:
    """The calls of `name` (as `name(...)` or `x.name(...)`) with the functions whose names
    their arguments read (the innermost last; none: the module's). Only the statements on the
    lines that write `name(` are walked: a caller is one call among a file of others."""
    lines = {n for n, line in enumerate(text.splitlines(), start=1) if f"{name}(" in line}
    todo: list[tuple[ast.AST, _Scopes]] = [(tree, ())]
    while todo:
        node, scopes = todo.pop()
        for child in ast.iter_child_nodes(node):
            first = getattr(child, "lineno", None)
            if first is not None and not any(
                first <= n <= (getattr(child, "end_lineno", None) or first) for n in lines
            ):
                continue
            inner = (*scopes, child) if isinstance(child, _FUNCTIONS) else scopes
            if isinstance(child, ast.Call) and _called(child.func) == name:
                yield child, inner
            todo.append((child, inner))


def _called(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def call_argument(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    """What the call passes for the parameter (None: it spreads arguments, or passes none)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    for given in call.keywords:
        if given.arg == keyword:
            return given.value
    return call.args[index] if 0 <= index < len(call.args) else None


def _constant(node: ast.expr, scopes: _Scopes, tree: ast.Module, depth: int) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(v, ast.Constant) for v in node.values)
    if isinstance(node, ast.BinOp):
        return _constant(node.left, scopes, tree, depth) and _constant(
            node.right, scopes, tree, depth
        )
    if isinstance(node, ast.Subscript):  # PROMPTS["coach"]
        return _constant(node.value, scopes, tree, depth) and _constant(
            node.slice, scopes, tree, depth
        )
    if isinstance(node, ast.Dict | ast.List | ast.Tuple):
        parts = [*node.keys, *node.values] if isinstance(node, ast.Dict) else node.elts
        return all(p is not None and _constant(p, scopes, tree, depth) for p in parts)
    if isinstance(node, ast.Attribute):  # prompts.SYSTEM_PROMPT: another module's constant
        owner = node.value
        return (
            node.attr.isupper()
            and isinstance(owner, ast.Name)
            and _holds_constants(owner.id, scopes, tree)
        )
    if isinstance(node, ast.Name) and depth > 0:
        return _bound_to_constants(node.id, scopes, tree, depth - 1)
    return False


def _holds_constants(name: str, scopes: _Scopes, tree: ast.Module) -> bool:
    """Whether `name` is a module the caller imports or a class it defines (`texts.BRIEFING`,
    `Prompts.SYSTEM`), not an object (`self.BRIEFING`, a request's `form.POST`): bound at the
    top of the module, and nowhere in the functions the call is in."""
    if any(_assigned(name, scope) != [] for scope in scopes):
        return False  # a parameter or a local of the calling functions
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            if any((a.asname or a.name.partition(".")[0]) == name for a in node.names):
                return True
        elif isinstance(node, ast.ClassDef) and node.name == name:
            return True
    return False


def _bound_to_constants(name: str, scopes: _Scopes, tree: ast.Module, depth: int) -> bool:
    """Whether every binding of `name` where it is read (the innermost of its functions that
    binds it, else the module) is a constant; a name imported as a module constant
    (`from prompts import SYSTEM`) is one."""
    for at in range(len(scopes) - 1, -1, -1):
        values = _assigned(name, scopes[at])
        if values is None:
            return False  # a parameter or a loop variable of a calling function
        if values:
            return all(_constant(v, scopes[: at + 1], tree, depth) for v in values)
    values = _assigned(name, tree)
    if values:
        return all(_constant(v, (), tree, depth) for v in values)
    return name.isupper() and _imported(name, tree)


def _assigned(name: str, scope: ast.AST) -> list[ast.expr] | None:
    """The values `name` is assigned in `scope`, not counting nested functions and classes
    (None: it is bound another way there: a parameter, a loop, `with`, unpacking)."""
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        args = scope.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        if any(p is not None and p.arg == name for p in params):
            return None
    values: list[ast.expr] = []
    stores = 0
    for node in _own_nodes(scope):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            stores += 1
        elif isinstance(node, ast.Assign):
            values.extend(node.value for t in node.targets if _names(t, name))
        elif (
            isinstance(node, ast.AnnAssign | ast.AugAssign)
            and _names(node.target, name)
            and node.value is not None  # `x: str` alone binds nothing
        ):
            values.append(node.value)
    return values if stores == len(values) else None


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of `scope`'s own code: nested functions, classes and lambdas are theirs."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))


def _names(target: ast.expr, name: str) -> bool:
    return isinstance(target, ast.Name) and target.id == name


def _imported(name: str, tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names)
        for node in tree.body
    )
