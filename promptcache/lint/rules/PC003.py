"""
A file that is not a Jinja prompt template, or cannot be read, was skipped.

Why:
    Folders often hold templates that are not prompts: HTML pages, code and configuration
    generators (`nginx.conf.j2`, `models.py.j2`), and Handlebars `.prompt` files (dotprompt)
    that Jinja cannot parse. Linting them only gives noise, so in folder mode the linter skips
    them and says so. Handlebars files are skipped even when named on the command line. Use
    `exclude` in `[tool.promptcache.lint]` to skip other files, and `include` to lint more names.
    A file found in a folder that cannot be read (over `--max-bytes`, a broken link or symlink
    loop, a FIFO or device) is skipped with this notice too: it was not checked.

Bad:
    You are a chef. Generate a recipe for {{food}}.
    {{#if ingredients}}Use: {{list ingredients}}{{/if}}

Good:
    You are a chef. Generate a recipe for {{ food }}.
    {% if ingredients %}Use: {{ ingredients | join(", ") }}{% endif %}
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC003",
    name="not-a-prompt",
    severity="info",
    fix=(
        "add it to `exclude` in [tool.promptcache.lint] to silence this notice, or name it on "
        "the command line to lint it anyway"
    ),
)
