"""
Data worked out from the newest user message, added to the end of the system prompt with the
history after it. Two gaps, in cases of our own making:

- The newest user message found by a generator over the history walked newest first
  (`next(m["content"] for m in reversed(history) if m["role"] == "user")`) was not taken as the
  newest turn, as the same walk in a `for` loop is.
- A value added to a text by `+` (`system = base + "\\n\\n" + extra`, `prompt += notes`) was not
  written there: only an f-string or `.format()` said where a value enters the prompt's text. A
  text it is written into later by an f-string still says so.
- A message list grown in a loop (`turns = [system]`, then `turns.append(...)` for each earlier
  message) lost its items when the loop's run was merged with the list before it, so what its
  system message holds went unjudged; it now keeps them, with what the loop adds after them.
- A caller's turns spliced at the end of the list a helper sends (`[system, *history]`) were not
  followed to the caller, so a window the caller cut was not reported.
"""

from __future__ import annotations

import pytest

from ._helpers import python_problems

LONG = "Answer as the almanac keeper would, in plain and friendly words. " * 20


def places(source: str) -> list[tuple[int, int | None, str]]:
    return python_problems(source, LONG)


# (id, source, expected (line, written_at, code)); lines count from the dedented text's first.
FOUND = [
    (
        "facts-from-the-newest-question-added-after-the-system-prompt",
        """
        from openai import OpenAI
        from app.tools import look_up_facts
        BASE = LONG
        def reply(history: list[dict]):
            last = next((m["content"] for m in reversed(history) if m["role"] == "user"), "")
            system = BASE
            extra = look_up_facts(last)
            if extra:
                system = system.rstrip() + "\\n\\n" + extra
            turns = [{"role": "system", "content": system}]
            for m in history:
                turns.append({"role": m["role"], "content": m["content"]})
            return OpenAI().chat.completions.create(model="m", messages=turns)
        """,
        (6, 10, "PC502"),
    ),
    (
        "notes-found-for-the-query-added-with-plus-equals",
        """
        from openai import OpenAI
        def reply(history: list[dict], query: str):
            notes = vault.search(query)
            system_prompt = LONG
            system_prompt += "\\n\\nWhat the vault says:\\n" + notes
            return OpenAI().chat.completions.create(
                model="m", messages=[{"role": "system", "content": system_prompt}, *history]
            )
        """,
        (4, 6, "PC502"),
    ),
]

WINDOWS = [
    (
        "a-window-handed-to-a-helper-that-splats-it-after-its-system-message",
        """
        from openai import OpenAI
        def send(turns):
            return OpenAI().chat.completions.create(
                model="m", messages=[{"role": "system", "content": LONG}, *turns]
            )
        def on_message(chat_log: list):
            return send(chat_log[-12:])
        """,
        (8, None, "PC507"),
    ),
]

KEPT = [
    (
        "an-f-string-the-added-text-goes-into-later-is-where-it-is-written",
        """
        from openai import OpenAI
        def reply(history: list[dict], query: str):
            notes = vault.search(query)
            block = "What the vault says:\\n" + notes
            system = f'''{block}
            Be brief.''' + LONG
            return OpenAI().chat.completions.create(
                model="m", messages=[{"role": "system", "content": system}, *history]
            )
        """,
        (4, 6, "PC502"),
    ),
]

QUIET = [
    (
        "the-whole-log-handed-to-a-helper-that-splats-it",
        """
        from openai import OpenAI
        def send(turns):
            return OpenAI().chat.completions.create(
                model="m", messages=[{"role": "system", "content": LONG}, *turns]
            )
        def on_message(chat_log: list):
            return send(chat_log)
        """,
    ),
    (
        "facts-from-the-newest-question-sent-in-the-newest-turn",
        """
        from openai import OpenAI
        from app.tools import look_up_facts
        def reply(history: list[dict]):
            last = next((m["content"] for m in reversed(history) if m["role"] == "user"), "")
            extra = look_up_facts(last)
            turns = [{"role": "system", "content": LONG}]
            for m in history[:-1]:
                turns.append({"role": m["role"], "content": m["content"]})
            turns.append({"role": "user", "content": f"{extra}\\n\\n{last}"})
            return OpenAI().chat.completions.create(model="m", messages=turns)
        """,
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"),
    [c[1:] for c in FOUND + WINDOWS + KEPT],
    ids=[c[0] for c in FOUND + WINDOWS + KEPT],
)
def test_found(source: str, expected: tuple[int, int | None, str]) -> None:
    found = places(source)
    assert expected in found, found


@pytest.mark.parametrize("source", [c[1] for c in QUIET], ids=[c[0] for c in QUIET])
def test_quiet(source: str) -> None:
    assert places(source) == []
