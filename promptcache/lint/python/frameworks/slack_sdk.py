"""
Slack's Web API client (`slack_sdk.WebClient`, the `client` a Bolt listener is given): a bot
that rebuilds its conversation from the channel reads `conversations_history(channel=...,
limit=n)`, the channel's newest n messages, newest first (100 when no limit is given; a later
page needs the cursor): a window that slides with every new message.

`conversations_replies(channel=..., ts=...)` is not one: it returns a thread from its parent
message on, oldest first, so its first n messages stay the same as the thread grows (checked
against docs.slack.dev's `conversations.replies` page, whose limit is also lowered for some
apps, and the method files of Slack API clients for Elixir, which give `conversations.history`
its newest-first order and `latest` "now" by default).
"""

from __future__ import annotations

from .._knowledge import Framework, HistoryRead

FRAMEWORK = Framework(
    name="slack_sdk",
    history_reads=(
        HistoryRead(
            methods=("conversations_history",),
            imported=("slack_sdk", "slack_bolt", "slack"),
            default=100,
        ),
    ),
)
