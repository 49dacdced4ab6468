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

    Windows followed in Python: a slice from the end (`history[-k * 2:]`, `[len(h) - n:]`,
    `msgs[-n:]`, `store.get(uid, [])[-n:]`), also of a list drawn from a history (a
    comprehension over it or over a chat's fetched history, `list(...)`, `sorted(...)` or
    `filter(...)` of it, or a local name bound to one: `rest[-n:]`), the oldest turns dropped in a loop or under a size
    test (`pop(0)`, `pop(1)`, `del messages[1:3]`, `messages[1:]`, a history halved with
    `messages[len(messages) // 2:]`), `deque(maxlen=)`, a list type whose `append` pops its
    oldest item once full, the newest rows read back from a store (SQL `ORDER BY ... DESC LIMIT
    n`, an ORM's `order_by(desc).limit(n)`, Django's descending queryset cut `[:n]`, Mongo's
    `sort(key, -1).limit(n)`, Redis's `lrange(key, -n, -1)`, or any `lrange` of a list the
    module caps to its newest turns with `ltrim`, each on a store named as a history), LangChain's `trim_messages` and window, token and summary buffer memories, and
    LlamaIndex's `ChatMemoryBuffer`, a history kept in a module global, a dict of histories or an
    imported object's attribute and trimmed by one of the module's functions or by its own
    top-level code (a Streamlit script, a console loop; read anywhere in the module, through a
    getter too), a history loaded through a getter, grown by a turn, trimmed and written back
    (to a table, a cache or a file: the getter returns a window from then on), the newest turns gathered newest first until a budget is
    spent, and a window given to a `MessagesPlaceholder`. A window made in a helper or another
    module is reported where it enters the module that sends it; one whose request is sent by a function handed to
    an executor (`run_in_executor`, `submit`, `asyncio.to_thread`) is followed there. Not
    reported: the newest turn alone (`[-1:]`), a window read into the newest turn's text, a front
    cut made once, the oldest rows (`ORDER BY id ASC LIMIT n`), a window after the request's
    last explicit cache point, and a window memory handed only to an engine that puts what it
    retrieves for each turn above the history, or reads the history only into the question it
    rewrites (LlamaIndex's context and condense chat engines, made or picked by `chat_mode`,
    LangChain's `ConversationalRetrievalChain`): that history is never read from the cache.

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
