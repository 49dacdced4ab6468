"""Mistral's SDK (`mistralai` 1.x-2.x: `Mistral().chat.complete/stream`, async and `parse`
variants, `agents.complete/stream`; 0.x: `MistralClient().chat/chat_stream`): OpenAI-shaped
messages and tools (checked against mistralai 2.5.1's `client/chat.py` and `client/agents.py`)."""

from __future__ import annotations

from .._knowledge import Framework, Sink

_CHAT = (("messages", "messages"), ("tools", "tools"))

FRAMEWORK = Framework(
    name="mistral",
    sinks=(
        Sink(
            api="Mistral chat",
            suffixes=(
                "chat.complete",
                "chat.complete_async",
                "chat.stream",
                "chat.stream_async",
                "chat.parse",
                "chat.parse_async",
                "chat.parse_stream",
                "chat.parse_stream_async",
                "agents.complete",
                "agents.complete_async",
                "agents.stream",
                "agents.stream_async",
            ),
            keywords=_CHAT,
        ),
        # The 0.x client (`MistralClient(api_key=...).chat(model, messages)`).
        Sink(
            api="Mistral 0.x chat",
            suffixes=("MistralClient().chat", "MistralClient().chat_stream"),
            keywords=_CHAT,
            positional=((1, "messages"),),
            roots=("mistralai",),
        ),
    ),
    clients=("mistralai",),
    user_turns=("UserMessage",),  # as `azure.ai.inference.models.UserMessage`
)
