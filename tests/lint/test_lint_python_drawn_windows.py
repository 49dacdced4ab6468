"""PC507, windows of a list drawn from a history: the newest turns of a comprehension over a
history or over a chat's fetched history (`[m async for m in channel.history()][-n:]`), of a
copy (`list(...)`, `sorted(...)`, `filter(...)`), or of a local name bound to one (`rest = [m for
m in msgs if not system(m)]`, then `rest[-n:]`). The list is not named as a history, but what it
is drawn from is, and its newest turns are sent as the conversation: a window that slides. The
twins that send the whole drawn list, or draw from a list of documents, stay quiet."""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source

HEAD = """
from openai import OpenAI
client = OpenAI()
RULES = "You are the quiz bot of a book club; answer in one short paragraph. " * 30
"""


def codes(body: str) -> list[tuple[int, str]]:
    source = HEAD + textwrap.dedent(body)
    offset = HEAD.count("\n")
    return [(f.line - offset, f.code) for f in lint_python_source(source) if f.code == "PC507"]


# A chat bot rebuilds its context from the chat service on every request: it fetches the
# room's past posts, keeps the newest few, and turns each into a message after the rules.
FETCHED = """
async def recent_posts(post, limit=8):
    posts = CUT
    posts.append(post)
    return posts
async def context(post):
    turns = [{"role": "system", "content": RULES}]
    for earlier in await recent_posts(post):
        turns.append({"role": "user", "content": earlier.text})
    return turns
async def reply(post):
    return client.chat.completions.create(model="m", messages=await context(post))
"""

FETCHES = [
    ("async-comprehension", "[p async for p in post.room.history(before=post.sent)][-limit:]"),
    ("list-of-a-fetch", "list(await post.thread.fetch_messages())[-limit:]"),
    ("sorted-fetch", "sorted(STORE.get_messages(post.room), key=lambda p: p.sent)[-limit:]"),
]


@pytest.mark.parametrize("cut", [f[1] for f in FETCHES], ids=[f[0] for f in FETCHES])
def test_the_newest_posts_of_a_fetched_history_are_a_window(cut: str) -> None:
    assert codes(FETCHED.replace("CUT", cut)) == [(3, "PC507")]


def test_a_fetched_history_sent_whole_is_quiet() -> None:
    whole = FETCHED.replace("CUT", "[p async for p in post.room.history(before=post.sent)]")
    assert codes(whole) == []


def test_the_newest_of_a_comprehension_over_documents_is_no_window() -> None:
    documents = FETCHED.replace("CUT", "[d async for d in post.room.pinned_files()][-limit:]")
    assert codes(documents) == []


# A chat model wrapper keeps the system messages and the newest others, each time it is called
# with the conversation: the others are a local list drawn from it, then cut from the end.
DRAWN = """
MAX_TURNS = 20
def keep_recent(msgs):
    if len(msgs) <= MAX_TURNS:
        return msgs
    head = [m for m in msgs if m["role"] == "system"]
    REST
    return head + rest[-(MAX_TURNS - len(head)):]
def send(msgs):
    return client.chat.completions.create(model="m", messages=keep_recent(msgs))
"""

DRAWS = [
    ("filtered-comprehension", 'rest = [m for m in msgs if m["role"] != "system"]'),
    ("list-of-filter", 'rest = list(filter(lambda m: m["role"] != "system", msgs))'),
    ("generator-copy", 'rest = list(m for m in msgs if m["role"] != "system")'),
]


@pytest.mark.parametrize("rest", [d[1] for d in DRAWS], ids=[d[0] for d in DRAWS])
def test_the_newest_of_a_list_drawn_from_the_history_are_a_window(rest: str) -> None:
    assert codes(DRAWN.replace("REST", rest)) == [(8, "PC507")]


def test_a_list_drawn_from_the_history_sent_whole_is_quiet() -> None:
    whole = DRAWN.replace("REST", 'rest = [m for m in msgs if m["role"] != "system"]')
    assert codes(whole.replace("rest[-(MAX_TURNS - len(head)):]", "rest")) == []


def test_the_newest_turn_alone_of_a_drawn_list_is_no_window() -> None:
    one = DRAWN.replace("REST", 'rest = [m for m in msgs if m["role"] != "system"]')
    assert codes(one.replace("rest[-(MAX_TURNS - len(head)):]", "rest[-1:]")) == []
