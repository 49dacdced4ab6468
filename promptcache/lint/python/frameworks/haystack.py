"""Haystack 2.x-3.x: `ChatMessage.from_system(text)` is a system prompt; a chat generator's
`run(messages=...)` sends OpenAI-shaped turns; `PromptBuilder(template=...)` is a Jinja
template whose `run(**variables)` fills it (checked against deepset-ai/haystack 3.2.0-rc0:
`dataclasses/chat_message.py`, `components/builders/prompt_builder.py`,
`components/generators/chat/openai.py`). `ChatPromptBuilder`'s variables are not followed: its
messages' own text is (a `from_system` in it is a sink of its own)."""

from __future__ import annotations

from .._knowledge import Framework, Sink

# Chat generators of Haystack and its integrations whose `run` takes `messages`.
_GENERATORS = (
    "OpenAIChatGenerator",
    "AzureOpenAIChatGenerator",
    "HuggingFaceAPIChatGenerator",
    "HuggingFaceLocalChatGenerator",
    "AnthropicChatGenerator",
    "AnthropicVertexChatGenerator",
    "AmazonBedrockChatGenerator",
    "GoogleGenAIChatGenerator",
    "OllamaChatGenerator",
    "MistralChatGenerator",
    "CohereChatGenerator",
    "OpenRouterChatGenerator",
)

FRAMEWORK = Framework(
    name="haystack",
    sinks=(
        Sink(
            api="Haystack system message",
            suffixes=("ChatMessage.from_system",),
            positional=((0, "system"),),
            keywords=(("text", "system"),),
        ),
        Sink(
            api="Haystack chat generator",
            suffixes=tuple(
                f"{generator}().{method}"
                for generator in _GENERATORS
                for method in ("run", "run_async")
            ),
            positional=((0, "messages"),),
            keywords=(("messages", "messages"),),
            roots=("haystack",),
        ),
        Sink(
            api="Haystack prompt builder",
            suffixes=("PromptBuilder",),
            positional=((0, "template"),),
            keywords=(("template", "template"),),
            roots=("haystack",),
        ),
    ),
    fills=("PromptBuilder().run", "PromptBuilder().run_async"),
)
