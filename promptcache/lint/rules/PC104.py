"""
An include, import, macro or parent template renders volatile output in the prefix.

Why:
    The volatile value is not written in this template, so it is easy to miss: an included
    partial that prints the date, a macro that calls `now()`, or a parent template with a
    timestamp in its header. The linter follows includes, imports, macros and `extends`
    (transitively) and reports the place where the volatile output is rendered.

Bad:
    {% from "helpers.j2" import stamp %}
    {{ stamp() }}  {# stamp() renders now() #}
    {{ policy_manual }}

Good:
    {% from "helpers.j2" import stamp %}
    {{ policy_manual }}
    {{ stamp() }}
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC104",
    name="volatile-dependency",
    severity="warning",
    fix="render it at the end of the template or below `{# promptcache: tail #}`",
)
