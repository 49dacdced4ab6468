"""
PC508 (issue #21): a parameter of unknown origin above long static instructions.

A function's parameter that no call in the project fills with a constant reaches the system
prompt (or the first turn) with a long block of static instructions, or the conversation,
after it: the analysis cannot tell whether it changes per request, so it asks. Measured on 45
fresh real files (perreq4) it found a per-request buster the other rules missed and alarmed
no clean file there or on the tuning corpus, so it runs by default; these cases are our own
reproductions of the shapes it is for, each with a quiet twin.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import Finding, LintConfig, lint_paths
from promptcache.lint.python import lint_python_source

SELECTED = LintConfig(select=("PC", "PC508"))

# About 1500 estimated tokens of static instructions: over PC106's long prefix (10 x threshold).
HANDBOOK = (
    '"""You are the support agent of Acme. Follow the rules below.\n'
    + "Cite the policy section you rely on and never promise a refund the policy denies.\n" * 70
    + '"""'
)

FIRES = [
    (
        "public-function-parameter-opens-the-system-prompt",
        """
        from openai import OpenAI
        client = OpenAI()
        HANDBOOK = {handbook}
        def answer(account_summary, question):
            system = f"Account: {{account_summary}}\\n" + HANDBOOK
            return client.chat.completions.create(
                model="gpt-4o",
                messages=[{{"role": "system", "content": system}}, {{"role": "user", "content": question}}],
            )
        """,
        "account_summary",
    ),
    (
        "method-parameter-in-anthropic-system-with-the-conversation-after-it",
        """
        import anthropic
        HANDBOOK = {handbook}
        class Agent:
            def __init__(self):
                self.client = anthropic.Anthropic()
            def turn(self, history, briefing):
                return self.client.messages.create(
                    model="claude-sonnet-4-5",
                    max_tokens=512,
                    system=briefing + HANDBOOK,
                    messages=history,
                )
        """,
        "briefing",
    ),
    (
        "a-hook-s-name-on-a-class-no-framework-calls",
        """
        from openai import OpenAI
        def to_wire(turns):
            wired = []
            for turn in turns:
                wired.append({{"role": "system" if turn.kind == "sys" else "user", "content": turn.text}})
            return wired
        class Relay:
            def _generate(self, messages, stop=None):
                return OpenAI().chat.completions.create(model="m", messages=to_wire(messages))
        """,
        "messages",
    ),
    (
        "a-project-s-own-base-of-that-name",
        """
        from openai import OpenAI
        class BaseChatModel:
            pass
        def to_wire(turns):
            wired = []
            for turn in turns:
                wired.append({{"role": "system" if turn.kind == "sys" else "user", "content": turn.text}})
            return wired
        class Relay(BaseChatModel):
            def _generate(self, messages, stop=None):
                return OpenAI().chat.completions.create(model="m", messages=to_wire(messages))
        """,
        "messages",
    ),
    (
        "a-helper-s-system-message-with-the-conversation-after-it",
        """
        from openai import OpenAI
        client = OpenAI()
        HANDBOOK = {handbook}
        def notes_prompt(transcript):
            return f"The meeting so far:\\n{{transcript}}\\n" + HANDBOOK
        def summarise(transcript, history):
            reply = client.chat.completions.create(
                model="gpt-4o-mini",
                messages=[{{"role": "system", "content": notes_prompt(transcript)}}, *history],
            )
            return reply.choices[0].message.content
        class NoteTaker:
            def follow(self, notes, history):
                return summarise(notes.strip(), history)
        """,
        "notes",
    ),
]

QUIET = [
    (
        "called-in-its-module-with-a-constant",
        """
        from openai import OpenAI
        client = OpenAI()
        HANDBOOK = {handbook}
        def answer(account_summary, question):
            system = f"Account: {{account_summary}}\\n" + HANDBOOK
            return client.chat.completions.create(
                model="gpt-4o",
                messages=[{{"role": "system", "content": system}}, {{"role": "user", "content": question}}],
            )
        def main(question):
            return answer("Enterprise plan, EU region", question)
        """,
    ),
    (
        "a-name-that-says-stable",
        """
        from openai import OpenAI
        client = OpenAI()
        HANDBOOK = {handbook}
        def answer(language, question):
            system = f"Answer in {{language}}.\\n" + HANDBOOK
            return client.chat.completions.create(
                model="gpt-4o",
                messages=[{{"role": "system", "content": system}}, {{"role": "user", "content": question}}],
            )
        """,
    ),
    (
        "a-constant-default",
        """
        from openai import OpenAI
        client = OpenAI()
        HANDBOOK = {handbook}
        def answer(question, audience="customers"):
            system = f"Audience: {{audience}}\\n" + HANDBOOK
            return client.chat.completions.create(
                model="gpt-4o",
                messages=[{{"role": "system", "content": system}}, {{"role": "user", "content": question}}],
            )
        """,
    ),
    (
        "an-object-built-by-the-program-in-init",
        """
        from openai import OpenAI
        HANDBOOK = {handbook}
        class Planner:
            def __init__(self, team: "AgentTeam"):
                self.client = OpenAI()
                self.system = team.manifest() + HANDBOOK
                self.messages = [{{"role": "system", "content": self.system}}]
            def run(self, request):
                self.messages.append({{"role": "user", "content": request}})
                return self.client.chat.completions.create(model="gpt-4o", messages=self.messages)
        """,
    ),
    (
        "a-langchain-chat-model-converting-the-conversation-it-is-handed",
        """
        from langchain_core.language_models.chat_models import BaseChatModel
        from langchain_core.messages import SystemMessage
        from openai import OpenAI
        def to_wire(turns):
            wired = []
            for turn in turns:
                if isinstance(turn, SystemMessage):
                    wired.append({{"role": "system", "content": turn.content}})
                else:
                    wired.append({{"role": "user", "content": turn.content}})
            return wired
        class Relay(BaseChatModel):
            def _generate(self, messages, stop=None, run_manager=None, **kwargs):
                return OpenAI().chat.completions.create(model="m", messages=to_wire(messages))
        """,
    ),
    (
        "a-llamaindex-custom-llm-s-chat",
        """
        from llama_index.core.llms import CustomLLM
        import anthropic
        class Proxy(CustomLLM):
            def chat(self, messages, **kwargs):
                system = "".join(m.content for m in messages if m.role == "system")
                rest = [{{"role": m.role, "content": m.content}} for m in messages if m.role != "system"]
                return anthropic.Anthropic().messages.create(
                    model="claude-sonnet-4-5", max_tokens=512, system=system, messages=rest
                )
        """,
    ),
    (
        "short-static-text-after-it",
        """
        from openai import OpenAI
        client = OpenAI()
        def answer(account_summary, question):
            system = f"Account: {{account_summary}}. Be brief."
            return client.chat.completions.create(
                model="gpt-4o",
                messages=[{{"role": "system", "content": system}}, {{"role": "user", "content": question}}],
            )
        """,
    ),
    (
        "a-lone-system-message-nothing-follows",
        """
        from openai import OpenAI
        client = OpenAI()
        def notes_prompt(transcript):
            return f"You take notes for a meeting. The transcript so far:\\n{{transcript}}\\n" + (
                "Write the decisions made, one per line, in square brackets. "
                "Do not ask for the recording again."
            )
        def summarise(transcript):
            reply = client.chat.completions.create(
                model="gpt-4o-mini",
                messages=[{{"role": "system", "content": notes_prompt(transcript)}}],
            )
            return reply.choices[0].message.content
        class NoteTaker:
            def follow(self, recorder):
                return summarise(recorder.current_transcript())
        """,
    ),
]


def _lint(source: str, config: LintConfig = SELECTED) -> list[str]:
    text = textwrap.dedent(source).format(handbook=HANDBOOK)
    return [f"{f.code} {f.message}" for f in lint_python_source(text, config=config)]


@pytest.mark.parametrize(("source", "name"), [c[1:] for c in FIRES], ids=[c[0] for c in FIRES])
def test_a_parameter_of_unknown_origin_above_long_instructions_is_asked_about(
    source: str, name: str
) -> None:
    found = [m for m in _lint(source) if m.startswith("PC508")]
    assert len(found) == 1, found
    message = found[0]
    assert f"`{name}`" in message
    assert "cannot tell whether it changes per request" in message
    assert "tokens of static" in message or "whole conversation" in message
    assert "after the static instructions" in message


def test_the_message_gives_the_tokens_of_static_text_after_it() -> None:
    (message,) = [m for m in _lint(FIRES[0][1]) if m.startswith("PC508")]
    assert "reaches the system prompt" in message
    tokens = int(message.split("~", 1)[1].split(" ", 1)[0])
    assert tokens > 1000


@pytest.mark.parametrize("source", [c[1] for c in QUIET], ids=[c[0] for c in QUIET])
def test_values_the_project_shows_stable_stay_quiet(source: str) -> None:
    assert [m for m in _lint(source) if m.startswith("PC508")] == []


def test_opt_in() -> None:
    """It found nothing the other rules missed on held-out files: only a select naming it runs it."""
    assert [m for m in _lint(FIRES[0][1], LintConfig()) if m.startswith("PC508")] == []
    assert [m for m in _lint(FIRES[0][1]) if m.startswith("PC508")] != []
    assert not LintConfig().enabled("PC508")
    assert not LintConfig(select=("PC5",)).enabled("PC508")
    assert LintConfig(select=("PC", "PC508")).enabled("PC508")
    assert not LintConfig(select=("PC", "PC508"), ignore=("PC508",)).enabled("PC508")


# A base class whose subclasses, in other modules, each hand it their own system prompt; the
# conversation kept on the object follows it (a language-tutor bot's shape).
_BASE_BOT = """
from openai import OpenAI


class BaseBot:
    def __init__(self, history):
        self.client = OpenAI()
        self.history = history

    def ask(self, system_message):
        messages = [{"role": "system", "content": system_message}] + self.history
        reply = self.client.chat.completions.create(model="gpt-4o-mini", messages=messages)
        return reply.choices[0].message.content
"""
_TUTOR = """
from bots.base import BaseBot


class Tutor(BaseBot):
    def reply(self):
        system_msg = \"\"\"You are a patient tutor. Use short sentences.
Ask one question at a time.\"\"\"
        return self.ask(system_msg)
"""
_GRAMMAR = """
from bots.base import BaseBot

GRAMMAR_PROMPT = "You are a grammar coach. Answer clearly and simply."


class GrammarBot(BaseBot):
    def reply(self):
        return self.ask(GRAMMAR_PROMPT)
"""
_PERSONAL = """
from bots.base import BaseBot


class PersonalBot(BaseBot):
    def reply(self, profile):
        return self.ask("About the learner: " + profile)
"""


def _lint_project(root: Path, files: dict[str, str]) -> list[Finding]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return lint_paths([root], config=LintConfig(root=root, select=("PC", "PC508")))


def test_a_parameter_every_call_in_the_project_passes_a_constant_is_stable(tmp_path: Path) -> None:
    files = {"bots/__init__.py": "", "bots/base.py": _BASE_BOT}
    alone = [f for f in _lint_project(tmp_path, files) if f.code == "PC508"]
    assert [f.message.split(" ", 1)[0] for f in alone] == ["`system_message`"]
    files |= {"bots/tutor.py": _TUTOR, "bots/grammar.py": _GRAMMAR}
    assert [f for f in _lint_project(tmp_path, files) if f.code == "PC508"] == []


def test_one_call_that_passes_something_else_keeps_the_question(tmp_path: Path) -> None:
    files = {
        "bots/__init__.py": "",
        "bots/base.py": _BASE_BOT,
        "bots/tutor.py": _TUTOR,
        "bots/personal.py": _PERSONAL,
    }
    found = [f for f in _lint_project(tmp_path, files) if f.code == "PC508"]
    # The base's question stays; the subclass's `profile`, handed to the `ask` it inherits
    # (which puts it in the system prompt), is a question of its own.
    assert [f.path.rsplit("/", 1)[-1] for f in found] == ["base.py", "personal.py"]


_ASSISTANT = """
import anthropic

HANDBOOK = {handbook}
client = anthropic.Anthropic()


def answer(briefing, history):
    return client.messages.create(
        model="claude-sonnet-4-5", max_tokens=512, system=briefing + HANDBOOK, messages=history
    )
"""
_ROUTES = """
from app.assistant import answer
from app.texts import BRIEFING


def support(history):
    return answer(briefing=BRIEFING, history=history)
"""


def test_an_imported_constant_passed_by_keyword_is_stable(tmp_path: Path) -> None:
    files = {
        "app/__init__.py": "",
        "app/assistant.py": _ASSISTANT.format(handbook=HANDBOOK),
        "app/texts.py": 'BRIEFING = "You answer for the Acme help desk."\n',
        "app/routes.py": _ROUTES,
    }
    assert [f for f in _lint_project(tmp_path, files) if f.code == "PC508"] == []


def test_a_call_that_spreads_its_arguments_keeps_the_question(tmp_path: Path) -> None:
    spread = (
        _ROUTES
        + "\n\ndef forward(history, **options):\n    return answer(history=history, **options)\n"
    )
    files = {
        "app/__init__.py": "",
        "app/assistant.py": _ASSISTANT.format(handbook=HANDBOOK),
        "app/texts.py": 'BRIEFING = "You answer for the Acme help desk."\n',
        "app/routes.py": spread,
    }
    found = [f for f in _lint_project(tmp_path, files) if f.code == "PC508"]
    assert [f.message.split(" ", 1)[0] for f in found] == ["`briefing`"]
