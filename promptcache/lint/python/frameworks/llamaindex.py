"""LlamaIndex: chat engines' and agents' system prompts (its `PromptTemplate` is followed as
LangChain's is: the same name, the same `{variable}` syntax)."""

from __future__ import annotations

from .._knowledge import DataSource, Framework, Sink

_SYSTEM = (("system_prompt", "system"), ("context", "system"), ("prefix_messages", "messages"))

FRAMEWORK = Framework(
    name="llamaindex",
    sinks=(
        Sink(
            api="LlamaIndex engine",
            suffixes=("from_defaults", "from_tools"),
            keywords=_SYSTEM,
            roots=("llama_index",),
        ),
        Sink(api="LlamaIndex chat engine", suffixes=("as_chat_engine",), keywords=_SYSTEM),
        Sink(
            api="LlamaIndex agent",
            suffixes=("FunctionAgent", "ReActAgent", "AgentWorkflow", "FunctionCallingAgent"),
            keywords=_SYSTEM,
            roots=("llama_index",),
        ),
    ),
    data=(
        DataSource(
            what="the answer of a LlamaIndex engine",
            answers=True,
            methods=("chat", "achat", "stream_chat", "astream_chat", "complete", "acomplete"),
        ),
        DataSource(
            what="documents retrieved for this request",
            methods=("query", "aquery", "retrieve", "aretrieve"),
            varying=True,
        ),
    ),
    # A chat memory buffer keeps the newest turns that fit its token limit (3,000 by default):
    # a window that slides once the conversation outgrows it; the summary buffer folds the
    # dropped turns into a summary at its head instead.
    window_memories=tuple(
        f"{package}.{memory}{made}"
        for package in ("llama_index.core.memory", "llama_index.memory")
        for memory in ("ChatMemoryBuffer", "ChatSummaryMemoryBuffer")
        for made in ("", ".from_defaults")
    ),
)
