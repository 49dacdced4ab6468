"""
Where per-request data comes from, as the framework modules declare it (`DataSource`): the
look-ups the analysis makes on calls, names and functions, memoised per process.

A value is per-request data when it is named so (`question`, `session_id`: `_sources`) or when
it is made by one of these: a model's answer, a retrieval, the newest turn of a conversation,
the incoming request of a web, UI or CLI app. The name of the variable that holds it
(`postman_reply`, `docs`, `profile`) says nothing either way.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from functools import lru_cache

from ._knowledge import DataSource
from .frameworks import FRAMEWORKS

__all__ = [
    "DATA_SOURCES",
    "NEWEST_TURN",
    "data_call",
    "data_method",
    "handler_names",
    "injected",
    "request_name",
    "request_parameters",
    "sent_as_user_turn",
]

DATA_SOURCES: tuple[DataSource, ...] = tuple(
    source for framework in FRAMEWORKS for source in framework.data
)
# How a finding names the newest turn read out of a conversation (`messages[-1]["content"]`).
NEWEST_TURN = "the newest turn of the conversation"
# Defaults of a handler's parameters that a framework fills from its own setup, not from the
# request (FastAPI's dependencies: a database session, the settings).
_INJECTED = frozenset({"Depends", "Security", "Inject", "Provide"})
# The types of a graph node's or runnable's configuration parameter (not the run's data).
_RUN_CONFIGS = frozenset({"RunnableConfig", "Runtime"})
# Roles and message classes of the user's turn.
_USER_ROLES = frozenset({"user", "human"})
_USER_MESSAGES = frozenset({"HumanMessage", "UserMessage", "ChatMessageUser"})


def _glob(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    return re.compile("|".join(fnmatch.translate(p) for p in patterns))


_CALLS = tuple((s, _glob(s.calls)) for s in DATA_SOURCES if s.calls)
_METHODS = {method: s for s in reversed(DATA_SOURCES) for method in s.methods}
_NAMES = tuple((s, _glob(s.names)) for s in DATA_SOURCES if s.names)
_HANDLERS = _glob(tuple(h for s in DATA_SOURCES for h in s.handlers))
_REGISTRATIONS = tuple(
    (_glob(s.registrations), s.first_only) for s in DATA_SOURCES if s.registrations
)


@lru_cache(maxsize=8192)
def data_call(name: str) -> DataSource | None:
    """The source a call to resolved `name` (a function, not a method) reads, if any."""
    for source, pattern in _CALLS:
        if pattern is not None and pattern.match(name):
            return source
    return None


def data_method(method: str) -> DataSource | None:
    """The source a method of this name reads, on an object the analysis cannot read."""
    return _METHODS.get(method)


@lru_cache(maxsize=8192)
def request_name(dotted: str) -> DataSource | None:
    """The source a resolved name is, or is read from (`flask.request.form`), if any."""
    for source, pattern in _NAMES:
        if pattern is not None and pattern.match(dotted):
            return source
    return None


def request_parameters(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
    imports: dict[str, str],
    registered: dict[str, bool],
    method: bool,
) -> frozenset[str]:
    """
    The parameters of a request handler that hold the request's data: every one of a
    function decorated as a handler or registered with one by name (`gr.ChatInterface(
    respond)`), but what the framework injects; only the state of a graph's node (registered
    with `add_node`, or typed as taking a `...State`). `method`: its first parameter is `self`.
    """
    if isinstance(node, ast.Lambda):
        return frozenset()
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    every = [
        *zip(positional, defaults, strict=True),
        *zip(args.kwonlyargs, args.kw_defaults, strict=True),
        *((a, None) for a in (args.vararg, args.kwarg) if a is not None),
    ][1 if method else 0 :]
    states = [a.arg for a, _ in every if _type_name(a.annotation).endswith("State")]
    first_only = registered.get(node.name)
    if states:
        return frozenset(states)
    if first_only:
        return frozenset(a.arg for a, _ in every[:1])
    decorated = _HANDLERS is not None and any(
        _HANDLERS.match(_dotted(d.func if isinstance(d, ast.Call) else d, imports))
        for d in node.decorator_list
    )
    if first_only is None and not decorated:
        return frozenset()
    return frozenset(a.arg for a, default in every if not injected(a, default))


def _type_name(annotation: ast.expr | None) -> str:
    if isinstance(annotation, ast.Name):
        return annotation.id
    if isinstance(annotation, ast.Attribute):
        return annotation.attr
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.rpartition(".")[2]
    return ""


def injected(arg: ast.arg, default: ast.expr | None) -> bool:
    """Whether a handler's parameter is filled by the framework's own setup, not the request:
    a dependency (`db = Depends(get_db)`), a runnable's config (`config: RunnableConfig`)."""
    if arg.arg == "config" or _type_name(arg.annotation) in _RUN_CONFIGS:
        return True
    if not isinstance(default, ast.Call):
        return False
    func = default.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in _INJECTED


def handler_names(tree: ast.Module, imports: dict[str, str]) -> dict[str, bool]:
    """The functions a module registers as handlers (by a call, not a decorator), by name:
    whether only their first parameter is the request's data (a graph node's state)."""
    names: dict[str, bool] = {}
    if not _REGISTRATIONS:
        return names
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = _dotted(node.func, imports)
        for pattern, first_only in _REGISTRATIONS:
            if pattern is None or not pattern.match(called):
                continue
            handed = [*node.args, *(k.value for k in node.keywords if k.arg in ("fn", "action"))]
            for given in handed:
                # `graph.add_node("plan", self.plan)`: a method, by its name
                name = given.id if isinstance(given, ast.Name) else getattr(given, "attr", None)
                if isinstance(name, str):
                    names[name] = names.get(name, True) and first_only
    return names


def _dotted(expr: ast.expr, imports: dict[str, str]) -> str:
    """`app.post` as written, its first name resolved through the imports (`cl.on_message`
    is `chainlit.on_message`); an instance's method keeps its local name (`router.post`)."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Call):
        return _dotted(expr.func, imports) + "()." + ".".join(reversed(parts))
    if not isinstance(expr, ast.Name):
        return "?"
    return ".".join([imports.get(expr.id, expr.id), *reversed(parts)])


def sent_as_user_turn(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> frozenset[str]:
    """
    The names a function sends as the content of a user's turn (`{"role": "user", "content":
    text}`, `HumanMessage(content=text)`, `("user", text)`, Gemini's `"parts": [text]`): what
    the code itself says is the user's message is this request's data, whatever it is named.
    Nested functions are their own.
    """
    if isinstance(node, ast.Lambda):
        return frozenset()
    names: set[str] = set()
    todo: list[ast.AST] = list(node.body)
    while todo:
        current = todo.pop()
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        names.update(_user_content(current))
        todo.extend(ast.iter_child_nodes(current))
    return frozenset(names)


def _user_content(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Dict):
        fields = {
            k.value: v
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        }
        role = fields.get("role")
        if not (isinstance(role, ast.Constant) and role.value in _USER_ROLES):
            return []
        content = fields.get("content", fields.get("parts"))
        return _names_in(content)
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in _USER_MESSAGES:
            given = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "content")]
            return [n for value in given for n in _names_in(value)]
    if isinstance(node, ast.Tuple) and len(node.elts) == 2:
        role, content = node.elts
        if isinstance(role, ast.Constant) and role.value in _USER_ROLES:
            return _names_in(content)
    return []


def _names_in(content: ast.expr | None) -> list[str]:
    """The plain names a turn's content is made of (`text`, `[text]`, `[{"text": text}]`)."""
    if isinstance(content, ast.Name):
        return [content.id]
    if isinstance(content, ast.List):
        found: list[str] = []
        for element in content.elts:
            if isinstance(element, ast.Name):
                found.append(element.id)
            elif isinstance(element, ast.Dict):
                found.extend(
                    v.id
                    for k, v in zip(element.keys, element.values, strict=True)
                    if isinstance(k, ast.Constant) and k.value == "text" and isinstance(v, ast.Name)
                )
        return found
    return []
