"""
A call into a module of the project that the analysis cannot find (issue 21, stop 34), in cases
of our own: `from app.models.chat import Chat` beside an `app/` folder without that file, then
`Chat(prompt=query, response=answer)` stores an exchange. A `prompt=` of a call the analysis
cannot see into is taken for an in-house wrapper's system prompt; the project's own class, left
out of what is linted, is not another library: what it does with `prompt=` is unknown, so it is
a not-followed note (PC506, info), not a per-request finding. The same call of an outside
library's class keeps the wrapper rule.
"""

from __future__ import annotations

from pathlib import Path

from tests.lint._helpers import project_findings

SERVICE = """
from openai import OpenAI
from app.models.chat import Chat, chats

client = OpenAI()


async def answer(query: str, user_email: str) -> str:
    reply = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": query}]
    ).choices[0].message.content
    record = Chat(user_email=user_email, prompt=query, response=reply)
    await chats.insert_one(record.model_dump())
    return reply
"""


def test_a_class_of_a_project_module_not_found_is_a_note(tmp_path: Path) -> None:
    found = project_findings(tmp_path, {"app/__init__.py": "", "app/services/ask.py": SERVICE})
    assert ("ask.py", 12, "PC502") not in found
    assert ("ask.py", 12, "PC506") in found


def test_the_same_call_of_an_outside_library_keeps_the_wrapper_rule(tmp_path: Path) -> None:
    outside = SERVICE.replace("from app.models.chat import", "from chatkit import")
    found = project_findings(tmp_path, {"app/__init__.py": "", "app/services/ask.py": outside})
    assert ("ask.py", 12, "PC502") in found
