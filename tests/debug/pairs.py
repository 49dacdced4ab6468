"""
Realistic request pairs, one per story in reference/peers.md §4, in three vendor shapes.

Each builder returns SDK keyword arguments. The stable prefix is large enough to be worth
caching; `variant` tweaks one thing, the way the story's bug did.
"""

from __future__ import annotations

import copy
from typing import Any

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


def _anthropic_turns(
    question: str = "My deploy fails with 502s since noon.",
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
                    "content": "Runbook 4.2: 502s after deploy usually mean the health check path moved.",
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
) -> list[dict[str, Any]]:
    return _anthropic_turns(question)


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
            "content": "Runbook 4.2: 502s after deploy usually mean the health check path moved.",
        },
        {"role": "assistant", "content": "Runbook 4.2 says the health check path may have moved."},
        {"role": "user", "content": "My deploy fails with 502s since noon."},
    ]


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
