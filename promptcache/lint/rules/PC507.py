"""
A sliding window of the conversation history (`messages[-n:]`) is sent as the conversation.

Why:
    Once the history is longer than the window, every new turn drops the oldest one, so the
    conversation after the system prompt starts differently on every request and none of it is
    read from the cache: each turn prefills the whole window again. Keep the history whole while
    it fits; when it must shrink, cut it in large steps (summarise the oldest half into a block
    that stays the same until the next cut), so most requests share the prefix. In a template,
    a chat template's loop over `messages[-n:]` or a prompt file's over `chat_history[-n:]` is
    the same window.

Bad:
    def chat(client, history, question):
        history.append({"role": "user", "content": question})
        return client.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "system", "content": "You are a support agent."}, *history[-6:]],
        )

Good:
    def chat(client, history, question):
        history.append({"role": "user", "content": question})
        return client.chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "system", "content": "You are a support agent."}, *history],
        )
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(
    __doc__,
    code="PC507",
    name="sliding-history-window",
    severity="warning",
    fix="send the whole history while it fits, and cut it in large steps (a summary block that "
    "stays the same until the next cut) when it does not",
)
