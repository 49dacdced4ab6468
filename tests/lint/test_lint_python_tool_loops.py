"""
A system message appended to a list the function makes and sends (issue 21, stop 34), in cases
of our own: `messages.append(SystemMessage(content=retrieved))`, then the user's turn, then the
request (and a tool loop that appends only the model's answers and the tools' results before it
sends the list again). A system message appended was judged where it was made, as if the whole
conversation followed it; the function shows what follows it, so it is judged where the list is
sent: the retrieved text followed only by the user's turn (and the request's own tool turns,
whose sends repeat the prefix the send before them made) costs nothing. A loop that appends
the user's turns grows a conversation and is still reported, and so are retrieved text with long
static rules after it and a stored history replayed into the list after it.
"""

from __future__ import annotations

from promptcache.lint.python import lint_python_source

APPENDED = """
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI

model = ChatOpenAI(model="gpt-4o-mini")
SYSTEM_PROMPT = "You answer questions about the shop's orders. " * 40


def reply(question: str, documents: list[str]):
    messages = [SystemMessage(content=SYSTEM_PROMPT)]
    messages.append(SystemMessage(content="Notes found:\\n" + "\\n".join(documents)))
    messages.append(HumanMessage(content=question))
    return model.invoke(messages)
"""

TOOL_LOOP = """
from openai import OpenAI

client = OpenAI()
SYSTEM_PROMPT = "You answer questions about the shop's orders. " * 40


def reply(question: str, documents: list[str], tools: list[dict]) -> str:
    messages = [{"role": "system", "content": SYSTEM_PROMPT}]
    messages.append({"role": "system", "content": "Notes found:\\n" + "\\n".join(documents)})
    messages.append({"role": "user", "content": question})
    while True:
        result = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
        answer = result.choices[0].message
        if not answer.tool_calls:
            return answer.content
        messages.append(answer)
        for call in answer.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": run(call)})
"""

# Each question is a new user turn appended in the loop: a conversation grows after the notes.
CHAT_LOOP = """
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI

model = ChatOpenAI(model="gpt-4o-mini")
SYSTEM_PROMPT = "You answer questions about the shop's orders. " * 40


def chat(questions: list[str], documents: list[str]):
    messages = [SystemMessage(content=SYSTEM_PROMPT)]
    messages.append(SystemMessage(content="Notes found:\\n" + "\\n".join(documents)))
    for question in questions:
        messages.append(HumanMessage(content=question))
        messages.append(model.invoke(messages))
"""

# Long static rules appended after the notes: the notes keep them out of the cache.
RULES_AFTER = APPENDED.replace(
    "    messages.append(HumanMessage(",
    '    messages.append(SystemMessage(content="Cite the note you used for each claim. " * 30))\n'
    "    messages.append(HumanMessage(",
)


# The stored conversation replayed into the list after the notes: history follows them.
REPLAYED = APPENDED.replace(
    "documents: list[str])", "documents: list[str], history: list)"
).replace(
    "    messages.append(HumanMessage(",
    "    for turn in history:\n"
    '        messages.append(HumanMessage(content=turn["text"]))\n'
    "    messages.append(HumanMessage(",
)


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_python_source(source, path="orders.py")]


def test_retrieved_text_appended_before_the_user_turn_is_quiet() -> None:
    assert _codes(APPENDED) == []


def test_a_tool_loop_after_the_user_turn_is_the_request_s_own() -> None:
    assert _codes(TOOL_LOOP) == []


def test_a_loop_that_appends_user_turns_grows_a_conversation() -> None:
    assert (11, "PC502") in _codes(CHAT_LOOP)


def test_retrieved_text_above_long_static_rules_is_reported() -> None:
    assert (11, "PC502") in _codes(RULES_AFTER)


def test_a_history_replayed_after_the_appended_notes_is_reported() -> None:
    assert (11, "PC502") in _codes(REPLAYED)
