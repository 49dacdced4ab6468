"""PC507, windows of a history kept in a store: the newest n turns read back from a database
(SQL `ORDER BY ... DESC LIMIT n`, an ORM's `order_by(desc).limit(n)`, Django's `[:n]` of a
descending queryset, Mongo's `sort(-1).limit(n)`), from Redis (`lrange(key, -n, -1)`), from a
dict of histories (`store.get(uid, [])[-n:]`), and the memories that keep a token budget
(LlamaIndex's `ChatMemoryBuffer`, LangChain's summary buffer). Each is a window that slides once
the conversation outgrows it; the same reads put into the newest turn's text, or reading the
oldest rows or the whole list, are not."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint.python import lint_python_source

from ._helpers import project_findings

HEAD = """
import json
from openai import OpenAI
client = OpenAI()
RULES = "You answer questions about the garden centre's plants, orders and opening hours. " * 30
"""


def codes(*parts: str) -> list[tuple[int, str]]:
    source = HEAD + "".join(map(textwrap.dedent, parts))
    offset = HEAD.count("\n")
    return [(f.line - offset, f.code) for f in lint_python_source(source)]


SEND = """
def reply(session, question):
    turns = [{"role": "system", "content": RULES}, *recent(session)]
    turns.append({"role": "user", "content": question})
    return client.chat.completions.create(model="m", messages=turns)
"""

STORED = [
    (
        "sql-desc-limit-then-fetch",
        """
        import sqlite3
        def recent(session, limit=10):
            cur = sqlite3.connect("chat.db").cursor()
            cur.execute(
                "SELECT role, content FROM messages WHERE session = ? ORDER BY id DESC LIMIT ?",
                (session, limit),
            )
            rows = cur.fetchall()
            return [{"role": r[0], "content": r[1]} for r in reversed(rows)]
        """,
        5,
    ),
    (
        "sqlalchemy-query-desc-limit",
        """
        from sqlalchemy.orm import Session
        from app.models import ChatMessage
        def recent(session, db: Session = None, n=8):
            rows = (
                db.query(ChatMessage)
                .filter(ChatMessage.session_id == session)
                .order_by(ChatMessage.created_at.desc())
                .limit(n)
                .all()
            )
            return [{"role": m.role, "content": m.content} for m in rows[::-1]]
        """,
        9,  # at `.limit(n)`, where the chain takes the window
    ),
    (
        "sqlalchemy-select-desc-function",
        """
        from sqlalchemy import desc, select
        from app.db import engine_session
        from app.models import Turn
        def recent(session):
            stmt = select(Turn).where(Turn.chat == session).order_by(desc(Turn.id)).limit(12)
            rows = engine_session.execute(stmt).scalars().all()
            return [{"role": t.role, "content": t.text} for t in reversed(rows)]
        """,
        6,
    ),
    (
        "mongo-sort-descending-limit",
        """
        from pymongo import MongoClient
        history = MongoClient()["bot"]["chat_history"]
        def recent(session):
            found = history.find({"session": session}, {"_id": 0}).sort("ts", -1).limit(6)
            turns = list(found)
            turns.reverse()
            return turns
        """,
        5,
    ),
    (
        "redis-lrange-from-the-end",
        """
        import redis
        r = redis.Redis()
        def recent(session, limit=20):
            raw = r.lrange(f"history:{session}", -limit, -1)
            return [json.loads(item) for item in raw]
        """,
        5,
    ),
    (
        "django-descending-queryset-sliced",
        """
        from chat.models import Message
        def recent(session):
            newest = Message.objects.filter(conversation_id=session).order_by("-created")[:10]
            return [{"role": m.role, "content": m.body} for m in reversed(newest)]
        """,
        4,
    ),
]


@pytest.mark.parametrize(("read", "line"), [s[1:] for s in STORED], ids=[s[0] for s in STORED])
def test_the_newest_turns_read_from_a_store_are_a_window(read: str, line: int) -> None:
    assert codes(read, SEND) == [(line, "PC507")]


QUIET = [
    (
        "sql-oldest-rows",
        STORED[0][1].replace("ORDER BY id DESC LIMIT", "ORDER BY id ASC LIMIT"),
    ),
    (
        "sql-newest-rows-of-another-table",
        STORED[0][1].replace("FROM messages", "FROM stock_levels"),
    ),
    ("redis-whole-list", STORED[4][1].replace("-limit, -1", "0, -1")),
    ("mongo-ascending", STORED[3][1].replace('.sort("ts", -1)', '.sort("ts", 1)')),
    ("django-ascending", STORED[5][1].replace('"-created"', '"created"')),
]


@pytest.mark.parametrize("read", [q[1] for q in QUIET], ids=[q[0] for q in QUIET])
def test_reads_that_keep_the_history_whole_or_fixed_are_quiet(read: str) -> None:
    assert codes(read, SEND) == []


def test_the_newest_turns_read_into_the_question_are_quiet() -> None:
    # The window is pasted into the newest turn's text: nothing of it sits in the prefix.
    joined = """
    def reply(session, question):
        context = "\\n".join(t["content"] for t in recent(session))
        turn = {"role": "user", "content": context + "\\n" + question}
        return client.chat.completions.create(
            model="m", messages=[{"role": "system", "content": RULES}, turn])
    """
    assert codes(STORED[0][1], joined) == []


def _project(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    return project_findings(tmp_path, files)


STORE = """
_histories = {}
def get_history(uid, mode="default", limit=20):
    return _histories.get(uid, {}).get(mode, [])[-limit:]
"""

APP = """
from openai import OpenAI
from app.store import get_history
client = OpenAI()
RULES = "You are a patient language tutor; correct each sentence and explain why. " * 30
def tutor(uid, text):
    messages = [{"role": "system", "content": RULES}] + get_history(uid) + [{"role": "user", "content": text}]
    return client.chat.completions.create(model="m", messages=messages)
"""


def test_a_window_cut_from_a_dict_of_histories_in_another_module(tmp_path: Path) -> None:
    # `store.get(uid, [])[-n:]`: the history is a dict lookup, named by the dict it is read
    # from; the window is reported where it enters the module that sends it.
    found = _project(tmp_path, {"app/store.py": STORE, "app/main.py": APP})
    assert found == [("main.py", 7, "PC507")]


def test_the_whole_history_from_a_dict_is_quiet(tmp_path: Path) -> None:
    store = STORE.replace("[-limit:]", "")
    assert _project(tmp_path, {"app/store.py": store, "app/main.py": APP}) == []


MEMORIES = [
    (
        "llamaindex-chat-memory-buffer",
        """
        from llama_index.core.chat_engine import SimpleChatEngine
        from llama_index.core.memory import ChatMemoryBuffer
        memory = ChatMemoryBuffer.from_defaults(token_limit=2000)
        engine = SimpleChatEngine.from_defaults(memory=memory, system_prompt=RULES)
        """,
        4,
    ),
    (
        "llamaindex-chat-memory-buffer-constructed",
        """
        from llama_index.core.memory import ChatMemoryBuffer
        memory = ChatMemoryBuffer(token_limit=3900)
        """,
        3,
    ),
    (
        "langchain-summary-buffer",
        """
        from langchain.chains import LLMChain
        from langchain.memory import ConversationSummaryBufferMemory
        from langchain_openai import ChatOpenAI
        llm = ChatOpenAI()
        memory = ConversationSummaryBufferMemory(llm=llm, max_token_limit=300, return_messages=True)
        """,
        6,
    ),
]


@pytest.mark.parametrize(("made", "line"), [m[1:] for m in MEMORIES], ids=[m[0] for m in MEMORIES])
def test_memories_that_keep_a_token_budget_are_windows(made: str, line: int) -> None:
    assert codes(made) == [(line, "PC507")]


# Engines that put what they retrieve for each turn above the history they are handed (or fold
# the history into the one question they rewrite): the history is never read from the cache, so
# a memory that keeps only its newest turns drops nothing the cache held.
HANDED_TO_CONTEXT_ENGINES = [
    (
        "llamaindex-condense-plus-context",
        """
        from llama_index.core.chat_engine import CondensePlusContextChatEngine
        from llama_index.core.memory import ChatMemoryBuffer
        def make_engine(index, llm):
            memory = ChatMemoryBuffer.from_defaults(token_limit=3000)
            return CondensePlusContextChatEngine.from_defaults(
                index.as_retriever(), memory=memory, llm=llm, system_prompt=RULES
            )
        """,
    ),
    (
        "llamaindex-context-engine-keyword",
        """
        from llama_index.core import chat_engine
        from llama_index.core.memory import ChatMemoryBuffer
        engine = chat_engine.ContextChatEngine.from_defaults(
            retriever=RETRIEVER, memory=ChatMemoryBuffer(token_limit=1500), prefix_messages=[]
        )
        """,
    ),
    (
        "langchain-conversational-retrieval",
        """
        from langchain.chains import ConversationalRetrievalChain
        from langchain.memory import ConversationBufferWindowMemory
        recent_turns = ConversationBufferWindowMemory(k=4, memory_key="chat_history")
        qa = ConversationalRetrievalChain.from_llm(LLM, retriever=STORE.as_retriever(), memory=recent_turns)
        """,
    ),
]


@pytest.mark.parametrize(
    "made", [m[1] for m in HANDED_TO_CONTEXT_ENGINES], ids=[m[0] for m in HANDED_TO_CONTEXT_ENGINES]
)
def test_a_window_memory_handed_only_to_a_retrieval_engine_is_quiet(made: str) -> None:
    assert codes(made) == []


def test_a_window_memory_also_handed_to_a_plain_chat_engine_is_reported() -> None:
    made = """
    from llama_index.core.chat_engine import ContextChatEngine, SimpleChatEngine
    from llama_index.core.memory import ChatMemoryBuffer
    memory = ChatMemoryBuffer.from_defaults(token_limit=2000)
    search = ContextChatEngine.from_defaults(retriever=RETRIEVER, memory=memory)
    chat = SimpleChatEngine.from_defaults(memory=memory, system_prompt=RULES)
    """
    assert codes(made) == [(4, "PC507")]


def test_a_window_memory_kept_on_an_object_is_reported() -> None:
    # Where it goes from `self.memory` is not read here: the window is reported where it is made.
    made = """
    from llama_index.core.chat_engine import CondensePlusContextChatEngine
    from llama_index.core.memory import ChatMemoryBuffer
    class Bot:
        def __init__(self, retriever):
            self.memory = ChatMemoryBuffer.from_defaults(token_limit=2000)
            self.engine = CondensePlusContextChatEngine.from_defaults(retriever, memory=self.memory)
    """
    assert codes(made) == [(6, "PC507")]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ('"condense_plus_context"', []),
        ("ChatMode.CONTEXT", []),
        ('"simple"', [(6, "PC507")]),
        ("ChatMode.BEST", [(6, "PC507")]),
        (None, [(6, "PC507")]),
    ],
)
def test_an_index_s_chat_engine_is_a_retrieval_engine_by_its_mode(
    mode: str | None, expected: list[tuple[int, str]]
) -> None:
    chosen = "" if mode is None else f"chat_mode={mode}, "
    made = f"""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.memory import ChatMemoryBuffer
    from llama_index.core.chat_engine.types import ChatMode
    def engine_for(documents):
        buffer = ChatMemoryBuffer.from_defaults(token_limit=2500)
        index = VectorStoreIndex.from_documents(documents)
        return index.as_chat_engine({chosen}memory=buffer, system_prompt=RULES)
    """
    assert codes(made) == expected


# A Redis list capped to its newest entries as each turn is pushed (`ltrim`): every read of it,
# whole or not, is a window of the history from then on.
CAPPED = [
    (
        "rpush-then-keep-the-last",
        """
        import redis
        r = redis.Redis()
        def remember(session, role, text):
            r.rpush(f"chat:{session}", json.dumps({"role": role, "content": text}))
            r.ltrim(f"chat:{session}", -20, -1)
        def recent(session):
            return [json.loads(item) for item in r.lrange(f"chat:{session}", 0, -1)]
        """,
        6,
    ),
    (
        "async-client",
        """
        from redis import asyncio as aioredis
        r = aioredis.from_url("redis://cache")
        MAX_TURNS = 12
        async def remember(session, turn):
            await r.rpush(f"history:{session}", json.dumps(turn))
            await r.ltrim(f"history:{session}", -MAX_TURNS, -1)
        def recent(session):
            return [json.loads(item) for item in r.lrange(f"history:{session}", 0, -1)]
        """,
        7,
    ),
    (
        "lpush-newest-first-then-keep-the-first",
        """
        import redis
        r = redis.Redis()
        def remember(session, turn, keep=30):
            r.lpush(f"messages:{session}", json.dumps(turn))
            r.ltrim(f"messages:{session}", 0, keep - 1)
        def recent(session):
            return [json.loads(i) for i in reversed(r.lrange(f"messages:{session}", 0, -1))]
        """,
        6,
    ),
]


@pytest.mark.parametrize(("read", "line"), [c[1:] for c in CAPPED], ids=[c[0] for c in CAPPED])
def test_a_redis_history_capped_to_its_newest_turns_is_a_window(read: str, line: int) -> None:
    assert codes(read, SEND) == [(line, "PC507")]


def test_a_redis_history_capped_to_its_oldest_turns_is_no_window() -> None:
    # `rpush` then `ltrim(key, 0, n - 1)` keeps the first turns: the prefix never changes.
    oldest = CAPPED[0][1].replace("-20, -1)", "0, 19)")
    assert "ltrim" in oldest and "0, 19" in oldest
    assert codes(oldest, SEND) == []


def test_a_redis_list_of_no_history_capped_is_quiet() -> None:
    stock = CAPPED[0][1].replace("chat:", "stock:").replace("remember", "note_price")
    assert (
        codes(
            stock.replace("def recent", "def recent_prices"),
            SEND.replace("recent(", "recent_prices("),
        )
        == []
    )
