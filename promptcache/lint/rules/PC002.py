"""
Part of the template could not be checked.

Why:
    A missing include or parent template, a template name computed at render time, or a tag
    from a Jinja extension the linter does not load hides what the template renders. The linter
    says so (an info finding: it does not fail the run) instead of passing the template as
    clean. Resolve includes with `search-path`, and load the extensions the templates use with
    `extensions` in `[tool.promptcache.lint]`.

Bad:
    {% include "partials/" ~ persona ~ ".j2" %}
    {% now 'utc', '%Y-%m-%d' %}

Good:
    You are a support agent.
    {{ policy_manual }}
    {# promptcache: tail #}
    Today is {{ today }}.
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC002",
    name="not-checked",
    severity="info",
    fix=(
        "resolve includes with `search-path` and load the template's Jinja extensions with "
        "`extensions` in [tool.promptcache.lint]"
    ),
)
