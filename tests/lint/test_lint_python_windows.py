"""PC507, a sliding window of the history, by mechanism: the ways real chat loops drop their
oldest turns (a slice from the end however it is written, `pop(0)`/`pop(1)`, `del` of the front,
`deque(maxlen=)`, LangChain's `trim_messages` and window memories), and the windows that are no
cache problem (the newest turn alone, a window read into the newest turn's text)."""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source

HEAD = """
from openai import OpenAI
client = OpenAI()
SYSTEM = {"role": "system", "content": "You are a support agent for the refund desk. " * 30}
"""


def codes(body: str) -> list[tuple[int, str]]:
    source = HEAD + textwrap.dedent(body)
    offset = HEAD.count("\n")
    return [(f.line - offset, f.code) for f in lint_python_source(source)]


CASES = [
    (
        "slice-start-is-a-product",
        """
        def chat(history, question, k):
            history.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=[SYSTEM, *history[-k * 2:]])
        """,
        [(4, "PC507")],
    ),
    (
        "slice-start-from-len",
        """
        def chat(history, question):
            history.append({"role": "user", "content": question})
            recent = history[len(history) - 8:]
            return client.chat.completions.create(model="m", messages=[SYSTEM, *recent])
        """,
        [(4, "PC507")],
    ),
    (
        "slice-start-clamped-with-max",
        """
        def chat(history, question, keep):
            history.append({"role": "user", "content": question})
            recent = history[max(0, len(history) - keep):]
            return client.chat.completions.create(model="m", messages=[SYSTEM, *recent])
        """,
        [(4, "PC507")],
    ),
    (
        "pop-front-in-a-loop",
        """
        def chat(history, question):
            history.append({"role": "user", "content": question})
            while len(history) > 20:
                history.pop(0)
            return client.chat.completions.create(model="m", messages=[SYSTEM, *history])
        """,
        [(5, "PC507")],
    ),
    (
        "pop-after-the-system-message",
        """
        def chat(messages, question, budget, count):
            messages.append({"role": "user", "content": question})
            while count(messages) > budget:
                messages.pop(1)
            return client.chat.completions.create(model="m", messages=messages)
        """,
        [(5, "PC507")],
    ),
    (
        "del-front-slice",
        """
        def chat(messages, question):
            messages.append({"role": "user", "content": question})
            if len(messages) > 21:
                del messages[1:3]
            return client.chat.completions.create(model="m", messages=messages)
        """,
        [(5, "PC507")],
    ),
    (
        "deque-maxlen",
        """
        from collections import deque
        history = deque(maxlen=10)
        def chat(question):
            history.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=[SYSTEM, *history])
        """,
        [(3, "PC507")],
    ),
    (
        "langchain-trim-messages",
        """
        from langchain_core.messages import trim_messages
        from langchain_openai import ChatOpenAI
        llm = ChatOpenAI()
        def chat(messages):
            kept = trim_messages(messages, max_tokens=2000, token_counter=llm, include_system=True)
            return llm.invoke(kept)
        """,
        [(6, "PC507")],
    ),
    (
        "langchain-window-memory",
        """
        from langchain.chains import ConversationChain
        from langchain.memory import ConversationBufferWindowMemory
        from langchain_openai import ChatOpenAI
        chain = ConversationChain(llm=ChatOpenAI(), memory=ConversationBufferWindowMemory(k=5))
        """,
        [(5, "PC507")],
    ),
    # Quiet: no window slides over the conversation.
    (
        "newest-turn-alone",
        """
        def chat(history, question):
            history.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=[SYSTEM, *history[-1:]])
        """,
        [],
    ),
    (
        "window-read-into-the-newest-turn",
        """
        def chat(history, question):
            recent = "\\n".join(m["content"] for m in history[-6:])
            turn = {"role": "user", "content": recent + question}
            return client.chat.completions.create(model="m", messages=[SYSTEM, turn])
        """,
        [],
    ),
    (
        "trim-keeping-the-oldest",
        """
        from langchain_core.messages import trim_messages
        from langchain_openai import ChatOpenAI
        llm = ChatOpenAI()
        def chat(messages):
            kept = trim_messages(messages, max_tokens=2000, token_counter=llm, strategy="first")
            return llm.invoke(kept)
        """,
        [],
    ),
    (
        "pop-of-the-newest-turn",
        """
        def retry(messages):
            messages.pop()
            return client.chat.completions.create(model="m", messages=messages)
        """,
        [],
    ),
    (
        "del-of-the-tail",
        """
        def retry(messages):
            del messages[-2:]
            return client.chat.completions.create(model="m", messages=messages)
        """,
        [],
    ),
]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_history_window(body: str, expected: list[tuple[int, str]]) -> None:
    assert codes(body) == expected
