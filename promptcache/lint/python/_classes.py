"""
The project's class hierarchy: a method looked up on an instance is found on its class or, in
method resolution order, on one of the project's base classes it derives from (in its own module
or imported from another); and a method a base class only declares (`@abstractmethod`, a body of
`...`, `pass` or `raise NotImplementedError`) runs, on a value typed with that base, whichever
project subclass's override the value is: such a call has several possible targets (`overrides`).

Base classes are resolved by the name resolution of the class's own module (`Scope.find`); the
subclasses of a base are found by reading the project's files as text (`CallSites`' reading) for a
class statement that names the base, then resolving that class's bases as above.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

from ._project import Module
from ._scope import Scope
from ._summaries import ClassInfo, Function

if TYPE_CHECKING:
    from ._interp import Analysis
    from ._values import Value

__all__ = ["bases_of", "method_of", "overrides", "stub"]

_MRO_DEPTH = 8  # how many levels of base classes are looked in (a cycle ends here)
_MAX_SUBCLASSES = 16  # the overrides a dispatched call joins (more: a plugin registry)


def bases_of(analysis: Analysis, cls: ClassInfo) -> list[ClassInfo]:
    """The project classes `cls` names as its bases, in order (others: a library's, unknown)."""
    if cls.bases is not None:
        return cls.bases
    cls.bases = found = []  # a cycle through its own bases finds none
    scope = Scope(analysis, cls.module, None, {})
    for base in cls.node.bases:
        value = None
        if isinstance(base, ast.Name):
            value = scope.find(base.id, base)
        elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):
            head = cls.module.imports.get(base.value.id)
            if head is not None:
                value = scope.imported(f"{head}.{base.attr}", base)
        named = _class_of(value)
        if named is not None and named is not cls:
            found.append(named)
    return found


def _class_of(value: Value | None) -> ClassInfo | None:
    """The project class a name is bound to, if it is one."""
    if value is not None and value.kind == "class" and isinstance(value.meta, ClassInfo):
        return value.meta
    return None


def method_of(analysis: Analysis, cls: ClassInfo, name: str) -> Function | None:
    """The method `name` an instance of `cls` runs: its own, else its bases' (depth first, left
    to right: the order Python's C3 gives for the hierarchies projects write)."""
    seen: set[int] = set()
    # Walked with a list, not a nested recursive function (whose cell would be a cycle left
    # for the collector on every call).
    todo: list[tuple[ClassInfo, int]] = [(cls, 0)]
    while todo:
        current, depth = todo.pop()
        if id(current) in seen or depth > _MRO_DEPTH:
            continue
        seen.add(id(current))
        own = current.methods.get(name)
        if own is not None:
            return own
        todo.extend((base, depth + 1) for base in reversed(bases_of(analysis, current)))
    return None


def overrides(analysis: Analysis, cls: ClassInfo, method: Function) -> list[Function]:
    """The project's overrides of `method`, a method `cls` (or its base) only declares: those of
    every project subclass of `cls` that defines (or inherits from between) its own. Empty when
    `method` has a body, or when no subclass is found."""
    if not stub(method.node) or isinstance(method.node, ast.Lambda):
        return []
    name = method.node.name
    found: list[Function] = []
    for sub in subclasses(analysis, cls):
        own = method_of(analysis, sub, name)
        if own is not None and own is not method and not stub(own.node) and own not in found:
            found.append(own)
    return found[:_MAX_SUBCLASSES]


def subclasses(analysis: Analysis, cls: ClassInfo) -> list[ClassInfo]:
    """The project's classes deriving from `cls`, directly or through others."""
    if cls.subclasses is not None:
        return cls.subclasses
    cls.subclasses = found = []
    for candidate in _named_subclasses(analysis, cls):
        if candidate is not cls and _derives(analysis, candidate, cls, 0):
            found.append(candidate)
    for sub in list(found):  # the subclasses' own subclasses
        for deeper in subclasses(analysis, sub):
            if deeper not in found and deeper is not cls:
                found.append(deeper)
    return found


def _derives(analysis: Analysis, candidate: ClassInfo, cls: ClassInfo, depth: int) -> bool:
    if depth > _MRO_DEPTH:
        return False
    return any(
        b is cls or _derives(analysis, b, cls, depth + 1) for b in bases_of(analysis, candidate)
    )


def _named_subclasses(analysis: Analysis, cls: ClassInfo) -> list[ClassInfo]:
    """The classes whose class statement names `cls`'s name among its bases: in its own module
    (which may be linted from text alone), then in the project's files."""
    base = cls.node.name
    pattern = re.compile(rf"^[ \t]*class[ \t]+(\w+)[ \t]*\([^)]*\b{re.escape(base)}\b", re.M)
    found: list[ClassInfo] = []
    named: list[tuple[Module | None, Path | None, str]] = [
        (cls.module, None, match.group(1)) for match in pattern.finditer(cls.module.source)
    ]
    # The project's files: their class statements indexed once per run by the words they name.
    named.extend((None, path, name) for path, name in analysis.call_sites.classes_naming(base))
    modules: dict[Path, Module | None] = {}
    for module, path, name in named:
        if module is None and path is not None:
            if path not in modules:
                modules[path] = analysis.project.module_at(path)
            module = modules[path]
        if module is None:
            continue
        subclass = _class_of(analysis.global_value(module, name))
        if subclass is not None and subclass not in found:
            found.append(subclass)
    return found


def stub(node: ast.AST) -> bool:
    """A method with no body of its own (`...`, `pass`, a docstring, `raise NotImplementedError`):
    a protocol's or an abstract base's, which the class a caller is really handed implements."""
    body = getattr(node, "body", None)
    if not isinstance(body, list):
        return False
    for statement in body:
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring, `...`
        if isinstance(statement, ast.Raise) and "NotImplementedError" in ast.unparse(statement):
            continue
        return False
    return True
