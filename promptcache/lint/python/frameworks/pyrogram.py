"""
Pyrogram (a Telegram client library): `app.get_chat_history(chat_id, limit=n)` yields a chat's
newest n messages, in reverse chronological order; with no limit (`limit=0`, its default) it
reads every message, and the maintained fork's `reverse=True` reads from the oldest on.
Checked against docs.pyrogram.org's `get_chat_history` page and the fork's
(telegramplayground.github.io/pyrogram).
"""

from __future__ import annotations

from .._knowledge import Framework, HistoryRead

FRAMEWORK = Framework(
    name="pyrogram",
    history_reads=(
        HistoryRead(
            methods=("get_chat_history",),
            imported=("pyrogram",),
            position=1,
            anchors=("reverse",),
        ),
    ),
)
