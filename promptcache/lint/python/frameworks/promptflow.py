"""promptflow: its LLM tools take one prompt text whose `# system:` / `# user:` sections follow
one another, so a value in it is judged by the static text after it, as a template's is."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="promptflow",
    sinks=(
        Sink(
            api="promptflow LLM tool",
            suffixes=("chat", "completion"),
            keywords=(("prompt", "template"),),
            positional=((1, "template"),),
            roots=("promptflow",),
            answers=True,
        ),
    ),
)
