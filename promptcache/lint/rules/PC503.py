"""
`json.dumps` without `sort_keys=True` serialises a value into the prefix.

Why:
    The bytes depend on the dict's insertion order. A schema or context dict assembled per
    request (merged from config, built in a loop, a comprehension, another module) can come out
    in a different order with the same content, and the cached prefix stops matching. Only a
    literal whose keys are written in the source has a fixed order (so has a comprehension over
    such a literal, or a list of dict literals). `--fix` adds `sort_keys=True`.

Bad:
    import json


    def ask(client, question, tools):
        schema = {name: tool.schema for name, tool in tools.items()}
        return client.chat.completions.create(
            model="gpt-4o",
            messages=[
                {"role": "system", "content": "Tools: " + json.dumps(schema)},
                {"role": "user", "content": question},
            ],
        )

Good:
    import json


    def ask(client, question, tools):
        schema = {name: tool.schema for name, tool in tools.items()}
        return client.chat.completions.create(
            model="gpt-4o",
            messages=[
                {"role": "system", "content": "Tools: " + json.dumps(schema, sort_keys=True)},
                {"role": "user", "content": question},
            ],
        )
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC503",
    name="unsorted-json-in-prefix",
    severity="warning",
    fix="pass `sort_keys=True` (orjson: `option=orjson.OPT_SORT_KEYS`; `promptcache lint --fix` "
    "adds either)",
)
