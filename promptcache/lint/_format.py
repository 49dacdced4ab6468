"""
Prompt files written for `str.format`: `{name}` fields, and literal braces doubled as `{{ }}`.

Such a file often does not parse as Jinja (a JSON example written `{{"points": ...}}`), yet it
is a prompt like any other. When Jinja refuses it and `string.Formatter` accepts it, it is
checked as a format template: each field is a per-request value (PC105) when its name says so,
and content of unknown size otherwise, reported itself (PC106) only above a long static block,
as a Jinja variable of unknown meaning is, unless it is declared `stable`; a field after a label
on its line (`Result: {result}`) is one field of the request's data, as a labelled Jinja value is.
"""

from __future__ import annotations

import re
import string

from .._tokens import DEFAULT_COUNTER
from ._config import LintConfig
from .templates import Event, Hazard, Unsized
from .templates._output import FIELD_LABEL, counted, own_line_or_label

__all__ = ["format_events"]

_FORMATTER = string.Formatter()
# What `str.format` accepts as a field name: empty, an index, or a name with attributes/items.
_FIELD = re.compile(r"(?:\d*|[A-Za-z_]\w*)(?:\.[A-Za-z_]\w*|\[[^\]{}]*\])*")


def format_events(source: str, config: LintConfig, origin: str) -> list[Event] | None:
    """The events of a `str.format` template, or None when `source` is not one."""
    if "{%" in source or "{#" in source:
        return None  # Jinja statements or comments: a Jinja template with an error
    try:
        pieces = list(_FORMATTER.parse(source))
    except ValueError:
        return None
    fields = [field for _, field, _, _ in pieces if field is not None]
    if not all(_FIELD.fullmatch(field) for field in fields):
        return None  # `{{ name }}` written with spaces, or an expression: not a format field
    if not fields and "{{" not in source:
        return None
    events: list[Event] = []
    line, text = 1, ""  # the line a field is on, and that line's text before it
    for index, (literal, field, _, _) in enumerate(pieces):
        events.append(DEFAULT_COUNTER.count(literal))
        line += literal.count("\n")
        text = literal.rsplit("\n", 1)[-1] if "\n" in literal else text + literal
        if field is not None:
            labelled = FIELD_LABEL.match(text) is not None
            after = pieces[index + 1][0] if index + 1 < len(pieces) else ""
            own_line = own_line_or_label(text, after.split("\n", 1)[0]) == "line"
            events.extend(
                _field_events(field, line, config, origin, labelled=labelled, own_line=own_line)
            )
            text += "{}"  # a second field on the line is not after a label
    return events


def _field_events(
    field: str, line: int, config: LintConfig, origin: str, *, labelled: bool, own_line: bool
) -> list[Event]:
    name = field.split("[", 1)[0]
    if not name or name.isdigit():
        return [Unsized("a positional field", field=labelled)]
    if config.is_per_request(name):
        detail = f"format placeholder `{{{field}}}`, filled per request"
        return [Hazard("PC105", line, f"{{{field}", detail, origin)]
    if config.is_declared_stable(name) or counted(name):
        return [Unsized(name, field=labelled)]
    root = name.split(".", 1)[0]
    detail = (
        f"format placeholder `{{{root}}}` of unknown meaning (if it changes per user or request)"
    )
    found = Hazard("PC106", line, f"{{{root}", detail, origin, placeholder=own_line)
    return [found, Unsized(name, field=labelled)]
