"""
Per-request data that reaches a request through the project's own code (issue #21): the shapes
real request-building files have that the analysis lost, each our own reproduction with the
line its finding must be on, and a quiet twin that must stay clean.

- A wrapper (`bot.reply(system, user)`, `send(system, question)`) that sends its argument as the
  first turn of a request no history follows: per-request data before most of the argument's
  static text is judged as the caller's own first turn is.
- A wrapper defined in another module: a caller's module that names no request API itself, or
  that is analysed before the wrapper's module, was passed over.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig
from promptcache.lint.python import PythonLinter, lint_python_source
from tests.lint.test_lint_python_mechanisms import findings as mechanism_findings

# A short system prompt: the value opens it, more static text after it than before.
SHORT = '''"""You are the shop's assistant. Recommend only from the products below:
{}
Always check the quantity before you recommend a product; if it is 0, ask to wait.
If none of the products fits, say that sadly we do not have what is needed.
Keep the answer short: the product, why it fits, and one friendly tip.
Do not invite further conversation."""'''

WRAPPER_FOUND = [
    (
        "a-method-of-the-projects-client-class-sends-the-system-argument-first",
        """
        from openai import OpenAI
        import requests
        SYSTEM = SHORT
        class Bot:
            def __init__(self):
                self.client = OpenAI()
            def reply(self, system, user):
                return self.client.chat.completions.create(
                    model="gpt-4o",
                    messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                )
        bot = Bot()
        def answer(question):
            products = requests.post("http://catalog/search", json={"q": question}).json()
            return bot.reply(SYSTEM.format(products), question)
        """,
        [(20, "PC502")],  # where the products are fetched (SHORT spans lines 4-9)
    ),
    (
        "a-plain-function-wrapper-gets-the-filled-template",
        """
        from openai import OpenAI
        SYSTEM = SHORT
        def send(system, user):
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            )
        def answer(question, context):
            return send(SYSTEM.format(context), question)
        """,
        [(15, "PC502")],
    ),
]

WRAPPER_QUIET = [
    (
        "per-request-data-closing-a-short-system-prompt-sent-by-a-wrapper",
        """
        from openai import OpenAI
        def send(system, user):
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            )
        def answer(question, context):
            return send("You are the shop's assistant. Use these products:\\n" + context, question)
        """,
    ),
    (
        "a-wrapper-that-sends-its-argument-as-the-newest-turn",
        """
        from openai import OpenAI
        def send(system, user):
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            )
        def answer(question, context):
            return send("You are the shop's assistant.", SHORT.format(context))
        """,
    ),
]


def findings(source: str) -> list[tuple[int, str]]:
    found = lint_python_source(textwrap.dedent(source).replace("SHORT", SHORT))
    return [(f.line, f.code) for f in found]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in WRAPPER_FOUND], ids=[c[0] for c in WRAPPER_FOUND]
)
def test_a_wrapper_sends_per_request_data_that_opens_the_first_turn(
    source: str, expected: list[tuple[int, str]]
) -> None:
    found = findings(source)
    for pair in expected:
        assert pair in found, found


@pytest.mark.parametrize("source", [c[1] for c in WRAPPER_QUIET], ids=[c[0] for c in WRAPPER_QUIET])
def test_a_wrapper_with_per_request_data_in_its_place_stays_quiet(source: str) -> None:
    assert [f for f in findings(source) if f[1] != "PC506"] == []


# A FastAPI app beside its bot module, imported as a top-level module of the app's own folder
# (run as a script from there): the app names no request API, only the bot's methods.
BOT_MODULE = f"""
import aiohttp
from openai import AsyncOpenAI

SYSTEM = {SHORT}


class Bot:
    def __init__(self, settings):
        self.client = settings.pop("client", None) or AsyncOpenAI()

    async def answer(self, system: str, user: str):
        stream = await self.client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{{"role": "system", "content": system}}, {{"role": "user", "content": user}}],
            stream=True,
        )
        async for chunk in stream:
            yield chunk.choices[0].delta.content or ""


class Filler:
    async def prepare(self, question: str):
        found = await self.__search(question)
        return SYSTEM.format(found), question

    async def __search(self, question: str):
        async with aiohttp.ClientSession() as session:
            async with session.post("http://catalog/search", json={{"q": question}}) as response:
                return await response.json()
"""

APP_MODULE = """
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from helpers.bot import Bot, Filler

app = FastAPI()
bot = Bot({})
filler = Filler()


@app.get("/ask/{question}")
async def ask(question: str):
    system, user = await filler.prepare(question)
    return StreamingResponse(bot.answer(system, user), media_type="text/event-stream")
"""


def _lint_project(tmp_path: Path, files: dict[str, str]) -> dict[str, list[tuple[int, str]]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).replace("SHORT", SHORT), encoding="utf-8")
    linter = PythonLinter(LintConfig(root=tmp_path), root=tmp_path)
    # The app first, as a folder's listing gives it: its wrappers' module is not analysed yet;
    # then what the run's end adds, as `lint_paths` does.
    found = {
        name: [(f.line, f.code) for f in linter.lint_file(tmp_path / name, display=name)]
        for name in files
    }
    for finding in linter.finish():
        found[finding.path].append((finding.line, finding.code))
    return found


def test_an_app_module_calling_only_the_projects_wrapper_is_checked(tmp_path: Path) -> None:
    found = _lint_project(
        tmp_path, {"service/app.py": APP_MODULE, "service/helpers/bot.py": BOT_MODULE}
    )
    assert (13, "PC502") in found["service/app.py"], found


def test_an_app_calling_the_wrapper_with_data_in_its_place_stays_quiet(tmp_path: Path) -> None:
    quiet = APP_MODULE.replace(
        "return StreamingResponse(bot.answer(system, user)",
        'return StreamingResponse(bot.answer("You are the assistant.", user + system)',
    )
    found = _lint_project(tmp_path, {"service/app.py": quiet, "service/helpers/bot.py": BOT_MODULE})
    assert [f for f in found["service/app.py"] if f[1] != "PC506"] == [], found


def test_a_module_calling_a_wrapper_of_another_module_analysed_later_is_checked(
    tmp_path: Path,
) -> None:
    # The caller names a request API (`messages`), so it is analysed, but before the module
    # that defines `send`: `send` was not yet known as a wrapper, and the call was passed over.
    files = {
        "app/__init__.py": "",
        "app/views.py": """
            from app.llm import send
            def reply(question, context, messages_seen):
                system = SHORT.format(context)
                return send(system, question)
            """,
        "app/llm.py": """
            from openai import OpenAI
            def send(system, user):
                return OpenAI().chat.completions.create(
                    model="gpt-4o",
                    messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                )
            """,
    }
    found = _lint_project(tmp_path, files)
    assert [f for f in found["app/views.py"] if f[1] == "PC502"], found


# Chat-platform bots: the handler's message is this turn's data, whatever the code names it.
BOT_FOUND = [
    (
        "python-telegram-bot-handler-puts-the-message-above-the-rules",
        """
        from openai import OpenAI
        from telegram.ext import Application, MessageHandler, filters
        client = OpenAI()
        async def on_text(update, context):
            said = update.message.text
            system = f"The member just wrote: {said}\\n" + LONG
            answer = client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "system", "content": system}, *context.user_data["turns"]]
            )
            await update.message.reply_text(answer.choices[0].message.content)
        def main():
            app = Application.builder().token("t").build()
            app.add_handler(MessageHandler(filters.TEXT, on_text))
            app.run_polling()
        """,
        [(6, "PC502")],
    ),
    (
        "a-telebot-message-handler-fills-the-system-prompt",
        """
        import telebot
        from anthropic import Anthropic
        bot = telebot.TeleBot("t")
        claude = Anthropic()
        @bot.message_handler(content_types=["text"])
        def reply(message):
            group = message.chat.title
            out = claude.messages.create(
                model="claude-sonnet-4-5", max_tokens=300,
                system=f"You are in the chat {group}.\\n" + LONG,
                messages=[{"role": "user", "content": message.text}],
            )
            bot.reply_to(message, out.content[0].text)
        """,
        [(8, "PC502")],
    ),
    (
        "a-discord-on-message-event-above-the-instructions",
        """
        import discord
        from openai import OpenAI
        client = discord.Client(intents=discord.Intents.default())
        llm = OpenAI()
        @client.event
        async def on_message(message):
            where = message.channel.name
            out = llm.chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"Channel: {where}\\n" + LONG},
                    {"role": "user", "content": message.content},
                ],
            )
            await message.channel.send(out.choices[0].message.content)
        """,
        [(8, "PC502")],
    ),
]

BOT_QUIET = [
    (
        "the-telegram-handlers-context-is-the-bots-own-settings",
        """
        from openai import OpenAI
        from telegram.ext import Application, MessageHandler, filters
        client = OpenAI()
        async def on_text(update, context):
            persona = context.bot_data["persona"]
            answer = client.chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"{persona}\\n" + LONG},
                    {"role": "user", "content": update.message.text},
                ],
            )
            await update.message.reply_text(answer.choices[0].message.content)
        def main():
            app = Application.builder().token("t").build()
            app.add_handler(MessageHandler(filters.TEXT, on_text))
        """,
    ),
    (
        "a-message-handler-decorator-of-a-module-importing-no-bot-library",
        """
        from openai import OpenAI
        from events import bus
        client = OpenAI()
        @bus.message_handler("refresh")
        def refresh(payload):
            settings = payload.settings
            return client.chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"{settings}\\n" + LONG},
                    {"role": "user", "content": "Summarise the queue."},
                ],
            )
        """,
    ),
    (
        "the-telegram-message-sent-as-the-user-turn",
        """
        from openai import OpenAI
        from telegram.ext import Application, MessageHandler, filters
        client = OpenAI()
        async def on_text(update, context):
            answer = client.chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "system", "content": LONG}, {"role": "user", "content": update.message.text}],
            )
            await update.message.reply_text(answer.choices[0].message.content)
        def main():
            Application.builder().token("t").build().add_handler(MessageHandler(filters.TEXT, on_text))
        """,
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in BOT_FOUND], ids=[c[0] for c in BOT_FOUND]
)
def test_a_chat_platforms_message_is_per_request_data(
    source: str, expected: list[tuple[int, str]]
) -> None:
    found = mechanism_findings(source)
    for pair in expected:
        assert pair in found, found


@pytest.mark.parametrize("source", [c[1] for c in BOT_QUIET], ids=[c[0] for c in BOT_QUIET])
def test_a_bots_settings_and_a_message_in_its_place_stay_quiet(source: str) -> None:
    assert [f for f in mechanism_findings(source) if f[1] != "PC506"] == []


# The first message of a conversation kept on an object or in a store, written again each turn.
REWRITE_FOUND = [
    (
        "a-bots-stored-conversation-gets-a-new-system-prompt-each-message",
        """
        from openai import OpenAI
        from telegram.ext import Application, MessageHandler, filters
        client = OpenAI()
        def build(text):
            found = lookup_notes(text)
            return f"Notes on this: {found}\\n" + LONG
        async def on_text(update, context):
            if "turns" not in context.user_data:
                context.user_data["turns"] = [{"role": "system", "content": LONG}]
            context.user_data["turns"][0]["content"] = build(update.message.text)
            context.user_data["turns"].append({"role": "user", "content": update.message.text})
            out = client.chat.completions.create(model="gpt-4o", messages=context.user_data["turns"])
            await update.message.reply_text(out.choices[0].message.content)
        def main():
            Application.builder().token("t").build().add_handler(MessageHandler(filters.TEXT, on_text))
        """,
        [(11, "PC502")],
    ),
    (
        "a-chat-class-writes-its-first-messages-content-again",
        """
        class Session:
            def __init__(self):
                self.turns = [{"role": "system", "content": LONG}]
            def ask(self, question, store):
                found = store.similarity_search(question, k=3)
                self.turns[0]["content"] = f"Found: {found}\\n" + LONG
                self.turns.append({"role": "user", "content": question})
                return self.turns
        """,
        [(6, "PC502")],
    ),
]

REWRITE_QUIET = [
    (
        "the-first-message-written-again-with-the-same-text",
        """
        class Session:
            def __init__(self):
                self.turns = [{"role": "system", "content": LONG}]
            def reset(self):
                self.turns[0] = {"role": "system", "content": LONG}
                self.turns[0]["content"] = LONG
        """,
    ),
    (
        "the-newest-turn-written-again",
        """
        class Session:
            def __init__(self):
                self.turns = [{"role": "system", "content": LONG}]
            def amend(self, question):
                self.turns[-1]["content"] = question
        """,
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in REWRITE_FOUND], ids=[c[0] for c in REWRITE_FOUND]
)
def test_a_stored_conversations_first_message_rewritten_with_request_data(
    source: str, expected: list[tuple[int, str]]
) -> None:
    found = mechanism_findings(source)
    for pair in expected:
        assert pair in found, found


@pytest.mark.parametrize("source", [c[1] for c in REWRITE_QUIET], ids=[c[0] for c in REWRITE_QUIET])
def test_a_first_message_rewritten_with_static_text_stays_quiet(source: str) -> None:
    assert [f for f in mechanism_findings(source) if f[1] != "PC506"] == []


def test_a_client_sent_system_message_passed_whole_to_a_wrapper_stays_quiet() -> None:
    # A Flask route hands the system message its client sent (or a default) to a wrapper that
    # sends it first: the value is the whole turn, it opens no text the app wrote.
    source = """
        from flask import Flask, request
        from openai import OpenAI
        app = Flask(__name__)
        class Connector:
            def __init__(self):
                self.client = OpenAI()
            def run(self, prompt, system_msg):
                turns = [{"role": "system", "content": system_msg}, {"role": "user", "content": prompt}]
                return self.client.chat.completions.create(model="gpt-4o", messages=turns)
        connector = Connector()
        @app.route("/chat", methods=["POST"])
        def chat():
            data = request.json
            system_msg = data.get("system_msg", "You are a helpful assistant. Answer in plain text.")
            return connector.run(data.get("prompt"), system_msg)
        """
    assert [f for f in findings(source) if f[1] != "PC506"] == []
