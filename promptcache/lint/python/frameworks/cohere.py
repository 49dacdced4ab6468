"""Cohere's SDK: v1 `chat`/`chat_stream` (a `preamble` system prompt, `chat_history` turns, the
new `message`) and v2 (`ClientV2().chat(messages=...)`), on `Client`, `AsyncClient`, `ClientV2`
and the Bedrock/SageMaker/OCI clients (checked against cohere-python's `base_client.py` and
`v2/client.py`, August 2026)."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="cohere",
    sinks=(
        Sink(
            api="Cohere chat",
            suffixes=("chat", "chat_stream"),
            keywords=(
                ("preamble", "system"),
                ("chat_history", "messages"),
                ("message", "input"),
                ("messages", "messages"),
                ("tools", "tools"),
            ),
            roots=("cohere.",),
        ),
    ),
    clients=("cohere",),
)
