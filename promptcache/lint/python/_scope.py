"""
Bindings and name resolution: what a name is bound to in a frame.

`Scope` owns a frame's `env` (names, and `self.<attr>` for the attributes this method sets) and
`self_attrs` (what `__init__` sets on the instance, read by `Analysis.class_attrs`). A name is
looked up here, then in the module's globals, then through the module's imports into the
project's modules; one the analysis cannot find is a value it says it did not follow (PC506).
"""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING

from ._locations import taint_at
from ._project import Module
from ._quickinit import replace
from ._request_data import (
    handler_names,
    handler_parameters,
    sent_as_user_turn,
)
from ._sinks import KNOWN_PACKAGES
from ._summaries import ClassInfo, Function, ParamSlot

if TYPE_CHECKING:
    from ._interp import Analysis

__all__ = ["Scope"]

from ._values import (
    EMPTY,
    NOT_FOLLOWED,
    Value,
)

_BUILTINS = frozenset(dir(builtins))
# Parameter types through which a framework hands a dynamic prompt the run's own data.
_RUN_CONTEXTS = frozenset({"RunContext", "RunContextWrapper", "ToolContext"})


class Scope:
    """The bindings of one frame (see the module's docstring for who reads and writes them)."""

    def __init__(
        self, analysis: Analysis, module: Module, function: Function | None, env: dict[str, Value]
    ):
        self.a = analysis
        self.module = module
        self.function = function
        self.env: dict[str, Value] = env
        self.self_attrs: dict[str, Value] = {}
        self.user_turn: frozenset[str] = frozenset()  # parameters sent as the user's turn
        self.request: frozenset[str] = frozenset()  # a request handler's data parameters
        self.given: frozenset[str] = frozenset()  # its parameters the framework fills itself

    # -- parameters -------------------------------------------------------------------------

    def bind_parameters(self) -> None:
        assert self.function is not None
        node = self.function.node
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        cls = self.function.cls
        method = cls is not None and bool(positional) and not _is_static(node)
        registered = self._registered()
        self.request, self.given = handler_parameters(node, self.module.imports, registered, method)
        self.user_turn = sent_as_user_turn(node, self.module.source)
        for index, arg in enumerate(positional):
            self.env[arg.arg] = self._slot(index, arg)
        for extra in (*args.kwonlyargs, args.vararg, args.kwarg):
            if extra is not None:
                self.env[extra.arg] = self._slot(-1, extra)
        if method:
            self.env[positional[0].arg] = Value(kind="instance", meta=cls)

    def _registered(self) -> dict[str, bool]:
        """The functions this module registers as request handlers (found once per module)."""
        found = self.a.registered.get(id(self.module))
        if found is None:
            found = self.a.registered[id(self.module)] = handler_names(
                self.module.tree, self.module.imports, self.module.source
            )
        return found

    def _slot(self, index: int, arg: ast.arg) -> Value:
        # A request handler's parameters, and what the function sends as the user's turn, are
        # the request's data, whatever their names.
        per_request = (
            arg.arg in self.request
            or arg.arg in self.user_turn
            or (arg.arg not in self.given and self.a.per_request(arg.arg))
            or _mentions(arg.annotation, _RUN_CONTEXTS)
        )
        return Value(
            kind="param", meta=ParamSlot(index=index, name=arg.arg, per_request=per_request)
        )

    def is_self(self, name: str) -> bool:
        slot = self.env.get(name)
        return slot is not None and slot.kind == "instance" and isinstance(slot.meta, ClassInfo)

    def lookup(self, name: str) -> Value:
        found = self.find(name)
        return EMPTY if found is None else found

    def find(self, name: str, node: ast.AST | None = None) -> Value | None:
        """The value `name` is bound to here (None: bound nowhere the analysis can see)."""
        found = self.env.get(name)
        if found is not None:
            return found
        found = self.a.global_value(self.module, name)
        if found is not None:
            return found
        dotted = self.module.imports.get(name)
        if dotted is not None:
            return self.imported(dotted, node)
        return None

    def unseen_name(self, node: ast.Name) -> Value:
        """A name bound by none of the module's own statements, in a module with `*` imports:
        from a project module it is read there; otherwise it is not followed (PC506)."""
        name = node.id
        if name in _BUILTINS:
            return EMPTY
        for star in self.module.stars:
            module = self.a.project.find(star, self.module)
            if module is not None:
                found = self.a.global_value(module, name)
                if found is not None:
                    return found
        label = f"`{name}` (from `from {self.module.stars[0]} import *`)"
        return self.lost(label, node)

    def lost(self, label: str, node: ast.AST) -> Value:
        """A value the analysis cannot follow: reported where it reaches a prefix, as such."""
        taint = taint_at(self.module, NOT_FOLLOWED, label, node)
        return Value(deps=frozenset({taint}), pieces=(frozenset({taint}),))

    def imported(self, dotted: str, node: ast.AST | None = None, hops: int = 0) -> Value:
        """A name imported from another module: its value when the module is in the project."""
        module_name, _, attr = dotted.rpartition(".")
        if module_name and "()" not in module_name:  # `pkg.Client().chat`: an object, no module
            module = self.a.project.find(module_name, self.module)
            if module is not None:
                found = self.a.global_value(module, attr)
                if found is not None:
                    return found
                forwarded = module.imports.get(attr)
                if (
                    forwarded is not None
                    and forwarded != dotted
                    and hops < _MAX_REEXPORTS
                    and dotted.split(".", 1)[0] not in KNOWN_PACKAGES
                ):
                    # `from .query import TEMPLATE` in a package's `__init__.py`, imported as
                    # `from pkg import TEMPLATE`: the name the package re-exports.
                    return self.imported(forwarded, node, hops + 1)
            elif (holder := self.a.project.defining(module_name, attr, self.module)) is not None:
                found = self.a.global_value(holder, attr)
                if found is not None:
                    return found
            elif node is not None and module_name in self.a.project.broken:
                why = self.a.project.broken[module_name]
                label = f"`{attr}` (from {module_name}, which {why})"
                return replace(self.lost(label, node), kind="module", meta=dotted)
        known = self.a.outside.get(dotted)
        if known is None:
            known = self.a.outside[dotted] = Value(kind="module", meta=dotted)
        return known


# Packages re-exporting a name from another (`pkg/__init__.py` importing it from `pkg.sub`):
# how many such steps are followed (a cycle of re-exports ends here).
_MAX_REEXPORTS = 8


def _is_static(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> bool:
    if isinstance(node, ast.Lambda):
        return True
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def _mentions(annotation: ast.expr | None, names: frozenset[str]) -> bool:
    """Whether a type annotation names one of `names` (`RunContext[Deps]`,
    `pydantic_ai.RunContext`), in one walk of it."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Name):  # the common case (`question: str`): nothing below it
        return annotation.id in names
    for node in ast.walk(annotation):
        if (isinstance(node, ast.Name) and node.id in names) or (
            isinstance(node, ast.Attribute) and node.attr in names
        ):
            return True
        text = node.value if isinstance(node, ast.Constant) else None
        if isinstance(text, str) and any(name in text for name in names):
            return True
    return False
