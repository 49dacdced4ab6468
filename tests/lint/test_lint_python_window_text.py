"""PC507, windows in the shapes real services write them: the newest turns written out as text
at the start of the newest turn (a "recent conversation" block before the question: the text
grows by one exchange a request until the window is full, then its oldest lines drop), a
window posted with `httpx`'s `stream("POST", ...)` from a client entered with `async with`,
and the line of a SQL read's `LIMIT` in a query written over several lines."""

from __future__ import annotations

import textwrap
from pathlib import Path

from promptcache.lint.python import lint_python_source

from ._helpers import project_findings

HEAD = """
from openai import OpenAI
client = OpenAI()
RULES = "You answer questions about the city's bus timetables and fares. " * 30
"""


def codes(body: str, head: str = HEAD) -> list[tuple[int, str]]:
    source = head + textwrap.dedent(body)
    offset = head.count("\n")
    return [(f.line - offset, f.code) for f in lint_python_source(source)]


RECAP = """
def answer(history, question):
    recent = history[-8:]
    lines = "\\n".join(f"{m['role']}: {m['content']}" for m in recent)
    text = "Earlier in this chat:\\n" + lines + "\\n\\nNew question: " + question
    return client.chat.completions.create(
        model="m",
        messages=[{"role": "system", "content": RULES}, {"role": "user", "content": text}],
    )
"""


def test_a_window_written_out_before_the_question_is_reported() -> None:
    assert codes(RECAP) == [(3, "PC507")]


def test_the_same_window_after_the_question_is_quiet() -> None:
    # The question opens the turn: nothing of the window's text was ever a reusable prefix.
    after = RECAP.replace(
        '"Earlier in this chat:\\n" + lines + "\\n\\nNew question: " + question',
        '"New question: " + question + "\\n\\nEarlier in this chat:\\n" + lines',
    )
    assert codes(after) == []


def test_what_a_search_made_of_the_window_is_no_history_written_out() -> None:
    # The recent lines are only the query of a search the analysis cannot see into: what it
    # finds is not the window's text.
    searched = RECAP.replace(
        '"Earlier in this chat:\\n" + lines',
        '"Related chats:\\n" + archive.similar_chats(lines)',
    ).replace("def answer(", "import archive\n\n\ndef answer(")
    assert "similar_chats" in searched
    assert codes(searched) == []


def test_the_whole_history_written_out_is_quiet() -> None:
    assert codes(RECAP.replace("history[-8:]", "history")) == []


def test_one_turn_indexed_out_of_a_window_is_no_history_written_out() -> None:
    assert codes(RECAP.replace("for m in recent", "for m in [recent[0]]")) == []


HTTP = """
import httpx

SYSTEM_PROMPT = "You are the museum's guide; answer about its rooms and opening hours. " * 30


class Guide:
    async def reply(self, text, history=None):
        messages = [{"role": "system", "content": SYSTEM_PROMPT}]
        if history:
            messages.extend(history[-10:])
        messages.append({"role": "user", "content": text})
        body = {"model": "m", "messages": messages, "stream": True}
        async with httpx.AsyncClient(timeout=60) as client:
            async with client.stream("POST", "https://llm.local/v1/chat", json=body) as reply:
                async for line in reply.aiter_lines():
                    yield line
"""


def test_a_window_streamed_with_httpx_from_an_entered_client_is_reported() -> None:
    assert codes(HTTP, head="") == [(11, "PC507")]


def test_the_whole_history_streamed_with_httpx_is_quiet() -> None:
    assert codes(HTTP.replace("history[-10:]", "history"), head="") == []


def test_requests_request_posting_a_window_is_reported() -> None:
    source = HTTP.replace("import httpx", "import requests").replace(
        """        async with httpx.AsyncClient(timeout=60) as client:
            async with client.stream("POST", "https://llm.local/v1/chat", json=body) as reply:
                async for line in reply.aiter_lines():
                    yield line""",
        """        yield requests.request("POST", "https://llm.local/v1/chat", json=body).text""",
    )
    assert codes(source, head="") == [(11, "PC507")]


SQL = """
from sqlalchemy import text as sql_text

def recent_turns(db, conversation_id):
    rows = db.execute(
        sql_text(
            '''
            SELECT role, content
            FROM messages
            WHERE conversation_id = :cid
            ORDER BY created_at DESC
            LIMIT 12
            '''
        ),
        {"cid": conversation_id},
    ).fetchall()
    return [{"role": r, "content": c} for r, c in reversed(rows)]

def answer(db, conversation_id, question):
    turns = recent_turns(db, conversation_id)
    return client.chat.completions.create(
        model="m",
        messages=[{"role": "system", "content": RULES}, *turns,
                  {"role": "user", "content": question}],
    )
"""


def test_a_sql_read_of_the_newest_rows_is_reported_at_its_limit() -> None:
    assert codes(SQL) == [(12, "PC507")]


def test_a_sql_read_of_the_oldest_rows_is_quiet() -> None:
    assert codes(SQL.replace("created_at DESC", "created_at ASC")) == []


KEPT_ANSWER = """
from app.llm import get_provider

_provider = get_provider()
_chats: dict[int, list[dict]] = {}
KEEP = 20
GREETING = {"role": "system", "content": "You take orders for the bakery on Elm Street. " * 30}


def reply(user_id: int, text: str) -> str:
    if user_id not in _chats:
        _chats[user_id] = [GREETING]
    _chats[user_id].append({"role": "user", "content": text})
    if len(_chats[user_id]) > KEEP + 1:
        _chats[user_id] = (
            [_chats[user_id][0]] + _chats[user_id][-KEEP:]
        )
    answer = _provider.chat(_chats[user_id])
    _chats[user_id].append({"role": "assistant", "content": answer})
    return answer
"""


def _warnings(source: str) -> list[tuple[int, str]]:
    source = textwrap.dedent(source)
    return [(f.line, f.code) for f in lint_python_source(source) if f.severity == "warning"]


def test_a_window_handed_to_a_call_whose_answer_is_kept_as_the_assistant_turn_is_sent() -> None:
    # The provider comes from a module the analysis cannot read; what the function does with
    # its result shows it is the model's answer to the list it was handed. Reported where the
    # trim written over three lines cuts.
    assert _warnings(KEPT_ANSWER) == [(16, "PC507")]


def test_a_call_whose_result_is_not_kept_as_the_assistant_turn_is_not_taken_as_sending() -> None:
    logged = KEPT_ANSWER.replace(
        '_chats[user_id].append({"role": "assistant", "content": answer})', "print(answer)"
    )
    assert _warnings(logged) == []


LINE_BOT = """
import google.generativeai as genai

model = genai.GenerativeModel(model_name="gemini-1.5-flash")
notes = {}
OPENING = [{"role": "user", "parts": ["You are the ferry company's help desk bot. " * 30]}]


def on_text(user_id, text):
    add_to_message_history(user_id, text)
    reply = model.start_chat(history=OPENING).send_message(chat_log_text(user_id))
    add_to_message_history(user_id, reply.text)
    return reply.text


def add_to_message_history(user_id, text):
    if user_id in notes:
        notes[user_id].append(text)
        if len(notes[user_id]) > 30:
            notes[user_id].pop(0)
    else:
        notes[user_id] = [text]


def chat_log_text(user_id):
    return "\\n\\n".join(notes.get(user_id, []))
"""


def test_a_per_user_log_trimmed_by_a_history_function_and_sent_as_a_gemini_chat_turn() -> None:
    # The log's name says nothing, the function that grows and trims it does; the whole log,
    # joined, is the message a Gemini chat sends: the turn's text is the window written out.
    assert _warnings(LINE_BOT) == [(20, "PC507")]


def test_the_same_log_after_the_users_text_is_quiet() -> None:
    source = LINE_BOT.replace(
        ".send_message(chat_log_text(user_id))", ".send_message(text + chat_log_text(user_id))"
    )
    assert _warnings(source) == []


def test_a_log_trimmed_by_a_function_not_named_as_a_history_is_not_taken_as_one() -> None:
    assert _warnings(LINE_BOT.replace("add_to_message_history", "remember")) == []


def test_the_log_bot_with_no_role_written_anywhere_is_read_the_same() -> None:
    # No `"role"` in the module: the trim's line names no history, its function does.
    lines = ["OPENING = []" if n.startswith("OPENING") else n for n in LINE_BOT.split("\n")]
    source = "\n".join(lines)
    assert "role" not in source
    assert _warnings(source) == [(20, "PC507")]


RECAP_HELPER = """
KEEP = 10


def recap(conversation) -> str:
    text = ""
    for interaction in conversation.interactions[-KEEP:]:
        text += f"{interaction.speaker}: {interaction.text}\\n"
    return text
"""

PANEL_PROMPT = """
from app.recaps import recap

RULES = "Keep the panel on topic and answer politely in two sentences at most. " * 10


def panel_prompt(conversation):
    return f\"\"\"
You are joining a panel discussion.
The latest interactions:
{recap(conversation)}
{RULES}
\"\"\"
"""


def test_a_window_from_another_module_before_static_text_is_reported_where_it_enters(
    tmp_path: Path,
) -> None:
    # A list a conversation object keeps (`conversation.interactions`) cut to its newest
    # items in a helper module, written into a prompt with the static rules after it.
    found = project_findings(
        tmp_path, {"app/recaps.py": RECAP_HELPER, "app/prompts.py": PANEL_PROMPT}, "PC507"
    )
    assert found == [("prompts.py", 11, "PC507")]


def test_the_whole_list_from_another_module_is_quiet(tmp_path: Path) -> None:
    whole = RECAP_HELPER.replace("[-KEEP:]", "")
    found = project_findings(tmp_path, {"app/recaps.py": whole, "app/prompts.py": PANEL_PROMPT})
    assert [f for f in found if f[2] == "PC507"] == []


def test_the_newest_items_of_a_list_an_object_not_named_as_a_conversation_keeps_are_quiet(
    tmp_path: Path,
) -> None:
    report = RECAP_HELPER.replace("conversation", "report")
    found = project_findings(
        tmp_path,
        {"app/recaps.py": report, "app/prompts.py": PANEL_PROMPT.replace("conversation", "report")},
    )
    assert [f for f in found if f[2] == "PC507"] == []


SENDER = """
import httpx


class Completions:
    async def generate(self, system_prompt: str, messages: list[dict]) -> str:
        body = {"model": "m", "messages": [{"role": "system", "content": system_prompt}] + messages}
        async with httpx.AsyncClient() as client:
            reply = await client.post("https://llm.local/v1/chat/completions", json=body)
            return reply.json()["choices"][0]["message"]["content"]
"""

ANSWERER = """
from app.sender import Completions

RULES = "Answer from the manuals only, and say so when they do not hold the answer. " * 10


class Answerer:
    def __init__(self, completions: Completions):
        self.completions = completions

    async def answer(self, question: str, chat_history: list[dict]) -> str:
        messages = list(chat_history)
        messages.append({"role": "user", "content": question})
        return await self.completions.generate(system_prompt=RULES, messages=messages)
"""

CALLER = """
from app.answerer import Answerer


class Desk:
    def __init__(self, answerer: Answerer):
        self.answerer = answerer

    async def ask(self, request):
        recent = request.turns[-6:]
        return await self.answerer.answer(question=request.text, chat_history=recent)
"""


def test_a_window_handed_through_two_wrappers_as_the_earlier_turns_is_reported(
    tmp_path: Path,
) -> None:
    files = {"app/sender.py": SENDER, "app/answerer.py": ANSWERER, "app/desk.py": CALLER}
    assert project_findings(tmp_path, files, "PC507") == [("desk.py", 10, "PC507")]


def test_the_whole_history_handed_through_two_wrappers_is_quiet(tmp_path: Path) -> None:
    whole = CALLER.replace("request.turns[-6:]", "request.turns")
    files = {"app/sender.py": SENDER, "app/answerer.py": ANSWERER, "app/desk.py": whole}
    assert project_findings(tmp_path, files, "PC507") == []


BUILDER = """
TUTOR = "You are the tutor; ask one question at a time and never give the answer away. " * 10


def build_payload(history, new_user_text):
    earlier = []
    for h in history[-12:]:
        if h.role in ("user", "assistant"):
            earlier.append({"role": h.role, "content": h.content})
    messages = earlier + [{"role": "user", "content": new_user_text}]
    return TUTOR, messages
"""


def test_a_builder_returning_a_window_before_the_users_turn_is_reported() -> None:
    # Nothing in the module sends the list: its shape (earlier turns, then the user's) says
    # it is a request's messages, whoever sends it.
    assert codes(BUILDER, head="") == [(7, "PC507")]


def test_a_builder_returning_the_whole_history_is_quiet() -> None:
    assert codes(BUILDER.replace("history[-12:]", "history"), head="") == []


def test_a_builder_returning_turns_that_do_not_end_with_the_users_is_quiet() -> None:
    # A list of past turns for display (no new user turn at its end) is no request.
    listing = BUILDER.replace(' + [{"role": "user", "content": new_user_text}]', "")
    assert codes(listing, head="") == []


HISTORY_CLASS = """
KEEP = 6


class ShortHistory:
    def __init__(self):
        self.messages = []

    def _trim(self):
        if len(self.messages) > KEEP:
            self.messages = self.messages[-KEEP:]

    def add(self, message):
        self.messages.append(message)
        self._trim()

    def get_messages(self):
        return self.messages


def history_to_text(history: ShortHistory) -> str:
    return "\\n".join(f"{m.type}: {m.content}" for m in history.get_messages())
"""

TEMPLATE_USER = """
from app.history import ShortHistory, history_to_text

RAG_PROMPT = \"\"\"Answer in the format below, politely, and only about the notices.
\"\"\" + "Follow the house style for every answer you write. " * 20 + \"\"\"
[History]:
{history}

[Context]:
{context}

[Question]:
{question}
\"\"\"


def build(history: ShortHistory, context, question):
    history_str = history_to_text(history)
    prompt = RAG_PROMPT.format(history=history_str, context=context, question=question)
    return prompt
"""


def test_a_class_kept_history_flattened_into_a_template_before_the_question(
    tmp_path: Path,
) -> None:
    # The history object trims itself to its newest six messages under a size test; another
    # module writes it out into a `{history}` slot that only static text precedes.
    found = project_findings(
        tmp_path, {"app/history.py": HISTORY_CLASS, "app/chat.py": TEMPLATE_USER}, "PC507"
    )
    assert found == [("chat.py", 18, "PC507")]


def test_the_same_history_after_the_question_in_the_template_is_quiet(tmp_path: Path) -> None:
    moved = TEMPLATE_USER.replace(
        "[History]:\n{history}\n\n[Context]:\n{context}\n\n[Question]:\n{question}",
        "[Question]:\n{question}\n\n[History]:\n{history}\n\n[Context]:\n{context}",
    )
    assert moved != TEMPLATE_USER
    found = project_findings(
        tmp_path, {"app/history.py": HISTORY_CLASS, "app/chat.py": moved}, "PC507"
    )
    assert found == []


AGENT_RUNNER = """
from typing import Any


async def run_agent(agent: Any, prompt: str, history: list) -> str:
    result = await agent.run(prompt, message_history=history)
    return result.output
"""

ROOM = """
from app.runner import run_agent
from app.agents import guide


class Rooms:
    def __init__(self, store):
        self.store = store

    def recent_history(self, room_id: int, limit: int):
        return self.store.load_history(room_id)[-limit:]

    async def reply(self, room_id: int, prompt: str) -> str:
        history = self.recent_history(room_id, limit=10)
        return await run_agent(guide, prompt, history)
"""


def test_a_window_given_as_a_pydantic_ai_runs_message_history_is_reported(
    tmp_path: Path,
) -> None:
    # The agent reaches the run as a parameter typed `Any`: `message_history=` says what the
    # list is, the earlier turns after the agent's system prompt.
    found = project_findings(
        tmp_path, {"app/runner.py": AGENT_RUNNER, "app/rooms.py": ROOM}, "PC507"
    )
    assert found == [("rooms.py", 11, "PC507")]


def test_the_whole_history_given_as_message_history_is_quiet(tmp_path: Path) -> None:
    whole = ROOM.replace("[-limit:]", "")
    found = project_findings(tmp_path, {"app/runner.py": AGENT_RUNNER, "app/rooms.py": whole})
    assert [f for f in found if f[2] == "PC507"] == []


SESSION_GETTER = """
import functools

from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables.history import RunnableWithMessageHistory
from langchain_openai import ChatOpenAI

chat = ChatOpenAI(model="gpt-4o-mini")
sessions = {}
kept_msgs = {}


def refill(history, all_msgs, limit):
    for m in history.messages:
        if m not in all_msgs:
            all_msgs.append(m)
    history.clear()
    for m in all_msgs[-limit:]:
        history.add_message(m)
    return history


class Shop:
    @staticmethod
    def session_history(session_id: str, settings):
        history = sessions.setdefault(session_id, InMemoryChatMessageHistory())
        return refill(history, kept_msgs.setdefault(session_id, []), settings["limit"])

    @staticmethod
    async def reply(text: str, session_id: str, settings):
        getter = functools.partial(Shop.session_history, settings=settings)
        runnable = RunnableWithMessageHistory(chat, getter)
        system = SystemMessage(content="You are the hardware shop's assistant. " * 30)
        config = {"configurable": {"session_id": session_id}}
        return await runnable.ainvoke([system, HumanMessage(content=text)], config=config)
"""


def test_a_session_history_refilled_with_its_newest_messages_is_a_window() -> None:
    # LangChain's `RunnableWithMessageHistory` puts what the getter (a static method handed
    # on through `functools.partial`) returns before every request's new messages.
    assert _warnings(SESSION_GETTER) == [(19, "PC507")]


def test_a_session_history_refilled_with_every_message_is_quiet() -> None:
    assert _warnings(SESSION_GETTER.replace("all_msgs[-limit:]", "all_msgs")) == []
