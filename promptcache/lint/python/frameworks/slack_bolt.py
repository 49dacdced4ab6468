"""
Slack Bolt: a listener registered with `@app.event(...)`, `@app.message(...)`, `@app.command(...)`
(and actions, shortcuts, views) is called with the event of this turn (`event`, `body`,
`message`, `payload`, `command`: the user's text, their id, the channel); its other arguments,
injected by name, are Bolt's own objects (`say`, `ack`, `client`, `logger`, `context`).
"""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="slack_bolt",
    data=(
        DataSource(
            what="the incoming Slack event",
            handlers=(
                "*.event",
                "*.message",
                "*.command",
                "*.action",
                "*.shortcut",
                "*.view",
                "*.options",
                "*.function",
            ),
            imported=("slack_bolt",),
            given=(
                "say",
                "ack",
                "client",
                "logger",
                "context",
                "respond",
                "next",
                "complete",
                "fail",
                "set_status",
                "set_title",
                "set_suggested_prompts",
                "get_thread_context",
                "save_thread_context",
            ),
        ),
    ),
)
