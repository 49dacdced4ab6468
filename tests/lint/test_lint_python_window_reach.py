"""PC507, windows the analysis must reach: a helper that cuts the history, imported from a
package folder whose `__init__.py` (the re-export) is not in the tree; the newest turns but
the latest (`[-n:-1]`) written out as a recent-conversation message; the newest turns copied
one by one before the question; a window read by a collaborator handed in `__init__` and typed. The
twins (whole histories, a name two modules of a folder define, a protocol's stub, a list that
holds no turns) stay quiet."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint.python import lint_python_source

from ._helpers import project_findings


def _project(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    # PC507's findings: what these files hold beyond the window is other rules' to judge.
    return project_findings(tmp_path, files, code="PC507")


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


# A fund guide's graph node: the newest turns but the latest, written out as one "recent
# conversation" user message after the system prompt, the latest turn sent after it on its own.
RECENT = """
from langchain_anthropic import ChatAnthropic
model = ChatAnthropic(model="m")
RULES = "You are a careful fund guide; never recommend a product by name. " * 20
def recent(state, n=6):
    lines = []
    for m in state["messages"][WINDOW]:
        lines.append(f"{m.type}: {m.content[:80]}")
    return "\\n".join(lines)
def answer(state, question):
    msgs = [("system", RULES), ("user", "[recent]\\n" + recent(state)), ("user", question)]
    return model.invoke(msgs).content
"""


def _source(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_python_source(textwrap.dedent(text))]


def test_the_newest_turns_but_the_latest_are_a_window() -> None:
    assert _source(RECENT.replace("WINDOW", "-n:-1")) == [(7, "PC507")]


@pytest.mark.parametrize("whole", ["1:-1", ":-1"])
def test_every_turn_but_the_latest_is_quiet(whole: str) -> None:
    assert _source(RECENT.replace("WINDOW", whole)) == []


def test_the_last_scores_but_one_of_a_list_that_holds_no_turns_are_quiet() -> None:
    body = RECENT.replace('state["messages"][WINDOW]', 'state["scores"][-n:-1]')
    assert _source(body) == []


# A support bot copies the newest turns one by one into the request, each as the message class
# its role calls for, then adds the question.
COPIED = """
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
RULES = "You are the returns desk of a bicycle shop; quote the policy, never guess. " * 20
async def reply(llm, history, question):
    request = [SystemMessage(content=RULES)]
    for turn in history[TURNS]:
        kind = HumanMessage if turn["role"] == "user" else AIMessage
        request.append(kind(content=turn["text"]))
    request.append(HumanMessage(content=question))
    return await llm.ainvoke(request)
"""


def test_the_newest_turns_copied_one_by_one_before_the_question_are_a_window() -> None:
    assert _source(COPIED.replace("TURNS", "-8:")) == [(6, "PC507")]


def test_every_turn_copied_one_by_one_is_quiet() -> None:
    assert _source(COPIED.replace("TURNS", ":")) == []


# A guide service handed its turn store in `__init__` (typed): the store reads the newest rows
# of the chat back, newest first, cut to twelve; the service sends them after the system prompt.
HANDED = """
from openai import OpenAI
from sqlalchemy import select
RULES = "You are the museum's audio guide; speak of the works on this floor only. " * 20
class TurnStore:
    def __init__(self, db):
        self.db = db
    def recent(self, chat_id):
        rows = self.db.scalars(
            select(Turn).where(Turn.chat_id == chat_id).order_by(Turn.at.desc()).limit(12)
        ).all()
        return rows[::-1]
class Guide:
    def __init__(self, store: TurnStore):
        self.store = store
        self.client = OpenAI()
    def answer(self, chat_id, question):
        turns = [{"role": t.role, "content": t.text} for t in self.store.recent(chat_id)]
        return self.client.chat.completions.create(
            model="m",
            messages=[{"role": "system", "content": RULES}, *turns,
                      {"role": "user", "content": question}],
        )
"""


def test_a_window_read_by_a_collaborator_handed_in_and_typed() -> None:
    assert _source(HANDED) == [(10, "PC507")]


def test_a_collaborator_that_reads_the_whole_chat_is_quiet() -> None:
    whole = HANDED.replace(".order_by(Turn.at.desc()).limit(12)", ".order_by(Turn.at)")
    assert _source(whole) == []


def test_a_collaborator_typed_by_its_protocol_is_not_read_as_that_stub() -> None:
    # `store: Reader`, a protocol whose `recent` has no body: what the caller is really handed
    # is unknown, as for an untyped collaborator (neither quiet nor a window by the stub).
    stub = HANDED.replace(
        "class Guide:",
        "class Reader:\n    def recent(self, chat_id):\n        ...\nclass Guide:",
    ).replace("store: TurnStore", "store: Reader")
    assert _source(stub) == []


# A messaging webhook reads the newest twenty rows of the chat back, one call of the query a
# line: the window is taken where the chain says `.limit`, and the finding is put there.
CHAIN = """
from anthropic import Anthropic
from sqlalchemy import desc, select
client = Anthropic()
RULES = "You answer questions about the listed flats; quote prices exactly as listed. " * 20
async def on_message(session, chat_id, text):
    result = await session.execute(
        select(Row)
        .where(Row.chat_id == chat_id)
        .order_by(ORDER)
        .limit(20)
    )
    rows = list(reversed(result.scalars().all()))
    turns = [{"role": r.role, "content": r.text} for r in rows]
    return client.messages.create(model="m", max_tokens=500, system=RULES, messages=turns)
"""


def test_a_query_chain_written_a_call_a_line_is_reported_at_its_limit() -> None:
    assert _source(CHAIN.replace("ORDER", "desc(Row.at)")) == [(11, "PC507")]


def test_a_query_chain_read_oldest_first_with_a_limit_is_quiet() -> None:
    assert _source(CHAIN.replace("ORDER", "Row.at")) == []


# A bot joins the last few stored lines into one text and keeps its last 800 characters.
TAIL = '''
from openai import OpenAI
client = OpenAI()
def reply(lines, question, notes):
    CUT
    if len(recent) > 800:
        recent = recent[-800:]
    system_prompt = f"""
    You answer about the gym's class timetable. Be brief.
    Earlier lines:
    {recent}
    Notes:
    {notes}
    """
    return client.chat.completions.create(
        model="m", messages=[{"role": "system", "content": system_prompt},
                             {"role": "user", "content": question}])
'''


def test_the_tail_of_a_joined_text_is_not_a_window_of_turns() -> None:
    assert _source(TAIL.replace("CUT", 'recent = "\\\\n".join(lines)')) == []


def test_a_list_of_turns_cut_the_same_way_is_a_window() -> None:
    found = _source(TAIL.replace("CUT", "recent = list(lines)"))
    assert (7, "PC507") in found


# A provider adapter builds the payload with the system entry first, then takes that entry
# off the front once, since the API wants the system prompt apart.
POPPED = """
from anthropic import Anthropic
client = Anthropic()
RULES = "You are the library's reference desk; cite the catalogue number of each book. " * 20
def payload(turns):
    out = [{"role": "system", "content": RULES}]
    for t in turns:
        out.append({"role": t.role, "content": t.text})
    return out
def send(turns):
    HEAD
    messages.pop(0)
    return client.messages.create(model="m", max_tokens=400, system=RULES, messages=messages)
"""


def test_a_fresh_payload_whose_system_entry_is_popped_once_is_quiet() -> None:
    assert _source(POPPED.replace("HEAD", "messages = payload(turns)")) == []


def test_a_history_handed_in_and_popped_each_request_is_a_window() -> None:
    body = POPPED.replace("def send(turns):", "def send(messages):").replace("HEAD", "pass")
    assert _source(body) == [(12, "PC507")]


def test_a_global_history_popped_each_request_is_a_window() -> None:
    body = POPPED.replace(
        "def send(turns):\n    HEAD",
        "messages = []\ndef send(turns):\n    global messages\n    messages = payload(turns)",
    )
    assert _source(body) == [(14, "PC507")]


def test_a_system_entry_taken_off_a_copy_in_an_assignment_is_quiet() -> None:
    # `head = m.pop(0) if ... else None`: the first entry kept apart once, no window.
    body = POPPED.replace(
        "HEAD\n    messages.pop(0)",
        'messages = list(payload(turns))\n    head = messages.pop(0) if messages[0]["role"] == "system" else None',
    )
    assert "head = " in body
    assert _source(body) == []
