"""DSPy: a signature's instructions become the system message of every call its adapters make."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="dspy",
    sinks=(
        # Called on the user's own Signature subclass (`Answer.with_instructions(...)`): no root.
        Sink(
            api="DSPy signature instructions",
            suffixes=("with_instructions",),
            positional=((0, "system"),),
            keywords=(("instructions", "system"),),
        ),
        Sink(
            api="DSPy signature",
            suffixes=("Signature", "make_signature"),
            positional=((1, "system"),),
            keywords=(("instructions", "system"),),
            roots=("dspy",),
        ),
    ),
)
