"""Ollama's Python client: `ollama.chat(model, messages)` and `Client()/AsyncClient().chat`
(OpenAI-shaped messages, `tools=`); `generate(system=...)` is a system prompt by its keyword
(checked against ollama-python 0.6's `_client.py`)."""

from __future__ import annotations

from .._knowledge import Framework, Sink

FRAMEWORK = Framework(
    name="ollama",
    sinks=(
        Sink(
            api="Ollama chat",
            suffixes=("chat",),
            keywords=(("messages", "messages"), ("tools", "tools")),
            positional=((1, "messages"),),
            roots=("ollama.",),
        ),
        Sink(
            api="Ollama generate",
            suffixes=("generate",),
            keywords=(("system", "system"), ("prompt", "input")),
            positional=((1, "input"),),
            roots=("ollama.",),
        ),
    ),
    clients=("ollama",),
)
