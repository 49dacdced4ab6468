"""The OpenAI Agents SDK (`from agents import Agent`): an agent's instructions."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="openai-agents",
    sinks=(
        Sink(
            api="OpenAI Agents SDK Agent",
            suffixes=("Agent",),
            keywords=(("instructions", "system"),),
            roots=("agents",),
        ),
    ),
)
