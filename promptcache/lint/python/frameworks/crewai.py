"""CrewAI: an agent's `role`, `goal` and `backstory` open the system prompt of every call it makes
(CrewAI's tool list and answer-format instructions follow them), a task's `description` and
`expected_output` make the user turn, and `kickoff(inputs=...)` fills the `{placeholders}` of
both (checked against crewAIInc/crewAI: `BaseAgent.interpolate_inputs`, `Task.interpolate_inputs`,
`crews/utils.prepare_kickoff`, and the `role_playing`/`tools`/`task` slices of
`translations/en.json`). How placeholders are followed is in `_templates.crew_template`."""

from __future__ import annotations

from .._knowledge import Framework, Sink

# The methods of a crew (or an agent) that run it with `inputs` filling the placeholders.
KICKOFF_METHODS = frozenset({"kickoff", "kickoff_async", "akickoff"})
KICKOFF_EACH_METHODS = frozenset(
    {"kickoff_for_each", "kickoff_for_each_async", "akickoff_for_each"}
)

FRAMEWORK = Framework(
    name="crewai",
    sinks=(
        Sink(
            api="CrewAI agent",
            suffixes=("Agent",),
            keywords=(
                ("role", "system"),
                ("goal", "system"),
                ("backstory", "system"),
                ("system_template", "system"),
            ),
            roots=("crewai",),
        ),
        Sink(
            api="CrewAI task",
            suffixes=("Task",),
            keywords=(("description", "template"), ("expected_output", "template")),
            roots=("crewai",),
        ),
        Sink(api="CrewAI crew", suffixes=("Crew",), roots=("crewai",)),
    ),
    fills=(*KICKOFF_METHODS, *KICKOFF_EACH_METHODS),
)
# A `@CrewBase` class's configuration files (class attribute, CrewAI's default), relative to the
# class's module: their agents and tasks are the crew's (`_crew_config`).
CREW_BASE = "CrewBase"
CONFIG_DEFAULTS = (
    ("agents_config", "config/agents.yaml"),
    ("tasks_config", "config/tasks.yaml"),
)
# Static text CrewAI puts after an agent's goal in its system prompt (the tools or no-tools slice),
# at the least: a placeholder there is never the prompt's tail.
AFTER_AGENT = 200
# Static text CrewAI puts after a task's expected output in the user turn, at the least: the
# `expected_output` slice's closing words ("you MUST return the actual complete content ...")
# and the `task` slice's ("Begin! This is VERY important to you ..."), some 210 characters.
AFTER_EXPECTED = 200
