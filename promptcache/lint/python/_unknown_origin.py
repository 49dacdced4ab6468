"""
PC508: a parameter of unknown origin above a long system prompt or first turn.

A function's parameter that reaches the prefix is a `Pending` sink, resolved where the function
is called. Where no call in its own module fills it, nothing resolves it and the analysis says
nothing; this pass asks instead, when the parameter opens a long block of static instructions
(or the conversation follows it) and neither its name nor a constant default says it is stable.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from dataclasses import replace

from ..rules.PC106 import LONG_PREFIX_FACTOR
from ..rules.PC508 import STABLE_WORDS
from ._call_sites import NOT_CALLED, CallSites
from ._locations import node_location
from ._sinks import CONVERSATION_HOOKS
from ._summaries import Function, Hit, Pending
from ._values import PER_REQUEST, Taint

__all__ = ["builder_parameter_hits", "says_stable", "unknown_origin_hits"]

CODE = "PC508"
_QUOTED = re.compile(r"`([^`]+)`")  # the code a finding's label quotes
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# The methods of text, lists and dicts: a parameter they are called on is data.
_DATA_METHODS = frozenset(
    m for kind in (str, bytes, list, dict, tuple, set) for m in dir(kind) if not m.startswith("_")
)
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# Annotations of values that may come with a request (anything else annotated is an object).
_TEXT_TYPES = frozenset({"str", "Any", "dict", "Dict", "list", "List", "Mapping", "Sequence"})
_NOTE = "the analysis cannot tell whether it changes per request: {why}"
_NO_CALL = "no call in its module passes it"
# The system prompts judged where they are written, apart from the request they go into
# (`Findings.system_message`, the `("system", ...)` tuple of a chat prompt).
_MADE_APART = frozenset(
    {"system message", "developer message", "LangChain SystemMessage", "system message tuple"}
)


def unknown_origin_hits(
    functions: Iterable[Function],
    threshold: int,
    is_per_request: Callable[[str], bool],
    is_stable: Callable[[str], bool],
    call_sites: CallSites | None = None,
) -> list[Hit]:
    """The PC508 hits of a module's summarised functions (`threshold`: the config's tokens;
    `call_sites`: the project's files, read for calls in other modules)."""
    long_prefix = max(threshold, 1) * LONG_PREFIX_FACTOR * 4  # in characters, as `after` is
    hits: list[Hit] = []
    for function in functions:
        node = function.node
        if isinstance(node, ast.Lambda) or function.ret is None or not function.pending:
            continue
        arguments = _arguments(node)
        asked = []  # the cheap questions first: most parameters stop here
        for name, pendings in _by_parameter(function.pending).items():
            arg = arguments.get(name)
            if arg is None or is_per_request(name) or is_stable(name) or says_stable(name):
                continue  # per-request names are PC502's; stable ones are asked about nowhere
            seen = _as_the_request_sees_them(pendings)
            if any(_opens_prefix(p, long_prefix) for p in seen) and not _is_object(arg.annotation):
                asked.append((arg, pendings, seen))
        if not asked:
            continue
        if _read_in_its_module(function):
            continue
        reported = _reported_per_request(function)
        for arg, pendings, seen in asked:
            if _handed_the_conversation(function, arg):
                continue  # the framework's caller built it: judged there
            if arg.arg in reported:
                continue  # PC502 already says it is per-request (a run context, a run's inputs)
            if _only_a_receiver(node, arg.arg):
                continue  # an object the program set up (a store, a client), not text
            why = _NO_CALL if call_sites is None else _why_not_constant(function, arg, call_sites)
            if why is None:
                continue  # the project's calls show it is the same on every request
            hits.append(_hit(function, arg, _worded(pendings, seen, long_prefix), why))
    return hits


def builder_parameter_hits(
    functions: Iterable[Function],
    threshold: int,
    is_stable: Callable[[str], bool],
    call_sites: CallSites | None = None,
) -> list[Hit]:
    """
    PC502 hits for the parameters of functions no call in the project makes (called from code
    outside what is linted: a route, a worker, a CLI) that build a prompt from them:

    - a prompt builder's (`build_report_prompt(name, price)` in a prompts module): its
      parameters are what each prompt it builds is made from;
    - one whose parameter the function writes into the newest turn of a request it sends (the
      only user turn, or the last: `summarize(title, content)` formatting both into the user
      turn above the task's rules): the newest turn is the part of a request that is new on each
      call, and the parameter is what the function makes it from.

    One written above `threshold` tokens of static text costs that text on every call with other
    values. Quiet, as PC508 is: a system prompt builder (judged as a system prompt), a parameter
    with a constant default, a stable name, an object, one read or called in its module or called
    anywhere in the project (each call says what it passes), and shorter static text after it;
    in the newest turn, also a part of a parameter (`state["question"]`: a framework's state,
    judged by its own rules) and a parameter written into the system prompt instead (a setting
    as often as not: PC508's question, opt-in).
    """
    limit = max(threshold, 1) * 4  # in characters, as `after` is
    hits: list[Hit] = []
    for function in functions:
        node = function.node
        if isinstance(node, ast.Lambda) or function.ret is None or function.system:
            continue
        builder = bool(_PROMPT_BUILDER.match(node.name))
        arguments = _arguments(node)
        asked = []
        for name, pendings in _by_parameter(function.pending).items():
            arg = arguments.get(name)
            if arg is None or _is_object(arg.annotation) or name in function.sent_per_item:
                continue  # (a collection sent item by item: its loop's rules judge the items)
            sinks = [
                p
                for p in pendings
                if p.after >= limit
                and ((builder and p.role == "template") or (p.role == "last_turn" and not p.path))
            ]
            words = _BUILDER_STABLE_WORDS if builder else STABLE_WORDS
            if sinks and not (is_stable(name) or says_stable(name, words)):
                asked.append((arg, sinks))
        if not asked or _read_in_its_module(function):
            continue
        reported = _reported_per_request(function)
        for arg, sinks in asked:
            if arg.arg in reported or _only_a_receiver(node, arg.arg):
                continue
            shown = max(sinks, key=lambda p: p.after)
            if not builder and (_only_parts(node, arg.arg) or _said(function, shown)):
                continue
            if call_sites is not None and not _never_called(function, arg, call_sites):
                continue
            hits.append(_builder_hit(function, arg, shown, builder))
    return hits


# A name is a setting in a system prompt (the assistant's, the company's), but what a task's
# prompt is about in a prompt builder's (the product's, the file's, the person's): there it
# says nothing stable unless another word does (`agent_name`, `bot_name`).
_BUILDER_STABLE_WORDS = STABLE_WORDS - {"name"}
# A function named as building a prompt (`build_analysis_prompt`, `make_prompt`), as
# `_interp._PROMPT_FUNCTION` names one whose text is judged as a template.
_PROMPT_BUILDER = re.compile(r"(?i)^_*(?:\w*_)?prompt$")


def _never_called(function: Function, arg: ast.arg, call_sites: CallSites) -> bool:
    """Whether nothing in the project calls the function (or no project files were read)."""
    why = _why_not_constant(function, arg, call_sites)
    return why is not None and (why == NOT_CALLED or why.startswith(_NO_CALL))


def _builder_hit(function: Function, arg: ast.arg, pending: Pending, builder: bool) -> Hit:
    module = function.module
    node = function.node
    assert not isinstance(node, ast.Lambda)
    line, column = node_location(module, arg)
    if builder:
        label = (
            f"`{arg.arg}` (a parameter of the prompt builder `{node.name}()`, which no call in "
            "the project makes: what each prompt is built from)"
        )
    else:
        label = (
            f"`{arg.arg}` (a parameter of `{node.name}()`, which no call in the project makes, "
            "written into the newest turn of the request it sends: what each request is made "
            "from)"
        )
    taint = Taint(
        code=PER_REQUEST,
        label=label,
        path=module.display,
        line=line,
        column=column,
        written=_written_line(function, arg, pending),
        param=arg.arg,
    )
    site_line, site_column = node_location(module, node)
    return Hit(
        taint=taint,
        api=pending.api,
        role=pending.role,
        after=pending.after,
        history=False,
        site_path=module.display,
        site_line=site_line,
        site_column=site_column,
        lines=pending.lines,
    )


def _handed_the_conversation(function: Function, arg: ast.arg) -> bool:
    """`arg` is the first parameter of a method a framework calls with the conversation it sends
    (`CONVERSATION_HOOKS`: `_generate(self, messages)` of a class deriving `BaseChatModel`)."""
    node = function.node
    if function.cls is None or isinstance(node, ast.Lambda):
        return False
    positional = [*node.args.posonlyargs, *node.args.args][1:]  # after `self`
    if not positional or positional[0] is not arg:
        return False
    imports = function.module.imports
    for base in function.cls.node.bases:
        head, _, rest = ast.unparse(base).partition(".")
        resolved = ".".join(filter(None, (imports.get(head, ""), rest)))
        # A framework's class, imported (a project's own `BaseChatModel` is not LangChain's).
        if "." in resolved and f"{resolved.rpartition('.')[2]}.{node.name}" in CONVERSATION_HOOKS:
            return True
    return False


def _why_not_constant(function: Function, arg: ast.arg, call_sites: CallSites) -> str | None:
    """None when the project's other modules call the function and every call passes a
    constant for `arg`; else why not (a module linted from text alone has no project files)."""
    module = function.module
    node = function.node
    assert not isinstance(node, ast.Lambda)
    if module.path is None or not module.path.is_file():
        return _NO_CALL + " (linted without its project's files)"
    positional = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    index = positional.index(arg.arg) if arg.arg in positional else -1
    method = function.cls is not None and not _is_static(node)
    homes = [module.name.rpartition(".")[2] or module.path.stem]
    if function.cls is not None:
        homes.append(function.cls.node.name)
    return call_sites.why_not_constant(
        _called_name(function), tuple(homes), index=index, keyword=arg.arg, shift=int(method)
    )


def _is_static(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def _reported_per_request(function: Function) -> frozenset[str]:
    """The parameters this function's own findings already report as per-request data: one
    PC502 stands for (a `RunContext`, the inputs a framework fills per run), or one the code of
    a reported value reads (`summarise.invoke(kernel, text)`, a model's answer): asked about
    again, the same value would be said twice."""
    module = function.module
    node = function.node
    first, last = node.lineno, node.end_lineno or node.lineno
    names: set[str] = set()
    for hit in module.hits:
        if not isinstance(hit, Hit):
            continue
        taint = hit.taint
        if taint.code != PER_REQUEST or taint.path != module.display:
            continue
        if first <= taint.line <= last:
            names.add(taint.param)
            for code in _QUOTED.findall(taint.label):
                names.update(_IDENTIFIER.findall(code))
    return frozenset(names - {""})


def _said(function: Function, pending: Pending) -> bool:
    """Whether the function's own findings already report per-request data in the newest turn
    (or a prompt's text) with at least as much static text after it as `pending` has (the
    search results a `topic` was looked up with, filling the template's `{context}`): the
    parameter is in the same place, and the same fix moves both."""
    module = function.module
    node = function.node
    first, last = node.lineno, node.end_lineno or node.lineno
    return any(
        isinstance(hit, Hit)
        and hit.taint.code == PER_REQUEST
        and hit.taint.path == module.display
        and first <= hit.taint.line <= last
        and hit.role in ("last_turn", "template")
        and hit.after >= pending.after
        for hit in module.hits
    )


def _only_parts(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether the function reads the parameter only through its parts: keys (`state["plan"]`,
    `state.get("plan")`) and fields (`job.title`). What each part holds is said by its key
    (PC502 knows per-request keys and fields), not by the parameter's name."""
    loads = 0
    parts = 0
    for found in ast.walk(node):
        if isinstance(found, ast.Name) and found.id == name and isinstance(found.ctx, ast.Load):
            loads += 1
        elif _is_part(found, name):
            parts += 1
    return loads > 0 and loads == parts


def _is_part(node: ast.AST, name: str) -> bool:
    """`name[...]`, `name.get`, `name.field`: a part of `name` read (not its text's methods)."""
    if isinstance(node, ast.Subscript):
        return _is_name(node.value, name)
    return (
        isinstance(node, ast.Attribute)
        and _is_name(node.value, name)
        and (node.attr == "get" or node.attr not in _DATA_METHODS)
    )


def _only_a_receiver(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """Whether the function uses the parameter only as an object: to call its methods
    (`store.search(...)`, `recorder.current_transcript()`) or piped as a runnable
    (`itemgetter("query") | retriever`). An object the program made and hands in, as a client
    or a store is; what it returns is for its methods to say (PC502 knows retrievals)."""
    loads = 0
    objects = 0
    for found in ast.walk(node):
        if isinstance(found, ast.Name) and found.id == name and isinstance(found.ctx, ast.Load):
            loads += 1
        elif (
            isinstance(found, ast.Call)
            and isinstance(found.func, ast.Attribute)
            and found.func.attr not in _DATA_METHODS  # `notes.strip()`: text, not an object
            and _is_name(found.func.value, name)
        ):
            objects += 1
        elif isinstance(found, ast.BinOp) and isinstance(found.op, ast.BitOr):
            objects += _is_name(found.left, name) + _is_name(found.right, name)
    return loads > 0 and loads == objects


def _is_name(node: ast.expr | None, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _by_parameter(pendings: Iterable[Pending]) -> dict[str, list[Pending]]:
    grouped: dict[str, list[Pending]] = {}
    for pending in pendings:
        grouped.setdefault(pending.name, []).append(pending)
    return grouped


def _worded(pendings: list[Pending], seen: list[Pending], long_prefix: int) -> Pending:
    """The sink a hit is told as: the system prompt where the parameter opens one (one hit per
    parameter), with what the request shows after it."""
    shown = next(p for p in seen if _opens_prefix(p, long_prefix))
    system = next((p for p in pendings if p.role == "system"), shown)
    return replace(system, after=shown.after, history=shown.history)


def _as_the_request_sees_them(pendings: Iterable[Pending]) -> list[Pending]:
    """
    The sinks one parameter reaches, as the request that sends it sees them where the function
    makes one. A system message literal, a text named as a system prompt and a prompt builder's
    template are judged where they are made, before the list they go into is known, and so as
    if a conversation followed them; the request's own view says whether one does
    (`messages=[{"role": "system", "content": prompt(transcript)}]` alone: nothing follows).
    """
    pendings = list(pendings)
    # A request whose `messages` the analysis cannot read item by item (`[system] + history`)
    # does not say what follows the parameter: the view where it was made stands.
    seen = [p for p in pendings if not _judged_apart(p) and not p.whole]
    return seen or pendings


def _judged_apart(pending: Pending) -> bool:
    return pending.named or pending.role == "template" or pending.api in _MADE_APART


def _opens_prefix(pending: Pending, long_prefix: int) -> bool:
    """It reaches the system prompt, or the first turn, with a long static block (or the
    conversation) after it."""
    if pending.path or pending.whole or pending.spliced:
        return False
    if pending.role == "system" or (pending.role == "messages" and pending.opening):
        return pending.history or pending.after >= long_prefix
    return False


def says_stable(name: str, stable_words: frozenset[str] = STABLE_WORDS) -> bool:
    """Whether a name says it holds a setting (a word of `stable_words`, by default
    `STABLE_WORDS`: `reply_language`, `persona`), a constant (ALL_CAPS) or the object itself
    (`self`, `cls`)."""
    words = {w.lower() for w in _WORDS.findall(name)}
    return name.isupper() or bool(words & stable_words) or name in ("self", "cls")


def _arguments(node: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.arg]:
    """The parameters without a constant default (one with a default is the same on every
    call that leaves it out: the calls say what else it holds); `_is_object` is asked later,
    of the few that reach a prefix."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip(reversed(positional), reversed(args.defaults), strict=False))
    defaults.update(
        (arg, default)
        for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True)
        if default is not None
    )
    return {
        arg.arg: arg
        for arg in (*positional, *args.kwonlyargs)
        if not isinstance(defaults.get(arg), ast.Constant)
    }


def _is_object(annotation: ast.expr | None) -> bool:
    """Annotated as a class of the project's or a library's (`team: AgentTeam`): an object the
    program sets up (a client, a registry, a config), not text that comes with a request."""
    if annotation is None:
        return False
    names = {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)}
    names |= {n.attr for n in ast.walk(annotation) if isinstance(n, ast.Attribute)}
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):  # "AgentTeam"
        names |= set(re.findall(r"\w+", annotation.value))
    return bool(names) and not names & _TEXT_TYPES


def _called_name(function: Function) -> str:
    """The name a call of the function is written with: a class's for its `__init__`."""
    node = function.node
    assert not isinstance(node, ast.Lambda)
    if node.name == "__init__" and function.cls is not None:
        return function.cls.node.name
    return node.name


def _read_in_its_module(function: Function) -> bool:
    """Whether the module reads the function's name (calls it, or hands it on): those calls
    resolve its parameters. Only the lines that write the name are looked at."""
    name = _called_name(function)
    module = function.module
    word = re.compile(rf"\b{re.escape(name)}\b")
    lines = {n for n, text in enumerate(module.source.splitlines(), start=1) if word.search(text)}
    todo: list[ast.AST] = [module.tree]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            first = getattr(child, "lineno", None)
            if first is not None:
                last = getattr(child, "end_lineno", None) or first
                if not any(first <= n <= last for n in lines):
                    continue
            if _reads(child, name):
                return True
            todo.append(child)
    return False


def _reads(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name and isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.Attribute):
        return node.attr == name and isinstance(node.ctx, ast.Load)
    return False


def _written_line(function: Function, arg: ast.arg, pending: Pending) -> int:
    """Where the parameter is written into the prompt's text, when that is in its module (the
    function, or a helper of the module it hands the value to, formats it into a template:
    where the fix goes); else the first line of the function that reads it."""
    if pending.written and pending.written_path == function.module.display:
        return pending.written
    node = function.node
    assert not isinstance(node, ast.Lambda)
    return _first_use(node, arg.arg)


def _first_use(node: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> int:
    """The first line of the body that reads `name`: where it is written into the prompt."""
    lines = [
        found.lineno
        for statement in node.body
        for found in ast.walk(statement)
        if isinstance(found, ast.Name) and found.id == name
    ]
    return min(lines, default=0)


def _hit(function: Function, arg: ast.arg, pending: Pending, why: str) -> Hit:
    module = function.module
    node = function.node
    assert not isinstance(node, ast.Lambda)
    line, column = node_location(module, arg)
    label = f"`{arg.arg}` (a parameter of `{node.name}()` whose origin the analysis cannot see)"
    written = _written_line(function, arg, pending)
    taint = Taint(
        code=CODE, label=label, path=module.display, line=line, column=column, written=written
    )
    site_line, site_column = node_location(module, node)
    return Hit(
        taint=taint,
        api=pending.api,
        role="system" if pending.role == "system" else "messages",
        after=pending.after,
        history=pending.history,
        site_path=module.display,
        site_line=site_line,
        site_column=site_column,
        note=_NOTE.format(why=why),
    )
