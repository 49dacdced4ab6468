"""The OpenAI Agents SDK (`from agents import Agent`): an agent's instructions, and its runs."""

from __future__ import annotations

from .._knowledge import DataSource, Framework, Sink

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
    data=(
        DataSource(
            what="the output of an agent run",
            answers=True,
            calls=("agents.Runner.run", "agents.Runner.run_sync", "agents.Runner.run_streamed"),
        ),
    ),
)
# `Runner.run(agent, input)` runs an agent; these keywords (and a list `input`, a `**` splat)
# carry earlier turns into the run.
RUNNER = "Runner"
RUN_METHODS = frozenset({"run", "run_sync", "run_streamed"})
HISTORY_KEYWORDS = frozenset({"session", "previous_response_id", "conversation_id"})
