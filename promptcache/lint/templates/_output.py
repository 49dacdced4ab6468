"""
Output: what `{{ ... }}` and template text write.

Functions of a `Walker` (`_walker`): static text and its `{placeholder}`s (PC105), a rendered
expression's hazard or size (declared, a special token, short, or unknown), a variable of
unknown meaning (PC106), an unsorted mapping view (PC201).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from jinja2 import nodes

from .._config import _matcher
from ..rules.PC101 import SHORT_VALUE_NAMES, SHORT_VALUE_TOKENS
from ..rules.PC102 import is_deployment_date
from ..rules.PC105 import FORMAT_FIELD, JINJA_SUFFIXES
from ..rules.PC106 import is_count, is_data_name, is_tool_list
from ..rules.PC201 import MAPPING_VIEWS, SORTING_FILTERS
from ._bindings import Captured, Scope
from ._events import TAIL, TAIL_NAME, Event, Hazard, Unsized, count_tokens
from ._nodes import calls, dotted_name, shown_name, with_self

if TYPE_CHECKING:
    from ._walker import Walker

__all__ = [
    "FIELD_LABEL",
    "check_unknown",
    "counted",
    "own_line_or_label",
    "render",
    "unsorted_to_report",
]

# The text before a value on its line that makes it a labelled field: `- Result: `, `(Note: `,
# `用户请求：` (CJK text writes the full-width colon).
FIELD_LABEL = re.compile(r"^[ \t]*[-*(\[]?[ \t]*[^\W\d_][\w '/&.-]{0,40}[:：][ \t]*$")

_SHORT_VALUE = _matcher(SHORT_VALUE_NAMES)
# Where a `{placeholder}` is written on its line (see `own_line_or_label`).
Placement = Literal["line", "label", "prose"]
# What Jinja's `loop` says of the current iteration: a number or a boolean, about one token.
# Not `loop.previtem`/`loop.nextitem`: those are items of the iterated data.
_LOOP_COUNTERS = frozenset(
    {"index", "index0", "revindex", "revindex0", "length", "depth", "depth0", "first", "last"}
)

# Names Jinja itself provides (globals, the special names of blocks, loops and macros, and the
# i18n extension's translation calls): not the caller's variables, so their meaning is known.
_JINJA_NAMES = frozenset(
    {"_", "caller", "cycler", "dict", "gettext", "joiner", "kwargs", "lipsum", "loop",
     "namespace", "ngettext", "npgettext", "pgettext", "range", "self", "super", "varargs"}
)  # fmt: skip


def _s_Output(walker: Walker, node: nodes.Output, scope: Scope, out: list[Event]) -> None:
    line, labelled = "", False  # the static text of the current line; a label seen on it
    for child in node.nodes:
        if type(child) is nodes.TemplateData:
            _text(walker, child, out, line)
            text = child.data
            if walker.state.history:  # template text is read like a string constant
                walker.check_history_text(child, out)
            if "\n" in text:
                line, labelled = text.rsplit("\n", 1)[1], False
            else:
                line += text
            labelled = labelled or FIELD_LABEL.match(line) is not None
        else:
            render(walker, child, scope, out, field=labelled)
            walker.state.sections.value()


def _text(walker: Walker, data: nodes.TemplateData, out: list[Event], before: str = "") -> None:
    """
    Static text, and the `{placeholder}`s in it that a later str.format fills: a per-request
    one is a hazard (PC105); any other written inside the prose is content of unknown size, as
    a Jinja variable is (the parser's format instructions a `partial` fills, not the few letters
    of its name). `before` is the static text of the line before `data`. The text is read for
    its headings and labels (`Sections`) up to each placeholder.
    """
    text = data.data
    start = 0
    sections = walker.state.sections
    if not walker.chat and "{" in text:
        for match in FORMAT_FIELD.finditer(text):
            name = match.group(1)
            per_request = walker.config.is_per_request(name)
            line = data.lineno + text.count("\n", 0, match.start())
            if _rendered_by_jinja(walker.origin):
                if per_request:
                    _note_literal_field(walker, match.group(0), line)
                continue
            out.append(count_tokens(text[start : match.start()]))
            sections.text(text[start : match.start()])
            sections.value()
            start = match.end()
            if per_request:
                detail = f"format placeholder `{{{name}}}`, filled per request"
                out.append(walker.hazard("PC105", line, match.group(0), detail))
            elif _SHORT_VALUE(name.rsplit(".", 1)[-1]):
                out.append(SHORT_VALUE_TOKENS)
            else:
                out.extend(_unknown_field(walker, match, line, _placement(text, match, before)))
    out.append(count_tokens(text[start:]))
    sections.text(text[start:])


def counted(name: str) -> bool:
    """Whether a `{field}` holds a count or a limit the code configures (`{max_length}`), not
    content that may change per request: nothing PC106 needs to ask about."""
    return is_count(name)


def _unknown_field(
    walker: Walker, match: re.Match[str], line: int, placed: Placement
) -> list[Event]:
    """
    A `{placeholder}` of unknown meaning, `placed` on a line of its own, after a short label or
    inside the prose (`_placement`). It is reported above a long static block (PC106), as a
    Jinja variable is, unless declared `stable` or a count; one on its own line, a section of
    data the call fills, above a shorter block (`FORMAT_FIELD_FACTOR`). For the values above
    it, one inside the prose is content of unknown size; the others are the request's own data,
    counted as the few tokens of their name.
    """
    name = match.group(1)
    found: list[Event] = []
    if not walker.config.is_declared_stable(name) and not counted(name):
        root = name.split(".", 1)[0]
        labelled = _labelled_data(walker, f"format placeholder `{{{root}}}`", root, line)
        if labelled is not None:
            return [labelled, count_tokens(match.group(0))]
        data = _data_section(walker, f"format placeholder `{{{root}}}`", name)
        if data is not None:
            hazard = Hazard("PC106", line, match.group(0), data, walker.origin, data=True)
            return [hazard, count_tokens(match.group(0))]
        detail = f"format placeholder `{{{root}}}` of unknown meaning (if it changes per request)"
        own_line = placed == "line"
        found.append(
            Hazard("PC106", line, match.group(0), detail, walker.origin, placeholder=own_line)
        )
    found.append(Unsized(name) if placed == "prose" else count_tokens(match.group(0)))
    return found


def _placement(text: str, match: re.Match[str], before: str) -> Placement:
    """
    Where a `{placeholder}` is written: on a `line` of its own (`Code:` then `{code}`: a section
    of the request's data), after a short `label` (`Answer: {answer}`), or inside the `prose`
    (`... Output Structure: {schema}`), where what fills it reads as part of the instructions.
    """
    newline = text.rfind("\n", 0, match.start())
    head = text[newline + 1 : match.start()] if newline >= 0 else before + text[: match.start()]
    end = text.find("\n", match.end())
    tail = text[match.end() : end if end >= 0 else len(text)]
    return own_line_or_label(head, tail)


def own_line_or_label(head: str, tail: str) -> Placement:
    """`line`, `label` or `prose`, from the text before a field on its line and after it."""
    if not head.strip() and not tail.strip(" \t.:,;"):
        return "line"
    return "label" if FIELD_LABEL.match(head) is not None else "prose"


def _note_literal_field(walker: Walker, field: str, line: int) -> None:
    """A `{placeholder}` that Jinja leaves as it is: a value only if code `.format()`s it."""
    walker.note(
        line,
        f"`{field}` is literal text when Jinja renders this file (an output format or an "
        "example, not a value); if your code also fills it with str.format, it is a "
        "per-request value in the prefix",
    )


def render(
    walker: Walker, expr: nodes.Expr, scope: Scope, out: list[Event], *, field: bool = False
) -> None:
    """An expression whose value is written to the output (`field`: after a label)."""
    if type(expr) is nodes.Const:
        if isinstance(expr.value, str):
            if walker.state.history:
                walker.check_history_expr(expr, scope, out)
            out.append(count_tokens(expr.value))
        return
    if type(expr) is nodes.Name and expr.name == TAIL_NAME:
        out.append(TAIL)
        return
    extension = next(iter(with_self(expr, nodes.ExtensionAttribute)), None)
    if extension is not None:
        # A loaded extension's tag (`{% now %}`) renders what its Python code returns.
        walker.note(
            expr.lineno,
            f"the output of the `{extension.identifier.rsplit('.', 1)[-1]}` extension's tag: "
            "whether it changes per request is up to its code",
        )
        out.append(Unsized("an extension's output"))
        return
    inlined = False
    for call in calls(expr):
        macro = walker.called_macro(call.node, scope)
        if macro is not None:
            out.extend(walker.inline(macro, call.lineno))
            inlined = True
    hazard = walker.reason(expr, scope)
    if hazard is not None:
        out.append(hazard)
    elif (view := unsorted_to_report(walker, expr, scope)) is not None:
        out.append(walker.hazard("PC201", expr.lineno, view[1], f"unsorted `{view[0]}`"))
    elif type(expr) is nodes.Name and isinstance(scope.get(expr.name), Captured):
        out.append(scope[expr.name].tokens)
    elif not inlined:  # a macro's output was counted where it was inlined
        sized = _sized(walker, expr, scope)
        check_unknown(walker, expr, sized, scope, out)
        out.append(
            Unsized(sized.name, field=True) if field and isinstance(sized, Unsized) else sized
        )
    if walker.state.history:
        walker.check_history_expr(expr, scope, out)


def check_unknown(
    walker: Walker, expr: nodes.Node, sized: int | Unsized, scope: Scope, out: list[Event]
) -> None:
    """
    A variable of unknown meaning (PC106): reported only above a long static block.

    It stays content of unknown size for the values before it (its event follows the
    hazard); `risks` reports it only when LONG_PREFIX_FACTOR times `threshold` tokens follow.
    """
    name = shown_name(expr)
    if walker.chat or name is None:
        return
    # a count (`max_words`, `budget`) is sized as a few tokens, but a label can still say whose
    counted = is_count(name.rsplit(".", 1)[-1]) and sized == SHORT_VALUE_TOKENS
    if not isinstance(sized, Unsized) and not counted:
        return
    root = name.split(".", 1)[0]
    if root in scope or root in _JINJA_NAMES or walker.config.is_declared_stable(name):
        return  # bound in the template, one of Jinja's own names, or declared
    if is_tool_list(name) or is_deployment_date(name):
        return  # the tools a deployment gives the model, its cutoff or release date
    labelled = _labelled_data(walker, f"variable `{root}`", root, expr.lineno)
    if labelled is not None:
        out.append(labelled)
        return
    if counted:
        return  # a count or a limit is never of unknown meaning
    data = _data_section(walker, f"variable `{root}`", name)
    if data is not None:
        out.append(Hazard("PC106", expr.lineno, root, data, walker.origin, data=True))
        return
    detail = f"variable `{root}` of unknown meaning (if it changes per user or request)"
    out.append(walker.hazard("PC106", expr.lineno, root, detail))


def _data_section(walker: Walker, shown: str, name: str) -> str | None:
    """
    The detail of a section of data (PC106's `names_data`, `is_data_name`): a value of unknown
    meaning that the heading or label line over it, or else its own name, says is the material
    the prompt works on (not its output's format, an example or the rules); None otherwise.
    """
    named = is_data_name(name)
    if named is False:
        return None
    said = walker.state.sections.over_data()
    if said:
        return f"{shown}, which its heading or label says is the data the prompt works on,"
    if said is None and named:
        return f"{shown}, which its name says is the data the prompt works on,"
    return None


def _labelled_data(walker: Walker, shown: str, root: str, line: int) -> Hazard | None:
    """
    A value of unknown meaning that the prompt's heading or label says is the user's or today's
    (`Sections`): per-request data (PC102), whatever its name. Claimed fixed for at most a
    conversation, the weaker claim (what follows it is judged as what follows a date is); in a
    message after the conversation it does not change.
    """
    if not walker.state.sections.over_value():
        return None
    detail = f"{shown}, which its heading or label says is the user's or today's,"
    return walker.per_request(line, root, detail, per_turn=False, in_system=detail)


def _sized(walker: Walker, expr: nodes.Expr, scope: Scope) -> int | Unsized:
    """
    How much a stable value adds: its declared size (`sizes`), or unknown.

    Special tokens (`bos_token`, `eos_token`, any `*_token`) count as one token. Anything
    else is content of unknown size, named by the variable it shows.
    """
    name = shown_name(expr)
    if name is None:
        return Unsized("an expression")
    declared = walker.config.declared_size(name)
    if declared is not None:
        return declared
    leaf = name.rsplit(".", 1)[-1]
    if leaf.endswith("_token") or _is_loop_counter(name):
        return 1
    if _SHORT_VALUE(leaf) or is_count(leaf):
        return SHORT_VALUE_TOKENS  # a name, a language, a count or a limit: a few tokens
    return Unsized(name)


def _is_loop_counter(name: str) -> bool:
    """`loop.index` and the like (Jinja reserves the name `loop`: a template cannot rebind it)."""
    root, _, leaf = name.partition(".")
    return root == "loop" and leaf in _LOOP_COUNTERS


def unsorted_to_report(walker: Walker, expr: nodes.Node, scope: Scope) -> tuple[str, str] | None:
    """
    An unsorted mapping view worth reporting (PC201).

    A dict written in the template keeps its order, and a chat template iterates the
    request JSON the client sent (tool schemas, tool-call arguments), whose order the
    client fixes; what is left is a mapping built per request, known by its name
    (`per-request`, or any name not declared stable in strict mode).
    """
    if walker.chat:
        return None
    view = _unsorted_view(expr)
    if view is None or view[2] is None:
        return None
    root = view[2].split(".", 1)[0]
    if root in scope and not isinstance(scope[root], Hazard):
        return None  # a loop variable or a local: its data was judged where it came from
    return view[:2] if walker.config.is_per_request(view[2]) else None


def _rendered_by_jinja(origin: str) -> bool:
    """A file named as a Jinja template, whose single braces Jinja writes out unchanged."""
    return origin.lower().endswith(JINJA_SUFFIXES)


def _unsorted_view(expr: nodes.Node) -> tuple[str, str, str | None] | None:
    """
    (`what`, anchor, mapping) when `expr` iterates a mapping view with no sort after it.

    `mapping` is the dotted name of the mapping, or None when it is not a variable (a dict
    literal written in the template, or a call's result).
    """
    node: Any = expr
    while type(node) is nodes.Filter:
        if node.name in SORTING_FILTERS:
            return None
        if node.name == "items" and node.node is not None:
            mapping = dotted_name(node.node)
            return f"{mapping or 'mapping'} | items", "items", mapping
        node = node.node
    if type(node) is nodes.Call and type(node.node) is nodes.Getattr and not node.args:
        view = node.node.attr
        if view in MAPPING_VIEWS:
            mapping = dotted_name(node.node.node)
            return f"{dotted_name(node.node) or view}()", view, mapping
    return None
