"""
What the project's Python says about each Jinja template file it renders: the variable names its
render calls pass, when every render of the file is seen and fully known.

A variable no render call passes renders empty (Jinja's `Undefined`): the template linter then
need not judge it as a per-request value. That is a confident quiet, so it is taken only on
complete knowledge of the project's renders. The project's Python files are read (as
`CallSites` reads them: test files left out) and the renders found by their shape:

- a load of the file by a literal name, `env.get_template("system.j2")`, rendered where it is
  loaded (`env.get_template("system.j2").render(a=...)`) or bound to a name whose every use is
  a `.render(...)` in the same scope (a module's name also read by another file is not known);
- a wrapper whose parameter names the template (`def render_prompt(name): ...
  env.get_template(name)...render()`), when every call of the wrapper in the project passes a
  literal for that parameter and the wrapper's name is called nowhere else in another way; a
  wrapper that returns the loaded template (`return env.get_template(name)`) has it rendered
  where each call's result is, as a load there;
- a template made from a file's text the code names (`Template(Path("a.j2").read_text())`,
  `(PROMPTS / name).read_text()` in a wrapper, `open(path).read()`), as a load of that file;
- a wrapper's call that names the template by a local bound once to a lookup in a table of
  literal names (`TASKS.get(state, "welcome.j2")`); a call of another object's method of the
  wrapper's name whose arguments the wrapper cannot take is not one of its calls;
- a render passes the names it writes as keywords, or as the keys of a dict literal; a wrapper
  that spreads its own `**values` renders with each call's keywords (less its own parameters);
  a dict the rendering function builds itself (a literal bound once, then given only literal
  keys) passes those keys; a `**` spread of anything else leaves its names unknown.

A log line, a print or a docstring that names a template file is not a use of the name.

Anything the reading cannot settle makes the answer "unknown" (None), never a guess: a file that
cannot be read or parsed, a load by a name that is not a literal (`get_template(name)` fed by a
lookup, `Template(path.read_text())`: it may be any template), a literal naming the file used
outside a load the reading understands (a lookup table, a path joined elsewhere), or a use of a
loaded template other than rendering it.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from ._call_sites import (
    _MAX_BYTES,
    _MAX_FILES,
    _SKIPPED,
    _TEST_FOLDERS,
    _called,
    _python_files,
    _read,
    call_argument,
)
from ._parse import parse_module
from ._project import Project

__all__ = ["Rendered", "TemplateRenders"]

_LOADS = frozenset({"get_template"})
# Loads whose name the reading does not follow: any template of the project may be one of them.
_DYNAMIC_LOADS = frozenset({"select_template", "get_or_select_template", "from_file"})
_RENDERS = frozenset({"render", "render_async"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef
_Where = tuple[Path, int, int]  # a literal's file, line and column


@dataclass(frozen=True, slots=True, kw_only=True)
class Rendered:
    """
    What the project's renders of one template file say about it: the names they pass (None:
    a render spreads a mapping the reading cannot list), whether each render's text lands at the
    tail of its request (the newest user turn, after the conversation history: nothing after
    any of its values is ever reused), and the Python files of the renders.
    """

    names: frozenset[str] | None
    tail: bool
    files: frozenset[Path]
    # "user" where every render's text is part of a user message's content, wherever that
    # message is in the request (the only turn after a short system message, or after the
    # history); None where any render's text goes elsewhere or where the reading cannot follow.
    place: Place | None = None


# Only the user turn is told: a text the code names a system prompt may still be sent alone,
# with no conversation after it, which the template's own reading cannot know either.
Place = Literal["user"]


@dataclass(frozen=True, slots=True)
class _Site:
    """One render of a template: the files it is in, the names it passes, where it lands."""

    paths: frozenset[Path]
    passed: frozenset[str] | None
    tail: bool
    place: Place | None = None


@dataclass(slots=True)
class _Wrapper:
    """A function that loads the template its parameter names, and what its renders pass; its
    renders are known (`known`) and returned as its result (`returned`: where the text lands is
    where its caller puts it)."""

    index: int  # the parameter's position, as a call writes it (`self` not counted)
    keyword: str
    known: bool
    passed: frozenset[str] | None
    returned: bool
    path: Path
    # The wrapper's `**values` its renders spread (`template.render(**values)`): the names a
    # call of it passes by keyword, less its own parameters', are the template's too.
    forwards: bool = False
    fits: _Signature | None = None
    # It returns the loaded template itself (`return env.get_template(name)`): each call's
    # result is rendered where the caller renders it.
    loader: bool = False


@dataclass(frozen=True, slots=True)
class _Signature:
    """What a function's parameters accept: how many positional arguments (None: any), its
    parameters' names, and whether it takes any keyword (`**values`)."""

    positional: int | None
    names: frozenset[str]
    any_keyword: bool

    def accepts(self, call: ast.Call) -> bool:
        """Whether the call could be of this function (a spread argument could be anything)."""
        if any(isinstance(a, ast.Starred) for a in call.args):
            return True
        if self.positional is not None and len(call.args) > self.positional:
            return False
        return self.any_keyword or all(k.arg is None or k.arg in self.names for k in call.keywords)


@dataclass(slots=True)
class _Reading:
    """The project's renders, read once: per load name (as written), the file and the names of
    each render; the load names with a render not fully known; every string literal (its text
    and place) and those that are a load's name; whether the reading failed as a whole."""

    sites: dict[str, list[_Site]] = field(default_factory=dict)
    unknown: set[str] = field(default_factory=set)
    literals: list[tuple[str, _Where]] = field(default_factory=list)
    scanned: set[Path] = field(default_factory=set)  # the files whose literals are listed
    loads: set[_Where] = field(default_factory=set)
    renders: set[_Where] = field(default_factory=set)  # the renders of loaded templates
    # The project gives templates names of its own (`env.globals[...]`, `globals=`): a name no
    # render passes may be one of them.
    globals: bool = False
    failed: bool = False

    def load(self, name: ast.Constant, path: Path, sites: list[_Site] | None) -> None:
        """A load of the template `name` at `path`, and its renders (None: not all known)."""
        self.loads.add((path, name.lineno, name.col_offset))
        text = str(name.value)
        if sites is None:
            self.unknown.add(text)
        else:
            self.sites.setdefault(text, []).extend(sites)


class TemplateRenders:
    """The render calls a project makes of its template files (see the module docstring)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._reading: tuple[_Reading, _Modules] | None = None

    def clear(self) -> None:
        self._reading = None

    def rendered(self, template: Path) -> Rendered | None:
        """
        What the renders of `template` say about it; None when the project renders it nowhere
        the reading sees, or when any render of it (or any load that may be it) is not known.
        """
        reading, modules = self._read()
        if reading.failed:
            return None
        target = PurePosixPath(template.resolve().as_posix())
        if any(target.name in text for text in modules.others):
            return None  # named for another renderer too
        for path, text in modules.texts:  # the literals of the files that may name it
            if target.name in text and path not in reading.scanned:
                tree = modules.tree(path, text)
                if tree is None:
                    return None
                reading.scanned.add(path)
                reading.literals.extend(_literals(tree, path))
        named = [(text, where) for text, where in reading.literals if target.name in text]
        if not named or any(where not in reading.loads for _, where in named):
            return None  # a literal naming the file outside a load the reading understands
        matched = {text for text, _ in named if _names_file(text, target)}
        if not matched or matched & reading.unknown:
            return None
        sites = [site for text in matched for site in reading.sites.get(text, ())]
        if not sites:
            return None
        names: set[str] | None = None if reading.globals else set()
        for site in sites:
            names = None if names is None or site.passed is None else names | site.passed
        return Rendered(
            names=frozenset(names) if names is not None else None,
            tail=all(site.tail for site in sites),
            files=frozenset(path for site in sites for path in site.paths),
            place=places.pop() if len(places := {site.place for site in sites}) == 1 else None,
        )

    def _read(self) -> tuple[_Reading, _Modules]:
        if self._reading is None:
            self._reading = _read_project(self.project.root, self.project.max_bytes)
        return self._reading


def _names_file(name: str, target: PurePosixPath) -> bool:
    """Whether a load name (`instructions/chat.j2`, `./system.j2`) ends the file's path."""
    parts = [p for p in PurePosixPath(name.replace("\\", "/")).parts if p not in (".", "")]
    return bool(parts) and ".." not in parts and list(target.parts[-len(parts) :]) == parts


class _Modules:
    """The project's Python files, read once; each parsed when first needed."""

    def __init__(self) -> None:
        self.texts: list[tuple[Path, str]] = []
        # The project's files of other renderers (a flow's YAML, a front end's code, a
        # `.prompty`): a template one names is rendered there too, not known.
        self.others: list[str] = []
        self._trees: dict[Path, ast.Module | None] = {}

    def tree(self, path: Path, text: str) -> ast.Module | None:
        if path not in self._trees:
            try:
                self._trees[path] = parse_module(text)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._trees[path] = None
        return self._trees[path]


# What a file that loads a template, or gives templates names, writes: only those are parsed
# up front (the others, when they name a wrapper, a table or a template's file).
_LOADING = re.compile(r"get_template|Template|from_string|select_template|from_file|globals")


def _read_project(root: Path, max_bytes: int) -> tuple[_Reading, _Modules]:
    reading = _Reading()
    modules = _Modules()
    for path in _python_files(root):
        text = None if path is None else _read(path, min(max_bytes, _MAX_BYTES))
        if path is None or text is None:
            reading.failed = True  # a file unread, or past the bound on files
            return reading, modules
        modules.texts.append((path.resolve(), text))
    for other in _other_files(root):
        if other is not None and _larger(other, _MAX_BYTES):
            continue  # data (a dataset's JSON), not a configuration naming a template
        text = None if other is None else _read(other, min(max_bytes, _MAX_BYTES))
        if other is None or text is None:
            reading.failed = True
            return reading, modules
        if other.suffix in _CODE_SUFFIXES or _a_flow(other, text):
            modules.others.append(text)
    wrappers: dict[str, list[_Wrapper]] = {}
    try:
        for path, text in modules.texts:
            if _LOADING.search(text) is None:
                continue
            tree = modules.tree(path, text)
            if tree is None:
                raise _Unknown
            reading.scanned.add(path)
            _read_module(reading, wrappers, path, tree, modules)
        _wrapper_calls(reading, wrappers, modules)
    except _Unknown:
        reading.failed = True
    return reading, modules


# Files of other renderers that may name a template: front-end code, prompt files, and flows
# (a configuration that is not a flow names a template for the Python that reads it, whose load
# by a name read from it is not known already, or for nothing).
_CODE_SUFFIXES = frozenset({".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", ".prompty"})
_OTHER_SUFFIXES = _CODE_SUFFIXES | {".yaml", ".yml", ".json"}
_FLOW_NODES = re.compile(r"^\s*\"?nodes\"?\s*:", re.MULTILINE)


def _a_flow(path: Path, text: str) -> bool:
    """A flow's definition (Prompt flow's `flow.dag.yaml`: nodes that each name their source)."""
    return "flow" in path.name.lower() or (
        _FLOW_NODES.search(text) is not None and "source" in text
    )


def _other_files(root: Path) -> Iterator[Path | None]:
    """The project's files of other renderers (see `_OTHER_SUFFIXES`); past `_MAX_FILES`, one
    `None` says the rest were not looked in."""
    count = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIPPED | _TEST_FOLDERS]
        for file in files:
            if os.path.splitext(file)[1] in _OTHER_SUFFIXES:
                count += 1
                if count > _MAX_FILES:
                    yield None
                    return
                yield Path(folder, file)


def _larger(path: Path, size: int) -> bool:
    try:
        return path.stat().st_size > size
    except OSError:
        return False  # read next, and refused there


def _literals(tree: ast.Module, path: Path) -> list[tuple[str, _Where]]:
    parents = _parents(tree)
    return [
        (node.value, (path, node.lineno, node.col_offset))
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and not _a_message(node, parents)
    ]


# Calls whose text is a message to a person (a log line, a print, an error), not a file's name.
_MESSAGES = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "print"}
)


def _a_message(literal: ast.Constant, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether the literal is the text of a log line, a print (`logger.info("Loaded
    system_prompt.j2")`) or a docstring: it names the file for the reader, not for a load."""
    call = parents.get(literal)
    if isinstance(call, ast.Expr):
        return True  # a docstring ("e.g. `loader.render("sql.j2", ...)`"), a bare string
    return isinstance(call, ast.Call) and literal in call.args and _called(call.func) in _MESSAGES


class _Unknown(Exception):
    """A load whose name the reading cannot tell: it may be any template of the project."""


def _read_module(
    reading: _Reading,
    wrappers: dict[str, list[_Wrapper]],
    path: Path,
    tree: ast.Module,
    modules: _Modules,
) -> None:
    parents = _parents(tree)
    jinja_template = _imports_jinja_template(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and not _a_message(node, parents)
        ):
            reading.literals.append((node.value, (path, node.lineno, node.col_offset)))
        if (isinstance(node, ast.Attribute) and node.attr == "globals") or (
            isinstance(node, ast.keyword) and node.arg == "globals"
        ):
            reading.globals = True
        if not isinstance(node, ast.Call):
            continue
        called = _called(node.func)
        if called in _DYNAMIC_LOADS:
            raise _Unknown
        if called in ("Template", "from_string"):
            if called == "Template" and not (jinja_template or _qualified(node.func, "jinja2")):
                continue  # `string.Template`, another library's
            text = node.args[0] if node.args else _keyword(node, "source")
            if text is not None and _literal_text(text, tree):
                continue
            # The text of a file the code names (`Template(Path("x.j2").read_text())`): a load
            # of that file; any other text may be any template file's.
            name = None if text is None else _file_read(text, tree, parents)
            if name is None:
                raise _Unknown
        elif called in _LOADS:
            name = (
                node.args[0]
                if node.args
                else _keyword(node, "name") or _keyword(node, "template_name")
            )
        else:
            continue
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            reading.load(name, path, _loaded_sites(reading, node, parents, tree, path, modules))
            continue
        function = _scope_of(node, parents)
        if not isinstance(name, ast.Name) or function is None:
            raise _Unknown
        index = _parameter(function, name.id, parents)
        if index is None:
            raise _Unknown  # a local, a lookup's result: not a name the callers write
        renders = _uses(node, parents, function, tree, path, modules) or []
        reading.renders.update((path, r.lineno, r.col_offset) for r in renders)
        spread = function.args.kwarg.arg if function.args.kwarg is not None else None
        names: set[str] | None = set()
        forwards = False
        for render in renders:
            passed = _render_names(render, spread, parents)
            forwards = forwards or any(_spreads(render, spread))
            names = None if names is None or passed is None else names | passed
        wrapper = _Wrapper(
            index=index,
            keyword=name.id,
            known=bool(renders),
            passed=frozenset(names) if names is not None else None,
            returned=bool(renders) and all(_returned(r, parents) for r in renders),
            path=path,
            forwards=forwards,
            fits=_signature(function, parents),
            loader=isinstance(parents.get(node), ast.Return),
        )
        wrappers.setdefault(function.name, []).append(wrapper)


def _wrapper_calls(
    reading: _Reading,
    wrappers: dict[str, list[_Wrapper]],
    modules: _Modules,
) -> None:
    """Each call of a wrapper loads the template its literal argument names; a call that passes
    anything else, or a use of the wrapper other than a call, may load any template."""
    for name, defined in wrappers.items():
        for path, text in modules.texts:
            if name not in text:
                continue
            tree = modules.tree(path, text)
            if tree is None:
                raise _Unknown
            parents = _parents(tree)
            for node in ast.walk(tree):
                if _mentions(node, name) and not _defines(node, name):
                    call = parents.get(node)
                    if not isinstance(call, ast.Call) or call.func is not node:
                        raise _Unknown  # handed on as a value: called where the reading is not
                    if (path, call.lineno, call.col_offset) in reading.renders:
                        continue  # a loaded template's own render, not a call of the wrapper
                    fitting = [w for w in defined if w.fits is None or w.fits.accepts(call)]
                    if not fitting and isinstance(call.func, ast.Attribute):
                        continue  # another object's method of that name: its arguments differ
                    for wrapper in fitting or defined:
                        argument = call_argument(call, wrapper.index, wrapper.keyword)
                        sites = None
                        if wrapper.loader:
                            sites = _loaded_sites(reading, call, parents, tree, path, modules)
                            sites = _with_wrapper(sites, wrapper.path)
                        elif wrapper.known:
                            tail = wrapper.returned and _lands_at_tail(call, parents)
                            place = _place(call, parents) if wrapper.returned else None
                            paths = frozenset({path, wrapper.path})
                            sites = [_Site(paths, _call_passes(wrapper, call), tail, place)]
                        for literal in _names_passed(argument, tree, parents, path, modules):
                            reading.load(literal, path, sites)


def _loaded_sites(
    reading: _Reading,
    load: ast.Call,
    parents: dict[ast.AST, ast.AST],
    tree: ast.Module,
    path: Path,
    modules: _Modules,
) -> list[_Site] | None:
    """The renders of a template loaded by `load` (a load call, or a call of a loader that
    returns the template), each a site; None when any use of it is not a render."""
    scope = _scope_of(load, parents) or tree
    renders = _uses(load, parents, scope, tree, path, modules)
    if renders is None:
        return None
    reading.renders.update((path, r.lineno, r.col_offset) for r in renders)
    return [
        _Site(
            frozenset({path}),
            _render_names(r, parents=parents),
            _lands_at_tail(r, parents),
            _place(_trimmed(r, parents), parents),
        )
        for r in renders
    ]


def _with_wrapper(sites: list[_Site] | None, wrapper: Path) -> list[_Site] | None:
    if sites is None:
        return None
    return [dataclasses.replace(site, paths=site.paths | {wrapper}) for site in sites]


def _call_passes(wrapper: _Wrapper, call: ast.Call) -> frozenset[str] | None:
    """The names one call of the wrapper has its template rendered with: the wrapper's own, and
    the keywords the call forwards to the render through the wrapper's `**values`."""
    if wrapper.passed is None or not wrapper.forwards:
        return wrapper.passed
    if any(k.arg is None for k in call.keywords):
        return None  # the call spreads a mapping: its names are not listed
    own = wrapper.fits.names if wrapper.fits is not None else frozenset()
    return wrapper.passed | {k.arg for k in call.keywords if k.arg is not None and k.arg not in own}


def _signature(function: _Function, parents: dict[ast.AST, ast.AST]) -> _Signature:
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    method = isinstance(parents.get(function), ast.ClassDef) and not any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list
    )
    count = len(positional) - (1 if method and positional else 0)
    return _Signature(
        positional=None if args.vararg is not None else count,
        names=frozenset(a.arg for a in [*positional, *args.kwonlyargs]),
        any_keyword=args.kwarg is not None,
    )


def _spreads(render: ast.Call, spread: str | None) -> Iterator[ast.expr]:
    """The render's `**` arguments that are the wrapper's own `**values` parameter."""
    for given in render.keywords:
        if given.arg is None and isinstance(given.value, ast.Name) and given.value.id == spread:
            yield given.value


# Methods of the rendered text that give the same text back, trimmed.
_TRIMS = frozenset({"strip", "lstrip", "rstrip"})


def _returned(render: ast.Call, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether the wrapper returns the rendered text (trimmed or not)."""
    return isinstance(parents.get(_trimmed(render, parents)), ast.Return)


def _trimmed(render: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.AST:
    """The rendered text as the code goes on with it: `render(...).strip()`, or the render."""
    node = render
    while True:
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.attr in _TRIMS:
            call = parents.get(parent)
            if isinstance(call, ast.Call) and call.func is parent and not call.args:
                node = call
                continue
        return node


def _mentions(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name
    return isinstance(node, ast.Attribute) and node.attr == name


def _defines(node: ast.AST, name: str) -> bool:
    return isinstance(node, _FUNCTIONS) and node.name == name


def _names_passed(
    argument: ast.expr | None,
    tree: ast.Module,
    parents: dict[ast.AST, ast.AST],
    path: Path,
    modules: _Modules,
) -> list[ast.Constant]:
    """The template names a wrapper's call passes: a literal, or a lookup in a table of literal
    names the module binds once and only looks up in (`TEMPLATES[intent]`: one of its values).
    Anything else may name any template."""
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return [argument]
    if isinstance(argument, ast.Name):  # `name = TABLE.get(state, "default.j2")`, then passed
        looked = _bound_once(argument, tree, parents)
        if looked is None or _scope_of(argument, parents) is None:
            raise _Unknown
        argument = looked
    default: list[ast.Constant] = []
    if (
        isinstance(argument, ast.Call)
        and isinstance(argument.func, ast.Attribute)
        and argument.func.attr == "get"
        and 1 <= len(argument.args) <= 2
        and not argument.keywords
    ):
        if len(argument.args) == 2:
            given = argument.args[1]
            if not (isinstance(given, ast.Constant) and isinstance(given.value, str)):
                raise _Unknown
            default = [given]
        table_read: ast.expr = argument.func.value
    elif isinstance(argument, ast.Subscript):
        table_read = argument.value
    else:
        raise _Unknown
    if not isinstance(table_read, ast.Name):
        raise _Unknown
    table = table_read.id
    bound = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and any(
            _names(t, table)
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
    ]
    if len(bound) != 1 or not isinstance(bound[0], ast.Dict):
        raise _Unknown
    values = bound[0].values
    if not all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in values):
        raise _Unknown
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Name)
            and node.id == table
            and isinstance(node.ctx, ast.Load)
            and not _looked_up(node, parents)
        ):
            raise _Unknown  # changed, iterated, handed on: not only looked up
    if any(table in text for other, text in modules.texts if other != path):
        raise _Unknown  # another module may import the table and change it
    return [v for v in values if isinstance(v, ast.Constant)] + default


def _looked_up(table: ast.Name, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether the table is only read here: `TABLE[key]` or `TABLE.get(key...)`."""
    used = parents.get(table)
    if isinstance(used, ast.Subscript):
        return isinstance(used.ctx, ast.Load)
    call = parents.get(used) if isinstance(used, ast.Attribute) else None
    return isinstance(used, ast.Attribute) and used.attr == "get" and isinstance(call, ast.Call)


def _names(target: ast.expr, name: str) -> bool:
    return isinstance(target, ast.Name) and target.id == name


def _uses(
    load: ast.Call,
    parents: dict[ast.AST, ast.AST],
    scope: ast.AST,
    tree: ast.Module,
    path: Path,
    modules: _Modules,
) -> list[ast.Call] | None:
    """The render calls of a loaded template: rendered where it is loaded, or bound to a name
    only rendered in its scope; None for any other use (or none seen)."""
    parent = parents.get(load)
    if isinstance(parent, ast.Attribute):
        render = _render_of(parent, parents)
        return [render] if render is not None else None
    if not (
        isinstance(parent, ast.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Name)
    ):
        return None  # returned, stored on an object, handed on: rendered where it is not read
    bound = parent.targets[0].id
    if scope is tree and _imported_elsewhere(bound, path, modules):
        return None  # a module's name another file may import and render
    renders: list[ast.Call] = []
    for node in _reads(scope, bound):
        found = parents.get(node)
        render = _render_of(found, parents) if isinstance(found, ast.Attribute) else None
        if render is None:
            return None
        renders.append(render)
    return renders or None


def _imported_elsewhere(name: str, path: Path, modules: _Modules) -> bool:
    """Whether another module may read the module's `name`: it imports it (`from .agent import
    PROMPT`, `import *`) or reads an attribute of that name (`agent.PROMPT`). A module that
    only binds a name of its own spelled the same (each agent's `PROMPT_TMPL`) does not; one
    that cannot be parsed may."""
    for other, text in modules.texts:
        if other == path or name not in text:
            continue
        tree = modules.tree(other, text)
        if tree is None:
            return True
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and any(
                alias.name in (name, "*") for alias in node.names
            ):
                return True
            if isinstance(node, ast.Attribute) and node.attr == name:
                return True
    return False


def _reads(scope: ast.AST, name: str) -> Iterator[ast.Name]:
    """Where `name` is read in `scope`, also in the functions in it that do not bind it
    themselves."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            yield node
        if isinstance(node, (*_FUNCTIONS, ast.Lambda, ast.ClassDef)) and _binds(node, name):
            continue  # its own name, not this one
        todo.extend(ast.iter_child_nodes(node))


def _binds(function: ast.AST, name: str) -> bool:
    if isinstance(function, (*_FUNCTIONS, ast.Lambda)):
        args = function.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        if any(p is not None and p.arg == name for p in params):
            return True
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for n in ast.walk(function)
    )


def _render_of(attribute: ast.Attribute, parents: dict[ast.AST, ast.AST]) -> ast.Call | None:
    call = parents.get(attribute)
    if attribute.attr in _RENDERS and isinstance(call, ast.Call) and call.func is attribute:
        return call
    return None


def _render_names(
    call: ast.Call,
    forwarded: str | None = None,
    parents: dict[ast.AST, ast.AST] | None = None,
) -> frozenset[str] | None:
    """The names a render call passes (keywords, a dict literal's keys), None when it spreads
    a mapping the reading cannot list. A spread of `forwarded` (a wrapper's `**values`) is
    left to the wrapper's callers (see `_call_passes`)."""
    names: set[str] = set()
    if len(call.args) > 1:
        return None
    spread = [
        *call.args,
        *(
            k.value
            for k in call.keywords
            if k.arg is None
            and not (forwarded and isinstance(k.value, ast.Name) and k.value.id == forwarded)
        ),
    ]
    names.update(k.arg for k in call.keywords if k.arg is not None)
    for mapping in spread:
        keys = _keys(mapping)
        if keys is None and parents is not None and isinstance(mapping, ast.Name):
            keys = _built_keys(mapping, call, parents)
        if keys is None:
            return None
        names |= keys
    return frozenset(names)


def _built_keys(
    mapping: ast.Name, render: ast.Call, parents: dict[ast.AST, ast.AST]
) -> set[str] | None:
    """The keys of a dict the rendering function builds itself: bound once to a dict literal
    (`ctx = {"purpose": ..., "task": ...}`), then only given literal keys (`ctx["refs"] = ...`,
    `ctx.update(refs=...)`) before it is spread into the render. Any other use (handed to a
    call, a key that is not a literal, returned) leaves its keys unknown."""
    function = _scope_of(render, parents)
    if function is None or _stores(function, mapping.id) != 1:
        return None
    bound = [
        node.value
        for node in ast.walk(function)
        if isinstance(node, ast.Assign) and [_names(t, mapping.id) for t in node.targets] == [True]
    ]
    keys = _keys(bound[0]) if len(bound) == 1 else None
    if keys is None:
        return None
    for node in _reads(function, mapping.id):
        used = parents.get(node)
        spread_into = parents.get(used) if isinstance(used, ast.keyword) else None
        if (
            isinstance(used, ast.keyword)
            and used.arg is None
            and isinstance(spread_into, ast.Call)
            and isinstance(spread_into.func, ast.Attribute)
            and spread_into.func.attr in _RENDERS
        ):
            continue  # spread into this render or another (each passes at most these keys)
        if isinstance(used, ast.Subscript) and used.value is node:
            key = used.slice
            if isinstance(used.ctx, ast.Load):
                continue  # read back: `ctx["task"]`
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                keys.add(key.value)
                continue
            return None
        call = parents.get(used) if isinstance(used, ast.Attribute) else None
        if (
            isinstance(used, ast.Attribute)
            and used.attr == "update"
            and isinstance(call, ast.Call)
            and not call.args
            and all(k.arg is not None for k in call.keywords)
        ):
            keys |= {k.arg for k in call.keywords if k.arg is not None}
            continue
        return None
    return keys


def _keys(mapping: ast.expr) -> set[str] | None:
    if isinstance(mapping, ast.Dict):
        keys: set[str] = set()
        for key, value in zip(mapping.keys, mapping.values, strict=True):
            if key is None:  # `{**other}`
                inner = _keys(value)
                if inner is None:
                    return None
                keys |= inner
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                keys.add(key.value)
            else:
                return None
        return keys
    if (
        isinstance(mapping, ast.Call)
        and isinstance(mapping.func, ast.Name)
        and mapping.func.id == "dict"
        and not mapping.args
        and all(k.arg is not None for k in mapping.keywords)
    ):
        return {k.arg for k in mapping.keywords if k.arg is not None}
    return None


def _parameter(function: _Function, name: str, parents: dict[ast.AST, ast.AST]) -> int | None:
    """The position a call writes for `function`'s parameter `name` (a method's `self` or `cls`
    not counted); None when `name` is not one, or the function binds it again."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    names = [a.arg for a in positional]
    if name not in names and name not in (a.arg for a in args.kwonlyargs):
        return None
    if any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for n in ast.walk(function)
    ):
        return None
    if name not in names:
        return -1  # keyword-only
    index = names.index(name)
    method = isinstance(parents.get(function), ast.ClassDef) and not any(
        isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list
    )
    return index - 1 if method else index


def _scope_of(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> _Function | None:
    found = parents.get(node)
    while found is not None and not isinstance(found, _FUNCTIONS):
        found = parents.get(found)
    return found


def _parents(tree: ast.Module) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _qualified(func: ast.expr, module: str) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == module
    )


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _imports_jinja_template(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.ImportFrom)
        and (node.module or "").split(".")[0] == "jinja2"
        and any(a.name == "Template" for a in node.names)
        for node in ast.walk(tree)
    )


def _literal_text(text: ast.expr, tree: ast.Module, depth: int = 2) -> bool:
    """Whether a template's source is written in the code (a literal, an f-string of literals,
    a name the module binds only to such text at its top), not read from a file."""
    if isinstance(text, ast.Constant):
        return True
    if isinstance(text, ast.JoinedStr):
        return all(isinstance(v, ast.Constant) for v in text.values)
    if isinstance(text, ast.Call) and _called(text.func) == "dedent" and len(text.args) == 1:
        return _literal_text(text.args[0], tree, depth)
    if isinstance(text, ast.Name) and depth > 0:
        values = [
            node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == text.id for t in node.targets)
        ]
        stores = sum(
            1
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and node.id == text.id and isinstance(node.ctx, ast.Store)
        )
        return (
            bool(values)
            and stores == len(values)
            and all(_literal_text(v, tree, depth - 1) for v in values)
        )
    return False


_READS = frozenset({"read_text", "read_bytes"})
_PATHS = frozenset({"Path", "PurePath", "PosixPath", "join", "joinpath"})
_SAME_FILE = frozenset({"resolve", "absolute", "expanduser"})


def _file_read(
    text: ast.expr, tree: ast.Module, parents: dict[ast.AST, ast.AST], depth: int = 3
) -> ast.expr | None:
    """The name of the file whose text a template is made from: `Path("prompts/a.j2")
    .read_text()`, `(PROMPT_DIR / "a.j2").read_text()`, `open(path).read()`, through names bound
    once (`text = FILE.read_text()`, a module's `_TMPL_PATH = ... / "a.j2"`). The literal that
    ends the path, or the parameter that does (a wrapper's); None for anything else."""
    if isinstance(text, ast.Name):
        bound = _bound_once(text, tree, parents)
        return None if bound is None or depth == 0 else _file_read(bound, tree, parents, depth - 1)
    if not (isinstance(text, ast.Call) and isinstance(text.func, ast.Attribute)):
        return None
    if text.func.attr in _READS:
        return _path_end(text.func.value, tree, parents, depth)
    opened = text.func.value
    if text.func.attr == "read" and isinstance(opened, ast.Call) and _called(opened.func) == "open":
        return _path_end(opened.args[0], tree, parents, depth) if opened.args else None
    return None


def _path_end(
    path: ast.expr, tree: ast.Module, parents: dict[ast.AST, ast.AST], depth: int
) -> ast.expr | None:
    """The literal (or parameter) that ends a path expression (see `_file_read`)."""
    if isinstance(path, ast.Constant):
        named = isinstance(path.value, str) and PurePosixPath(path.value).suffix != ""
        return path if named else None
    if isinstance(path, ast.BinOp) and isinstance(path.op, ast.Div):
        return _path_end(path.right, tree, parents, depth)
    if isinstance(path, ast.Call):
        called = _called(path.func)
        if called in _PATHS and path.args and not path.keywords:
            return _path_end(path.args[-1], tree, parents, depth)
        if called in _SAME_FILE and isinstance(path.func, ast.Attribute) and not path.args:
            return _path_end(path.func.value, tree, parents, depth)
        return None
    if isinstance(path, ast.Name) and depth > 0:
        function = _scope_of(path, parents)
        if function is not None and _parameter(function, path.id, parents) is not None:
            return path  # a wrapper's parameter: its callers name the file
        bound = _bound_once(path, tree, parents)
        return None if bound is None else _path_end(bound, tree, parents, depth - 1)
    return None


def _bound_once(
    name: ast.Name, tree: ast.Module, parents: dict[ast.AST, ast.AST]
) -> ast.expr | None:
    """The value a name is bound to, where its function (or else the module) binds it once, by
    a plain assignment, and nothing else in the module stores it."""
    function = _scope_of(name, parents)
    scopes: list[ast.AST] = [function] if function is not None else []
    for scope in [*scopes, tree]:
        body = ast.walk(scope) if scope is not tree else iter(tree.body)
        values = [
            node.value
            for node in body
            if isinstance(node, ast.Assign | ast.AnnAssign)
            and node.value is not None
            and any(
                _names(t, name.id)
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            )
        ]
        if values:
            stores = sum(
                1
                for node in ast.walk(scope)
                if isinstance(node, ast.Name)
                and node.id == name.id
                and isinstance(node.ctx, ast.Store)
            )
            return values[0] if len(values) == 1 and stores == 1 else None
    return None


# -- where a rendered text lands -----------------------------------------------------------------

_HOPS = 3  # names a rendered text is followed through (`instruction`, then `user_content`)
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort"})


def _lands_at_tail(text: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """
    Whether a rendered text ends as the newest user turn of a request, after the conversation
    history: the content of a `{"role": "user", ...}` message appended last to a list the
    function copied the history into (`for turn in history: messages.append(...)`), or the last
    element of `[*history, {...}]` / `history + [{...}]`. Followed through an f-string or a
    concatenation, and through a name read once. Nothing after it in the request is reused:
    the next request has another turn there.
    """
    function = _scope_of(text, parents)
    if function is None:
        return False
    node: ast.AST = text
    for _ in range(_HOPS + 1):
        node = _carried(node, parents)
        parent = parents.get(node)
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
            target = parent.targets[0]
            if not isinstance(target, ast.Name) or _stores(function, target.id) != 1:
                return False
            reads = list(_reads(function, target.id))
            if len(reads) != 1:
                return False
            node = reads[0]
            continue
        if isinstance(parent, ast.Dict):
            return _newest_user_turn(parent, node, function, parents)
        return False
    return False


_USER_MESSAGES = frozenset({"HumanMessage", "UserMessage"})


def _place(text: ast.AST, parents: dict[ast.AST, ast.AST]) -> Place | None:
    """
    "user" when a rendered text becomes part of a user message's content, followed as
    `_lands_at_tail` follows it (an f-string, a concatenation, a name read once) and also
    through a list of parts joined into one text (`"\n".join([intro, task])`): the content of
    a `{"role": "user", ...}` dict or of a LangChain `HumanMessage`. None where it goes
    anywhere else (returned, handed to a helper, stored, another role's message).
    """
    function = _scope_of(text, parents)
    node: ast.AST = text
    for _ in range(_HOPS + 1):
        node = _joined(_carried(node, parents), parents)
        parent = parents.get(node)
        if isinstance(parent, ast.keyword) and parent.arg == "content":
            message = parents.get(parent)
            named = isinstance(message, ast.Call) and _called(message.func) in _USER_MESSAGES
            return "user" if named else None
        if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
            return "user" if _called(parent.func) in _USER_MESSAGES else None
        if isinstance(parent, ast.Dict):
            fields = {
                k.value: v
                for k, v in zip(parent.keys, parent.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            }
            role = fields.get("role")
            user = isinstance(role, ast.Constant) and role.value == "user"
            return "user" if user and fields.get("content") is node else None
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
            target = parent.targets[0]
            if not isinstance(target, ast.Name) or function is None:
                return None
            if _stores(function, target.id) != 1:
                return None
            reads = list(_reads(function, target.id))
            if len(reads) != 1:
                return None
            node = reads[0]
            continue
        return None
    return None


def _joined(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.AST:
    """The text parts are joined into: `sep.join([a, b])` for an element of the list, or
    `sep.join(parts)` for the list's name; the list itself for an element of another list."""
    holder = parents.get(node)
    if isinstance(holder, ast.List | ast.Tuple):
        call = parents.get(holder)
        return call if call is not None and _joins(call, holder) else holder
    return holder if holder is not None and _joins(holder, node) else node


def _joins(call: ast.AST | None, parts: ast.AST) -> bool:
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "join"
        and len(call.args) == 1
        and call.args[0] is parts
    )


def _carried(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.AST:
    """The outermost text `node` is written into: an f-string, a concatenation."""
    while True:
        parent = parents.get(node)
        if isinstance(parent, ast.FormattedValue | ast.JoinedStr) or (
            isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add)
        ):
            node = parent
        else:
            return node


def _newest_user_turn(
    message: ast.Dict, content: ast.AST, function: _Function, parents: dict[ast.AST, ast.AST]
) -> bool:
    fields = {
        k.value: v
        for k, v in zip(message.keys, message.values, strict=True)
        if isinstance(k, ast.Constant) and isinstance(k.value, str)
    }
    role = fields.get("role")
    if fields.get("content") is not content or not (
        isinstance(role, ast.Constant) and role.value == "user"
    ):
        return False
    holder = parents.get(message)
    if isinstance(holder, ast.Call):  # `messages.append({...})`
        func = holder.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr == "append"
            and isinstance(func.value, ast.Name)
            and isinstance(parents.get(holder), ast.Expr)
            and not _in_loop(holder, function, parents)
        ):
            return False
        listed = func.value.id
        return _history_before(function, listed, holder.lineno) and _sent_after(
            function, listed, holder, parents
        )
    if isinstance(holder, ast.List) and holder.elts and holder.elts[-1] is message:
        outer = parents.get(holder)
        after_history = any(
            isinstance(e, ast.Starred) and _varies(e.value) for e in holder.elts[:-1]
        ) or (
            isinstance(outer, ast.BinOp)
            and isinstance(outer.op, ast.Add)
            and outer.right is holder
            and _varies(outer.left)
        )
        sent = outer if isinstance(outer, ast.BinOp) else holder
        return after_history and isinstance(parents.get(sent), ast.keyword)
    return False


def _in_loop(node: ast.AST, function: _Function, parents: dict[ast.AST, ast.AST]) -> bool:
    found = parents.get(node)
    while found is not None and found is not function:
        if isinstance(found, ast.For | ast.AsyncFor | ast.While):
            return True
        found = parents.get(found)
    return False


def _history_before(function: _Function, listed: str, line: int) -> bool:
    """Whether the function copies turns into the list before `line`: appends to it in a loop,
    or extends it, with what is not the code's own constant (a few-shot table is the same on
    every request: the text after it is reusable)."""
    for node in ast.walk(function):
        if getattr(node, "lineno", line) >= line:
            continue
        if (
            isinstance(node, ast.For | ast.AsyncFor)
            and _varies(node.iter)
            and any(_mutates(call, listed, ("append",)) for call in ast.walk(node))
        ):
            return True
        if (
            isinstance(node, ast.Call)
            and _mutates(node, listed, ("extend",))
            and node.args
            and _varies(node.args[0])
        ):
            return True
        if isinstance(node, ast.AugAssign) and _names(node.target, listed) and _varies(node.value):
            return True
    return False


def _varies(turns: ast.expr) -> bool:
    """Whether turns copied from `turns` may differ between requests: not a literal, not a
    constant's name (`FEW_SHOT`), nor a slice of one."""
    while isinstance(turns, ast.Subscript | ast.Attribute | ast.Starred):
        turns = turns.value
    if isinstance(turns, ast.Constant | ast.List | ast.Tuple | ast.Dict | ast.Set):
        return False
    return not (isinstance(turns, ast.Name) and turns.id.isupper())


def _mutates(node: ast.AST, listed: str, methods: tuple[str, ...] | frozenset[str]) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in methods
        and _names(node.func.value, listed)
    )


def _sent_after(
    function: _Function, listed: str, append: ast.Call, parents: dict[ast.AST, ast.AST]
) -> bool:
    """Whether the list is only handed to calls after the append (the request), never changed,
    returned or kept: no turn is added after the rendered one."""
    sent = False
    for node in ast.walk(function):
        if getattr(node, "lineno", 0) <= append.lineno or node is append:
            continue
        if _mutates(node, listed, _MUTATORS):
            return False
        if isinstance(node, ast.Name) and node.id == listed:
            if isinstance(node.ctx, ast.Store | ast.Del):
                return False
            use = parents.get(node)
            if isinstance(use, ast.keyword) or (isinstance(use, ast.Call) and node in use.args):
                sent = True
            else:
                return False
    return sent


def _stores(function: _Function, name: str) -> int:
    return sum(
        1
        for node in ast.walk(function)
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
    )
