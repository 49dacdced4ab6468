"""
The mechanisms real request-building code hides cache busters behind (issue #21), each in a
case of our own that reproduces it: framework prompt objects, values that travel, platform
wrappers, order. Each names the line the finding must be on; a `good` twin stays quiet.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig
from promptcache.lint.python import PythonLinter, lint_python_source

LONG = "Follow the refund policy exactly as written in section four. " * 20


def findings(source: str) -> list[tuple[int, str]]:
    found = lint_python_source(textwrap.dedent(source).replace("LONG", repr(LONG)))
    return [(f.line, f.code) for f in found]


def project_findings(tmp_path: Path, files: dict[str, str], linted: str) -> list[tuple[int, str]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).replace("LONG", repr(LONG)), encoding="utf-8")
    linter = PythonLinter(LintConfig(root=tmp_path), root=tmp_path)
    found = linter.lint_file(tmp_path / linted, display=linted)
    return [(f.line, f.code) for f in found]


# (id, source, expected (line, code) pairs); lines count from the first line of the dedented text.
FRAMEWORK_CASES = [
    (
        "langchain-partial-with-a-clock-callable",
        """
        from datetime import datetime
        from langchain_core.prompts import ChatPromptTemplate
        prompt = ChatPromptTemplate.from_messages(
            [("system", "You are a scheduler. The time is {time}. " + LONG), ("human", "{question}")]
        ).partial(time=datetime.now)
        def answer(llm, question):
            return (prompt | llm).invoke({"question": question})
        """,
        [(6, "PC501")],
    ),
    (
        "langchain-partial-with-a-helper-callable",
        """
        import time
        from langchain_core.prompts import ChatPromptTemplate
        def stamp():
            return time.strftime("%H:%M")
        prompt = ChatPromptTemplate.from_messages(
            [("system", "You answer tickets. Clock: {clock}. " + LONG), ("human", "{question}")]
        )
        chain = prompt.partial(clock=stamp) | object()
        """,
        [(5, "PC501")],
    ),
    (
        "langchain-invoke-of-a-state-built-in-another-function",
        """
        from datetime import date
        from langchain_core.prompts import ChatPromptTemplate, SystemMessagePromptTemplate
        SYSTEM = SystemMessagePromptTemplate.from_template("Today is {today}. " + LONG)
        PROMPT = ChatPromptTemplate.from_messages([SYSTEM, ("human", "{question}")])
        def build_state(question):
            return {"today": date.today().isoformat(), "question": question}
        def run(llm, question):
            chain = PROMPT | llm
            return chain.invoke(build_state(question))
        """,
        [(7, "PC501")],
    ),
    (
        "langchain-format-messages-of-a-splatted-dict-from-a-helper",
        """
        import uuid
        from langchain_core.prompts import ChatPromptTemplate
        PROMPT = ChatPromptTemplate.from_messages(
            [("system", "Trace {trace}. " + LONG), ("human", "{question}")])
        def variables(question):
            return {"trace": str(uuid.uuid4()), "question": question}
        def messages(question):
            return PROMPT.format_messages(**variables(question))
        """,
        [(7, "PC501")],
    ),
    (
        "langchain-value-before-a-messages-placeholder",
        """
        from datetime import datetime
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
        PROMPT = ChatPromptTemplate.from_messages([
            ("system", LONG),
            ("human", "Context retrieved at {now}"),
            MessagesPlaceholder("chat_history"),
            ("human", "{question}"),
        ])
        def run(llm, history, question):
            return (PROMPT | llm).invoke(
                {"now": datetime.now().isoformat(), "chat_history": history, "question": question})
        """,
        [(12, "PC501")],
    ),
    (
        "langgraph-module-constant-formatted-in-a-node",
        """
        from datetime import datetime
        from langchain_core.messages import SystemMessage
        PLANNER = "You plan research. Current date: {date}.\\n" + LONG
        def planner_node(state, llm):
            system = PLANNER.format(date=datetime.now().strftime("%Y-%m-%d"))
            return {"messages": [llm.invoke([SystemMessage(content=system), *state["messages"]])]}
        """,
        [(6, "PC501")],
    ),
]

TRAVEL_CASES = [
    (
        "clock-returned-through-three-calls",
        """
        from datetime import datetime
        def _now():
            return datetime.now().strftime("%Y-%m-%d %H:%M")
        def _header():
            return "Current time: " + _now() + "\\n"
        def get_system_prompt():
            return _header() + LONG
        def ask(client, question):
            return client.messages.create(model="m", max_tokens=9, system=get_system_prompt(),
                messages=[{"role": "user", "content": question}])
        """,
        [(4, "PC501")],
    ),
    (
        "method-of-a-prompt-class",
        """
        from datetime import datetime
        class PromptBuilder:
            def _date_line(self):
                return f"Date: {datetime.now():%A %d %B}"
            def build(self):
                return self._date_line() + "\\n" + LONG
        def ask(client, question):
            return client.chat.completions.create(model="m", messages=[
                {"role": "system", "content": PromptBuilder().build()},
                {"role": "user", "content": question}])
        """,
        [(5, "PC501")],
    ),
    (
        "attribute-set-in-init-read-in-another-method",
        """
        import time
        class Agent:
            def __init__(self, client):
                self.client = client
                self.started = time.time()
            def system(self):
                return f"Session opened at {self.started}. " + LONG
            def ask(self, question):
                return self.client.messages.create(model="m", max_tokens=9, system=self.system(),
                    messages=[{"role": "user", "content": question}])
        """,
        [(6, "PC501")],
    ),
    (
        "dataclass-field-default-factory",
        """
        from dataclasses import dataclass, field
        from datetime import date
        @dataclass
        class Context:
            today: str = field(default_factory=lambda: date.today().isoformat())
        def ask(client, question):
            ctx = Context()
            return client.messages.create(model="m", max_tokens=9,
                system=f"Today is {ctx.today}. " + LONG,
                messages=[{"role": "user", "content": question}])
        """,
        [(6, "PC501")],
    ),
    (
        "pydantic-field-default-factory",
        """
        from datetime import datetime
        from pydantic import BaseModel, Field
        class Settings(BaseModel):
            started_at: datetime = Field(default_factory=datetime.now)
        def ask(client, question):
            settings = Settings()
            return client.messages.create(model="m", max_tokens=9,
                system=f"Started {settings.started_at}. " + LONG,
                messages=[{"role": "user", "content": question}])
        """,
        [(5, "PC501")],
    ),
    (
        "functools-partial-binds-a-clock",
        """
        import functools, time
        def render(persona, stamp):
            return f"You are {persona}. Stamp {stamp}. " + LONG
        def ask(client, question):
            make = functools.partial(render, stamp=time.time())
            return client.messages.create(model="m", max_tokens=9, system=make("a clerk"),
                messages=[{"role": "user", "content": question}])
        """,
        [(6, "PC501")],
    ),
    (
        "lambda-passed-as-a-callback",
        """
        import time
        def run(client, get_system, question):
            return client.messages.create(model="m", max_tokens=9, system=get_system(),
                messages=[{"role": "user", "content": question}])
        def handler(client, question):
            return run(client, lambda: f"Epoch {time.time()}. " + LONG, question)
        """,
        [(7, "PC501")],
    ),
]

FRAMEWORK_CASES.append(
    (
        "langchain-clock-before-few-shot-examples-without-history",
        """
        from datetime import datetime
        from langchain_core.prompts import ChatPromptTemplate
        prompt = ChatPromptTemplate.from_messages([
            ("system", "The time now is {now}."),
            ("human", "Example question. " + LONG), ("ai", "Example answer. " + LONG),
            ("human", "{query}"),
        ]).partial(now=datetime.now())
        """,
        [(8, "PC501")],
    )
)

TRAVEL_CASES.append(
    (
        "module-constant-prompt-with-a-date-above-static-rules",
        """
        from datetime import datetime
        FACT_EXTRACTION_PROMPT = (
            f"You extract facts. Today's date is {datetime.now().strftime('%Y-%m-%d')}.\\n"
            + LONG
        )
        """,
        [(4, "PC501")],
    )
)

WRAPPER_CASES = [
    (
        "bedrock-converse-system-blocks-from-a-helper",
        """
        from datetime import datetime
        def system_blocks():
            return [{"text": f"Now: {datetime.utcnow().isoformat()}"}, {"text": LONG}]
        def ask(bedrock, question):
            return bedrock.converse(modelId="m", system=system_blocks(),
                messages=[{"role": "user", "content": [{"text": question}]}])
        """,
        [(4, "PC501")],
    ),
    (
        "promptflow-chat-prompt",
        """
        from datetime import datetime
        from promptflow.tools.aoai import chat
        def flow(connection, question):
            prompt = "# system:\\nToday is " + str(datetime.now()) + "\\n" + LONG
            prompt += "\\n# user:\\n" + question
            return chat(connection=connection, prompt=prompt, deployment_name="d")
        """,
        [(5, "PC501")],
    ),
    (
        "in-house-backoff-wrapper-forwarding-kwargs-two-frames",
        """
        import time
        from openai import OpenAI
        client = OpenAI()
        def _send(**kwargs):
            return client.chat.completions.create(**kwargs)
        def chat_completion_with_backoff(**kwargs):
            for _ in range(3):
                try:
                    return _send(**kwargs)
                except Exception:
                    time.sleep(1)
        def answer(history, question):
            context = {"role": "user", "content": f"Snapshot {time.time()}: " + LONG}
            return chat_completion_with_backoff(model="m",
                messages=[context, *history, {"role": "user", "content": question}])
        """,
        [(14, "PC501")],
    ),
    (
        "litellm-completion",
        """
        import uuid
        from litellm import completion
        def ask(history, question):
            return completion(model="m", messages=[
                {"role": "user", "content": f"Run {uuid.uuid4()}. " + LONG}, *history,
                {"role": "user", "content": question}])
        """,
        [(6, "PC501")],
    ),
    (
        "dspy-signature-with-instructions",
        """
        from datetime import date
        import dspy
        class Answer(dspy.Signature):
            question: str = dspy.InputField()
            answer: str = dspy.OutputField()
        def program():
            sig = Answer.with_instructions(f"Today is {date.today()}. " + LONG)
            return dspy.Predict(sig)
        """,
        [(8, "PC501")],
    ),
]

ORDER_CASES = [
    (
        "json-dumps-of-a-model-output",
        """
        import json
        def ask(client, history, question, previous):
            facts = json.loads(previous.choices[0].message.content)
            system = "Known facts: " + json.dumps(facts) + "\\n" + LONG
            return client.messages.create(model="m", max_tokens=9, system=system,
                messages=[*history, {"role": "user", "content": question}])
        """,
        # PC503 only: since a parameter's attribute is that part of it (`previous.choices`),
        # PC508 does not ask about a part of a parameter (a known gap, named in the docs)
        [(5, "PC503")],
    ),
    (
        "json-dumps-of-a-merged-config",
        """
        import json
        def ask(client, defaults, overrides, question):
            settings = {**defaults, **overrides}
            return client.messages.create(model="m", max_tokens=9,
                system="Settings: " + json.dumps(settings) + LONG,
                messages=[{"role": "user", "content": question}])
        """,
        [(6, "PC503")],
    ),
    (
        "set-iterated-into-the-system-prompt",
        """
        def ask(client, catalogue, question):
            sources = {entry["source"] for entry in catalogue}
            listing = "\\n".join(f"- {s}" for s in sources)
            return client.messages.create(model="m", max_tokens=9,
                system="Cite only these sources:\\n" + listing + LONG,
                messages=[{"role": "user", "content": question}])
        """,
        [(4, "PC504")],
    ),
    (
        "set-of-tool-names-into-tools",
        """
        TOOLS = {"search": {"description": "Search."}, "fetch": {"description": "Fetch."}}
        def ask(client, enabled, question):
            names = set(enabled) & set(TOOLS)
            tools = [{"name": n, **TOOLS[n]} for n in names]
            return client.messages.create(model="m", max_tokens=9, tools=tools, system=LONG,
                messages=[{"role": "user", "content": question}])
        """,
        [(5, "PC504")],
    ),
]

GOOD_CASES = [
    (
        "module-constant-prompt-with-the-date-last",
        """
        from datetime import datetime
        FACT_EXTRACTION_PROMPT = LONG + f"Today's date is {datetime.now():%Y-%m-%d}."
        """,
    ),
    (
        "langchain-clock-at-the-end-of-the-system-message-without-history",
        """
        from datetime import datetime
        from langchain_core.prompts import ChatPromptTemplate
        prompt = ChatPromptTemplate.from_messages([
            ("system", LONG + "The time now is {now}."), ("human", "{query}"),
        ]).partial(now=datetime.now())
        def ask(llm, query):
            return llm.invoke(prompt.invoke({"query": query}))
        """,
    ),
    (
        "langchain-input-before-an-agent-scratchpad",
        """
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
        PROMPT = ChatPromptTemplate.from_messages([
            ("system", LONG),
            MessagesPlaceholder("chat_history"),
            ("human", "Request from {user_name}: {input}"),
            MessagesPlaceholder(variable_name="agent_scratchpad"),
        ])
        def run(llm, history, user_name, text):
            return (PROMPT | llm).invoke(
                {"chat_history": history, "user_name": user_name, "input": text})
        """,
    ),
    (
        "langchain-partial-with-a-stable-callable",
        """
        from langchain_core.prompts import ChatPromptTemplate
        def persona():
            return "a scheduler"
        prompt = ChatPromptTemplate.from_messages(
            [("system", "You are {persona}. " + LONG), ("human", "{question}")]
        ).partial(persona=persona)
        """,
    ),
    (
        "dataclass-field-with-a-stable-factory",
        """
        from dataclasses import dataclass, field
        @dataclass
        class Context:
            language: str = field(default_factory=lambda: "English")
        def ask(client, question):
            ctx = Context()
            return client.messages.create(model="m", max_tokens=9,
                system=f"Answer in {ctx.language}. " + LONG,
                messages=[{"role": "user", "content": question}])
        """,
    ),
    (
        "functools-partial-of-stable-values",
        """
        import functools
        def render(persona, tone):
            return f"You are {persona}, {tone}. " + LONG
        def ask(client, question):
            make = functools.partial(render, tone="brief")
            return client.messages.create(model="m", max_tokens=9, system=make("a clerk"),
                messages=[{"role": "user", "content": question}])
        """,
    ),
    (
        "langchain-partial-with-a-constant",
        """
        from langchain_core.prompts import ChatPromptTemplate
        prompt = ChatPromptTemplate.from_messages(
            [("system", "You are {persona}. " + LONG), ("human", "{question}")]
        ).partial(persona="a scheduler")
        """,
    ),
    (
        "langchain-clock-in-the-human-turn",
        """
        from datetime import datetime
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
        PROMPT = ChatPromptTemplate.from_messages([
            ("system", LONG), MessagesPlaceholder("chat_history"), ("human", "[{now}] {question}"),
        ])
        def run(llm, history, question):
            return (PROMPT | llm).invoke(
                {"now": datetime.now().isoformat(), "chat_history": history, "question": question})
        """,
    ),
    (
        "json-dumps-sorted",
        """
        import json
        def ask(client, defaults, overrides, question):
            settings = {**defaults, **overrides}
            return client.messages.create(model="m", max_tokens=9,
                system="Settings: " + json.dumps(settings, sort_keys=True) + LONG,
                messages=[{"role": "user", "content": question}])
        """,
    ),
    (
        "sorted-set",
        """
        def ask(client, catalogue, question):
            sources = sorted({entry["source"] for entry in catalogue})
            listing = "\\n".join(f"- {s}" for s in sources)
            return client.messages.create(model="m", max_tokens=9,
                system="Cite only these sources:\\n" + listing + LONG,
                messages=[{"role": "user", "content": question}])
        """,
    ),
    (
        "backoff-wrapper-with-a-clock-in-the-last-turn",
        """
        import time
        from openai import OpenAI
        client = OpenAI()
        def chat_completion_with_backoff(**kwargs):
            return client.chat.completions.create(**kwargs)
        def answer(history, question):
            return chat_completion_with_backoff(model="m", messages=[
                {"role": "system", "content": LONG}, *history,
                {"role": "user", "content": f"[{time.time()}] {question}"}])
        """,
    ),
    (
        "lambda-callback-static",
        """
        def run(client, get_system, question):
            return client.messages.create(model="m", max_tokens=9, system=get_system(),
                messages=[{"role": "user", "content": question}])
        def handler(client, question):
            return run(client, lambda: LONG, question)
        """,
    ),
]

ALL_BAD = FRAMEWORK_CASES + TRAVEL_CASES + WRAPPER_CASES + ORDER_CASES


def _cases(cases: list[tuple[str, str, list[tuple[int, str]]]]) -> list[object]:
    return [pytest.param(source, expected, id=name) for name, source, expected in cases]


@pytest.mark.parametrize(("source", "expected"), _cases(ALL_BAD))
def test_mechanism_is_found(source: str, expected: list[tuple[int, str]]) -> None:
    assert findings(source) == expected


@pytest.mark.parametrize("source", [c[1] for c in GOOD_CASES], ids=[c[0] for c in GOOD_CASES])
def test_mechanism_twin_is_quiet(source: str) -> None:
    assert findings(source) == []


def test_a_prompt_helper_in_another_module_returns_the_clock(tmp_path: Path) -> None:
    files = {
        "app/__init__.py": "",
        "app/clock.py": """
            from datetime import datetime
            def today():
                return datetime.now().strftime("%Y-%m-%d")
            """,
        "app/prompts.py": """
            from .clock import today
            def get_system_prompt(persona):
                return f"You are {persona}. Today is {today()}.\\n" + LONG
            """,
        "app/agent.py": """
            from app.prompts import get_system_prompt
            def ask(client, question):
                system = get_system_prompt("a clerk")
                return client.messages.create(model="m", max_tokens=9, system=system,
                    messages=[{"role": "user", "content": question}])
            """,
    }
    # Sited at the call (the clock is in another file; the message names where it comes from).
    assert project_findings(tmp_path, files, "app/agent.py") == [(5, "PC501")]


def test_a_langgraph_prompt_constant_in_another_module(tmp_path: Path) -> None:
    files = {
        "graph/__init__.py": "",
        "graph/prompts.py": """
            from langchain_core.prompts import ChatPromptTemplate
            PLANNER = ChatPromptTemplate.from_messages(
                [("system", "Date: {date}. " + LONG), ("placeholder", "{messages}")])
            """,
        "graph/nodes.py": """
            from datetime import date
            from graph.prompts import PLANNER
            def plan(state, llm):
                chain = PLANNER | llm
                return chain.invoke({"date": date.today(), "messages": state["messages"]})
            """,
    }
    assert project_findings(tmp_path, files, "graph/nodes.py") == [(6, "PC501")]


def test_a_name_from_a_star_import_is_reported_not_followed() -> None:
    source = """
        from prompts import *
        def ask(client, question):
            return client.messages.create(model="m", max_tokens=9, system=SYSTEM_PROMPT,
                messages=[{"role": "user", "content": question}])
        """
    found = lint_python_source(textwrap.dedent(source))
    assert [(f.line, f.code, f.severity) for f in found] == [(4, "PC506", "info")]
    assert "cannot follow it, so this request was not checked" in found[0].message


def test_a_star_import_of_a_project_module_is_followed(tmp_path: Path) -> None:
    files = {
        "app/__init__.py": "",
        "app/prompts.py": """
            import time
            SYSTEM_PROMPT = f"Started {time.time()}. " + LONG
            STATIC_PROMPT = LONG
            """,
        "app/agent.py": """
            from app.prompts import *
            def ask(client, question):
                return client.messages.create(model="m", max_tokens=9, system=SYSTEM_PROMPT,
                    messages=[{"role": "user", "content": question}])
            def quiet(client, question):
                return client.messages.create(model="m", max_tokens=9, system=STATIC_PROMPT,
                    messages=[{"role": "user", "content": len(question)}])
            """,
    }
    assert project_findings(tmp_path, files, "app/agent.py") == [(4, "PC501")]


def test_a_helper_from_a_project_module_that_does_not_parse_is_not_followed(
    tmp_path: Path,
) -> None:
    files = {
        "app/__init__.py": "",
        "app/prompts.py": "def build_system(:\n    return 'x'\n",
        "app/agent.py": """
            from app.prompts import build_system
            def ask(client, question):
                return client.messages.create(model="m", max_tokens=9, system=build_system(),
                    messages=[{"role": "user", "content": question}])
            """,
    }
    assert project_findings(tmp_path, files, "app/agent.py") == [(4, "PC506")]


def test_getattr_with_a_run_time_name_is_not_followed() -> None:
    source = """
        import prompts
        def ask(client, agent, question):
            system = getattr(prompts, agent.upper() + "_PROMPT")
            return client.messages.create(model="m", max_tokens=9, system=system,
                messages=[{"role": "user", "content": question}])
        """
    assert findings(source) == [(4, "PC506")]
    constant = source.replace('agent.upper() + "_PROMPT"', '"SUPPORT_PROMPT"')
    assert findings(constant) == []


def test_a_variable_rendered_by_an_unreadable_template_is_not_followed() -> None:
    # The template's text comes from settings the analysis cannot read: where the date renders
    # (the system prompt's top, or its last line) is unknown. An info note, not a buster.
    source = """
        import datetime
        from jinja2 import Environment
        def review(ai, settings, diff):
            variables = {"date": datetime.datetime.now().strftime("%Y-%m-%d"), "diff": diff}
            system = Environment().from_string(settings.review_prompt.system).render(variables)
            return ai.chat_completion(model="m", system=system, user=diff)
        """
    # Both variables are noted (the clock and the per-request diff), neither as a buster.
    assert findings(source) == [(5, "PC506"), (5, "PC506")]


LATE_CASES = [
    (
        "agents-sdk-dynamic-instructions-with-the-run-context",
        """
        from agents import Agent, RunContextWrapper
        async def instructions(wrapper: RunContextWrapper[dict], agent) -> str:
            return f"You tutor {wrapper.context['username']}. " + LONG
        tutor = Agent(name="tutor", instructions=instructions)
        """,
        [(4, "PC502")],
    ),
    (
        "langchain-runnable-map-fills-a-clock-per-call",
        """
        from datetime import datetime
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
        from langchain_core.runnables import RunnableMap
        def chain(llm, memory):
            ingress = RunnableMap({
                "input": lambda x: x["input"],
                "time": lambda _: str(datetime.now()),
            })
            prompt = ChatPromptTemplate.from_messages([
                ("system", "You are helpful. It is {time}."),
                MessagesPlaceholder(variable_name="chat_history"),
                ("human", "{input}"),
            ])
            return ingress | prompt | llm
        """,
        [(8, "PC501")],
    ),
    (
        "langchain-dict-of-callables-piped-into-a-prompt",
        """
        import time
        from langchain_core.prompts import ChatPromptTemplate
        PROMPT = ChatPromptTemplate.from_messages([("system", "t={stamp}. " + LONG), ("human", "{q}")])
        chain = {"stamp": lambda _: time.time(), "q": lambda x: x["q"]} | PROMPT
        """,
        [(5, "PC501")],
    ),
]


LATE_CASES.append(
    (
        "prompt-builder-function-puts-the-customer-email-above-static-rules",
        """
        def get_user_prompt(email: str) -> str:
            return f"Customer email:\\n{email}\\n\\nClassify it by these rules:\\n" + LONG
        """,
        [(3, "PC502")],
    )
)


LATE_CASES.append(
    (
        "message-helper-given-the-system-role-by-its-caller",
        """
        import time
        def create_chat_message(role, content):
            return {"role": role, "content": content}
        def generate_context(prompt, user_prompt):
            return [
                create_chat_message("system", prompt),
                create_chat_message("system", f"The time is {time.strftime('%c')}"),
                create_chat_message("user", user_prompt),
            ]
        """,
        [(8, "PC501")],
    )
)


LATE_CASES.append(
    (
        "langchain-retrieved-context-assigned-into-the-system-message-above-history",
        """
        from operator import itemgetter
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
        from langchain_core.runnables import RunnablePassthrough
        PROMPT = ChatPromptTemplate.from_messages([
            ("system", "Answer from the context.\\n<context>{context}</context>\\n" + LONG),
            MessagesPlaceholder("history"),
            ("human", "{query}"),
        ])
        def chain(retriever, load_memory, llm):
            return RunnablePassthrough.assign(
                history=load_memory,
                context=itemgetter("query") | retriever,
            ) | PROMPT | llm
        """,
        [(13, "PC502")],
    )
)


@pytest.mark.parametrize(("source", "expected"), _cases(LATE_CASES))
def test_late_mechanism_is_found(source: str, expected: list[tuple[int, str]]) -> None:
    assert findings(source) == expected


def test_static_dynamic_instructions_stay_quiet() -> None:
    source = """
        from agents import Agent, RunContextWrapper
        async def instructions(wrapper: RunContextWrapper[dict], agent) -> str:
            return LONG if agent.name == "tutor" else "Be brief. " + LONG
        tutor = Agent(name="tutor", instructions=instructions)
        """
    assert findings(source) == []


def test_a_prompt_builder_with_the_request_data_last_stays_quiet() -> None:
    source = """
        def get_user_prompt(email: str) -> str:
            return "Classify the customer email below by these rules:\\n" + LONG + email
        """
    assert findings(source) == []


def test_a_parameter_rendered_by_an_unreadable_template_is_not_followed_at_the_call() -> None:
    source = """
        import datetime
        from jinja2 import Environment
        def predict(ai, prompt_settings, variables):
            system = Environment().from_string(prompt_settings.system).render(variables)
            return ai.chat_completion(model="m", system=system, user="Review it.")
        def review(ai, prompt_settings):
            variables = {"date": datetime.datetime.now().strftime("%Y-%m-%d")}
            return predict(ai, prompt_settings, variables)
        """
    assert findings(source) == [(8, "PC506")]


def test_retrieved_context_in_the_last_turn_stays_quiet() -> None:
    source = """
        from operator import itemgetter
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
        from langchain_core.runnables import RunnableParallel
        PROMPT = ChatPromptTemplate.from_messages([
            ("system", LONG),
            MessagesPlaceholder("history"),
            ("human", "<context>{context}</context>\\n{query}"),
        ])
        def chain(retriever, llm):
            inputs = RunnableParallel(context=itemgetter("query") | retriever, query=itemgetter("query"))
            return inputs | PROMPT | llm
        """
    assert findings(source) == []
