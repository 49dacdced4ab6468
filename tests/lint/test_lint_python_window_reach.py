"""PC507, windows the analysis must reach across a project: a helper that cuts the history,
imported from a package folder whose `__init__.py` (the re-export) is not in the tree, and the
newest turns but the latest (`[-n:-1]`) written out as a recent-conversation message; the twins
(a helper that keeps every turn, a name two modules of the folder define, every turn but the
latest, a list that holds no turns) stay quiet."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig, lint_paths
from promptcache.lint.python import lint_python_source


def _project(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    found = lint_paths([tmp_path], config=LintConfig(root=tmp_path))
    return sorted((Path(f.path).name, f.line, f.code) for f in found if f.code == "PC507")


# A tutoring agent: its helpers module keeps the newest turns behind the system prompt; the
# agent imports the helper from the package (`from app.helpers import ...`), whose
# `__init__.py` re-exports it but is not part of the tree.
HELPERS = """
KEEP = 12
def to_dicts(turns):
    return [t.model_dump() for t in turns]
def build_request(turns, persona):
    if len(turns) > KEEP:
        turns = turns[-KEEP:]
    return [{"role": "system", "content": persona}] + turns
"""

AGENT = """
from langchain_openai import ChatOpenAI
from app.helpers import build_request, to_dicts
PERSONA = "You are a patient algebra tutor who explains every step in plain words. " * 20
class Tutor:
    def __init__(self):
        self.model = ChatOpenAI(model="m")
    async def reply(self, state):
        request = build_request(state.messages, PERSONA)
        return await self.model.ainvoke(to_dicts(request))
"""


def test_a_helper_imported_from_a_package_without_its_init(tmp_path: Path) -> None:
    files = {"app/helpers/requests.py": HELPERS, "app/agent/tutor.py": AGENT}
    assert _project(tmp_path, files) == [("tutor.py", 9, "PC507")]


def test_a_helper_that_keeps_every_turn_is_quiet(tmp_path: Path) -> None:
    whole = HELPERS.replace("turns = turns[-KEEP:]", "pass")
    files = {"app/helpers/requests.py": whole, "app/agent/tutor.py": AGENT}
    assert _project(tmp_path, files) == []


def test_a_name_two_modules_of_the_folder_define_is_not_guessed(tmp_path: Path) -> None:
    other = "def build_request(turns, persona):\n    return turns\n"
    files = {
        "app/helpers/requests.py": HELPERS,
        "app/helpers/other.py": other,
        "app/agent/tutor.py": AGENT,
    }
    assert _project(tmp_path, files) == []


# A fund guide's graph node: the newest turns but the latest, written out as one "recent
# conversation" user message after the system prompt, the latest turn sent after it on its own.
RECENT = """
from langchain_anthropic import ChatAnthropic
model = ChatAnthropic(model="m")
RULES = "You are a careful fund guide; never recommend a product by name. " * 20
def recent(state, n=6):
    lines = []
    for m in state["messages"][WINDOW]:
        lines.append(f"{m.type}: {m.content[:80]}")
    return "\\n".join(lines)
def answer(state, question):
    msgs = [("system", RULES), ("user", "[recent]\\n" + recent(state)), ("user", question)]
    return model.invoke(msgs).content
"""


def _source(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_python_source(textwrap.dedent(text))]


def test_the_newest_turns_but_the_latest_are_a_window() -> None:
    assert _source(RECENT.replace("WINDOW", "-n:-1")) == [(7, "PC507")]


@pytest.mark.parametrize("whole", ["1:-1", ":-1"])
def test_every_turn_but_the_latest_is_quiet(whole: str) -> None:
    assert _source(RECENT.replace("WINDOW", whole)) == []


def test_the_last_scores_but_one_of_a_list_that_holds_no_turns_are_quiet() -> None:
    body = RECENT.replace('state["messages"][WINDOW]', 'state["scores"][-n:-1]')
    assert _source(body) == []


# A support bot copies the newest turns one by one into the request, each as the message class
# its role calls for, then adds the question.
COPIED = """
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
RULES = "You are the returns desk of a bicycle shop; quote the policy, never guess. " * 20
async def reply(llm, history, question):
    request = [SystemMessage(content=RULES)]
    for turn in history[TURNS]:
        kind = HumanMessage if turn["role"] == "user" else AIMessage
        request.append(kind(content=turn["text"]))
    request.append(HumanMessage(content=question))
    return await llm.ainvoke(request)
"""


def test_the_newest_turns_copied_one_by_one_before_the_question_are_a_window() -> None:
    assert _source(COPIED.replace("TURNS", "-8:")) == [(6, "PC507")]


def test_every_turn_copied_one_by_one_is_quiet() -> None:
    assert _source(COPIED.replace("TURNS", ":")) == []
