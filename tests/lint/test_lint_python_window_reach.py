"""PC507, windows the analysis must reach across a project: a helper that cuts the history,
imported from a package folder whose `__init__.py` (the re-export) is not in the tree; the
twins, a helper that keeps every turn and a name two modules of the folder define, stay quiet."""

from __future__ import annotations

import textwrap
from pathlib import Path

from promptcache.lint import LintConfig, lint_paths


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
