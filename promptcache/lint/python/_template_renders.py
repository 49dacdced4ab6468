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
  literal for that parameter and the wrapper's name is called nowhere else in another way;
- a render passes the names it writes as keywords, or as the keys of a dict literal; a `**`
  spread of anything else leaves its names unknown.

Anything the reading cannot settle makes the answer "unknown" (None), never a guess: a file that
cannot be read or parsed, a load by a name that is not a literal (`get_template(name)` fed by a
lookup, `Template(path.read_text())`: it may be any template), a literal naming the file used
outside a load the reading understands (a lookup table, a path joined elsewhere), or a use of a
loaded template other than rendering it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ._call_sites import _python_files, _read
from ._project import Project

__all__ = ["TemplateRenders"]

_LOADS = frozenset({"get_template"})
# Loads whose name the reading does not follow: any template of the project may be one of them.
_DYNAMIC_LOADS = frozenset({"select_template", "get_or_select_template", "from_file"})
_RENDERS = frozenset({"render", "render_async"})
_MAX_BYTES = 2 * 1024 * 1024
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef
_Where = tuple[Path, int, int]  # a literal's file, line and column


@dataclass(slots=True)
class _Wrapper:
    """A function that loads the template its parameter names, and what its renders pass."""

    index: int  # the parameter's position, as a call writes it (`self` not counted)
    keyword: str
    passed: frozenset[str] | None
    path: Path


@dataclass(slots=True)
class _Reading:
    """The project's renders, read once: per load name (as written), the file and the names of
    each render; the load names with a render not fully known; every string literal (its text
    and place) and those that are a load's name; whether the reading failed as a whole."""

    sites: dict[str, list[tuple[frozenset[Path], frozenset[str]]]] = field(default_factory=dict)
    unknown: set[str] = field(default_factory=set)
    literals: list[tuple[str, _Where]] = field(default_factory=list)
    loads: set[_Where] = field(default_factory=set)
    failed: bool = False

    def load(
        self, name: ast.Constant, path: Path, passed: frozenset[str] | None, *also: Path
    ) -> None:
        """A load of the template `name` at `path`, rendered with the names `passed` (None:
        not known), where it is loaded or in `also` (a wrapper's file)."""
        self.loads.add((path, name.lineno, name.col_offset))
        text = str(name.value)
        if passed is None:
            self.unknown.add(text)
        else:
            self.sites.setdefault(text, []).append((frozenset({path, *also}), passed))


class TemplateRenders:
    """The render calls a project makes of its template files (see the module docstring)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._reading: _Reading | None = None

    def clear(self) -> None:
        self._reading = None

    def passed(self, template: Path) -> tuple[frozenset[str], frozenset[Path]] | None:
        """
        The names the renders of `template` pass, and the Python files those renders are in;
        None when the project renders it nowhere the reading sees, or when any render of it (or
        any load that may be it) is not fully known.
        """
        reading = self._read()
        if reading.failed:
            return None
        target = PurePosixPath(template.resolve().as_posix())
        named = [(text, where) for text, where in reading.literals if target.name in text]
        if not named or any(where not in reading.loads for _, where in named):
            return None  # a literal naming the file outside a load the reading understands
        matched = {text for text, _ in named if _names_file(text, target)}
        if not matched or matched & reading.unknown:
            return None
        names: set[str] = set()
        files: set[Path] = set()
        for text in matched:
            for paths, passed in reading.sites.get(text, ()):
                names |= passed
                files |= paths
        return (frozenset(names), frozenset(files)) if files else None

    def _read(self) -> _Reading:
        if self._reading is None:
            self._reading = _read_project(self.project.root, self.project.max_bytes)
        return self._reading


def _names_file(name: str, target: PurePosixPath) -> bool:
    """Whether a load name (`instructions/chat.j2`, `./system.j2`) ends the file's path."""
    parts = [p for p in PurePosixPath(name.replace("\\", "/")).parts if p not in (".", "")]
    return bool(parts) and ".." not in parts and list(target.parts[-len(parts) :]) == parts


def _read_project(root: Path, max_bytes: int) -> _Reading:
    reading = _Reading()
    modules: list[tuple[Path, ast.Module, str]] = []
    for path in _python_files(root):
        text = None if path is None else _read(path, min(max_bytes, _MAX_BYTES))
        if path is None or text is None:
            reading.failed = True  # a file unread, or past the bound on files
            return reading
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            reading.failed = True
            return reading
        modules.append((path.resolve(), tree, text))
    wrappers: dict[str, list[_Wrapper]] = {}
    for path, tree, _ in modules:
        try:
            _read_module(reading, wrappers, path, tree, modules)
        except _Unknown:
            reading.failed = True
            return reading
    try:
        _wrapper_calls(reading, wrappers, modules)
    except _Unknown:
        reading.failed = True
    return reading


class _Unknown(Exception):
    """A load whose name the reading cannot tell: it may be any template of the project."""


def _read_module(
    reading: _Reading,
    wrappers: dict[str, list[_Wrapper]],
    path: Path,
    tree: ast.Module,
    modules: list[tuple[Path, ast.Module, str]],
) -> None:
    parents = _parents(tree)
    jinja_template = _imports_jinja_template(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            reading.literals.append((node.value, (path, node.lineno, node.col_offset)))
        if not isinstance(node, ast.Call):
            continue
        called = _called(node.func)
        if called in _DYNAMIC_LOADS:
            raise _Unknown
        if called in ("Template", "from_string"):
            if called == "Template" and not (jinja_template or _qualified(node.func, "jinja2")):
                continue  # `string.Template`, another library's
            text = node.args[0] if node.args else _keyword(node, "source")
            if text is None or not _literal_text(text, tree):
                raise _Unknown  # text read from somewhere: it may be a template file's
            continue
        if called not in _LOADS:
            continue
        name = (
            node.args[0] if node.args else _keyword(node, "name") or _keyword(node, "template_name")
        )
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            scope = _scope_of(node, parents) or tree
            reading.load(name, path, _uses(node, parents, scope, tree, path, modules))
            continue
        function = _scope_of(node, parents)
        if not isinstance(name, ast.Name) or function is None:
            raise _Unknown
        index = _parameter(function, name.id, parents)
        if index is None:
            raise _Unknown  # a local, a lookup's result: not a name the callers write
        passed = _uses(node, parents, function, tree, path, modules)
        wrappers.setdefault(function.name, []).append(_Wrapper(index, name.id, passed, path))


def _wrapper_calls(
    reading: _Reading,
    wrappers: dict[str, list[_Wrapper]],
    modules: list[tuple[Path, ast.Module, str]],
) -> None:
    """Each call of a wrapper loads the template its literal argument names; a call that passes
    anything else, or a use of the wrapper other than a call, may load any template."""
    for name, defined in wrappers.items():
        for path, tree, text in modules:
            if name not in text:
                continue
            parents = _parents(tree)
            for node in ast.walk(tree):
                if _mentions(node, name) and not _defines(node, name):
                    call = parents.get(node)
                    if not isinstance(call, ast.Call) or call.func is not node:
                        raise _Unknown  # handed on as a value: called where the reading is not
                    for wrapper in defined:
                        argument = _argument(call, wrapper.index, wrapper.keyword)
                        if not isinstance(argument, ast.Constant) or not isinstance(
                            argument.value, str
                        ):
                            raise _Unknown
                        reading.load(argument, path, wrapper.passed, wrapper.path)


def _mentions(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name
    return isinstance(node, ast.Attribute) and node.attr == name


def _defines(node: ast.AST, name: str) -> bool:
    return isinstance(node, _FUNCTIONS) and node.name == name


def _argument(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return None
    for given in call.keywords:
        if given.arg == keyword:
            return given.value
    return call.args[index] if 0 <= index < len(call.args) else None


def _uses(
    load: ast.Call,
    parents: dict[ast.AST, ast.AST],
    scope: ast.AST,
    tree: ast.Module,
    path: Path,
    modules: list[tuple[Path, ast.Module, str]],
) -> frozenset[str] | None:
    """The names the renders of a loaded template pass: rendered where it is loaded, or bound to
    a name only rendered in its scope; None for any other use (or none seen)."""
    parent = parents.get(load)
    if isinstance(parent, ast.Attribute):
        return _rendered(parent, parents)
    if not (
        isinstance(parent, ast.Assign)
        and len(parent.targets) == 1
        and isinstance(parent.targets[0], ast.Name)
    ):
        return None  # returned, stored on an object, handed on: rendered where it is not read
    bound = parent.targets[0].id
    if scope is tree and any(bound in text for other, _, text in modules if other != path):
        return None  # a module's name another file may import and render
    names: set[str] = set()
    used = False
    for node in _reads(scope, bound):
        found = parents.get(node)
        passed = _rendered(found, parents) if isinstance(found, ast.Attribute) else None
        if passed is None:
            return None
        names |= passed
        used = True
    return frozenset(names) if used else None


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


def _rendered(attribute: ast.Attribute, parents: dict[ast.AST, ast.AST]) -> frozenset[str] | None:
    call = parents.get(attribute)
    if (
        attribute.attr not in _RENDERS
        or not isinstance(call, ast.Call)
        or call.func is not attribute
    ):
        return None
    return _render_names(call)


def _render_names(call: ast.Call) -> frozenset[str] | None:
    """The names a render call passes (keywords, a dict literal's keys), None when it spreads
    a mapping the reading cannot list."""
    names: set[str] = set()
    if len(call.args) > 1:
        return None
    spread = [*call.args, *(k.value for k in call.keywords if k.arg is None)]
    names.update(k.arg for k in call.keywords if k.arg is not None)
    for mapping in spread:
        keys = _keys(mapping)
        if keys is None:
            return None
        names |= keys
    return frozenset(names)


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


def _called(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


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
