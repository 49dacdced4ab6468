"""
What the analysis keeps per function and class: the summary computed once and reused at every
call (its return value, and `Pending` sinks its parameters reach), and the `Hit`s it finds.

A summary says, in the terms of `_values`, "returns text holding a clock value" (a `Taint` in
`ret`) or "forwards its `messages` argument to an SDK sink" (a `Pending` on that parameter).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ._project import Module
from ._quickinit import quick_init
from ._values import Param, Taint, Value

__all__ = ["ClassInfo", "Function", "Hit", "ParamSlot", "Pending", "enclosing_pending"]


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Hit:
    """A source of variation that reaches a sink: one finding, once located."""

    taint: Taint
    api: str
    role: str
    after: int  # characters of static text after the value, where known
    history: bool  # the conversation (or more cacheable content) follows it
    site_path: str
    site_line: int
    site_column: int
    note: str = ""
    # Lines holding text in the static text after it, where counted (`_flow.lines_after`; None:
    # not counted, and only its weight decides).
    lines: int | None = None


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Pending:
    """A sink that a parameter reaches inside a function; resolved at each call."""

    index: int
    name: str
    api: str
    role: str
    after: int
    history: bool
    path: tuple[str, ...] = ()
    spliced: bool = False  # it reaches the prefix as spliced history: per-request data is fine
    whole: bool = False  # the parameter is the whole `messages` value: judge the argument's turns
    # It reaches a text named as a system prompt: per-request data it stands for is judged by the
    # static text after it, not as followed by a conversation (`Findings.system_text`).
    named: bool = False
    # It reaches the first turn of a request that no history follows (a wrapper's `system`
    # argument): per-request data there that comes before most of the static text is judged as
    # the caller's own first turn is (`Findings.messages`), not only by the text after it.
    opening: bool = False
    lines: int | None = None  # lines holding text after it in the function's text (`Hit.lines`)
    # What a LangChain pipe fills the parameter with, a template (`{"context": retriever, ...}
    # | prompt` of `def chain(prompt, retriever)`): each variable's value, in the function's
    # terms (its own parameters resolved at each call, as the template is).
    fills: tuple[tuple[str, Value], ...] = ()
    # Where the function (or a helper of its module it hands the value to) writes the parameter
    # into the prompt's text (line `written` of `written_path`; 0: not seen): the place a finding
    # on a caller's parameter names as where the fix goes. As for a `Param`, not part of its
    # identity: the same sink reached twice is one.
    written: int = field(default=0, compare=False)
    written_path: str = field(default="", compare=False)


@dataclass(slots=True, kw_only=True)
class Function:
    module: Module
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    cls: ClassInfo | None = None
    outer: dict[str, Value] | None = None
    system: bool = False  # decorated as a system prompt: its return value is a sink
    ret: Value | None = None
    pending: list[Pending] = field(default_factory=list)
    running: bool = False
    # Its parameters a loop of its own walks, sending a request for each item (or the same one
    # several times): the loop's rules judge what each request holds, not the collection.
    sent_per_item: set[str] = field(default_factory=set)


@dataclass(slots=True, kw_only=True)
class ClassInfo:
    module: Module
    node: ast.ClassDef
    methods: dict[str, Function] = field(default_factory=dict)
    attrs: dict[str, Value] = field(default_factory=dict)
    ready: bool = False
    # The project classes it derives from, and those deriving from it (`_classes`, on demand).
    bases: list[ClassInfo] | None = None
    subclasses: list[ClassInfo] | None = None


@dataclass(slots=True, kw_only=True)
class ParamSlot:
    index: int
    name: str
    per_request: bool
    plain: Value | None = None  # its value when it carries no taint (the same at every use)
    param: Param | None = None  # the symbol it stands for (immutable: one serves every use)


def enclosing_pending(function: Function) -> list[tuple[Value, Pending]]:
    """The sinks a nested function or lambda reaches through a parameter of the function
    enclosing it (`async def _attempt(): await http.post(url, json={"messages": messages})` in
    `def chat(self, messages)`), each with that parameter's slot where it was made: they are the
    enclosing function's, whose callers pass the value."""
    args = function.node.args
    every = (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
    own = {a.arg for a in every if a is not None}
    found: list[tuple[Value, Pending]] = []
    for pending in function.pending:
        slot = (function.outer or {}).get(pending.name)
        if pending.name in own or slot is None or slot.kind != "param":
            continue
        if slot.meta.index == pending.index:
            found.append((slot, pending))
    return found
