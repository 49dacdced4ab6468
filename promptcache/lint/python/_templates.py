"""
Prompt templates: the variables of a LangChain template (where each lands, and how much static
text follows it), filling them (`.partial`, `.invoke`, `.format`, a legacy chain's `.run`), a
Jinja template's render, and a per-request slot filled with data the analysis cannot read.

Functions of a `Frame` (`_frame`). State: none of its own; a callable that fills a variable is
called through `frame.call_value`, and what reaches a position goes to `frame.findings`.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from ._calls import _keyword_line, is_history, is_placeholder
from ._crew_config import crew_base_template
from ._flow import (
    flatten,
    lines_after,
    static_after,
    text_lines,
    unfollowed,
    written_at,
)
from ._placeholders import Slot, slot_at
from ._quickinit import replace
from ._sinks import Sink
from ._turns import WINDOW
from ._unknown_origin import says_stable
from ._values import (
    EMPTY,
    PER_REQUEST,
    Param,
    Taint,
    Value,
    join_values,
)
from .frameworks.crewai import AFTER_AGENT, AFTER_EXPECTED, KICKOFF_EACH_METHODS, KICKOFF_METHODS

if TYPE_CHECKING:
    from ._frame import Frame
    from ._project import Module

__all__ = [
    "crew_template",
    "jinja_render",
    "slot_filled",
    "static_of",
    "strip_tail",
    "template_call",
    "template_info",
    "template_variables",
]

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


def slot_filled(frame: Frame, name: str, value: Value, node: ast.AST) -> Value:
    """
    What fills a template's named slot (`TEMPLATE.format(context=text)`, a prompt
    template's `{question}`): a slot named like per-request data holds it, whatever the
    filling variable is called (as the template linter reads `{{ context }}`), when what
    fills it depends on something: a parameter, a call on one. A value built from
    constants alone is what it is, and a clock or per-request data that reaches the slot
    as itself is reported as that. Per-request data seen only through calls the analysis
    cannot read (`search(question)`) is reported here too: the slot is where it enters.
    """
    if not value.deps or not frame.a.per_request(name) or _varies(value):
        return value
    taint = frame.taint(PER_REQUEST, f"`{{{name}}}` (a per-request slot, filled here)", node)
    mark = frozenset({taint})
    return Value(deps=value.deps | mark, pieces=(mark, *(value.pieces or (value.deps,))))


# -- prompt templates -------------------------------------------------------------------


def template_info(
    frame: Frame, sink: Sink, args: list[Value], keywords: dict[str, Value]
) -> dict[str, Slot]:
    """
    Variables of a LangChain template: name -> (static chars after it, the position it
    reaches: "system", "messages" (a turn the conversation history follows), "template").
    """
    info: dict[str, Slot] = {}
    if sink.api == "LangChain chat prompt template":
        specs = (args[0] if args else keywords.get("messages", EMPTY)).items or ()
        for position, spec in enumerate(specs):
            later = specs[position + 1 :]
            history = any(is_history(spec) for spec in later)
            # Without history after it, a variable loses only the static text that
            # follows it, in its own message and in the later ones (judged as a template's).
            later_text = sum(len(_spec_text(spec)) for spec in later)
            if is_placeholder(spec):
                # The placeholder's own variable: messages, per-request by nature, except a
                # window of the conversation (`state["messages"][-10:]`), which slides.
                name = _placeholder_name(spec)
                if name and is_history(spec):
                    info.setdefault(name, Slot(0, "placeholder"))
                continue
            if spec.items is not None and len(spec.items) == 2:
                system = spec.items[0].text in ("system", "developer")
                role = "system" if system else "messages"
                role = role if history else "template"
                _variables(spec.items[1], role, info, later_text, module=frame.module)
            elif isinstance(spec.meta, dict):
                for key, slot in spec.meta.items():
                    kept = slot.role if slot.role == "system" else "messages"
                    role = kept if history else "template"
                    lines = slot.lines if not later_text else None
                    info.setdefault(
                        key, slot._replace(after=slot.after + later_text, role=role, lines=lines)
                    )
        return info
    text = args[0] if args else keywords.get("template", keywords.get("prompt", EMPTY))
    system = sink.api == "LangChain system message template"
    fmt = args[1] if len(args) > 1 else keywords.get("template_format", EMPTY)
    field = _DOUBLE_BRACE_FIELD if fmt.text in _DOUBLE_BRACE_FORMATS else _TEMPLATE_FIELD
    _variables(text, "system" if system else "template", info, field=field, module=frame.module)
    return info


def template_variables(
    frame: Frame,
    info: object,
    values: Value,
    node: ast.AST,
    api: str = "LangChain prompt template",
) -> None:
    if not isinstance(info, dict) or values.fields is None:
        return
    for name, value in values.fields:
        if name not in info:
            continue
        slot = info[name]
        after, role, written = slot.after, slot.role, slot.written
        if role == "placeholder":  # the conversation: only a window of it is known to slide
            for dep in value.deps:
                if isinstance(dep, Taint) and dep.code == WINDOW:
                    frame.findings.hit(dep, api, "messages", 0, True, node)
            continue
        value = slot_filled(frame, name, value, node)
        value = named_per_request(frame, name, value, node)
        if written is not None:  # where its placeholder is written: the fix goes there
            value = written_at(value, *written, again=True)
        if role == "system":
            frame.findings.sink_value(api, "system", value, node)
        elif role == "messages":  # the conversation history follows this turn
            pieces = flatten(value)
            for dep in value.deps:
                after_dep = after + static_after(pieces, dep)
                frame.findings.hit(dep, api, "messages", after_dep, True, node)
        else:
            limit = max(frame.a.config.threshold, 1) * 4
            pieces = flatten(value)
            for dep in value.deps:
                if isinstance(dep, Param) or after + static_after(pieces, dep) >= limit:
                    lines = None if slot.lines is None else slot.lines + lines_after(pieces, dep)
                    frame.findings.hit(dep, api, "template", after, False, node, lines=lines)


def _placeholder_name(spec: Value) -> str:
    """The variable a messages placeholder is filled from (`MessagesPlaceholder("history")`,
    `("placeholder", "{history}")`)."""
    name = spec.meta if spec.kind == "placeholder" else (spec.items or (EMPTY, EMPTY))[1].text
    return name.strip("{} ") if isinstance(name, str) else ""


# -- CrewAI -----------------------------------------------------------------------------


def crew_template(
    frame: Frame, sink: Sink, keywords: dict[str, Value], node: ast.Call
) -> dict[str, Slot]:
    """
    The `{placeholders}` of a CrewAI agent (its role, goal and backstory: the system prompt,
    with CrewAI's tool instructions after them), of a task (description, then expected output:
    the user turn, judged as a template), or of a crew (its agents' and tasks' together, and
    those of the YAML configuration of the `@CrewBase` class that makes it). An agent's or a
    task's placeholders that no kickoff of the project fills are judged where they are written
    (`_inputs_unseen`).
    """
    info: dict[str, Slot] = {}
    if sink.api == "CrewAI agent":
        for keyword in ("role", "goal", "backstory", "system_template"):
            text = keywords.get(keyword, EMPTY)
            _variables(text, "system", info, AFTER_AGENT, module=frame.module)
        _inputs_unseen(frame, sink.api, info, node)
    elif sink.api == "CrewAI task":
        expected = keywords.get("expected_output", EMPTY)
        description = keywords.get("description", EMPTY)
        after = len(static_of(expected)) + AFTER_EXPECTED
        _variables(description, "template", info, after, module=frame.module)
        _variables(expected, "template", info, AFTER_EXPECTED, module=frame.module)
        _inputs_unseen(frame, sink.api, info, node)
    else:
        configured = crew_base_template(frame)
        info.update(configured)
        members = (*_items(keywords.get("agents")), *_items(keywords.get("tasks")))
        for member in members:
            if member.kind == "ptemplate" and isinstance(member.meta, dict):
                for name, where in member.meta.items():
                    # One input fills every agent and task that names it: judged where it
                    # costs most (a system prompt, then the most static text after it).
                    kept = info.get(name)
                    if kept is None or _cost(where) > _cost(kept):
                        info[name] = where
        seen = all(keywords.get(k, EMPTY).items is not None for k in ("agents", "tasks"))
        if not configured and not seen:  # `agents=self.agents` with no configuration read
            info[UNSEEN] = Slot(0, "unseen")
    return info


def _inputs_unseen(frame: Frame, api: str, info: dict[str, Slot], node: ast.Call) -> None:
    """
    The placeholders of an agent or a task made in a project that runs no crew the analysis can
    see (no kickoff call in any of its files: the app that runs it lies elsewhere, or calls it
    through a framework). Only a kickoff's inputs fill a placeholder, and CrewAI's inputs exist
    to differ between runs (a question, an answer, the job a candidate applies for): each is
    judged as per-run data where its slot puts it (the system prompt, or a task's text with
    the static text after it), unless its name says it is a setting (`{language}`, `{persona}`,
    a name declared `stable`). A kickoff seen anywhere in the project judges the inputs it
    passes instead (`kickoff`), constants quiet.
    """
    if not info or _kickoff_seen(frame):
        return
    fields = []
    for name in info:
        if not frame.a.per_request(name) and (frame.a.stable(name) or says_stable(name)):
            continue
        label = f"`{{{name}}}` (a CrewAI kickoff input, different in each run; no kickoff seen)"
        fields.append((name, EMPTY.with_deps([frame.taint(PER_REQUEST, label, node)])))
    template_variables(frame, info, Value(fields=tuple(fields)), node, api=api)


_KICKOFFS = KICKOFF_METHODS | KICKOFF_EACH_METHODS
_KICKOFF_CALL = re.compile(r"\b(?:" + "|".join(sorted(_KICKOFFS)) + r")\s*\(")


def _kickoff_seen(frame: Frame) -> bool:
    """Whether the module, or any file of its project (when it has one: not text linted alone),
    calls a kickoff method; a project not read whole may (its unread files)."""
    module = frame.module
    if _KICKOFF_CALL.search(module.source):
        return True
    if module.path is None or not module.path.is_file():
        return False
    return frame.a.call_sites.calls_any(_KICKOFFS) is not False


def _cost(where: Slot) -> tuple[bool, int]:
    return where.role == "system", where.after


def kickoff(frame: Frame, method: str, receiver: Value, node: ast.Call, inputs: Value) -> None:
    """`crew.kickoff(inputs={...})`: each input fills its placeholders in the crew's agents and
    tasks. CrewAI's inputs exist to differ between runs, so one that is not a constant (a
    parameter whose callers the analysis does not see) is taken as per-run data here."""
    runs = inputs.items or () if method in KICKOFF_EACH_METHODS else (inputs,)
    info = receiver.meta if isinstance(receiver.meta, dict) else {}
    for run in runs:
        if run.fields is None:
            continue
        filled = tuple((name, _per_run(frame, name, value, node)) for name, value in run.fields)
        if UNSEEN in info:  # where the inputs land is unknown: not followed (PC506), not clean
            lost = Value(deps=unfollowed(join_values(v for _, v in filled).deps))
            frame.findings.sink_value("CrewAI kickoff", "system", lost, node)
            continue
        template_variables(frame, info, Value(fields=filled), node, api="CrewAI kickoff")


# The key of a crew's placeholders saying its agents and tasks could not be seen.
UNSEEN = "*"


def _per_run(frame: Frame, name: str, value: Value, node: ast.AST) -> Value:
    params = [d for d in value.deps if isinstance(d, Param)]
    if not params or any(isinstance(d, Taint) for d in value.deps):
        return value
    label = f"`{{{name}}}` (a CrewAI kickoff input, different in each run)"
    taint = replace(frame.taint(PER_REQUEST, label, node), param=params[0].name)
    return value.with_deps([taint])


def _items(value: Value | None) -> tuple[Value, ...]:
    return value.items or () if value is not None else ()


def named_per_request(frame: Frame, name: str, value: Value, node: ast.AST) -> Value:
    """A template variable named as per-request data (`{context}`, `{question}`) filled with a
    value the analysis cannot tell anything about (a parameter its callers are not seen to
    fill, a library call's result): taken as the per-request data its name says it is."""
    if value.text is not None or value.kind == "num" or not frame.a.per_request(name):
        return value
    if any(isinstance(dep, Taint) for dep in value.deps):
        return value
    label = f"`{name}` (a per-request template variable)"
    return value.with_deps([frame.taint(PER_REQUEST, label, node)])


def template_call(
    frame: Frame,
    method: str,
    receiver: Value,
    node: ast.Call,
    args: list[Value],
    keywords: dict[str, Value],
) -> Value:
    if method == "partial":
        nodes = {k.arg: k.value for k in node.keywords if k.arg is not None}
        called = tuple((k, frame.call_value(v, nodes.get(k, node))) for k, v in keywords.items())
        template_variables(frame, receiver.meta, Value(fields=called), node)
        return receiver
    if method in ("invoke", "ainvoke", "stream", "astream", "batch", "abatch"):
        if args:
            template_variables(frame, receiver.meta, args[0], node)
        return EMPTY
    if method in _CHAIN_RUNS:  # a legacy `LLMChain`: `.run(context=...)`, `.predict({...})`
        for arg in args[:1]:
            template_variables(frame, receiver.meta, arg, node)
        template_variables(frame, receiver.meta, Value(fields=tuple(keywords.items())), node)
        return EMPTY
    if method in _FORMAT_METHODS:
        template_variables(frame, receiver.meta, Value(fields=tuple(keywords.items())), node)
        return EMPTY
    if method in ("pipe", "with_config", "with_retry", "bind"):
        return receiver
    if method in KICKOFF_METHODS or method in KICKOFF_EACH_METHODS:
        inputs = keywords.get("inputs", args[0] if args else EMPTY)
        kickoff(frame, method, receiver, node, inputs)
    return EMPTY


def jinja_render(
    frame: Frame,
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
        # neither called clean nor reported as a buster it may not be; but a system prompt it
        # renders, with the conversation after it, varies wherever it goes (`Taint.unread`).
        # It enters the template's text where it is handed to it (`render(context=docs)`).
        path = frame.module.display
        handed = [written_at(v, path, node.lineno, again=True) for v in (*args, *splats)]
        handed += [
            written_at(value, path, _keyword_line(node, name), again=True)
            for name, value in keywords.items()
        ]
        return Value(deps=unfollowed(join_values(handed).deps, rendered=True))
    for name, value in variables.items():
        if not value.deps:
            continue
        offset = _jinja_offset(source, name)
        if offset is None:
            continue
        after = len(strip_tail(source[offset:]))
        limit = max(frame.a.config.threshold, 1) * 4
        for dep in value.deps:
            if isinstance(dep, Param) or after >= limit:
                frame.findings.hit(dep, "Jinja render", "template", after, False, node)
    return join_values([*args, *keywords.values(), *splats])


def _variables(
    text: Value,
    role: str,
    info: dict[str, Slot],
    later: int = 0,
    field: re.Pattern[str] | None = None,
    module: Module | None = None,
) -> None:
    """Record each `{variable}` of `text` (`{{variable}}` for a mustache or Jinja template): the
    static characters after it (`later` more after the text itself), the position it reaches, and
    where `module` writes it."""
    joined = static_of(text)
    pattern = field or _TEMPLATE_FIELD
    for found in pattern.finditer(joined):
        if found.group(1) not in info:
            after = len(joined) - found.end() + later
            # Its static lines are counted when the text is all that follows it (no later
            # messages), the other variables' placeholders left out.
            lines = None if later else text_lines(pattern.sub("", joined[found.end() :]))
            info[found.group(1)] = slot_at(
                module, joined, found.start(), found.end(), after, role, lines
            )


def static_of(text: Value) -> str:
    return "".join(p for p in text.pieces or () if isinstance(p, str))


def _spec_text(spec: Value) -> str:
    """The static text of a chat template's `(role, text)` message spec, without variables ("" for
    a message-template object, whose text is not kept)."""
    if spec.items is None or len(spec.items) != 2:
        return ""
    return _TEMPLATE_FIELD.sub("", static_of(spec.items[1]))


def _jinja_offset(source: str, name: str) -> int | None:
    found = re.search(r"\{[{%][^}]*?(?<![\w.])" + re.escape(name) + r"\b", source)
    return found.start() if found else None


def strip_tail(text: str) -> str:
    marker = re.search(r"\{#-?\s*promptcache:\s*tail\s*-?#\}", text, re.IGNORECASE)
    return text[: marker.start()] if marker else text


def _varies(value: Value) -> bool:
    """Whether a clock, per-request data as itself, or a window of the history (reported as
    itself, judged by what precedes and follows it), is among the value's dependencies."""
    return any(
        isinstance(d, Taint)
        and (d.code in ("PC501", WINDOW) or (d.code == PER_REQUEST and not d.via))
        for d in value.deps
    )
