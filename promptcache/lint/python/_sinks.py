"""
The request APIs whose arguments form a cacheable prefix, and which argument plays which role.

Roles: `system` (system prompt, instructions, docs: the whole conversation follows it),
`tools`, `messages` (every turn but the last counts), `input` (a string is the new turn; a list
is `messages`), `config` (a dict or config object with `system_instruction` and `tools`), `body`
(a JSON body with `system`, `messages` and `tools`), `template` (a prompt template's text,
judged by how much static text follows), `chat_template` (LangChain message specs).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

__all__ = ["SINKS", "Sink", "find_sink"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Sink:
    api: str
    suffixes: tuple[str, ...]  # dotted-name endings that select it (after import resolution)
    keywords: tuple[tuple[str, str], ...] = ()
    positional: tuple[tuple[int, str], ...] = ()
    roots: tuple[str, ...] = ()  # when set, the resolved name must start with one of them


_ANTHROPIC = (("system", "system"), ("tools", "tools"), ("messages", "messages"))
_OPENAI_CHAT = (("messages", "messages"), ("tools", "tools"), ("functions", "tools"))
_GEMINI_CONFIG = (("system_instruction", "system"), ("tools", "tools"))

SINKS: tuple[Sink, ...] = (
    Sink(
        api="Anthropic Messages",
        suffixes=("messages.create", "messages.stream", "messages.parse"),
        keywords=_ANTHROPIC,
    ),
    Sink(
        api="OpenAI Chat Completions",
        suffixes=(
            "chat.completions.create",
            "chat.completions.parse",
            "chat.completions.stream",
            "ChatCompletion.create",
            "ChatCompletion.acreate",
        ),
        keywords=_OPENAI_CHAT,
    ),
    Sink(
        api="OpenAI Responses",
        suffixes=("responses.create", "responses.parse", "responses.stream"),
        keywords=(("instructions", "system"), ("tools", "tools"), ("input", "input")),
    ),
    Sink(
        api="Gemini generate_content",
        suffixes=("generate_content", "generate_content_stream", "generate_content_async"),
        keywords=(("contents", "input"), ("config", "config"), ("generation_config", "config")),
        positional=((0, "input"),),
    ),
    Sink(api="Gemini config", suffixes=("GenerateContentConfig",), keywords=_GEMINI_CONFIG),
    Sink(api="Gemini GenerativeModel", suffixes=("GenerativeModel",), keywords=_GEMINI_CONFIG),
    Sink(
        api="Gemini chats.create",
        suffixes=("chats.create", "start_chat"),
        keywords=(("config", "config"), ("history", "messages")),
    ),
    Sink(api="Gemini context cache", suffixes=("caches.create",), keywords=(("config", "config"),)),
    Sink(
        api="Bedrock Converse",
        suffixes=("converse", "converse_stream"),
        keywords=(("system", "system"), ("messages", "messages"), ("toolConfig", "tools")),
    ),
    Sink(
        api="Bedrock InvokeModel",
        suffixes=("invoke_model", "invoke_model_with_response_stream"),
        keywords=(("body", "body"),),
    ),
    Sink(
        api="LiteLLM completion",
        suffixes=("completion", "acompletion", "responses", "aresponses"),
        keywords=(*_OPENAI_CHAT, ("system", "system")),
        roots=("litellm",),
    ),
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
    Sink(
        api="Pydantic AI Agent",
        suffixes=("Agent",),
        keywords=(("system_prompt", "system"), ("instructions", "system")),
        roots=("pydantic_ai",),
    ),
    Sink(
        api="OpenAI Agents SDK Agent",
        suffixes=("Agent",),
        keywords=(("instructions", "system"),),
        roots=("agents",),
    ),
    Sink(
        api="promptcache Prompt.add_system",
        suffixes=("add_system",),
        positional=tuple((i, "system") for i in range(8)),
    ),
    Sink(
        api="promptcache Prompt.add_tools",
        suffixes=("add_tools",),
        positional=tuple((i, "tools") for i in range(8)),
    ),
    Sink(
        api="promptcache Prompt.add_docs",
        suffixes=("add_docs",),
        positional=tuple((i, "system") for i in range(8)),
    ),
)

_BY_LAST: dict[str, list[Sink]] = {}
for _sink in SINKS:
    for _suffix in _sink.suffixes:
        _BY_LAST.setdefault(_suffix.rsplit(".", 1)[-1], []).append(_sink)

LAST_NAMES = frozenset(_BY_LAST)


@lru_cache(maxsize=4096)
@lru_cache(maxsize=8192)  # a run asks about the same few dotted names in every module
def find_sink(name: str) -> Sink | None:
    """The sink a call to resolved dotted `name` is, if any."""
    last = name.rsplit(".", 1)[-1]
    for sink in _BY_LAST.get(last, ()):
        if sink.roots and not name.startswith(sink.roots):
            continue
        for suffix in sink.suffixes:
            if name == suffix or name.endswith("." + suffix):
                return sink
    return None
