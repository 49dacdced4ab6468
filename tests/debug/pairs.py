"""
Realistic request pairs, one per story in reference/peers.md §4, in three vendor shapes.

Each builder returns SDK keyword arguments. The stable prefix is large enough to be worth
caching; `variant` tweaks one thing, the way the story's bug did.
"""

from __future__ import annotations

import copy
from typing import Any

# The stable machine contract of `diff` (`DiffResult.to_json`, `promptcache diff --format json`).
DIFF_JSON_KEYS = [
    "invalidated",
    "layer",
    "cause",
    "path",
    "offset",
    "before",
    "after",
    "tokens_lost",
]

GUIDE = (
    "You are a support agent for Acme Cloud. Follow the escalation policy, cite the runbook "
    "section you rely on, and never reveal internal ticket notes. "
) * 40

SEARCH = {
    "name": "search_docs",
    "description": "Search the product documentation.",
    "input_schema": {
        "type": "object",
        "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["query"],
    },
}
TICKET = {
    "name": "open_ticket",
    "description": "Open a support ticket.",
    "input_schema": {
        "type": "object",
        "properties": {"title": {"type": "string"}, "severity": {"type": "string"}},
        "required": ["title"],
    },
}
STATUS = {
    "name": "service_status",
    "description": "Current status of a service.",
    "input_schema": {"type": "object", "properties": {"service": {"type": "string"}}},
}
TOOLS = [SEARCH, TICKET, STATUS]


def anthropic(
    system: str = GUIDE,
    tools: list[dict[str, Any]] | None = None,
    messages: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """Tools, then a marked system block, then the conversation with a rolling marker."""
    turns = messages if messages is not None else _anthropic_turns()
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 1024,
        "tools": copy.deepcopy(tools if tools is not None else TOOLS),
        "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
        "messages": turns,
        **extra,
    }


RUNBOOK = "Runbook 4.2: 502s after deploy usually mean the health check path moved."


def _anthropic_turns(
    question: str = "My deploy fails with 502s since noon.",
    result: str = RUNBOOK,
) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Hi, I need help with my deployment."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look that up."},
                {
                    "type": "tool_use",
                    "id": "toolu_01A09q90qw90lq917835lq9",
                    "name": "search_docs",
                    "input": {"query": "deployment 502", "limit": 3},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                    "content": result,
                },
            ],
        },
        {"role": "assistant", "content": "Runbook 4.2 says the health check path may have moved."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": question, "cache_control": {"type": "ephemeral"}},
            ],
        },
    ]


def anthropic_turns(
    question: str = "My deploy fails with 502s since noon.",
    result: str = RUNBOOK,
) -> list[dict[str, Any]]:
    return _anthropic_turns(question, result)


def openai_tools(tools: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t["description"],
                "parameters": t["input_schema"],
            },
        }
        for t in copy.deepcopy(tools if tools is not None else TOOLS)
    ]


def openai(
    system: str = GUIDE,
    tools: list[dict[str, Any]] | None = None,
    messages: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """Chat Completions: tools, a developer message, then the conversation (automatic caching)."""
    turns = messages if messages is not None else openai_turns()
    return {
        "model": "gpt-5.4",
        "tools": openai_tools(tools),
        "messages": [{"role": "developer", "content": system}, *turns],
        **extra,
    }


def openai_turns(
    arguments: str = '{"query": "deployment 502", "limit": 3}',
    result: str = RUNBOOK,
) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Hi, I need help with my deployment."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_8f2a",
                    "type": "function",
                    "function": {"name": "search_docs", "arguments": arguments},
                },
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_8f2a",
            "content": result,
        },
        {"role": "assistant", "content": "Runbook 4.2 says the health check path may have moved."},
        {"role": "user", "content": "My deploy fails with 502s since noon."},
    ]


def openai_responses(
    arguments: str = '{"query": "deployment 502", "limit": 3}',
    output: str = RUNBOOK,
) -> dict[str, Any]:
    """Responses API: `instructions`, flat function tools, and a function call in the `input`."""
    return {
        "model": "gpt-5.4",
        "instructions": GUIDE,
        "tools": [{"type": "function", **t["function"]} for t in openai_tools()],
        "input": [
            {"role": "user", "content": "Hi, I need help with my deployment."},
            {
                "type": "function_call",
                "call_id": "call_8f2a",
                "name": "search_docs",
                "arguments": arguments,
            },
            {"type": "function_call_output", "call_id": "call_8f2a", "output": output},
            {"role": "user", "content": "My deploy fails with 502s since noon."},
        ],
    }


def engine(extra_body: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """
    A vLLM / SGLang chat request as `EngineAdapter.to_request` builds it: engine-only fields
    (`cache_salt`, `chat_template_kwargs`) in `extra_body`, which the OpenAI SDK merges into the body.
    """
    request = openai(model="qwen3-8b", **extra)
    if extra_body is not None:
        request["extra_body"] = extra_body
    return request


def gemini_tools(tools: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    decls = [
        {"name": t["name"], "description": t["description"], "parameters": t["input_schema"]}
        for t in copy.deepcopy(tools if tools is not None else TOOLS)
    ]
    return [{"function_declarations": decls}]


def gemini(
    system: str = GUIDE,
    tools: list[dict[str, Any]] | None = None,
    contents: list[dict[str, Any]] | None = None,
    **config: Any,
) -> dict[str, Any]:
    """`client.models.generate_content(model=..., contents=..., config=...)` (implicit caching)."""
    return {
        "model": "gemini-2.5-flash",
        "contents": contents if contents is not None else gemini_turns(),
        "config": {"system_instruction": system, "tools": gemini_tools(tools), **config},
    }


def gemini_turns() -> list[dict[str, Any]]:
    return [
        {"role": "user", "parts": [{"text": "Hi, I need help with my deployment."}]},
        {
            "role": "model",
            "parts": [
                {
                    "function_call": {
                        "name": "search_docs",
                        "args": {"query": "deployment 502", "limit": 3},
                    }
                },
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "function_response": {
                        "name": "search_docs",
                        "response": {"result": "Runbook 4.2"},
                    }
                },
            ],
        },
        {"role": "model", "parts": [{"text": "Runbook 4.2 says the health check path moved."}]},
        {"role": "user", "parts": [{"text": "My deploy fails with 502s since noon."}]},
    ]


def with_header(header: str) -> str:
    """A system prompt that starts with a rendered header, as the stories' templates did."""
    return header + "\n\n" + GUIDE


# System sections kept in a dict or set and joined per request: the order can change.
PERSONA = "You are a support agent for Acme Cloud. Cite the runbook section you rely on. " * 20
POLICY = "Escalation: page on-call for sev1, open a ticket for sev2, never share notes. " * 20
STYLE = "Answer in short numbered steps and name the command the user should run next. " * 20


def anthropic_sections(*sections: str, **extra: Any) -> dict[str, Any]:
    """One system block per section, the last one marked (Claude Code style)."""
    request = anthropic(**extra)
    request["system"] = [{"type": "text", "text": text} for text in sections]
    request["system"][-1]["cache_control"] = {"type": "ephemeral"}
    return request


def openai_sections(*sections: str, **extra: Any) -> dict[str, Any]:
    """One system message per section before the conversation (LangChain stacks them so)."""
    request = openai(**extra)
    request["messages"][:1] = [{"role": "system", "content": text} for text in sections]
    return request


def next_turn(request: dict[str, Any], n: int) -> dict[str, Any]:
    """The Anthropic request of the following turn: answer n, question n + 1, the marker moved."""
    following = copy.deepcopy(request)
    following["messages"][-1]["content"][0].pop("cache_control", None)
    following["messages"] += [
        {"role": "assistant", "content": f"Answer {n}."},
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": f"Question {n + 1}?",
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        },
    ]
    return following
