"""PC507, windows of a history kept in a module's shared storage: a bot's module global or
session attribute that one function appends each turn to and another trims (`pop(0)` once too
long, `h[uid] = h[uid][-n:]`, `del h[0]`, `popleft()`, `defaultdict(lambda: deque(maxlen=n))`),
read back by a getter, often from another module, and sent. The window belongs to the storage:
every read of it reads a window that slides. Also: a wrapper whose parameter is sent as
Gemini's `contents` (text or a list of turns), given a window by its caller. The twins that keep
every turn, trim a list that holds no turns, or pass one text stay quiet."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig, lint_paths
from promptcache.lint.python import lint_python_source

from ._helpers import project_findings


def _project(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    # PC507's findings: what these files hold beyond the window is other rules' to judge.
    return project_findings(tmp_path, files, code="PC507")


# A voice assistant's memory module: a global list, trimmed from the front once too long.
MEMORY = """
conversation_history = []
MAX_HISTORY = 50
def add_message(role, content):
    conversation_history.append({"role": role, "content": content})
    if len(conversation_history) > MAX_HISTORY:
        conversation_history.pop(0)
def get_history():
    return conversation_history
"""

ASSISTANT = """
from openai import OpenAI
from memory import add_message, get_history
client = OpenAI()
RULES = "You are a warm voice assistant; answer briefly, in plain speech, no markdown. " * 30
def answer(text):
    add_message("user", text)
    history = get_history()
    reply = client.chat.completions.create(
        model="m", messages=[{"role": "system", "content": RULES}, *history])
    add_message("assistant", reply.choices[0].message.content)
    return reply
"""


def test_a_global_history_trimmed_by_one_function_and_read_by_a_getter(tmp_path: Path) -> None:
    found = _project(tmp_path, {"memory.py": MEMORY, "assistant.py": ASSISTANT})
    assert found == [("assistant.py", 8, "PC507")]


def test_a_global_history_only_appended_to_is_quiet(tmp_path: Path) -> None:
    kept = MEMORY.replace("        conversation_history.pop(0)\n", "        pass\n")
    assert _project(tmp_path, {"memory.py": kept, "assistant.py": ASSISTANT}) == []


TRIMS = [
    ("pop-front", "        conversation_history.pop(0)"),
    ("pop-after-system", "        conversation_history.pop(1)"),
    ("del-front", "        del conversation_history[0]"),
    ("slice-assign", "        conversation_history[:] = conversation_history[-MAX_HISTORY:]"),
]


@pytest.mark.parametrize("trim", [t[1] for t in TRIMS], ids=[t[0] for t in TRIMS])
def test_each_way_a_shared_history_loses_its_oldest_turns(tmp_path: Path, trim: str) -> None:
    memory = MEMORY.replace("        conversation_history.pop(0)", trim)
    found = _project(tmp_path, {"memory.py": memory, "assistant.py": ASSISTANT})
    assert found == [("assistant.py", 8, "PC507")]


def test_a_global_name_that_holds_no_turns_is_not_a_history(tmp_path: Path) -> None:
    # `recent_errors.pop(0)`: a bounded log the request never carries as turns.
    memory = MEMORY + textwrap.dedent("""
    recent_errors = []
    def note_error(text):
        recent_errors.append(text)
        if len(recent_errors) > 5:
            recent_errors.pop(0)
    """)
    kept = memory.replace("        conversation_history.pop(0)\n", "        pass\n")
    assert _project(tmp_path, {"memory.py": kept, "assistant.py": ASSISTANT}) == []


# A streamlit chatbot: the turns live in session state under a name that says nothing.
CONTEXT = """
import streamlit as st
max_context_length = 12
def add(role, message):
    st.session_state.list_context.append({"role": role, "content": message})
    if len(st.session_state.list_context) > max_context_length:
        st.session_state.list_context.pop(0)
def get():
    return st.session_state.list_context
"""

PAGE = """
import openai
import context
def chatgpt(prompt):
    context.add("user", prompt)
    response = openai.ChatCompletion.create(model="gpt-3.5-turbo", messages=context.get())
    context.add("assistant", response["choices"][0]["message"]["content"])
    return response
"""


def test_a_session_attribute_appended_turns_and_trimmed_is_a_window(tmp_path: Path) -> None:
    found = _project(tmp_path, {"context.py": CONTEXT, "main.py": PAGE})
    assert found == [("main.py", 6, "PC507")]


def test_a_session_attribute_kept_whole_is_quiet(tmp_path: Path) -> None:
    kept = CONTEXT.replace("        st.session_state.list_context.pop(0)\n", "        pass\n")
    assert _project(tmp_path, {"context.py": kept, "main.py": PAGE}) == []


# A Telegram bot: a dict of histories per user, each cut to its newest turns.
CHAT_CONTEXT = """
MAX_HISTORY_LENGTH = 20
user_histories = {}
def context_for_ai(user_id, user_message):
    if user_id not in user_histories:
        user_histories[user_id] = [{"text": "You are a helpful bot."}, "OK"]
    user_histories[user_id].append(user_message)
    if len(user_histories[user_id]) > MAX_HISTORY_LENGTH:
        user_histories[user_id] = user_histories[user_id][-MAX_HISTORY_LENGTH:]
    return user_histories[user_id]
"""

GEMINI = """
from google import genai
client = genai.Client()
def request_ai(user_id, message):
    response = client.models.generate_content(model="gemini-2.5-flash", contents=message)
    return response.text
"""

HANDLER = """
import gemini
from chat_context import context_for_ai
def echo_all(message):
    history_context = context_for_ai(message.from_user.id, [{"text": message.text}])
    return gemini.request_ai(message.from_user.id, history_context)
"""


def test_a_dict_of_histories_cut_per_user_sent_through_a_wrapper(tmp_path: Path) -> None:
    files = {"chat_context.py": CHAT_CONTEXT, "gemini.py": GEMINI, "handler.py": HANDLER}
    assert _project(tmp_path, files) == [("handler.py", 5, "PC507")]


def test_a_wrapper_given_one_text_as_contents_is_quiet(tmp_path: Path) -> None:
    # The same wrapper, given the user's text alone: the newest turn, nothing after it.
    handler = """
    import gemini
    def echo_all(message):
        return gemini.request_ai(message.from_user.id, "Question: " + message.text)
    """
    assert _project(tmp_path, {"gemini.py": GEMINI, "handler.py": handler}) == []


def test_a_wrapper_given_a_window_of_a_parameter_as_contents(tmp_path: Path) -> None:
    handler = """
    import gemini
    def echo_all(message, history):
        return gemini.request_ai(message.from_user.id, history[-10:])
    """
    assert _project(tmp_path, {"gemini.py": GEMINI, "handler.py": handler}) == [
        ("handler.py", 4, "PC507")
    ]


def test_a_defaultdict_of_bounded_deques_is_a_window(tmp_path: Path) -> None:
    store = """
    from collections import defaultdict, deque
    message_history = defaultdict(lambda: deque(maxlen=50))
    def add_to_history(chat_id, role, content):
        message_history[chat_id].append({"role": role, "content": content})
    def get_history(chat_id):
        return list(message_history[chat_id])
    """
    bot = """
    from openai import OpenAI
    from store import get_history
    client = OpenAI()
    RULES = "You are a witty member of a group chat; speak for yourself only. " * 30
    def reply(chat_id):
        turns = [{"role": "system", "content": RULES}, *get_history(chat_id)]
        return client.chat.completions.create(model="m", messages=turns)
    """
    found = _project(tmp_path, {"store.py": store, "bot.py": bot})
    assert found == [("bot.py", 7, "PC507")]
    unbounded = store.replace("deque(maxlen=50)", "list")
    assert _project(tmp_path, {"store.py": unbounded, "bot.py": bot}) == []


def test_a_global_history_trimmed_in_a_method_that_declares_it_global(tmp_path: Path) -> None:
    bot = """
    import openai
    conv_his = []
    MAX_LEN = 8
    SYSTEM = "You are a short-spoken hacker bot; answer from your recall memory. " * 30
    def chat(history):
        with_system = [{"role": "system", "content": SYSTEM}]
        for turn in history:
            with_system.append(turn)
        return openai.ChatCompletion.create(model="gpt-4", messages=with_system)
    class Bot:
        def add(self, text):
            global conv_his
            conv_his.append({"role": "user", "content": text})
            if len(conv_his) > MAX_LEN:
                conv_his.pop(0)
        def on_message(self, text):
            self.add(text)
            return chat(conv_his)
    """
    assert _project(tmp_path, {"bot.py": bot}) == [("bot.py", 16, "PC507")]


# A history class in one module, its instance's turns handed to a sender the analysis cannot
# read (a package outside the project): the window is not proved to reach a request.
HISTORY_CLASS = """
class ConversationHistory:
    def __init__(self, max_turns=10):
        self.history = []
        self.max_turns = max_turns
    def add_user(self, content):
        self.history.append({"role": "user", "content": content})
        self._trim()
    def get_messages(self):
        return self.history
    def _trim(self):
        if len(self.history) > self.max_turns * 2:
            self.history = self.history[-(self.max_turns * 2):]
"""


def _all(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str, str]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    found = lint_paths([tmp_path], config=LintConfig(root=tmp_path))
    return sorted(
        (Path(f.path).name, f.line, f.code, f.severity)
        for f in found
        if f.code in ("PC506", "PC507")
    )


def test_a_history_trim_not_followed_to_a_request_is_said(tmp_path: Path) -> None:
    app = """
    from llmkit import stream_chat
    from history import ConversationHistory
    chat_history = ConversationHistory(max_turns=5)
    def turn(text):
        chat_history.add_user(text)
        return stream_chat(chat_history.get_messages())
    """
    found = _all(tmp_path, {"history.py": HISTORY_CLASS, "app.py": app})
    assert found == [("history.py", 13, "PC506", "info")]


def test_a_history_trim_followed_to_a_request_is_not_said_again(tmp_path: Path) -> None:
    app = """
    from openai import OpenAI
    from history import ConversationHistory
    client = OpenAI()
    RULES = "You are a concise assistant; answer in one to three sentences. " * 30
    chat_history = ConversationHistory(max_turns=5)
    def turn(text):
        chat_history.add_user(text)
        messages = [{"role": "system", "content": RULES}, *chat_history.get_messages()]
        return client.chat.completions.create(model="m", messages=messages)
    """
    found = _all(tmp_path, {"history.py": HISTORY_CLASS, "app.py": app})
    assert found == [("app.py", 9, "PC507", "warning")]


def test_a_trim_of_a_list_that_holds_no_turns_is_not_said(tmp_path: Path) -> None:
    store = """
    recent_errors = []
    def note_error(text):
        recent_errors.append(text)
        if len(recent_errors) > 5:
            recent_errors.pop(0)
    """
    assert _all(tmp_path, {"store.py": store}) == []


def test_a_window_memory_from_the_old_import_path_made_in_its_own_module(tmp_path: Path) -> None:
    # `memory.py` builds the memory; the agents that use it are made in another module.
    memory = """
    from langchain.chains.conversation.memory import ConversationBufferWindowMemory
    memory = ConversationBufferWindowMemory(memory_key="chat_history", k=5, return_messages=True)
    """
    agents = """
    from langchain.agents import AgentExecutor, create_react_agent
    from memory import memory
    def make(llm, tools, prompt):
        return AgentExecutor(agent=create_react_agent(llm, tools, prompt), tools=tools, memory=memory)
    """
    found = _project(tmp_path, {"memory.py": memory, "agents.py": agents})
    assert found == [("memory.py", 3, "PC507")]


@pytest.mark.parametrize(
    ("memory", "expected"),
    [
        ("ConversationSummaryMemory(llm=llm)", [("chain.py", 5, "PC507")]),
        ("ConversationBufferMemory()", []),
    ],
    ids=["summary-rewritten-every-turn", "buffer-kept-whole"],
)
def test_a_summary_memory_rewrites_the_history_every_turn(
    tmp_path: Path, memory: str, expected: list[tuple[str, int, str]]
) -> None:
    chain = f"""
    from langchain.chains import ConversationChain
    from langchain.memory import {memory.split("(")[0]}
    def run(llm, questions):
        memory = {memory}
        chain = ConversationChain(llm=llm, memory=memory)
        return [chain.run(q) for q in questions]
    """
    assert _project(tmp_path, {"chain.py": chain}) == expected


# A LangGraph node: the state's messages cut by the project's own helper (another module), then
# given to `prompt | llm` whose template puts them in a `MessagesPlaceholder`.
TRIM_HELPER = """
def trim_messages(messages, max_tokens=4000):
    chat_messages = messages.copy()
    system_message = chat_messages.pop(0) if messages and messages[0].type == "system" else None
    while sum(len(m.content) for m in chat_messages) > max_tokens and len(chat_messages) > 1:
        chat_messages.pop(0)
    if system_message:
        chat_messages.insert(0, system_message)
    return chat_messages
"""

NODE = """
from langchain_openai import ChatOpenAI
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from context_manager import trim_messages
llm = ChatOpenAI(model="gpt-4o-mini")
prompt_template = ChatPromptTemplate.from_messages([
    ("system", "You are a careful medical assistant; recommend seeing a doctor. " * 30),
    MessagesPlaceholder("messages"),
])
llm_model = prompt_template | llm
def chatbot(state):
    messages = CUT
    response = llm_model.invoke({"messages": messages})
    return {"messages": [response]}
"""


@pytest.mark.parametrize(
    ("cut", "expected"),
    [
        ('trim_messages(state["messages"], max_tokens=4000)', [("graph.py", 12, "PC507")]),
        ('state["messages"][-10:]', [("graph.py", 12, "PC507")]),
        ('state["messages"]', []),
    ],
    ids=["helper-in-another-module", "slice", "whole-history"],
)
def test_a_window_given_to_a_messages_placeholder(
    tmp_path: Path, cut: str, expected: list[tuple[str, int, str]]
) -> None:
    files = {"context_manager.py": TRIM_HELPER, "graph.py": NODE.replace("CUT", cut)}
    assert _project(tmp_path, files) == expected


SINGLE_HEAD = """
from dataclasses import dataclass
from openai import OpenAI
client = OpenAI()
SYSTEM = {"role": "system", "content": "You are the booking assistant of a dental practice. " * 30}
"""


def _codes(body: str) -> list[tuple[int, str]]:
    source = SINGLE_HEAD + textwrap.dedent(body)
    offset = SINGLE_HEAD.count("\n")
    return [(f.line - offset, f.code) for f in lint_python_source(source) if f.code == "PC507"]


@pytest.mark.parametrize(
    ("start", "expected"),
    [
        ("max(0, len(history) - keep)", [(4, "PC507")]),
        ("len(history) - keep", [(4, "PC507")]),
        ("skip", []),
    ],
    ids=["max-from-the-end", "from-the-end", "a-fixed-part-left-out"],
)
def test_a_window_whose_start_is_counted_from_the_end_in_a_name(
    start: str, expected: list[tuple[int, str]]
) -> None:
    body = f"""
    def reply(history, question, keep, skip):
        start = {start}
        recent = history[start:]
        messages = [SYSTEM, *recent, {{"role": "user", "content": question}}]
        return client.chat.completions.create(model="m", messages=messages)
    """
    assert _codes(body) == expected


REQUEST_CLASS = """
@dataclass
class LLMRequest:
    system_prompt: str
    user_prompt: str
    history: list
    def to_messages(self):
        return [
            {"role": "system", "content": self.system_prompt},
            *self.history[CUT],
            {"role": "user", "content": self.user_prompt},
        ]
class LLMService:
    def generate(self, request: ANNOTATION):
        return client.chat.completions.create(model="m", messages=request.to_messages())
"""


@pytest.mark.parametrize(
    ("annotation", "cut", "expected"),
    [
        ("LLMRequest", "-10:", [(11, "PC507")]),
        ('Optional["LLMRequest"]', "-10:", [(11, "PC507")]),
        ("LLMRequest | None", "-10:", [(11, "PC507")]),
        ("LLMRequest", ":", []),
    ],
    ids=["typed", "optional-string", "union-none", "whole-history"],
)
def test_a_method_of_a_parameters_declared_class_cuts_the_window(
    annotation: str, cut: str, expected: list[tuple[int, str]]
) -> None:
    body = "from typing import Optional\n" + textwrap.dedent(REQUEST_CLASS)
    body = body.replace("ANNOTATION", annotation).replace("CUT", cut)
    assert _codes(body) == expected


NEWEST_FIRST = """
def trim(history, max_tokens):
    kept = []
    total = 0
    for message in reversed(history):
        if total + len(message["content"]) > max_tokens:
            STOP
        kept.insert(0, message)
        total += len(message["content"])
    return kept
def reply(history):
    messages = [SYSTEM, *trim(history, 1200)]
    return client.chat.completions.create(model="m", messages=messages)
"""


@pytest.mark.parametrize(
    ("stop", "expected"),
    [("break", [(5, "PC507")]), ("continue", [])],
    ids=["until-a-budget", "every-turn-kept"],
)
def test_the_newest_turns_gathered_newest_first_until_a_budget(
    stop: str, expected: list[tuple[int, str]]
) -> None:
    assert _codes(NEWEST_FIRST.replace("STOP", stop)) == expected


@pytest.mark.parametrize(
    ("stop", "expected"),
    [("break", [(5, "PC507")]), ("continue", [])],
    ids=["until-a-budget", "every-turn-kept"],
)
def test_the_newest_turns_appended_until_a_budget_then_put_back_in_order(
    stop: str, expected: list[tuple[int, str]]
) -> None:
    appended = NEWEST_FIRST.replace("kept.insert(0, message)", "kept.append(message)").replace(
        "    return kept", "    kept.reverse()\n    return kept"
    )
    assert _codes(appended.replace("STOP", stop)) == expected


def test_a_window_stored_back_into_a_dict_of_histories(tmp_path: Path) -> None:
    # A Telegram bot: after each reply the user's entry is replaced by its newest ten turns.
    bot = """
    import openai
    user_context = {}
    async def handle_message(update, context):
        user_id = update.message.from_user.id
        history = user_context.get(user_id, [])
        history.append({"role": "user", "content": update.message.text})
        response = openai.chat.completions.create(model="gpt-3.5-turbo", messages=history)
        history.append({"role": "assistant", "content": response.choices[0].message.content})
        user_context[user_id] = history[-10:]
    """
    assert _project(tmp_path, {"main.py": bot}) == [("main.py", 10, "PC507")]
    kept = bot.replace("history[-10:]", "history")
    assert _project(tmp_path, {"main.py": kept}) == []


# A script's own statements: Streamlit runs the whole file again on each interaction, and a
# console bot loops at the top level, so a trim there (often after the send) cuts what the next
# request sends.
STREAMLIT_PAGE = """
import streamlit as st
from openai import OpenAI
client = OpenAI()
RULES = "You are the help desk of a bike shop; answer in two sentences. " * 30
if "turns" not in st.session_state:
    st.session_state.turns = [{"role": "system", "content": RULES}]
question = st.chat_input("Ask")
if question:
    st.session_state.turns.append({"role": "user", "content": question})
    reply = client.chat.completions.create(model="m", messages=st.session_state.turns)
    st.session_state.turns.append({"role": "assistant", "content": reply.choices[0].id})
TRIM
"""

STREAMLIT_TRIMS = [
    (
        "head-and-newest",
        "if len(st.session_state.turns) > 9:\n"
        "    st.session_state.turns = [st.session_state.turns[0]] + st.session_state.turns[-8:]",
    ),
    ("pop-in-a-loop", "while len(st.session_state.turns) > 9:\n    st.session_state.turns.pop(1)"),
]


@pytest.mark.parametrize(
    "trim", [t[1] for t in STREAMLIT_TRIMS], ids=[t[0] for t in STREAMLIT_TRIMS]
)
def test_a_script_trimming_its_session_history_after_the_send(tmp_path: Path, trim: str) -> None:
    found = _project(tmp_path, {"page.py": STREAMLIT_PAGE.replace("TRIM", trim)})
    assert found == [("page.py", 14, "PC507")]


def test_a_script_keeping_its_session_history_whole_is_quiet(tmp_path: Path) -> None:
    assert _project(tmp_path, {"page.py": STREAMLIT_PAGE.replace("TRIM", "")}) == []


def test_a_script_keyed_session_history_popped_under_a_size_test(tmp_path: Path) -> None:
    page = """
    import streamlit as st
    from anthropic import Anthropic
    client = Anthropic()
    RULES = "You are the help desk of a bike shop; answer in two sentences. " * 30
    st.session_state.setdefault("log", [])
    text = st.chat_input("Ask")
    if text:
        st.session_state["log"].append({"role": "user", "content": text})
        answer = client.messages.create(
            model="m", max_tokens=500, system=RULES, messages=st.session_state["log"])
        st.session_state["log"].append({"role": "assistant", "content": answer.id})
        if len(st.session_state["log"]) > 10:
            st.session_state["log"].pop(0)
    """
    assert _project(tmp_path, {"page.py": page}) == [("page.py", 14, "PC507")]


CONSOLE = """
from openai import OpenAI
client = OpenAI()
RULES = "You are the help desk of a bike shop; answer in two sentences. " * 30
log = [{"role": "system", "content": RULES}]
errors = []
def ask():
    return client.chat.completions.create(model="m", messages=log).choices[0].message.content
while True:
    log.append({"role": "user", "content": input("> ")})
    log.append({"role": "assistant", "content": ask()})
    TRIM
"""


def test_a_console_loop_dropping_the_oldest_exchange_of_a_global(tmp_path: Path) -> None:
    console = CONSOLE.replace("TRIM", "if len(log) > 13:\n        del log[1:3]")
    assert _project(tmp_path, {"bot.py": console}) == [("bot.py", 13, "PC507")]


def test_a_console_loop_trimming_a_list_of_no_turns_is_quiet(tmp_path: Path) -> None:
    console = CONSOLE.replace("TRIM", "if len(errors) > 5:\n        errors.pop(0)")
    assert _project(tmp_path, {"bot.py": console}) == []


def test_a_script_sending_an_alias_of_its_session_history_it_pops(tmp_path: Path) -> None:
    # The script's own read of the list it trims (here through a shorter name) is the window.
    page = """
    import streamlit as st
    from openai import OpenAI
    client = OpenAI()
    RULES = "You are the help desk of a bike shop; answer in two sentences. " * 30
    if "chat" not in st.session_state:
        st.session_state.chat = [{"role": "system", "content": RULES}]
    turns = st.session_state.chat
    if text := st.chat_input():
        turns.append({"role": "user", "content": text})
        reply = client.chat.completions.create(model="m", messages=turns)
        turns.append({"role": "assistant", "content": reply.choices[0].message.content})
        while len(turns) > 10:
            turns.pop(1)
    """
    assert _project(tmp_path, {"page.py": page}) == [("page.py", 14, "PC507")]


def test_a_console_loop_sending_its_global_at_the_top_level(tmp_path: Path) -> None:
    console = """
    from anthropic import Anthropic
    client = Anthropic()
    RULES = "You are the help desk of a bike shop; answer in two sentences. " * 30
    log = []
    while True:
        log.append({"role": "user", "content": input("> ")})
        reply = client.messages.create(model="m", max_tokens=400, system=RULES, messages=log)
        log.append({"role": "assistant", "content": reply.content[0].text})
        if len(log) > 12:
            log = log[2:]
    """
    assert _project(tmp_path, {"bot.py": console}) == [("bot.py", 10, "PC507")]  # the size test


# A history kept in a store outside the process: one function loads it through the module's
# getter, appends the new turn, drops the oldest and writes it back, so the getter returns a
# window from then on, wherever it is read (a serverless bot's key-value table, Redis, a file).
READ_BACK = {
    "key-value-table": """
    import json
    import boto3
    table = boto3.resource("dynamodb").Table("chats")
    def load_turns(session):
        item = table.get_item(Key={"id": session}).get("Item")
        return json.loads(item["turns"]) if item else []
    def save_turn(session, role, text):
        turns = load_turns(session)
        turns.append({"role": role, "content": text})
        if len(turns) > 12:
            turns = turns[-12:]
        table.put_item(Item={"id": session, "turns": json.dumps(turns)})
    """,
    "redis": """
    import json
    import redis
    r = redis.Redis()
    def load_turns(session):
        raw = r.get(f"chat:{session}")
        return json.loads(raw) if raw else []
    def save_turn(session, role, text):
        history = load_turns(session)
        history.append({"role": role, "content": text})
        del history[:-20]
        r.set(f"chat:{session}", json.dumps(history))
    """,
    "json-file": """
    import json
    def load_turns(session):
        with open(f"logs/{session}.json") as f:
            return json.load(f)
    def save_turn(session, role, text):
        log = load_turns(session)
        log.append({"role": role, "content": text})
        while len(log) > 30:
            log.pop(0)
        with open(f"logs/{session}.json", "w") as f:
            json.dump(log, f)
    """,
}

READ_BACK_SENDER = """
from openai import OpenAI
from store import load_turns, save_turn
client = OpenAI()
RULES = "You are the concierge of a small hotel; answer in a friendly tone. " * 30
def answer(session, question):
    save_turn(session, "user", question)
    turns = [{"role": "system", "content": RULES}, *load_turns(session)]
    reply = client.chat.completions.create(model="m", messages=turns)
    save_turn(session, "assistant", reply.choices[0].message.content)
    return reply
"""


@pytest.mark.parametrize("store", list(READ_BACK.values()), ids=list(READ_BACK))
def test_a_history_trimmed_and_written_back_is_read_back_as_a_window(
    tmp_path: Path, store: str
) -> None:
    found = _project(tmp_path, {"store.py": store, "bot.py": READ_BACK_SENDER})
    assert found == [("bot.py", 8, "PC507")]


def test_a_history_written_back_whole_is_quiet(tmp_path: Path) -> None:
    store = READ_BACK["key-value-table"].replace(
        "        if len(turns) > 12:\n            turns = turns[-12:]\n", ""
    )
    assert _project(tmp_path, {"store.py": store, "bot.py": READ_BACK_SENDER}) == []


def test_a_loaded_history_cut_only_for_a_preview_is_quiet(tmp_path: Path) -> None:
    # Nothing new is appended to what is cut: the stored history stays whole.
    store = READ_BACK["key-value-table"].replace(
        "        if len(turns) > 12:\n            turns = turns[-12:]\n", ""
    ) + textwrap.dedent("""
    def preview(session):
        turns = load_turns(session)
        turns = turns[-3:]
        print(turns)
    """)
    assert _project(tmp_path, {"store.py": store, "bot.py": READ_BACK_SENDER}) == []
