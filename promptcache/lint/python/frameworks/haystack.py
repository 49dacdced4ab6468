"""Haystack 2.x-3.x: `ChatMessage.from_system(text)` is a system prompt; a chat generator's
`run(messages=...)` sends OpenAI-shaped turns; `PromptBuilder(template=...)` is a Jinja
template whose `run(**variables)` fills it (checked against deepset-ai/haystack 3.2.0-rc0:
`dataclasses/chat_message.py`, `components/builders/prompt_builder.py`,
`components/generators/chat/openai.py`). `ChatPromptBuilder(template=[ChatMessage...])` is a
chat template whose messages hold Jinja: `run(template_variables={...}, **variables)` fills it
(`run(template=...)` replaces its messages for that call), and each variable is judged in its
message, by the static text and turns after it (`components/builders/chat_prompt_builder.py`)."""

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

# `ChatMessage` constructors, by the role of the message each makes: a `ChatPromptBuilder`
# template is read message by message (a system message's variable has the conversation after
# it when a history is spliced in later).
MESSAGE_ROLES = (
    ("ChatMessage.from_system", "system"),
    ("ChatMessage.from_user", "user"),
    ("ChatMessage.from_assistant", "assistant"),
)

# A pipeline's methods: `add_component(name, instance)` names a component, and `run(data)`
# fills each by name (`{"prompt_builder": {...}}`) or, flat (`{"query": ...}`), every component
# taking that input (`core/pipeline/pipeline.py`).
PIPELINE_ADD = "add_component"
# `connect("retriever.documents", "prompt_builder.documents")`: what the sender gives the
# builder's input is made for each run (per-request data).
PIPELINE_CONNECT = "connect"
PIPELINE_RUNS = frozenset({"run", "run_async"})

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
        # Not a request by itself: its message is kept whole for a `ChatPromptBuilder`.
        Sink(
            api="Haystack message",
            suffixes=("ChatMessage.from_user", "ChatMessage.from_assistant"),
            roots=("haystack",),
        ),
        Sink(
            api="Haystack chat prompt builder",
            suffixes=("ChatPromptBuilder",),
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
    fills=(
        "PromptBuilder().run",
        "PromptBuilder().run_async",
        "ChatPromptBuilder().run",
        "ChatPromptBuilder().run_async",
        "Pipeline().run",
        "AsyncPipeline().run_async",
    ),
)
