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
