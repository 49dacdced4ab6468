"""
Prompt templates whose fill the project never shows: a LangChain (or LlamaIndex) template made
and bound to a name (a module constant, an attribute, what a function returns) that nothing in
the project reads again: no `.invoke`, `.format`, `.partial`, pipe or chain of it in its module,
and no other file of the project naming it. The app that fills it lies elsewhere (another
repository, a service that imports the package), so no value ever reaches its variables and the
template rules (`_templates`) would say nothing. Its variables are judged where they are written
instead, by their names: one named as per-request data (`{question}`, `{user_profile}`) as the
per-request data it is (PC502); one whose name says it is a setting (`{language}`, `{persona}`,
a name declared `stable`) not at all; any other as of unknown meaning (PC508, opt-in, with the
long block of static text after it that PC106 asks of a template's variable).

Only the variables a cacheable prefix is built of are judged: those of a chat template's system
messages, and those of a single template's text (a `PromptTemplate`, a system message template).
A template read anywhere (its fill seen, or handed on where the analysis may not follow it), a
project whose files could not all be read, and a template made inside another call (handed on
as it is made) are left as the template rules judge them.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from ..rules.PC106 import LONG_PREFIX_FACTOR
from ._placeholders import Slot
from ._templates import static_of, template_variables
from ._unknown_origin import says_stable
from ._values import EMPTY, PER_REQUEST, Value

if TYPE_CHECKING:
    from ._frame import Frame
    from ._sinks import Sink

__all__ = ["unseen_fill"]

UNKNOWN = "PC508"
# The templates judged here: where each variable lands is known from the call that makes it.
_TEMPLATES = frozenset(
    {
        "LangChain chat prompt template",
        "LangChain prompt template",
        "LangChain system message template",
    }
)
_FIELD = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")
_SYSTEM_ROLES = frozenset({"system", "developer"})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def unseen_fill(
    frame: Frame,
    sink: Sink,
    node: ast.Call,
    args: list[Value],
    keywords: dict[str, Value],
    info: dict[str, Slot],
) -> None:
    """At the call that makes a template (`info`: where each variable lands), when the project
    never reads it again, its prefix variables are judged by their names where they are written."""
    if sink.api not in _TEMPLATES or not info:
        return
    slots = _prefix_slots(sink, args, keywords, info)
    if not slots or _fill_may_be_seen(frame, node):
        return
    long_prefix = max(frame.a.config.threshold, 1) * LONG_PREFIX_FACTOR * 4  # in characters
    asks = frame.a.config.enabled(UNKNOWN)
    fields = []
    for name, slot in slots.items():
        if frame.a.per_request(name):
            label = f"`{{{name}}}` (a per-request template variable; no fill of it seen)"
            code = PER_REQUEST
        elif frame.a.stable(name) or says_stable(name):
            continue
        elif asks and (slot.role == "system" or slot.after >= long_prefix):
            label = f"`{{{name}}}` (a template variable of unknown meaning; no fill of it seen)"
            code = UNKNOWN
        else:
            continue
        fields.append((name, EMPTY.with_deps([frame.taint(code, label, node)])))
    if fields:
        template_variables(frame, slots, Value(fields=tuple(fields)), node, api=sink.api)


def _prefix_slots(
    sink: Sink, args: list[Value], keywords: dict[str, Value], info: dict[str, Slot]
) -> dict[str, Slot]:
    """The variables a prefix is built of: a chat template's system messages' (a system message
    template's among them), a single template's all; none a partial fills as it is made."""
    filled = keywords.get("partial_variables", EMPTY).fields or ()
    kept = {k: v for k, v in info.items() if v.role != "placeholder"}
    for name, _ in filled:
        kept.pop(name, None)
    if sink.api != "LangChain chat prompt template":
        return kept
    specs = (args[0] if args else keywords.get("messages", EMPTY)).items or ()
    names: set[str] = set()
    for spec in specs:
        if spec.items is not None and len(spec.items) == 2:
            if spec.items[0].text in _SYSTEM_ROLES:
                names.update(_FIELD.findall(static_of(spec.items[1])))
        elif isinstance(spec.meta, dict):
            names.update(k for k, slot in spec.meta.items() if slot.role == "system")
    return {k: v for k, v in kept.items() if k in names}


def _fill_may_be_seen(frame: Frame, node: ast.Call) -> bool:
    """Whether the project may fill the template made at `node`: it is not bound to a name as
    it is made (handed on, piped, partially filled, kept in a container), its name is read in
    its module, another file of the project names it, or the project's files could not all be
    read. A template linted from text alone has no other files."""
    bound = _bound_name(frame, node)
    if bound is None:
        return True
    name, scope = bound
    if _reads(scope, frame.module.source, name):
        return True
    module = frame.module
    if module.path is None or not module.path.is_file():
        return False
    return frame.a.call_sites.mentions(name, module.path) is not False


def _bound_name(frame: Frame, node: ast.Call) -> tuple[str, ast.AST] | None:
    """The name the template made at `node` is known by, and where it is read: a module's (or a
    class's) constant, an attribute, or the function that returns it (a local variable only
    returned is its function's); None when the call is not the whole value of an assignment or
    a return, or binds a local variable read otherwise (its reads are followed as they are)."""
    function = frame.function.node if frame.function is not None else None
    if function is not None and not isinstance(function, _FUNCTIONS):
        return None  # a lambda's body: handed to whatever calls it
    tree = frame.module.tree
    statement = _statement_of(function or tree, node)
    if isinstance(statement, ast.Return):
        return (function.name, tree) if function is not None else None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target: ast.expr = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign):
        target = statement.target
    else:
        return None
    if isinstance(target, ast.Attribute):
        return target.attr, tree
    if not isinstance(target, ast.Name):
        return None
    if function is None:
        return target.id, tree
    if _only_returned(function, target.id):
        return function.name, tree
    return None


def _statement_of(scope: ast.AST, node: ast.Call) -> ast.stmt | None:
    for found in ast.walk(scope):
        if isinstance(found, ast.Assign | ast.AnnAssign | ast.Return) and found.value is node:
            return found
    return None


def _only_returned(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether the function's every read of local `name` is a `return name` (none: dead)."""
    reads = [
        n
        for n in ast.walk(function)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    ]
    returned = {
        id(n.value) for n in ast.walk(function) if isinstance(n, ast.Return) and n.value is not None
    }
    return bool(reads) and all(id(n) in returned for n in reads)


def _reads(scope: ast.AST, source: str, name: str) -> bool:
    """Whether `scope` reads `name` (`name`, `x.name`). Only the lines that write it are walked."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    lines = {n for n, text in enumerate(source.splitlines(), start=1) if word.search(text)}
    if not lines:
        return False
    todo: list[ast.AST] = [scope]
    while todo:
        for child in ast.iter_child_nodes(todo.pop()):
            first = getattr(child, "lineno", None)
            if first is not None:
                last = getattr(child, "end_lineno", None) or first
                if not any(first <= n <= last for n in lines):
                    continue
            if _read_as(child) == name:
                return True
            todo.append(child)
    return False


def _read_as(node: ast.AST) -> str | None:
    """The name a `name` or `x.name` read is of (None: not such a read)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return node.attr
    return None
