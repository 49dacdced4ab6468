"""
Discord bots (discord.py and its forks, py-cord, nextcord): an event handler's arguments are the
event of this turn (`on_message(message)`: the user's message), and a command's are the
invocation and its arguments.
"""

from __future__ import annotations

from .._knowledge import DataSource, Framework

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
)
