"""PC507, a sliding window of the history, by mechanism: the ways real chat loops drop their
oldest turns (a slice from the end however it is written, `pop(0)`/`pop(1)`, `del` of the front,
`deque(maxlen=)`, LangChain's `trim_messages` and window memories), and the windows that are no
cache problem (the newest turn alone, a window read into the newest turn's text)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint.python import lint_python_source

from ._helpers import project_findings

HEAD = """
from openai import OpenAI
client = OpenAI()
SYSTEM = {"role": "system", "content": "You are a support agent for the refund desk. " * 30}
"""


def codes(body: str) -> list[tuple[int, str]]:
    source = HEAD + textwrap.dedent(body)
    offset = HEAD.count("\n")
    return [(f.line - offset, f.code) for f in lint_python_source(source)]


CASES = [
    (
        "slice-start-is-a-product",
        """
        def chat(history, question, k):
            history.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=[SYSTEM, *history[-k * 2:]])
        """,
        [(4, "PC507")],
    ),
    (
        "slice-start-from-len",
        """
        def chat(history, question):
            history.append({"role": "user", "content": question})
            recent = history[len(history) - 8:]
            return client.chat.completions.create(model="m", messages=[SYSTEM, *recent])
        """,
        [(4, "PC507")],
    ),
    (
        "slice-start-clamped-with-max",
        """
        def chat(history, question, keep):
            history.append({"role": "user", "content": question})
            recent = history[max(0, len(history) - keep):]
            return client.chat.completions.create(model="m", messages=[SYSTEM, *recent])
        """,
        [(4, "PC507")],
    ),
    (
        "pop-front-in-a-loop",
        """
        def chat(history, question):
            history.append({"role": "user", "content": question})
            while len(history) > 20:
                history.pop(0)
            return client.chat.completions.create(model="m", messages=[SYSTEM, *history])
        """,
        [(5, "PC507")],
    ),
    (
        "pop-after-the-system-message",
        """
        def chat(messages, question, budget, count):
            messages.append({"role": "user", "content": question})
            while count(messages) > budget:
                messages.pop(1)
            return client.chat.completions.create(model="m", messages=messages)
        """,
        [(5, "PC507")],
    ),
    (
        "del-front-slice",
        """
        def chat(messages, question):
            messages.append({"role": "user", "content": question})
            if len(messages) > 21:
                del messages[1:3]
            return client.chat.completions.create(model="m", messages=messages)
        """,
        [(5, "PC507")],
    ),
    (
        "deque-maxlen",
        """
        from collections import deque
        history = deque(maxlen=10)
        def chat(question):
            history.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=[SYSTEM, *history])
        """,
        [(3, "PC507")],
    ),
    (
        "langchain-trim-messages",
        """
        from langchain_core.messages import trim_messages
        from langchain_openai import ChatOpenAI
        llm = ChatOpenAI()
        def chat(messages):
            kept = trim_messages(messages, max_tokens=2000, token_counter=llm, include_system=True)
            return llm.invoke(kept)
        """,
        [(6, "PC507")],
    ),
    (
        "langchain-window-memory",
        """
        from langchain.chains import ConversationChain
        from langchain.memory import ConversationBufferWindowMemory
        from langchain_openai import ChatOpenAI
        chain = ConversationChain(llm=ChatOpenAI(), memory=ConversationBufferWindowMemory(k=5))
        """,
        [(5, "PC507")],
    ),
    (
        "token-budget-cut-in-a-loop",
        """
        def chat(messages, question, count, budget):
            messages.append({"role": "user", "content": question})
            while count(messages) > budget:
                messages = [messages[0]] + messages[2:]
            return client.chat.completions.create(model="m", messages=messages)
        """,
        [(5, "PC507")],
    ),
    (
        "front-cut-under-a-size-test",
        """
        def chat(history, question):
            history.append({"role": "user", "content": question})
            if len(history) > 30:
                history = history[2:]
            return client.chat.completions.create(model="m", messages=[SYSTEM, *history])
        """,
        [(5, "PC507")],
    ),
    # Quiet: no window slides over the conversation.
    (
        "system-message-left-out-once",
        """
        def chat(messages, question):
            messages = messages[1:]
            messages.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=[SYSTEM, *messages])
        """,
        [],
    ),
    (
        "newest-turn-alone",
        """
        def chat(history, question):
            history.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=[SYSTEM, *history[-1:]])
        """,
        [],
    ),
    (
        # the question first: nothing of the window's text is ever a reusable prefix
        "window-read-into-the-newest-turn-after-the-question",
        """
        def chat(history, question):
            recent = "\\n".join(m["content"] for m in history[-6:])
            turn = {"role": "user", "content": question + recent}
            return client.chat.completions.create(model="m", messages=[SYSTEM, turn])
        """,
        [],
    ),
    (
        "trim-keeping-the-oldest",
        """
        from langchain_core.messages import trim_messages
        from langchain_openai import ChatOpenAI
        llm = ChatOpenAI()
        def chat(messages):
            kept = trim_messages(messages, max_tokens=2000, token_counter=llm, strategy="first")
            return llm.invoke(kept)
        """,
        [],
    ),
    (
        "pop-of-the-newest-turn",
        """
        def retry(messages):
            messages.pop()
            return client.chat.completions.create(model="m", messages=messages)
        """,
        [],
    ),
    (
        "del-of-the-tail",
        """
        def retry(messages):
            del messages[-2:]
            return client.chat.completions.create(model="m", messages=messages)
        """,
        [],
    ),
]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_history_window(body: str, expected: list[tuple[int, str]]) -> None:
    assert codes(body) == expected


def _project(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    return project_findings(tmp_path, files)


TRIM = """
def trim_history(messages, limit):
    if len(messages) <= limit:
        return messages
    system = messages[0]
    return [system] + messages[-(limit - 1):]
"""

LOOP = """
from openai import OpenAI
from chat.stream import stream_reply
from guard.trim import trim_history

def build_client():
    return OpenAI(api_key="k")

def main(opening):
    client = build_client()
    messages = [opening]
    while True:
        messages.append({"role": "user", "content": input()})
        messages = trim_history(messages, 12)
        stream_reply(client, messages)
"""


def test_a_window_cut_in_another_module_and_sent_by_an_unread_call(tmp_path: Path) -> None:
    # The chat loop names no request API: it hands its client and its trimmed history to a
    # function in a module the analysis cannot see. The window is reported where it enters the
    # loop's module, the trim call, whose label names the slice.
    found = _project(tmp_path, {"guard/trim.py": TRIM, "app.py": LOOP})
    assert found == [("app.py", 14, "PC507")]


def test_an_unread_call_without_a_client_is_not_taken_as_sending(tmp_path: Path) -> None:
    loop = LOOP.replace("stream_reply(client, messages)", "stream_reply(messages)")
    assert _project(tmp_path, {"guard/trim.py": TRIM, "app.py": loop}) == []


def test_an_unread_call_with_a_client_and_the_whole_history_is_quiet(tmp_path: Path) -> None:
    loop = LOOP.replace("messages = trim_history(messages, 12)", "pass")
    assert _project(tmp_path, {"guard/trim.py": TRIM, "app.py": loop}) == []


ANTHROPIC = """
import anthropic
client = anthropic.Anthropic()
RULES = "Answer from the refund policy only, citing its section. " * 40
def chat(history, question):
    history.append({"role": "user", "content": question})
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=512,
        system=[{"type": "text", "text": RULES, "cache_control": {"type": "ephemeral"}}],
        messages=history[-8:])
"""


def test_a_window_after_the_last_cache_point_is_quiet() -> None:
    # The only cache point closes the system prompt: the history is never read from the
    # cache, so cutting its oldest turns loses nothing.
    assert lint_python_source(ANTHROPIC) == []


def test_a_window_is_reported_when_a_cache_point_may_sit_in_the_history() -> None:
    # A second mark, put on the newest turn: the history is cached up to it, and the window
    # changes its start on every turn.
    marked = ANTHROPIC.replace(
        "    history.append(",
        '    question = [{"type": "text", "text": question, "cache_control": {"type": "ephemeral"}}]\n'
        "    history.append(",
    )
    assert [(f.line, f.code) for f in lint_python_source(marked)] == [(10, "PC507")]


def test_a_window_with_no_cache_point_written_is_reported() -> None:
    # No mark says where caching stops (the prefix is judged as the user will cache it), and a
    # top-level `cache_control=` (Anthropic's automatic caching) marks the newest turn.
    unmarked = ANTHROPIC.replace(', "cache_control": {"type": "ephemeral"}', "")
    assert [(f.line, f.code) for f in lint_python_source(unmarked)] == [(9, "PC507")]
    automatic = ANTHROPIC.replace(
        "max_tokens=512,", 'max_tokens=512, cache_control={"type": "ephemeral"},'
    )
    assert [(f.line, f.code) for f in lint_python_source(automatic)] == [(9, "PC507")]


# A chat object keeps its history on `self`: one method appends and trims it, another sends it
# (the real shape: an agent's `act()` caps its history at a module constant, `decide()` sends
# `system=` and the history). The window is made in one method and sent in another.
CHAT_OBJECT = """
from dataclasses import dataclass, field
import anthropic
client = anthropic.Anthropic()
RULES = "Answer from the refund policy only, citing its section. " * 40
MAX_TURNS = 40
@dataclass
class Desk:
    dialogue: list = field(default_factory=list)
    def send(self):
        return client.messages.create(model="claude-sonnet-4-5", max_tokens=512,
            system=RULES, messages=self.dialogue)
    def record(self, turn):
        self.dialogue.append(turn)
        if len(self.dialogue) > MAX_TURNS:
            TRIM
"""

OBJECT_TRIMS = [
    ("reassigned-slice", "self.dialogue = self.dialogue[-MAX_TURNS:]"),
    ("pop-front", "self.dialogue.pop(0)"),
    ("del-front", "del self.dialogue[:2]"),
    ("cut-after-system", "self.dialogue = self.dialogue[2:]"),
]


@pytest.mark.parametrize("trim", [t for _, t in OBJECT_TRIMS], ids=[n for n, _ in OBJECT_TRIMS])
@pytest.mark.parametrize("init", [False, True], ids=["dataclass-field", "set-in-init"])
def test_a_window_made_in_one_method_and_sent_in_another(trim: str, init: bool) -> None:
    source = CHAT_OBJECT.replace("TRIM", trim)
    if init:  # the same history, opened empty in `__init__` rather than by a dataclass field
        source = source.replace(
            "    dialogue: list = field(default_factory=list)\n",
            "    def __init__(self):\n        self.dialogue = []\n",
        )
    assert [f.code for f in lint_python_source(source)] == ["PC507"]


def test_an_object_whose_history_is_never_cut_is_quiet() -> None:
    source = CHAT_OBJECT.replace("TRIM", "print(len(self.dialogue))")
    assert lint_python_source(source) == []


def test_an_object_trimming_another_attribute_than_the_history_sent_is_quiet() -> None:
    # The log shown on screen is cut; the history sent is whole.
    source = CHAT_OBJECT.replace("TRIM", "self.screen_history = self.screen_history[-MAX_TURNS:]")
    assert lint_python_source(source) == []


# A list cut back to its newest items under a size test is a sliding window whatever it is
# named (the real shape: a helper cleans the turns it is given into `cleaned`, caps them at a
# constant, and returns them into the request after the system prompt).
UNNAMED = """
def prepare(raw):
    cleaned = []
    for m in raw:
        cleaned.append({"role": m["role"], "content": m["content"]})
    if len(cleaned) > LIMIT:
        CUT
    return cleaned
def chat(raw, question):
    turns = [SYSTEM, *prepare(raw), {"role": "user", "content": question}]
    return client.chat.completions.create(model="m", messages=turns)
"""


def test_a_list_bounded_to_its_newest_items_is_a_window_whatever_its_name() -> None:
    source = "LIMIT = 20\n" + UNNAMED.replace("CUT", "cleaned = cleaned[-LIMIT:]")
    assert codes(source) == [(8, "PC507")]  # the cut


def test_an_object_trims_a_list_not_named_as_a_history() -> None:
    source = CHAT_OBJECT.replace("dialogue", "transcript").replace(
        "TRIM", "self.transcript = self.transcript[-MAX_TURNS:]"
    )
    assert [f.code for f in lint_python_source(source)] == ["PC507"]


def test_a_bounded_list_read_into_the_newest_turn_after_the_question_is_quiet() -> None:
    # The same cut on notes joined after the question: the newest turn's text from the
    # question on is new on every request anyway, window or not.
    source = """
    LIMIT = 20
    def chat(notes, question):
        if len(notes) > LIMIT:
            notes = notes[-LIMIT:]
        text = question + "\\n".join(notes)
        return client.chat.completions.create(
            model="m", messages=[SYSTEM, {"role": "user", "content": text}])
    """
    assert codes(source) == []


def test_a_bounded_list_cut_once_without_a_size_test_is_not_a_window_by_its_shape() -> None:
    # Without the size test the cut is not taken as a window by shape alone (the name still
    # decides for a list named as a history).
    source = "LIMIT = 20\n" + UNNAMED.replace(
        "    if len(cleaned) > LIMIT:\n        CUT\n", "    cleaned = cleaned[-LIMIT:]\n"
    )
    assert codes(source) == []
