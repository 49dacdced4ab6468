"""
LangChain and LangGraph: system messages, prompt templates (their variables are followed where
they are filled: `.partial`, `.invoke`, `.format_messages`), prebuilt agents' prompts.

The template objects' behaviour (which variable lands where) is in the interpreter's template
handling; this module says which calls make them.
"""

from __future__ import annotations

from .._knowledge import Framework, Sink

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
)
