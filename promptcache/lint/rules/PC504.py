"""
A set, or a dict built from one, is iterated into the prefix in its arbitrary order.

Why:
    The iteration order of a `set`/`frozenset` of strings changes with PYTHONHASHSEED, so it
    differs between worker processes and restarts; a dict built from a set (or its `keys()`,
    `values()`, `items()`) inherits that order. Tool lists and prompt sections joined from such a
    collection break the cache across processes. `--fix` wraps the set in `sorted(...)` when its
    elements are strings, where it is iterated or where a dict is built from it
    (`dict.fromkeys(names)`, `{n: ... for n in names}`).

Bad:
    def ask(client, history, question):
        enabled = {"search", "calculator", "calendar"}
        system = "You can use: " + ", ".join(enabled)
        return client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=512,
            system=system,
            messages=[*history, {"role": "user", "content": question}],
        )

Good:
    def ask(client, history, question):
        enabled = {"search", "calculator", "calendar"}
        system = "You can use: " + ", ".join(sorted(enabled))
        return client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=512,
            system=system,
            messages=[*history, {"role": "user", "content": question}],
        )
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC504",
    name="set-order-in-prefix",
    severity="warning",
    fix="iterate `sorted(...)` of it (`promptcache lint --fix` adds it for sets of strings)",
)
