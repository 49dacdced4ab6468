"""
A system prompt rendered by a Jinja template the analysis could not read (a file outside what
it was given), with the conversation after it. Where the template places each variable is
unknown, so what varies was only a not-followed note (PC506); but a system prompt that the whole
conversation follows varies wherever it varies: per-request data (or a clock) handed to such a
template is reported with its own code, written where it is handed to the template. Where only
the newest turn follows, where it sits decides, and it stays a note. Cases of our own making.
"""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source

from ._helpers import python_problems


def places(source: str) -> list[tuple[int, int | None, str]]:
    return python_problems(source)


# (id, source, expected (line, written_at, code)); lines count from the dedented text's first.
FOUND = [
    (
        "retrieved-passages-rendered-into-a-system-message-put-before-the-history",
        """
        import jinja2
        from openai import AsyncOpenAI
        env = jinja2.Environment(loader=jinja2.FileSystemLoader("prompts"))
        grounding = env.get_template("grounding.jinja2")
        async def chat(messages: list[dict]):
            passages = await index.search(messages[-1]["content"])
            system = grounding.render(
                passages=passages,
            )
            messages.insert(0, {"role": "system", "content": system})
            return await AsyncOpenAI().chat.completions.create(model="m", messages=messages)
        """,
        (7, 9, "PC502"),
    ),
    (
        "todays-date-rendered-into-an-anthropic-system-prompt",
        """
        import datetime
        import anthropic
        from jinja2 import Environment, PackageLoader
        env = Environment(loader=PackageLoader("bot"))
        def reply(history):
            system = env.get_template("persona.j2").render(today=datetime.date.today())
            return anthropic.Anthropic().messages.create(
                model="m", max_tokens=512, system=system, messages=history
            )
        """,
        (7, None, "PC501"),
    ),
]

QUIET = [
    (
        "retrieved-passages-rendered-into-the-newest-user-turn",
        """
        import jinja2
        from openai import AsyncOpenAI
        env = jinja2.Environment(loader=jinja2.FileSystemLoader("prompts"))
        asking = env.get_template("question.jinja2")
        async def chat(history: list[dict], question: str):
            passages = await index.search(question)
            turn = asking.render(passages=passages, question=question)
            return await AsyncOpenAI().chat.completions.create(
                model="m",
                messages=[
                    {"role": "system", "content": "You answer from the passages given."},
                    *history,
                    {"role": "user", "content": turn},
                ],
            )
        """,
    ),
    (
        "a-rendered-system-message-followed-by-only-the-newest-turn",
        """
        import jinja2
        from openai import OpenAI
        env = jinja2.Environment(loader=jinja2.FileSystemLoader("prompts"))
        def ask(question: str):
            passages = index.search(question)
            system = env.get_template("grounding.jinja2").render(passages=passages)
            return OpenAI().chat.completions.create(
                model="m",
                messages=[
                    {"role": "system", "content": system},
                    {"role": "user", "content": question},
                ],
            )
        """,
    ),
    (
        "a-rendered-system-prompt-handed-to-an-unseen-client-with-one-user-text",
        """
        import jinja2
        from app.gateway import gateway
        env = jinja2.Environment(loader=jinja2.FileSystemLoader("prompts"))
        def ask(question: str):
            passages = index.search(question)
            system = env.get_template("grounding.jinja2").render(passages=passages)
            return gateway.complete(system=system, user=question)
        """,
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in FOUND], ids=[c[0] for c in FOUND])
def test_found(source: str, expected: tuple[int, int | None, str]) -> None:
    found = places(source)
    assert expected in found, found


@pytest.mark.parametrize("source", [c[1] for c in QUIET], ids=[c[0] for c in QUIET])
def test_quiet(source: str) -> None:
    assert places(source) == []


def test_the_note_is_not_repeated_where_it_is_reported() -> None:
    source = textwrap.dedent(FOUND[0][1])
    found = [(f.line, f.code) for f in lint_python_source(source)]
    assert (7, "PC502") in found
    assert (7, "PC506") not in found, found
