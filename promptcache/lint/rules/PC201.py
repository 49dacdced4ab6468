"""
A loop or output iterates a mapping's `.items()`, `.keys()` or `.values()` unsorted.

Why:
    A mapping iterates in insertion order, and insertion order often comes from a set, a
    database row, a JSON round-trip or a hash map in another service. The same data then renders
    in a different order and the prefix no longer matches. `dictsort` (or `sort`) makes the
    order part of the template.

Bad:
    {% for name, spec in tools.items() %}{{ name }}: {{ spec }}
    {% endfor %}
    Answer with one of the tools above.

Good:
    {% for name, spec in tools | dictsort %}{{ name }}: {{ spec }}
    {% endfor %}
    Answer with one of the tools above.
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
