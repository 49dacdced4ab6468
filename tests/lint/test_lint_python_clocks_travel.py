"""Clocks and dates that travel into a system prompt: through a class body computed at import,
helpers returning one another's text, a module constant of another module, a CrewAI kickoff
input. Each is taken once per process or per request, so each varies the prefix."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig, lint_paths
from promptcache.lint.python import lint_python_source

LONG = "Follow the refund policy exactly as written in section four. " * 20
HEAD = f"""
from openai import OpenAI
client = OpenAI()
LONG = {LONG!r}
"""
SEND = """
def ask(history, question):
    return client.chat.completions.create(model="m", messages=[
        {"role": "system", "content": SYSTEM()}, *history, {"role": "user", "content": question}])
"""


def codes(body: str) -> list[tuple[int, str]]:
    source = HEAD + textwrap.dedent(body) + SEND
    offset = HEAD.count("\n")
    return [(f.line - offset, f.code) for f in lint_python_source(source)]


CASES = [
    (
        "class-body-attribute-at-import",
        """
        from datetime import datetime
        class Config:
            started = datetime.now().isoformat()
            name = "desk"
        def SYSTEM():
            return f"Session of {Config.name}, started {Config.started}. " + LONG
        """,
        [(4, "PC501")],
    ),
    (
        "class-body-attribute-read-on-an-instance",
        """
        from datetime import date
        class Persona:
            today = date.today()
            def text(self):
                return f"Today is {self.today}. " + LONG
        def SYSTEM():
            return Persona().text()
        """,
        [(4, "PC501")],
    ),
    (
        "class-body-static-attribute",
        """
        class Config:
            name = "refund desk"
        def SYSTEM():
            return f"You work at the {Config.name}. " + LONG
        """,
        [],
    ),
    (
        "helpers-returning-each-others-text",
        """
        from datetime import date
        def current_date():
            return date.today().strftime("%B %d, %Y")
        def header():
            return "Date: " + current_date()
        def SYSTEM():
            return f"{header()}\\n" + LONG
        """,
        [(4, "PC501")],
    ),
]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_clock_travels(body: str, expected: list[tuple[int, str]]) -> None:
    assert codes(body) == expected


def test_a_date_computed_at_import_in_another_module(tmp_path: Path) -> None:
    (tmp_path / "prompts.py").write_text(
        "from datetime import datetime\n"
        "NOW = datetime.now()\n"
        f'SYSTEM = f"The date is {{NOW:%Y-%m-%d}}. " + {LONG!r}\n'
    )
    (tmp_path / "app.py").write_text(
        textwrap.dedent(
            """
            from openai import OpenAI
            from prompts import SYSTEM
            client = OpenAI()
            def ask(history, question):
                return client.chat.completions.create(model="m", messages=[
                    {"role": "system", "content": SYSTEM}, *history,
                    {"role": "user", "content": question}])
            """
        )
    )
    found = lint_paths([tmp_path], config=LintConfig(root=tmp_path))
    assert {(Path(f.path).name, f.code) for f in found} == {("app.py", "PC501")}


def test_a_crewai_kickoff_input_from_the_clock() -> None:
    source = textwrap.dedent(
        f"""
        from datetime import datetime
        from crewai import Agent, Crew, Task
        writer = Agent(role="Writer", goal="Write for readers of {{current_year}}",
                       backstory={LONG!r})
        story = Task(description="Write.", expected_output="Text", agent=writer)
        crew = Crew(agents=[writer], tasks=[story])
        def run():
            return crew.kickoff(inputs={{"current_year": str(datetime.now().year)}})
        """
    )
    assert [(f.line, f.code) for f in lint_python_source(source)] == [(9, "PC501")]


# The only message holds the conversation so far, rendered into its text: it grows at its end
# from request to request, so a date above it makes the whole conversation be prefilled again
# (each day), as a date above the history in a system prompt does.
RENDERED = '''
from datetime import date
from langchain_core.messages import HumanMessage
def advise(llm, question, history=""):
    today = date.today().isoformat()
    prompt = f"""You are a tenancy adviser. Today is {today}.
Rules: be brief; cite the statute.

Conversation:
{history}

User:
{question}
"""
    return llm.invoke([HumanMessage(content=prompt)])
'''


def test_a_date_above_the_conversation_rendered_into_the_only_turn_is_found() -> None:
    found = [(f.line, f.code, f.written_at) for f in lint_python_source(RENDERED)]
    assert found == [(5, "PC501", 6)]


def test_a_date_after_the_rendered_conversation_stays_quiet() -> None:
    source = RENDERED.replace(" Today is {today}.", "").replace(
        "{question}\n", "{question}\nToday is {today}.\n"
    )
    assert 'Today is {today}.\n"""' in source
    assert lint_python_source(source) == []


def test_per_request_data_above_the_rendered_conversation_is_judged_by_its_static_text() -> None:
    # The newest turn has to hold this request's data; only the static text after it counts.
    source = RENDERED.replace("Today is {today}.", "Their file: {question}.")
    assert lint_python_source(source) == []
