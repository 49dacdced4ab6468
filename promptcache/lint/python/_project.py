"""
The linted project's modules: read and parse each once, resolve imports between them.

A module is found from an import by looking beside the importing file (relative imports), then
in the project root, its `src/` folder and every folder above the importing file up to the root.
What cannot be found is outside what the analysis can see: its calls are assumed to pass their
arguments' variation through, and findings say so.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..._errors import InputError
from ..._inputs import DEFAULT_MAX_BYTES
from .._loader import read_source
from ._parse import parse_module
from ._values import Value
from ._walk import statements as _statements

if TYPE_CHECKING:
    from ._summaries import ClassInfo

__all__ = ["Module", "Project", "display_path", "import_table"]


def display_path(path: Path, cwd: Path | None = None) -> str:
    """How findings name a file: relative to the current folder (`cwd`, resolved; None: the
    process's) when inside it, as the engine names them."""
    try:
        return path.resolve().relative_to(cwd or Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


@dataclass(slots=True, kw_only=True)
class Module:
    name: str  # dotted name as imported ("" for a file named on the command line only)
    path: Path | None
    display: str
    source: str
    tree: ast.Module
    imports: dict[str, str] = field(default_factory=dict)  # local alias -> dotted name
    stars: list[str] = field(default_factory=list)  # modules `from m import *` names
    globals: dict[str, Value] = field(default_factory=dict)
    state: str = "new"  # new -> running -> done (a module only imported from is never run whole)
    pending: set[str] = field(default_factory=set)  # globals being evaluated on demand
    hits: list[object] = field(default_factory=list)  # what reached a prefix, sited here
    unfollowed: set[int] = field(default_factory=set)  # lines nested too deeply to analyse
    classes: list[ClassInfo] = field(default_factory=list)  # defined in it (see `let_go`)
    # Handed to another module through an import: its values may live on in that module's.
    shared: bool = False
    # Read again after it was linted and forgotten: it is run whole before a value is read from
    # it, as it stood when it was linted (a name bound in an `if` is then found as it was).
    reloaded: bool = False
    # Its string literals that may hold a template's placeholder (`_placeholders`), made once.
    literals: list[tuple[str, ast.expr, str, bool]] | None = None
    _index: dict[str, ast.stmt] | None = None
    _lines: list[bytes] | None = None
    _plain: bool | None = None

    def char_column(self, line: int, offset: int) -> int:
        """The character column of UTF-8 byte `offset` on line `line` (as `ast` counts both)."""
        if self._plain is None:
            # ASCII with only \n line ends (most code): bytes are characters, lines need no split.
            self._plain = self.source.isascii() and "\r" not in self.source
        if self._plain:
            return offset
        return len(self.line_bytes(line)[:offset].decode("utf-8", "replace"))

    def line_bytes(self, line: int) -> bytes:
        """Line `line` (1-based, as `ast` counts them) as UTF-8: `ast` columns are byte offsets."""
        if self._lines is None:
            encoded = self.source.encode("utf-8")
            # Without a \r, every line end is a \n: a plain split gives the same lines, faster.
            self._lines = _NEWLINE.split(encoded) if b"\r" in encoded else encoded.split(b"\n")
        return self._lines[line - 1] if 0 < line <= len(self._lines) else b""

    def let_go(self) -> None:
        """
        Break the cycles the analysis made between the module, its functions and its classes
        (a method knows its class, which knows its methods), so reference counting frees its
        tree at once: left to the cyclic collector, every tree of a run was traversed again
        when the collector resumed.
        """
        for cls in self.classes:
            cls.methods.clear()
            cls.attrs.clear()
            cls.bases = cls.subclasses = None
        self.classes.clear()
        self.globals.clear()
        self.hits.clear()
        self.pending.clear()
        self.unfollowed.clear()
        self.literals = None
        self._index = None

    def binding(self, name: str) -> ast.stmt | None:
        """The top-level statement that binds `name` (the last one), for on-demand evaluation."""
        if self._index is None:
            self._index = {}
            for statement in self.tree.body:
                for bound in _bound_names(statement):
                    self._index[bound] = statement
        return self._index.get(name)


def _bound_names(statement: ast.stmt) -> list[str]:
    if isinstance(statement, ast.Assign):
        return [t.id for t in statement.targets if isinstance(t, ast.Name)]
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [statement.name]
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return [statement.target.id]
    return []


def import_table(
    tree: ast.Module, package: str, stars: list[str] | None = None, source: str | None = None
) -> dict[str, str]:
    """Local names bound by the module's imports (top level and in functions), resolved; the
    modules of `from m import *` are added to `stars`. With the module's `source`, one whose
    imports are all at the top level is not walked statement by statement."""
    table: dict[str, str] = {}
    for node in _import_statements(tree, source):
        kind = type(node)  # exact types (`ast` makes no subclasses): cheaper than isinstance
        if kind is not ast.Import and kind is not ast.ImportFrom:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    table[alias.asname] = alias.name
                else:
                    root = alias.name.split(".", 1)[0]
                    table[root] = root
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module or "", node.level, package)
            for alias in node.names:
                if alias.name != "*":
                    table[alias.asname or alias.name] = (
                        f"{base}.{alias.name}" if base else alias.name
                    )
                elif stars is not None and base:
                    stars.append(base)
    return table


def _import_statements(tree: ast.Module, source: str | None) -> Iterator[ast.stmt] | list[ast.stmt]:
    """
    The statements that may be imports, in the order of the statement walk: the top level
    alone when every "import" in `source` belongs to a top-level import (each holds the word
    once at least, so any other import, in a function or under an `if`, would add one to the
    count); otherwise every statement (most modules name "import" only in their imports).
    """
    if source is not None:
        body = tree.body
        top = sum(1 for node in body if type(node) is ast.Import or type(node) is ast.ImportFrom)
        if source.count("import") == top:
            return body
    return _statements(tree.body)


_UNKNOWN: frozenset[str] = frozenset({"/"})  # not listed yet (no listing holds a "/")


def _listing(folder: str) -> frozenset[str] | None:
    """The names in `folder`: none when it does not exist, None when it cannot be listed."""
    try:
        return frozenset(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return frozenset()
    except OSError:  # there but unreadable (no read permission): ask about each name instead
        return None


def _absolute(module: str, level: int, package: str) -> str:
    if level == 0:
        return module
    parts = package.split(".") if package else []
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    return ".".join([*parts, module] if module else parts)


_NEWLINE = re.compile(rb"\r\n|\r|\n")
_PARSED_KEPT = 4  # how many let-go modules' trees `Project` keeps for a later import


@dataclass(slots=True)
class Project:
    """Parsed modules by path and by dotted name, shared by every file of one lint run."""

    root: Path
    _by_path: dict[Path, Module | None] = field(default_factory=dict)
    _by_name: dict[str, Module | None] = field(default_factory=dict)
    _files: dict[str, bool] = field(default_factory=dict)
    _listings: dict[str, frozenset[str] | None] = field(default_factory=dict)
    _search: dict[Path | None, list[str]] = field(default_factory=dict)
    _resolved: dict[str, Path] = field(default_factory=dict)
    _package_parts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    max_bytes: int = DEFAULT_MAX_BYTES  # the largest module read (--max-bytes)
    # Dotted names of project files that cannot be had, each with why ("does not parse").
    broken: dict[str, str] = field(default_factory=dict)
    _entries: dict[str, bool] = field(default_factory=dict)
    _failed: dict[Path, str] = field(default_factory=dict)
    _cwd: Path | None = None
    _forgotten: set[Path] = field(default_factory=set)  # linted, run whole, then let go
    # The text and tree of the modules let go last (a few), for an import of one of them soon
    # after (the module linted next imports it, most often): not read and parsed again.
    _parsed: dict[Path, tuple[str, ast.Module]] = field(default_factory=dict)
    _defining: dict[tuple[str, str], Module | None] = field(default_factory=dict)

    def loaded(self, path: Path, source: str) -> Module | None:
        """The module already parsed for `path` (as an import) when its text is `source`."""
        found = self._by_path.get(self._resolve(path))
        return found if found is not None and found.source == source else None

    def _resolve(self, path: Path) -> Path:
        key = str(path)
        found = self._resolved.get(key)
        if found is None:
            absolute = os.path.abspath(key)
            # A path given absolute and normal already (as a folder walk yields them) is kept:
            # building a new Path costs more than the rest of this look-up.
            found = path if absolute == key else Path(absolute)
            self._resolved[key] = found
        return found

    def release(self) -> None:
        """
        Forget every module, breaking the cycles the analysis made between a module and its
        functions, so reference counting frees the trees at once rather than the cyclic
        collector traversing all of them when it resumes.
        """
        for module in self._by_path.values():
            if module is not None:
                module.let_go()
        self._by_path.clear()
        self._by_name.clear()
        self.broken.clear()
        self._failed.clear()
        self._forgotten.clear()
        self._parsed.clear()

    def forget(self, module: Module) -> bool:
        """
        Let go of a linted module that no other module imported, so that its tree and values
        are freed now rather than at the end of the run: a project's trees kept all together
        make every later parse and evaluation slower (fresh memory for each). A module that was
        imported stays, since its values live on in its importers'. One imported later is read
        again (`reloaded`). Whether it was let go.
        """
        if module.shared or module.path is None:
            return False
        if self._by_path.get(module.path) is module:
            del self._by_path[module.path]
            if module.state == "done":
                self._forgotten.add(module.path)
                self._parsed[module.path] = (module.source, module.tree)
                if len(self._parsed) > _PARSED_KEPT:
                    del self._parsed[next(iter(self._parsed))]  # the oldest
        if module.name and self._by_name.get(module.name) is module:
            del self._by_name[module.name]
        module.let_go()
        return True

    def module_for_file(self, path: Path, display: str, source: str, tree: ast.Module) -> Module:
        resolved = self._resolve(path)
        found = self._by_path.get(resolved)
        if found is not None:
            return found
        name = self._dotted_name(resolved)
        package = name if resolved.name == "__init__.py" else name.rpartition(".")[0]
        stars: list[str] = []
        module = Module(
            name=name,
            path=resolved,
            display=display,
            source=source,
            tree=tree,
            imports=import_table(tree, package, stars, source),
            stars=stars,
        )
        self._by_path[resolved] = module
        if name:
            self._by_name.setdefault(name, module)
        return module

    def find(self, dotted: str, near: Module | None) -> Module | None:
        """The project module imported as `dotted`, or None when it is not part of the project."""
        if dotted in self._by_name:
            known = self._by_name[dotted]
            if known is not None:
                known.shared = True
            return known
        parts = dotted.split(".")
        first, relative = parts[0], os.path.join(*parts)
        for folder in self._folders(near):
            names = self._names(folder)
            if names is not None and first not in names and f"{first}.py" not in names:
                continue  # neither the module nor its package is here (most folders, most names)
            base = os.path.join(folder, relative)
            for candidate in (base + ".py", os.path.join(base, "__init__.py")):
                if self._is_entry(candidate):
                    found = self._load(Path(candidate))
                    self._by_name[dotted] = found
                    if found is not None:
                        found.shared = True
                    else:
                        self.broken[dotted] = self._failed.get(
                            self._resolve(Path(candidate)), "does not parse"
                        )
                    return found
        self._by_name[dotted] = None
        return None

    def holds_package(self, dotted: str, near: Module | None) -> bool:
        """Whether `dotted` (a module the project does not have) names a module of one of the
        project's own packages or modules (`app.models.user` beside an `app/` folder): a part of
        the project the analysis cannot read, not another library."""
        first = dotted.split(".", 1)[0]
        for folder in self._folders(near):
            names = self._names(folder)
            if names is not None and (first in names or f"{first}.py" in names):
                return True
        return False

    def defining(self, package: str, name: str, near: Module | None) -> Module | None:
        """
        The one module of the folder `package` names that binds `name` at its top level, when
        that folder holds no `__init__.py` to import it from (`from app.utils import prepare`
        with `prepare` defined in `app/utils/graph.py`): the package's `__init__.py`, which
        re-exports it, is not in the tree (a copy of part of a project, a file left out), and
        a folder without one could not give the name any other way. None when no module of it,
        or more than one, binds the name.
        """
        key = (package, name)
        if key in self._defining:
            return self._defining[key]
        found: Module | None = None
        relative = os.path.join(*package.split("."))
        for folder in self._folders(near):
            base = os.path.join(folder, relative)
            names = self._names(base)
            if not names or "__init__.py" in names or self._is_entry(base + ".py"):
                continue
            holders = []
            for entry in sorted(names):
                if not entry.endswith(".py") or not (
                    entry[:-3].isascii() and entry[:-3].isidentifier()
                ):
                    continue
                module = self.find(f"{package}.{entry[:-3]}", near)
                if module is not None and module.binding(name) is not None:
                    holders.append(module)
            found = holders[0] if len(holders) == 1 else None
            break
        self._defining[key] = found
        return found

    def _is_file(self, path: str) -> bool:
        known = self._files.get(path)
        if known is None:
            known = self._files[path] = self._listed(path) is not False and os.path.isfile(path)
        return known

    def _is_entry(self, path: str) -> bool:
        """
        Whether anything is there: a module file, or something that is not a regular file (a
        FIFO, a device, a dangling link), which is the module Python would import and cannot be
        read, so it is not silence.
        """
        known = self._entries.get(path)
        if known is None:
            listed = self._listed(path)
            known = self._entries[path] = os.path.lexists(path) if listed is None else listed
        return known

    def _listed(self, path: str) -> bool | None:
        """Whether `path`'s name is in its folder's listing (None: it cannot be listed). An import
        is looked for in a dozen folders, two names each, most not there: one listing a folder
        answers them all (as importlib's finder does), where a system call a name cost half a
        parse of the files."""
        folder, name = os.path.split(path)
        names = self._names(folder)
        return None if names is None else name in names

    def _names(self, folder: str) -> frozenset[str] | None:
        """The names in `folder`, listed once; a folder its parent's listing lacks (`pkg/` of
        a `pkg/__init__.py` looked for beside a `pkg.py` that is not there) is not listed."""
        found = self._listings.get(folder, _UNKNOWN)
        if found is _UNKNOWN:
            parent, name = os.path.split(folder)
            above = self._listings.get(parent)
            found = frozenset() if above is not None and name not in above else _listing(folder)
            self._listings[folder] = found
        return found

    def _folders(self, near: Module | None) -> list[str]:
        """Where an import from `near` is looked for, in order (worked out once per file)."""
        key = None if near is None else near.path
        found = self._search.get(key)
        if found is None:
            found = self._search[key] = self._search_folders(near)
        return found

    def _search_folders(self, near: Module | None) -> list[str]:
        root = str(self.root)
        folders = [root, os.path.join(root, "src")]
        if near is not None and near.path is not None:
            folder = str(near.path.parent)
            for _ in range(12):
                folders.append(folder)
                parent = os.path.dirname(folder)
                if folder == root or parent == folder:
                    break
                folder = parent
        return list(dict.fromkeys(folders))

    def module_at(self, path: Path) -> Module | None:
        """The project's module of the file at `path` (parsed now if it was not yet)."""
        return self._load(path)

    def _load(self, path: Path) -> Module | None:
        resolved = self._resolve(path)
        if resolved in self._by_path:
            return self._by_path[resolved]
        parsed = self._parsed.pop(resolved, None)
        try:
            if parsed is not None:  # linted and let go just before: its text and tree as then
                source, tree = parsed
            else:
                source = read_source(resolved, max_bytes=self.max_bytes)
                tree = parse_module(source, str(resolved))
        except (InputError, OSError, ValueError) as exc:  # a FIFO, over the bound, not UTF-8
            self._failure(resolved, f"cannot be read ({exc})")
            return None
        except (SyntaxError, RecursionError, MemoryError):
            self._failure(resolved, "does not parse")
            return None
        if self._cwd is None:  # resolved once a run: it walks every folder of the path
            self._cwd = Path.cwd().resolve()
        module = self.module_for_file(resolved, display_path(resolved, self._cwd), source, tree)
        module.reloaded = resolved in self._forgotten
        return module

    def _failure(self, resolved: Path, why: str) -> None:
        """Record a module that cannot be had (linted and reported on its own, if at all)."""
        self._by_path[resolved] = None
        self._failed[resolved] = why

    def _dotted_name(self, path: Path) -> str:
        """The dotted name of a file: its packages (folders with __init__.py) up to the top."""
        folder, name = os.path.split(str(path))  # string operations: Path's cost more
        parts = [*self._packages(folder)]
        if name != "__init__.py":
            parts.append(os.path.splitext(name)[0])
        # Each part a word, `[A-Za-z_][A-Za-z0-9_]*` (what `isidentifier` says of an ASCII text),
        # tested a part at a time rather than by a regex of the whole dotted name for each file.
        if not all(part.isascii() and part.isidentifier() for part in parts):
            return ""
        return ".".join(parts)

    def _packages(self, folder: str) -> tuple[str, ...]:
        """The package names `folder` is inside, outermost first (the files of a folder share
        them, so they are worked out once per folder)."""
        found = self._package_parts.get(folder)
        if found is None:
            parent = os.path.dirname(folder)
            if self._is_file(os.path.join(folder, "__init__.py")) and parent != folder:
                found = (*self._packages(parent), os.path.basename(folder))
            else:
                found = ()
            self._package_parts[folder] = found
        return found
