"""Framework knowledge as data (`promptcache/lint/python/frameworks/`): the registry's shape, and
one real-shaped case per framework module whose sinks no other test covers."""

from __future__ import annotations

import pkgutil
import textwrap

import pytest

from promptcache.lint.python import frameworks, lint_python_source
from promptcache.lint.python._sinks import SINK_BY_API, SINKS, find_sink

LONG = "Follow the refund policy exactly as written in section four. " * 20


def findings(source: str) -> list[tuple[int, str]]:
    found = lint_python_source(textwrap.dedent(source).replace("LONG", repr(LONG)))
    return [(f.line, f.code) for f in found]


def test_every_framework_module_is_registered() -> None:
    # Adding a framework is one module: one that is written but not listed would be ignored.
    modules = {m.name for m in pkgutil.iter_modules(frameworks.__path__)}
    registered = {f.name.replace("-", "_") for f in frameworks.FRAMEWORKS}
    assert modules == registered


def test_sink_apis_are_unique() -> None:
    # Forwarded **kwargs find their sink again by its api name.
    assert len(SINK_BY_API) == len(SINKS)


@pytest.mark.parametrize(
    ("dotted", "api"),
    [
        ("llama_index.core.chat_engine.SimpleChatEngine.from_defaults", "LlamaIndex engine"),
        ("smolagents.CodeAgent", "smolagents agent"),
        ("promptflow.tools.aoai.chat", "promptflow LLM tool"),
        ("client.chat.completions.create_with_completion", "instructor structured call"),
        ("mymodule.chat", None),  # a rooted sink needs its library's name
        ("mymodule.CodeAgent", None),
    ],
)
def test_sinks_are_found_by_resolved_name(dotted: str, api: str | None) -> None:
    sink = find_sink(dotted)
    assert (sink.api if sink else None) == api


CASES = [
    (
        "llamaindex-chat-engine-system-prompt",
        """
        from datetime import date
        from llama_index.core.chat_engine import SimpleChatEngine
        def engine(llm):
            return SimpleChatEngine.from_defaults(llm=llm,
                system_prompt=f"Today is {date.today()}. " + LONG)
        """,
        [(6, "PC501")],
    ),
    (
        "smolagents-instructions",
        """
        import uuid
        from smolagents import CodeAgent
        def agent(model, tools):
            return CodeAgent(tools=tools, model=model, instructions=f"Run {uuid.uuid4()}. " + LONG)
        """,
        [(5, "PC501")],
    ),
    (
        "instructor-create-with-completion",
        """
        import time
        def extract(client, model_cls, history, text):
            return client.chat.completions.create_with_completion(model="m",
                response_model=model_cls,
                messages=[{"role": "user", "content": f"t={time.time()} " + LONG}, *history,
                          {"role": "user", "content": text}])
        """,
        [(6, "PC501")],
    ),
    (
        "openai-agents-instructions",
        """
        from datetime import datetime
        from agents import Agent
        triage = Agent(name="triage", instructions=f"Now {datetime.now()}. " + LONG)
        """,
        [(4, "PC501")],
    ),
    (
        "smolagents-good-static-instructions",
        """
        from smolagents import CodeAgent
        def agent(model, tools):
            return CodeAgent(tools=tools, model=model, instructions=LONG)
        """,
        [],
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_framework_case(source: str, expected: list[tuple[int, str]]) -> None:
    assert findings(source) == expected


def test_a_pass_through_function_is_followed_as_its_argument() -> None:
    source = """
        import time
        from markupsafe import Markup
        def ask(client, question):
            return client.messages.create(model="m", max_tokens=9,
                system=Markup(f"Started {time.time()}. " + LONG),
                messages=[{"role": "user", "content": question}])
        """
    found = lint_python_source(textwrap.dedent(source).replace("LONG", repr(LONG)))
    assert [(f.line, f.code) for f in found] == [(6, "PC501")]
    assert "assumed to pass through" not in found[0].message  # followed, not assumed
