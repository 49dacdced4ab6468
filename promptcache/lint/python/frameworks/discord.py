"""
Discord bots (discord.py and its forks, py-cord, nextcord): an event handler's arguments are the
event of this turn (`on_message(message)`: the user's message), and a command's are the
invocation and its arguments.

A bot that rebuilds its conversation from the channel on every message reads
`channel.history(limit=n)` (`discord.abc.Messageable.history`, keyword-only in all three forks):
the newest n messages, newest first, 100 when no limit is given; `limit=None` reads the whole
channel. `after=` or `around=` read from a fixed message, and `oldest_first=True` (the default
once `after=` is given) from the channel's first message: the same messages every time. Checked
against the py-cord 2.7 source of `discord.abc` (docs.pycord.dev, `_modules/discord/abc`) and a
nextcord bot's `history(limit=None)` for a whole channel (exercism/discord-bot-py#146).
"""

from __future__ import annotations

from .._knowledge import DataSource, Framework, HistoryRead

FRAMEWORK = Framework(
    name="discord",
    data=(
        DataSource(
            what="the incoming Discord message",
            handlers=(
                "*.event",
                "*.listen",
                "*.command",
                "*.slash_command",
                "*.hybrid_command",
                "*.tree.command",
                "discord.app_commands.command",
            ),
            imported=("discord", "nextcord", "interactions"),
        ),
    ),
    history_reads=(
        HistoryRead(
            methods=("history",),
            imported=("discord", "nextcord", "disnake"),
            default=100,
            anchors=("after", "around", "oldest_first"),
        ),
    ),
)
