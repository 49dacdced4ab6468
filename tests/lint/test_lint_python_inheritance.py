"""PC507 through the project's class hierarchy: a method an instance runs that its class
inherits from a project base class (also past a mixin, with several bases) is that base's, so
the window it cuts reaches the subclass's request; a subclass that shadows it with a method
that keeps every turn stays quiet."""

from __future__ import annotations

import textwrap

from promptcache.lint.python import lint_python_source


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
