"""Pydantic AI: an `Agent`'s system prompt and instructions (decorated system-prompt functions
are recognised by their decorator in the interpreter), and how its runs are told apart: a run
given `message_history` has the earlier turns after the system prompt, one without has only the
user prompt."""

from __future__ import annotations

from .._knowledge import DataSource, Framework, Sink

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
    data=(
        DataSource(
            what="the output of an agent run",
            answers=True,
            methods=("run", "run_sync", "run_stream", "run_stream_sync"),
        ),
    ),
)

# Methods of an `Agent` that run it (each takes `message_history=`).
RUN_METHODS = frozenset(
    {"run", "run_sync", "run_stream", "run_stream_sync", "run_stream_events", "iter"}
)
HISTORY_KEYWORD = "message_history"
# Methods that only register something on the agent (as decorators or calls): not a hand-off.
REGISTER_METHODS = frozenset(
    {"system_prompt", "instructions", "tool", "tool_plain", "output_validator", "toolset"}
)
