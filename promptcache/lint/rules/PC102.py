"""
A per-request variable renders in the cacheable prefix.

Why:
    Variables such as `user.name`, `request_id` or `question` change from one request to the
    next. Rendered near the top, they make every request's prefix unique, so the static text
    after them is never read from the cache. Names and glob patterns are configurable
    (`per-request`, `extend-per-request`, `stable`).

Bad:
    Hello {{ user.name }}, session {{ session_id }}.
    {{ product_catalogue }}

Good:
    {{ product_catalogue }}
    {# promptcache: tail #}
    Hello {{ user.name }}, session {{ session_id }}.
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC102",
    name="per-request-variable",
    severity="warning",
    fix="render it at the end of the template or below `{# promptcache: tail #}`",
)

DEFAULT_PER_REQUEST = (
    "user",
    "user_*",
    "username",
    "request",
    "request_id",
    "session",
    "session_id",
    "conversation_id",
    "trace_id",
    "message_id",
    "timestamp",
    "*_timestamp",
    "date",
    "today",
    "now",
    "time",
    "datetime",
    "current_*",
    "question",
    "query",
    "user_query",
    "user_input",
    "input",
)
