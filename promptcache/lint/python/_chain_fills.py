"""
Templates a framework fills itself (`frameworks/`' `TemplateFill`s): a chain made with a prompt
template runs it on every request and puts its own per-request data in some of its variables
(`create_stuff_documents_chain(llm, prompt)`: the retrieved documents in `{context}`). No code
of the project fills those variables, so the template's own rules (`_templates`) never see a
value there; here, at the call that makes the chain, they are filled with per-request data and
judged where the template places them.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ._flow import substitute
from ._knowledge import TemplateFill
from ._placeholders import Slot
from ._summaries import Pending
from ._values import PER_REQUEST, Param, Value
from .frameworks import FRAMEWORKS

if TYPE_CHECKING:
    from ._frame import Frame

__all__ = ["FILLED_BY", "PIPED_ROLE", "fill_passed", "fill_template", "pipe_into", "piped_passed"]

# The role of a `Pending` on a function that hands its parameter, a template, to such a call.
FILLS_ROLE = "fills"
# The role of a `Pending` on a function that pipes a mapping into its parameter, a template
# (`{"context": retriever, "question": RunnablePassthrough()} | prompt`): LangChain fills each
# of the template's variables with what the mapping's entry gives on every invoke.
PIPED_ROLE = "piped"
_PIPED_API = "LangChain prompt template"


def _by_last_name() -> dict[str, tuple[TemplateFill, ...]]:
    found: dict[str, tuple[TemplateFill, ...]] = {}
    for fill in (fill for framework in FRAMEWORKS for fill in framework.template_fills):
        for call in fill.calls:
            last = call.rpartition(".")[2]
            found[last] = (*found.get(last, ()), fill)
    return found


# By the last name of each call (`create_stuff_documents_chain`, `from_chain_type`).
_FILLS = _by_last_name()
FILLED_BY = frozenset(_FILLS)  # the last names of the calls that fill a template


def fill_template(
    frame: Frame, name: str, node: ast.Call, args: list[Value], keywords: dict[str, Value]
) -> None:
    """At a call of resolved `name` that fills a template it is handed, the variables it fills
    reach the template's positions as per-request data."""
    fill = _fill_named(name)
    if fill is None:
        return
    info = _template_info(fill, args, keywords)
    if info is None:  # a parameter's template (`def make(llm, prompt)`): its callers' one
        _pend_passed(frame, name, fill, args, keywords)
        return
    _fill(frame, name, fill, info, keywords, node)


def fill_passed(frame: Frame, name: str, template: Value, node: ast.AST) -> None:
    """A call of a function that hands its parameter to `name` (a chain that fills it): the
    caller's template is filled there, as if the call were made here; a parameter of the
    caller's own is its callers' template in turn."""
    params = [d for d in template.deps if isinstance(d, Param)]
    if _info(template) is None and len(params) == 1 and not params[0].path:
        frame.findings.pend(params[0], name, FILLS_ROLE, 0, False)
        return
    fill = _fill_named(name)
    if fill is not None:
        _fill(frame, name, fill, _info(template), {}, node)


def _fill_named(name: str) -> TemplateFill | None:
    """The template fill that resolved call `name` is (its dotted name ends in one of the
    fill's calls), or None."""
    for fill in _FILLS.get(name.rpartition(".")[2], ()):
        if any(name == call or name.endswith("." + call) for call in fill.calls):
            return fill
    return None


def _fill(
    frame: Frame,
    name: str,
    fill: TemplateFill,
    info: dict[str, Slot] | None,
    keywords: dict[str, Value],
    node: ast.AST,
) -> None:
    if not info:
        return
    filled = tuple(
        (variable, _filled(frame, fill, variable, node))
        for variable in _variables(fill, keywords)
        if variable in info
    )
    if filled:
        api = f"`{name.rpartition('.')[2]}()`, which fills it"
        frame.template_variables(info, Value(fields=filled), node, api=api)


def _pend_passed(
    frame: Frame, name: str, fill: TemplateFill, args: list[Value], keywords: dict[str, Value]
) -> None:
    for place in fill.template:
        value = _argument(place, args, keywords)
        params = [d for d in value.deps if isinstance(d, Param)] if value is not None else []
        if len(params) == 1 and not params[0].path:
            frame.findings.pend(params[0], name, FILLS_ROLE, 0, False)
            return


def _template_info(
    fill: TemplateFill, args: list[Value], keywords: dict[str, Value]
) -> dict[str, Slot] | None:
    """The variables of the template the call is handed (where each lands), if it is one."""
    for place in fill.template:
        value = _argument(place, args, keywords)
        if value is not None and value.kind in ("ptemplate", "chain"):
            return _info(value) or {}
    return None


def _info(template: Value) -> dict[str, Slot] | None:
    if template.kind in ("ptemplate", "chain") and isinstance(template.meta, dict):
        return template.meta
    return None


def _argument(place: str, args: list[Value], keywords: dict[str, Value]) -> Value | None:
    if place.isdigit():
        index = int(place)
        return args[index] if index < len(args) else None
    outer, _, inner = place.partition(".")
    value = keywords.get(outer)
    return value.field(inner) if value is not None and inner else value


def _variables(fill: TemplateFill, keywords: dict[str, Value]) -> tuple[str, ...]:
    """The variables it fills: the framework's own names, or the one a keyword names."""
    renamed = keywords.get(fill.renamed_by) if fill.renamed_by else None
    if renamed is not None and renamed.text is not None:
        return (renamed.text,)
    return fill.variables


def _filled(frame: Frame, fill: TemplateFill, variable: str, node: ast.AST) -> Value:
    taint = frame.taint(PER_REQUEST, f"`{{{variable}}}` ({fill.what})", node)
    deps = frozenset({taint})
    return Value(deps=deps, pieces=(deps,))


def pipe_into(frame: Frame, fields: tuple[tuple[str, Value], ...], right: Value) -> None:
    """`{...} | prompt` where `prompt` is a parameter (`def make_chain(self, prompt,
    retriever)`): the template is the caller's, so the mapping's values fill it at each call
    (`piped_passed`). A parameter that is no template there (a dict merged with `|`) is left."""
    param = _lone_param(right)
    if param is not None:
        frame.findings.pend(param, _PIPED_API, PIPED_ROLE, 0, False, fills=fields)


def piped_passed(
    frame: Frame,
    pending: Pending,
    template: Value,
    bound: dict[int | str, Value],
    node: ast.AST,
) -> None:
    """A call of a function that pipes a mapping into its parameter: the caller's template is
    filled by that mapping, as if the pipe were written here; a parameter of the caller's own is
    its callers' template in turn."""
    fields = tuple(
        (name, substitute(value, bound, 0, lambda v: frame.call_value(v, node)))
        for name, value in pending.fills
    )
    info = _info(template)
    if info is not None:
        frame.template_variables(info, Value(fields=fields), node)
        return
    param = _lone_param(template)
    if param is not None:
        frame.findings.pend(param, _PIPED_API, PIPED_ROLE, 0, False, fills=fields)


def _lone_param(value: Value) -> Param | None:
    """The parameter a value is, whole, if it is one (a template handed in)."""
    if value.kind or value.fields is not None or value.items is not None:
        return None
    params = [d for d in value.deps if isinstance(d, Param)]
    if len(params) == 1 and len(value.deps) == 1 and not params[0].path:
        return params[0]
    return None
