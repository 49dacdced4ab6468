"""Anthropic's SDK: the Messages API (`client.messages.create/stream/parse`, beta included)."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="anthropic",
    sinks=(
        Sink(
            api="Anthropic Messages",
            suffixes=("messages.create", "messages.stream", "messages.parse"),
            keywords=(("system", "system"), ("tools", "tools"), ("messages", "messages")),
            answers=True,
            cache_points=("cache_control",),
        ),
    ),
    clients=("anthropic",),
)
