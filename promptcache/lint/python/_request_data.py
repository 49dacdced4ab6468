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

from ..rules.PC508 import STABLE_WORDS
from ._knowledge import DataSource
from ._walk import walk
from .frameworks import FRAMEWORKS

__all__ = [
    "DATA_SOURCES",
    "NEWEST_TURN",
    "SYSTEM_NAME",
    "data_call",
    "data_method",
    "handler_names",
    "handler_parameters",
    "imports_one",
    "injected",
    "request_name",
    "senders_system_prompt",
    "sent_as_user_turn",
    "system_named",
]

DATA_SOURCES: tuple[DataSource, ...] = tuple(
    source for framework in FRAMEWORKS for source in framework.data
)
# Names that say "this is the system prompt" (a variable, attribute, function or key).
SYSTEM_NAME = re.compile(
    r"(?i)^_*(?:\w*_)?(?:system_?prompt|system_?message|system_?instructions?|sys_?prompt|sys_?msg)(?:_\w*)?$"
)


@lru_cache(maxsize=4096)  # asked of every name bound to a varying value: a project's few names
def system_named(name: str) -> bool:
    """Whether `name` says "this is the system prompt" (`SYSTEM_NAME`; its case-blind `\\w*`
    backtracks, at a few microseconds a name)."""
    return SYSTEM_NAME.match(name) is not None


# How a finding names the newest turn read out of a conversation (`messages[-1]["content"]`).
NEWEST_TURN = "the newest turn of the conversation"
# Defaults of a handler's parameters that a framework fills from its own setup, not from the
# request (FastAPI's dependencies: a database session, the settings).
_INJECTED = frozenset({"Depends", "Security", "Inject", "Provide"})
# The types of a graph node's or runnable's configuration parameter (not the run's data).
_RUN_CONFIGS = frozenset({"RunnableConfig", "Runtime"})


def _glob(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    if not patterns:
        return None
    return re.compile("|".join(fnmatch.translate(p) for p in patterns))


_CALLS = tuple((s, _glob(s.calls)) for s in DATA_SOURCES if s.calls)
_METHODS = {method: s for s in reversed(DATA_SOURCES) for method in s.methods}
_NAMES = tuple((s, _glob(s.names)) for s in DATA_SOURCES if s.names)
# Handlers' decorators, with the source they belong to; those of a framework listed with
# `imported` count only in a module importing it (`@bot.message_handler`, `@client.event`:
# names other libraries use too). Ungated ones first, as the first match decides.
_HANDLER_SOURCES = tuple(
    (s, pattern)
    for s in sorted((s for s in DATA_SOURCES if s.handlers), key=lambda s: bool(s.imported))
    if (pattern := _glob(s.handlers)) is not None
)
_SIGNATURES = tuple(signature for s in DATA_SOURCES for signature in s.signatures)
_REQUEST_TYPES = frozenset(t for s in DATA_SOURCES for t in s.types)
_REGISTRATIONS = tuple(
    (_glob(s.registrations), s.first_only, s.imported) for s in DATA_SOURCES if s.registrations
)
# The last names of the registering calls (`add_node`, `ChatInterface`): a module that writes
# none of them registers no handler, and its tree is not walked for one.
_REGISTERING = tuple(r.rpartition(".")[2] + "(" for s in DATA_SOURCES for r in s.registrations)


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


def handler_parameters(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
    imports: dict[str, str],
    registered: dict[str, bool],
    method: bool,
) -> tuple[frozenset[str], frozenset[str]]:
    """
    The parameters of a request handler that hold the request's data, and those its framework
    fills with its own objects (python-telegram-bot's `context`, Slack Bolt's `say`, a Lambda's
    runtime `context`: not per-request data whatever they are named). A handler is a function
    decorated as one or registered with one by name (`gr.ChatInterface(respond)`), whose every
    parameter is the request's but what the framework injects; one with a handler's signature
    (`(event, context)`: AWS Lambda), whose first is; a graph's node (registered with
    `add_node`, or typed as taking a `...State`), whose state is. A parameter typed as the
    incoming request (`req: func.HttpRequest`) is one wherever it is. `method`: its first
    parameter is `self`.
    """
    if isinstance(node, ast.Lambda):
        return _NONE
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    states = [a.arg for a in positional if _type_name(a.annotation).endswith("State")]
    if states:
        return frozenset(states), frozenset()
    if not node.decorator_list and node.name not in registered:  # most functions: quick
        return _plain_function(positional[1 if method else 0 :], args)
    every = [
        *zip(
            positional,
            [None] * (len(positional) - len(args.defaults)) + list(args.defaults),
            strict=True,
        ),
        *zip(args.kwonlyargs, args.kw_defaults, strict=True),
        *((a, None) for a in (args.vararg, args.kwarg) if a is not None),
    ][1 if method else 0 :]
    typed = frozenset(a.arg for a, _ in every if _type_name(a.annotation) in _REQUEST_TYPES)
    first_only = registered.get(node.name)
    if first_only is not None:  # registered by a call: only the first is the request's
        if first_only:
            given = frozenset(a.arg for a, _ in every[1:])
            return frozenset(a.arg for a, _ in every[:1]) | typed, given - typed
        return frozenset(a.arg for a, d in every if not injected(a, d)) | typed, frozenset()
    source = _handler_source(node, imports)
    if source is None:  # decorated, but by no framework's handler decorator
        return _plain_function(positional[1 if method else 0 :], args)
    given = frozenset(source.given)
    data = frozenset(
        a.arg
        for a, default in every
        if not injected(a, default) and a.arg not in given and not _a_setting(a.arg)
    )
    return data | typed, given - typed


def _plain_function(
    positional: list[ast.arg], args: ast.arguments
) -> tuple[frozenset[str], frozenset[str]]:
    """A function neither decorated nor registered: a handler by its signature (`(event,
    context)`: the event is the request's, the rest the runtime's), and its parameters typed as
    the incoming request."""
    names = tuple(a.arg for a in positional)
    typed = frozenset(
        a.arg
        for a in (*positional, *args.kwonlyargs)
        if a.annotation is not None and _type_name(a.annotation) in _REQUEST_TYPES
    )
    if names and any(names[: len(s)] == s for s in _SIGNATURES):
        return frozenset(names[:1]) | typed, frozenset(names[1:]) - typed
    return (typed, frozenset()) if typed else _NONE


def _a_setting(name: str) -> bool:
    """A handler's parameter named as a setting its caller keeps for the conversation (the
    system prompt, the language, the persona, the model: a task queue's job carries them with
    its data), not data of the request itself."""
    words = {w.lower() for w in _WORDS.findall(name)}
    return system_named(name) or bool(words & _SETTING_WORDS)


# Words of a setting's name (PC508's, but for those that also name the request's own text: a
# handler's `prompt` or `instruction` is the user's).
_SETTING_WORDS = STABLE_WORDS - {"prompt", "instruction", "instructions", "name", "format"}
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


_NONE: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())


def _handler_source(
    node: ast.FunctionDef | ast.AsyncFunctionDef, imports: dict[str, str]
) -> DataSource | None:
    """The source whose decorator makes `node` a framework's request handler (`@app.post(...)`;
    `@bot.message_handler(...)` only in a module importing the bot's library), if any."""
    if not node.decorator_list:
        return None
    names = [
        _dotted(d.func if isinstance(d, ast.Call) else d, imports) for d in node.decorator_list
    ]
    for source, pattern in _HANDLER_SOURCES:
        if source.imported and not imports_one(imports, source.imported):
            continue
        if any(map(pattern.match, names)):
            return source
    return None


def imports_one(imports: dict[str, str], packages: tuple[str, ...]) -> bool:
    """Whether the module's `imports` (alias -> dotted name) name one of `packages`."""
    return any(d == m or d.startswith(m + ".") for d in imports.values() for m in packages)


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


def handler_names(tree: ast.Module, imports: dict[str, str], source: str) -> dict[str, bool]:
    """The functions a module registers as handlers (by a call, not a decorator), by name:
    whether only their first parameter is the request's data (a graph node's state)."""
    names: dict[str, bool] = {}
    sources = [
        (pattern, first_only)
        for pattern, first_only, imported in _REGISTRATIONS
        if not imported or imports_one(imports, imported)
    ]
    if not sources or not any(word in source for word in _REGISTERING):
        return names
    for node in walk(tree):
        if not isinstance(node, ast.Call):
            continue
        called = _dotted(node.func, imports)
        for pattern, first_only in sources:
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


# A name sent as the content of a user's turn, as code writes it: `{"role": "user", "content":
# text}` (either order; Gemini's `"parts": [text]`), `HumanMessage(content=text)`,
# `("user", text)`. Read from the text (a regex runs in C; walking every function's tree did not
# pay for itself): a name so written is the user's message in the function it is written in.
# The lookahead first names the characters a match can start with: the `\b` of one alternative
# leaves the engine no such set, and it then tried every alternative at every character (2.5x
# slower on real request-building modules).
_USER_TURN = re.compile(
    r"""(?=[HUC'"(])"""  # a match starts with one of these
    r"""(?:['"]role['"]\s*:\s*['"](?:user|human)['"]\s*,\s*['"](?:content|parts)['"]\s*:\s*"""
    r"""(?:\[\s*(?:\{\s*['"]text['"]\s*:\s*)?)?(?P<a>[A-Za-z_]\w*)\s*[,}\]]"""
    r"""|['"](?:content|parts)['"]\s*:\s*(?:\[\s*)?(?P<b>[A-Za-z_]\w*)\s*\]?\s*,\s*['"]role['"]"""
    r"""\s*:\s*['"](?:user|human)['"]"""
    r"""|\b(?:HumanMessage|UserMessage|ChatMessageUser)\(\s*(?:content\s*=\s*)?"""
    r"""(?P<c>[A-Za-z_]\w*)\s*[,)]"""
    r"""|\(\s*['"](?:user|human)['"]\s*,\s*(?P<d>[A-Za-z_]\w*)\s*\))"""
)


@lru_cache(maxsize=64)  # asked once per function: a string's hash is kept, so this is cheap
def _user_turns(source: str) -> tuple[tuple[int, str], ...]:
    """Where a module's text sends a name as a user's turn: (line, name) pairs."""
    found: list[tuple[int, str]] = []
    line, counted = 1, 0
    for match in _USER_TURN.finditer(source):
        line += source.count("\n", counted, match.start())  # counted once, match to match
        counted = match.start()
        name = match.group("a") or match.group("b") or match.group("c") or match.group("d")
        found.append((line, name))
    return tuple(found)


def sent_as_user_turn(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, source: str
) -> frozenset[str]:
    """
    The names a function (in a module of text `source`) sends as the content of a user's turn:
    what the code itself says is the user's message is this request's data, whatever it is
    named.
    """
    if isinstance(node, ast.Lambda):
        return frozenset()
    first, last = node.lineno, node.end_lineno or node.lineno
    return frozenset(name for line, name in _user_turns(source) if first <= line <= last)


def senders_system_prompt(key: str) -> bool:
    """Whether a key read out of request data names a system prompt (`data["system_prompt"]`):
    the one its sender keeps for the whole conversation (a client of a chat service, an app
    calling a proxy), so its per-request origin says nothing about it changing per request."""
    return system_named(key)
