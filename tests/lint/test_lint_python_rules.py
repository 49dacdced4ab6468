"""The Python rules (PC500-PC505): each flow and each request API, bad and good, from real shapes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import RULES, LintConfig, lint_paths
from promptcache.lint._config import OPT_IN
from promptcache.lint.python import PythonLinter, lint_python_source

LONG = "Follow the refund policy exactly as written in section four. " * 20


def findings(source: str, **changes: object) -> list[tuple[int, str]]:
    config = LintConfig().replace(**changes)
    found = lint_python_source(textwrap.dedent(source), config=config)
    return [(f.line, f.code) for f in found]


def codes(source: str, **changes: object) -> list[str]:
    return [code for _, code in findings(source, **changes)]


# (id, source, expected (line, code) pairs). Lines count from the first line of the dedented text.
CASES = [
    # -- PC501: volatile sources, through every kind of flow -------------------------------------
    (
        "pc501-anthropic-fstring-system",
        """
        from datetime import datetime
        def ask(client, history, question):
            system = f"Today is {datetime.now():%Y-%m-%d}. You are a support agent."
            return client.messages.create(model="m", max_tokens=9, system=system,
                messages=[*history, {"role": "user", "content": question}])
        """,
        [(4, "PC501")],
    ),
    (
        "pc501-clock-at-end-of-system-still-counts",
        """
        import time
        def ask(client, history, question):
            system = "You are a support agent. Answer briefly. Time: " + str(time.time())
            return client.messages.create(model="m", max_tokens=9, system=system, messages=history)
        """,
        [(4, "PC501")],
    ),
    (
        "pc501-good-clock-in-last-turn",
        """
        from datetime import datetime
        def ask(client, history, question):
            stamp = datetime.now().isoformat()
            return client.messages.create(model="m", max_tokens=9, system="You are an agent.",
                messages=[*history, {"role": "user", "content": f"[{stamp}] {question}"}])
        """,
        [],
    ),
    (
        "pc501-format-kwargs-splat",
        """
        import time
        TEMPLATE = "Session started {started}. Be brief."
        def reply(client, question, history):
            ctx = {"started": time.strftime("%H:%M")}
            return client.chat.completions.create(model="m", messages=[
                {"role": "system", "content": TEMPLATE.format(**ctx)},
                *history, {"role": "user", "content": question}])
        """,
        [(5, "PC501")],
    ),
    (
        "pc501-percent-and-join",
        """
        import uuid
        def reply(client, question, history):
            header = "Request %s" % uuid.uuid4()
            system = "\\n".join([header, "You are a support agent."])
            return client.chat.completions.create(model="m", messages=[
                {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
        """,
        [(4, "PC501")],
    ),
    (
        "pc501-create-double-star-params",
        """
        import uuid
        def call(client, history, question):
            params = {"model": "m", "max_tokens": 9}
            params["system"] = f"Trace {uuid.uuid4()}. You are an agent."
            params["messages"] = [*history, {"role": "user", "content": question}]
            return client.messages.create(**params)
        """,
        [(5, "PC501")],
    ),
    (
        "pc501-helper-return-value",
        """
        from datetime import date
        def preamble():
            return f"Today is {date.today()}."
        def ask(client, question, previous):
            return client.responses.create(model="m", instructions=preamble() + " Be brief.",
                                           input=question, previous_response_id=previous)
        """,
        [(4, "PC501")],
    ),
    (
        "pc501-parameter-of-in-house-wrapper",
        """
        import os
        def call_llm(client, system, question, history=()):
            return client.chat.completions.create(model="m", messages=[
                {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
        def handler(client, question):
            return call_llm(client, f"Worker {os.getpid()}. Be brief.", question)
        """,
        [(7, "PC501")],
    ),
    (
        "pc501-init-attribute",
        """
        import datetime
        class Assistant:
            def __init__(self, client):
                self.client = client
                self.preamble = f"Today is {datetime.date.today()}."
            def ask(self, history, question):
                return self.client.chat.completions.create(model="m", messages=[
                    {"role": "system", "content": self.preamble}, *history,
                    {"role": "user", "content": question}])
        """,
        [(6, "PC501")],
    ),
    (
        "pc501-messages-built-by-append",
        """
        import random
        def ask(client, history, question):
            messages = []
            messages.append({"role": "user", "content": f"Seed {random.random()}"})
            messages.extend(history)
            messages.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=messages)
        """,
        [(5, "PC501")],
    ),
    (
        "pc501-secrets-in-tools",
        """
        import secrets
        def ask(client, question):
            tools = [{"name": "lookup", "description": f"Nonce {secrets.token_hex(4)}",
                      "input_schema": {"type": "object"}}]
            return client.messages.create(model="m", max_tokens=9, tools=tools,
                messages=[{"role": "user", "content": question}])
        """,
        [(4, "PC501")],
    ),
    (
        "pc501-legacy-chatcompletion",
        """
        import openai, time
        def ask(question, history):
            return openai.ChatCompletion.create(model="m", messages=[
                {"role": "system", "content": f"t={time.time()}"},
                *history, {"role": "user", "content": question}])
        """,
        [(5, "PC501")],
    ),
    (
        "pc501-gemini-config",
        """
        from datetime import date
        from google.genai import types
        def ask(client, question):
            config = types.GenerateContentConfig(system_instruction=f"Today is {date.today()}.")
            return client.models.generate_content(model="m", contents=question, config=config)
        """,
        [(5, "PC501")],
    ),
    (
        "pc501-bedrock-converse",
        """
        from datetime import datetime
        def ask(runtime, question, history):
            return runtime.converse(modelId="m",
                system=[{"text": f"Now {datetime.utcnow()}"}],
                messages=[*history, {"role": "user", "content": [{"text": question}]}])
        """,
        [(5, "PC501")],
    ),
    (
        "pc501-bedrock-invoke-model-json-body",
        """
        import json, time
        def ask(runtime, question):
            body = {"system": f"t {time.time()}", "messages": [{"role": "user", "content": question}]}
            return runtime.invoke_model(modelId="m", body=json.dumps(body))
        """,
        [(4, "PC501")],
    ),
    (
        "pc501-litellm-completion",
        """
        import random
        from litellm import completion
        def chat(question, history):
            return completion(model="m", messages=[
                {"role": "system", "content": random.choice(["Hi.", "Hello."])},
                *history, {"role": "user", "content": question}])
        """,
        [(6, "PC501")],
    ),
    (
        "pc501-langchain-system-message",
        """
        from datetime import datetime
        from langchain_core.messages import SystemMessage
        def node(state, llm):
            system = SystemMessage(content=f"Time: {datetime.now()}")
            return llm.invoke([system, *state["messages"]])
        """,
        [(5, "PC501")],
    ),
    (
        "pc501-langchain-partial",
        """
        from datetime import datetime
        from langchain_core.prompts import ChatPromptTemplate
        prompt = ChatPromptTemplate.from_messages([
            ("system", "Today is {date}. You are a travel agent. " + LONG), ("human", "{q}")])
        dated = prompt.partial(date=datetime.now().isoformat())
        """.replace("LONG", repr(LONG)),
        [(6, "PC501")],
    ),
    (
        "pc501-langgraph-agent-prompt",
        """
        from datetime import datetime
        from langgraph.prebuilt import create_react_agent
        def graph(model, tools):
            return create_react_agent(model, tools, prompt=f"Now: {datetime.now()}")
        """,
        [(5, "PC501")],
    ),
    (
        "pc501-pydantic-ai-system-prompt-function",
        """
        from datetime import date
        from pydantic_ai import Agent
        agent = Agent("openai:gpt-4o")
        @agent.system_prompt
        def add_date() -> str:
            return f"The date is {date.today()}."
        """,
        [(7, "PC501")],
    ),
    (
        "pc501-jinja-render-prefix",
        f"""
        from datetime import date
        from jinja2 import Template
        SYSTEM = Template("Date: {{{{ today }}}}\\n" + {LONG!r})
        def system():
            return SYSTEM.render(today=date.today().isoformat())
        """,
        [(6, "PC501")],
    ),
    (
        "pc501-good-jinja-render-at-end",
        f"""
        from datetime import date
        from jinja2 import Template
        SYSTEM = Template({LONG!r} + "Date: {{{{ today }}}}")
        def system():
            return SYSTEM.render(today=date.today().isoformat())
        """,
        [],
    ),
    (
        "pc501-promptcache-builder",
        """
        from datetime import datetime
        from promptcache import Prompt
        def build(question):
            return Prompt().add_system(f"Now {datetime.now()}").with_tail(question)
        """,
        [(5, "PC501")],
    ),
    (
        "pc501-good-promptcache-tail",
        """
        from datetime import datetime
        from promptcache import Prompt
        def build(question):
            return Prompt().add_system("You are an agent.").with_tail(f"{datetime.now()} {question}")
        """,
        [],
    ),
    (
        "pc501-configured-volatile-call",
        """
        def ask(client, question):
            return client.messages.create(model="m", max_tokens=9,
                system=f"Build {clock.stamp()}", messages=[{"role": "user", "content": question}])
        """,
        [],  # not volatile by default; see test_config_declares_volatile_calls
    ),
    # -- PC502: per-request data --------------------------------------------------------------
    (
        "pc502-user-name-in-system",
        """
        def build_messages(user_name, history, question):
            system = f"You are helping {user_name}. Answer from the handbook."
            return [{"role": "system", "content": system}, *history,
                    {"role": "user", "content": question}]
        """,
        [(3, "PC502")],
    ),
    (
        "pc502-retrieved-documents-in-system",
        """
        def answer(client, question, documents, history):
            context = "\\n\\n".join(d.page_content for d in documents)
            return client.chat.completions.create(model="m", messages=[
                {"role": "system", "content": "Answer from this context:\\n" + context},
                *history, {"role": "user", "content": question}])
        """,
        [(3, "PC502")],
    ),
    (
        "pc502-request-attribute",
        """
        def handler(client, request):
            return client.messages.create(model="m", max_tokens=9,
                system=f"Customer {request.user_id}.", messages=request.history)
        """,
        [(4, "PC502")],
    ),
    (
        "pc502-langchain-invoke-system-variable",
        """
        from langchain_core.prompts import ChatPromptTemplate
        prompt = ChatPromptTemplate.from_messages([
            ("system", "You are helping {user_name}. " + LONG), ("human", "{question}")])
        def run(llm, user_name, question):
            return (prompt | llm).invoke({"user_name": user_name, "question": question})
        """.replace("LONG", repr(LONG)),
        [(6, "PC502")],
    ),
    (
        "pc502-good-question-in-last-turn",
        """
        def ask(client, history, question, user_id):
            return client.chat.completions.create(model="m", user=user_id, messages=[
                {"role": "system", "content": "You are an agent."}, *history,
                {"role": "user", "content": question}])
        """,
        [],
    ),
    (
        "pc502-good-history-splice-is-not-per-request",
        """
        def node(state, llm):
            return llm.invoke([{"role": "system", "content": "Be brief."}, *state["messages"]])
        """,
        [],
    ),
    (
        "pc502-stable-config-exempts",
        """
        def ask(client, question, user_name, history):
            return client.messages.create(model="m", max_tokens=9,
                system=f"Operator: {user_name}", messages=[*history, {"role": "user", "content": question}])
        """,
        [(4, "PC502")],
    ),
    # -- PC503: unsorted JSON -------------------------------------------------------------------
    (
        "pc503-dict-assembled-per-request",
        """
        import json
        def ask(client, question, tools, history):
            catalog = {}
            for tool in tools:
                catalog[tool.name] = tool.schema
            return client.messages.create(model="m", max_tokens=9,
                system="Tools: " + json.dumps(catalog), messages=[*history, {"role": "user", "content": question}])
        """,
        [(8, "PC503")],
    ),
    (
        "pc503-good-sort-keys",
        """
        import json
        def ask(client, question, tools):
            catalog = {t.name: t.schema for t in tools}
            return client.messages.create(model="m", max_tokens=9,
                system="Tools: " + json.dumps(catalog, sort_keys=True),
                messages=[{"role": "user", "content": question}])
        """,
        [],
    ),
    (
        "pc503-good-literal-fixed-order",
        """
        import json
        def ask(client, question):
            rules = json.dumps({"format": "markdown", "max_words": 200})
            return client.messages.create(model="m", max_tokens=9, system="Rules: " + rules,
                messages=[{"role": "user", "content": question}])
        """,
        [],
    ),
    (
        "pc503-good-json-of-question-in-last-turn",
        """
        import json
        def ask(client, question, payload):
            return client.messages.create(model="m", max_tokens=9, system="Be brief.",
                messages=[{"role": "user", "content": json.dumps(payload)}])
        """,
        [],
    ),
    # -- PC504: set order -----------------------------------------------------------------------
    (
        "pc504-join-a-set",
        """
        ENABLED = {"search", "calculator", "calendar"}
        def ask(client, question, history):
            return client.messages.create(model="m", max_tokens=9,
                system="Tools: " + ", ".join(ENABLED), messages=[*history, {"role": "user", "content": question}])
        """,
        [(5, "PC504")],
    ),
    (
        "pc504-dict-view-of-set-built-dict",
        """
        def ask(client, question, registry, allowed):
            chosen = {name: registry[name] for name in set(allowed)}
            return client.messages.create(model="m", max_tokens=9, tools=list(chosen.values()),
                messages=[{"role": "user", "content": question}])
        """,
        [(4, "PC504")],
    ),
    (
        "pc504-good-sorted",
        """
        ENABLED = {"search", "calculator"}
        def ask(client, question):
            return client.messages.create(model="m", max_tokens=9,
                system="Tools: " + ", ".join(sorted(ENABLED)), messages=[{"role": "user", "content": question}])
        """,
        [],
    ),
    # -- PC505: hash order ----------------------------------------------------------------------
    (
        "pc505-sorted-by-hash",
        """
        def ask(client, question, tools):
            ordered = sorted(tools, key=lambda t: hash(t["name"]))
            return client.messages.create(model="m", max_tokens=9, tools=ordered,
                messages=[{"role": "user", "content": question}])
        """,
        [(3, "PC505")],
    ),
    (
        "pc505-hash-in-system",
        """
        def ask(client, question, tenant, history):
            shard = hash(tenant) % 8
            return client.messages.create(model="m", max_tokens=9, system=f"Shard {shard}.",
                messages=[*history, {"role": "user", "content": question}])
        """,
        [(3, "PC505")],
    ),
    (
        "pc505-good-stable-key",
        """
        def ask(client, question, tools):
            ordered = sorted(tools, key=lambda t: t["name"])
            return client.messages.create(model="m", max_tokens=9, tools=ordered,
                messages=[{"role": "user", "content": question}])
        """,
        [],
    ),
    # -- PC506: what the analysis cannot follow is said, not called clean ----------------------
    (
        "pc506-star-import",
        """
        from agent_prompts import *
        def ask(client, question):
            return client.chat.completions.create(model="m", messages=[
                {"role": "system", "content": SUPPORT_PROMPT},
                {"role": "user", "content": question}])
        """,
        [(5, "PC506")],
    ),
    (
        "pc506-good-explicit-import-from-outside",
        """
        from agent_prompts import SUPPORT_PROMPT
        def ask(client, question):
            return client.chat.completions.create(model="m", messages=[
                {"role": "system", "content": SUPPORT_PROMPT},
                {"role": "user", "content": question}])
        """,
        [],
    ),
    # -- PC507: a sliding window of the history -------------------------------------------------
    (
        "pc507-window-of-the-history",
        """
        def ask(client, history, question):
            history.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=[
                {"role": "system", "content": "You are a support agent."}, *history[-10:]])
        """,
        [(5, "PC507")],
    ),
    (
        "pc507-good-the-whole-history",
        """
        def ask(client, history, question):
            history.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=[
                {"role": "system", "content": "You are a support agent."}, *history])
        """,
        [],
    ),
    # -- PC508: a parameter of unknown origin opens the system prompt, the conversation after it
    (
        "pc508-briefing-above-the-conversation",
        """
        import anthropic
        class Agent:
            def __init__(self):
                self.client = anthropic.Anthropic()
            def turn(self, history, briefing):
                return self.client.messages.create(
                    model="claude-sonnet-4-5", max_tokens=512,
                    system=briefing + " Follow the support handbook.", messages=history)
        """,
        [(6, "PC508")],
    ),
    (
        "pc508-good-briefing-in-the-last-turn",
        """
        import anthropic
        class Agent:
            def __init__(self):
                self.client = anthropic.Anthropic()
            def turn(self, history, briefing):
                return self.client.messages.create(
                    model="claude-sonnet-4-5", max_tokens=512,
                    system="Follow the support handbook.",
                    messages=[*history, {"role": "user", "content": briefing}])
        """,
        [],
    ),
    # -- PC500: syntax errors -------------------------------------------------------------------
    ("pc500-syntax-error", "def build_system(:\n    return 'x'\n", [(1, "PC500")]),
    ("pc500-good", "def build_system():\n    return 'x'\n", []),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_case(source: str, expected: list[tuple[int, str]]) -> None:
    # The opt-in rules (OPT_IN) are selected too, so that each case says all a user who turned
    # them on would be told.
    assert findings(source, select=("PC", *OPT_IN)) == expected


def test_every_python_rule_has_a_bad_and_a_good_case() -> None:
    for code in (c for c in RULES if c.startswith("PC5")):
        assert any((line, code) in c[2] for c in CASES for line in range(1, 50)), code
        assert any(c[0].startswith(code.lower() + "-good") and not c[2] for c in CASES), code


@pytest.mark.parametrize("code", sorted(c for c in RULES if c.startswith("PC5")))
def test_rule_examples_do_what_they_say(code: str) -> None:
    rule = RULES[code]
    config = LintConfig(threshold=1, select=("PC", code))  # an opt-in rule named, as it must be
    bad = lint_python_source(rule.bad, config=config)
    assert code in [f.code for f in bad]
    assert all(f.message.endswith(f"; {rule.fix}") for f in bad if f.code == code and rule.fix)
    assert lint_python_source(rule.good, config=config) == []


def test_config_declares_volatile_calls_and_stable_names() -> None:
    source = """
    def ask(client, question, user_name):
        return client.messages.create(model="m", max_tokens=9,
            system=f"Build {clock.stamp()} for {user_name}", messages=[])
    """
    assert codes(source) == ["PC502"]
    assert codes(source, volatile_calls=("clock.*",)) == ["PC501", "PC502"]
    assert codes(source, volatile_calls=("clock.*",), stable=("user_name",)) == ["PC501"]


def test_per_request_names_from_config() -> None:
    source = """
    def ask(client, question, tenant_slug):
        return client.messages.create(model="m", max_tokens=9, system=f"Tenant {tenant_slug}",
            messages=[])
    """
    assert "PC502" not in codes(source)  # PC508 asks about it: its origin is not seen
    assert codes(source, per_request=("tenant_*",)) == ["PC502"]


def test_message_is_position_aware_and_says_where_the_value_belongs() -> None:
    source = f"""
    from datetime import datetime
    def ask(client, history, question):
        system = f"Now: {{datetime.now()}}. " + {LONG!r}
        return client.messages.create(model="m", max_tokens=9, system=system, messages=history)
    """
    (finding,) = lint_python_source(textwrap.dedent(source))
    assert finding.tokens_at_risk is not None and finding.tokens_at_risk > 250
    assert "whole conversation" in finding.message
    assert "last user message" in finding.message and "with_tail" in finding.message
    assert "Anthropic Messages, line 5" in finding.message


def test_message_says_when_a_value_leaves_what_the_analysis_sees() -> None:
    source = """
    from datetime import datetime
    from textkit import decorate
    def ask(client, history):
        return client.messages.create(model="m", max_tokens=9,
            system=decorate(datetime.now()), messages=history)
    """
    (finding,) = lint_python_source(textwrap.dedent(source))
    assert "`textkit.decorate()`, which the analysis cannot see into" in finding.message


def test_a_finding_never_carries_prompt_text() -> None:
    secret = "Top secret internal escalation policy wording"
    source = f"""
    from datetime import datetime
    def ask(client, history):
        return client.messages.create(model="m", max_tokens=9,
            system="{secret} " + str(datetime.now()), messages=history)
    """
    (finding,) = lint_python_source(textwrap.dedent(source))
    assert secret not in finding.message


def test_a_finding_names_the_code_without_its_string_literals() -> None:
    # The label quotes the code that varies; prompt text written inside that code (the choices
    # of a random pick, the values of a dumped dict, an f-string) must not come with it.
    secret = "Top secret internal escalation policy wording"
    source = f"""
    import json, random
    def ask(client, history, catalog):
        return client.messages.create(model="m", max_tokens=9,
            system=random.choice(["{secret}", "b"]) + json.dumps({{"p": f"{secret} {{catalog}}", **catalog}}),
            messages=history)
    """
    found = lint_python_source(textwrap.dedent(source))
    assert sorted(f.code for f in found) == ["PC501", "PC503"]
    for finding in found:
        assert secret not in finding.message and "Top secret" not in finding.message
    messages = " ".join(f.message for f in found)
    assert '`random.choice(["...", "..."])`' in messages
    assert '`json.dumps({"...": "...", **catalog})`' in messages


def test_noqa_comments() -> None:
    source = """
    import time
    def ask(client, history):
        return client.messages.create(model="m", max_tokens=9,
            system=f"t={time.time()}",  # noqa: PC501
            messages=history)
    """
    assert codes(source) == []
    assert codes(source.replace("# noqa: PC501", "# noqa: E501")) == ["PC501"]
    assert codes(source.replace("# noqa: PC501", "# noqa")) == []


def test_select_and_ignore_apply_to_python_rules() -> None:
    source = "import time\ndef f(c):\n    return c.messages.create(system=str(time.time()), messages=[])\n"
    assert codes(source, ignore=("PC5",)) == []
    assert codes(source, select=("PC501",)) == ["PC501"]


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_a_helper_in_another_module(tmp_path: Path) -> None:
    # open_deep_research-shaped: a date helper in utils.py, the prompt filled in another module.
    _write(
        tmp_path,
        {
            "app/__init__.py": "",
            "app/utils.py": """
                from datetime import datetime
                def get_today_str():
                    return datetime.now().strftime("%a %b %d, %Y")
            """,
            "app/prompts.py": 'RESEARCH = "Today is {date}. Research {topic} carefully."\n',
            "app/researcher.py": """
                from langchain_core.messages import SystemMessage
                from .prompts import RESEARCH
                from .utils import get_today_str
                async def researcher(state, model):
                    system = RESEARCH.format(date=get_today_str(), topic=state["topic"])
                    return await model.ainvoke([SystemMessage(content=system), *state["messages"]])
            """,
        },
    )
    config = LintConfig(root=tmp_path)
    found = PythonLinter(config).lint_file(
        tmp_path / "app/researcher.py", display="app/researcher.py"
    )
    assert [(f.line, f.code) for f in found] == [(7, "PC501")]
    assert "(from " in found[0].message and "utils.py:4)" in found[0].message


def test_lint_paths_checks_templates_and_python_together(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/agent.py": """
                import time
                def ask(client, history):
                    return client.messages.create(model="m", max_tokens=9,
                        system=f"t={time.time()}", messages=history)
            """,
            "templates/system.j2": "Now: {{ now() }}\n" + LONG,
        },
    )
    config = LintConfig(root=tmp_path)
    found = lint_paths([tmp_path / "src", tmp_path / "templates"], config=config)
    assert sorted(f.code for f in found) == ["PC101", "PC501"]


def test_python_findings_in_every_output_format(tmp_path: Path) -> None:
    import json

    jsonschema = pytest.importorskip("jsonschema")
    from promptcache.lint import format_findings

    source = "import time\ndef f(c, h):\n    return c.messages.create(system=str(time.time()), messages=h)\n"
    found = lint_python_source(source, path="src/agent.py")
    assert [f.code for f in found] == ["PC501"]
    records = json.loads(format_findings(found, "json"))
    assert records[0]["path"] == "src/agent.py" and records[0]["tokens_at_risk"] == 0
    log = json.loads(format_findings(found, "sarif"))
    schema_path = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
    jsonschema.validate(log, json.loads(schema_path.read_text(encoding="utf-8")))
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert "```python" in rules["PC501"]["help"]["markdown"]
    assert "::warning file=src/agent.py,line=3," in format_findings(found, "github")


def test_a_string_that_doubles_in_every_statement_stays_cheap() -> None:
    # Each line doubles the string's parts: without bounds on what a value remembers this is
    # 2**60 pieces (it used to exhaust memory at 30 lines).
    doubling = "".join(f"s = s + f'{{s}}{i}'\n" for i in range(60))
    source = (
        "import time\ns = 'a' + str(time.time())\n"
        + doubling
        + "def f(c):\n    return c.messages.create(system=s, messages=[])\n"
    )
    (finding,) = lint_python_source(source)
    assert finding.code == "PC501" and finding.line == 2
    assert finding.tokens_at_risk is not None and finding.tokens_at_risk > 1000


def test_lists_and_dicts_that_double_in_every_statement_stay_cheap() -> None:
    source = (
        "import time\nxs = [{'role': 'system', 'content': str(time.time())}]\n"
        + "xs = xs + xs\n" * 80
        + "d = {'a': 1}\n"
        + "d = {**d, **d}\n" * 80
        + "def f(c, q):\n    return c.chat.completions.create(messages=[*xs, q], **d)\n"
    )
    assert [f.code for f in lint_python_source(source)] == ["PC501"]


def test_a_long_concatenation_is_followed_to_its_end() -> None:
    # `a + b + c + ...` nests one level per operand; past the analysis's depth limit the clock
    # in it used to be dropped and the file reported clean.
    parts = " + ".join(["part"] * 60)
    source = (
        "from datetime import datetime\n"
        "def build_system_prompt(part):\n"
        f"    return 'Today ' + str(datetime.now()) + {parts}\n"
    )
    assert findings(source) == [(3, "PC501")]


def test_an_expression_too_deep_to_follow_is_reported_not_called_clean() -> None:
    # A clock under 45 nested calls: the analysis stops following at its depth limit, and says
    # so on that line rather than reporting the file clean.
    nested = "str(" * 45 + "datetime.now()" + ")" * 45
    source = (
        "from datetime import datetime\n"
        "def build_system_prompt():\n"
        f"    return 'Today ' + {nested}\n"
    )
    (finding,) = lint_python_source(source)
    assert (finding.line, finding.code, finding.severity) == (3, "PC500", "error")
    assert "nested too deeply to analyse" in finding.message
    assert "cannot parse" not in finding.message


# Precision, found by linting promptcache's own code and benchmarks (each was a false alarm).
PRECISION = [
    (
        "seeded-random-instance-is-not-volatile",
        """
        import random
        def build(client, question):
            rng = random.Random(42)
            tone = rng.choice(["formal", "friendly"])
            return client.messages.create(model="m", max_tokens=9, system=f"Be {tone}.",
                messages=[{"role": "user", "content": question}])
        """,
    ),
    (
        "only-the-part-of-a-parameter-that-reaches-the-sink",
        """
        TOOLS = [{"name": "lookup", "input_schema": {"type": "object"}}]
        def assemble(client, parts):
            return client.messages.create(model="m", max_tokens=9, tools=parts["tools"],
                system="Be brief.", messages=[*parts["history"], parts["turn"]])
        def ask(client, history, question):
            return assemble(client, {"tools": TOOLS, "history": history,
                                     "turn": {"role": "user", "content": question}})
        """,
    ),
    (
        "a-wrapper-that-sends-its-messages-parameter-judges-the-callers-turns",
        """
        def call(client, messages):
            return client.chat.completions.create(model="m", messages=messages)
        def ask(client, history, question):
            return call(client, [{"role": "system", "content": "Be brief."}, *history,
                                 {"role": "user", "content": question}])
        """,
    ),
    (
        "constants-and-object-state-are-not-per-request",
        """
        from app import settings
        class Layer:
            DOCS = "docs"
        class Agent:
            def __init__(self, client):
                self.client = client
            def ask(self, question):
                return self.client.messages.create(model="m", max_tokens=9,
                    system=f"{Layer.DOCS}: {settings.context} {settings.CURRENT_TIME}",
                    messages=[{"role": "user", "content": question}])
        """,
    ),
]


@pytest.mark.parametrize("source", [c[1] for c in PRECISION], ids=[c[0] for c in PRECISION])
def test_precision(source: str) -> None:
    assert findings(source) == []


def test_a_linter_used_again_after_release_checks_the_code_again() -> None:
    # The analysis remembered analysed modules by id(); release() forgot the modules but not
    # the ids, and a new module often takes a freed one's id: the second run found nothing.
    source = textwrap.dedent(
        f"""
        from datetime import datetime
        def ask(client, question):
            return client.messages.create(model="m", system=f"Now {{datetime.now()}} {LONG}",
                                          messages=[{{"role": "user", "content": question}}])
        """
    )
    linter = PythonLinter(LintConfig())
    for _ in range(4):
        with linter.paused_gc():
            assert [f.code for f in linter.lint_source(source, display="agent.py")] == ["PC501"]
            linter.release()


def test_a_linted_module_that_nothing_imports_is_let_go_at_once(tmp_path: Path) -> None:
    # Keeping every tree of the run alive made each later parse and evaluation slower; a linted
    # module no other module imported is let go once its findings are made, one imported stays.
    _write(
        tmp_path,
        {
            "helpers.py": 'GREETING = "Hello."\n',
            "agent.py": f"""
                from datetime import datetime
                from helpers import GREETING
                def ask(client, question):
                    return client.messages.create(
                        model="m", system=f"{{GREETING}} Now {{datetime.now()}} {LONG}",
                        messages=[{{"role": "user", "content": question}}])
            """,
        },
    )
    linter = PythonLinter(LintConfig(root=tmp_path))
    with linter.paused_gc():
        found = linter.lint_file(tmp_path / "agent.py", display="agent.py")
        assert [f.code for f in found] == ["PC501"]
        agent = (tmp_path / "agent.py").read_text(encoding="utf-8")
        helpers = (tmp_path / "helpers.py").read_text(encoding="utf-8")
        assert linter.project.loaded(tmp_path / "agent.py", agent) is None
        assert linter.project.loaded(tmp_path / "helpers.py", helpers) is not None
        linter.release()


def test_a_module_linted_before_its_importer_still_gives_its_values(tmp_path: Path) -> None:
    # `prompts.py` is linted (its name is a prompt's) and let go first; `zz_agent.py` imports it
    # afterwards: it is read again and run whole, as it stood when linted, so a name it binds
    # in an `if` is still found.
    _write(
        tmp_path,
        {
            "prompts.py": """
                import os
                from datetime import datetime
                if os.environ.get("SHORT"):
                    BASE_PROMPT = "Be brief."
                else:
                    BASE_PROMPT = f"Today is {datetime.now():%Y-%m-%d}."
            """,
            "zz_agent.py": f"""
                from prompts import BASE_PROMPT
                def ask(client, question):
                    return client.messages.create(
                        model="m", system=BASE_PROMPT + "{LONG}",
                        messages=[{{"role": "user", "content": question}}])
            """,
        },
    )
    found = lint_paths([tmp_path], config=LintConfig(root=tmp_path, include=("*.py",)))
    assert [(Path(f.path).name, f.code) for f in found] == [("zz_agent.py", "PC501")]
    assert "prompts.py:7)" in found[0].message


def test_modules_let_go_in_one_run_leave_no_trace_on_new_ones(tmp_path: Path) -> None:
    # The analysis remembers analysed modules by id(); a module let go frees its id for the
    # next one, which must still be analysed (else every later file was silently clean).
    for index in range(40):
        _write(
            tmp_path,
            {
                f"agent{index:02d}.py": f"""
                    from datetime import datetime
                    def ask(client, question):
                        return client.messages.create(
                            model="m", system=f"Now {{datetime.now()}} {LONG}",
                            messages=[{{"role": "user", "content": question}}])
                """
            },
        )
    found = lint_paths([tmp_path], config=LintConfig(root=tmp_path, include=("*.py",)))
    assert sorted(Path(f.path).name for f in found) == [f"agent{i:02d}.py" for i in range(40)]
