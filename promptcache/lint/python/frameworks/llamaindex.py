"""LlamaIndex: chat engines' and agents' system prompts (its `PromptTemplate` is followed as
LangChain's is: the same name, the same `{variable}` syntax)."""

from __future__ import annotations

from .._knowledge import DataSource, Framework, Sink, TemplateFill

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
    # A custom LLM: LlamaIndex hands its methods the conversation (or prompt) an engine built.
    conversation_hooks=tuple(
        f"{base}.{method}"
        for base in ("CustomLLM",)
        for method in ("chat", "achat", "stream_chat", "astream_chat", "complete", "acomplete")
    ),
    # The context engines put the nodes retrieved for each turn in the system message, above
    # the history; the condense-question engine reads the history only into the question it
    # rewrites. An index makes them by `chat_mode` (its default, "best", is an agent).
    context_engines=(
        *(
            f"{engine}{made}"
            for engine in (
                "ContextChatEngine",
                "CondensePlusContextChatEngine",
                "CondenseQuestionChatEngine",
            )
            for made in ("", ".from_defaults")
        ),
        *(
            f"as_chat_engine(chat_mode={mode})"
            for mode in ("context", "condense_plus_context", "condense_question")
        ),
    ),
    # A query engine's QA template ends with the query, after `{context_str}`, the nodes it
    # retrieved for that query.
    query_engines=(
        "as_query_engine",
        "RetrieverQueryEngine",
        "RetrieverQueryEngine.from_args",
        "CitationQueryEngine.from_args",
    ),
    query_methods=("query", "aquery"),
    window_memories=tuple(
        f"{package}.{memory}{made}"
        for package in ("llama_index.core.memory", "llama_index.memory")
        for memory in ("ChatMemoryBuffer", "ChatSummaryMemoryBuffer")
        for made in ("", ".from_defaults")
    ),
)
