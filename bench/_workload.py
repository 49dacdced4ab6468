"""A realistic agent request, built from plain data the way an application holds it."""

from __future__ import annotations

import random
from typing import Any

_WORDS = [
    "account",
    "balance",
    "invoice",
    "shipment",
    "tracking",
    "order",
    "refund",
    "policy",
    "customer",
    "warehouse",
    "carrier",
    "delivery",
    "address",
    "payment",
    "method",
    "subscription",
    "renewal",
    "discount",
    "coupon",
    "inventory",
    "product",
    "catalog",
    "review",
    "rating",
    "support",
    "ticket",
    "escalation",
    "priority",
    "agent",
    "handoff",
    "summary",
    "context",
]


def prose(rng: random.Random, tokens: int) -> str:
    """About `tokens` tokens of English-like text (roughly 4 characters a token)."""
    words: list[str] = []
    size = 0
    while size < tokens * 4:
        word = rng.choice(_WORDS)
        words.append(word + ("." if rng.random() < 0.08 else ""))
        size += len(word) + 1
    return " ".join(words)


def tool_spec(rng: random.Random, index: int) -> dict[str, Any]:
    properties = {
        f"field_{j}": {
            "type": "object",
            "description": prose(rng, 12),
            "properties": {
                "value": {
                    "type": rng.choice(["string", "integer", "number"]),
                    "description": prose(rng, 6),
                },
                "unit": {"type": "string", "enum": ["a", "b", "c"]},
                "filters": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"op": {"type": "string"}}},
                },
            },
            "required": ["value"],
        }
        for j in range(6)
    }
    return {
        "name": f"tool_{index:02d}_{rng.choice(_WORDS)}",
        "description": prose(rng, 60),
        "input_schema": {"type": "object", "properties": properties, "required": ["field_0"]},
    }


def turn(rng: random.Random, index: int) -> list[dict[str, Any]]:
    """One user/assistant exchange; every third turn carries a tool call and its result."""
    user: dict[str, Any] = {"role": "user", "content": prose(rng, 60)}
    if index % 3 == 0:
        call = {
            "type": "tool_use",
            "id": f"call_{index}",
            "name": "tool_01",
            "input": {"field_0": {"value": index}},
        }
        assistant = {
            "role": "assistant",
            "content": [{"type": "text", "text": prose(rng, 40)}, call],
        }
        result = {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": f"call_{index}", "content": prose(rng, 80)}
            ],
        }
        return [user, assistant, result, {"role": "assistant", "content": prose(rng, 60)}]
    return [user, {"role": "assistant", "content": prose(rng, 80)}]


def workload(seed: int = 7, turns: int = 50) -> dict[str, Any]:
    """40 tools with nested schemas, an ~8k-token system prompt, 3 ~10k-token documents, 50 turns."""
    rng = random.Random(seed)
    return {
        "tools": [tool_spec(rng, i) for i in range(40)],
        "system": prose(rng, 8000),
        "docs": [{"title": f"doc {i}", "text": prose(rng, 10000)} for i in range(3)],
        "history": [message for i in range(turns) for message in turn(rng, i)],
        "question": "Where is my order? " + prose(rng, 20),
    }
