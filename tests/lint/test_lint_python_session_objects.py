"""
A session object whose `__init__` starts an empty history (issue 21, stop 34), in cases of our
own: `self.history = []` beside `self.system_prompt = ...` made from the patient the session
simulates. Each instance is one conversation, so what its `__init__` stores on it is fixed for
that conversation, as what a history opens with is (`self.messages = [{"role": "system",
...}]`): quiet wherever the history is sent later. The same system prompt sent with a history
the caller hands in each time (no history started in `__init__`) is still reported.
"""

from __future__ import annotations

from promptcache.lint.python import lint_python_source

RULES = "Answer as the patient would, in plain words, and never name a diagnosis. " * 8

SESSION = f"""
from openai import OpenAI

client = OpenAI()
RULES = {RULES!r}


class PatientSession:
    def __init__(self, patient_id: int):
        record = records.lookup(patient_id)
        self.system_prompt = f"You are the patient {{record}}. " + RULES
        self.history: list[dict] = []

    def send(self, text: str) -> str:
        reply = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[
                {{"role": "system", "content": self.system_prompt}},
                *self.history,
                {{"role": "user", "content": text}},
            ],
        ).choices[0].message.content
        self.history.append({{"role": "user", "content": text}})
        self.history.append({{"role": "assistant", "content": reply}})
        return reply
"""

# The history is the caller's, handed in on every call: nothing shows one conversation per object.
HANDED = (
    SESSION.replace("        self.history: list[dict] = []\n", "")
    .replace("def send(self, text: str)", "def send(self, history: list, text: str)")
    .replace("*self.history,", "*history,")
)


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_python_source(source, path="session.py")]


def test_what_init_stores_beside_an_empty_history_is_fixed_for_the_conversation() -> None:
    assert _codes(SESSION) == []


def test_the_same_prompt_sent_with_a_history_handed_in_is_reported() -> None:
    assert (10, "PC502") in _codes(HANDED)  # `patient_id`, looked up on line 10
