"""PC507, chat platforms' reads of a channel's newest messages: a bot that rebuilds its
conversation from the channel on every message (discord.py and its forks' `history(limit=n)`,
Slack's `conversations_history`, Telethon's `iter_messages` / `get_messages`, Pyrogram's
`get_chat_history`, matrix-nio's `room_messages`) sends a window that slides with each new
message. The whole channel, the newest message alone, a read from a fixed point or oldest
first, a thread read from its start, and a read used for one message's text, a count or a
search are not windows."""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source

HEAD = """
from openai import OpenAI
client = OpenAI()
RULES = "You are the helper of a board-game club: rules, schedules and table bookings. " * 30
"""


def codes(source: str) -> list[str]:
    return [f.code for f in lint_python_source(HEAD + textwrap.dedent(source))]


WINDOWS = [
    (
        "discord-comprehension-reversed",
        """
        import discord
        bot = discord.Client(intents=discord.Intents.default())
        @bot.event
        async def on_message(message):
            recent = [m async for m in message.channel.history(limit=20)]
            turns = [{"role": "system", "content": RULES}] + [
                {"role": "user", "content": m.content} for m in reversed(recent)
            ]
            out = client.chat.completions.create(model="m", messages=turns)
            await message.channel.send(out.choices[0].message.content)
        """,
    ),
    (
        "nextcord-loop-appends-then-reverses",
        """
        from nextcord.ext import commands
        bot = commands.Bot(command_prefix="!")
        @bot.command()
        async def ask(ctx, *, question):
            turns = []
            async for past in ctx.channel.history(limit=15):
                role = "assistant" if past.author == bot.user else "user"
                turns.append({"role": role, "content": past.clean_content})
            turns.reverse()
            convo = [{"role": "system", "content": RULES}, *turns, {"role": "user", "content": question}]
            client.chat.completions.create(model="m", messages=convo)
        """,
    ),
    (
        "pycord-default-limit-transcript-opens-system",
        """
        import discord
        bot = discord.Bot()
        @bot.slash_command()
        async def summarise(ctx, question):
            lines = [f"{m.author.display_name}: {m.content}" async for m in ctx.channel.history()]
            transcript = "\\n".join(reversed(lines))
            client.chat.completions.create(
                model="m",
                messages=[
                    {"role": "system", "content": "The channel so far:\\n" + transcript + RULES},
                    {"role": "user", "content": question},
                ],
            )
        """,
    ),
    (
        "discord-since-an-hour-before-this-message",
        """
        from datetime import datetime, timedelta
        import discord
        async def recent(message, keep=10):
            since: datetime = message.created_at - timedelta(hours=1)
            got = [m async for m in message.channel.history(after=since, before=message.created_at)]
            return got[-keep:] + [message]
        async def reply(message):
            turns = [{"role": "system", "content": RULES}]
            for other in await recent(message):
                turns.append({"role": "user", "content": other.content})
            return client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "disnake-since-half-an-hour-ago-inline",
        """
        from datetime import datetime, timedelta, timezone
        import disnake
        async def reply(channel, question):
            turns = [{"role": "system", "content": RULES}]
            async for m in channel.history(limit=None, after=datetime.now(timezone.utc) - timedelta(minutes=30)):
                turns.append({"role": "user", "content": m.content})
            turns.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "pycord-since-a-day-ago-named",
        """
        from datetime import datetime, timedelta
        import discord
        async def reply(ctx, question):
            cutoff = datetime.utcnow() - timedelta(days=1)
            today = [m async for m in ctx.channel.history(after=cutoff)]
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": m.content} for m in today]
            turns.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "slack-sdk-history-loop",
        """
        from slack_sdk import WebClient
        slack = WebClient(token="x")
        def answer(channel, question):
            page = slack.conversations_history(channel=channel, limit=10)
            turns = [{"role": "system", "content": RULES}]
            for item in reversed(page["messages"]):
                turns.append({"role": "user", "content": item["text"]})
            turns.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "slack-bolt-client-default-limit",
        """
        from slack_bolt import App
        app = App()
        @app.event("app_mention")
        def mention(event, client, say):
            older = client.conversations_history(channel=event["channel"])["messages"]
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": m["text"]} for m in older[::-1]]
            reply = client_llm.chat.completions.create(model="m", messages=turns)
            say(reply.choices[0].message.content)
        client_llm = OpenAI()
        """,
    ),
    (
        "telethon-get-messages-positional",
        """
        from telethon import TelegramClient, events
        tg = TelegramClient("bot", 1, "hash")
        @tg.on(events.NewMessage)
        async def handler(event):
            recent = await tg.get_messages(event.chat_id, 25)
            turns = [{"role": "system", "content": RULES}]
            turns.extend({"role": "user", "content": m.text or ""} for m in reversed(recent))
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "telethon-iter-messages-insert-front",
        """
        import telethon
        async def context_for(tg: telethon.TelegramClient, chat, question):
            history = []
            async for m in tg.iter_messages(chat, limit=30):
                history.insert(0, {"role": "user", "content": m.message})
            history = [{"role": "system", "content": RULES}] + history
            history.append({"role": "user", "content": question})
            return client.chat.completions.create(model="m", messages=history)
        """,
    ),
    (
        "pyrogram-chat-history-keyword",
        """
        from pyrogram import Client, filters
        app = Client("bot")
        @app.on_message(filters.text)
        async def reply(c, message):
            turns = []
            async for m in c.get_chat_history(message.chat.id, limit=12):
                turns.append({"role": "user", "content": m.text})
            turns = [{"role": "system", "content": RULES}] + turns[::-1]
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "pyrogram-chat-history-positional",
        """
        import pyrogram
        async def recent_turns(app: pyrogram.Client, chat_id, question):
            seen = [m async for m in app.get_chat_history(chat_id, 8)]
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": m.text} for m in reversed(seen)]
            turns.append({"role": "user", "content": question})
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "matrix-nio-room-messages",
        """
        from nio import AsyncClient
        mx = AsyncClient("https://example.org", "@bot:example.org")
        async def on_text(room, event):
            page = await mx.room_messages(room.room_id, mx.next_batch, limit=25)
            turns = [{"role": "system", "content": RULES}]
            for ev in reversed(page.chunk):
                turns.append({"role": "user", "content": ev.body})
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "matrix-nio-default-limit",
        """
        import nio
        async def on_text(mx: nio.AsyncClient, room, token):
            page = await mx.room_messages(room.room_id, start=token)
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": ev.body} for ev in page.chunk[::-1]]
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
]


@pytest.mark.parametrize(("name", "source"), WINDOWS, ids=[w[0] for w in WINDOWS])
def test_a_channels_newest_messages_sent_as_the_conversation_are_a_window(
    name: str, source: str
) -> None:
    assert "PC507" in codes(source), name


QUIET = [
    (
        "discord-whole-channel",
        """
        import discord
        async def on_message(message):
            every = [m async for m in message.channel.history(limit=None)]
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": m.content} for m in reversed(every)]
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "discord-oldest-first",
        """
        import discord
        async def on_message(message):
            first = [m async for m in message.channel.history(limit=40, oldest_first=True)]
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": m.content} for m in first]
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "discord-after-a-fixed-message",
        """
        import nextcord
        async def on_message(message, start):
            since = [m async for m in message.channel.history(limit=40, after=start)]
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": m.content} for m in since]
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "discord-count-only",
        """
        import discord
        async def on_message(message):
            recent = [m async for m in message.channel.history(limit=50)]
            if len(recent) > 30:
                return
            client.chat.completions.create(
                model="m",
                messages=[{"role": "system", "content": RULES}, {"role": "user", "content": message.content}],
            )
        """,
    ),
    (
        "discord-one-earlier-message-in-the-new-turn",
        """
        import discord
        async def on_message(message, bot):
            said = ""
            async for m in message.channel.history(limit=10):
                if m.author == bot.user:
                    said = m.content
                    break
            client.chat.completions.create(
                model="m",
                messages=[
                    {"role": "system", "content": RULES},
                    {"role": "user", "content": f"You said before: {said}\n{message.content}"},
                ],
            )
        """,
    ),
    (
        "nextcord-newest-message-by-index",
        """
        import nextcord
        async def quote(message):
            recent = [m async for m in message.channel.history(limit=10)]
            client.chat.completions.create(
                model="m",
                messages=[{"role": "system", "content": RULES}, {"role": "user", "content": recent[0].content}],
            )
        """,
    ),
    (
        "discord-search-only",
        """
        import discord
        async def on_message(message):
            asked = any(["refund" in m.content async for m in message.channel.history(limit=30)])
            hint = "Mention the refund policy." if asked else ""
            client.chat.completions.create(
                model="m",
                messages=[{"role": "system", "content": RULES}, {"role": "user", "content": message.content + hint}],
            )
        """,
    ),
    (
        "slack-thread-from-its-start",
        """
        from slack_sdk import WebClient
        slack = WebClient(token="x")
        def answer(channel, ts):
            thread = slack.conversations_replies(channel=channel, ts=ts, limit=20)["messages"]
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": m["text"]} for m in thread]
            return client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "slack-newest-message-alone",
        """
        from slack_sdk import WebClient
        slack = WebClient(token="x")
        def answer(channel):
            last = slack.conversations_history(channel=channel, limit=1)["messages"]
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": m["text"]} for m in last]
            return client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "telethon-whole-chat-and-newest-alone",
        """
        from telethon import TelegramClient
        tg = TelegramClient("bot", 1, "hash")
        async def answer(chat):
            every = [m async for m in tg.iter_messages(chat)]
            newest = await tg.get_messages(chat)
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": m.text} for m in reversed(every)]
            turns += [{"role": "user", "content": m.text} for m in newest]
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "telethon-oldest-first",
        """
        from telethon import TelegramClient
        tg = TelegramClient("bot", 1, "hash")
        async def answer(chat):
            first = [m async for m in tg.iter_messages(chat, limit=30, reverse=True)]
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": m.text} for m in first]
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "pyrogram-whole-chat",
        """
        from pyrogram import Client
        app = Client("bot")
        async def answer(chat_id):
            every = [m async for m in app.get_chat_history(chat_id)]
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": m.text} for m in reversed(every)]
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "matrix-nio-forward-from-a-token",
        """
        from nio import AsyncClient, MessageDirection
        mx = AsyncClient("https://example.org", "@bot:example.org")
        async def answer(room_id, first_token):
            page = await mx.room_messages(room_id, first_token, direction=MessageDirection.front, limit=25)
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": ev.body} for ev in page.chunk]
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "matrix-nio-forward-by-position",
        """
        from nio import AsyncClient, MessageDirection
        mx = AsyncClient("https://example.org", "@bot:example.org")
        async def answer(room_id, first_token):
            page = await mx.room_messages(room_id, first_token, None, MessageDirection.front, 25)
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": ev.body} for ev in page.chunk]
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
    (
        "history-method-of-no-chat-platform",
        """
        from myapp.storage import notebook
        def answer(question):
            notes = notebook.history(limit=20)
            turns = [{"role": "system", "content": RULES}]
            turns += [{"role": "user", "content": n} for n in notes]
            client.chat.completions.create(model="m", messages=turns)
        """,
    ),
]


@pytest.mark.parametrize(("name", "source"), QUIET, ids=[q[0] for q in QUIET])
def test_reads_that_keep_no_sliding_window_are_quiet(name: str, source: str) -> None:
    assert "PC507" not in codes(source), name


def test_a_read_whose_arguments_are_splatted_says_its_limit_is_not_seen() -> None:
    # `history(**opts)`: the limit is in a dict the analysis does not read. Any limit but None,
    # 0 or 1 keeps a window, so it is reported, but the finding must not claim the default.
    source = """
        import discord
        bot = discord.Client(intents=discord.Intents.default())
        @bot.event
        async def on_message(message, opts):
            recent = [m async for m in message.channel.history(**opts)]
            turns = [{"role": "system", "content": RULES}] + [
                {"role": "user", "content": m.content} for m in reversed(recent)
            ]
            client.chat.completions.create(model="m", messages=turns)
        """
    (finding,) = lint_python_source(HEAD + textwrap.dedent(source))
    assert finding.code == "PC507"
    assert "its default" not in finding.message
    assert "as many as its unread arguments say" in finding.message
