"""PC507, more forms of a history window from real chat code: a history halved under a token
budget (the cut in the `else` of the size test), a request sent through a function handed to
an executor with its arguments, a list type whose `append` drops the oldest turn once full,
and histories named `msgs` or `memory`."""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source

HEAD = """
import asyncio
from openai import OpenAI
client = OpenAI()
SYSTEM = {"role": "system", "content": "You are the booking assistant of a dental practice. " * 30}
"""


def codes(body: str) -> list[tuple[int, str]]:
    source = HEAD + textwrap.dedent(body)
    offset = HEAD.count("\n")
    return [(f.line - offset, f.code) for f in lint_python_source(source)]


def test_a_history_halved_until_it_fits_is_a_window() -> None:
    body = """
    def fit(messages, count, budget):
        while True:
            if count(messages) <= budget:
                return messages
            else:
                messages = messages[len(messages) // 2:]
    def chat(messages, question, count):
        messages.append({"role": "user", "content": question})
        return client.chat.completions.create(
            model="m", messages=[SYSTEM, *fit(messages, count, 3000)])
    """
    assert codes(body) == [(7, "PC507")]


def test_a_computed_front_cut_made_once_is_a_fixed_part_left_out() -> None:
    body = """
    def chat(messages, question, skip):
        messages = messages[skip:]
        messages.append({"role": "user", "content": question})
        return client.chat.completions.create(model="m", messages=[SYSTEM, *messages])
    """
    assert codes(body) == []


EXECUTOR = """
def _send(params):
    return client.chat.completions.create(**params)
async def chat(history, question, keep):
    history.append({"role": "user", "content": question})
    params = {"model": "m", "messages": [SYSTEM, *history[-keep:]]}
    RUN
"""

RUNS = [
    (
        "run-in-executor",
        "return await asyncio.get_running_loop().run_in_executor(None, _send, params)",
    ),
    ("to-thread", "return await asyncio.to_thread(_send, params)"),
    ("executor-submit", "return POOL.submit(_send, params).result()"),
]


@pytest.mark.parametrize("run", [r[1] for r in RUNS], ids=[r[0] for r in RUNS])
def test_a_request_sent_by_a_function_handed_to_an_executor(run: str) -> None:
    source = "from concurrent.futures import ThreadPoolExecutor\nPOOL = ThreadPoolExecutor()\n"
    assert codes(source + EXECUTOR.replace("RUN", run)) == [(8, "PC507")]


def test_an_executor_handed_a_function_that_sends_the_whole_history_is_quiet() -> None:
    body = EXECUTOR.replace("history[-keep:]", "history").replace(
        "RUN", "return await asyncio.to_thread(_send, params)"
    )
    assert codes(body) == []


# A list type that keeps a bounded history itself (the real shape: an agent's helper module
# subclasses `list`, its `append` pops the oldest item, or the one after the system message,
# once the list is full; the agent builds its histories from it and sends them whole).
BOUNDED = """
class Transcript(list):
    def __init__(self, turns, size):
        super().__init__(turns)
        self.size = size
    def append(self, turn):
        if len(self) == self.size:
            self.pop(POP)
        super().append(turn)
def ask(question, answer):
    transcript = Transcript([SYSTEM, {"role": "user", "content": question}], size=6)
    for _ in range(3):
        reply = client.chat.completions.create(model="m", messages=transcript)
        transcript.append({"role": "assistant", "content": reply.choices[0].message.content})
        transcript.append({"role": "user", "content": answer})
"""


@pytest.mark.parametrize("index", ["0", "1"])
def test_a_list_type_that_drops_its_oldest_items_is_a_window(index: str) -> None:
    assert codes(BOUNDED.replace("POP", index)) == [(11, "PC507")]  # where one is made


def test_a_list_type_that_drops_its_newest_item_is_quiet() -> None:
    assert codes(BOUNDED.replace("self.pop(POP)", "self.pop()")) == []


def test_a_history_named_msgs_is_a_history() -> None:
    # `msgs = msgs[-HISTORY_TURNS:]` (real chat code abbreviates `messages` so): a window.
    body = """
    HISTORY_TURNS = 12
    def chat(history, question):
        msgs = [{"role": m["role"], "content": m["content"]} for m in history]
        msgs = msgs[-HISTORY_TURNS:]
        msgs.append({"role": "user", "content": question})
        return client.chat.completions.create(model="m", messages=[SYSTEM, *msgs])
    """
    assert codes(body) == [(5, "PC507")]


def test_a_list_type_left_without_a_size_is_quiet() -> None:
    # The same type, made without its size, defaults to -1: `len(self) == -1` is never true,
    # so the list keeps every turn (the real shape: an agent's other patterns use it so).
    source = BOUNDED.replace(
        "def __init__(self, turns, size):", "def __init__(self, turns, size=-1):"
    )
    assert codes(source.replace("POP", "0").replace(", size=6)", ")")) == []


def test_a_list_type_given_its_size_by_position_is_a_window() -> None:
    source = BOUNDED.replace("POP", "0").replace(", size=6)", ", 6)")
    assert codes(source) == [(11, "PC507")]


def test_the_tail_of_a_text_named_msg_is_no_history_window() -> None:
    # `log_msg[-2000:]` keeps the end of one text: whatever it is, it is no window of turns.
    body = """
    def fix(history, log_msg):
        system = SYSTEM["content"] + "Last lines of the log: " + log_msg[-2000:]
        return client.chat.completions.create(
            model="m", messages=[{"role": "system", "content": system}, *history])
    """
    assert "PC507" not in [code for _, code in codes(body)]
