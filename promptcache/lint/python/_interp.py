"""
The dataflow analysis: an abstract interpreter over a module's `ast`.

Each function body runs once with its parameters as symbols (`Param`); the result is a summary,
its return value and the sinks its parameters reach, applied at every call in the project. Values
flow through assignments, f-strings, `.format`, `%`, `+`, `str.join`, containers, `**kwargs`,
returns and attributes set in `__init__`. A call the analysis cannot see into is assumed to pass
its arguments' variation through, and the taint records that it did.

The concerns live apart, as taint engines keep them: `_project` resolves names across the
project's modules; `_summaries` holds what is computed once per function; `frameworks/` (read
through `_sinks` and `_sources`) says which calls are sinks, sources and pass-through functions;
`_calls` models library calls (propagators and sanitisers); `_flow` is the value algebra. One run
of a body is a `Frame` (`_frame`), made of a `Scope` (`_scope`: bindings and name resolution) and
`Findings` (`_findings`: the sink checks that make hits), walked by `_statements`,
`_expressions`, `_iteration`, `_invoke` (calls), `_templates` (prompt templates) and
`_filled_templates` (Haystack's and Semantic Kernel's, filled by name). This module
runs modules and functions, in the order the project needs them, and keeps what a run shares.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from .._config import LintConfig
from ..rules.PC102 import DEFAULT_PER_REQUEST
from ..rules.PC502 import PYTHON_PER_REQUEST_ATTRIBUTES
from ._call_sites import CallSites
from ._classes import bases_of
from ._flow import (
    merge_all,
)
from ._frame import Frame
from ._project import Module, Project
from ._request_data import system_named
from ._shared_windows import trimmed_storage
from ._sinks import Sink, find_sink
from ._sources import is_volatile_call, per_request_matcher
from ._statements import _is_system_decorator
from ._summaries import ClassInfo, Function, Hit
from ._turns import (
    WINDOW,
    agent_runs_carry_history,
    starts_an_empty_history,
    windowed,
    windowed_attributes,
)
from ._unknown_origin import builder_parameter_hits, unknown_origin_hits
from ._values import (
    EMPTY,
    Dep,
    Taint,
    Value,
)

__all__ = ["Analysis", "Frame", "Hit"]

_SHARED_TEXTS: dict[str, Value] = {}
_SHARED_NUMBERS: dict[int, Value] = {}
_SHARED_OUTSIDE: dict[str, Value] = {}
_SHARED_NAMED: dict[tuple[str, ...], dict[tuple[str, int], tuple[bool, Sink | None]]] = {}
_SHARED_BOUND = 20_000  # entries each memo keeps between runs

# Functions whose name says they build a prompt's text (`get_user_prompt`, `build_prompt`).
_PROMPT_FUNCTION = re.compile(r"(?i)^_*(?:\w*_)?prompt$")


class Analysis:
    """One lint run's analysis: summaries and hits shared across the project's modules."""

    def __init__(
        self,
        config: LintConfig,
        project: Project,
        extra_per_request: tuple[str, ...],
        extra_stable: tuple[str, ...] = (),
    ):
        self.config = config
        self.project = project
        stable = (*config.stable, *extra_stable)
        self.per_request = per_request_matcher(config.per_request, extra_per_request, stable)
        self.stable = per_request_matcher(stable, (), ())  # a name declared stable
        added = _added_per_request(config.per_request)
        self.per_request_attribute = per_request_matcher(
            added, PYTHON_PER_REQUEST_ATTRIBUTES, stable
        )
        self._analysed: set[int] = set()
        self.wrappers: set[str] = set()  # names of functions whose parameters reach a prefix
        # The last names of the modules each wrapper is defined in (`llm` of `app.llm`), and how
        # many (name, module) pairs the run has found so far.
        self.wrapper_homes: dict[str, set[str]] = {}
        self.wrappers_found = 0
        # Whether the last `analyse` passed over a function (none of its calls reached a wrapper).
        self.passed_over = False
        # Immutable values made once, literals by value and outside names by name, shared by
        # every run in the process (the same few recur in every project), as is what a call of
        # a resolved name is under this configuration's volatile calls.
        self.texts: dict[str, Value] = _SHARED_TEXTS
        self.numbers: dict[int, Value] = _SHARED_NUMBERS
        self.outside: dict[str, Value] = _SHARED_OUTSIDE
        self._named = _SHARED_NAMED.setdefault(config.volatile_calls, {})
        # Values a conversation's history was created with: fixed for that conversation.
        self.conversation_fixed: set[Dep] = set()
        # Per module (by id): the functions it registers as request handlers (`_request_data`).
        self.registered: dict[int, dict[str, bool]] = {}
        self.call_sites = CallSites(project)  # where PC508's functions are called
        # Per module (by id): its shared histories that its functions trim (`_shared_windows`).
        self.trims: dict[int, dict[str, ast.AST]] = {}
        # Where a window that entered a module from another (path, line) was cut (path, line).
        self.window_cuts: dict[tuple[str, int], set[tuple[str, int]]] = {}

    def release(self) -> None:
        """Forget the run (with the project's modules): its memoised values, which modules were
        analysed (by id: a new module can take a freed one's id) and the wrappers found."""
        self._analysed.clear()
        self.wrappers.clear()
        self.wrapper_homes.clear()
        self.wrappers_found = 0
        self.conversation_fixed.clear()
        self.registered.clear()
        self.call_sites.clear()
        self.trims.clear()
        self.window_cuts.clear()
        for shared in (self.texts, self.numbers, self.outside, self._named):
            if len(shared) > _SHARED_BOUND:  # a long-lived process: bounded, not unbounded
                shared.clear()

    def named_call(self, name: str, arguments: int) -> tuple[bool, Sink | None]:
        """Whether a call to resolved `name` is volatile, and the sink it is (memoised per run:
        a project calls the same few names everywhere)."""
        key = (name, min(arguments, 2))  # only "none, one, more" arguments matter
        found = self._named.get(key)
        if found is None:
            volatile = is_volatile_call(name, arguments, self.config.volatile_calls)
            found = self._named[key] = (volatile, None if volatile else find_sink(name))
        return found

    def analyse(self, module: Module, relevant_lines: frozenset[int] | None = None) -> list[Hit]:
        """
        Run a module, then its functions that can reach a prefix; the hits sited in this module.

        A function can reach a prefix when a request API (or a name that says "system prompt")
        appears in its lines (`relevant_lines`; None: all), or when it calls a function whose
        parameters reach one. Other functions are analysed only when such a function calls them.
        """
        self.passed_over = False
        if id(module) not in self._analysed:
            self._analysed.add(id(module))
            self.run_module(module)
            waiting = _functions_of(module)
            todo = [f for f in waiting if relevant_lines is None or _spans(f, relevant_lines)]
            while todo:
                for function in todo:
                    self.summary(function)
                waiting = [f for f in waiting if f.ret is None]
                todo = [f for f in waiting if self._calls_a_sink_wrapper(f)]
            # The functions passed over may call a wrapper a module analysed later defines.
            self.passed_over = bool(waiting)
            if self.config.enabled("PC502"):
                module.hits.extend(
                    builder_parameter_hits(
                        _functions_of(module), self.config.threshold, self.stable, self.call_sites
                    )
                )
            if self.config.enabled("PC508"):
                module.hits.extend(
                    unknown_origin_hits(
                        _functions_of(module),
                        self.config.threshold,
                        self.per_request,
                        self.stable,
                        self.call_sites,
                    )
                )
        fixed = self.conversation_fixed
        return [hit for hit in module.hits if isinstance(hit, Hit) and hit.taint not in fixed]

    def _calls_a_sink_wrapper(self, function: Function) -> bool:
        if not self.wrappers:
            return False
        text = _source_of(function)
        # Called, or handed with its arguments to an executor (`submit(name, x)`, `_calls`).
        return any(
            f"{name}(" in text or f"({name}," in text or f" {name}," in text
            for name in self.wrappers
        )

    def run_module(self, module: Module) -> None:
        if module.state != "new":
            return
        module.state = "running"
        frame = Frame(self, module, None, module.globals)
        frame.block(module.tree.body)
        module.state = "done"

    def summary(self, function: Function) -> Function:
        if function.ret is not None or function.running:
            return function
        function.running = True
        frame = Frame(self, function.module, function, dict(function.outer or {}))
        frame.scope.bind_parameters()
        try:
            if isinstance(function.node, ast.Lambda):
                frame.returns.append(frame.eval(function.node.body))
            else:
                frame.block(function.node.body)
        except RecursionError:
            function.module.unfollowed.add(function.node.lineno)
            frame.returns.append(EMPTY)
        returned = merge_all(frame.returns) if frame.returns else EMPTY
        if not isinstance(function.node, ast.Lambda) and system_named(function.node.name):
            function.system = True
        if function.system and not isinstance(function.node, ast.Lambda):
            decorated = _is_decorated(function.node)
            what = "Pydantic AI system prompt" if decorated else "a system prompt function"
            history = not decorated or agent_runs_carry_history(
                function.module.tree, function.node.decorator_list
            )
            if decorated:
                frame.findings.sink_value(what, "system", returned, function.node, history=history)
            else:  # named so: what follows it is for the request that sends it to say
                frame.findings.system_text(what, returned, function.node)
        elif (
            not isinstance(function.node, ast.Lambda)
            and returned.pieces is not None
            and _PROMPT_FUNCTION.match(function.node.name)
        ):
            # `get_user_prompt(email)`: the text it builds is a prompt, judged as a template
            # (what varies, above how much static text) wherever it is sent.
            what = f"`{function.node.name}()`, named as a prompt builder"
            frame.findings.last_turn(what, returned, function.node, "template")
        elif not isinstance(function.node, ast.Lambda) and not function.pending:
            _returned_window(frame, function.node, returned)
        function.ret = returned
        function.running = False
        if function.pending and not isinstance(function.node, ast.Lambda):
            home = function.module.name.rpartition(".")[2]
            homes = self.wrapper_homes.setdefault(function.node.name, set())
            if function.node.name not in self.wrappers or home not in homes:
                self.wrappers_found += 1  # a module linted before this may call it
            self.wrappers.add(function.node.name)
            homes.add(home)
            # An override of a method its project base declares is called through the base
            # (`clients[vendor].complete(...)` of `clients: dict[str, LLM]`): the modules of
            # the bases are its homes too.
            homes.update(_base_homes(self, function))
        return function

    def class_attrs(self, cls: ClassInfo) -> dict[str, Value]:
        if not cls.ready:
            cls.ready = True
            init = cls.methods.get("__init__")
            if init is not None:
                frame = Frame(self, cls.module, init, dict(init.outer or {}))
                frame.scope.bind_parameters()
                frame.block(init.node.body)  # type: ignore[arg-type]
                cls.attrs.update(frame.scope.self_attrs)
                if not isinstance(init.node, ast.Lambda) and starts_an_empty_history(init.node):
                    for value in frame.scope.self_attrs.values():
                        frame.findings.conversation_started(value)
            for name, trim in windowed_attributes(cls.node, cls.module).items():
                cls.attrs[name] = windowed(cls.module, cls.attrs.get(name), trim)
        return cls.attrs

    def trimmed(self, module: Module) -> dict[str, ast.AST]:
        """The module's shared histories that its functions trim (found once per module)."""
        found = self.trims.get(id(module))
        if found is None:
            found = self.trims[id(module)] = trimmed_storage(module.tree, module.source)
        return found

    def global_value(self, module: Module, name: str) -> Value | None:
        """A module global as a function reads it: a shared history that the module's functions
        trim is read as the window it is (`_shared_windows`)."""
        found = self._global_value(module, name)
        trim = self.trimmed(module).get(name) if found is not None else None
        return found if trim is None else windowed(module, found, trim)

    def _global_value(self, module: Module, name: str) -> Value | None:
        """A module global, evaluating only its own top-level statement when the module has not run."""
        if module.reloaded and module.state == "new":  # linted, forgotten, read again
            self.run_module(module)
        found = module.globals.get(name)
        if found is not None or module.state == "done" or name in module.pending:
            return found if isinstance(found, Value) else None
        statement = module.binding(name)
        if statement is None:
            return None
        module.pending.add(name)
        try:
            Frame(self, module, None, module.globals).statement(statement)
        finally:
            module.pending.discard(name)
        found = module.globals.get(name)
        return found if isinstance(found, Value) else None

    def forget(self, module: Module) -> None:
        """The module is let go (`Project.forget`): a new one may take its id."""
        self._analysed.discard(id(module))
        self.registered.pop(id(module), None)
        self.trims.pop(id(module), None)

    def record(self, module: Module, hit: Hit) -> None:
        module.hits.append(hit)


def _returned_window(frame: Frame, node: ast.AST, returned: Value) -> None:
    """`return system, history[-n:] + [{"role": "user", "content": text}]`: a function that
    builds a request's messages (a list of turns that ends with the user's) and returns them
    for a caller to send, with a window of the history in its earlier turns. Whoever sends
    that list, its earlier turns shift on every request once the history outgrows the window."""
    for value in (returned, *(returned.items or ())):
        items = value.items
        if not items or len(items) < 2:
            continue
        role = items[-1].field("role")
        if role is None or role.text != "user":
            continue
        name = getattr(node, "name", "")
        what = f"the messages `{name}()` returns"
        for item in items[:-1]:
            for dep in item.deps:
                if isinstance(dep, Taint) and dep.code == WINDOW and not dep.element:
                    frame.findings.hit(dep, what, "messages", 0, True, node)


@lru_cache(maxsize=16)
def _added_per_request(per_request: tuple[str, ...]) -> tuple[str, ...]:
    """The configured per-request names beyond the defaults (once per configuration)."""
    defaults = frozenset(DEFAULT_PER_REQUEST)
    return tuple(p for p in per_request if p not in defaults)


def _spans(function: Function, lines: frozenset[int]) -> bool:
    node = function.node
    first = node.lineno
    for decorator in getattr(node, "decorator_list", ()):
        first = min(first, decorator.lineno)
    last = node.end_lineno or node.lineno
    return any(first <= line <= last for line in lines)


def _source_of(function: Function) -> str:
    node = function.node
    module = function.module
    last = node.end_lineno or node.lineno
    return "\n".join(
        module.line_bytes(n).decode("utf-8", "replace") for n in range(node.lineno, last + 1)
    )


def _base_homes(analysis: Analysis, function: Function) -> list[str]:
    """The last dotted names of the modules of the project base classes of a method's class
    that declare a method of its name (none for a function)."""
    if function.cls is None or isinstance(function.node, ast.Lambda):
        return []
    name = function.node.name
    found: list[str] = []
    todo = list(bases_of(analysis, function.cls))
    seen: set[int] = set()
    while todo and len(seen) < 16:
        base = todo.pop()
        if id(base) in seen:
            continue
        seen.add(id(base))
        if name in base.methods and base.module.name:
            found.append(base.module.name.rpartition(".")[2])
        todo.extend(bases_of(analysis, base))
    return found


def _functions_of(module: Module) -> list[Function]:
    found: list[Function] = []
    for value in list(module.globals.values()):
        meta = value.meta if type(value) is Value else None
        if meta is None:  # most globals: a literal, a string, an outside module
            continue
        if isinstance(meta, Function) and meta.module is module:
            found.append(meta)
        elif isinstance(meta, ClassInfo) and meta.module is module:
            found.extend(meta.methods.values())
    return found


def _is_decorated(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(_is_system_decorator(d) for d in node.decorator_list)
