"""LlamaIndex: chat engines' and agents' system prompts (its `PromptTemplate` is followed as
LangChain's is: the same name, the same `{variable}` syntax)."""

from __future__ import annotations

from .._knowledge import DataSource, Framework, Sink, TemplateFill

_SYSTEM = (("system_prompt", "system"), ("context", "system"), ("prefix_messages", "messages"))

# Chat engines that open each request's system prompt with the nodes they retrieve for that
# request, the history after it: none of the history is read from the cache, so a window
# memory handed to one loses nothing. By class, and by `as_chat_engine`'s `chat_mode`.
CONTEXT_ENGINES = frozenset({"CondensePlusContextChatEngine", "ContextChatEngine"})
CONTEXT_CHAT_MODES = frozenset(
    {("as_chat_engine", "context"), ("as_chat_engine", "condense_plus_context")}
)

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
    # Query engines put the nodes they retrieve for each query in their QA template's
    # `{context_str}` (a refine template's too).
    template_fills=(
        TemplateFill(
            calls=(
                "as_query_engine",
                "RetrieverQueryEngine.from_args",
                "get_response_synthesizer",
            ),
            template=("text_qa_template", "refine_template"),
            variables=("context_str", "context_msg"),
            what="the nodes the engine retrieves for each query",
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
