"""
Per-request data (the user's name, question, ids, retrieved documents) reaches the prefix.

Why:
    A parameter or field named like per-request data (`user_name`, `question`, `session_id`,
    `documents`, `memories`, `iteration`, ... and the config's `per-request` names; `stable`
    names are exempt) differs between users or turns, and so does a value made by a source of
    such data whatever its name: a model's answer, a retrieval, the newest turn of the
    conversation, the incoming request of a web, UI or CLI app, a chat bot's message (Telegram,
    Discord) (the framework modules declare them), also when the project's own wrapper sends
    it. In the system prompt or tools it splits
    the cache per user and, when it changes between turns, rebuilds the whole conversation's
    prefix. The history spliced into `messages` is not flagged: it grows, it does not change.
    A parameter of a function that no call in the project makes (its caller, a route or a
    worker, is outside what is linted) is its request's data too, whatever its name, where the
    function builds a prompt from it: a prompt builder's (`build_review_prompt(title, body)`),
    or one the function writes into the newest turn of the request it sends (`triage(subject,
    details)` formatting both into the only user turn), above `threshold` tokens of static text;
    not a name that says a setting, a constant default, an object, a field or key of it read
    alone, nor a system prompt's (PC508 asks about those, opt-in).

Bad:
    def build_messages(user_name, history, question):
        system = f"You are helping {user_name}. Answer from the handbook."
        return [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]

Good:
    def build_messages(user_name, history, question):
        system = "You are a support agent. Answer from the handbook."
        return [
            {"role": "system", "content": system},
            *history,
            {"role": "user", "content": f"(I am {user_name}.) {question}"},
        ]
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC502",
    name="per-request-value-in-prefix",
    severity="warning",
    fix="put it in the last user message (or promptcache's `Prompt.with_tail`), after every "
    "stable part",
)

# Python names that carry per-request data, besides the config's `per-request` globs.
PYTHON_PER_REQUEST = (
    "*question*",
    "*query",
    "*_query_*",
    "user_*",
    "*_user",
    "*_user_id",
    "customer_*",
    "*location",
    "memories",
    "*_memories",
    "memory_context",
    "retrieved*",
    "documents",
    "*_documents",
    "context",
    "*_context",
    "iteration",
    "*_iteration",
    "iteration_*",
    "turn",
    "turn_*",
    "step_count",
    "attempt",
    "remaining_*",
    "*_remaining",
    "file_content*",
    "*_file_content*",
    "*_id",
    "email",
    "*_email",
)
# Attribute names that carry per-request data: an attribute (`self.docs`, `prompt.context`) is
# usually an object's own state, so only these (and the config's own additions) count.
PYTHON_PER_REQUEST_ATTRIBUTES = (
    "user_*",
    "*_user",
    "*_user_id",
    "username",
    "*question*",
    "*query",
    "remaining_*",
    "*_remaining",
    "session_id",
    "request_id",
    "conversation_id",
    "thread_id",
    "customer_*",
    "*location",
)
# Python names that look per-request but name configuration (`extend`/override with `stable`).
PYTHON_STABLE = (
    "model*",
    "*_model_id",
    "assistant_id",
    "agent_id",
    "tool_id",
    "project_id",
    "deployment_id",
    "region_id",
    "voice_id",
)
