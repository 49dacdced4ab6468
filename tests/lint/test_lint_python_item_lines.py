"""
Where a value formatted into one item of a list is written: per-request data formatted line by
line (`"\\n".join(f"- {m.text}" for m in memories)`, `lines.append(f"* {doc}")` in a loop) and
the joined block then placed in the prompt's text; a text appended as one part of a prompt
(`parts.append(notes)`), then joined. The finding named the item's f-string as
where the value is written; the fix moves the block, so the place the block is written into
the prompt is where it is written. Where the joined list is the prompt itself, the item's line
stays the place. Cases of our own making.
"""

from __future__ import annotations

import pytest

from ._helpers import python_problems

LONG = "Keep each answer short and kind, and never give medical advice. " * 20


def places(source: str) -> list[tuple[int, int | None, str]]:
    return python_problems(source, LONG)


# (id, source, expected (line, written_at, code)); lines count from the dedented text's first.
PLACED = [
    (
        "recalled-memories-joined-by-a-generator-then-placed-in-the-system-prompt",
        """
        from langchain_core.messages import SystemMessage
        from app.llm import model
        from app.prompts import PERSONA
        from app.graph import ChatState
        def respond(state: ChatState):
            recalled = "\\n".join(
                f"* {m.text}"
                for m in state["recalled"]
            )
            system = f'''{PERSONA}
            What you remember about the user:
            {recalled}
            '''
            return model.invoke([SystemMessage(content=system), *state["messages"]])
        """,
        (9, 13, "PC502"),
    ),
    (
        "retrieved-titles-appended-in-a-loop-then-placed-above-static-rules",
        """
        from openai import OpenAI
        def ask(history, question):
            docs = index.similarity_search(question)
            lines = []
            for doc in docs:
                lines.append(f"* {doc.title}")
            found = "\\n".join(lines)
            system = f"Sources:\\n{found}\\n" + LONG
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "system", "content": system}, *history],
            )
        """,
        (4, 9, "PC502"),
    ),
    (
        "recalled-notes-appended-as-a-part-of-the-system-prompt-then-joined",
        """
        from app.providers import Msg, provider
        async def reply(recall, history, user_message: str):
            notes = await recall.build_block(
                user_message,
                limit=5,
            )
            parts = ["You are a patient language tutor."]
            if notes:
                parts.append(notes)
            messages = [Msg(role="system", content="\\n\\n".join(parts)), *history]
            return await provider.chat(messages=messages)
        """,
        (5, 10, "PC502"),
    ),
]

KEPT = [
    (
        "the-joined-list-is-the-system-prompt-itself",
        """
        from openai import OpenAI
        def ask(history, question):
            docs = index.similarity_search(question)
            system = "\\n".join([f"* {d.title}" for d in docs]) + LONG
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "system", "content": system}, *history],
            )
        """,
        (4, 5, "PC502"),
    ),
    (
        "a-value-first-written-into-a-line-of-its-own-keeps-that-line",
        """
        from openai import OpenAI
        def ask(history, question):
            docs = index.similarity_search(question)
            heading = f"Sources for this question: {docs}"
            system = f"{heading}\\n" + LONG
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "system", "content": system}, *history],
            )
        """,
        (4, 5, "PC502"),
    ),
    (
        "a-part-appended-then-joined-into-an-f-string-is-written-at-the-f-string",
        """
        from openai import OpenAI
        def ask(history, question):
            docs = index.similarity_search(question)
            parts = ["Sources:"]
            parts.append(docs)
            block = "\\n".join(parts)
            system = f"{block}\\n" + LONG
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "system", "content": system}, *history],
            )
        """,
        (4, 8, "PC502"),
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in PLACED + KEPT], ids=[c[0] for c in PLACED + KEPT]
)
def test_written_at(source: str, expected: tuple[int, int, str]) -> None:
    found = places(source)
    assert expected in found, found
