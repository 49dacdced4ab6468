"""
Statement execution: what each statement does to the frame's bindings.

Functions of a `Frame` (`_frame`). State: binds names in the frame's `Scope.env` (through
`assign`, and whole for branches, which run each body on a copy and merge what they bound) and
`Scope.self_attrs` (`self.x = ...`); appends to `Frame.returns`. Expressions are evaluated through
`frame.eval`; a name or attribute that says "system prompt" is handed to `frame.findings`, and a
nested function is summarised by the analysis.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from ._flow import (
    merge,
    merge_branched,
    merge_grown,
)
from ._invoke import call_name, frame_node
from ._locations import node_label
from ._query_engines import only_asked_of_a_query_engine
from ._quickinit import replace
from ._request_data import NEWEST_TURN, system_named
from ._sinks import SINK_BY_API
from ._summaries import ClassInfo, Function, enclosing_pending
from ._turns import (
    bounded_to_newest,
    drop_oldest,
    front_cut,
    front_deleted,
    is_history_name,
    newest_first,
    newest_kept,
    rewrites_first_message,
    starts_a_conversation,
)
from ._unseen_fills import unseen_string_fill
from ._values import (
    EMPTY,
    PER_REQUEST,
    Param,
    Value,
)
from ._walk import push_children

if TYPE_CHECKING:
    from ._frame import Frame

__all__ = ["assign", "block", "statement"]

# Names that say "this is the system prompt" (`system_named`): a variable, attribute or function
# so named is a system prompt wherever it is sent (often from another module, or through an
# in-house wrapper).
# Names that say "this is a prompt's text" (`FACT_EXTRACTION_PROMPT`, `prompt_template`).
_PROMPT_NAME = re.compile(r"(?i)^_*(?:\w*_)?(?:prompt|template|instructions)$")


@lru_cache(maxsize=4096)  # a project binds the same few names again and again
def _prompt_named(name: str) -> bool:
    return _PROMPT_NAME.match(name) is not None


def block(frame: Frame, body: Sequence[ast.stmt]) -> None:
    for each in body:
        statement(frame, each)


def statement(frame: Frame, node: ast.stmt) -> None:
    handler = _STATEMENTS.get(type(node))
    if handler is not None:
        handler(frame, node)
    else:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                frame.eval(child)


def _s_Import(frame: Frame, node: ast.Import | ast.ImportFrom | ast.Pass) -> None:
    """Nothing to evaluate: imports are resolved from the module's import table."""


_s_ImportFrom = _s_Pass = _s_Global = _s_Nonlocal = _s_Break = _s_Continue = _s_Import


def _s_Expr(frame: Frame, node: ast.Expr) -> None:
    frame.eval(node.value)


def _s_Return(frame: Frame, node: ast.Return) -> None:
    frame.returns.append(frame.eval(node.value) if node.value is not None else EMPTY)


def _s_Assign(frame: Frame, node: ast.Assign) -> None:
    value = frame.eval(node.value)
    for target in node.targets:
        assign(frame, target, value)
        unseen_string_fill(frame, target, value)
    if rewrites_first_message(node):
        what = "the conversation's first message, written again for each request"
        frame.findings.sink_value(what, "system", value, node)
    if starts_a_conversation(node, global_name=frame.function is None):
        frame.findings.conversation_started(value)
        if isinstance(node.value, ast.Call):  # `ChatHistory(system_message=...)`: as given to it
            for given in (*node.value.args, *(k.value for k in node.value.keywords)):
                frame.findings.conversation_started(frame.eval(given))


def _s_AnnAssign(frame: Frame, node: ast.AnnAssign) -> None:
    if node.value is not None:
        value = frame.eval(node.value)
        assign(frame, node.target, value)
        unseen_string_fill(frame, node.target, value)


def _s_AugAssign(frame: Frame, node: ast.AugAssign) -> None:
    current = frame.eval(node.target)
    assign(frame, node.target, frame.binop(node.op, current, frame.eval(node.value), node))


def _s_If(frame: Frame, node: ast.If) -> None:
    frame.eval(node.test)
    branches(frame, [node.body, node.orelse], once=True)
    # Either branch of a size test (`if count(m) <= budget: return m` / `else: m = m[1:]`).
    _cuts_in(frame, [*node.body, *node.orelse], node.test)


def _cuts_in(frame: Frame, body: Sequence[ast.stmt], test: ast.expr | None = None) -> None:
    """`while count(messages) > budget: messages = messages[1:]`: a history cut at its front
    whenever it outgrows a size (in a loop, or under a comparison) is a window that slides."""
    cuts = [
        (s, h)
        for s in body
        if isinstance(s, ast.Assign)
        and ((h := front_cut(s)) is not None or (h := bounded_to_newest(s)) is not None)
    ]
    if not cuts or (test is not None and not _compares(test)):
        return
    for statement, history in cuts:
        held = frame.eval(history)
        if held.kind == "str":
            continue  # the tail of a text (`context = context[-1000:]`), not of a list of turns
        drop_oldest(frame, history, statement)


def _compares(test: ast.expr) -> bool:
    return any(isinstance(n, ast.Compare) for n in ast.walk(test))


def _s_Try(frame: Frame, node: ast.Try) -> None:
    block(frame, node.body)
    branches(frame, [h.body for h in node.handlers] + [node.orelse], once=True)
    block(frame, node.finalbody)


_s_TryStar = _s_Try


def _s_Match(frame: Frame, node: ast.Match) -> None:
    frame.eval(node.subject)
    branches(frame, [case.body for case in node.cases] + [[]], once=True)


def _s_With(frame: Frame, node: ast.With) -> None:
    for item in node.items:
        value = frame.eval(item.context_expr)
        if item.optional_vars is not None:
            # A library's client entered as a context (`async with httpx.AsyncClient() as
            # client`) is the client itself: its `__enter__` returns it, methods and all.
            client = value.kind == "module" and str(value.meta).endswith("()")
            assign(frame, item.optional_vars, value if client else value.opaque())
    block(frame, node.body)


_s_AsyncWith = _s_With


def _s_For(frame: Frame, node: ast.For) -> None:
    iterated = frame.eval(node.iter)
    element = frame.element(iterated, node.iter)
    if newest_first(node.iter) and iterated.items is None:
        label = f"`{node_label(frame.module, node.iter)}` ({NEWEST_TURN})"
        taint = frame.taint(PER_REQUEST, label, node.iter)
        element = Value(deps=element.deps | {taint}, pieces=(element.deps | {taint},))
    elif iterated.items is None and _sends(frame, node.body):
        # A request sent for each item of a collection the analysis cannot see: each item is
        # its request's own data (one paper, one document, one question per request).
        label = f"`{node_label(frame.module, node.target)}` (one request per item of the loop)"
        taint = frame.taint(PER_REQUEST, label, node.target)
        element = Value(deps=element.deps | {taint}, pieces=(element.deps | {taint},))
    function = frame.function
    walked = [d.name for d in iterated.deps if isinstance(d, Param)]
    if function is not None and walked and _sends(frame, node.body, repeated=True):
        function.sent_per_item.update(walked)
    assign(frame, node.target, element)
    # A conversation copied turn by turn (`for m in history: turns.append(...)`): the list it
    # is copied into keeps the turns it had before the loop, the history after them.
    loop = (frame.module.display, node.lineno, node.end_lineno or node.lineno)
    branches(frame, [node.body, []], grown=loop if _walks_a_history(node.iter) else None)
    block(frame, node.orelse)
    kept = newest_kept(node)
    if kept is not None:  # the newest turns gathered until a budget is spent: a window
        drop_oldest(frame, kept, node)


_s_AsyncFor = _s_For


def _walks_a_history(iterated: ast.expr) -> bool:
    """`for m in history`, `history[-10:]`, `enumerate(state["messages"])`: a conversation's
    turns, in their order."""
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.args:
        iterated = iterated.args[0] if iterated.func.id == "enumerate" else iterated
    if isinstance(iterated, ast.Subscript) and isinstance(iterated.slice, ast.Slice):
        iterated = iterated.value
    return is_history_name(iterated)


def _sends(frame: Frame, body: Sequence[ast.stmt], *, repeated: bool = False) -> bool:
    """Whether a loop's body sends a request: a call of a request API, or of a function of the
    project whose parameters reach one (its summary says so). Nested definitions are their own;
    a request repeated for each item (`for _ in range(n)`) reads the cache from its second
    time, so the item is not new to each request (unless `repeated`: one sent several times
    counts)."""
    todo: list[ast.AST] = list(body)
    while todo:
        current = todo.pop()
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(current, ast.For) and _repeats(current.iter) and not repeated:
            continue
        if isinstance(current, ast.Call) and _requests(frame, current):
            return True
        push_children(current, todo)  # not ast.iter_child_nodes: the same order, faster
    return False


def _repeats(iterated: ast.expr) -> bool:
    return (
        isinstance(iterated, ast.Call)
        and isinstance(iterated.func, ast.Name)
        and iterated.func.id == "range"
    )


def _requests(frame: Frame, call: ast.Call) -> bool:
    """Whether a call sends a request (a request API's, or a project function forwarding to
    one; not a text a name says is a prompt, which may only be printed)."""
    func = call.func
    _, sink = frame.a.named_call(call_name(frame, func), len(call.args))
    if sink is not None and sink.answers:
        return True
    if isinstance(func, ast.Name):
        found = frame.scope.find(func.id)
        if found is not None and found.kind == "function" and isinstance(found.meta, Function):
            pending = frame.a.summary(found.meta).pending
            return any(p.api in SINK_BY_API and SINK_BY_API[p.api].answers for p in pending)
    return False


def _s_While(frame: Frame, node: ast.While) -> None:
    frame.eval(node.test)
    # A cut anywhere in the loop has been made by the time any later pass reads the history
    # (a `return messages` above the cut returns it cut): the window holds from the start.
    _cuts_in(frame, _in_loop(node.body))
    branches(frame, [node.body, []])
    block(frame, node.orelse)


def _in_loop(body: Sequence[ast.stmt]) -> list[ast.stmt]:
    """The statements a loop runs, in its branches too (`if ...: return m` / `else: m = m[1:]`),
    not in the functions and classes it defines."""
    found: list[ast.stmt] = []
    for statement in body:
        found.append(statement)
        if isinstance(statement, ast.If | ast.Try | ast.With):
            nested = [*statement.body, *getattr(statement, "orelse", ())]
            found.extend(_in_loop(nested))
    return found


def _s_FunctionDef(frame: Frame, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    outer = None if frame.function is None else dict(frame.scope.env)
    function = Function(module=frame.module, node=node, outer=outer)
    function.system = any(_is_system_decorator(d) for d in node.decorator_list)
    for decorator in node.decorator_list:
        frame.eval(decorator)
    frame.scope.env[node.name] = Value(kind="function", meta=function)
    if frame.function is not None:
        frame.a.summary(function)  # nested: analysed with the enclosing variables
        _lift_enclosing_parameters(frame, function)


def _lift_enclosing_parameters(frame: Frame, function: Function) -> None:
    """A nested function's sinks reached by a parameter of the function enclosing it are the
    enclosing function's (`enclosing_pending`), whether the nested one is called there or handed
    to a retry helper the analysis cannot read. (Its own clocks are reported where it is made.)"""
    enclosing = frame.function
    if enclosing is None or isinstance(function.node, ast.Lambda):
        return
    for _, pending in enclosing_pending(function):
        if pending not in enclosing.pending:
            enclosing.pending.append(pending)


_s_AsyncFunctionDef = _s_FunctionDef


def _s_ClassDef(frame: Frame, node: ast.ClassDef) -> None:
    cls = ClassInfo(module=frame.module, node=node)
    frame.module.classes.append(cls)
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            method = Function(module=frame.module, node=statement, cls=cls)
            method.system = any(_is_system_decorator(d) for d in statement.decorator_list)
            cls.methods[statement.name] = method
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            value = statement.value
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if value is not None:
                evaluated = frame.eval(value)
                for target in targets:
                    if isinstance(target, ast.Name):
                        cls.attrs[target.id] = evaluated
                        unseen_string_fill(frame, target, evaluated)
    frame.scope.env[node.name] = Value(kind="class", meta=cls)


def branches(
    frame: Frame,
    bodies: Sequence[Sequence[ast.stmt]],
    *,
    grown: tuple[str, int, int] | None = None,
    once: bool = False,
) -> None:
    """Run each body from the bindings as they are, then bind each name to its values merged.
    (`grown`, a loop's path and lines: a list it appends to keeps its first items, the rest one
    splice; see `merge_grown`. `once`: each body runs at most once, as an `if`'s do, so a list
    one of them appends to keeps its turns; see `merge_branched`.)
    (An empty body, such as a missing `else`, leaves the bindings as they were; a body that
    leaves them equal to those merged so far changes no merge: both are skipped at C speed,
    which matters in a module body, whose bindings are all its globals.)"""
    env = frame.scope.env
    before = dict(env)
    results: list[dict[str, Value]] = []
    changed = False  # whether `env` has been run on since `before` was taken
    for body in bodies:
        if not body:
            results.append(before)
            continue
        if changed:
            env.clear()
            env.update(before)
        block(frame, body)
        changed = True
        results.append(dict(env))
    merged = dict(results[0])
    for other in results[1:]:
        if other == merged:  # each value equal to the one merged so far: merge keeps it
            continue
        for name, value in other.items():
            kept = merged.get(name)
            if kept is None:
                merged[name] = value
            elif kept is not value:  # the same value (most names): merge keeps it
                merged[name] = (
                    merge_grown(kept, value, grown)
                    if grown
                    else merge_branched(kept, value)
                    if once
                    else merge(kept, value)
                )
    env.clear()
    env.update(merged)


# -- assignment -------------------------------------------------------------------------
def assign(frame: Frame, target: ast.expr, value: Value) -> None:
    if isinstance(target, ast.Name):  # most targets: bound, and nothing more to do
        if value.deps and system_named(target.id):
            frame.findings.system_text(f"`{target.id}`, named as a system prompt", value, target)
        elif (
            value.deps
            and value.pieces is not None
            and _prompt_named(target.id)
            and not only_asked_of_a_query_engine(frame_node(frame), target.id, frame.module.source)
        ):
            # A prompt text under construction: judged as a template (by the static text
            # after what varies), wherever it is sent; but for a query engine's question,
            # which the engine places after what it retrieves for it.
            frame.findings.last_turn(f"`{target.id}`, named as a prompt", value, target, "template")
        frame.scope.env[target.id] = value
        return
    if isinstance(target, ast.Attribute) and value.deps and system_named(target.attr):
        frame.findings.system_text(f"`{target.attr}`, named as a system prompt", value, target)
    if isinstance(target, ast.Tuple | ast.List):
        for index, element in enumerate(target.elts):
            if isinstance(element, ast.Starred):
                assign(frame, element.value, value.opaque())
            elif value.items is not None and len(value.items) == len(target.elts):
                assign(frame, element, value.items[index])
            else:
                assign(frame, element, value.opaque())
    elif isinstance(target, ast.Attribute):
        if isinstance(target.value, ast.Name) and frame.scope.is_self(target.value.id):
            frame.scope.self_attrs[target.attr] = value
            frame.scope.env[f"frame.{target.attr}"] = value
        else:
            frame.eval(target.value)
    elif isinstance(target, ast.Subscript):
        set_item(frame, target, value)
    elif isinstance(target, ast.Starred):
        assign(frame, target.value, value.opaque())


def set_item(frame: Frame, target: ast.Subscript, value: Value) -> None:
    key = target.slice
    container = frame.eval(target.value)
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        fields = [(k, v) for k, v in (container.fields or ()) if k != key.value]
        fields.append((key.value, value))
        if container.fields is None and container.deps:
            fields.insert(0, ("**", container.opaque()))
        updated = replace(container, fields=tuple(fields), deps=container.deps | value.deps)
    elif container.kind in ("", "dict", "udict"):  # a computed key: order follows the loop
        updated = Value(
            deps=container.deps | value.deps | frame.eval(key).deps,
            kind=container.kind or "dict",
        )
    else:
        updated = container.with_deps(value.deps)
    assign(frame, (target.value), updated)


def _s_Delete(frame: Frame, node: ast.Delete) -> None:
    for target in node.targets:
        history = front_deleted(target)
        if history is not None:  # `del messages[1:3]`: the oldest turns dropped, the rest kept
            drop_oldest(frame, history, node)


_STATEMENTS: dict[type, Callable[[Frame, ast.stmt], None]] = {
    getattr(ast, name[3:]): handler
    for name, handler in list(globals().items())
    if name.startswith("_s_") and hasattr(ast, name[3:])
}


def _is_system_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Attribute) and target.attr in ("system_prompt", "instructions")
