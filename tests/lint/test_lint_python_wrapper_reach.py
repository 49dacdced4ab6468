"""
Per-request data sent through a project's own client wrapper (issue #21, corpus 5): the wrapper
posts the messages it is given from a function nested in its method (the one attempt a retry
helper repeats), and the caller builds the only user turn with the request's data above static
rules. Each case is our own reproduction, found, with a quiet twin that puts the data last.
"""

from __future__ import annotations

from pathlib import Path

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
