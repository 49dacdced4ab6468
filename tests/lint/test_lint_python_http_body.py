"""A chat request posted as JSON without an SDK (`requests.post(url, json=payload)`, an
`httpx`/`aiohttp` client's `.post`): the body's `system`, `messages` and `tools` are judged as
the SDK's are (the real shape: small apps that keep the history themselves and post it to the
chat completions URL); other posts, and the body's other fields, are not request positions."""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source

HEAD = """
import json
import httpx
import requests
URL = "https://api.openai.com/v1/chat/completions"
SYSTEM = {"role": "system", "content": "You are the support desk of a bicycle shop. " * 30}
"""


def codes(body: str) -> list[tuple[int, str]]:
    source = HEAD + textwrap.dedent(body)
    offset = HEAD.count("\n")
    return [(f.line - offset, f.code) for f in lint_python_source(source)]


POSTS = [
    ("requests-json", "requests.post(URL, json=payload, timeout=30)"),
    ("requests-data-dumps", "requests.post(URL, data=json.dumps(payload))"),
    ("httpx-client", "httpx.Client().post(URL, json=payload)"),
    ("session-parameter", "session.post(URL, json=payload)"),
]


@pytest.mark.parametrize("post", [p[1] for p in POSTS], ids=[p[0] for p in POSTS])
def test_a_history_window_in_a_posted_body(post: str) -> None:
    body = f"""
    def chat(session, history, question):
        history.append({{"role": "user", "content": question}})
        payload = {{"model": "gpt-4o", "messages": [SYSTEM, *history[-10:]]}}
        return {post}
    """
    assert codes(body) == [(4, "PC507")]


def test_a_date_in_the_system_field_of_a_posted_body() -> None:
    # Anthropic's wire shape: `system` beside `messages` in the body.
    body = """
    from datetime import date
    def chat(history, question):
        rules = f"Today is {date.today()}. " + SYSTEM["content"]
        payload = {"model": "claude", "system": rules, "messages": [*history, {"role": "user", "content": question}]}
        return requests.post("https://api.anthropic.com/v1/messages", json=payload)
    """
    assert codes(body) == [(4, "PC501")]


def test_the_whole_history_posted_is_quiet() -> None:
    body = """
    def chat(history, question):
        history.append({"role": "user", "content": question})
        return requests.post(URL, json={"model": "gpt-4o", "messages": [SYSTEM, *history]})
    """
    assert codes(body) == []


def test_other_posts_are_not_requests() -> None:
    # A webhook with a timestamp and a ticket's latest comments: no chat body, nothing judged.
    body = """
    from datetime import datetime
    def notify(ticket):
        event = {"at": datetime.now().isoformat(), "comments": ticket.comments[-5:]}
        return requests.post("https://hooks.example.com/tickets", json=event)
    """
    assert codes(body) == []
