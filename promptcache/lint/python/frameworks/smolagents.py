"""smolagents: a `CodeAgent`'s or `ToolCallingAgent`'s instructions and prompt templates."""

from __future__ import annotations

from .._knowledge import DataSource, Framework, Sink

FRAMEWORK = Framework(
    name="smolagents",
    sinks=(
        Sink(
            api="smolagents agent",
            suffixes=("CodeAgent", "ToolCallingAgent", "MultiStepAgent"),
            keywords=(("instructions", "system"), ("prompt_templates", "system")),
            roots=("smolagents",),
        ),
    ),
    data=(DataSource(what="the output of an agent run", methods=("run",), answers=True),),
)
