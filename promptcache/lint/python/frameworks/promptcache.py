"""promptcache's own builder: what is added to the stable layers must be stable."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="promptcache",
    sinks=(
        Sink(
            api="promptcache Prompt.add_system",
            suffixes=("add_system",),
            positional=tuple((i, "system") for i in range(8)),
        ),
        Sink(
            api="promptcache Prompt.add_tools",
            suffixes=("add_tools",),
            positional=tuple((i, "tools") for i in range(8)),
        ),
        Sink(
            api="promptcache Prompt.add_docs",
            suffixes=("add_docs",),
            positional=tuple((i, "system") for i in range(8)),
        ),
    ),
)
