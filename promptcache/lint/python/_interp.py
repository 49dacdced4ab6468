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
`_calls` models library calls (propagators and sanitisers); `_flow` is the value algebra. This
module walks statements and expressions and decides what reaches which request position.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from .._config import LintConfig
from ..rules.PC102 import DEFAULT_PER_REQUEST
from ..rules.PC502 import PYTHON_PER_REQUEST_ATTRIBUTES
from ._calls import SPECIAL, Call, _written_at, all_str, is_history, is_placeholder, repeat_count
from ._flow import (
    as_items,
    bind_arguments,
    called_deps,
    cap_items,
    constant_value,
    dict_fields,
    flatten,
    follow,
    merge,
    merge_all,
    passed_through,
    static_after,
    substitute,
    text_after,
    unfollowed,
)
from ._locations import node_label, node_location, node_span
from ._project import Module, Project
from ._sinks import PASS_THROUGH, SINK_BY_API, Sink, find_sink
from ._sources import is_volatile_call, per_request_matcher
from ._summaries import ClassInfo, Function, Hit, ParamSlot, Pending
from ._turns import (
    WINDOW,
    after_unknown,
    agent_runs_carry_history,
    conversation_follows,
    history_after,
    is_history_window,
    opens,
    pieces_from,
    starts_a_conversation,
    unknown_after,
)
from ._values import (
    EMPTY,
    MAX_PIECES,
    MAX_TEXT,
    NOT_FOLLOWED,
    ORDER_CODES,
    PER_REQUEST,
    Dep,
    Param,
    Taint,
    Value,
    compact,
    concat_pieces,
    join_values,
    text_value,
)

__all__ = ["Analysis", "Frame", "Hit"]

_BUILTINS = frozenset(dir(builtins))
_PERCENT_FIELD = re.compile(
    r"%(?:\(([^)]*)\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[diouxXeEfFgGcrsa%]"
)
_TEMPLATE_FIELD = re.compile(
    r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})"
)  # `{name}`, not `{{name}}`
# A LangChain template's `template_format` whose variables are written `{{name}}`.
_DOUBLE_BRACE_FORMATS = frozenset({"mustache", "jinja2"})
_DOUBLE_BRACE_FIELD = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
# A LangChain template's methods that fill its variables from keywords (sync and async).
_FORMAT_METHODS = frozenset(
    {"format", "format_messages", "format_prompt", "aformat", "aformat_messages", "aformat_prompt"}
)
# A legacy LangChain `LLMChain`'s methods that fill its prompt's variables (keywords or a dict).
_CHAIN_RUNS = frozenset({"run", "arun", "predict", "apredict", "__call__", "acall"})
_MAX_DEPTH = 40
# Names that say "this is the system prompt": a variable, attribute or function so named is a
# system prompt wherever it is sent (often from another module, or through an in-house wrapper).
_SYSTEM_NAME = re.compile(
    r"(?i)^_*(?:\w*_)?(?:system_?prompt|system_?message|system_?instructions?|sys_?prompt|sys_?msg)(?:_\w*)?$"
)
# Names that say "this is a prompt's text" (`FACT_EXTRACTION_PROMPT`, `prompt_template`).
_PROMPT_NAME = re.compile(r"(?i)^_*(?:\w*_)?(?:prompt|template|instructions)$")
# Functions whose name says they build a prompt's text (`get_user_prompt`, `build_prompt`).
_PROMPT_FUNCTION = re.compile(r"(?i)^_*(?:\w*_)?prompt$")
# Parameter types through which a framework hands a dynamic prompt the run's own data.
_RUN_CONTEXTS = ("RunContext", "RunContextWrapper", "ToolContext")
_SYSTEM_KEYWORDS = frozenset(
    {"system", "system_prompt", "system_message", "system_instruction", "instructions", "prompt"}
)
_HISTORY_FIELD = re.compile(
    r"\{(?:chat_history|history|messages|conversation\w*|agent_scratchpad|scratchpad)\}"
)
_UNKNOWN_TEXT = Value(pieces=(frozenset(),))
_SHAPING_METHODS = frozenset({"strip", "lstrip", "rstrip", "dedent", "cleandoc"})
_PASS_METHODS = frozenset(
    {
        "upper", "lower", "title", "capitalize", "replace", "strftime", "isoformat", "encode",
        "decode", "format_map", "removeprefix", "removesuffix", "casefold", "hex", "copy",
        "expandtabs", "ljust", "rjust", "center", "zfill", "date", "time", "astimezone",
        "timestamp", "split", "splitlines", "get", "model_dump", "dict", "to_dict",
    }
)  # fmt: skip


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
        added = tuple(p for p in config.per_request if p not in DEFAULT_PER_REQUEST)
        self.per_request_attribute = per_request_matcher(
            added, PYTHON_PER_REQUEST_ATTRIBUTES, stable
        )
        self._analysed: set[int] = set()
        self.wrappers: set[str] = set()  # names of functions whose parameters reach a prefix
        # Immutable values made once per run: literals by value, outside names by name.
        self.texts: dict[str, Value] = {}
        self.numbers: dict[int, Value] = {}
        self.outside: dict[str, Value] = {}
        # Values a conversation's history was created with: fixed for that conversation.
        self.conversation_fixed: set[Dep] = set()

        self._named: dict[tuple[str, int], tuple[bool, Sink | None]] = {}

    def release(self) -> None:
        """Forget the run (with the project's modules): its memoised values, which modules were
        analysed (by id: a new module can take a freed one's id) and the wrappers found."""
        self._analysed.clear()
        self.wrappers.clear()
        self.texts.clear()
        self.numbers.clear()
        self.outside.clear()
        self.conversation_fixed.clear()
        self._named.clear()

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
        fixed = self.conversation_fixed
        return [hit for hit in module.hits if isinstance(hit, Hit) and hit.taint not in fixed]

    def _calls_a_sink_wrapper(self, function: Function) -> bool:
        if not self.wrappers:
            return False
        text = _source_of(function)
        return any(f"{name}(" in text for name in self.wrappers)

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
        frame.bind_parameters()
        try:
            if isinstance(function.node, ast.Lambda):
                frame.returns.append(frame.eval(function.node.body))
            else:
                frame.block(function.node.body)
        except RecursionError:
            function.module.unfollowed.add(function.node.lineno)
            frame.returns.append(EMPTY)
        returned = merge_all(frame.returns) if frame.returns else EMPTY
        if not isinstance(function.node, ast.Lambda) and _SYSTEM_NAME.match(function.node.name):
            function.system = True
        if function.system and not isinstance(function.node, ast.Lambda):
            decorated = _is_decorated(function.node)
            what = "Pydantic AI system prompt" if decorated else "a system prompt function"
            history = not decorated or agent_runs_carry_history(
                function.module.tree, function.node.decorator_list
            )
            frame.sink_value(what, "system", returned, function.node, history=history)
        elif (
            not isinstance(function.node, ast.Lambda)
            and returned.pieces is not None
            and _PROMPT_FUNCTION.match(function.node.name)
        ):
            # `get_user_prompt(email)`: the text it builds is a prompt, judged as a template
            # (what varies, above how much static text) wherever it is sent.
            what = f"`{function.node.name}()`, named as a prompt builder"
            frame.last_turn(what, returned, function.node, "template")
        function.ret = returned
        function.running = False
        if function.pending and not isinstance(function.node, ast.Lambda):
            self.wrappers.add(function.node.name)
        return function

    def class_attrs(self, cls: ClassInfo) -> dict[str, Value]:
        if not cls.ready:
            cls.ready = True
            init = cls.methods.get("__init__")
            if init is not None:
                frame = Frame(self, cls.module, init, dict(init.outer or {}))
                frame.bind_parameters()
                frame.block(init.node.body)  # type: ignore[arg-type]
                cls.attrs.update(frame.self_attrs)
        return cls.attrs

    def global_value(self, module: Module, name: str) -> Value | None:
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

    def record(self, module: Module, hit: Hit) -> None:
        module.hits.append(hit)


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


class Frame:
    """One run of a module body or function body: its variables and what it returns."""

    def __init__(
        self, analysis: Analysis, module: Module, function: Function | None, env: dict[str, Value]
    ):
        self.a = analysis
        self.module = module
        self.function = function
        self.env: dict[str, Value] = env
        self.returns: list[Value] = []
        self.self_attrs: dict[str, Value] = {}
        self.depth = 0
        self.in_message_list = False  # the dict being evaluated is an element of a list literal

    # -- parameters -------------------------------------------------------------------------

    def bind_parameters(self) -> None:
        assert self.function is not None
        node = self.function.node
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        for index, arg in enumerate(positional):
            self.env[arg.arg] = self._slot(index, arg)
        for extra in (*args.kwonlyargs, args.vararg, args.kwarg):
            if extra is not None:
                self.env[extra.arg] = self._slot(-1, extra)
        cls = self.function.cls
        if cls is not None and positional and not _is_static(node):
            self.env[positional[0].arg] = Value(kind="instance", meta=cls)

    def _slot(self, index: int, arg: ast.arg) -> Value:
        per_request = self.a.per_request(arg.arg) or any(
            _mentions(arg.annotation, context) for context in _RUN_CONTEXTS
        )
        return Value(
            kind="param", meta=ParamSlot(index=index, name=arg.arg, per_request=per_request)
        )

    # -- statements -------------------------------------------------------------------------

    def block(self, body: Sequence[ast.stmt]) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        handler = _STATEMENTS.get(type(node))
        if handler is not None:
            handler(self, node)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.eval(child)

    def _s_Import(self, node: ast.Import | ast.ImportFrom | ast.Pass) -> None:
        """Nothing to evaluate: imports are resolved from the module's import table."""

    _s_ImportFrom = _s_Pass = _s_Global = _s_Nonlocal = _s_Break = _s_Continue = _s_Import

    def _s_Expr(self, node: ast.Expr) -> None:
        self.eval(node.value)

    def _s_Return(self, node: ast.Return) -> None:
        self.returns.append(self.eval(node.value) if node.value is not None else EMPTY)

    def _s_Assign(self, node: ast.Assign) -> None:
        value = self.eval(node.value)
        for target in node.targets:
            self.assign(target, value)
        if starts_a_conversation(node):
            self.conversation_started(value)

    def conversation_started(self, history: Value) -> None:
        """A history created and kept here (`self.messages = [system]`): what its system
        message holds was computed for the conversation, so it breaks no cache within it,
        wherever the history is sent. Only values computed in this function (or per-request
        data) count: one taken at import is the process's, shared by every conversation."""
        function = self.function
        first, last = (0, -1) if function is None else (function.node.lineno, 0)
        if function is not None:
            last = function.node.end_lineno or function.node.lineno
        # At module level (a Streamlit script's `st.session_state.messages = [...]`) only the
        # per-request data counts: a clock there is taken once per process.
        self.a.conversation_fixed.update(
            dep
            for dep in history.deps
            if isinstance(dep, Taint)
            and (
                dep.code == PER_REQUEST
                or (dep.path == self.module.display and first <= dep.line <= last)
            )
        )

    def _s_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, self.eval(node.value))

    def _s_AugAssign(self, node: ast.AugAssign) -> None:
        current = self.eval(node.target)
        self.assign(node.target, self.binop(node.op, current, self.eval(node.value), node))

    def _s_If(self, node: ast.If) -> None:
        self.eval(node.test)
        self.branches([node.body, node.orelse])

    def _s_Try(self, node: ast.Try) -> None:
        self.block(node.body)
        self.branches([h.body for h in node.handlers] + [node.orelse])
        self.block(node.finalbody)

    _s_TryStar = _s_Try

    def _s_Match(self, node: ast.Match) -> None:
        self.eval(node.subject)
        self.branches([case.body for case in node.cases] + [[]])

    def _s_With(self, node: ast.With) -> None:
        for item in node.items:
            value = self.eval(item.context_expr)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, value.opaque())
        self.block(node.body)

    _s_AsyncWith = _s_With

    def _s_For(self, node: ast.For) -> None:
        iterated = self.eval(node.iter)
        self.assign(node.target, self.element(iterated, node.iter))
        self.branches([node.body, []])
        self.block(node.orelse)

    _s_AsyncFor = _s_For

    def _s_While(self, node: ast.While) -> None:
        self.eval(node.test)
        self.branches([node.body, []])
        self.block(node.orelse)

    def _s_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        outer = None if self.function is None else dict(self.env)
        function = Function(module=self.module, node=node, outer=outer)
        function.system = any(_is_system_decorator(d) for d in node.decorator_list)
        for decorator in node.decorator_list:
            self.eval(decorator)
        self.env[node.name] = Value(kind="function", meta=function)
        if self.function is not None:
            self.a.summary(function)  # nested: analysed with the enclosing variables

    _s_AsyncFunctionDef = _s_FunctionDef

    def _s_ClassDef(self, node: ast.ClassDef) -> None:
        cls = ClassInfo(module=self.module, node=node)
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                method = Function(module=self.module, node=statement, cls=cls)
                method.system = any(_is_system_decorator(d) for d in statement.decorator_list)
                cls.methods[statement.name] = method
            elif isinstance(statement, ast.Assign | ast.AnnAssign):
                value = statement.value
                targets = (
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
                if value is not None:
                    evaluated = self.eval(value)
                    for target in targets:
                        if isinstance(target, ast.Name):
                            cls.attrs[target.id] = evaluated
        self.env[node.name] = Value(kind="class", meta=cls)

    def branches(self, bodies: Sequence[Sequence[ast.stmt]]) -> None:
        before = dict(self.env)
        results: list[dict[str, Value]] = []
        for body in bodies:
            self.env.clear()
            self.env.update(before)
            self.block(body)
            results.append(dict(self.env))
        merged: dict[str, Value] = {}
        for env in results:
            for name, value in env.items():
                merged[name] = merge(merged[name], value) if name in merged else value
        self.env.clear()
        self.env.update(merged)

    # -- assignment -------------------------------------------------------------------------

    def assign(self, target: ast.expr, value: Value) -> None:
        if isinstance(target, ast.Name):  # most targets: bound, and nothing more to do
            if value.deps and _SYSTEM_NAME.match(target.id):
                self.sink_value(f"`{target.id}`, named as a system prompt", "system", value, target)
            elif value.deps and value.pieces is not None and _PROMPT_NAME.match(target.id):
                # A prompt text under construction: judged as a template (by the static text
                # after what varies), wherever it is sent.
                self.last_turn(f"`{target.id}`, named as a prompt", value, target, "template")
            self.env[target.id] = value
            return
        if isinstance(target, ast.Attribute) and value.deps and _SYSTEM_NAME.match(target.attr):
            self.sink_value(f"`{target.attr}`, named as a system prompt", "system", value, target)
        if isinstance(target, ast.Tuple | ast.List):
            for index, element in enumerate(target.elts):
                if isinstance(element, ast.Starred):
                    self.assign(element.value, value.opaque())
                elif value.items is not None and len(value.items) == len(target.elts):
                    self.assign(element, value.items[index])
                else:
                    self.assign(element, value.opaque())
        elif isinstance(target, ast.Attribute):
            if isinstance(target.value, ast.Name) and self._is_self(target.value.id):
                self.self_attrs[target.attr] = value
                self.env[f"self.{target.attr}"] = value
            else:
                self.eval(target.value)
        elif isinstance(target, ast.Subscript):
            self.set_item(target, value)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value.opaque())

    def _is_self(self, name: str) -> bool:
        slot = self.env.get(name)
        return slot is not None and slot.kind == "instance" and isinstance(slot.meta, ClassInfo)

    def set_item(self, target: ast.Subscript, value: Value) -> None:
        key = target.slice
        container = self.eval(target.value)
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            fields = [(k, v) for k, v in (container.fields or ()) if k != key.value]
            fields.append((key.value, value))
            if container.fields is None and container.deps:
                fields.insert(0, ("**", container.opaque()))
            updated = replace(container, fields=tuple(fields), deps=container.deps | value.deps)
        elif container.kind in ("", "dict", "udict"):  # a computed key: order follows the loop
            updated = Value(
                deps=container.deps | value.deps | self.eval(key).deps,
                kind=container.kind or "dict",
            )
        else:
            updated = container.with_deps(value.deps)
        self.assign((target.value), updated)

    # -- expressions ------------------------------------------------------------------------

    def eval(self, node: ast.expr | None) -> Value:
        if node is None:
            return EMPTY
        kind = type(node)
        # Leaves (half of all expressions) evaluate nothing below them: no depth to track, as
        # long as one at the limit is cut off as the general path below cuts it off.
        if kind is ast.Name:
            return self.cut_off(node) if self.depth >= _MAX_DEPTH else self._e_Name(node)  # type: ignore[arg-type]
        if kind is ast.Constant:
            return EMPTY if self.depth >= _MAX_DEPTH else self._e_Constant(node)  # type: ignore[arg-type]
        self.depth += 1
        try:
            if self.depth > _MAX_DEPTH:
                return self.cut_off(node)
            handler = _EXPRESSIONS.get(type(node))
            if handler is None:
                return join_values(
                    self.eval(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)
                )
            result: Value = handler(self, node)
            return result
        finally:
            self.depth -= 1

    def cut_off(self, node: ast.expr) -> Value:
        """An expression nested too deeply to follow: not followed, and the module says so."""
        self.module.unfollowed.add(node.lineno)
        return EMPTY

    def _e_Constant(self, node: ast.Constant) -> Value:
        constant = node.value
        # Values are immutable: a run makes one per literal (keys like "role" recur).
        if isinstance(constant, str):
            known = self.a.texts.get(constant)
            if known is None:
                known = self.a.texts[constant] = text_value(constant)
            return known
        if isinstance(constant, int) and not isinstance(constant, bool):
            known = self.a.numbers.get(constant)
            if known is None:
                known = self.a.numbers[constant] = constant_value(constant)
            return known
        return constant_value(constant)

    def _e_Name(self, node: ast.Name) -> Value:
        value = self.find(node.id, node)
        if value is None:
            return self.unseen_name(node) if self.module.stars else EMPTY
        if value.kind == "param":
            slot: ParamSlot = value.meta
            if slot.param is None:
                slot.param = Param(index=slot.index, name=slot.name)
            if not slot.per_request:
                if slot.plain is None:
                    only = frozenset({slot.param})
                    slot.plain = Value(deps=only, pieces=(only,))
                return slot.plain
            deps: set[Dep] = {slot.param}
            taint = self.taint(PER_REQUEST, f"`{slot.name}` (per-request parameter)", node)
            deps.add(replace(taint, param=slot.name))
            return Value(deps=frozenset(deps), pieces=(frozenset(deps),))
        return value

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
        taint = self.taint(NOT_FOLLOWED, label, node)
        return Value(deps=frozenset({taint}), pieces=(frozenset({taint}),))

    def imported(self, dotted: str, node: ast.AST | None = None) -> Value:
        """A name imported from another module: its value when the module is in the project."""
        module_name, _, attr = dotted.rpartition(".")
        if module_name:
            module = self.a.project.find(module_name, self.module)
            if module is not None:
                found = self.a.global_value(module, attr)
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

    def _e_JoinedStr(self, node: ast.JoinedStr) -> Value:
        parts = [
            self.written(self.eval(v.value), v.value)
            if isinstance(v, ast.FormattedValue)
            else self.eval(v)
            for v in node.values
        ]
        return self.string(parts)

    def written(self, value: Value, node: ast.expr) -> Value:
        """`value` placed into text at `node` (an f-string's `{...}`, a `.format()` call): its
        variation made on another line of this module remembers this first place, where the fix
        goes."""
        return _written_at(value, self.module.display, node.lineno) if value.deps else value

    def _e_FormattedValue(self, node: ast.FormattedValue) -> Value:
        return self.eval(node.value)

    def string(self, parts: Sequence[Value]) -> Value:
        deps = frozenset().union(*(p.deps for p in parts)) if parts else frozenset()
        # A part the analysis knows nothing about (`from prompts import SYSTEM_PROMPT`, the
        # result of a library call) is text of unknown length: an empty piece keeps its place,
        # so the text around a value is not taken as nothing.
        parts = [_UNKNOWN_TEXT if _unknown(p) else p for p in parts]
        return Value(deps=deps, pieces=concat_pieces(parts), kind="str", fixed=True)

    def _e_BinOp(self, node: ast.BinOp) -> Value:
        # `a + b + c + ...` nests on the left, one level per operand: walk such a chain in a
        # loop, so a long concatenation is followed whole rather than cut off at _MAX_DEPTH.
        chain = [node]
        while isinstance(chain[-1].left, ast.BinOp) and type(chain[-1].left.op) is type(node.op):
            chain.append(chain[-1].left)
        value = self.eval(chain[-1].left)
        for link in reversed(chain):
            value = self.binop(link.op, value, self.eval(link.right), link)
        return value

    def binop(self, op: ast.operator, left: Value, right: Value, node: ast.AST) -> Value:
        if isinstance(op, ast.Add):
            if (
                left.pieces is not None
                or right.pieces is not None
                or "str" in (left.kind, right.kind)
            ):
                return self.string([left, right])
            if left.items is not None or right.items is not None:
                items = cap_items(as_items(left) + as_items(right))
                return Value(deps=left.deps | right.deps, items=items, kind="list")
        if isinstance(op, ast.Mult) and left.pieces is not None and left.kind == "str":
            count = repeat_count(node)
            if count is not None:
                text = left.text
                if text is not None:  # literal text: repeat it, up to what pieces remember
                    repeats = min(count, MAX_TEXT // max(len(text), 1) + 1)
                    return replace(left, pieces=((text * repeats)[:MAX_TEXT],))
                return replace(left, pieces=compact(left.pieces * min(count, MAX_PIECES)))
        if isinstance(op, ast.Mod) and left.text is not None:
            return self.percent(left.text, right)
        if isinstance(op, ast.BitOr | ast.Sub | ast.BitAnd | ast.BitXor) and "set" in (
            left.kind,
            right.kind,
        ):
            # Strings in, strings out: a difference or intersection keeps only the left's.
            strings = _string_set(left) and (
                isinstance(op, ast.Sub | ast.BitAnd) or _string_set(right)
            )
            return Value(deps=left.deps | right.deps, kind="set", meta=strings)
        if isinstance(op, ast.BitOr) and left.kind in ("ptemplate", "chain"):
            return Value(deps=left.deps | right.deps, kind="chain", meta=left.meta)
        if isinstance(op, ast.BitOr) and right.kind == "ptemplate" and left.fields is not None:
            # `{"time": lambda _: now(), ...} | prompt` (or a RunnableMap): each callable is
            # called on every invoke, and what it returns fills the template's variable.
            called = tuple((k, self.call_value(v, node)) for k, v in left.fields)
            self.template_variables(right.meta, Value(fields=called), node)
            return Value(deps=left.deps | right.deps, kind="chain", meta=right.meta)
        if isinstance(op, ast.BitOr) and left.fields is not None and right.fields is not None:
            return Value(
                deps=left.deps | right.deps, fields=dict_fields(left.fields + right.fields)
            )
        return join_values([left, right])

    def percent(self, text: str, right: Value) -> Value:
        values = list(right.items) if right.items is not None else [right]
        parts: list[Value] = []
        position, index = 0, 0
        for found in _PERCENT_FIELD.finditer(text):
            parts.append(text_value(text[position : found.start()]))
            if found.group() == "%%":
                parts.append(text_value("%"))
            elif found.group(1) is not None:
                parts.append(right.field(found.group(1)) or right.opaque())
            else:
                parts.append(values[index] if index < len(values) else right.opaque())
                index += 1
            position = found.end()
        parts.append(text_value(text[position:]))
        return self.string(parts)

    def _e_Dict(self, node: ast.Dict) -> Value:
        in_list, self.in_message_list = self.in_message_list, False
        fields: list[tuple[str, Value]] = []
        deps: set[Dep] = set()
        known, fixed = True, True
        for key, item in zip(node.keys, node.values, strict=True):
            value = self.eval(item)
            deps |= value.deps
            fixed = fixed and (
                value.fixed
                or not (value.fields or value.items or value.kind in ("dict", "udict", "set"))
            )
            if key is None:
                if value.fields is not None:
                    fields.extend(value.fields)
                else:
                    fields.append(("**", value))
                    fixed = False
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                fields.append((key.value, value))
            else:
                deps |= self.eval(key).deps
                known, fixed = False, False
        result = Value(
            deps=frozenset(deps),
            fields=dict_fields(fields) if known else None,
            kind="dict",
            fixed=fixed,
        )
        if not in_list:  # an element of a list literal is judged by the turns after it
            self.system_message(result, node)
        return result

    def system_message(self, message: Value, node: ast.AST, later: Sequence[Value] = ()) -> None:
        """A `{"role": "system", "content": ...}` literal is a system prompt wherever it goes;
        in a list literal whose later turns are only the newest one, nothing else follows it."""
        role = message.field("role")
        if role is not None and role.text in ("system", "developer"):
            content = message.field("content")
            if content is None:
                content = Value(deps=message.deps - role.deps)
            what = f"{role.text} message"
            if later and not history_after(later):
                rest = Value(deps=content.deps, pieces=pieces_from((content, *later)))
                self.last_turn(what, rest, node, role="system")
            else:
                self.sink_value(what, "system", content, node)

    def _e_List(self, node: ast.List | ast.Tuple) -> Value:
        items = []
        for element in node.elts:
            if isinstance(element, ast.Starred):
                items.append(replace(self.eval(element.value).opaque(), spliced=True))
            else:
                self.in_message_list = isinstance(element, ast.Dict)
                items.append(self.eval(element))
                self.in_message_list = False
        for index, element in enumerate(node.elts):
            if isinstance(element, ast.Dict):
                self.system_message(items[index], element, items[index + 1 :])
        deps = frozenset().union(*(i.deps for i in items)) if items else frozenset()
        fixed = all(i.fixed or not (i.fields or i.items) for i in items)
        result = Value(deps=deps, items=tuple(items), kind="list", fixed=fixed)
        if (
            isinstance(node, ast.Tuple)
            and len(items) == 2
            and items[0].text in ("system", "developer")
        ):
            self.sink_value("system message tuple", "system", items[1], node)
        return result

    _e_Tuple = _e_List

    def _e_Set(self, node: ast.Set) -> Value:
        return Value(
            deps=join_values(self.eval(e) for e in node.elts).deps,
            kind="set",
            meta=all_str(node.elts),
        )

    def _e_IfExp(self, node: ast.IfExp) -> Value:
        self.eval(node.test)
        return merge(self.eval(node.body), self.eval(node.orelse))

    def _e_BoolOp(self, node: ast.BoolOp) -> Value:
        return merge_all([self.eval(v) for v in node.values])

    def _e_Compare(self, node: ast.Compare) -> Value:
        self.eval(node.left)
        return EMPTY

    def _e_Await(self, node: ast.Await) -> Value:
        return self.eval(node.value)

    def _e_NamedExpr(self, node: ast.NamedExpr) -> Value:
        value = self.eval(node.value)
        self.assign(node.target, value)
        return value

    def _e_Starred(self, node: ast.Starred) -> Value:
        return replace(self.eval(node.value).opaque(), spliced=True)

    def _e_Lambda(self, node: ast.Lambda) -> Value:
        return Value(
            kind="lambda", meta=Function(module=self.module, node=node, outer=dict(self.env))
        )

    def _e_Attribute(self, node: ast.Attribute) -> Value:
        base = self.eval(node.value)
        if base.kind == "module" and isinstance(base.meta, str):
            return self.imported(f"{base.meta}.{node.attr}")
        if base.kind == "instance" and isinstance(base.meta, ClassInfo):
            cls: ClassInfo = base.meta
            if (
                f"self.{node.attr}" in self.env
                and isinstance(node.value, ast.Name)
                and self._is_self(node.value.id)
            ):
                return self.env[f"self.{node.attr}"]
            attrs = self.a.class_attrs(cls)
            if node.attr in attrs:
                return attrs[node.attr]
            if node.attr in cls.methods:
                return Value(kind="method", meta=(cls.methods[node.attr], base))
        deps = set(base.deps)
        if self.a.per_request_attribute(node.attr):
            deps.add(
                self.taint(
                    PER_REQUEST, f"`{node_label(self.module, node)}` (per-request data)", node
                )
            )
        return Value(deps=frozenset(deps)) if deps else EMPTY

    def _e_Subscript(self, node: ast.Subscript) -> Value:
        base = self.eval(node.value)
        key = node.slice
        if isinstance(key, ast.Slice) and is_history_window(node):
            label = f"`{node_label(self.module, node)}` (a sliding window of the history)"
            return Value(deps=base.deps | {self.taint(WINDOW, label, node)}, kind="list")
        if isinstance(key, ast.Constant):
            if isinstance(key.value, str):
                found = base.field(key.value)
                if found is not None:
                    return found
                # `params["system"]` of a parameter is that part of it, resolved at each call.
                deps: set[Dep] = {
                    Param(index=d.index, name=d.name, path=(*d.path, key.value))
                    if isinstance(d, Param) and len(d.path) < 4
                    else d
                    for d in base.deps
                }
                if self.a.per_request(key.value):
                    deps.add(
                        self.taint(
                            PER_REQUEST,
                            f"`{node_label(self.module, node)}` (per-request data)",
                            node,
                        )
                    )
                narrowed = frozenset(deps)
                return Value(deps=narrowed, pieces=(narrowed,)) if narrowed else EMPTY
            elif (
                isinstance(key.value, int)
                and base.items is not None
                and -len(base.items) <= key.value < len(base.items)
                and not any(i.spliced for i in base.items)
            ):
                return base.items[key.value]
        elif isinstance(key, ast.Slice) and base.items is not None:
            return Value(deps=base.deps, kind=base.kind)
        extra = self.eval(key) if not isinstance(key, ast.Slice) else EMPTY
        return Value(deps=base.deps | extra.deps) if (base.deps or extra.deps) else EMPTY

    def slot_filled(self, name: str, value: Value, node: ast.AST) -> Value:
        """
        What fills a template's named slot (`TEMPLATE.format(context=text)`, a prompt
        template's `{question}`): a slot named like per-request data holds it, whatever the
        filling variable is called (as the template linter reads `{{ context }}`), when what
        fills it depends on something: a parameter, a call on one. A value built from
        constants alone is what it is, and a clock or per-request data that reaches the slot
        as itself is reported as that. Per-request data seen only through calls the analysis
        cannot read (`search(question)`) is reported here too: the slot is where it enters.
        """
        if not value.deps or not self.a.per_request(name) or _varies(value):
            return value
        taint = self.taint(PER_REQUEST, f"`{{{name}}}` (a per-request slot, filled here)", node)
        mark = frozenset({taint})
        return Value(deps=value.deps | mark, pieces=(mark, *(value.pieces or (value.deps,))))

    # -- comprehensions ---------------------------------------------------------------------

    def comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
    ) -> tuple[Value, Value, bool]:
        saved = dict(self.env)
        iter_deps: set[Dep] = set()
        unordered = False
        for generator in node.generators:
            iterated = self.eval(generator.iter)
            element = self.element(iterated, generator.iter)
            unordered = unordered or iterated.kind in ("set", "udict", "uview")
            if isinstance(node, ast.DictComp):  # the order lives in the kind ("udict") instead
                element = Value(
                    deps=frozenset(
                        d for d in element.deps if not (isinstance(d, Taint) and d.code == "PC504")
                    )
                )
            iter_deps |= element.deps
            self.assign(generator.target, element)
            for condition in generator.ifs:
                self.eval(condition)
        if isinstance(node, ast.DictComp):
            key, value = self.eval(node.key), self.eval(node.value)
        else:
            key, value = EMPTY, self.eval(node.elt)
        self.env.clear()
        self.env.update(saved)
        return key.with_deps(iter_deps), value.with_deps(iter_deps), unordered

    def _e_ListComp(self, node: ast.ListComp | ast.GeneratorExp) -> Value:
        _, value, _ = self.comprehension(node)
        return Value(deps=value.deps, kind="list", spliced=True)

    _e_GeneratorExp = _e_ListComp

    def _e_SetComp(self, node: ast.SetComp) -> Value:
        _, value, _ = self.comprehension(node)
        # A set of strings (f-strings, literals) sorts without error: `--fix` may sort it.
        return Value(deps=value.deps, kind="set", meta=all_str([node.elt]))

    def _e_DictComp(self, node: ast.DictComp) -> Value:
        key, value, unordered = self.comprehension(node)
        return Value(deps=key.deps | value.deps, kind="udict" if unordered else "dict")

    def element(self, iterated: Value, node: ast.expr) -> Value:
        """One element of iterating `iterated`: ordered by the source, or flagged when not."""
        deps = set(iterated.deps)
        if (
            iterated.items is not None
            and iterated.items
            and not any(i.spliced for i in iterated.items)
        ):
            merged = merge_all(list(iterated.items))
            return merged.with_deps(deps)
        if iterated.kind in ("set", "udict", "uview"):
            deps.add(self.order_taint(iterated, node))
        return Value(deps=frozenset(deps)) if deps else EMPTY

    def order_taint(self, iterated: Value, node: ast.expr) -> Taint:
        what = "a set" if iterated.kind == "set" else "a dict built from an unordered source"
        fixable = iterated.kind == "set" and iterated.meta is True
        return self.taint(
            "PC504",
            f"iteration order of {what} (`{node_label(self.module, node)}`)",
            node,
            fix=("sorted", *node_span(self.module, node)),
            fixable=fixable,
        )

    # -- calls ------------------------------------------------------------------------------

    def _e_Call(self, node: ast.Call) -> Value:
        func = node.func
        receiver: Value | None = None
        if isinstance(func, ast.Attribute):
            receiver = self.eval(func.value)
            callee = self._attribute_callee(receiver, func)
        else:
            callee = self.eval(func)
        args = list(map(self.eval, node.args))
        keywords: dict[str, Value] = {}
        splats: list[Value] = []
        for keyword in node.keywords:
            value = self.eval(keyword.value)
            if keyword.arg is None:
                splats.append(value)
                for name, item in value.fields or ():
                    if name != "**":
                        keywords.setdefault(name, item)
            else:
                keywords[keyword.arg] = value
        if callee.kind == "partial":  # `functools.partial(f, ...)` called: f with both
            inner, bound_args, bound_keywords = callee.meta
            args, keywords = [*bound_args, *args], {**bound_keywords, **keywords}
            if inner.kind == "module" and isinstance(inner.meta, str):
                return self.call_named(inner.meta, node, None, args, keywords, splats)
            callee = inner
        if callee.kind in ("function", "method", "class", "lambda") and callee.meta is not None:
            return self.call_project(callee, node, args, keywords, splats)
        if isinstance(func, ast.Name) and self.env.get(func.id, EMPTY).kind == "param":
            # A callable the caller passes in (a callback): its result is what the caller's
            # argument returns when called, resolved at each call (`Param.path` "()").
            called = called_deps(callee.deps)
            rest = self.opaque_call(self.call_name(func), [*args, *keywords.values(), *splats])
            return Value(deps=called | rest.deps, pieces=(called | rest.deps,))
        name = self.call_name(func)
        result = self.call_named(name, node, receiver, args, keywords, splats)
        if callee.kind == "module" and callee.deps:  # a function the analysis cannot read
            result = result.with_deps(callee.deps)
        return result

    def dynamic_prompt(self, value: Value, node: ast.AST) -> Value:
        """A system prompt given as a function (an Agents SDK `instructions=`, a dynamic
        prompt): the framework calls it on every run; what it returns is the prompt."""
        if value.kind in ("function", "method", "lambda", "partial") and value.meta is not None:
            return self.call_value(value, node)
        return value

    def call_value(self, value: Value, node: ast.AST) -> Value:
        """
        What calling `value` with no arguments gives: for a callable that a framework calls
        on every request (`.partial(time=datetime.now)`, `Field(default_factory=...)`).
        Anything else is its own value.
        """
        if value.kind == "module" and isinstance(value.meta, str):
            volatile, _ = self.a.named_call(value.meta, 0)
            if not volatile:
                return EMPTY
            taint = self.taint(
                "PC501", f"`{node_label(self.module, node)}` (called per request)", node
            )
            return Value(deps=frozenset({taint}), pieces=(frozenset({taint}),))
        if value.kind == "partial":
            inner, args, keywords = value.meta
            if inner.kind == "module":
                return join_values([*args, *keywords.values()])
            return self.call_project(inner, node, list(args), dict(keywords), [])
        if value.kind in ("function", "method", "lambda") and value.meta is not None:
            return self.call_project(value, node, [], {}, [])
        return value

    def _attribute_callee(self, receiver: Value, func: ast.Attribute) -> Value:
        if receiver.kind == "module" and isinstance(receiver.meta, str):
            return self.imported(f"{receiver.meta}.{func.attr}")
        if receiver.kind == "instance" and isinstance(receiver.meta, ClassInfo):
            cls: ClassInfo = receiver.meta
            method = cls.methods.get(func.attr)
            if method is not None:
                return Value(kind="method", meta=(method, receiver))
        if receiver.kind == "class" and isinstance(receiver.meta, ClassInfo):
            method = receiver.meta.methods.get(func.attr)
            if method is not None:
                return Value(kind="function", meta=method)
        return EMPTY

    def call_name(self, func: ast.expr) -> str:
        # `a.b.c` nests on the left: walk it in a loop (exact types: `ast` makes no subclasses).
        suffix = ""
        while True:
            if isinstance(func, ast.Attribute):
                suffix = f".{func.attr}{suffix}"
                func = func.value
            elif isinstance(func, ast.Name):
                return self.module.imports.get(func.id, func.id) + suffix
            elif isinstance(func, ast.Call):
                suffix = f"(){suffix}"
                func = func.func
            else:
                return "?" + suffix

    def call_project(
        self,
        callee: Value,
        node: ast.AST,
        args: list[Value],
        keywords: dict[str, Value],
        splats: list[Value],
    ) -> Value:
        if callee.kind == "class":
            cls: ClassInfo = callee.meta
            init = cls.methods.get("__init__")
            if init is not None:
                self._apply(init, node, [Value(kind="instance", meta=cls), *args], keywords, splats)
            return Value(kind="instance", meta=cls)
        if callee.kind == "method":
            function, bound = callee.meta
            return self._apply(function, node, [bound, *args], keywords, splats)
        return self._apply(callee.meta, node, args, keywords, splats)

    def _apply(
        self,
        function: Function,
        node: ast.AST,
        args: list[Value],
        keywords: dict[str, Value],
        splats: list[Value],
    ) -> Value:
        summary = self.a.summary(function)
        if summary.ret is None:  # recursion: the result depends on everything passed
            return join_values([*args, *keywords.values(), *splats])
        bound = bind_arguments(function.node, args, keywords, splats)
        for pending in summary.pending:
            argument = bound.get(pending.index if pending.index >= 0 else pending.name)
            if argument is None:
                continue
            argument = follow(argument, pending.path, lambda v: self.call_value(v, node))
            if pending.whole:
                self.messages(pending.api, argument, node)
                continue
            if pending.role == "kwargs":
                self.splat_into(SINK_BY_API[pending.api], argument, node)
                continue
            limit = max(self.a.config.threshold, 1) * 4
            pieces = flatten(argument)
            for dep in argument.deps:
                if isinstance(dep, Param):
                    self._pend(
                        dep,
                        pending.api,
                        pending.role,
                        pending.after,
                        pending.history,
                        spliced=pending.spliced,
                    )
                elif pending.spliced and isinstance(dep, Taint) and dep.code == PER_REQUEST:
                    continue
                elif pending.history or pending.after + static_after(pieces, dep) >= limit:
                    self.hit(
                        dep,
                        pending.api,
                        pending.role,
                        pending.after + static_after(pieces, dep),
                        pending.history,
                        node,
                    )
        result = substitute(summary.ret, bound, 0, lambda v: self.call_value(v, node))
        result = _without(result, _constant_parameters(function, bound, result))
        if result.fields is not None and summary.ret is not result:
            # `create_chat_message("system", text)`: a message helper's dict is a system
            # message once the caller's role is in it.
            self.system_message(result, node)
        return result

    def call_named(
        self,
        name: str,
        node: ast.Call,
        receiver: Value | None,
        args: list[Value],
        keywords: dict[str, Value],
        splats: list[Value],
    ) -> Value:
        last = name.rpartition(".")[2]
        special = SPECIAL.get(last)
        if special is not None:
            call = Call(name=name, node=node, receiver=receiver, args=args, keywords=keywords)
            handled = special(self, call)
            if handled is not None:
                return handled
        if args and name in PASS_THROUGH:  # declared in frameworks/: the argument, reshaped
            return args[0]
        volatile, sink = self.a.named_call(name, len(node.args))
        if volatile:
            taint = self.taint("PC501", f"`{node_label(self.module, node)}`", node)
            return Value(deps=frozenset({taint}), pieces=(frozenset({taint}),))
        if sink is not None:
            return self.call_sink(sink, node, args, keywords, splats)
        for keyword, value in keywords.items():
            if keyword in _SYSTEM_KEYWORDS:
                value = self.dynamic_prompt(value, node)
                if value.deps:
                    what = f"`{keyword}=` of `{_short(name)}()`"
                    self.sink_value(what, "system", value, node)
        if receiver is not None and receiver.kind in ("ptemplate", "chain"):
            return self.template_call(last, receiver, node, args, keywords)
        if (
            receiver is not None
            and receiver.kind == "jtemplate"
            and last in ("render", "render_async")
        ):
            return self.jinja_render(receiver, node, args, keywords, splats)
        if (
            receiver is not None
            and last in ("invoke", "ainvoke", "stream", "astream")
            and args
            and args[0].items is not None
        ):
            self.sink_value(f"`{last}` messages", "messages", args[0], node)
        elif receiver is not None and last in ("invoke", "ainvoke", "stream", "astream") and args:
            # A list of unknown turns: only a window of the history is known to vary in it.
            for dep in args[0].deps if args[0].kind == "list" else ():
                if isinstance(dep, Taint) and dep.code == WINDOW:
                    self.hit(dep, f"`{last}` messages", "messages", 0, True, node)
        if receiver is not None and last in _SHAPING_METHODS:
            return receiver.with_deps(join_values(args).deps)
        if receiver is not None and last in _PASS_METHODS:
            return Value(
                deps=receiver.deps | join_values(args).deps,
                kind=receiver.kind if receiver.kind == "str" else "",
            )
        if receiver is None or receiver.kind == "module":
            return self.opaque_call(name, [*args, *keywords.values(), *splats])
        return self.opaque_call(name, [receiver, *args, *keywords.values(), *splats])

    def opaque_call(self, name: str, values: Sequence[Value]) -> Value:
        deps: set[Dep] = set()
        shown = name if len(name) <= 40 else "..." + name[-37:]
        for value in values:
            for dep in value.deps:
                if (
                    isinstance(dep, Taint)
                    and dep.code not in ORDER_CODES
                    and f"{shown}()" not in dep.via
                ):
                    deps.add(passed_through(dep, f"{shown}()"))
                else:
                    deps.add(dep)
        return Value(deps=frozenset(deps)) if deps else EMPTY

    def call_sink(
        self,
        sink: Sink,
        node: ast.Call,
        args: list[Value],
        keywords: dict[str, Value],
        splats: list[Value],
    ) -> Value:
        for index, role in sink.positional:
            if index < len(args):
                self.sink_value(sink.api, role, args[index], node)
        history = conversation_follows(sink, args, keywords, splats)
        for keyword, role in sink.keywords:
            if keyword in keywords:
                value = keywords[keyword]
                if role == "system":
                    value = self.dynamic_prompt(value, node)
                self.sink_value(sink.api, role, value, node, history=history)
        for splat in splats:
            if splat.fields is None and splat.deps:
                self.splat_into(sink, splat, node)
        if "partial_variables" in keywords:
            self.template_variables(
                self.template_info(sink, args, keywords), keywords["partial_variables"], node
            )
        if sink.api.startswith("LangChain") and "message" not in sink.api.split()[-1]:
            return Value(kind="ptemplate", meta=self.template_info(sink, args, keywords))
        if sink.api == "LangChain system message template":
            return Value(kind="ptemplate", meta=self.template_info(sink, args, keywords))
        result = join_values([*args, *keywords.values()])
        if sink.api == "LangChain SystemMessage":
            return replace(result, kind="message")
        return result

    def splat_into(self, sink: Sink, value: Value, node: ast.AST) -> None:
        """`sink(**value)`: each known keyword reaches its position; a parameter's keywords
        (an in-house wrapper's `**kwargs`, forwarded) are resolved at each call of it."""
        if value.fields is not None:
            for keyword, role in sink.keywords:
                found = value.field(keyword)
                if found is not None:
                    self.sink_value(sink.api, role, found, node)
            rest = value.field("**")
            if rest is not None and rest.deps:
                self.splat_into(sink, rest, node)
            return
        unknown = frozenset(d for d in value.deps if not isinstance(d, Param))
        for dep in value.deps:
            if isinstance(dep, Param):
                self._pend(dep, sink.api, "kwargs", 0, True)
        if unknown:
            self.sink_value(sink.api, "opaque", Value(deps=unknown), node)

    # -- sinks ------------------------------------------------------------------------------

    def sink_value(
        self, api: str, role: str, value: Value, node: ast.AST, *, history: bool = True
    ) -> None:
        if role == "system" and not history:  # only the newest turn follows the system prompt
            self.last_turn(api, value, node, role="system")
        elif role in ("system", "tools"):
            pieces = flatten(value)
            for dep in value.deps:
                self.hit(dep, api, role, static_after(pieces, dep), True, node)
        elif role == "messages" or (role == "input" and value.items is not None):
            self.messages(api, value, node)
        elif role in ("input", "opaque"):
            if value.pieces is None and value.kind != "str":
                self.messages(api, value, node)
            else:
                self.last_turn(api, value, node)
        elif role == "config":
            for key, sub in (("system_instruction", "system"), ("tools", "tools")):
                found = value.field(key)
                if found is not None:
                    self.sink_value(api, sub, found, node)
        elif role == "body":
            inner = value.meta if value.kind == "json" and isinstance(value.meta, Value) else value
            for key, sub in (("system", "system"), ("messages", "messages"), ("tools", "tools")):
                found = inner.field(key)
                if found is not None:
                    self.sink_value(api, sub, found, node)
        elif role == "template":
            self.last_turn(api, value, node, role="template")
        elif role == "chat_template":
            for item in value.items or ():
                if (
                    item.items is not None
                    and len(item.items) == 2
                    and item.items[0].text in ("system", "developer")
                ):
                    continue  # the tuple is a sink of its own (see _e_List)

    def messages(self, api: str, value: Value, node: ast.AST) -> None:
        if value.items is None:
            for dep in value.deps:
                if isinstance(dep, Taint) and dep.code == PER_REQUEST:
                    continue
                if isinstance(dep, Param):
                    self._pend(dep, api, "messages", 0, True, whole=True)
                    continue
                note = "the analysis cannot see where in the conversation it lands"
                self.hit(dep, api, "messages", 0, True, node, note=note)
            return
        items = value.items
        limit = max(self.a.config.threshold, 1) * 4
        for index, item in enumerate(items):
            if index == len(items) - 1:
                if not item.spliced:
                    self.last_turn(api, item, node)
                for dep in item.deps if item.spliced else ():
                    if isinstance(dep, Taint) and dep.code == WINDOW:  # the newest turns, windowed
                        self.hit(dep, api, "messages", 0, True, node)
                continue
            history = history_after(items[index + 1 :])
            # Without history after it, a turn loses only the static text after it, to the end.
            pieces = flatten(item) if history else pieces_from(items[index:])
            for dep in item.deps:
                if item.spliced and isinstance(dep, Taint) and dep.code == PER_REQUEST:
                    continue
                after = static_after(pieces, dep)
                if isinstance(dep, Param):
                    after = 0 if history else after
                    self._pend(dep, api, "messages", after, history, spliced=item.spliced)
                elif (
                    history
                    or after >= limit
                    or after_unknown(dep)
                    or opens(pieces, dep, limit)
                    or unknown_after(pieces, dep)
                ):
                    self.hit(dep, api, "messages", after, history, node)

    def last_turn(self, api: str, value: Value, node: ast.AST, role: str = "last_turn") -> None:
        """The newest turn is the tail; only static text after a value in it is lost."""
        pieces = flatten(value)
        limit = max(self.a.config.threshold, 1) * 4
        for dep in value.deps:
            after = static_after(pieces, dep)
            history = role == "template" and bool(_HISTORY_FIELD.search(text_after(pieces, dep)))
            unknown = role == "system" and (
                after_unknown(dep) or opens(pieces, dep, limit) or unknown_after(pieces, dep)
            )
            if isinstance(dep, Param) or history or unknown or after >= limit:
                self.hit(dep, api, role, after, history, node)

    def hit(
        self,
        dep: Dep,
        api: str,
        role: str,
        after: int,
        history: bool,
        node: ast.AST,
        note: str = "",
    ) -> None:
        if isinstance(dep, Param):
            self._pend(dep, api, role, after, history)
            return
        line, column = node_location(self.module, node)
        self.a.record(
            self.module,
            Hit(
                taint=dep,
                api=api,
                role=role,
                after=after,
                history=history,
                site_path=self.module.display,
                site_line=line,
                site_column=column,
                note=note,
            ),
        )

    def _pend(
        self,
        dep: Param,
        api: str,
        role: str,
        after: int,
        history: bool,
        *,
        spliced: bool = False,
        whole: bool = False,
    ) -> None:
        if self.function is not None:
            pending = Pending(
                index=dep.index,
                name=dep.name,
                api=api,
                role=role,
                after=after,
                history=history,
                path=dep.path,
                spliced=spliced,
                whole=whole,
            )
            if pending not in self.function.pending:
                self.function.pending.append(pending)

    def taint(
        self,
        code: str,
        label: str,
        node: ast.AST,
        *,
        fix: tuple[str, int, int, int, int] | None = None,
        fixable: bool = False,
    ) -> Taint:
        line, column = node_location(self.module, node)
        return Taint(
            code=code,
            label=label,
            path=self.module.display,
            line=line,
            column=column,
            fix=fix,
            fixable=fixable,
        )

    # -- prompt templates -------------------------------------------------------------------

    def template_info(
        self, sink: Sink, args: list[Value], keywords: dict[str, Value]
    ) -> dict[str, tuple[int, str]]:
        """
        Variables of a LangChain template: name -> (static chars after it, the position it
        reaches: "system", "messages" (a turn the conversation history follows), "template").
        """
        info: dict[str, tuple[int, str]] = {}
        if sink.api == "LangChain chat prompt template":
            specs = (args[0] if args else keywords.get("messages", EMPTY)).items or ()
            for position, spec in enumerate(specs):
                later = specs[position + 1 :]
                history = any(is_history(spec) for spec in later)
                # Without history after it, a variable loses only the static text that
                # follows it, in its own message and in the later ones (judged as a template's).
                later_text = sum(len(_spec_text(spec)) for spec in later)
                if is_placeholder(spec):
                    continue  # the placeholder's own variable: messages, per-request by nature
                if spec.items is not None and len(spec.items) == 2:
                    system = spec.items[0].text in ("system", "developer")
                    role = "system" if system else "messages"
                    _variables(spec.items[1], role if history else "template", info, later_text)
                elif isinstance(spec.meta, dict):
                    for key, (after, role) in spec.meta.items():
                        kept = role if role == "system" else "messages"
                        info.setdefault(key, (after + later_text, kept if history else "template"))
            return info
        text = args[0] if args else keywords.get("template", keywords.get("prompt", EMPTY))
        system = sink.api == "LangChain system message template"
        fmt = args[1] if len(args) > 1 else keywords.get("template_format", EMPTY)
        field = _DOUBLE_BRACE_FIELD if fmt.text in _DOUBLE_BRACE_FORMATS else _TEMPLATE_FIELD
        _variables(text, "system" if system else "template", info, field=field)
        return info

    def template_variables(self, info: object, values: Value, node: ast.AST) -> None:
        if not isinstance(info, dict) or values.fields is None:
            return
        for name, value in values.fields:
            if name not in info:
                continue
            value = self.slot_filled(name, value, node)
            after, role = info[name]
            value = self.named_per_request(name, value, node)
            if role == "system":
                self.sink_value("LangChain prompt template", "system", value, node)
            elif role == "messages":  # the conversation history follows this turn
                pieces = flatten(value)
                for dep in value.deps:
                    after_dep = after + static_after(pieces, dep)
                    self.hit(dep, "LangChain prompt template", "messages", after_dep, True, node)
            else:
                limit = max(self.a.config.threshold, 1) * 4
                for dep in value.deps:
                    if isinstance(dep, Param) or after + static_after(flatten(value), dep) >= limit:
                        self.hit(dep, "LangChain prompt template", "template", after, False, node)

    def named_per_request(self, name: str, value: Value, node: ast.AST) -> Value:
        """A template variable named as per-request data (`{context}`, `{question}`) filled with a
        value the analysis cannot tell anything about (a parameter its callers are not seen to
        fill, a library call's result): taken as the per-request data its name says it is."""
        if value.text is not None or value.kind == "num" or not self.a.per_request(name):
            return value
        if any(isinstance(dep, Taint) for dep in value.deps):
            return value
        label = f"`{name}` (a per-request template variable)"
        return value.with_deps([self.taint(PER_REQUEST, label, node)])

    def template_call(
        self,
        method: str,
        receiver: Value,
        node: ast.Call,
        args: list[Value],
        keywords: dict[str, Value],
    ) -> Value:
        if method == "partial":
            nodes = {k.arg: k.value for k in node.keywords if k.arg is not None}
            called = tuple((k, self.call_value(v, nodes.get(k, node))) for k, v in keywords.items())
            self.template_variables(receiver.meta, Value(fields=called), node)
            return receiver
        if method in ("invoke", "ainvoke", "stream", "astream", "batch", "abatch"):
            if args:
                self.template_variables(receiver.meta, args[0], node)
            return EMPTY
        if method in _CHAIN_RUNS:  # a legacy `LLMChain`: `.run(context=...)`, `.predict({...})`
            for arg in args[:1]:
                self.template_variables(receiver.meta, arg, node)
            self.template_variables(receiver.meta, Value(fields=tuple(keywords.items())), node)
            return EMPTY
        if method in _FORMAT_METHODS:
            self.template_variables(receiver.meta, Value(fields=tuple(keywords.items())), node)
            return EMPTY
        if method in ("pipe", "with_config", "with_retry", "bind"):
            return receiver
        return EMPTY

    def jinja_render(
        self,
        template: Value,
        node: ast.Call,
        args: list[Value],
        keywords: dict[str, Value],
        splats: list[Value],
    ) -> Value:
        variables = dict(keywords)
        if args and args[0].fields is not None:
            variables.update((k, v) for k, v in args[0].fields if k != "**")
        source = template.meta
        if not isinstance(source, str):
            # Where each variable renders is unknown: what varies is not followed (PC506),
            # neither called clean nor reported as a buster it may not be.
            return Value(deps=unfollowed(join_values([*args, *keywords.values(), *splats]).deps))
        for name, value in variables.items():
            if not value.deps:
                continue
            offset = _jinja_offset(source, name)
            if offset is None:
                continue
            after = len(_strip_tail(source[offset:]))
            limit = max(self.a.config.threshold, 1) * 4
            for dep in value.deps:
                if isinstance(dep, Param) or after >= limit:
                    self.hit(dep, "Jinja render", "template", after, False, node)
        return join_values([*args, *keywords.values(), *splats])


_EXPRESSIONS: dict[type, Callable[[Frame, ast.expr], Value]] = {
    getattr(ast, name[3:]): getattr(Frame, name)
    for name in dir(Frame)
    if name.startswith("_e_") and hasattr(ast, name[3:])
}
_STATEMENTS: dict[type, Callable[[Frame, ast.stmt], None]] = {
    getattr(ast, name[3:]): getattr(Frame, name)
    for name in dir(Frame)
    if name.startswith("_s_") and hasattr(ast, name[3:])
}


# -- special calls ---------------------------------------------------------------------------


# -- helpers ---------------------------------------------------------------------------------


def _variables(
    text: Value,
    role: str,
    info: dict[str, tuple[int, str]],
    later: int = 0,
    field: re.Pattern[str] | None = None,
) -> None:
    """Record each `{variable}` of `text` (`{{variable}}` for a mustache or Jinja template): the
    static characters after it (`later` more after the text itself) and the position it reaches."""
    joined = _static_of(text)
    for found in (field or _TEMPLATE_FIELD).finditer(joined):
        info.setdefault(found.group(1), (len(joined) - found.end() + later, role))


def _static_of(text: Value) -> str:
    return "".join(p for p in text.pieces or () if isinstance(p, str))


def _spec_text(spec: Value) -> str:
    """The static text of a chat template's `(role, text)` message spec, without variables ("" for
    a message-template object, whose text is not kept)."""
    if spec.items is None or len(spec.items) != 2:
        return ""
    return _TEMPLATE_FIELD.sub("", _static_of(spec.items[1]))


def _jinja_offset(source: str, name: str) -> int | None:
    found = re.search(r"\{[{%][^}]*?(?<![\w.])" + re.escape(name) + r"\b", source)
    return found.start() if found else None


def _strip_tail(text: str) -> str:
    marker = re.search(r"\{#-?\s*promptcache:\s*tail\s*-?#\}", text, re.IGNORECASE)
    return text[: marker.start()] if marker else text


def _constant_parameters(
    function: Function, bound: dict[int | str, Value], result: Value
) -> frozenset[Dep]:
    """
    The per-request taints in `result` that stand for a parameter of `function` which this
    call fills with a literal (`metadata_query=METADATA_QUERY`): named like per-request data,
    but at this call it is the caller's constant, so it does not vary here.
    """
    node = function.node
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    constant = {
        name
        for key, value in bound.items()
        if not value.deps and (value.text is not None or value.kind == "num")
        for name in ([names[key]] if isinstance(key, int) and key < len(names) else [key])
        if isinstance(name, str)
    }
    first, last = node.lineno, node.end_lineno or node.lineno
    return frozenset(
        d
        for d in result.deps
        if isinstance(d, Taint)
        and d.param in constant
        and d.path == function.module.display
        and first <= d.line <= last
    )


def _without(value: Value, dropped: frozenset[Dep], depth: int = 0) -> Value:
    """`value` with the dependencies `dropped` taken out, in its parts too."""
    if not dropped or not (value.deps & dropped):
        return value
    pieces = None
    if value.pieces is not None:
        pieces = tuple(
            p if isinstance(p, str) else p - dropped
            for p in value.pieces
            if isinstance(p, str) or p - dropped
        )
    deeper = depth < 4
    return replace(
        value,
        deps=value.deps - dropped,
        pieces=pieces,
        items=tuple(_without(i, dropped, depth + 1) for i in value.items)
        if value.items is not None and deeper
        else value.items,
        fields=tuple((k, _without(v, dropped, depth + 1)) for k, v in value.fields)
        if value.fields is not None and deeper
        else value.fields,
    )


def _varies(value: Value) -> bool:
    """Whether a clock, or per-request data as itself, is among the value's dependencies."""
    return any(
        isinstance(d, Taint) and (d.code == "PC501" or (d.code == PER_REQUEST and not d.via))
        for d in value.deps
    )


def _is_static(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> bool:
    if isinstance(node, ast.Lambda):
        return True
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def _mentions(annotation: ast.expr | None, name: str) -> bool:
    """Whether a type annotation names `name` (`RunContext[Deps]`, `pydantic_ai.RunContext`)."""
    if annotation is None:
        return False
    if isinstance(annotation, ast.Name):  # the common case (`question: str`): nothing below it
        return annotation.id == name
    for node in ast.walk(annotation):
        if (isinstance(node, ast.Name) and node.id == name) or (
            isinstance(node, ast.Attribute) and node.attr == name
        ):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and name in node.value:
            return True
    return False


def _short(name: str) -> str:
    return name if len(name) <= 40 else "..." + name[-37:]


def _is_decorated(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(_is_system_decorator(d) for d in node.decorator_list)


def _string_set(value: Value) -> bool:
    """A set known to hold only strings (`--fix` may sort it)."""
    return value.kind == "set" and value.meta is True


def _unknown(value: Value) -> bool:
    return not value.deps and value.pieces is None and value.items is None and value.fields is None


def _is_system_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Attribute) and target.attr in ("system_prompt", "instructions")
