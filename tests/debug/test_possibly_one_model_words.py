"""
A switch between two names of one model is a *possible* `model_changed`, and the detail says why
it is only possible. The reason given, "a profile may route to another region", is Bedrock's
(cross-region inference profiles); on Vertex AI, where the two names are a short model name and
its publisher path, it was a wrong reason. Each platform now gives only its own.
"""

from __future__ import annotations

from typing import Any

from promptcache import diff

POLICY = "Shipwell policy: refunds within thirty days. " * 200


def _vertex(model: str, question: str) -> dict[str, Any]:
    return {
        "anthropic_version": "vertex-2023-10-16",
        "model": model,
        "max_tokens": 100,
        "system": [{"type": "text", "text": POLICY, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": question}],
    }


def _converse(model: str, question: str) -> dict[str, Any]:
    return {
        "modelId": model,
        "system": [{"text": POLICY}, {"cachePoint": {"type": "default"}}],
        "messages": [{"role": "user", "content": [{"text": question}]}],
    }


def test_vertex_names_no_profile_routing() -> None:
    path = "projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929"
    result = diff(_vertex("claude-sonnet-4-5@20250929", "a"), _vertex(path, "b"))
    assert result.detail.startswith("possibly model_changed")
    assert "profile" not in result.detail and "region" not in result.detail


def test_bedrock_keeps_its_reason() -> None:
    result = diff(
        _converse("anthropic.claude-sonnet-4-5-20250929-v1:0", "a"),
        _converse("eu.anthropic.claude-sonnet-4-5-20250929-v1:0", "b"),
    )
    assert "a profile may route to another region" in result.detail
