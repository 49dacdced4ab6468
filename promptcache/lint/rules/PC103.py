"""
Control flow in the cacheable prefix depends on a per-request value.

Why:
    An `{% if %}` whose test reads a per-request variable (or a volatile call), or a
    `{% for %}` over per-request data, makes the prefix fork: requests that take different
    branches share no cache after that point, and each branch is cached separately. Move the
    decision below the static content, or make it depend on configuration only. A yes/no flag
    named after a per-request value (`is_follow_up_question`, `has_memory`) is not that value:
    a branch on it forks the prefix in two, each cached, and the value is reported where it
    renders; a flag of a per-request object (`user.is_admin`) is still the request's.

Bad:
    {% if user.is_admin %}You may change settings.{% endif %}
    {{ policy_manual }}

Good:
    {{ policy_manual }}
    {% if user.is_admin %}You may change settings.{% endif %}
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC103",
    name="per-request-branch",
    severity="warning",
    fix="move the branch below the static content, or below `{# promptcache: tail #}`",
)
