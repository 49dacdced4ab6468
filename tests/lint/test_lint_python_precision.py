"""
False alarms real request-building code raised (issue #21), each in a case of our own: what
follows a volatile value decides what it costs. A value at the end of the system prompt of a
single-turn request is followed only by the newest turn, which varies anyway; the same value with
the conversation (or long static text) after it is still reported.
"""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source

LONG = "Follow the refund policy exactly as written in section four. " * 20


def findings(source: str) -> list[tuple[int, str]]:
    found = lint_python_source(textwrap.dedent(source).replace("LONG", repr(LONG)))
    return [(f.line, f.code) for f in found if f.severity != "info"]


# (id, source, expected (line, code) pairs); lines count from the first line of the dedented text.
SINGLE_TURN_CASES = [
    (
        "date-at-the-end-of-a-two-message-chat",
        """
        import datetime
        from openai import OpenAI
        def answer(prompt):
            today = datetime.datetime.now().strftime("%Y-%m-%d %A")
            system = f"You help volunteers find events. Today is {today}"
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": system},
                    {"role": "user", "content": prompt},
                ],
            )
        """,
        [],
    ),
    (
        "date-at-the-end-of-a-chat-with-the-history-after-it",
        """
        import datetime
        from openai import OpenAI
        def answer(prompt, history):
            today = datetime.datetime.now().strftime("%Y-%m-%d %A")
            system = f"You help volunteers find events. Today is {today}"
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": system},
                    *history,
                    {"role": "user", "content": prompt},
                ],
            )
        """,
        [(5, "PC501")],
    ),
    (
        "date-above-long-instructions-of-a-two-message-chat",
        """
        import datetime
        from openai import OpenAI
        def answer(prompt):
            today = datetime.datetime.now().strftime("%Y-%m-%d %A")
            system = f"Today is {today}. " + LONG
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": system},
                    {"role": "user", "content": prompt},
                ],
            )
        """,
        [(5, "PC501")],
    ),
    (
        "date-before-a-static-few-shot-turn",
        """
        import datetime
        from openai import OpenAI
        def answer(prompt):
            today = datetime.datetime.now().strftime("%Y-%m-%d %A")
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"You help volunteers. Today is {today}"},
                    {"role": "user", "content": "Example question. " + LONG},
                    {"role": "assistant", "content": "Example answer."},
                    {"role": "user", "content": prompt},
                ],
            )
        """,
        [(5, "PC501")],
    ),
    (
        "memory-at-the-end-of-responses-instructions-with-one-input",
        """
        from openai import OpenAI
        SYSTEM_PROMPT = "You are a patient language teacher. " + LONG
        def build_context(user_memory):
            return f"Level: {user_memory.get('level')}. Topics: {user_memory.get('topics')}."
        def ask(client: OpenAI, user_text: str, user_memory: dict) -> str:
            response = client.responses.create(
                model="gpt-4.1-mini",
                instructions=SYSTEM_PROMPT + "\\n\\n" + build_context(user_memory),
                input=user_text,
            )
            return response.output_text
        """,
        [],
    ),
    (
        "memory-in-responses-instructions-chained-to-the-previous-response",
        """
        from openai import OpenAI
        SYSTEM_PROMPT = "You are a patient language teacher. " + LONG
        def build_context(user_memory):
            return f"Level: {user_memory.get('level')}. Topics: {user_memory.get('topics')}."
        def ask(client: OpenAI, user_text: str, user_memory: dict, previous: str) -> str:
            response = client.responses.create(
                model="gpt-4.1-mini",
                instructions=SYSTEM_PROMPT + "\\n\\n" + build_context(user_memory),
                input=user_text,
                previous_response_id=previous,
            )
            return response.output_text
        """,
        [(5, "PC502"), (5, "PC502"), (9, "PC502")],
    ),
    (
        "clock-at-the-end-of-an-anthropic-system-with-one-user-message",
        """
        from datetime import datetime
        import anthropic
        def ask(question: str):
            system = "You answer questions about the shop. The time is " + datetime.now().isoformat()
            return anthropic.Anthropic().messages.create(
                model="claude-sonnet-4-5",
                max_tokens=512,
                system=system,
                messages=[{"role": "user", "content": question}],
            )
        """,
        [],
    ),
    (
        "clock-at-the-end-of-an-anthropic-system-with-messages-of-unknown-length",
        """
        from datetime import datetime
        import anthropic
        def ask(messages):
            system = "You answer questions about the shop. The time is " + datetime.now().isoformat()
            return anthropic.Anthropic().messages.create(
                model="claude-sonnet-4-5",
                max_tokens=512,
                system=system,
                messages=messages,
            )
        """,
        [(5, "PC501")],
    ),
    (
        "memory-after-an-imported-prompt-in-responses-instructions",
        """
        from openai import OpenAI
        from prompts import SYSTEM_PROMPT
        def build_context(memory):
            return f"Level: {memory.get('level')}. Topics: {memory.get('topics')}." + "Keep to it. " * 20
        def ask(client: OpenAI, user_text: str, memory: dict) -> str:
            return client.responses.create(
                model="gpt-4.1-mini", instructions=SYSTEM_PROMPT + build_context(memory), input=user_text
            ).output_text
        """,
        [],
    ),
    (
        "date-opening-a-short-single-turn-system-prompt",
        """
        import boto3
        from datetime import date
        today = date.today().strftime("%A %d %B %Y")
        system = [{"text": f"Today is {today}. You are a friendly travel assistant. Keep it short."}]
        def ask(prompt):
            return boto3.client("bedrock-runtime").converse(
                modelId="amazon.nova-micro-v1:0",
                system=system,
                messages=[{"role": "user", "content": [{"text": prompt}]}],
            )
        """,
        [(4, "PC501")],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"),
    [pytest.param(s, e, id=i) for i, s, e in SINGLE_TURN_CASES],
)
def test_a_value_followed_only_by_the_newest_turn_is_not_a_buster(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert findings(source) == expected
