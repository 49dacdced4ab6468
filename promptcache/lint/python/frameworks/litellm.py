"""LiteLLM: `litellm.completion` / `acompletion` (OpenAI-shaped) and its Responses calls."""

from __future__ import annotations

from .._knowledge import Framework, Sink
from .openai import CHAT_KEYWORDS

FRAMEWORK = Framework(
    name="litellm",
    sinks=(
        Sink(
            api="LiteLLM completion",
            suffixes=("completion", "acompletion", "responses", "aresponses"),
            keywords=(*CHAT_KEYWORDS, ("system", "system")),
            roots=("litellm",),
            chained=("previous_response_id",),
            answers=True,
        ),
    ),
    clients=("litellm",),
)
