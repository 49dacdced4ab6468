"""
Per-request data sent through a project's own client wrapper (issue #21, corpus 5): the wrapper
posts the messages it is given from a function nested in its method (the one attempt a retry
helper repeats), and the caller builds the only user turn with the request's data above static
rules. Each case is our own reproduction, found, with a quiet twin that puts the data last.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from promptcache.lint.python import lint_python_source
from tests.lint._helpers import STATIC, project_findings

CLIENT = """
import httpx
from app.retry import retry_async

class EngineClient:
    def __init__(self, http: httpx.AsyncClient, base_url: str):
        self.http = http
        self.base_url = base_url

    async def chat(self, messages, temperature=0.2):
        url = f"{self.base_url}/chat/completions"

        async def _attempt():
            body = {"model": "local", "messages": messages, "temperature": temperature}
            reply = await self.http.post(url, json=body)
            return reply.json()["choices"][0]["message"]["content"]

        return await retry_async(_attempt, attempts=3)
"""

SERVICE = """
from app.client import EngineClient

RULES = "STATIC"

def _turns(wishes):
    return [
        {"role": "system", "content": "You write moving checklists."},
        {"role": "user", "content": "Wishes: " + wishes + "\\n\\n" + RULES},
    ]

class Checklists:
    def __init__(self, engine: EngineClient):
        self.engine = engine

    async def make(self, question):
        return await self.engine.chat(_turns(question))
"""


def _lint(root: Path, service: str) -> list[tuple[str, int, str]]:
    files = {
        "app/__init__.py": "",
        "app/client.py": CLIENT,
        "app/service.py": service.replace("STATIC", STATIC),
    }
    return project_findings(root, files)


def test_messages_posted_by_a_function_nested_in_the_wrappers_method_are_followed(
    tmp_path: Path,
) -> None:
    assert _lint(tmp_path, SERVICE) == [("service.py", 17, "PC502")]


def test_the_request_data_after_the_rules_stays_quiet(tmp_path: Path) -> None:
    last = SERVICE.replace('"Wishes: " + wishes + "\\n\\n" + RULES', 'RULES + "Wishes: " + wishes')
    assert last != SERVICE
    assert _lint(tmp_path, last) == []


PROVIDER = """
from app.llm.factory import get_provider

RULES = "STATIC"

async def extract(question):
    provider = get_provider("deepseek")
    turns = [
        {"role": "system", "content": "You extract signals."},
        {"role": "user", "content": "Asked: " + question + "\\n" + RULES},
    ]
    reply = await provider.chat_complete(turns, temperature=0.1)
    return reply.text
"""


def _codes(source: str) -> list[tuple[int, str]]:
    text = textwrap.dedent(source).replace("STATIC", STATIC)
    return [(f.line, f.code) for f in lint_python_source(text)]


def test_chat_turns_handed_to_a_client_made_where_the_analysis_cannot_see_are_a_request() -> None:
    # The provider comes from a factory the analysis cannot read; a call named as one that
    # sends a request, handed a list of chat turns, sends them.
    assert _codes(PROVIDER) == [(10, "PC502")]


def test_the_question_after_the_rules_stays_quiet() -> None:
    last = PROVIDER.replace('"Asked: " + question + "\\n" + RULES', 'RULES + "Asked: " + question')
    assert last != PROVIDER
    assert _codes(last) == []


def test_chat_turns_handed_to_a_call_that_sends_nothing_stay_quiet() -> None:
    # Storing the turns is no request: only a name that says it sends one counts.
    stored = PROVIDER.replace("provider.chat_complete(turns", "provider.save_turns(turns")
    assert _codes(stored) == []


EXECUTOR = """
import asyncio
import json
from app.bedrock import get_client

RULES = "STATIC"

def _send(prompt):
    body = json.dumps({"messages": [{"role": "user", "content": prompt}], "max_tokens": 300})
    return get_client().invoke_model(modelId="m", body=body)

async def narrate(facts):
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, lambda: _send("Facts: " + facts + "\\\\n" + RULES))

async def report(question):
    return await narrate(question)
"""


def test_a_lambda_run_in_an_executor_sends_its_makers_parameter_with_the_text_it_adds() -> None:
    # `facts` is no per-request name: it is `report`'s question, sent by the lambda above the
    # rules the lambda adds after it.
    assert _codes(EXECUTOR) == [(17, "PC502")]


def test_the_facts_after_the_rules_stay_quiet() -> None:
    last = EXECUTOR.replace('"Facts: " + facts + "\\\\n" + RULES', 'RULES + "Facts: " + facts')
    assert last != EXECUTOR
    assert _codes(last) == []
