"""instructor: its patched clients' structured calls (`create_with_completion`, ...) take
OpenAI-shaped messages; its plain `chat.completions.create` is OpenAI's own sink."""

from __future__ import annotations

from .._knowledge import Framework, Sink
from .openai import CHAT_KEYWORDS

FRAMEWORK = Framework(
    name="instructor",
    sinks=(
        Sink(
            api="instructor structured call",
            suffixes=("create_with_completion", "create_partial", "create_iterable"),
            keywords=(*CHAT_KEYWORDS, ("system", "system")),
            answers=True,
        ),
    ),
)
