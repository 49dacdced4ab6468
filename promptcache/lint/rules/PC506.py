"""
A value reaches a request's prefix from code the analysis cannot follow, so it was not checked.

Why:
    The Python rules follow values through the project's own modules. A name that comes from a
    `*` import, from a project module that does not parse, or from `getattr` with a name known
    only at run time could hold a clock or a per-request value, and the analysis cannot see
    which; a clock passed to a template whose text it cannot read (loaded from settings or a
    database) may render at the top of the prompt or in its last line. It says so (an info
    finding: it does not fail the run) instead of calling the request clean or guessing. So
    too for a trim of a list the project appends turns to (`history.pop(0)`) when no window
    reported in the run was cut there: where that list is sent as the conversation it is a
    window that slides (PC507), and the analysis could not follow it to the request.

Bad:
    from prompts import *


    def ask(client, question):
        return client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=1024,
            system=SYSTEM_PROMPT,
            messages=[{"role": "user", "content": question}],
        )

Good:
    SYSTEM_PROMPT = "You are a support agent for the refund desk."


    def ask(client, question):
        return client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=1024,
            system=SYSTEM_PROMPT,
            messages=[{"role": "user", "content": question}],
        )
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC506",
    name="python-not-followed",
    severity="info",
    fix=(
        "make it visible to the analysis: import the name explicitly, fix the module that does "
        "not parse, or keep the template in a file the linter finds (`search-path`)"
    ),
)
