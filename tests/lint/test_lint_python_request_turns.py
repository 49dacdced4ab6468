"""
Per-request data and dates the analysis lost on real request-building code (issue #21), each
in a case of our own that reproduces the mechanism, in two or three spellings, with the line its
finding must be on, and a quiet twin that must stay clean.

- A user turn made by a library's message class (`HumanMessage(content=text)`): the text kept
  its dependencies but lost where they sit in it, so per-request data opening a long static
  prompt sent as the only turn was never judged.
- A model's method handed with its arguments to a call the analysis cannot read (a retry
  helper `invoke_with_retry(model.invoke, messages)`, `asyncio.to_thread(create, ...)`): the
  request it makes is the method called with those arguments.
- A helper the analysis cannot read whose name says it returns today's date or the time
  (`get_today_str()` from a module outside the project): a date, by its name.
"""

from __future__ import annotations

import pytest

from ._helpers import python_line_codes

LONG = "Follow the refund policy exactly as written in section four. " * 20


def findings(source: str) -> list[tuple[int, str]]:
    return python_line_codes(source, LONG)


# (id, source, expected (line, code) pairs); lines count from the first line of the dedented text.
FOUND = [
    (
        "langchain-human-message-opened-by-the-graph-state",
        """
        from langchain_core.messages import HumanMessage
        from config import writer
        from state import ReportState
        PROMPT = "Brief:\\n{brief}\\n" + LONG
        def draft(state: ReportState):
            brief = state["brief"]
            text = PROMPT.format(
                brief=brief,
            )
            return writer.invoke([HumanMessage(content=text)])
        """,
        [(7, "PC502")],
    ),
    (
        "a-positional-human-message-sent-by-an-async-model",
        """
        from langchain_core.messages import HumanMessage
        async def ask(llm, question):
            text = f"Question: {question}\\n" + LONG
            return await llm.ainvoke([HumanMessage(text)])
        """,
        [(4, "PC502")],
    ),
    (
        "a-mistral-user-message-opened-by-the-question",
        """
        from mistralai import Mistral
        from mistralai.models import UserMessage
        def ask(question):
            return Mistral().chat.complete(
                model="mistral-small",
                messages=[UserMessage(content="Task: " + question + LONG)],
            )
        """,
        [(7, "PC502")],
    ),
    (
        "a-retry-helper-handed-the-models-invoke",
        """
        from langchain_core.messages import HumanMessage
        from config import model
        from utils import invoke_with_retry
        from state import ChatState
        PROMPT = "Conversation so far:\\n{messages}\\n" + LONG
        def clarify(state: ChatState):
            return invoke_with_retry(
                model.invoke,
                [HumanMessage(content=PROMPT.format(messages=state["messages"]))],
                max_retries=3,
            )
        """,
        [(10, "PC502")],
    ),
    (
        "asyncio-to-thread-handed-the-sdk-method",
        """
        import asyncio
        from config import llm
        async def answer(question):
            text = "Question: " + question + "\\n" + LONG
            return await asyncio.to_thread(llm.invoke, text)
        """,
        [(5, "PC502")],
    ),
    (
        "a-date-helper-from-a-module-outside-the-project",
        """
        from langchain_core.messages import SystemMessage
        from utils import get_today_str
        AGENT = "You research. Today is {date}.\\n" + LONG
        def step(model, history):
            return model.invoke([SystemMessage(content=AGENT.format(date=get_today_str()))] + history)
        """,
        [(6, "PC501")],
    ),
    (
        "a-current-time-helper-of-an-unread-object",
        """
        from openai import OpenAI
        import helpers
        def reply(history):
            system = f"It is now {helpers.current_time_iso()}.\\n" + LONG
            return OpenAI().chat.completions.create(
                model="gpt-4o", messages=[{"role": "system", "content": system}, *history]
            )
        """,
        [(5, "PC501")],
    ),
    (
        "a-crew-input-in-two-tasks-the-second-above-long-expected-output",
        """
        from crewai import Agent, Crew, Task
        analyst = Agent(role="Analyst", goal="Analyse", backstory="Careful.")
        gather = Task(description="Gather data on {ticker}.", expected_output="A dict.", agent=analyst)
        report = Task(
            description="Write the report on {ticker}.",
            expected_output=LONG,
            agent=analyst,
        )
        def run(ticker):
            crew = Crew(agents=[analyst], tasks=[gather, report])
            return crew.kickoff(inputs={"ticker": ticker})
        """,
        [(12, "PC502")],
    ),
    (
        "a-crew-input-closing-a-short-task-then-opening-a-long-one",
        """
        from crewai import Agent, Crew, Task
        async def run(topic):
            writer = Agent(role="Writer", goal="Write", backstory="Terse.")
            steps = [
                Task(description="List sources on {topic}", expected_output="A list.", agent=writer),
                Task(description="An essay on {topic}.", expected_output=LONG, agent=writer),
            ]
            return await Crew(agents=[writer], tasks=steps).kickoff_async(inputs={"topic": topic})
        """,
        [(9, "PC502")],
    ),
]

QUIET = [
    (
        "a-human-message-whose-data-closes-the-prompt",
        """
        from langchain_core.messages import HumanMessage
        from config import writer
        from state import ReportState
        PROMPT = LONG + "\\nBrief:\\n{brief}"
        def draft(state: ReportState):
            return writer.invoke([HumanMessage(content=PROMPT.format(brief=state["brief"]))])
        """,
    ),
    (
        "a-retry-helper-handed-a-constant-request",
        """
        from langchain_core.messages import HumanMessage
        from config import model
        from utils import invoke_with_retry
        def greet():
            return invoke_with_retry(model.invoke, [HumanMessage(content=LONG)])
        """,
    ),
    (
        "a-helper-named-for-a-date-it-is-handed",
        """
        from langchain_core.messages import SystemMessage
        from utils import format_date, get_date_format
        AGENT = "You research. Dates look like {fmt}; the launch was {launch}.\\n" + LONG
        def step(model, history):
            text = AGENT.format(fmt=get_date_format(), launch=format_date(2020, 1, 1))
            return model.invoke([SystemMessage(content=text)] + history)
        """,
    ),
    (
        "a-crew-input-in-two-tasks-each-closing-its-prompt",
        """
        from crewai import Agent, Crew, Task
        analyst = Agent(role="Analyst", goal="Analyse", backstory="Careful.")
        gather = Task(description="Gather data on {ticker}.", expected_output="A dict.", agent=analyst)
        report = Task(description=LONG + " Ticker: {ticker}.", expected_output="Markdown.", agent=analyst)
        def run(ticker):
            return Crew(agents=[analyst], tasks=[gather, report]).kickoff(inputs={"ticker": ticker})
        """,
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in FOUND], ids=[c[0] for c in FOUND])
def test_per_request_data_and_dates_are_followed(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert expected  # a case expecting nothing would pass whatever is found
    found = findings(source)
    for pair in expected:
        assert pair in found, found


@pytest.mark.parametrize("source", [c[1] for c in QUIET], ids=[c[0] for c in QUIET])
def test_their_quiet_twins_stay_quiet(source: str) -> None:
    assert findings(source) == []


def test_a_model_mapped_over_questions_is_not_sent_the_list() -> None:
    # `map(chain.invoke, questions)` calls it once per question: no request holds the list.
    source = """
    from config import chain
    def answer_all(questions):
        prompts = [q + LONG for q in questions]
        return list(map(chain.invoke, prompts))
    """
    assert findings(source) == []
