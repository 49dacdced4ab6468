"""
Framework prompt templates filled by name, read message by message or in their own syntax:
Haystack's `ChatPromptBuilder` (Jinja inside `ChatMessage`s; `run(template_variables=...)`,
a `Pipeline`'s `run(data)`), and Semantic Kernel's prompt functions and agents (`{{$var}}`,
handlebars, jinja2; filled by `KernelArguments`). Each variable is judged where its template
puts it, through `template_variables`, as a LangChain template's is (`_templates`).

Functions of a `Frame` (`_frame`). State: a pipeline's prompt builders are kept on the
pipeline's value, re-bound where `add_component` is called (`frame.assign`).
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ._flow import unfollowed
from ._placeholders import Slot, slot_at
from ._templates import jinja_render, static_of, strip_tail, template_variables
from ._values import EMPTY, PER_REQUEST, Value, join_values
from .frameworks.haystack import MESSAGE_ROLES, PIPELINE_ADD, PIPELINE_CONNECT, PIPELINE_RUNS
from .frameworks.semantic_kernel import AGENTS, INVOKE_METHODS, NOT_ARGUMENTS, VARIABLE_SYNTAX

if TYPE_CHECKING:
    from ._frame import Frame
    from ._project import Module

__all__ = [
    "ChatTurn",
    "chat_builder",
    "chat_builder_call",
    "chat_turn",
    "haystack_pipeline",
    "sk_agent",
    "sk_arguments",
    "sk_function",
    "sk_invoke",
    "sk_prompt",
    "sk_template",
    "sk_yaml",
]


# -- Haystack's ChatPromptBuilder ---------------------------------------------------------

# A Jinja variable where it is first used: `{{ name }}`, `{{ name.attr | filter }}`, or the
# iterable or test of a `{% for x in name %}` / `{% if name %}`.
_JINJA_USE = re.compile(
    r"\{\{-?\s*([A-Za-z_][A-Za-z0-9_]*)"
    r"|\{%-?\s*(?:for\s+[A-Za-z_][\w\s,]*?\s+in|if|elif)\s+(?:not\s+)?([A-Za-z_][A-Za-z0-9_]*)"
)
_JINJA_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
_HAYSTACK_ROLES = dict((name.rpartition(".")[2], role) for name, role in MESSAGE_ROLES)
# The key of a chat builder's variables saying its messages could not be seen.
UNSEEN_MESSAGES = "*messages"
# The key saying some of its messages (or part of one's text) could not be seen: a variable
# that none of the seen ones uses may be in those (Haystack renders every message).
UNSEEN_PART = "*part"


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatTurn:
    """A `ChatMessage` kept whole (`Value.meta`), for a chat builder's template: role and text."""

    role: str
    text: Value


def chat_turn(
    node: ast.Call, result: Value, args: list[Value], keywords: dict[str, Value]
) -> Value:
    """`ChatMessage.from_system(text)` (`from_user`, `from_assistant`): its dependencies, with
    the message kept as a `ChatTurn` for a `ChatPromptBuilder` that takes it."""
    name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
    text = args[0] if args else keywords.get("text", EMPTY)
    role = _HAYSTACK_ROLES.get(name, "user")
    return Value(deps=result.deps, meta=ChatTurn(role=role, text=text))


def chat_builder(module: Module, args: list[Value], keywords: dict[str, Value]) -> Value:
    """`ChatPromptBuilder(template=...)` in `module`: its variables, as a prompt template's
    (`template_info`); without a template it gets one at `run(template=...)`."""
    template = args[0] if args else keywords.get("template")
    info = None if template is None else _chat_info(template, module)
    return Value(kind="chat_builder", meta=info)


def chat_builder_call(
    frame: Frame,
    method: str,
    receiver: Value,
    node: ast.Call,
    args: list[Value],
    keywords: dict[str, Value],
) -> Value:
    """`builder.run(template=..., template_variables={...}, **variables)`: each variable filled
    is judged where the messages put it."""
    if method not in ("run", "run_async"):
        return EMPTY
    template = keywords.get("template", args[0] if args else None)
    info = _chat_info(template, frame.module) if template is not None else receiver.meta
    if not isinstance(info, dict):
        return EMPTY  # no template at all: the call fails, and nothing is sent
    filled = [(k, v) for k, v in keywords.items() if k not in ("template", "template_variables")]
    _fill(
        frame,
        info,
        filled,
        keywords.get("template_variables"),
        node,
        "Haystack chat prompt builder",
    )
    return EMPTY


def haystack_pipeline(
    frame: Frame,
    method: str,
    receiver: Value,
    node: ast.Call,
    args: list[Value],
    keywords: dict[str, Value],
) -> bool:
    """A Haystack pipeline's `add_component("name", builder)`: the pipeline (the name it is kept
    under) knows its prompt builders by name, as `fields`; its `run(data)` fills each one (and
    is left to the general rules: its result is the pipeline's output). True when a component
    was added."""
    target = node.func.value if isinstance(node.func, ast.Attribute) else None
    if method == PIPELINE_ADD and isinstance(target, ast.Name | ast.Attribute):
        named = (args[0] if args else keywords.get("name", EMPTY)).text
        component = args[1] if len(args) > 1 else keywords.get("instance", EMPTY)
        if named is None or component.kind not in ("chat_builder", "jtemplate"):
            return False
        known = (*(receiver.fields or ()), (named, component))
        frame.assign(target, replace(receiver, fields=known))
        return True
    if method == PIPELINE_CONNECT and isinstance(target, ast.Name | ast.Attribute):
        fed = _connection(frame, receiver, node, args, keywords)
        if fed is not None:
            frame.assign(target, replace(receiver, fields=(*(receiver.fields or ()), fed)))
        return False
    if method not in PIPELINE_RUNS or not receiver.fields:
        return False
    data = keywords.get("data", args[0] if args else EMPTY)
    for component_name, component in receiver.fields:
        if component.kind == _FED:
            continue
        inputs = data.field(component_name)
        read = inputs if inputs is not None else data
        if read.fields is None:  # made where the analysis cannot see: what fills it is unknown
            _run_data_not_followed(frame, component, read, node)
            continue
        given = dict(read.fields)
        spread = given.pop("**", None)
        if spread is not None:  # `{**inputs, ...}` of a mapping it cannot read
            _run_data_not_followed(frame, component, spread, node)
        for key, sent in receiver.fields:  # what other components send it, unless given
            builder, _, name = key.partition(".")
            if sent.kind == _FED and builder == component_name:
                given.setdefault(name, sent)
        if component.kind == "chat_builder":
            chat_builder_call(frame, "run", component, node, [], given)
        else:
            jinja_render(frame, component, node, [], given, [])
    return False


def _run_data_not_followed(frame: Frame, component: Value, data: Value, node: ast.Call) -> None:
    """What varies in a pipeline run's data the analysis cannot read: PC506, never clean."""
    api = "Haystack chat prompt builder" if component.kind == "chat_builder" else _PROMPT_BUILDER
    frame.findings.sink_value(api, "system", Value(deps=unfollowed(data.deps)), node)


_PROMPT_BUILDER = "Haystack prompt builder"
# The kind of a pipeline's field that holds what a connection sends a builder's input.
_FED = "fed"


def _connection(
    frame: Frame, pipeline: Value, node: ast.Call, args: list[Value], keywords: dict[str, Value]
) -> tuple[str, Value] | None:
    """`connect("retriever.documents", "prompt_builder.documents")` into a builder the pipeline
    knows: ("prompt_builder.documents", the sender's output, per-request data)."""
    sender = (args[0] if args else keywords.get("sender", EMPTY)).text
    receiver = (args[1] if len(args) > 1 else keywords.get("receiver", EMPTY)).text
    if sender is None or receiver is None or "." not in receiver:
        return None
    builder = receiver.partition(".")[0]
    if not any(name == builder and v.kind != _FED for name, v in pipeline.fields or ()):
        return None
    label = f"`{sender}` (a pipeline component's output, made for each run)"
    taint = frame.taint(PER_REQUEST, label, node)
    return receiver, Value(deps=frozenset({taint}), pieces=(frozenset({taint}),), kind=_FED)


def _fill(
    frame: Frame,
    info: dict[str, Slot],
    filled: list[tuple[str, Value]],
    mapping: Value | None,
    node: ast.Call,
    api: str,
) -> None:
    """Judge the variables `filled` by keyword, and those of a `mapping` passed whole, where the
    template (`info`) puts them; a template or a mapping the analysis could not read makes what
    varies in them not followed (PC506), never clean."""
    if mapping is not None and mapping.fields is not None:
        filled = [*filled, *mapping.fields]
    elif mapping is not None:
        filled = [*filled, (UNSEEN_MESSAGES, mapping)]  # built where it cannot be read
    spread = [value for name, value in filled if name == "**"]  # `**extra`: any variable
    if spread:
        frame.findings.sink_value(
            api, "system", Value(deps=unfollowed(join_values(spread).deps)), node
        )
        filled = [(name, value) for name, value in filled if name != "**"]
    if UNSEEN_MESSAGES in info or any(name == UNSEEN_MESSAGES for name, _ in filled):
        lost = Value(deps=unfollowed(join_values(v for _, v in filled).deps))
        frame.findings.sink_value(api, "system", lost, node)
        return
    if UNSEEN_PART in info:
        info = {name: place for name, place in info.items() if name != UNSEEN_PART}
        unseen = [value for name, value in filled if name not in info]
        lost = Value(deps=unfollowed(join_values(unseen).deps))
        frame.findings.sink_value(api, "system", lost, node)
        filled = [(name, value) for name, value in filled if name in info]
    template_variables(frame, info, Value(fields=tuple(filled)), node, api=api)


def _chat_info(template: Value, module: Module) -> dict[str, Slot]:
    """Each Jinja variable of a chat builder's messages: the static characters after it (in its
    message and the later ones), the position it reaches ("system" or "messages" when a history
    is spliced in after its message, else "template": judged by the text after it), and where
    `module` writes it."""
    info: dict[str, Slot] = {}
    if template.items is None:
        if any(isinstance(p, str) for p in template.pieces or ()):  # `{% message role=... %}`
            _jinja_variables(static_of(template), "template", 0, info, module=module)
        else:
            info[UNSEEN_MESSAGES] = Slot(0, "unseen")
        return info
    items = template.items
    for position, item in enumerate(items):
        turn = item.meta if isinstance(item.meta, ChatTurn) else None
        if turn is None or not _all_seen(turn.text):
            info[UNSEEN_PART] = Slot(0, "unseen")
        if turn is None:
            continue  # a spliced history, or a message made where the analysis cannot see
        later = items[position + 1 :]
        history = any(v.spliced for v in later)
        later_text = sum(
            len(_JINJA_TAG.sub("", static_of(v.meta.text)))
            for v in later
            if isinstance(v.meta, ChatTurn)
        )
        role = "system" if turn.role == "system" else "messages"
        role = role if history else "template"
        _jinja_variables(static_of(turn.text), role, later_text, info, module=module)
    return info


def _all_seen(text: Value) -> bool:
    """Whether a message's whole text is known (no part made where the analysis cannot see)."""
    pieces = text.pieces
    return pieces is not None and all(isinstance(piece, str) for piece in pieces)


def _jinja_variables(
    text: str,
    role: str,
    later: int,
    info: dict[str, Slot],
    use: re.Pattern[str] = _JINJA_USE,
    module: Module | None = None,
) -> None:
    """Each variable `use` finds in `text`: the static characters after its first use (`later`
    more after the text), the position it reaches and where `module` writes it."""
    for found in use.finditer(text):
        name = next((group for group in found.groups() if group), None)
        if name is None or name in info:
            continue
        after = len(_JINJA_TAG.sub("", strip_tail(text[found.end() :]))) + later
        info[name] = slot_at(module, text, found.start(), found.end(), after, role)


# -- Semantic Kernel's prompt functions ----------------------------------------------------

_SK_SYNTAX = {name: re.compile(pattern) for name, pattern in VARIABLE_SYNTAX}
_ANY_SK_SYNTAX = re.compile("|".join(pattern for _, pattern in VARIABLE_SYNTAX))
_SK_API = "Semantic Kernel prompt function"
# `Value.meta` of a `KernelArguments(...)`: what only a Semantic Kernel function is run with.
_KERNEL_ARGUMENTS = "KernelArguments"


def sk_arguments(keywords: dict[str, Value]) -> Value:
    """`KernelArguments(name=value, ...)`: a mapping of the arguments (`settings=` is none)."""
    fields = tuple((k, v) for k, v in keywords.items() if k != "settings")
    deps = join_values(v for _, v in fields).deps
    return Value(deps=deps, fields=fields, kind="dict", meta=_KERNEL_ARGUMENTS)


def sk_agent(
    frame: Frame, name: str, node: ast.Call, keywords: dict[str, Value], made: Value
) -> Value | None:
    """`ChatCompletionAgent(instructions=..., arguments=KernelArguments(...))`: its instructions
    are a template of the system prompt (the whole conversation follows them), filled by the
    agent's arguments here and by those given where it runs; None for any other call. `made`:
    what the call gives without this knowledge (its dependencies are kept)."""
    if name.rpartition(".")[2] not in AGENTS or not name.startswith("semantic_kernel"):
        return None
    instructions = keywords.get("instructions")
    if instructions is None:
        return None
    template = sk_template(instructions, keywords.get("template_format"), frame.module)
    info = template.meta if isinstance(template.meta, dict) else {}
    info = {key: slot._replace(role="system") for key, slot in info.items()}
    agent = Value(deps=made.deps, kind="sk_function", meta=info)
    arguments = keywords.get("arguments")
    if arguments is not None:
        _fill(frame, info, [], arguments, node, "Semantic Kernel agent")
    return agent


def sk_template(text: Value, template_format: Value | None, module: Module | None = None) -> Value:
    """A prompt template's text in its format (`PromptTemplateConfig`): its variables (placed
    where `module` writes them)."""
    info: dict[str, Slot] = {}
    if not any(isinstance(p, str) for p in text.pieces or ()):
        info[UNSEEN_MESSAGES] = Slot(0, "unseen")  # read from where the analysis cannot see
        return Value(kind="sk_function", meta=info)
    name = "semantic-kernel" if template_format is None else template_format.text
    # A format computed at run time, or one this does not know: any syntax may be the one.
    syntax = _SK_SYNTAX.get(name or "", _ANY_SK_SYNTAX)
    _jinja_variables(static_of(text), "template", 0, info, syntax, module)
    if not _all_seen(text):  # a part made where the analysis cannot see may use others
        info[UNSEEN_PART] = Slot(0, "unseen")
    return Value(kind="sk_function", meta=info)


def sk_function(result: Value, keywords: dict[str, Value], module: Module) -> Value:
    """`KernelFunctionFromPrompt(...)`, `kernel.add_function(...)`: the function, knowing its
    template's variables (from `prompt=` or `prompt_template_config=`; an `add_function` of a
    function made elsewhere is that function)."""
    for keyword in ("prompt_template_config", "function"):
        given = keywords.get(keyword)
        if given is not None and given.kind == "sk_function":
            return given
    if "prompt" in keywords:
        return sk_template(keywords["prompt"], keywords.get("template_format"), module)
    return result


def sk_yaml(frame: Frame, args: list[Value], keywords: dict[str, Value]) -> Value:
    """`KernelFunctionFromPrompt.from_yaml(text)`: its `template:` and `template_format:`, read
    with PyYAML as Semantic Kernel reads them; text that is not seen, not YAML, or no PyYAML
    leaves the template unseen (its arguments not followed)."""
    text = args[0] if args else keywords.get("yaml_str", EMPTY)
    try:
        yaml = importlib.import_module("yaml")
        data = yaml.safe_load(text.text) if text.text is not None else None
    except (ImportError, ValueError, AttributeError, TypeError):
        data = None
    except Exception:  # yaml.YAMLError and its kin (PyYAML is imported lazily): unreadable
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("template"), str):
        return sk_template(EMPTY, None)
    fmt = data.get("template_format")
    return sk_template(
        Value(pieces=(data["template"],)), Value(pieces=(fmt,)) if isinstance(fmt, str) else None
    )


def sk_invoke(
    frame: Frame,
    method: str,
    receiver: Value | None,
    node: ast.Call,
    args: list[Value],
    keywords: dict[str, Value],
) -> None:
    """`kernel.invoke(function, arguments, **kwargs)` or `function.invoke(kernel, arguments)`:
    the prompt function's variables filled with the arguments; `KernelArguments` given to a
    function the analysis has not seen made are not followed."""
    if method not in INVOKE_METHODS:
        return
    on_function = receiver is not None and receiver.kind == "sk_function"
    function = receiver if on_function else keywords.get("function", args[0] if args else None)
    arguments = keywords.get("arguments", args[1] if len(args) > 1 else None)
    filled = [(k, v) for k, v in keywords.items() if k not in NOT_ARGUMENTS]
    if function is not None and function.kind == "sk_function" and isinstance(function.meta, dict):
        _fill(frame, function.meta, filled, arguments, node, _SK_API)
    elif arguments is not None and arguments.meta == _KERNEL_ARGUMENTS:
        # A function the analysis has not seen made (a plugin loaded from a folder, one looked
        # up by name): it may be a prompt, so what varies in its arguments is not followed.
        unseen = {UNSEEN_MESSAGES: Slot(0, "unseen")}
        _fill(frame, unseen, filled, arguments, node, _SK_API)


def sk_prompt(frame: Frame, node: ast.Call, args: list[Value], keywords: dict[str, Value]) -> None:
    """`kernel.invoke_prompt(prompt, arguments=..., template_format=...)`: made and run at once."""
    text = args[0] if args else keywords.get("prompt", EMPTY)
    function = sk_template(text, keywords.get("template_format"), frame.module)
    filled = [(k, v) for k, v in keywords.items() if k not in NOT_ARGUMENTS]
    if isinstance(function.meta, dict):
        _fill(frame, function.meta, filled, keywords.get("arguments"), node, _SK_API)
