"""OpenAI's SDK: Chat Completions (and the legacy `ChatCompletion`), and the Responses API."""

from __future__ import annotations

from .._knowledge import Framework, Sink

CHAT_KEYWORDS = (("messages", "messages"), ("tools", "tools"), ("functions", "tools"))

FRAMEWORK = Framework(
    name="openai",
    sinks=(
        Sink(
            api="OpenAI Chat Completions",
            suffixes=(
                "chat.completions.create",
                "chat.completions.parse",
                "chat.completions.stream",
                "ChatCompletion.create",
                "ChatCompletion.acreate",
            ),
            keywords=CHAT_KEYWORDS,
            answers=True,
        ),
        Sink(
            api="OpenAI Responses",
            suffixes=("responses.create", "responses.parse", "responses.stream"),
            keywords=(("instructions", "system"), ("tools", "tools"), ("input", "input")),
            chained=("previous_response_id", "conversation"),
            answers=True,
        ),
    ),
    # OpenAI's SDK, and the OpenAI-compatible SDKs whose clients have its methods.
    clients=("openai", "groq", "together"),
)
