"""
A format-style placeholder for a per-request value sits in the cacheable prefix.

Why:
    Many prompt files are filled by `str.format`, f-strings or LangChain's `PromptTemplate`
    rather than by Jinja: `{current_datetime}` or `{user_name}` in the text. Jinja passes the
    single braces through untouched, so the value is filled in later, at run time, and every
    request's prefix differs from that point on. The placeholder names are matched against the
    same per-request list as PC102 (`per-request`, `extend-per-request`, `stable`). In a file
    named as a Jinja template (`.j2`, `.jinja`, `.jinja2`, and `.prompty`, whose body Jinja
    renders), single braces are literal text (a title format, an example): they are a PC002
    note, not a finding.

Bad:
    The current time is {current_datetime}. Answer for {user_name}.
    {{ policy_manual }}

Good:
    {{ policy_manual }}
    {# promptcache: tail #}
    The current time is {current_datetime}. Answer for {user_name}.
"""

from __future__ import annotations

import re

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC105",
    name="per-request-placeholder",
    severity="warning",
    fix="fill it at the end of the text or below `{# promptcache: tail #}`",
)

# `{name}` or `{name.attr}` with single braces; `{{` is Jinja's own and never reaches the text.
FORMAT_FIELD = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}(?!\})")
# Files named as Jinja templates: Jinja renders them, and writes their single braces out as text.
# A `.prompty` body is rendered by Jinja too (prompty's default template engine).
JINJA_SUFFIXES = (".j2", ".jinja", ".jinja2", ".prompty")
