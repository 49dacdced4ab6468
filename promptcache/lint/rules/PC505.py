"""
An order or value that depends on `hash()` reaches the prefix.

Why:
    `hash()` of a string or bytes is salted per process (PYTHONHASHSEED), so `sorted(tools,
    key=hash)`, a shard picked by `hash(name) % n` or a hash printed into a prompt differ
    between worker processes, and each process writes its own cache entry.

Bad:
    def ask(client, question, tools):
        ordered = sorted(tools, key=lambda t: hash(t["name"]))
        return client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=512,
            tools=ordered,
            messages=[{"role": "user", "content": question}],
        )

Good:
    def ask(client, question, tools):
        ordered = sorted(tools, key=lambda t: t["name"])
        return client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=512,
            tools=ordered,
            messages=[{"role": "user", "content": question}],
        )
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC505",
    name="hash-order-in-prefix",
    severity="warning",
    fix="order by a stable key (the name itself, or a hashlib digest)",
)
