"""PC507 through the project's class hierarchy. A method an instance runs that its class
inherits from a project base class (in the same module or another, past a mixin, from the base
of a base) is that base's, so the window it cuts reaches the subclass's request; a subclass
shadowing it with a method that keeps every turn stays quiet. A method an abstract base only
declares, called on a value typed with the base (an item of `dict[str, LLM]`, a collaborator
handed in `__init__`), runs the project's overrides: a window the caller cuts reaches the
request an override sends; an override that sends no history stays quiet."""

from __future__ import annotations

import textwrap
from pathlib import Path

from promptcache.lint.python import lint_python_source

from ._helpers import project_findings


def _source(text: str) -> list[tuple[int, str]]:
    found = lint_python_source(textwrap.dedent(text))
    return sorted((f.line, f.code) for f in found if f.code == "PC507")


# A reference-desk bot: the shared base keeps the system prompt and the newest turns; the
# OpenAI flavour (which also mixes in a logger) sends what the base builds.
INHERITED = """
from openai import OpenAI
KEEP = 16
RULES = "You are the library's reference desk; cite the catalogue for every title. " * 20
class Desk:
    def _messages(self, turns):
        if len(turns) > KEEP:
            turns = turns[-KEEP:]
        return [{"role": "system", "content": RULES}] + turns
class Logged:
    def log(self, text):
        print(text)
class OpenAIDesk(Logged, Desk):
    def __init__(self):
        self.client = OpenAI()
    def reply(self, turns):
        self.log("reply")
        return self.client.chat.completions.create(model="m", messages=self._messages(turns))
"""


def test_a_window_cut_by_a_method_the_class_inherits_is_found() -> None:
    assert _source(INHERITED) == [(8, "PC507"), (8, "PC507")]


def test_a_base_method_shadowed_by_one_keeping_every_turn_is_quiet() -> None:
    shadowed = INHERITED.replace(
        "    def reply(self, turns):",
        "    def _messages(self, turns):\n"
        '        return [{"role": "system", "content": RULES}] + turns\n'
        "    def reply(self, turns):",
    )
    assert _source(shadowed) == []


def test_a_method_found_on_the_base_of_a_base() -> None:
    deeper = INHERITED.replace("class Logged:", "class Middle(Desk):\n    pass\nclass Logged:")
    deeper = deeper.replace("class OpenAIDesk(Logged, Desk):", "class OpenAIDesk(Logged, Middle):")
    assert _source(deeper) == [(8, "PC507"), (8, "PC507")]


# A study helper with one client per vendor: the abstract base only declares `complete`; the
# caller, handed the clients typed with the base, sends the newest turns through whichever one
# the user picked; the Anthropic client (another module) puts them after its system prompt.
LLM_BASE = """
from abc import ABC, abstractmethod
class LLM(ABC):
    @abstractmethod
    async def complete(self, turns, rules):
        ...
"""

CLAUDE = """
from anthropic import AsyncAnthropic
from llm.base import LLM
class Claude(LLM):
    def __init__(self):
        self.client = AsyncAnthropic()
    async def complete(self, turns, rules):
        reply = await self.client.messages.create(
            model="m", max_tokens=512, system=rules, messages=turns
        )
        return reply.content[0].text
"""

CHAT = """
from llm.base import LLM
RULES = "You are a study partner for first-year chemistry; quiz before you explain. " * 20
async def answer(session, clients: dict[str, LLM]):
    turns = session.turns[-30:]
    return await clients[session.vendor].complete(turns, RULES)
"""


def _project(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    # PC507's findings: what these files hold beyond the window is other rules' to judge.
    return project_findings(tmp_path, files, code="PC507")


def _vendors(claude: str) -> dict[str, str]:
    return {
        "llm/__init__.py": "",
        "llm/base.py": LLM_BASE,
        "llm/claude.py": claude,
        "chat.py": CHAT,
    }


def test_an_abstract_method_called_on_a_value_typed_with_its_base_runs_the_overrides(
    tmp_path: Path,
) -> None:
    assert _project(tmp_path, _vendors(CLAUDE)) == [("chat.py", 5, "PC507")]


def test_an_override_that_sends_only_the_newest_turn_is_quiet(tmp_path: Path) -> None:
    newest = CLAUDE.replace("messages=turns", "messages=turns[-1:]")
    newest = newest.replace("messages=turns[-1:]", 'messages=[{"role": "user", "content": "hi"}]')
    assert _project(tmp_path, _vendors(newest)) == []


# The same clients, one module: a tutor handed its client in `__init__`, typed with the base
# (whose `complete` raises NotImplementedError); the GPT client puts the turns after its rules.
HANDED = """
from openai import OpenAI
RULES = "You are a study partner for first-year chemistry; quiz before you explain. " * 20
class LLM:
    def complete(self, turns):
        raise NotImplementedError
class GPT(LLM):
    def __init__(self):
        self.client = OpenAI()
    def complete(self, turns):
        return self.client.chat.completions.create(
            model="m", messages=[{"role": "system", "content": RULES}, *turns]
        )
class Tutor:
    def __init__(self, llm: LLM):
        self.llm = llm
    def answer(self, session):
        turns = session.turns[-30:]
        return self.llm.complete(turns)
"""


def test_a_collaborator_typed_with_an_abstract_base_runs_its_subclass_override() -> None:
    assert _source(HANDED) == [(18, "PC507")]


def test_a_collaborator_whose_override_sends_no_history_is_quiet() -> None:
    quiet = HANDED.replace("*turns]", '{"role": "user", "content": "next"}]')
    assert _source(quiet) == []


# A tutor base in its own module builds the request (the persona, then the newest turns); the
# algebra tutor in another module inherits it and sends it through LangChain.
TUTOR_BASE = """
KEEP = 12
class Tutor:
    def to_dicts(self, turns):
        return [t.model_dump() for t in turns]
    def build_request(self, turns, persona):
        if len(turns) > KEEP:
            turns = turns[-KEEP:]
        return [{"role": "system", "content": persona}] + turns
"""

ALGEBRA = """
from langchain_openai import ChatOpenAI
from app.base import Tutor
PERSONA = "You are a patient algebra tutor who explains every step in plain words. " * 20
class AlgebraTutor(Tutor):
    def __init__(self):
        self.model = ChatOpenAI(model="m")
    async def reply(self, state):
        request = self.build_request(state.messages, PERSONA)
        return await self.model.ainvoke(self.to_dicts(request))
"""


def test_a_window_cut_by_a_base_class_of_another_module(tmp_path: Path) -> None:
    files = {"app/__init__.py": "", "app/base.py": TUTOR_BASE, "app/algebra.py": ALGEBRA}
    assert _project(tmp_path, files) == [("algebra.py", 9, "PC507")]


def test_a_base_of_another_module_shadowed_by_one_keeping_every_turn(tmp_path: Path) -> None:
    shadowed = ALGEBRA.replace(
        "    async def reply(self, state):",
        "    def build_request(self, turns, persona):\n"
        '        return [{"role": "system", "content": persona}] + turns\n'
        "    async def reply(self, state):",
    )
    files = {"app/__init__.py": "", "app/base.py": TUTOR_BASE, "app/algebra.py": shadowed}
    assert _project(tmp_path, files) == []
