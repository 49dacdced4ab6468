"""
False alarms real request-building code raised (issue #21), each in a case of our own: what
follows a volatile value decides what it costs. A value at the end of the system prompt of a
single-turn request is followed only by the newest turn, which varies anyway; the same value with
the conversation (or long static text) after it is still reported.
"""

from __future__ import annotations

import pytest

from ._helpers import python_line_codes

LONG = "Follow the refund policy exactly as written in section four. " * 20


def findings(source: str) -> list[tuple[int, str]]:
    return python_line_codes(source, LONG)


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


PYDANTIC_AI = """
from datetime import date
from pydantic_ai import Agent, RunContext
concierge = Agent("openai:gpt-4o", deps_type=str, system_prompt="Greet the guest by name. " + LONG)
@concierge.system_prompt
def guest_name(ctx: RunContext[str]) -> str:
    return f"The guest is called {ctx.deps}."
@concierge.system_prompt
def todays_date() -> str:
    return f"Today is {date.today()}."
RUN
"""

# (id, how the module runs the agent, expected (line, code) pairs)
PYDANTIC_AI_RUNS = [
    ("runs-without-history", 'concierge.run_sync("Is the pool open?", deps="Dana")', []),
    (
        "a-run-with-message-history",
        'first = concierge.run_sync("Hi", deps="Dana")\n'
        'concierge.run_sync("Is the pool open?", deps="Dana", message_history=first.all_messages())',
        [(7, "PC502"), (10, "PC501")],
    ),
    ("never-run-here", "", [(7, "PC502"), (10, "PC501")]),
    ("handed-to-an-adapter", "app = concierge.to_ag_ui()", [(7, "PC502"), (10, "PC501")]),
    (
        "passed-to-another-runner",
        "serve(concierge)\nconcierge.run_sync('Hi', deps='Dana')",
        [(7, "PC502"), (10, "PC501")],
    ),
]


@pytest.mark.parametrize(
    ("run", "expected"),
    [pytest.param(r, e, id=i) for i, r, e in PYDANTIC_AI_RUNS],
)
def test_a_pydantic_ai_system_prompt_is_judged_by_the_runs_of_its_agent(
    run: str, expected: list[tuple[int, str]]
) -> None:
    assert findings(PYDANTIC_AI.replace("RUN", run)) == expected


def test_a_date_above_text_of_unknown_length_is_still_reported() -> None:
    # The examples come from a library call the analysis cannot see into: they may be long,
    # static, and lost after the date, even with only the user prompt after the system prompt.
    source = """
        from datetime import date
        from pydantic_ai import Agent, format_as_xml
        from examples import SQL_EXAMPLES
        agent = Agent("google:gemini-3-flash-preview")
        @agent.system_prompt
        async def system_prompt() -> str:
            return f"Write a SQL query.\\ntoday's date = {date.today()}\\n{format_as_xml(SQL_EXAMPLES)}"
        async def main(prompt):
            return await agent.run(prompt)
        """
    assert findings(source) == [(8, "PC501")]


# (id, source, expected): a clock taken when a conversation's history is created is fixed for
# that conversation; the same clock put into a list that is rebuilt per request is not.
CONVERSATION_START_CASES = [
    (
        "clock-in-the-history-an-agent-creates-in-init",
        """
        from datetime import datetime, timezone
        from openai import OpenAI
        SYSTEM_PROMPT = "You are a careful agent. The session started at {started}. " + LONG
        class Agent:
            def __init__(self, system_prompt=None):
                self.system_prompt = system_prompt or SYSTEM_PROMPT.format(
                    started=datetime.now(tz=timezone.utc).isoformat()
                )
                self.client = OpenAI()
                self.messages = [{"role": "system", "content": self.system_prompt}]
            def ask(self, question):
                self.messages.append({"role": "user", "content": question})
                reply = self.client.chat.completions.create(model="m", messages=self.messages)
                self.messages.append(reply.choices[0].message)
                return reply
        """,
        [],
    ),
    (
        "clock-in-the-history-a-reset-stores-per-user",
        """
        import datetime
        USERS = {}
        def system_prompt(day, clock):
            return f"You are the house assistant. Today is {day}, it is {clock}. " + LONG
        def reset_history(user_id):
            day = datetime.datetime.now().strftime("%Y-%m-%d")
            clock = datetime.datetime.now().strftime("%H:%M")
            USERS.setdefault(user_id, {})["history"] = [
                {"role": "system", "content": system_prompt(day, clock)}
            ]
        """,
        [],
    ),
    (
        "clock-in-a-list-rebuilt-for-every-request",
        """
        import datetime
        def ask(client, history, question):
            clock = datetime.datetime.now().strftime("%H:%M")
            messages = [{"role": "system", "content": f"It is {clock}. " + LONG}]
            messages.extend(history)
            messages.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=messages)
        """,
        [(4, "PC501")],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"),
    [pytest.param(s, e, id=i) for i, s, e in CONVERSATION_START_CASES],
)
def test_a_value_taken_when_the_history_is_created_is_fixed_for_it(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert findings(source) == expected


def test_a_date_taken_at_import_stays_reported_in_a_history_created_later() -> None:
    source = """
        from datetime import date
        SYSTEM_CONTENT = f"You answer Formula 1 questions from the data. " + LONG + f"Today is {date.today()}"
        class Chat:
            def __init__(self):
                self.messages = [{"role": "system", "content": SYSTEM_CONTENT}]
            def ask(self, client, question):
                self.messages.append({"role": "user", "content": question})
                return client.chat.completions.create(model="m", messages=self.messages)
        """
    assert findings(source) == [(3, "PC501")]


APPENDED = """
import json
def answer(client, history, query, results):
    context = []
    for result in results:
        page = PAGE
        context.append(page)
    system = "Answer from the context only. Context:\\n" + json.dumps(context) + LONG
    return client.chat.completions.create(
        model="gpt-4.1", messages=[{"role": "system", "content": system}, *history]
    )
"""


def test_a_list_of_dict_literals_appended_in_a_loop_has_the_code_s_key_order() -> None:
    page = '{"page_content": result.page_content, "page_number": result.metadata["page"]}'
    # PC508 does not ask about `results`: only its parts (`result.page_content`) reach the
    # prompt, and PC508 does not ask about a part of a parameter (a known gap)
    assert findings(APPENDED.replace("PAGE", page)) == []


def test_a_list_of_dicts_from_outside_appended_in_a_loop_is_still_unordered() -> None:
    assert findings(APPENDED.replace("PAGE", "result.metadata")) == [(8, "PC503")]


def test_per_request_data_a_streamlit_script_creates_its_history_with_is_the_conversation_s() -> (
    None
):
    source = """
        import streamlit as st
        from openai import OpenAI
        def system_prompt(user_name):
            return f"You help {user_name} query the sales tables. " + LONG
        if "messages" not in st.session_state:
            st.session_state.messages = [{"role": "system", "content": system_prompt(st.user.name)}]
        if prompt := st.chat_input():
            st.session_state.messages.append({"role": "user", "content": prompt})
            OpenAI().chat.completions.create(model="m", messages=st.session_state.messages)
        """
    assert findings(source) == []


def test_a_clock_a_streamlit_script_creates_its_history_with_stays_reported() -> None:
    source = """
        import streamlit as st
        from datetime import datetime
        from openai import OpenAI
        if "messages" not in st.session_state:
            st.session_state.messages = [
                {"role": "system", "content": f"Started {datetime.now()}. " + LONG}
            ]
        OpenAI().chat.completions.create(model="m", messages=st.session_state.messages)
        """
    assert findings(source) == [(7, "PC501")]
