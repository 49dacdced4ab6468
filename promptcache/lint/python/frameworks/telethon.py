"""
Telethon (a Telegram client library): `client.iter_messages(chat, limit=n)` and
`client.get_messages(chat, n)` read a chat's newest n messages, newest first; with no limit
`iter_messages` reads the whole chat and `get_messages` only the newest message, and
`reverse=True` reads from the oldest message on (the same messages every time), as `ids=` reads
given messages. Checked against Telethon's v2 docs ("Messages": `get_messages(chat, 1)` for the
last message) and the gram.js port's `IterMessagesParams` (a missing limit reads every message).
"""

from __future__ import annotations

from .._knowledge import Framework, HistoryRead

FRAMEWORK = Framework(
    name="telethon",
    history_reads=(
        HistoryRead(
            methods=("iter_messages", "get_messages"),
            imported=("telethon",),
            position=1,
            anchors=("reverse", "ids"),
        ),
    ),
)
