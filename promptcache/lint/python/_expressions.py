"""
Expression evaluation: the `Value` of each expression.

Functions of a `Frame` (`_frame`). State: owns `Frame.depth` (how deep the expression being
evaluated is nested; too deep is cut off and the module says so) and `Frame.in_message_list`;
reads names through `frame.scope`. Calls are evaluated by `_invoke`, comprehensions by
`_iteration`; a message literal with the system role is handed to `frame.findings`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from ._calls import all_str, repeat_count, senders_part
from ._chain_fills import pipe_into
from ._classes import method_of
from ._flow import (
    as_items,
    cap_items,
    constant_value,
    dict_fields,
    merge,
    merge_all,
    written_at,
)
from ._instances import instance_part
from ._invoke import body_of, call_expression, is_message_call, kept_turn, where_made
from ._iteration import comprehension
from ._local_lists import appended_where_sent, sent_where_grown
from ._locations import node_label
from ._quickinit import replace
from ._request_data import NEWEST_TURN, request_name, senders_system_prompt
from ._shared_windows import dotted
from ._summaries import ClassInfo, Function, ParamSlot
from ._turns import (
    WINDOW,
    descending_slice,
    is_drawn_window,
    is_history_window,
    is_named_window,
    is_newest_turn,
    windowed,
)
from ._values import (
    EMPTY,
    MAX_PIECES,
    MAX_TEXT,
    PER_REQUEST,
    Dep,
    Param,
    Taint,
    Value,
    compact,
    concat_pieces,
    deps_at_key,
    join_values,
    text_value,
    unnamed_part,
)

if TYPE_CHECKING:
    from ._frame import Frame

__all__ = ["binop", "evaluate", "string", "written"]

_PERCENT_FIELD = re.compile(
    r"%(?:\(([^)]*)\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[diouxXeEfFgGcrsa%]"
)
_MAX_DEPTH = 40
_UNKNOWN_TEXT = Value(pieces=(frozenset(),))
_MESSAGE = Value(kind="message")  # a message object already judged where it was made


# -- expressions ------------------------------------------------------------------------


def evaluate(frame: Frame, node: ast.expr | None) -> Value:
    if node is None:
        return EMPTY
    kind = type(node)
    # Leaves (half of all expressions) evaluate nothing below them: no depth to track, as
    # long as one at the limit is cut off as the general path below cuts it off.
    if kind is ast.Name:
        return cut_off(frame, node) if frame.depth >= _MAX_DEPTH else _e_Name(frame, node)  # type: ignore[arg-type]
    if kind is ast.Constant:
        return EMPTY if frame.depth >= _MAX_DEPTH else _e_Constant(frame, node)  # type: ignore[arg-type]
    frame.depth += 1
    try:
        if frame.depth > _MAX_DEPTH:
            return cut_off(frame, node)
        handler = _EXPRESSIONS.get(type(node))
        if handler is None:
            return join_values(
                evaluate(frame, c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)
            )
        result: Value = handler(frame, node)
        return result
    finally:
        frame.depth -= 1


def cut_off(frame: Frame, node: ast.expr) -> Value:
    """An expression nested too deeply to follow: not followed, and the module says so."""
    frame.module.unfollowed.add(node.lineno)
    return EMPTY


def _e_Constant(frame: Frame, node: ast.Constant) -> Value:
    constant = node.value
    # Values are immutable: a run makes one per literal (keys like "role" recur).
    if isinstance(constant, str):
        known = frame.a.texts.get(constant)
        if known is None:
            known = frame.a.texts[constant] = text_value(constant)
        return known
    if isinstance(constant, int) and not isinstance(constant, bool):
        known = frame.a.numbers.get(constant)
        if known is None:
            known = frame.a.numbers[constant] = constant_value(constant)
        return known
    return constant_value(constant)


def _e_Name(frame: Frame, node: ast.Name) -> Value:
    value = frame.scope.find(node.id, node)
    if value is None:
        return frame.scope.unseen_name(node) if frame.module.stars else EMPTY
    if frame.function is None:
        # A history the module's own code trims, read by that code: a script run again on
        # each interaction (Streamlit) or looping at its top level sends what was cut.
        trims = frame.a.trimmed(frame.module)
        trim = trims.get(node.id) if trims else None
        if trim is not None:
            return windowed(frame.module, value, trim)
    if value.kind == "module":
        return _request_data(frame, value, node)
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
        taint = frame.taint(PER_REQUEST, f"`{slot.name}` (per-request parameter)", node)
        deps.add(replace(taint, param=slot.name))
        return Value(deps=frozenset(deps), pieces=(frozenset(deps),))
    return value


def _request_data(frame: Frame, value: Value, node: ast.expr) -> Value:
    """An outside name that is the incoming request (`flask.request`, `sys.argv`: declared in
    `frameworks/`): per-request data, and so is anything read from it."""
    source = request_name(value.meta) if isinstance(value.meta, str) else None
    if source is None:
        return value
    label = f"`{node_label(frame.module, node)}` ({source.what})"
    deps = frozenset({frame.taint(PER_REQUEST, label, node)})
    return Value(deps=deps, pieces=(deps,))


def _e_JoinedStr(frame: Frame, node: ast.JoinedStr) -> Value:
    item = frame.item_text is node
    parts = [
        written(frame, evaluate(frame, v.value), v.value, item=item)
        if isinstance(v, ast.FormattedValue)
        else evaluate(frame, v)
        for v in node.values
    ]
    return string(frame, parts)


def written(frame: Frame, value: Value, node: ast.expr, *, item: bool = False) -> Value:
    """`value` placed into text at `node` (an f-string's `{...}`, a `.format()` call): its
    variation made on another line of this module remembers this first place, where the fix
    goes; `item`: the text is one item of a list, whose own place in a text, if it is given
    one, is the place instead."""
    if not value.deps:
        return value
    return written_at(value, frame.module.display, node.lineno, item=item)


def _e_FormattedValue(frame: Frame, node: ast.FormattedValue) -> Value:
    return evaluate(frame, node.value)


def string(frame: Frame, parts: Sequence[Value]) -> Value:
    deps = frozenset().union(*(p.deps for p in parts)) if parts else frozenset()
    # A part the analysis knows nothing about (`from prompts import SYSTEM_PROMPT`, the
    # result of a library call) is text of unknown length: an empty piece keeps its place,
    # so the text around a value is not taken as nothing.
    parts = [_UNKNOWN_TEXT if _unknown(p) else p for p in parts]
    return Value(deps=deps, pieces=concat_pieces(parts), kind="str", fixed=True)


def _e_BinOp(frame: Frame, node: ast.BinOp) -> Value:
    # `a + b + c + ...` nests on the left, one level per operand: walk such a chain in a
    # loop, so a long concatenation is followed whole rather than cut off at _MAX_DEPTH.
    chain = [node]
    while isinstance(chain[-1].left, ast.BinOp) and type(chain[-1].left.op) is type(node.op):
        chain.append(chain[-1].left)
    value = evaluate(frame, chain[-1].left)
    for link in reversed(chain):
        value = binop(frame, link.op, value, evaluate(frame, link.right), link)
    return value


def binop(frame: Frame, op: ast.operator, left: Value, right: Value, node: ast.AST) -> Value:
    if isinstance(op, ast.Add):
        if left.pieces is not None or right.pieces is not None or "str" in (left.kind, right.kind):
            # What is added to a text is written into it here (as in an f-string's `{...}`),
            # where a fix would move it (`_added_text`); the text it is added to was written
            # where it was made (`message += ...` extends it), unless it is a bare value
            # (`question + RULES`).
            right = _added_text(frame, right, node)
            line = getattr(node, "lineno", 0)
            if line and not _has_text(left):
                left = written_at(left, frame.module.display, line)
            return string(frame, [left, right])
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
        return percent(frame, left.text, right)
    if isinstance(op, ast.BitOr | ast.Sub | ast.BitAnd | ast.BitXor) and "set" in (
        left.kind,
        right.kind,
    ):
        # Strings in, strings out: a difference or intersection keeps only the left's.
        strings = _string_set(left) and (isinstance(op, ast.Sub | ast.BitAnd) or _string_set(right))
        return Value(deps=left.deps | right.deps, kind="set", meta=strings)
    if isinstance(op, ast.BitOr) and left.kind in ("ptemplate", "chain"):
        return Value(deps=left.deps | right.deps, kind="chain", meta=left.meta)
    if isinstance(op, ast.BitOr) and right.kind == "ptemplate" and left.fields is not None:
        # `{"time": lambda _: now(), ...} | prompt` (or a RunnableMap): each callable is
        # called on every invoke, and what it returns fills the template's variable.
        called = tuple((k, frame.call_value(v, node)) for k, v in left.fields)
        frame.template_variables(right.meta, Value(fields=called), node)
        return Value(deps=left.deps | right.deps, kind="chain", meta=right.meta)
    if isinstance(op, ast.BitOr) and left.fields is not None and right.fields is not None:
        return Value(deps=left.deps | right.deps, fields=dict_fields(left.fields + right.fields))
    if isinstance(op, ast.BitOr) and left.fields is not None and frame.function is not None:
        # `{"context": retriever, ...} | prompt` of a template handed in: filled at each call.
        pipe_into(frame, tuple((k, frame.call_value(v, node)) for k, v in left.fields), right)
    return join_values([left, right])


def _has_text(value: Value) -> bool:
    return any(isinstance(p, str) and p for p in value.pieces or ())


def _added_text(frame: Frame, right: Value, node: ast.AST) -> Value:
    """`system + "\\n\\n" + extra`, `prompt += notes`: a value added after a text enters that
    text here, unless a text it was written into before says so (an f-string, a `.format()`);
    a text it is written into later says so after it, as for one item of a list."""
    if not right.deps or not any(
        isinstance(d, Taint | Param) and (not d.written or d.written_item) for d in right.deps
    ):
        return right
    # The line of the added operand (a concatenation over several lines starts on its first).
    line = node.right.lineno if isinstance(node, ast.BinOp) else getattr(node, "lineno", 0)
    return written_at(right, frame.module.display, line, item=True)


def percent(frame: Frame, text: str, right: Value) -> Value:
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
    return string(frame, parts)


def _e_Dict(frame: Frame, node: ast.Dict) -> Value:
    in_list, frame.in_message_list = frame.in_message_list, False
    fields: list[tuple[str, Value]] = []
    deps: set[Dep] = set()
    known, fixed = True, True
    for key, item in zip(node.keys, node.values, strict=True):
        value = evaluate(frame, item)
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
            deps |= evaluate(frame, key).deps
            known, fixed = False, False
    result = Value(
        deps=frozenset(deps),
        fields=dict_fields(fields) if known else None,
        kind="dict",
        fixed=fixed,
    )
    # An element of a list literal is judged by the turns after it; one appended to a history
    # the function grows is the newest turn of that conversation.
    if (
        not in_list
        and not _kept_turn(frame, result, node)
        and not _appended_and_sent(frame, result, node)
    ):
        frame.findings.system_message(result, node)
    return result


def _e_List(frame: Frame, node: ast.List | ast.Tuple) -> Value:
    outer = frame.message_element  # a list inside an element's call: that element stays one
    items = []
    for element in node.elts:
        if isinstance(element, ast.Starred):
            items.append(replace(evaluate(frame, element.value).opaque(), spliced=True))
        else:
            frame.in_message_list = isinstance(element, ast.Dict)
            frame.message_element = element if isinstance(element, ast.Call) else None
            items.append(evaluate(frame, element))
            frame.in_message_list = False
            frame.message_element = None
    frame.message_element = outer
    for index, element in enumerate(node.elts):
        if isinstance(element, ast.Dict) or (
            is_message_call(element) and items[index].field("role") is not None
        ):
            if index == len(items) - 1 and _grown_and_sent(frame, items[index], node):
                continue  # judged where the list is sent, with the turns appended to it
            frame.findings.system_message(items[index], element, items[index + 1 :])
        elif isinstance(element, ast.Call) and items[index].kind == "message":
            # A `SystemMessage(...)` made here is judged here, once, as a `SystemMessage` made
            # apart is where it is made: the list keeps the message, not its content again.
            frame.findings.system_message(items[index], element, items[index + 1 :])
            items[index] = _MESSAGE
    deps = frozenset().union(*(i.deps for i in items)) if items else frozenset()
    fixed = all(i.fixed or not (i.fields or i.items) for i in items)
    result = Value(deps=deps, items=tuple(items), kind="list", fixed=fixed)
    if isinstance(node, ast.Tuple) and len(items) == 2 and items[0].text in ("system", "developer"):
        frame.findings.sink_value("system message tuple", "system", items[1], node)
    return result


_e_Tuple = _e_List


def _e_Set(frame: Frame, node: ast.Set) -> Value:
    return Value(
        deps=join_values(evaluate(frame, e) for e in node.elts).deps,
        kind="set",
        meta=all_str(node.elts),
    )


def _e_IfExp(frame: Frame, node: ast.IfExp) -> Value:
    evaluate(frame, node.test)
    return merge(evaluate(frame, node.body), evaluate(frame, node.orelse))


def _e_BoolOp(frame: Frame, node: ast.BoolOp) -> Value:
    return merge_all([evaluate(frame, v) for v in node.values])


def _e_Compare(frame: Frame, node: ast.Compare) -> Value:
    evaluate(frame, node.left)
    return EMPTY


def _e_Await(frame: Frame, node: ast.Await) -> Value:
    return evaluate(frame, node.value)


def _e_NamedExpr(frame: Frame, node: ast.NamedExpr) -> Value:
    value = evaluate(frame, node.value)
    frame.assign(node.target, value)
    return value


def _e_Starred(frame: Frame, node: ast.Starred) -> Value:
    return replace(evaluate(frame, node.value).opaque(), spliced=True)


def _e_Lambda(frame: Frame, node: ast.Lambda) -> Value:
    return Value(
        kind="lambda", meta=Function(module=frame.module, node=node, outer=dict(frame.scope.env))
    )


def _e_Attribute(frame: Frame, node: ast.Attribute) -> Value:
    value = _attribute(frame, node)
    trims = frame.a.trimmed(frame.module)
    trim = trims.get(dotted(node)) if trims else None  # most modules trim no shared history
    return value if trim is None else windowed(frame.module, value, trim)


def _attribute(frame: Frame, node: ast.Attribute) -> Value:
    base = evaluate(frame, node.value)
    if base.kind == "module" and isinstance(base.meta, str):
        return _request_data(frame, frame.scope.imported(f"{base.meta}.{node.attr}"), node)
    if base.kind == "instance" and isinstance(base.meta, ClassInfo):
        cls: ClassInfo = base.meta
        made = base.field(node.attr)  # what this instance was made with (`Bot(notes).notes`)
        if made is not None:
            return made
        if (
            f"frame.{node.attr}" in frame.scope.env
            and isinstance(node.value, ast.Name)
            and frame.scope.is_self(node.value.id)
        ):
            return frame.scope.env[f"frame.{node.attr}"]
        attrs = frame.a.class_attrs(cls)
        if node.attr in attrs:
            return instance_part(frame, node, attrs[node.attr])
        method = method_of(frame.a, cls, node.attr)  # its own, or a project base class's
        if method is not None:
            return Value(kind="method", meta=(method, base))
    if base.deps and senders_system_prompt(node.attr):  # `body.system_prompt`
        return senders_part(base, node.attr)
    if base.kind == "class" and isinstance(base.meta, ClassInfo):
        # `Config.started`: an attribute the class body computes, once, when the module is
        # imported (a clock there is the process's start, different in every process).
        found = base.meta.attrs.get(node.attr)
        if found is not None and _in_class_body(base.meta.node, node.attr):
            return found
        # `Service.get_history`, handed on as a value (`partial(Service.get_history, ...)`): a
        # static method is a plain function, a class method is bound to the class.
        method = method_of(frame.a, base.meta, node.attr)
        if method is not None and isinstance(method.node, ast.FunctionDef | ast.AsyncFunctionDef):
            decorators = {getattr(d, "id", "") for d in method.node.decorator_list}
            if "classmethod" in decorators:
                return Value(kind="method", meta=(method, base))
            if "staticmethod" in decorators:
                return Value(kind="function", meta=method)
    # A parameter's attribute is that part of it (`ctx.notes`), resolved at each call: an
    # instance made there with its fields gives just that field.
    deps = deps_at_key(base.deps, node.attr)
    if frame.a.per_request_attribute(node.attr):
        deps.add(
            frame.taint(PER_REQUEST, f"`{node_label(frame.module, node)}` (per-request data)", node)
        )
    return Value(deps=frozenset(deps)) if deps else EMPTY


def _in_class_body(node: ast.ClassDef, name: str) -> bool:
    for statement in node.body:
        targets = statement.targets if isinstance(statement, ast.Assign) else []
        if isinstance(statement, ast.AnnAssign):
            targets = [statement.target]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return True
    return False


def _e_Subscript(frame: Frame, node: ast.Subscript) -> Value:
    base = evaluate(frame, node.value)
    key = node.slice
    if isinstance(key, ast.Slice) and (
        is_history_window(node)
        or (type(key.lower) is ast.Name and is_named_window(node, body_of(frame)))
        or is_drawn_window(node, body_of(frame))
    ):
        label = f"`{node_label(frame.module, node)}` (a sliding window of the history)"
        return Value(deps=base.deps | {frame.taint(WINDOW, label, node)}, kind="list")
    if isinstance(key, ast.Slice) and descending_slice(node, where_made(frame)):
        label = f"`{node_label(frame.module, node)}` (reads the newest turns of a stored history)"
        return Value(deps=base.deps | {frame.taint(WINDOW, label, node)}, kind="list")
    if isinstance(key, ast.Constant):
        if isinstance(key.value, str):
            found = base.field(key.value)
            if found is not None:
                return found
            base = unnamed_part(base, key.value)
            if senders_system_prompt(key.value):
                return senders_part(base, key.value)
            # `params["system"]` of a parameter is that part of it, resolved at each call.
            deps = deps_at_key(base.deps, key.value)
            if frame.a.per_request(key.value):
                deps.add(
                    frame.taint(
                        PER_REQUEST,
                        f"`{node_label(frame.module, node)}` (per-request data)",
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
    elif is_newest_turn(node) and (base.items is None or any(i.spliced for i in base.items)):
        label = f"`{node_label(frame.module, node)}` ({NEWEST_TURN})"
        newest = base.deps | {frame.taint(PER_REQUEST, label, node)}
        return Value(deps=newest, pieces=(newest,))
    if isinstance(key, ast.Slice):
        return Value(deps=base.deps) if base.deps else EMPTY
    extra = evaluate(frame, key)
    kept = _elements(base.deps) if _int_index(key) else base.deps
    return Value(deps=kept | extra.deps) if (kept or extra.deps) else EMPTY


def _int_index(key: ast.expr) -> bool:
    """`0`, `-2`: a position in a list (a key of a dict of histories, `log[uid]`, is not)."""
    if isinstance(key, ast.UnaryOp) and isinstance(key.op, ast.USub):
        key = key.operand
    return isinstance(key, ast.Constant) and type(key.value) is int


def _elements(deps: frozenset[Dep]) -> frozenset[Dep]:
    """`deps` of one item indexed out of a value (`recent[0]`): a window of the history among
    them is marked as one of its turns, not the window written out."""
    if not any(isinstance(d, Taint) and d.code == WINDOW and not d.element for d in deps):
        return deps
    return frozenset(
        replace(d, element=True) if isinstance(d, Taint) and d.code == WINDOW else d for d in deps
    )


def _e_ListComp(frame: Frame, node: ast.ListComp | ast.GeneratorExp) -> Value:
    _, value, _, _, ordered = comprehension(frame, node)
    # Key order: each element's, fixed when it is a literal of the code (its keys are written
    # in order, whatever the list iterates) or when the list goes over a literal of the code.
    fixed = value.fixed or (ordered and _fixed_order(value))
    return Value(deps=value.deps, kind="list", spliced=True, fixed=fixed)


_e_GeneratorExp = _e_ListComp


def _e_SetComp(frame: Frame, node: ast.SetComp) -> Value:
    _, value, _, _, _ = comprehension(frame, node)
    # A set of strings (f-strings, literals) sorts without error: `--fix` may sort it.
    return Value(deps=value.deps, kind="set", meta=all_str([node.elt]))


def _e_DictComp(frame: Frame, node: ast.DictComp) -> Value:
    key, value, unordered, fix, ordered = comprehension(frame, node)
    # `meta`: where `--fix` sorts the set it is built from, when that is safe
    return Value(
        deps=key.deps | value.deps,
        kind="udict" if unordered else "dict",
        meta=fix,
        fixed=ordered and not unordered and _fixed_order(value),
    )


def _grown_and_sent(frame: Frame, message: Value, node: ast.List | ast.Tuple) -> bool:
    """A system message ending a list its function grows and sends itself (`_local_lists`)."""
    role = message.field("role")
    if role is None or role.text not in ("system", "developer") or frame.function is None:
        return False
    return isinstance(node, ast.List) and sent_where_grown(frame.function.node, node)


def _appended_and_sent(frame: Frame, message: Value, node: ast.Dict) -> bool:
    """A system message appended to a list its function makes and sends (`_local_lists`):
    judged where the list is sent, with the turns after it."""
    role = message.field("role")
    if role is None or role.text not in ("system", "developer") or frame.function is None:
        return False
    return appended_where_sent(frame.function.node, node)


def _kept_turn(frame: Frame, message: Value, node: ast.Dict) -> bool:
    """A system message appended to a history the function does not make (`kept_turn`)."""
    role = message.field("role")
    if role is None or role.text not in ("system", "developer"):
        return False
    return kept_turn(frame, message, node)


def _fixed_order(value: Value) -> bool:
    """Whether `value`, an element of a literal, keeps its key order (as `_e_Dict` asks)."""
    return value.fixed or not (
        value.fields or value.items or value.kind in ("dict", "udict", "set")
    )


_EXPRESSIONS: dict[type, Callable[[Frame, ast.expr], Value]] = {
    getattr(ast, name[3:]): handler
    for name, handler in list(globals().items())
    if name.startswith("_e_") and hasattr(ast, name[3:])
}
# Each handler takes the node type it is registered for (the dispatch is by that type).
_EXPRESSIONS[ast.Call] = cast("Callable[[Frame, ast.expr], Value]", call_expression)


def _string_set(value: Value) -> bool:
    """A set known to hold only strings (`--fix` may sort it)."""
    return value.kind == "set" and value.meta is True


def _unknown(value: Value) -> bool:
    return not value.deps and value.pieces is None and value.items is None and value.fields is None
