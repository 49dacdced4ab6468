"""
A message list a branch grows, or that branches build apart (issue 21, stop 34: no silent
answer at the send). `if notes: messages.append(...)` left the list with one turn more in one
branch; the merge kept no turn, so a system message judged where the list is sent lost its
per-request data with no finding and no note. The merge now keeps the turns both branches have
and those one branch appends, and the system message is judged by the turns after it. Where the
branches build different lists, where the data lands is unknown: a not-followed note (PC506),
never a silent pass. A system message whose content varies is the request's own instructions,
not the conversation's history, so retrieved notes before the user's turn stay quiet. The quiet
twins hold the per-request data only in the tail.
"""

from __future__ import annotations

from promptcache.lint.python import lint_python_source

HEAD = """
from openai import OpenAI

client = OpenAI()
RULES = "Answer only from the shop's order records and name the record you used. " * 30
"""

# The customer's name opens the system prompt, then the long rules; notes are optional.
GROWN = (
    HEAD
    + """

def reply(question: str, customer: str, notes: str | None):
    messages = [{"role": "system", "content": f"You are talking to {customer}.\\n" + RULES}]
    if notes:
        messages.append({"role": "system", "content": notes})
    messages.append({"role": "user", "content": question})
    return client.chat.completions.create(model="gpt-4o-mini", messages=messages)
"""
)

# The same branch, with the customer's name in the optional message after the rules.
GROWN_TAIL = (
    HEAD
    + """

def reply(question: str, customer: str, notes: str | None):
    messages = [{"role": "system", "content": RULES}]
    if notes:
        messages.append({"role": "system", "content": f"Notes for {customer}: {notes}"})
    messages.append({"role": "user", "content": question})
    return client.chat.completions.create(model="gpt-4o-mini", messages=messages)
"""
)

# Two branches build lists of different turns: which one is sent is not known here.
APART = (
    HEAD
    + """

def reply(question: str, customer: str, brief: bool):
    if brief:
        messages = [{"role": "system", "content": f"You are talking to {customer}.\\n" + RULES}]
    else:
        messages = [{"role": "system", "content": RULES}, {"role": "system", "content": "Be thorough."}]
    messages.append({"role": "user", "content": question})
    return client.chat.completions.create(model="gpt-4o-mini", messages=messages)
"""
)

APART_TAIL = APART.replace('f"You are talking to {customer}.\\n" + RULES', "RULES")

# Notes retrieved for this request and the tools this user may call, each a system message,
# before the question: nothing static follows the notes, and no conversation does.
NOTES = (
    HEAD
    + """

def reply(question: str, documents: list[str], toolkits: list[str]):
    messages = [{"role": "system", "content": RULES}]
    messages.append({"role": "system", "content": "Notes:\\n" + "\\n".join(documents)})
    messages.append({"role": "system", "content": "Tools: " + ", ".join(toolkits)})
    messages.append({"role": "user", "content": question})
    return client.chat.completions.create(model="gpt-4o-mini", messages=messages)
"""
)

# The same notes with the long rules after them: the rules are lost from the cache.
NOTES_THEN_RULES = NOTES.replace(
    '"Tools: " + ", ".join(toolkits)', '"Tools: " + ", ".join(toolkits) + RULES'
)


def _found(source: str) -> list[tuple[int, str, str]]:
    return [(f.line, f.code, f.severity) for f in lint_python_source(source, path="shop.py")]


def test_a_system_message_before_a_turn_a_branch_appends_is_judged() -> None:
    assert (9, "PC502", "warning") in _found(GROWN)


def test_per_request_data_in_the_turn_a_branch_appends_is_quiet() -> None:
    assert _found(GROWN_TAIL) == []


def test_branches_that_build_different_lists_are_noted_not_passed() -> None:
    assert _found(APART) == [(10, "PC506", "info")]


def test_branches_that_build_different_static_lists_are_quiet() -> None:
    assert _found(APART_TAIL) == []


def test_varying_system_messages_before_the_question_are_not_history() -> None:
    assert _found(NOTES) == []


def test_notes_before_long_static_rules_are_reported() -> None:
    assert (10, "PC502", "warning") in _found(NOTES_THEN_RULES)


# A `completion(...)` of a provider the analysis cannot read, handed lists two branches build
# apart: a call named as a send is judged by the turns it is handed, and where those turns no
# longer say where a system message's data lands, that data is a note, not passed in silence.
OTHER_SEND = """
from shoplib.llm import completion

RULES = "Answer only from the shop's order records and name the record you used. " * 30


def reply(question: str, customer: str, brief: bool):
    if brief:
        messages = [{"role": "system", "content": f"You are talking to {customer}.\\n" + RULES}]
    else:
        messages = [{"role": "system", "content": RULES}, {"role": "system", "content": "Be brief."}]
    return completion(model="gpt-4o-mini", messages=messages)
"""

OTHER_SEND_TAIL = OTHER_SEND.replace('f"You are talking to {customer}.\\n" + RULES', "RULES")

# Branches build different lists that a wrapper sends after a splice of them: the system
# message is judged where it is made (the list is passed on), and not also noted at the splice.
PASSED_ON = (
    HEAD
    + """

def send(history: list, question: str):
    return client.chat.completions.create(
        model="gpt-4o-mini", messages=[*history, {"role": "user", "content": question}]
    )


def reply(question: str, customer: str, brief: bool):
    if brief:
        messages = [{"role": "system", "content": f"You are talking to {customer}.\\n" + RULES}]
    else:
        messages = [{"role": "system", "content": RULES}, {"role": "system", "content": "Be thorough."}]
    return send(messages, question)
"""
)


def test_another_module_s_send_of_branch_built_lists_is_noted() -> None:
    assert _found(OTHER_SEND) == [(9, "PC506", "info")]


def test_another_module_s_send_of_branch_built_static_lists_is_quiet() -> None:
    assert _found(OTHER_SEND_TAIL) == []


def test_a_system_message_reported_where_made_is_not_also_noted_at_the_splice() -> None:
    assert _found(PASSED_ON) == [(16, "PC502", "warning")]


# A chat model run on a list two branches build apart: a clock in one branch's system message
# breaks all that follows it, wherever the list is sent; in a user's turn, it is the newest one.
CLOCK_APART = """
from datetime import datetime

from langchain_openai import ChatOpenAI

model = ChatOpenAI(model="gpt-4o-mini")
RULES = "Answer only from the shop's order records and name the record you used. " * 30


def reply(question: str, brief: bool):
    if brief:
        messages = [{"role": "system", "content": f"Today is {datetime.now()}.\\n" + RULES}]
    else:
        messages = [{"role": "system", "content": RULES}, {"role": "system", "content": "Be brief."}]
    return model.invoke(messages)
"""

CLOCK_IN_THE_QUESTION = CLOCK_APART.replace(
    '[{"role": "system", "content": f"Today is {datetime.now()}.\\n" + RULES}]',
    '[{"role": "system", "content": RULES}, '
    '{"role": "user", "content": f"Today is {datetime.now()}. {question}"}]',
)


def test_a_clock_in_a_system_message_of_branch_built_lists_is_reported() -> None:
    assert (12, "PC501", "warning") in _found(CLOCK_APART)


def test_a_clock_in_the_user_turn_of_branch_built_lists_is_quiet() -> None:
    assert _found(CLOCK_IN_THE_QUESTION) == []
