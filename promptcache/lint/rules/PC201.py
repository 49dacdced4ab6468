"""
A loop or output iterates a per-request mapping's `.items()`, `.keys()` or `.values()` unsorted.

Why:
    A mapping iterates in insertion order, and a mapping built per request (request headers, a
    user's settings, a JSON round-trip, a set turned into a dict) often arrives in a different
    order each time: the same data renders differently and the prefix no longer matches.
    `dictsort` (or `sort`) makes the order part of the template. A dict written in the template
    keeps its order, and a chat template iterates the request JSON the client sends (tool
    schemas, replayed tool-call arguments), whose order the client fixes: neither is reported.
    Mappings are judged by name like PC102 (`per-request`, `stable`); `strict = true` reports
    every mapping not declared stable.

Bad:
    {% for key, value in request.headers.items() %}{{ key }}
    {% endfor %}
    Answer with the headers above in mind.

Good:
    {% for key in request_header_names | sort %}{{ key }}
    {% endfor %}
    Use these headers.
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC201",
    name="unsorted-mapping",
    severity="warning",
    fix="iterate with `| dictsort` (or `| sort`) so the order is fixed",
)

MAPPING_VIEWS = frozenset({"items", "keys", "values"})
SORTING_FILTERS = frozenset({"sort", "dictsort"})
