"""Pydantic AI: an `Agent`'s system prompt and instructions (decorated system-prompt functions
are recognised by their decorator in the interpreter)."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="pydantic-ai",
    sinks=(
        Sink(
            api="Pydantic AI Agent",
            suffixes=("Agent",),
            keywords=(("system_prompt", "system"), ("instructions", "system")),
            roots=("pydantic_ai",),
        ),
    ),
)
