"""
The template cannot be read or parsed.

Why:
    A template that does not parse (or is not UTF-8 text) cannot be checked for cache busters,
    and it will fail at render time. The linter reports it as a finding and goes on with the
    other files.

Bad:
    Answer as {{ persona }.
    {% if tools %}Use the tools.

Good:
    Answer as {{ persona }}.
    {% if tools %}Use the tools.{% endif %}
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(__doc__, code="PC001", name="parse-error", severity="error")
