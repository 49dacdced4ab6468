"""
Data of the newest user message appended to the system prompt of a conversation the function
copies turn by turn (issue reqA, session 33), in cases of our own that reproduce the mechanism,
each with the line its finding must be on (or be written at), and a quiet twin.

- `next((m["content"] for m in reversed(history) if m["role"] == "user"), "")`: the first turn
  met walking the conversation from its newest one is this request's own, as a `for` loop over
  `reversed(history)` that stops at it already was.
- `turns = [system]` then `for m in history: turns.append(...)`: the list lost every item (a
  loop's pass and its skip have different lengths), so the system prompt's per-request data had
  no place and was dropped; the list now keeps its first turns, the copied history after them.
- `system = base + "\\n\\n" + extra`: the value added to the text is written into it there (as
  in an f-string), where the fix goes.
"""

from __future__ import annotations

import pytest

from ._helpers import python_problems

LONG = "Answer as the shop's support desk, citing the returns policy by clause. " * 20


def findings(source: str) -> list[tuple[int, int | None, str]]:
    return python_problems(source, LONG)


def places(source: str) -> set[int]:
    return {line for found in findings(source) for line in found[:2] if line}


FOUND = [
    (
        "lookups-for-the-newest-question-appended-to-the-system-prompt",
        """
        from openai import OpenAI
        client = OpenAI()
        BASE = LONG
        def lookups(text):
            return "Order facts: " + text.upper()
        def answer(history):
            turns = [{"role": t["role"], "content": t["content"]} for t in history]
            newest = next((t["content"] for t in reversed(turns) if t["role"] == "user"), "")
            system = BASE
            facts = lookups(newest)
            if facts:
                system = system.strip() + "\\n\\n" + facts
            sent = [{"role": "system", "content": system}]
            for t in turns:
                sent.append({"role": t["role"], "content": t["content"]})
            return client.chat.completions.create(model="m", messages=sent)
        """,
        13,
    ),
    (
        "a-question-parameter-in-the-system-prompt-before-a-copied-history",
        """
        import anthropic
        client = anthropic.Anthropic()
        def reply(chat_history, question):
            system = "Today's question: " + question + LONG
            turns = [{"role": "system", "content": system}]
            for turn in chat_history:
                turns.append({"role": turn["role"], "content": turn["text"]})
            return client.messages.create(model="m", max_tokens=9, messages=turns)
        """,
        5,
    ),
    (
        "a-question-in-the-system-prompt-before-the-last-turns-copied",
        """
        import anthropic
        client = anthropic.Anthropic()
        def reply(chat_history, question):
            system = "Today's question: " + question + LONG
            turns = [{"role": "system", "content": system}]
            for number, turn in enumerate(chat_history[-12:]):
                turns.append({"role": turn["role"], "content": turn["text"]})
            return client.messages.create(model="m", max_tokens=9, messages=turns)
        """,
        5,
    ),
    (
        "the-newest-message-by-next-over-a-reversed-history",
        """
        from openai import AsyncOpenAI
        client = AsyncOpenAI()
        async def reply(messages):
            last = next(m for m in reversed(messages) if m["role"] == "user")
            system = f"The customer just wrote: {last['content']}\\n" + LONG
            return await client.chat.completions.create(
                model="m", messages=[{"role": "system", "content": system}, *messages]
            )
        """,
        5,
    ),
]

QUIET = [
    (
        # the same lookups, sent in the newest turn after the copied history
        "lookups-for-the-newest-question-sent-last",
        """
        from openai import OpenAI
        client = OpenAI()
        BASE = LONG
        def lookups(text):
            return "Order facts: " + text.upper()
        def answer(history):
            turns = [{"role": t["role"], "content": t["content"]} for t in history]
            newest = next((t["content"] for t in reversed(turns) if t["role"] == "user"), "")
            sent = [{"role": "system", "content": BASE}]
            for t in turns[:-1]:
                sent.append({"role": t["role"], "content": t["content"]})
            sent.append({"role": "user", "content": newest + "\\n\\n" + lookups(newest)})
            return client.chat.completions.create(model="m", messages=sent)
        """,
    ),
    (
        # a static system prompt before a history copied turn by turn
        "a-static-system-prompt-before-a-copied-history",
        """
        import anthropic
        client = anthropic.Anthropic()
        def reply(chat_history):
            turns = [{"role": "system", "content": LONG}]
            for turn in chat_history:
                turns.append({"role": turn["role"], "content": turn["text"]})
            return client.messages.create(model="m", max_tokens=9, messages=turns)
        """,
    ),
    (
        # walked from the oldest turn, `next` finds the conversation's first message: fixed
        # for the conversation, not this request's
        "the-first-message-by-next-over-the-history",
        """
        from openai import OpenAI
        client = OpenAI()
        def reply(messages):
            opening = next(m for m in messages if m["role"] == "user")
            system = f"The customer first wrote: {opening['content']}\\n" + LONG
            return client.chat.completions.create(
                model="m", messages=[{"role": "system", "content": system}, *messages]
            )
        """,
    ),
]


@pytest.mark.parametrize(("source", "line"), [pytest.param(s, n, id=i) for i, s, n in FOUND])
def test_newest_turn_data_in_the_system_prompt_is_found(source: str, line: int) -> None:
    found = findings(source)
    assert any(code == "PC502" for _, _, code in found), found
    assert line in places(source), found


@pytest.mark.parametrize("source", [pytest.param(s, id=i) for i, s in QUIET])
def test_their_quiet_twins_stay_quiet(source: str) -> None:
    assert findings(source) == []


def test_a_callers_trimmed_history_spliced_at_the_end_is_followed() -> None:
    # `[system, *history]` in a wrapper: the caller's history is the conversation's end, so the
    # window the caller cuts reaches the request (it was an unfollowed PC506 note)
    source = """
    import openai
    kept = []
    SYSTEM = LONG
    def send(history):
        return openai.ChatCompletion.create(
            model="gpt-4", messages=[{"role": "system", "content": SYSTEM}, *history]
        )
    def on_message(text):
        kept.append({"role": "user", "content": text})
        if len(kept) > 6:
            kept.pop(0)
        return send(kept)
    """
    assert [(line, code) for line, _, code in findings(source)] == [(12, "PC507")]


def test_a_clock_the_copying_loop_stamps_on_each_turn_is_still_found() -> None:
    # The copied turns are one splice, a history; what the loop itself writes into each of them
    # changes every turn on every request and stays a finding (as before the splice was kept).
    source = """
    from datetime import datetime
    from openai import OpenAI
    client = OpenAI()
    def reply(history):
        turns = [{"role": "system", "content": LONG}]
        for m in history:
            turns.append({"role": m["role"], "content": f"[{datetime.now()}] {m['content']}"})
        return client.chat.completions.create(model="m", messages=turns)
    """
    assert [(line, code) for line, _, code in findings(source)] == [(8, "PC501")]
