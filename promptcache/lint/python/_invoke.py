"""
Calls: a call into a project function (applying its summary: the sinks its parameters reach
and what it returns), into a framework sink (`_sinks`), a modelled library call (`_calls`'
`SPECIAL`), a prompt template's methods (`_templates`), or a call the analysis cannot read
(its arguments' variation passed through, and the taint says via what).

Functions of a `Frame` (`_frame`). State: none of its own; the frame's bindings are read through
`frame.scope`, what reaches a request position is handed to `frame.findings`, and a function's
summary is asked of the analysis (`Analysis.summary`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._config import snake_case
from ._calls import SPECIAL, Call, insert_place
from ._chain_fills import (
    FILLED_BY,
    FILLS_ROLE,
    PIPED_ROLE,
    fill_passed,
    fill_template,
    piped_passed,
)
from ._classes import method_of, overrides, stub
from ._content_parts import one_turn_of_parts
from ._filled_templates import (
    chat_builder,
    chat_builder_call,
    chat_turn,
    haystack_pipeline,
    sk_agent,
    sk_arguments,
    sk_function,
    sk_invoke,
    sk_prompt,
    sk_template,
    sk_yaml,
)
from ._flow import (
    bind_arguments,
    called_deps,
    dict_fields,
    flatten,
    follow,
    lines_after,
    passed_through,
    static_after,
    substitute,
    swapped,
    without,
    written_at,
)
from ._handed import appended_to_kept_list, only_handed_to
from ._instances import instance_of, self_proxy
from ._knowledge import DataSource
from ._local_lists import MODEL_RUNS, appended_where_sent
from ._locations import method_name, node_label, node_location, taint_at
from ._platform_reads import history_read
from ._quickinit import replace
from ._request_data import data_call, data_method
from ._shared_windows import CAPPED_LIST
from ._sinks import (
    CLIENT_PACKAGES,
    CONTEXT_ENGINES,
    HISTORY_READS,
    KNOWN_PACKAGES,
    OBJECT_PACKAGES,
    PASS_THROUGH,
    SINK_BY_API,
    USER_TURNS,
    WINDOW_MEMORIES,
    WINDOWS,
    Sink,
)
from ._sk_plugins import sk_plugin
from ._summaries import ClassInfo, Function, Pending, enclosing_pending
from ._templates import (
    crew_template,
    jinja_render,
    template_call,
    template_info,
)
from ._turns import (
    STORE_METHODS,
    WINDOW,
    conversation_follows,
    newest_clause,
    opens,
    runner_runs_carry_history,
    self_trim,
    sized,
    stored_window,
    windowed,
)
from ._unseen_fills import unseen_fill
from ._values import (
    EMPTY,
    ORDER_CODES,
    PER_REQUEST,
    Dep,
    Param,
    Piece,
    Taint,
    Value,
    join_values,
    text_value,
)
from ._walk import statements
from .frameworks.haystack import PIPELINE_ADD, PIPELINE_CONNECT, PIPELINE_RUNS
from .frameworks.pydantic_ai import HISTORY_KEYWORD as PYDANTIC_HISTORY
from .frameworks.pydantic_ai import RUN_METHODS as PYDANTIC_RUNS
from .frameworks.semantic_kernel import AGENTS as SK_AGENTS
from .frameworks.semantic_kernel import INVOKE_METHODS as SK_INVOKE_METHODS
from .frameworks.semantic_kernel import PLUGIN_LOADER as SK_PLUGIN_LOADER

if TYPE_CHECKING:
    from ._frame import Frame

__all__ = ["body_of", "call_expression", "call_value", "frame_node", "where_made"]

_SYSTEM_KEYWORDS = frozenset(
    {"system", "system_prompt", "system_message", "system_instruction", "instructions", "prompt"}
)
# A Jinja template's methods that fill it (Haystack's `PromptBuilder` runs as one).
_RENDER_METHODS = frozenset({"render", "render_async", "run", "run_async"})
# A Haystack pipeline's methods (`haystack_pipeline`): a component added, connected, the pipeline run.
_PIPELINE_METHODS = frozenset({PIPELINE_ADD, PIPELINE_CONNECT, *PIPELINE_RUNS})
_SHAPING_METHODS = frozenset({"strip", "lstrip", "rstrip", "dedent", "cleandoc"})
# A text's methods that keep each part where it was, much the same length (its case, its tabs, a
# prefix or suffix cut): a clock at its top stays at the top. On anything else they pass through.
_TEXT_KEEPING_METHODS = frozenset(
    {"upper", "lower", "casefold", "title", "capitalize", "swapcase", "expandtabs",
     "removeprefix", "removesuffix"}
)  # fmt: skip
_PASS_METHODS = frozenset(
    {
        "upper", "lower", "title", "capitalize", "replace", "strftime", "isoformat", "encode",
        "decode", "format_map", "removeprefix", "removesuffix", "casefold", "hex", "copy",
        "expandtabs", "ljust", "rjust", "center", "zfill", "date", "time", "astimezone",
        "timestamp", "split", "splitlines", "get", "model_dump", "dict", "to_dict",
    }
)  # fmt: skip


# The name of a call that sends a request (`chat_complete`, `generate_response`, `ask_llm`): the
# chat turns it is handed are that request's (`_chat_turns_handed`).
_SENDS = re.compile(
    r"(?:^|_)(?:a?chat|complete|completion|completions|generate|ask|call|request|respond|reply"
    r"|infer|inference|query|send)(?:_|$)",
    re.IGNORECASE,
)
# The name of a helper that returns today's date or the time, whatever its format (`today_str`,
# `get_current_date`, `current_time_iso`, `utc_now`): a verb, then the date or time, then a
# format; a helper that formats or parses a date it is handed says so with another verb.
_CLOCK_HELPER = re.compile(
    r"^_*(?:get_|fetch_)?(?:(?:current|todays?|local|utc)_)?"
    r"(?:today|now|date|time|datetime|date_time|timestamp)"
    r"(?:_(?:str|string|iso|iso_format|isoformat|text|formatted|fmt))?$"
)

# -- calls ------------------------------------------------------------------------------


def call_expression(frame: Frame, node: ast.Call) -> Value:
    func = node.func
    receiver: Value | None = None
    if isinstance(func, ast.Attribute):
        receiver = frame.eval(func.value)
        callee = _attribute_callee(frame, receiver, func)
    else:
        callee = frame.eval(func)
    method = func.attr if isinstance(func, ast.Attribute) else ""
    if method == "insert" and _turn_inserted(node):
        args = _inserted_turn(frame, node, receiver)
    elif method == "append" and len(node.args) == 1:
        outer, frame.item_text = frame.item_text, node.args[0]  # `lines.append(f"- {note}")`
        args = [_appended_text(frame, node.args[0], frame.eval(node.args[0]))]
        frame.item_text = outer
    else:
        args = list(map(frame.eval, node.args))
    keywords: dict[str, Value] = {}
    splats: list[Value] = []
    for keyword in node.keywords:
        value = frame.eval(keyword.value)
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
            return call_named(frame, inner.meta, node, None, args, keywords, splats)
        callee = inner
    if callee.kind in ("function", "method", "class", "lambda") and callee.meta is not None:
        made = call_project(frame, callee, node, args, keywords, splats)
        return message_object(frame, node, keywords, made) if callee.kind == "class" else made
    if isinstance(func, ast.Name) and frame.scope.env.get(func.id, EMPTY).kind == "param":
        # A callable the caller passes in (a callback): its result is what the caller's
        # argument returns when called, resolved at each call (`Param.path` "()").
        called = called_deps(callee.deps)
        rest = opaque_call(frame, call_name(frame, func), [*args, *keywords.values(), *splats])
        return Value(deps=called | rest.deps, pieces=(called | rest.deps,))
    name = call_name(frame, func)
    if isinstance(func, ast.Attribute) and _library_object(receiver):
        # `client = cohere.Client()` ... `client.chat(...)`: the method of the library's object.
        name = f"{receiver.meta}.{func.attr}"  # type: ignore[union-attr]  # checked just above
    result = call_named(frame, name, node, receiver, args, keywords, splats)
    if callee.kind == "module" and callee.deps:  # a function the analysis cannot read
        result = result.with_deps(callee.deps)
    if receiver is None or receiver.kind == "module":  # a constructor: `ChatMessage(...)`
        # (a message is made with two keywords at least, `role=` and `content=`)
        return message_object(frame, node, keywords, result) if len(node.keywords) > 1 else result
    return result


# The roles a message class's enum names (`MessageRole.SYSTEM`, `Role.USER`), by member name.
_ROLE_MEMBERS = frozenset({"system", "developer", "user", "assistant", "tool", "human", "ai"})


def is_message_call(node: ast.expr) -> bool:
    """`ChatMessage(role=..., content=...)`: a call written with a message's role and content."""
    if not isinstance(node, ast.Call):
        return False
    given = {k.arg for k in node.keywords}
    return "role" in given and "content" in given


def message_object(frame: Frame, node: ast.Call, keywords: dict[str, Value], made: Value) -> Value:
    """
    `ChatMessage(role="system", content=text)`, `dict(role=..., content=...)`, llama-index's
    `ChatMessage(role=MessageRole.SYSTEM, content=text)`: an object made with a message's role
    and content, of a class the project defines (a pydantic model) or imports, is the
    `{"role": ..., "content": ...}` literal it stands for, and is judged as one: a system
    message wherever it goes (in a list literal, by the turns after it, as `_e_List` judges).
    A framework's sink (LangChain's `SystemMessage`) is judged as that sink already.
    """
    if made.kind == "message" or not is_message_call(node) or "content" not in keywords:
        return made
    role_node = next(k.value for k in node.keywords if k.arg == "role")
    role = keywords.get("role", EMPTY)
    if role.text is None and isinstance(role_node, ast.Attribute):
        member = role_node.attr.lower()
        role = text_value(member) if member in _ROLE_MEMBERS else role
    content = keywords["content"]
    deps = made.deps | role.deps | content.deps
    if made.kind == "instance":  # the project's class: its methods stay known
        fields = dict_fields([*(made.fields or ()), ("role", role), ("content", content)])
        message = replace(made, deps=deps, fields=fields)
    else:
        fields = dict_fields([("role", role), ("content", content)])
        message = Value(deps=deps, fields=fields, kind="dict")
    if frame.message_element is node:
        return message  # an element of a list literal: judged there, by the turns after it
    if role.text in ("system", "developer") and not kept_turn(frame, message, node):
        frame.findings.system_message(message, node)
    return message


def kept_turn(frame: Frame, message: Value, node: ast.expr) -> bool:
    """A system message (a dict literal, a message object) appended to a history the function
    does not make (`self.log.append(...)`, or a reply kept in a parameter's list): later
    requests repeat it where it was put."""
    body = frame_node(frame)
    reply = any(isinstance(d, Taint) and d.answer for d in message.deps)
    return appended_to_kept_list(body, node, to_parameters=reply)


def _appended_text(frame: Frame, node: ast.expr, value: Value) -> Value:
    """`parts.append(notes)`: a value made apart (a text, a call's result: not a list or a
    dict), appended as one part of a list (that a prompt is joined from, it may be), is written
    there, unless a text it was written into before says so; the text the list is then written
    into, if any, says so after it."""
    if not value.deps or value.items is not None or value.fields is not None:
        return value
    return written_at(value, frame.module.display, node.lineno, item=True)


def _turn_inserted(node: ast.Call) -> bool:
    """`messages.insert(1, {"role": ...})`: a message literal put at a known place in a list."""
    func, args = node.func, node.args
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "insert"
        and len(args) == 2
        and isinstance(args[0], ast.Constant)
        and (isinstance(args[1], ast.Dict) or is_message_call(args[1]))
    )


def _inserted_turn(frame: Frame, node: ast.Call, receiver: Value | None) -> list[Value]:
    """The arguments of `messages.insert(i, {...})`: the message is judged as a list element is,
    by the turns after its place (all of the conversation where the place is not known)."""
    position = frame.eval(node.args[0])
    frame.in_message_list = isinstance(node.args[1], ast.Dict)
    frame.message_element = node.args[1] if isinstance(node.args[1], ast.Call) else None
    message = frame.eval(node.args[1])
    frame.in_message_list = False
    frame.message_element = None
    place = insert_place(node.args[0], receiver) if receiver is not None else None
    later = receiver.items[place:] if place is not None and receiver and receiver.items else ()
    frame.findings.system_message(message, node.args[1], later)
    return [position, message]


def dynamic_prompt(frame: Frame, value: Value, node: ast.AST) -> Value:
    """A system prompt given as a function (an Agents SDK `instructions=`, a dynamic
    prompt): the framework calls it on every run; what it returns is the prompt."""
    if value.kind in ("function", "method", "lambda", "partial") and value.meta is not None:
        return call_value(frame, value, node)
    return value


def call_value(frame: Frame, value: Value, node: ast.AST) -> Value:
    """
    What calling `value` with no arguments gives: for a callable that a framework calls
    on every request (`.partial(time=datetime.now)`, `Field(default_factory=...)`).
    Anything else is its own value.
    """
    if value.kind == "module" and isinstance(value.meta, str):
        volatile, _ = frame.a.named_call(value.meta, 0)
        if not volatile:
            return EMPTY
        taint = frame.taint(
            "PC501", f"`{node_label(frame.module, node)}` (called per request)", node
        )
        return Value(deps=frozenset({taint}), pieces=(frozenset({taint}),))
    if value.kind == "partial":
        inner, args, keywords = value.meta
        if inner.kind == "module" or inner.meta is None:  # (a function it cannot read)
            return join_values([*args, *keywords.values()])
        return call_project(frame, inner, node, list(args), dict(keywords), [])
    if value.kind in ("function", "method", "lambda") and value.meta is not None:
        return call_project(frame, value, node, [], {}, [])
    return value


def _attribute_callee(frame: Frame, receiver: Value, func: ast.Attribute) -> Value:
    if receiver.kind == "module" and isinstance(receiver.meta, str):
        return frame.scope.imported(f"{receiver.meta}.{func.attr}")
    if receiver.kind == "instance" and isinstance(receiver.meta, ClassInfo):
        cls: ClassInfo = receiver.meta
        method = method_of(frame.a, cls, func.attr)  # its own, or a project base class's
        if method is not None:
            return Value(kind="method", meta=(method, receiver))
    if receiver.kind == "class" and isinstance(receiver.meta, ClassInfo):
        method = method_of(frame.a, receiver.meta, func.attr)
        if method is not None:
            return Value(kind="function", meta=method)
    declared = _declared_class(frame, func.value)
    method = method_of(frame.a, declared, func.attr) if declared is not None else None
    if (
        declared is not None
        and method is not None
        and (not stub(method.node) or overrides(frame.a, declared, method))
    ):
        # A stub of an abstract base with project subclasses: any of their overrides may run
        # (`call_project` joins them).
        # `request.to_messages()` of a parameter typed `request: LLMRequest`: that class's
        # method, which the caller's instance runs (a window it cuts is cut for every caller).
        return Value(kind="method", meta=(method, Value(kind="instance", meta=declared)))
    return EMPTY


def _declared_class(frame: Frame, name: ast.expr) -> ClassInfo | None:
    """The project class a parameter's annotation names (`request: LLMRequest`, `Optional[...]`,
    `... | None`, a string), when `name` is that parameter, or `self.<attr>` that `__init__`
    sets from such a parameter (`self.store = store` of `store: HistoryStore`)."""
    if isinstance(name, ast.Attribute):
        return _declared_attribute(frame, name)
    element = isinstance(name, ast.Subscript)  # `clients[vendor]` of `clients: dict[str, LLM]`
    if element:
        name = name.value  # type: ignore[attr-defined]  # a Subscript, checked just above
    if not isinstance(name, ast.Name) or frame.scope.env.get(name.id, EMPTY).kind != "param":
        return None
    function = frame.scope.function
    node = function.node if function is not None else None
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    return _annotated_class(frame, node, name.id, element=element)


# Annotations of containers whose last type argument is what an item or a value of one is.
_CONTAINERS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "list", "List", "Sequence"})


def _declared_attribute(frame: Frame, expr: ast.Attribute) -> ClassInfo | None:
    """The project class of `self.<attr>` when the class's `__init__` sets it from one of its
    parameters, whose annotation names that class: a service handed its collaborators."""
    me = expr.value
    if not isinstance(me, ast.Name) or not frame.scope.is_self(me.id):
        return None
    cls = frame.scope.env[me.id].meta
    assert isinstance(cls, ClassInfo)
    init = next(
        (
            m
            for m in cls.node.body
            if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and m.name == "__init__"
        ),
        None,
    )
    if init is None or not init.args.args:
        return None
    this = init.args.args[0].arg
    for statement in statements(init.body):
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.value, ast.Name)
        ):
            target = statement.targets[0]
            if (
                isinstance(target, ast.Attribute)
                and target.attr == expr.attr
                and isinstance(target.value, ast.Name)
                and target.value.id == this
            ):
                return _annotated_class(frame, init, statement.value.id)
    return None


def _annotated_class(
    frame: Frame, node: ast.FunctionDef | ast.AsyncFunctionDef, name: str, *, element: bool = False
) -> ClassInfo | None:
    """The project class the annotation of `node`'s parameter `name` names (`element`: the
    class of its items, `Dict[str, LLM]`'s values, `list[Tool]`'s items)."""
    args = node.args
    arg = next(
        (a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.arg == name), None
    )
    annotation = arg.annotation if arg is not None else None
    while annotation is not None:
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            annotation = ast.Name(id=annotation.value.strip())
        if (
            isinstance(annotation, ast.Subscript)
            and getattr(annotation.value, "id", "") == "Optional"
        ):
            annotation = annotation.slice
        elif isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            none = isinstance(annotation.right, ast.Constant) and annotation.right.value is None
            annotation = annotation.left if none else annotation.right
        elif (
            element
            and isinstance(annotation, ast.Subscript)
            and getattr(annotation.value, "id", getattr(annotation.value, "attr", ""))
            in _CONTAINERS
        ):
            element = False
            inner = annotation.slice
            annotation = inner.elts[-1] if isinstance(inner, ast.Tuple) and inner.elts else inner
        else:
            break
    if element or not isinstance(annotation, ast.Name):
        return None
    found = frame.scope.find(annotation.id)
    return (
        found.meta
        if found is not None and found.kind == "class" and isinstance(found.meta, ClassInfo)
        else None
    )


def call_name(frame: Frame, func: ast.expr) -> str:
    # `a.b.c` nests on the left: walk it in a loop (exact types: `ast` makes no subclasses).
    suffix = ""
    while True:
        if isinstance(func, ast.Attribute):
            suffix = f".{func.attr}{suffix}"
            func = func.value
        elif isinstance(func, ast.Name):
            return frame.module.imports.get(func.id, func.id) + suffix
        elif isinstance(func, ast.Call):
            suffix = f"(){suffix}"
            func = func.func
        elif isinstance(func, ast.Subscript):  # `Agent[Context](...)`: a generic, called
            func = func.value
        else:
            return "?" + suffix


def call_project(
    frame: Frame,
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
            _apply(frame, init, node, [Value(kind="instance", meta=cls), *args], keywords, splats)
        instance = instance_of(frame, cls, init, args, keywords, splats)
        return _self_trimming(frame, cls, node, instance)
    if callee.kind == "method":
        function, bound = callee.meta
        bound = self_proxy(frame, bound)
        targets = _dispatched(frame, function, bound)
        if targets:  # an abstract method: whichever subclass's override the value is runs
            return join_values(
                [_apply(frame, f, node, [bound, *args], keywords, splats) for f in targets]
            )
        return _apply(frame, function, node, [bound, *args], keywords, splats)
    return _apply(frame, callee.meta, node, args, keywords, splats)


def _dispatched(frame: Frame, function: Function, bound: Value) -> list[Function]:
    """The overrides a call of `function`, a method its class only declares, may run: those of
    the project's subclasses of the receiver's class (or the declaring class's)."""
    if not stub(function.node):
        return []
    cls = bound.meta if isinstance(bound.meta, ClassInfo) else function.cls
    return overrides(frame.a, cls, function) if cls is not None else []


def _self_trimming(frame: Frame, cls: ClassInfo, node: ast.AST, instance: Value) -> Value:
    """An instance of a list type that drops its own oldest items once full (`self_trim`): a
    history window, made here (the label names the statement that drops them)."""
    found = self_trim(cls.node)
    if found is None or not sized(cls.node, found[1], node):
        return instance
    trim = found[0]
    where = f"line {node_location(cls.module, trim)[0]} of {cls.module.display}"
    label = f"`{cls.node.name}(...)` (drops its oldest turns once full: `{ast.unparse(trim)}` at {where})"
    return instance.with_deps([frame.taint(WINDOW, label, node)])


def _apply(
    frame: Frame,
    function: Function,
    node: ast.AST,
    args: list[Value],
    keywords: dict[str, Value],
    splats: list[Value],
) -> Value:
    summary = frame.a.summary(function)
    if summary.ret is None:  # recursion: the result depends on everything passed
        return join_values([*args, *keywords.values(), *splats])
    if isinstance(function.node, ast.Lambda):
        _lift_from_lambda(frame, function)
    bound = bind_arguments(function.node, args, keywords, splats)
    for pending in summary.pending:
        argument = bound.get(pending.index if pending.index >= 0 else pending.name)
        if argument is None:
            continue
        argument = follow(argument, pending.path, lambda v: call_value(frame, v, node))
        if pending.whole and pending.role == "input" and _one_text(argument):
            frame.findings.last_turn(pending.api, argument, node)  # the caller's newest turn
            continue
        if pending.whole:
            frame.findings.messages(pending.api, argument, node)
            continue
        if pending.role == FILLS_ROLE:  # a template it hands to a chain that fills it
            fill_passed(frame, pending.api, argument, node)
            continue
        if pending.role == PIPED_ROLE:  # a template it pipes a mapping into
            piped_passed(frame, pending, argument, bound, node)
            continue
        if pending.role == "kwargs":
            frame.findings.splat_into(SINK_BY_API[pending.api], argument, node)
            continue
        limit = max(frame.a.config.threshold, 1) * 4
        pieces = flatten(argument)
        for dep in argument.deps:
            if isinstance(dep, Param):  # with the static text this call adds after it
                frame.findings.pend(
                    dep,
                    pending.api,
                    pending.role,
                    pending.after + static_after(pieces, dep),
                    pending.history,
                    spliced=pending.spliced,
                    named=pending.named,
                    opening=pending.opening,
                    lines=None
                    if pending.lines is None
                    else pending.lines + lines_after(pieces, dep),
                    written=(pending.written, pending.written_path),
                )
            elif pending.spliced and isinstance(dep, Taint) and dep.code == PER_REQUEST:
                frame.findings.unplaced(dep, argument, pending.api, node)  # a system message's?
                continue
            elif pending.named and dep.code == PER_REQUEST:  # judged by the text after it
                after = pending.after + static_after(pieces, dep)
                if after >= limit:
                    frame.findings.hit(dep, pending.api, pending.role, after, False, node)
            elif (
                pending.history
                or pending.after + static_after(pieces, dep) >= limit
                or _opens_first_turn(pending, pieces, dep, limit)
                or (pending.role == "messages" and _is_window(dep))
            ):
                # (a caller's window in an earlier turn: its turns shift on every request,
                # whatever follows them, as `Findings.messages` judges one written there)
                frame.findings.hit(
                    dep,
                    pending.api,
                    pending.role,
                    pending.after + static_after(pieces, dep),
                    pending.history or _is_window(dep),
                    node,
                    lines=None
                    if pending.lines is None
                    else pending.lines + lines_after(pieces, dep),
                )
    result = substitute(summary.ret, bound, 0, lambda v: call_value(frame, v, node))
    constants = _constant_parameters(function, bound, result, _configured(node, len(args)))
    result = without(result, constants)
    result = _read_back(frame, function, result)
    result = _window_enters(frame, function, node, result)
    if result.fields is not None and summary.ret is not result:
        # `create_chat_message("system", text)`: a message helper's dict is a system
        # message once the caller's role is in it.
        frame.findings.system_message(result, node)
    return result


def _lift_from_lambda(frame: Frame, function: Function) -> None:
    """A lambda called where it was made (`run_in_executor(None, lambda: send(build(facts)))`):
    the sinks it reaches through a parameter of the function making it are that function's."""
    enclosing = frame.function
    if enclosing is None:
        return
    for slot, pending in enclosing_pending(function):
        if frame.scope.env.get(pending.name) is slot and pending not in enclosing.pending:
            enclosing.pending.append(pending)


def _one_text(argument: Value) -> bool:
    """An argument given as one text (`ask(question)`), not a list of turns."""
    return argument.items is None and (argument.pieces is not None or argument.kind == "str")


def _opens_first_turn(pending: Pending, pieces: Sequence[Piece], dep: Dep, limit: int) -> bool:
    """An argument a wrapper sends as the first turn, no history after it (`bot.reply(system,
    user)`): a value before most of its static text (the wrapper's own after it included) is
    judged as `Findings.messages` judges the caller's own first turn: reported."""
    if not pending.opening or pending.role != "messages":
        return False
    if not any(isinstance(piece, str) and piece for piece in pieces):
        return False  # the value is the whole argument: it opens no text the caller wrote
    return opens(pieces, dep, limit, pending.after)


def call_named(
    frame: Frame,
    name: str,
    node: ast.Call,
    receiver: Value | None,
    args: list[Value],
    keywords: dict[str, Value],
    splats: list[Value],
) -> Value:
    """A call of a library (or of anything the analysis cannot read), by resolved `name`; what
    it returns is per-request data when a framework declares it a source of such data."""
    result = _library_call(frame, name, node, receiver, args, keywords, splats)
    func = node.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr in STORE_METHODS
        and stored_window(node, _sql_text(node, args), where_made(frame))
    ):
        result = _stored_window(frame, node, receiver, result)
    elif isinstance(func, ast.Attribute) and func.attr == "lrange":
        capped = frame.a.trimmed(frame.module).get(CAPPED_LIST)
        if capped is not None:  # the module keeps the list to its newest turns (`ltrim`)
            result = windowed(frame.module, result, capped)
    # (a chat platform's method by name: most calls are none, and need no look at the function)
    read = (
        history_read(node, frame.module.imports, body_of(frame))
        if isinstance(func, ast.Attribute) and func.attr in HISTORY_READS
        else None
    )
    if read is not None:  # `channel.history(limit=20)`: a chat platform's newest messages
        kept, where = read
        label = f"`{node_label(frame.module, where)}` ({kept})"
        result = Value(deps=result.deps | {frame.taint(WINDOW, label, where)}, kind="list")
    source = _data_read(name, receiver, args, keywords)
    if source is None:
        return result
    return _per_request_result(frame, result, node, source.what, answer=source.answers)


def frame_node(frame: Frame) -> ast.AST:
    """The function node this frame runs (the module's tree at its top level)."""
    return frame.module.tree if frame.function is None else frame.function.node


def body_of(frame: Frame) -> list[ast.stmt]:
    """The statements of the function this frame runs (the module's at its top level)."""
    function = frame.scope.function
    node = function.node if function is not None else None
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return node.body
    return frame.module.tree.body if function is None else []


def where_made(frame: Frame) -> str:
    """The name of the function being analysed (`get_chat_history`), empty at module level."""
    return getattr(frame.function.node, "name", "") if frame.function is not None else ""


def _sql_text(node: ast.Call, args: list[Value]) -> str:
    """The static text of a query's SQL, its first argument (a literal, `text("...")`, a name
    bound to one, or an f-string's literal parts); empty when there is none."""
    if not node.args or not args:
        return ""
    value = args[0]
    if value.text is not None:
        return value.text
    return " ".join(
        n.value
        for n in ast.walk(node.args[0])
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    )


def _stored_window(frame: Frame, node: ast.Call, receiver: Value | None, result: Value) -> Value:
    """The newest turns of a stored history (`stored_window`): a window of the history, also
    on the cursor a query ran on (`cur.execute(sql)` then `cur.fetchall()`)."""
    label = f"`{node_label(frame.module, node)}` (reads the newest turns of a stored history)"
    func = node.func
    sql = isinstance(func, ast.Attribute) and func.attr not in ("limit", "lrange")
    where = newest_clause(node) if sql else None  # the text's LIMIT, not the call's first line
    taint = frame.taint(WINDOW, label, where or method_name(node))
    if (
        isinstance(func, ast.Attribute)
        and func.attr != "limit"
        and isinstance(func.value, ast.Name)
        and receiver is not None
    ):  # `cur.execute(sql)`, then `cur.fetchall()`: what the cursor fetches next is the window
        frame.assign(func.value, receiver.with_deps([taint]))
    return Value(deps=result.deps | {taint}, kind="list")


def _per_request_result(
    frame: Frame, result: Value, node: ast.Call, what: str, *, answer: bool
) -> Value:
    """`result`, made per-request data by the call at `node` (`what` it reads)."""
    label = f"`{node_label(frame.module, node)}` ({what})"
    deps = result.deps | {taint_at(frame.module, PER_REQUEST, label, node, answer=answer)}
    return Value(deps=deps, pieces=(deps,))


def _data_read(
    name: str, receiver: Value | None, args: list[Value], keywords: dict[str, Value]
) -> DataSource | None:
    """What per-request data a call reads (`frameworks/`' `DataSource`s), if any: a function
    by its resolved name; a method by its name, on an object the analysis cannot read (not a
    module, a regex or a prompt template, whose methods are known)."""
    if receiver is None or receiver.kind == "module":
        source = data_call(name)
    elif receiver.kind in ("regex", "ptemplate", "jtemplate", "chat_builder"):
        return None
    else:
        source = data_method(name.rpartition(".")[2])
        if (
            source is not None
            and source.varying
            and not join_values([*args, *keywords.values()]).deps
        ):
            return None  # a search for a constant finds the same every time
    return source


def _library_call(
    frame: Frame,
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
        handled = special(frame, call)
        if handled is not None:
            return handled
    if last in FILLED_BY:  # a chain that fills the template it is handed itself
        fill_template(frame, name, node, args, keywords)
    if args and name in PASS_THROUGH:  # declared in frameworks/: the argument, reshaped
        return args[0]
    if last in USER_TURNS and (receiver is None or receiver.kind == "module"):
        # `HumanMessage(content=text)`: the turn is its text, where each value sits in it known
        return keywords.get("content", args[0] if args else EMPTY)
    if name in WINDOWS or name in WINDOW_MEMORIES:
        return _window(frame, name, node, args)
    volatile, sink = frame.a.named_call(name, len(node.args))
    if volatile or _clock_helper(name, node, receiver, sink):
        named = "" if volatile else " (a date or time by its name)"
        taint = frame.taint("PC501", f"`{node_label(frame.module, node)}`{named}", node)
        return Value(deps=frozenset({taint}), pieces=(frozenset({taint}),))
    if sink is not None:
        return call_sink(frame, sink, node, args, keywords, splats)
    for keyword, value in keywords.items():
        if keyword in _SYSTEM_KEYWORDS:
            value = dynamic_prompt(frame, value, node)
            if value.deps and not _turns_handed(args, keywords, splats):
                value = _unread_as_notes(value)
            if value.deps:
                what = f"`{keyword}=` of `{_short(name)}()`"
                unread = _unread_project_module(frame, name)
                if unread and not any(isinstance(d, Taint) for d in value.deps):
                    continue  # a parameter's value: what the call does with it is unknown
                if unread:  # the project's own code, which the analysis cannot read
                    label = f"`{_short(name)}()` (from {unread}, a project module not found)"
                    value = frame.scope.lost(label, node)
                frame.findings.sink_value(what, "system", value, node)
    if last in SK_AGENTS:  # an agent whose instructions its arguments fill
        made = opaque_call(frame, name, [*args, *keywords.values(), *splats])
        agent = sk_agent(frame, name, node, keywords, made)
        if agent is not None:
            return agent
    if receiver is not None and receiver.kind in ("ptemplate", "chain"):
        return template_call(frame, last, receiver, node, args, keywords)
    # `run(**variables)`, `invoke(function, **arguments)`: filled from a mapping as well
    filling = {**keywords, "**": join_values(splats)} if splats else keywords
    if receiver is not None and receiver.kind == "chat_builder":
        return chat_builder_call(frame, last, receiver, node, args, filling)
    if last in SK_INVOKE_METHODS:  # a prompt function run, if it is one
        sk_invoke(frame, last, receiver, node, args, filling)
    if last == SK_PLUGIN_LOADER and (plugin := sk_plugin(frame, args, keywords)) is not None:
        return plugin  # its prompt functions, read from the folder
    if (
        receiver is not None
        and last in _PIPELINE_METHODS
        and haystack_pipeline(frame, last, receiver, node, args, keywords)
    ):
        return EMPTY  # a prompt builder added to a pipeline, which now knows it by name
    if receiver is not None and receiver.kind == "jtemplate" and last in _RENDER_METHODS:
        return jinja_render(frame, receiver, node, args, keywords, splats)
    if receiver is not None and last in MODEL_RUNS and args and args[0].items is not None:
        frame.findings.sink_value(f"`{last}` messages", "messages", args[0], node)
    elif (turns := _chat_turns_handed(last, args, keywords)) is not None:
        frame.findings.sink_value(
            f"`{_short(name)}()`, handed the chat turns", "messages", turns, node
        )
    elif (
        receiver is not None
        and last in MODEL_RUNS
        and args
        and args[0].kind == "str"
        and args[0].pieces is not None
    ):
        # A chat model invoked with a text: the text is the one new turn (judged by the static
        # text after what varies in it).
        frame.findings.sink_value(f"`{last}` prompt", "input", args[0], node)
    elif receiver is not None and last in MODEL_RUNS and args:
        # A list of unknown turns: only a window of the history is known to vary in it.
        for dep in args[0].deps if args[0].kind == "list" else ():
            if isinstance(dep, Taint) and dep.code == WINDOW:
                frame.findings.hit(dep, f"`{last}` messages", "messages", 0, True, node)
            elif isinstance(dep, Taint) and dep.code == PER_REQUEST:  # a system message's?
                frame.findings.unplaced(dep, args[0], f"`{last}` messages", node)
            elif dep in args[0].unplaced:  # a clock of a system message: it breaks what follows
                note = "the analysis cannot see where in the conversation it lands"
                frame.findings.hit(dep, f"`{last}` messages", "messages", 0, True, node, note=note)
    if (args or keywords) and receiver is not None and receiver.kind != "module":
        _answered_window(frame, name, node, args, keywords)
    if last in PYDANTIC_RUNS and PYDANTIC_HISTORY in keywords and receiver is not None:
        _agent_history(frame, last, keywords[PYDANTIC_HISTORY], node)
    if last == "RunnableWithMessageHistory":
        _session_history(frame, node, args, keywords)
    if receiver is not None and last in _SHAPING_METHODS:
        return receiver.with_deps(join_values(args).deps)
    if receiver is not None and last in _TEXT_KEEPING_METHODS and receiver.pieces is not None:
        return receiver.with_deps(join_values(args).deps)
    if receiver is not None and last in _PASS_METHODS:
        return Value(
            deps=receiver.deps | join_values(args).deps,
            kind=receiver.kind if receiver.kind == "str" else "",
        )
    if receiver is None or receiver.kind == "module":
        # (handed a method first: `retry(model.invoke, ...)`; most calls are not)
        if node.args and type(node.args[0]) is ast.Attribute:
            handed = _handed_model_call(frame, name, node, args, keywords, splats)
            if handed is not None:
                return handed
        if args or keywords:  # (handed nothing: no client, no window)
            _window_sent(frame, name, node, [*args, *keywords.values()])
            _answered_window(frame, name, node, args, keywords)
        result = opaque_call(frame, name, [*args, *keywords.values(), *splats])
        if result is EMPTY and _constructs(name):
            return Value(kind="module", meta=f"{name}()")  # a library's object, for its methods
        return result
    return opaque_call(frame, name, [receiver, *args, *keywords.values(), *splats])


def _chat_turns_handed(last: str, args: list[Value], keywords: dict[str, Value]) -> Value | None:
    """`provider.chat_complete([{"role": "system", ...}, {"role": "user", ...}])`: a call the
    analysis cannot read, named as one that sends a request, handed a list of chat turns (a
    dict with a `role` of the chat roles among them) as its first argument or `messages=`: the
    request those turns make (a client made where the analysis cannot see, a provider
    factory's)."""
    if not _SENDS.search(last):
        return None
    turns = keywords.get("messages", args[0] if args else None)
    if turns is not None and turns.items is None and turns.unplaced:
        return turns  # system messages of lists branches build apart: noted where it lands
    if turns is None or turns.items is None or turns.spliced:
        return None
    roles = {(item.field("role") or EMPTY).text for item in turns.items}
    return turns if roles & {"user", "system", "developer"} else None


def _turns_handed(args: list[Value], keywords: dict[str, Value], splats: list[Value]) -> bool:
    """Whether a call the analysis cannot read is handed a list (of turns, it may be) or a
    `**` splat: without one, nothing shows that a conversation follows its system prompt."""
    given = [*args, *keywords.values()]
    return bool(splats) or any(v.kind == "list" or v.items is not None for v in given)


def _unread_as_notes(value: Value) -> Value:
    """`value` with what an unread template rendered kept a not-followed note (`Taint.unread`
    dropped): where that template places it decides, and that is unknown."""
    if not any(isinstance(d, Taint) and d.unread for d in value.deps):
        return value
    deps = frozenset(
        replace(d, unread="") if isinstance(d, Taint) and d.unread else d for d in value.deps
    )
    return replace(value, deps=deps)


def _handed_model_call(
    frame: Frame,
    called: str,
    node: ast.Call,
    args: list[Value],
    keywords: dict[str, Value],
    splats: list[Value],
) -> Value | None:
    """
    `invoke_with_retry(model.invoke, messages)`, `asyncio.to_thread(client.messages.create,
    **params)`: a call the analysis cannot read, handed a model's method (a chat model's run or
    a request API) and then its arguments, makes the request that method makes with them, as
    retry helpers and thread runners do.
    """
    func = node.args[0] if node.args else None
    if not isinstance(func, ast.Attribute) or called.rpartition(".")[2] != _called_name(node):
        return None  # (`called` is the method itself, called on the wrapper's node)
    receiver = frame.eval(func.value)
    name = call_name(frame, func)
    if _library_object(receiver):
        name = f"{receiver.meta}.{func.attr}"
    if func.attr not in MODEL_RUNS and frame.a.named_call(name, len(args) - 1)[1] is None:
        return None
    return call_named(frame, name, node, receiver, args[1:], keywords, splats)


def _clock_helper(name: str, node: ast.Call, receiver: Value | None, sink: Sink | None) -> bool:
    """Whether a function the analysis cannot read (not a method of a value: `.date()` of a
    datetime is its date) is named as one that returns today's date or the time, and is handed
    no date to work on (`get_today_str()`, `helpers.current_time_iso()`)."""
    return (
        not node.args
        and sink is None
        and (receiver is None or receiver.kind == "module")
        and _CLOCK_HELPER.match(snake_case(name.rpartition(".")[2])) is not None
    )


def _called_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _window(frame: Frame, name: str, node: ast.Call, args: list[Value]) -> Value:
    """`trim_messages(messages, ...)`: the newest turns of the history, a window that slides
    (unless it keeps the oldest ones, `strategy="first"`). A window memory holds one for its
    chain, so it is reported where it is made, unless only engines that open each request
    with what they retrieve for it are handed it (`_handed_to_context_engines`)."""
    strategy = next((k.value for k in node.keywords if k.arg == "strategy"), None)
    if isinstance(strategy, ast.Constant) and strategy.value == "first":
        return args[0] if args else EMPTY
    what = "keeps only the newest turns"
    if name.endswith("ConversationSummaryMemory"):
        what = "writes the history again as a new summary after every turn"
    label = f"`{node_label(frame.module, node)}` ({what})"
    taint = frame.taint(WINDOW, label, node)
    if name in WINDOW_MEMORIES:
        if not _handed_to_context_engines(frame, node):
            frame.findings.hit(taint, f"`{_short(name)}`", "messages", 0, True, node)
        return EMPTY
    return Value(deps=join_values(args[:1]).deps | {taint}, kind="list")


def _handed_to_context_engines(frame: Frame, node: ast.Call) -> bool:
    """A window memory handed only to engines that put each turn's retrieval above the history
    (`CONTEXT_ENGINES`): the history it keeps is never read from the cache."""
    body = frame_node(frame)
    return only_handed_to(body, node, "memory", lambda call: _context_engine(frame, call))


def _context_engine(frame: Frame, call: ast.Call) -> bool:
    """`call` makes one of `CONTEXT_ENGINES`: `Engine.from_defaults(...)`, or a factory given the
    mode that makes one as a constant (`chat_mode="context"`, or `ChatMode.CONTEXT`)."""
    name = call_name(frame, call.func)
    given = {k.arg: _constant_mode(k.value) for k in call.keywords}
    for engine in CONTEXT_ENGINES:
        made, _, mode = engine.removesuffix(")").partition("(")
        if name == made or name.endswith(f".{made}"):
            keyword, _, value = mode.partition("=")
            if not mode or given.get(keyword) == value:
                return True
    return False


def _constant_mode(node: ast.expr) -> object:
    """A keyword's constant, or an enum member's name as its value (`ChatMode.CONTEXT`)."""
    if isinstance(node, ast.Attribute):
        return node.attr.lower()
    return node.value if isinstance(node, ast.Constant) else None


def _read_back(frame: Frame, function: Function, result: Value) -> Value:
    """What a getter returns once its module writes the history back trimmed (`load_turns()`,
    see `_shared_windows`): a window, cut where the module trims it."""
    if isinstance(function.node, ast.Lambda):
        return result
    trims = frame.a.trimmed(function.module)
    trim = trims.get(f"{function.node.name}()") if trims else None
    return result if trim is None else windowed(function.module, result, trim)


def _window_enters(frame: Frame, function: Function, node: ast.AST, result: Value) -> Value:
    """A history window cut in another module (`messages = trim_history(messages)`, the helper
    in `utils/`) is reported where it enters this one, the call, which the label ties to
    the slice: the module that sends the window is where its reader looks for the request."""
    outside = frozenset(
        d
        for d in result.deps
        if isinstance(d, Taint) and d.code == WINDOW and d.path != frame.module.display
    )
    if not outside:
        return result
    cut = min(outside, key=Taint.key)
    name = getattr(function.node, "name", "<lambda>")
    label = f"`{name}()` (returns a sliding window of the history: {cut.label} at line {cut.line} of {cut.path})"
    # Where it was first cut: a window cut in a third module entered this one's callee there.
    made = cut.made or (cut.path, cut.line)
    entered = replace(frame.taint(WINDOW, label, node), made=made)
    cuts = frame.a.window_cuts.setdefault((entered.path, entered.line), set())
    cuts.update((d.path, d.line) for d in outside)  # where it was cut, for `PythonLinter`
    return swapped(result, outside, entered)


def _window_sent(frame: Frame, name: str, node: ast.Call, values: list[Value]) -> None:
    """`stream_reply(client, messages)`, a function the analysis cannot read (in a module it
    cannot see, say), handed a library's client and a history window: it sends the window."""
    clients = [v for v in values if _library_object(v) and str(v.meta).startswith(CLIENT_PACKAGES)]
    if not clients:
        return
    what = f"`{_short(name)}()`, handed a `{str(clients[0].meta)[:-2]}` client"
    for value in values:
        _windows_sent(frame, value, what, node)


def _answered_window(
    frame: Frame, name: str, node: ast.Call, args: list[Value], keywords: dict[str, Value]
) -> None:
    """`answer = provider.chat(history)`, then `history.append({"role": "assistant", "content":
    answer})`: a call the analysis cannot read (an object it lost, a module it cannot see)
    whose result the function keeps as the assistant's turn of the very list it was handed
    is a model's request, sending that list; a window of the history in it is sent."""
    given = list(zip(node.args, args, strict=False))
    given += [(k.value, keywords[k.arg]) for k in node.keywords if k.arg in keywords]
    given = [(e, v) for e, v in given if any(map(_is_window, v.deps))]
    if not given or frame.function is None:
        return
    answer = _result_name(frame.function.node, node)
    if answer is None:
        return
    kept = _answer_kept_in(frame.function.node, answer)
    what = f"`{_short(name)}()`, whose answer is kept as the assistant's turn"
    for expr, value in given:
        if ast.dump(expr) in kept:
            _windows_sent(frame, value, what, node)


def _session_history(
    frame: Frame, node: ast.Call, args: list[Value], keywords: dict[str, Value]
) -> None:
    """`RunnableWithMessageHistory(chain, get_session_history)`: LangChain puts what the getter
    returns before each request's new messages. A getter that returns a window of the history
    (a history refilled with its newest turns) sends that window on every request."""
    getter = keywords.get("get_session_history", args[1] if len(args) > 1 else None)
    if getter is None or getter.kind not in ("partial", "function", "method", "lambda"):
        return
    what = "the history `RunnableWithMessageHistory` gets for each request"
    _windows_sent(frame, call_value(frame, getter, node), what, node)


def _agent_history(frame: Frame, method: str, history: Value, node: ast.Call) -> None:
    """`agent.run_stream(prompt, message_history=turns)`: a Pydantic AI agent's run (whatever
    object the agent is: a parameter, one handed in), the earlier turns after its system
    prompt. A window of the history there shifts on every request once the history outgrows
    it; a caller's list is judged as each caller passes it."""
    what = f"a Pydantic AI agent's `{method}(message_history=...)`"
    for dep in history.deps:
        if _is_window(dep):
            frame.findings.hit(dep, what, "messages", 0, True, node)
        elif isinstance(dep, Param):
            frame.findings.pend(dep, what, "messages", 0, True, whole=True)


def _windows_sent(frame: Frame, value: Value, what: str, node: ast.Call) -> None:
    """Each window of the history in `value`, sent by `what` as earlier turns: they shift on
    every request once the history outgrows the window."""
    for dep in value.deps:
        if _is_window(dep):
            frame.findings.hit(dep, what, "messages", 0, True, node)


def _result_name(function: ast.AST, call: ast.Call) -> str | None:
    """The name `call`'s result is assigned to in `function` (`answer = call`, `answer =
    await call`), if it is."""
    for sub in ast.walk(function):
        if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
            value = sub.value.value if isinstance(sub.value, ast.Await) else sub.value
            target = sub.targets[0]
            if value is call and isinstance(target, ast.Name):
                return target.id
    return None


def _answer_kept_in(function: ast.AST, answer: str) -> set[str]:
    """The lists (`ast.dump` of each) that `function` appends `answer` to as the assistant's
    turn: `{"role": "assistant", "content": answer}` (or `answer.text`...)."""
    kept = set()
    for sub in ast.walk(function):
        if not (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr == "append"
            and len(sub.args) == 1
            and isinstance(sub.args[0], ast.Dict)
        ):
            continue
        fields = {
            k.value: v
            for k, v in zip(sub.args[0].keys, sub.args[0].values, strict=False)
            if isinstance(k, ast.Constant)
        }
        role, content = fields.get("role"), fields.get("content")
        if (
            isinstance(role, ast.Constant)
            and role.value in ("assistant", "model")
            and content is not None
            and any(isinstance(n, ast.Name) and n.id == answer for n in ast.walk(content))
        ):
            kept.add(ast.dump(sub.func.value))
    return kept


def _history_uncached(frame: Frame, sink: Sink, keywords: dict[str, Value]) -> bool:
    """Whether this request's explicit cache points all sit before its history: every mark of
    the module's text (`cache_control`) is one found in the call's system prompt or tools."""
    if not sink.cache_points:
        return False
    found = sum(
        _marks(keywords[keyword], sink.cache_points)
        for keyword, role in sink.keywords
        if role in ("system", "tools") and keyword in keywords
    )
    written = sum(frame.module.source.count(mark) for mark in sink.cache_points)
    return found > 0 and found == written and not _imports_marking(frame, sink.cache_points)


def _imports_marking(frame: Frame, keys: tuple[str, ...]) -> bool:
    """Whether a project module this one imports writes a cache mark (a helper that marks the
    newest turn, `with_breakpoint(messages)`): its marks may land in this request's history,
    which the count of this module's text cannot see."""
    module = frame.module
    for dotted in set(module.imports.values()):
        for name in (dotted, dotted.rpartition(".")[0]):
            found = frame.a.project.find(name, module) if name else None
            if found is not None and found is not module:
                if any(key in found.source for key in keys):
                    return True
                break
    return False


def _automatic_caching(sink: Sink, keywords: dict[str, Value]) -> bool:
    """A top-level mark (Anthropic's automatic caching: `cache_control=` on the call marks its
    last block), or an `extra_body` that may carry one."""
    return "extra_body" in keywords or any(key in keywords for key in sink.cache_points)


def _after_last_cache_point_dropped(system: Value, keys: tuple[str, ...]) -> Value:
    """
    A system prompt of blocks with what only its blocks after the last explicit cache point
    hold taken out, for a request whose every mark is in its system prompt or tools (so none
    in the history, and no automatic one): the cache stops at that mark, so nothing after it is
    ever read from the cache, whatever it holds. Blocks not all known leave it as it is.
    """
    items = system.items
    if items is None:
        return system
    marked = [index for index, item in enumerate(items) if _marks(item, keys)]
    if not marked or marked[-1] == len(items) - 1:
        return system
    cached: frozenset[Dep] = frozenset().union(*(i.deps for i in items[: marked[-1] + 1]))
    after: frozenset[Dep] = frozenset().union(*(i.deps for i in items[marked[-1] + 1 :]))
    return without(system, after - cached)


def _marks(value: Value, keys: tuple[str, ...], depth: int = 0) -> int:
    if depth > 6:
        return 0
    count = sum(1 for name, _ in value.fields or () if name in keys)
    count += sum(_marks(v, keys, depth + 1) for _, v in value.fields or ())
    return count + sum(_marks(item, keys, depth + 1) for item in value.items or ())


def _is_window(dep: Dep) -> bool:
    return isinstance(dep, Taint) and dep.code == WINDOW


def _on_kept_history(node: ast.Call) -> bool:
    """`self.history.add_system_message(...)`, `store[user].add_...(...)`: a call on a history
    kept beyond the call (on an object or in a store)."""
    func = node.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute | ast.Subscript)


def _constructs(name: str) -> bool:
    """Whether `name` (resolved, outside the project) reads as a class of a library whose
    objects' methods are sinks (`cohere.Client`, `ollama.AsyncClient`): what calling it makes
    is an object whose methods keep its name. Other libraries' objects stay unknown values (as
    every object did before: following them all costs time and finds nothing)."""
    module, _, last = name.rpartition(".")
    return (
        bool(module)
        and last[:1].isupper()
        and name.startswith(OBJECT_PACKAGES)
        and "()" not in name
    )


def _library_object(receiver: Value | None) -> bool:
    return (
        receiver is not None
        and receiver.kind == "module"
        and isinstance(receiver.meta, str)
        and receiver.meta.endswith("()")
    )


def opaque_call(frame: Frame, name: str, values: Sequence[Value]) -> Value:
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
    frame: Frame,
    sink: Sink,
    node: ast.Call,
    args: list[Value],
    keywords: dict[str, Value],
    splats: list[Value],
) -> Value:
    if sink.api == "LangChain SystemMessage" and (
        frame.message_element is node
        or (frame.function is not None and appended_where_sent(frame.function.node, node))
    ):
        # Made in a list literal: judged there, by the turns after it (`_expressions`); appended
        # to a list the function makes and sends: judged where it is sent (`_local_lists`).
        content = keywords.get("content", args[0] if args else EMPTY)
        return replace(content, kind="message")
    if sink.parts:
        args, keywords = _parts_as_one_turn(frame, sink, node, args, keywords)
    for index, role in sink.positional:
        if index < len(args):
            frame.findings.sink_value(sink.api, role, args[index], node)
    if sink.conversation and _on_kept_history(node):
        for value in (*args, *keywords.values()):
            frame.findings.conversation_started(value)
        return join_values([*args, *keywords.values()])
    history = conversation_follows(sink, args, keywords, splats)
    if history and sink.api == "OpenAI Agents SDK Agent":
        history = runner_runs_carry_history(frame.module.tree, node)
    uncached = _history_uncached(frame, sink, keywords)
    for keyword, role in sink.keywords:
        if keyword in keywords:
            value = keywords[keyword]
            if role == "system":
                value = dynamic_prompt(frame, value, node)
                if uncached and not splats and not _automatic_caching(sink, keywords):
                    value = _after_last_cache_point_dropped(value, sink.cache_points)
            if role == "messages" and uncached:
                value = without(value, frozenset(d for d in value.deps if _is_window(d)))
            frame.findings.sink_value(sink.api, role, value, node, history=history)
    for splat in splats:
        if splat.fields is None and splat.deps:
            frame.findings.splat_into(sink, splat, node)
    if "partial_variables" in keywords:
        frame.template_variables(
            template_info(frame, sink, args, keywords), keywords["partial_variables"], node
        )
    if (sink.api.startswith("LangChain") and "message" not in sink.api.split()[-1]) or (
        sink.api == "LangChain system message template"
    ):
        info = template_info(frame, sink, args, keywords)
        unseen_fill(frame, sink, node, args, keywords, info)  # no fill of it in the project
        return Value(kind="ptemplate", meta=info)
    if sink.api.startswith("CrewAI"):
        return Value(kind="ptemplate", meta=crew_template(frame, sink, keywords, node))
    if sink.api == "Haystack chat prompt builder":  # messages of Jinja, filled by `run(...)`
        return chat_builder(frame.module, args, keywords)
    if sink.api in ("Haystack system message", "Haystack message"):  # kept for a chat builder
        return chat_turn(node, join_values([*args, *keywords.values()]), args, keywords)
    if sink.api == "Semantic Kernel arguments":
        return sk_arguments(keywords)
    if sink.api == "Semantic Kernel prompt template config":
        text, template_format = keywords.get("template", EMPTY), keywords.get("template_format")
        return sk_template(text, template_format, frame.module)
    if sink.api == "Semantic Kernel prompt function" or (
        sink.api == "Semantic Kernel kernel function" and "plugin_name" in keywords
    ):
        return sk_function(join_values([*args, *keywords.values()]), keywords, frame.module)
    if sink.api == "Semantic Kernel YAML prompt":
        return sk_yaml(frame, args, keywords)
    if sink.api == "Semantic Kernel prompt":
        sk_prompt(frame, node, args, keywords)
    if sink.api == "Haystack prompt builder":  # a Jinja template, filled by `run(**variables)`
        text = args[0] if args else keywords.get("template", EMPTY)
        return Value(kind="jtemplate", meta=text.text)
    result = join_values([*args, *keywords.values()])
    if sink.api == "LangChain SystemMessage":
        return replace(result, kind="message")
    if sink.api == "Gemini chats.create":  # a chat, whose `send_message` sends the newest turn
        return Value(deps=result.deps, kind="module", meta="google.genai.Chat()")
    if sink.answers:  # the model's answer to this request: per-request data, whatever its name
        return _per_request_result(frame, result, node, f"the answer of {sink.api}", answer=True)
    return result


def _parts_as_one_turn(
    frame: Frame, sink: Sink, node: ast.Call, args: list[Value], keywords: dict[str, Value]
) -> tuple[list[Value], dict[str, Value]]:
    """The input a list of parts gives as the one turn they make (`_content_parts`)."""
    args, keywords = list(args), dict(keywords)
    for index, role in sink.positional:
        if role == "input" and index < len(args) and index < len(node.args):
            turn = one_turn_of_parts(args[index], node.args[index], frame.module.display)
            args[index] = args[index] if turn is None else turn
    for keyword, role in sink.keywords:
        if role == "input" and keyword in keywords:
            expr = next((k.value for k in node.keywords if k.arg == keyword), None)
            turn = one_turn_of_parts(keywords[keyword], expr, frame.module.display)
            keywords[keyword] = keywords[keyword] if turn is None else turn
    return args, keywords


def _constant_parameters(
    function: Function,
    bound: dict[int | str, Value],
    result: Value,
    configured: frozenset[int | str] = frozenset(),
) -> frozenset[Dep]:
    """
    The per-request taints in `result` that stand for a parameter of `function` which this
    call fills with a literal (`metadata_query=METADATA_QUERY`) or a configuration constant
    (`_load(HISTORY_FILE)`, `settings.MEMORY_PATH`: `configured`, by position or keyword):
    named like per-request data, but at this call it is the caller's constant, so it does not
    vary here.
    """
    node = function.node
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args)]
    constant = {
        name
        for key, value in bound.items()
        if not value.deps and (value.text is not None or value.kind == "num" or key in configured)
        for name in ([names[key]] if isinstance(key, int) and key < len(names) else [key])
        if isinstance(name, str)
    }
    constant |= _left_at_literal_default(node, bound)
    first, last = node.lineno, node.end_lineno or node.lineno
    return frozenset(
        d
        for d in result.deps
        if isinstance(d, Taint)
        and d.param in constant
        and d.path == function.module.display
        and first <= d.line <= last
    )


def _left_at_literal_default(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, bound: dict[int | str, Value]
) -> set[str]:
    """The parameters this call does not pass whose default is a literal (`def build(text,
    context="")`): the same at every such call, whatever they are named."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(
        zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
    )
    keyword = zip(args.kwonlyargs, args.kw_defaults, strict=True)
    defaults.update((a, d) for a, d in keyword if d is not None)
    return {
        arg.arg
        for arg, default in defaults.items()
        if isinstance(default, ast.Constant)
        and arg.arg not in bound
        and (arg not in positional or positional.index(arg) not in bound)
    }


def _configured(node: ast.AST, passed: int) -> frozenset[int | str]:
    """The arguments of call `node` written as a configuration constant (an ALL_CAPS name, or
    attribute: `HISTORY_FILE`, `settings.MEMORY_PATH`), by the position they bind to (`passed`
    values in all, the receiver of a method first) or their keyword."""
    if not isinstance(node, ast.Call):
        return frozenset()
    found: set[int | str] = {k.arg for k in node.keywords if k.arg and _a_constant(k.value)}
    if not any(isinstance(a, ast.Starred) for a in node.args):
        offset = passed - len(node.args)
        found.update(offset + i for i, a in enumerate(node.args) if _a_constant(a))
    return frozenset(found)


def _a_constant(expr: ast.expr) -> bool:
    name = expr.id if isinstance(expr, ast.Name) else getattr(expr, "attr", "")
    return isinstance(expr, ast.Name | ast.Attribute) and len(name) > 1 and name.isupper()


def _unread_project_module(frame: Frame, name: str) -> str:
    """The module a call of `name` comes from when it is one of the project's own that the
    analysis cannot find (a file left out of what is linted: `from app.models.user import
    Chat`, `Chat(prompt=query, response=answer)`): what its keywords are for is unknown, so
    they are not taken for a wrapper's system prompt. "" for any other call."""
    module = name.split("(", 1)[0].rpartition(".")[0]
    if not module or module.split(".", 1)[0] in KNOWN_PACKAGES:
        return ""
    project = frame.a.project
    if project.find(module, frame.module) is not None:
        return ""
    return module if project.holds_package(module, frame.module) else ""


def _short(name: str) -> str:
    return name if len(name) <= 40 else "..." + name[-37:]
