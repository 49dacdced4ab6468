"""
A message made by a class with a role and content (`ChatMessage(role="system", content=text)`):
a pydantic model of the project, a message class of a library (llama-index's `ChatMessage`
with `MessageRole.SYSTEM`), or `dict(role=..., content=...)`. Only the dict literal was judged as
a message; such an object was an unknown call, so per-request data in its system prompt, with
the conversation after it, was never reported. Each case is of our own making, with the line
its finding must be on, and a quiet twin where the data sits in the newest turn.
"""

from __future__ import annotations

import pytest

from ._helpers import python_line_codes

LONG = "Cite every source you use, in the citation style the handbook gives. " * 20


def findings(source: str) -> list[tuple[int, str]]:
    return python_line_codes(source, LONG)


# (id, source, expected (line, code) pairs); lines count from the first line of the dedented text.
FOUND = [
    (
        "a-rag-route-puts-the-question-in-its-only-system-message",
        """
        from fastapi import APIRouter
        from app.schemas import Turn, AskBody
        from app.services import llm_service
        router = APIRouter()
        @router.post("/ask")
        async def ask(body: AskBody):
            turns = [
                Turn(
                    role="system",
                    content=(
                        f'''You answer from the library's catalogue.
        The reader asks:
        {body.question}
        ''' + LONG
                    ),
                ),
            ]
            return await llm_service.complete(turns)
        """,
        [(14, "PC502")],
    ),
    (
        "recalled-notes-joined-into-the-system-message-before-the-stored-history",
        """
        from app.providers import Msg, pick_provider
        from app.recall import Recall
        async def reply(store, session_id: str, user_message: str):
            notes = await Recall().lookup(user_message)
            parts = ["You are a careful study coach."]
            parts.append(notes)
            messages = []
            messages.append(Msg(role="system", content="\\n\\n".join(parts)))
            for old in await store.load(session_id):
                messages.append(Msg(role=old.role, content=old.text))
            messages.append(Msg(role="user", content=user_message))
            return await pick_provider().chat(messages=messages)
        """,
        [(5, "PC502")],
    ),
    (
        "a-llama-index-system-message-by-its-role-enum",
        """
        from llama_index.core.llms import ChatMessage, MessageRole
        from app.llm import llm
        def answer(history, query):
            hits = retriever.retrieve(query)
            system = ChatMessage(role=MessageRole.SYSTEM, content=f"Context: {hits}\\n" + LONG)
            return llm.chat([system, *history])
        """,
        [(5, "PC502")],
    ),
    (
        "a-message-made-by-dict-with-keywords",
        """
        from app.gateway import relay
        def ask(history, question):
            opening = dict(role="system", content=f"Question: {question}\\n" + LONG)
            return relay([opening, *history])
        """,
        [(4, "PC502")],
    ),
    (
        "the-projects-own-dataclass-message-inserted-first",
        """
        from dataclasses import dataclass
        from app.client import send
        @dataclass
        class Line:
            role: str
            content: str
        def turn(history: list, user_id: str):
            history.insert(0, Line(role="system", content=f"Account {user_id}.\\n" + LONG))
            return send(history)
        """,
        [(9, "PC502")],
    ),
]

QUIET = [
    (
        "the-question-in-the-user-message-after-a-static-system-message",
        """
        from fastapi import APIRouter
        from app.schemas import Turn, AskBody
        from app.services import llm_service
        router = APIRouter()
        @router.post("/ask")
        async def ask(body: AskBody):
            turns = [
                Turn(role="system", content=LONG),
                Turn(role="user", content=body.question),
            ]
            return await llm_service.complete(turns)
        """,
    ),
    (
        "recalled-notes-sent-in-the-newest-turn",
        """
        from app.providers import Msg, pick_provider
        from app.recall import Recall
        async def reply(store, session_id: str, user_message: str):
            notes = await Recall().lookup(user_message)
            messages = [Msg(role="system", content="You are a careful study coach." + LONG)]
            for old in await store.load(session_id):
                messages.append(Msg(role=old.role, content=old.text))
            messages.append(Msg(role="user", content=f"{notes}\\n\\n{user_message}"))
            return await pick_provider().chat(messages=messages)
        """,
    ),
    (
        "a-llama-index-user-message-holding-the-context",
        """
        from llama_index.core.llms import ChatMessage, MessageRole
        from app.llm import llm
        def answer(history, query):
            hits = retriever.retrieve(query)
            system = ChatMessage(role=MessageRole.SYSTEM, content=LONG)
            user = ChatMessage(role=MessageRole.USER, content=f"Context: {hits}\\n{query}")
            return llm.chat([system, *history, user])
        """,
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in FOUND], ids=[c[0] for c in FOUND])
def test_found(source: str, expected: list[tuple[int, str]]) -> None:
    assert expected  # a case expecting nothing would pass whatever is found
    found = findings(source)
    for pair in expected:
        assert pair in found, found


@pytest.mark.parametrize("source", [c[1] for c in QUIET], ids=[c[0] for c in QUIET])
def test_quiet(source: str) -> None:
    assert findings(source) == []
