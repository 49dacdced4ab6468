"""
A clock, id or random value reaches the cacheable prefix of a request built in Python.

Why:
    `datetime.now()`, `time.time()`, `uuid4()`, `random`/`secrets`, `os.getpid()` and the calls
    the config adds (`extend-volatile-calls`) differ on every request. The analysis follows the
    value through variables, f-strings, `.format`, `%`, `+`, `join`, containers, `**kwargs` and
    the project's own functions and classes (imported from their module or through a package
    that re-exports them, or handed to an executor with their arguments) into the system
    prompt, tools, earlier turns, prompt
    templates and promptcache's stable layers. Everything after it — the rest of the system
    prompt and the whole conversation — is prefilled again on every request. What follows
    decides: with earlier turns after it (spliced history, a list of unknown length, a chained
    `previous_response_id`) it is always reported; when only the newest turn follows (`[system,
    user]`, one `input=` string, a Pydantic AI agent whose runs pass no `message_history`) it is
    reported when it opens the prompt, when text of unknown length follows it, or when the
    static text after it reaches the threshold. A value computed where a conversation's history
    is created and kept (`self.messages = [{"role": "system", ...}]` in `__init__`) is fixed for
    that conversation and not reported; one taken at import is the process's and still is. A
    system message appended to a history the function grows but does not make (an object's or a
    module's list: `self.history.append({"role": "system", ...})`, or a parameter's list that the
    model's reply is kept in) is the newest turn of that conversation, kept where it was put, not
    a system prompt opening the request.

Bad:
    from datetime import datetime


    def ask(client, history, question):
        system = f"Today is {datetime.now():%Y-%m-%d}. You are a support agent."
        return client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=512,
            system=system,
            messages=[*history, {"role": "user", "content": question}],
        )

Good:
    from datetime import datetime


    def ask(client, history, question):
        today = f"Today is {datetime.now():%Y-%m-%d}."
        return client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=512,
            system="You are a support agent.",
            messages=[*history, {"role": "user", "content": f"{today}\\n{question}"}],
        )
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC501",
    name="volatile-value-in-prefix",
    severity="warning",
    fix="put it in the last user message (or promptcache's `Prompt.with_tail`), after every "
    "stable part",
)
