"""CrewAI agents and tasks whose `{placeholders}` no kickoff of the project is seen filling (the
app that runs the crew lies elsewhere): each slot is judged where it is written, as the per-run
input CrewAI's inputs are, unless its name says it is a setting; a kickoff seen in the project
judges what it passes instead. And a task's text is followed in the user turn by CrewAI's own
closing words (`AFTER_EXPECTED`), counted as static text after its placeholders."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig, lint_paths
from promptcache.lint.python import lint_python_source

RULES = "Sort the ticket into billing, outage or account access, and say why in one line.\n" * 6


def findings(source: str) -> list[tuple[int, str, int | None]]:
    found = lint_python_source(textwrap.dedent(source).replace("RULES", repr(RULES)))
    return [(f.line, f.code, f.written_at) for f in found]


CASES = [
    (
        "task-factory-ticket-above-rules",
        # A factory in a tasks module: the ticket a customer sent opens the description.
        """
        from crewai import Task

        def make_triage_task(triager):
            return Task(
                agent=triager,
                description=(
                    "Triage this support ticket: {ticket_text}.\\n"
                    + RULES
                ),
                expected_output="One category and a reason",
            )
        """,
        [(5, "PC502", 8)],
    ),
    (
        "agent-backstory-profile-of-unknown-meaning",
        # A slot of no telling name in the system prompt: only a kickoff fills it, per run.
        """
        from crewai import Agent

        def make_advisor():
            return Agent(
                role="Onboarding Advisor",
                goal="Plan the first week of the new hire",
                backstory=(
                    "You are advising a new hire whose file reads: {hire_file}. "
                    "Plan the week around the team's rituals and the tools they use."
                ),
            )
        """,
        [(5, "PC502", 9)],
    ),
    (
        "module-level-task-with-a-short-tail",
        # Description text of ~250 characters, a short expected output: with CrewAI's own
        # closing words after it, over the threshold.
        """
        from crewai import Task

        report = Task(
            description=(
                "Read the customer's message {message} and list what they ask for. "
                "Keep each item to one line, name the product it concerns, mark the urgent "
                "ones, leave out greetings, and never invent a request the message lacks; "
                "when it asks for nothing, say so plainly."
            ),
            expected_output="A list of requests",
        )
        """,
        [(4, "PC502", 6)],
    ),
    (
        "quiet-setting-named-placeholder",
        # The reply language and the persona are set per deployment, as their names say.
        """
        from crewai import Agent

        writer = Agent(
            role="Release Notes Writer",
            goal="Write release notes in {reply_language}",
            backstory="You write as {persona}. " + RULES,
        )
        """,
        [],
    ),
    (
        "quiet-placeholder-at-the-end-of-the-task",
        # The question closes the expected output: only CrewAI's closing words follow it.
        """
        from crewai import Task

        def make_answer_task(answerer):
            return Task(
                agent=answerer,
                description=RULES,
                expected_output="A short answer to {question}",
            )
        """,
        [],
    ),
    (
        "quiet-kickoff-in-the-module-with-constants",
        # The kickoff is seen: it passes constants, so the slots hold the same text every run.
        """
        from crewai import Agent, Crew, Task

        advisor = Agent(role="Advisor", goal="Plan the week", backstory="File: {hire_file}. " + RULES)
        plan = Task(description="Plan it.", expected_output="A plan", agent=advisor)
        result = Crew(agents=[advisor], tasks=[plan]).kickoff(inputs={"hire_file": "standard"})
        """,
        [],
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_unseen_kickoff_case(source: str, expected: list[tuple[int, str, int | None]]) -> None:
    assert findings(source) == expected


AGENTS = """
from crewai import Agent

def make_advisor():
    return Agent(
        role="Onboarding Advisor",
        goal="Plan the first week for {new_hire}",
        backstory="You know the team's rituals and tools well, and plan weeks that fit them.",
    )
"""


def _lint(tmp_path: Path, main: str | None) -> list[tuple[str, int, str]]:
    (tmp_path / "agents.py").write_text(AGENTS)
    if main is not None:
        (tmp_path / "main.py").write_text(textwrap.dedent(main))
    found = lint_paths([tmp_path / "agents.py"], config=LintConfig(root=tmp_path))
    return [(Path(f.path).name, f.line, f.code) for f in found]


def test_no_kickoff_in_the_project_judges_the_slot_where_it_is_written(tmp_path: Path) -> None:
    assert _lint(tmp_path, None) == [("agents.py", 5, "PC502")]


def test_a_kickoff_in_another_file_of_the_project_judges_instead(tmp_path: Path) -> None:
    # Only agents.py is linted (a pre-commit run on the file changed): the project's main.py
    # runs the crew with a constant, so the slot is the same every run.
    main = """
        from crewai import Crew, Task
        from agents import make_advisor

        advisor = make_advisor()
        plan = Task(description="Plan it.", expected_output="A plan", agent=advisor)
        Crew(agents=[advisor], tasks=[plan]).kickoff(inputs={"new_hire": "the new hire"})
        """
    assert _lint(tmp_path, main) == []


def test_kickoff_filled_task_counts_crewais_closing_words(tmp_path: Path) -> None:
    # Seen kickoff, per-run input: ~250 characters of description after the slot were under
    # the threshold before CrewAI's own words after the expected output were counted.
    source = """
        from crewai import Agent, Crew, Task

        helper = Agent(role="Helper", goal="Help", backstory=RULES)
        listing = Task(
            description=(
                "Read the customer's message {note} and list what they ask for. "
                "Keep each item to one line, name the product it concerns, mark the urgent "
                "ones, leave out greetings, and never invent a request the message lacks; "
                "when it asks for nothing, say so plainly."
            ),
            expected_output="A list of requests",
            agent=helper,
        )
        crew = Crew(agents=[helper], tasks=[listing])

        def handle(note):
            return crew.kickoff(inputs={"note": note})
        """
    assert findings(source) == [(18, "PC502", 7)]
