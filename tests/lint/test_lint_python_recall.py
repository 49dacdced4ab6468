"""
Cache busters real request-building code hid from the Python lint (issue #21), each in a case
of our own that reproduces the mechanism; a done-right twin stays quiet.
"""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source

from ._helpers import python_line_codes

LONG = "Never run a destructive command without asking the user first. " * 20


def findings(source: str) -> list[tuple[int, str]]:
    return python_line_codes(source, LONG)


MUSTACHE_TEMPLATE = """
from datetime import datetime
from langchain_core.prompts import SystemMessagePromptTemplate
SYSTEM = SystemMessagePromptTemplate.from_template(
    "You are a coding agent.\\nToday's date: {{current_date}}\\n" + LONG, FORMAT
)
async def system_prompt(branch):
    message = await SYSTEM.METHOD(
        current_date=datetime.now().strftime("%d %B, %Y"),
    )
    return message.content
"""

# (id, template_format argument, format method, expected)
TEMPLATE_FILLS = [
    ("mustache-positional-aformat", '"mustache"', "aformat", [(9, "PC501")]),
    ("mustache-keyword-format", 'template_format="mustache"', "format", [(9, "PC501")]),
    (
        "jinja2-keyword-aformat-messages",
        'template_format="jinja2"',
        "aformat_messages",
        [(9, "PC501")],
    ),
    # In an f-string template `{{current_date}}` is an escaped brace, not a variable.
    ("f-string-double-braces-are-literal", 'template_format="f-string"', "aformat", []),
]


@pytest.mark.parametrize(
    ("fmt", "method", "expected"),
    [pytest.param(f, m, e, id=i) for i, f, m, e in TEMPLATE_FILLS],
)
def test_a_langchain_template_filled_by_keyword_is_followed_in_every_format(
    fmt: str, method: str, expected: list[tuple[int, str]]
) -> None:
    source = MUSTACHE_TEMPLATE.replace("FORMAT", fmt).replace("METHOD", method)
    assert findings(source) == expected


def test_an_async_format_of_an_f_string_template_is_followed() -> None:
    source = """
        from datetime import datetime
        from langchain_core.prompts import SystemMessagePromptTemplate
        SYSTEM = SystemMessagePromptTemplate.from_template("Today's date: {current_date}\\n" + LONG)
        async def system_prompt():
            return await SYSTEM.aformat(current_date=datetime.now().strftime("%d %B, %Y"))
        """
    assert findings(source) == [(6, "PC501")]


LLM_CHAIN = """
from langchain.chains import LLMChain
from langchain.prompts import PromptTemplate
QUESTIONS_PROMPT = "Based on the document below, write three questions.\\nDocument:\\n{VARIABLE}\\n" + LONG
def generate(llm, content):
    chain = LLMChain(llm=llm, prompt=PromptTemplate.from_template(QUESTIONS_PROMPT))
    return chain.run(VARIABLE=VALUE)
"""

# (id, the template's variable, what fills it, expected)
LLM_CHAIN_FILLS = [
    ("a-per-request-name-filled-with-a-parameter", "context", "content", [(7, "PC502")]),
    ("a-per-request-name-filled-with-a-constant", "context", '"the handbook"', []),
    ("a-neutral-name-filled-with-a-parameter", "handbook", "content", []),
]


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [pytest.param(n, v, e, id=i) for i, n, v, e in LLM_CHAIN_FILLS],
)
def test_a_legacy_llm_chain_run_fills_its_template(
    variable: str, value: str, expected: list[tuple[int, str]]
) -> None:
    assert findings(LLM_CHAIN.replace("VARIABLE", variable).replace("VALUE", value)) == expected


# (id, source, expected): a sliding window of the history behind the system prompt.
WINDOW_CASES = [
    (
        "a-window-sent-as-the-messages",
        """
        import openai
        def chat(history, question, keep):
            history.append({"role": "user", "content": question})
            return openai.ChatCompletion.create(model="gpt-4o", messages=history[-keep:])
        """,
        [(5, "PC507")],
    ),
    (
        "a-window-spliced-after-the-system-message",
        """
        def chat(client, history, question):
            history.append({"role": "user", "content": question})
            system = {"role": "system", "content": "You are a support agent."}
            return client.chat.completions.create(model="m", messages=[system, *history[-6:]])
        """,
        [(5, "PC507")],
    ),
    (
        "a-window-of-graph-state-given-to-a-model",
        """
        from langchain_core.messages import SystemMessage
        def chat_node(state, llm):
            messages = [SystemMessage(content="You are a support agent.")] + state["messages"][-6:]
            if len(messages) > 7:
                messages = messages[:7]
            return {"messages": [llm.invoke(messages)]}
        """,
        [(4, "PC507")],
    ),
    (
        "the-whole-history-is-fine",
        """
        def chat(client, history, question):
            history.append({"role": "user", "content": question})
            system = {"role": "system", "content": "You are a support agent."}
            return client.chat.completions.create(model="m", messages=[system, *history])
        """,
        [],
    ),
    (
        "the-last-lines-of-a-log-are-not-a-history-window",
        """
        def ask(client, history, log_lines):
            tail = "\\n".join(log_lines[-20:])
            return client.chat.completions.create(
                model="m", messages=[*history, {"role": "user", "content": tail}]
            )
        """,
        [],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"),
    [pytest.param(s, e, id=i) for i, s, e in WINDOW_CASES],
)
def test_a_sliding_window_of_the_history_is_reported(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert findings(source) == expected


def test_a_value_formatted_into_a_prompt_below_where_it_is_taken_names_its_placeholder() -> None:
    # The clock is taken on one line and formatted into the system prompt on another: the
    # finding stays where the value comes from and names, as `written_at`, the template's
    # placeholder it fills, where it enters the text (and where the fix goes).
    source = textwrap.dedent(
        """
        from datetime import datetime
        SYSTEM_PROMPT = "Time: {current_time}\\n" + LONG
        def build(agent_factory, history):
            now = datetime.now()
            system_prompt = SYSTEM_PROMPT.format(
                current_time=now.strftime("%H:%M"),
            )
            return agent_factory(model="m", system_prompt=system_prompt, messages=history)
        """
    ).replace("LONG", repr(LONG))
    (found,) = lint_python_source(source)
    assert (found.line, found.code, found.written_at) == (5, "PC501", 3)


def test_a_value_taken_where_it_is_formatted_names_the_placeholder_it_fills() -> None:
    source = textwrap.dedent(
        """
        from datetime import datetime
        SYSTEM_PROMPT = "Time: {current_time}\\n" + LONG
        def build(agent_factory, history):
            system_prompt = SYSTEM_PROMPT.format(current_time=datetime.now().strftime("%H:%M"))
            return agent_factory(model="m", system_prompt=system_prompt, messages=history)
        """
    ).replace("LONG", repr(LONG))
    (found,) = lint_python_source(source)
    assert (found.line, found.written_at) == (5, 3)


GRAPH_NODE = """
PLANNER = "You plan coding tasks. "
def plan(state, llm):
    planning_prompt = f\"\"\"{PLANNER}
User request:
{state.get(KEY, '')}
\"\"\" + LONG
    return llm.invoke([{"role": "user", "content": planning_prompt}])
"""


def test_a_per_request_key_read_with_get_is_per_request_data() -> None:
    assert findings(GRAPH_NODE.replace("KEY", "'user_input'")) == [(6, "PC502")]


def test_a_neutral_key_read_with_get_is_not() -> None:
    assert findings(GRAPH_NODE.replace("KEY", "'tool_list'")) == []
