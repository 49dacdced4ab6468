"""
LangChain and LangGraph: system messages, prompt templates (their variables are followed where
they are filled: `.partial`, `.invoke`, `.format_messages`), prebuilt agents' prompts.

The template objects' behaviour (which variable lands where) is in the interpreter's template
handling; this module says which calls make them.
"""

from __future__ import annotations

from .._knowledge import DataSource, Framework, Sink, TemplateFill

FRAMEWORK = Framework(
    name="langchain",
    sinks=(
        Sink(
            api="LangChain SystemMessage",
            suffixes=("SystemMessage",),
            keywords=(("content", "system"),),
            positional=((0, "system"),),
        ),
        Sink(
            api="LangChain system message template",
            suffixes=("SystemMessagePromptTemplate.from_template", "SystemMessagePromptTemplate"),
            keywords=(("template", "system"), ("prompt", "system")),
            positional=((0, "system"),),
        ),
        Sink(
            api="LangChain prompt template",
            suffixes=(
                "PromptTemplate.from_template",
                "PromptTemplate",
                "ChatPromptTemplate.from_template",
            ),
            keywords=(("template", "template"),),
            positional=((0, "template"),),
        ),
        Sink(
            api="LangChain chat prompt template",
            suffixes=("ChatPromptTemplate.from_messages", "ChatPromptTemplate"),
            keywords=(("messages", "chat_template"),),
            positional=((0, "chat_template"),),
        ),
        Sink(
            api="LangGraph agent",
            suffixes=("create_react_agent", "create_agent", "create_deep_agent"),
            keywords=(
                ("prompt", "system"),
                ("state_modifier", "system"),
                ("messages_modifier", "system"),
                ("system_prompt", "system"),
                ("instructions", "system"),
            ),
        ),
    ),
    data=(
        # A chain's, model's or agent's run: its result is this request's answer (a retriever's
        # `invoke` is this request's documents: per-request data either way).
        DataSource(
            what="the output of a model, chain or agent run",
            answers=True,
            methods=(
                "invoke",
                "ainvoke",
                "stream",
                "astream",
                "batch",
                "abatch",
                "predict",
                "apredict",
                "predict_messages",
                "run",
                "arun",
            ),
        ),
        DataSource(
            what="documents retrieved for this request",
            methods=(
                "similarity_search",
                "asimilarity_search",
                "similarity_search_with_score",
                "asimilarity_search_with_score",
                "similarity_search_with_relevance_scores",
                "similarity_search_by_vector",
                "max_marginal_relevance_search",
                "amax_marginal_relevance_search",
                "get_relevant_documents",
                "aget_relevant_documents",
            ),
            varying=True,
        ),
        DataSource(
            what="the conversation memory of this request",
            methods=("load_memory_variables", "aload_memory_variables"),
        ),
        # LangGraph hands each node function the run's state: what it reads there (`state[
        # "summary"]`, `state["docs"]`) was made for this run. A node typed as taking a
        # `...State` is one wherever it is registered (see `_request_data`).
        DataSource(
            what="the state of this graph run",
            registrations=("*.add_node",),
            first_only=True,
            imported=("langgraph",),
        ),
    ),
    # A template made in one place and formatted in another (a module constant, a node
    # function): `format(` alone is every `str.format`, so only in a module naming the class.
    fills=(
        "PromptTemplate().format",
        "PromptTemplate().aformat",
        "PromptTemplate().format_prompt",
        "ChatPromptTemplate().format_messages",
        "ChatPromptTemplate().aformat_messages",
    ),
    # `trim_messages` keeps the newest turns by default (`strategy="last"`).
    windows=(
        "langchain_core.messages.trim_messages",
        "langchain_core.messages.utils.trim_messages",
        "langchain.schema.messages.trim_messages",
    ),
    # A custom chat model: LangChain hands its methods the conversation the chain built.
    conversation_hooks=tuple(
        f"{base}.{method}"
        for base in ("BaseChatModel", "SimpleChatModel")
        for method in ("_generate", "_agenerate", "_stream", "_astream", "_call")
    ),
    # A conversational retrieval chain reads its memory only into the question it rewrites;
    # its answer prompt gets that question and the documents retrieved for it.
    context_engines=("ConversationalRetrievalChain", "ConversationalRetrievalChain.from_llm"),
    window_memories=(
        "langchain.memory.ConversationBufferWindowMemory",
        "langchain.memory.ConversationTokenBufferMemory",
        "langchain.memory.buffer_window.ConversationBufferWindowMemory",
        "langchain.memory.token_buffer.ConversationTokenBufferMemory",
        "langchain_community.memory.ConversationBufferWindowMemory",
        "langchain_classic.memory.ConversationBufferWindowMemory",
        "langchain_classic.memory.ConversationTokenBufferMemory",
        # The summary buffer folds the oldest turns into a summary that opens the history and
        # changes with every fold: past its budget, the start of the conversation moves.
        "langchain.memory.ConversationSummaryBufferMemory",
        "langchain.memory.summary_buffer.ConversationSummaryBufferMemory",
        "langchain_classic.memory.ConversationSummaryBufferMemory",
        # The old import path of the same memories (`langchain.chains.conversation.memory`).
        "langchain.chains.conversation.memory.ConversationBufferWindowMemory",
        "langchain.chains.conversation.memory.ConversationTokenBufferMemory",
        "langchain.chains.conversation.memory.ConversationSummaryBufferMemory",
        # The summary memory writes the whole history again as a new summary after every turn:
        # the history part of each request differs from the last one's from its first word.
        "langchain.memory.ConversationSummaryMemory",
        "langchain.memory.summary.ConversationSummaryMemory",
        "langchain.chains.conversation.memory.ConversationSummaryMemory",
        "langchain_classic.memory.ConversationSummaryMemory",
    ),
    # Chains that put the documents they retrieve for each request into the prompt they are
    # handed: `{context}` by default (`{summaries}` for the with-sources chains).
    template_fills=(
        TemplateFill(
            calls=("create_stuff_documents_chain",),
            template=("1", "prompt"),
            variables=("context",),
            renamed_by="document_variable_name",
            what="the documents the chain retrieves for each request",
        ),
        TemplateFill(
            calls=("load_qa_chain", "load_qa_with_sources_chain", "StuffDocumentsChain"),
            template=("prompt", "llm_chain"),
            variables=("context", "summaries"),
            renamed_by="document_variable_name",
            what="the documents the chain is handed for each request",
        ),
        TemplateFill(
            calls=(
                "RetrievalQA.from_chain_type",
                "RetrievalQAWithSourcesChain.from_chain_type",
                "RetrievalQA.from_llm",
            ),
            template=("chain_type_kwargs.prompt", "prompt"),
            variables=("context", "summaries"),
            what="the documents the chain retrieves for each request",
        ),
        TemplateFill(
            calls=("ConversationalRetrievalChain.from_llm",),
            template=("combine_docs_chain_kwargs.prompt",),
            variables=("context",),
            what="the documents the chain retrieves for each request",
        ),
    ),
    # Chat models: `ChatOpenAI()` sends what it is given as the conversation.
    clients=(
        "langchain_openai",
        "langchain_anthropic",
        "langchain_google_genai",
        "langchain_aws",
        "langchain_ollama",
        "langchain_groq",
        "langchain_mistralai",
        "langchain_community.chat_models",
    ),
    user_turns=("HumanMessage",),
)
