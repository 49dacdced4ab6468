"""Chainlit: the message handler's argument is the user's message of this turn."""

from __future__ import annotations

from .._knowledge import DataSource, Framework

FRAMEWORK = Framework(
    name="chainlit",
    data=(DataSource(what="the user's message", handlers=("chainlit.on_message",)),),
)
