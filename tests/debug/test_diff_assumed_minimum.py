"""
`diff`'s verdict rests on the model's minimum cacheable prefix ("cache kept" above it, "nothing
cached" under it). For a model no row of the minimum-token table names (a typo, a model with no
caching on the platform such as Llama 4 on Bedrock, a new one), or a request that names no model
at all, that minimum is the vendor's default, assumed: `inspect` said so, `diff` answered "cache
kept" as if it were the model's own. It says so too now, as it does for an opaque profile ARN.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptcache import diff
from promptcache.cli import main

POLICY = "Shipwell policy: refunds within thirty days of delivery, no questions asked. " * 150


def _messages(model: Any, question: str) -> dict[str, Any]:
    request: dict[str, Any] = {
        "max_tokens": 100,
        "system": [{"type": "text", "text": POLICY, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": question}],
    }
    if model is not None:
        request["model"] = model
    return request


def _converse(model: str, question: str) -> dict[str, Any]:
    return {
        "modelId": model,
        "system": [{"text": POLICY}, {"cachePoint": {"type": "default"}}],
        "messages": [{"role": "user", "content": [{"text": question}]}],
    }


@pytest.mark.parametrize(
    ("vendor", "build", "model"),
    [
        ("anthropic", _messages, "claude-nonexistent-9"),
        ("bedrock-converse", _converse, "meta.llama4-maverick-17b-instruct-v1:0"),
        ("vertex-anthropic", _messages, "claude-nonexistent-9@20260101"),
    ],
)
def test_an_unlisted_models_minimum_is_said_to_be_assumed(
    vendor: str, build: Any, model: str
) -> None:
    result = diff(build(model, "Where?"), build(model, "And?"), vendor=vendor)
    assert result.cause == "none" and not result.invalidated
    assert "in no row of the minimum-token table" in result.detail
    assert "assumed" in result.detail and "min_tokens" in result.detail


def test_a_request_naming_no_model_says_its_minimum_is_assumed() -> None:
    result = diff(_messages(None, "Where?"), _messages(None, "And?"), vendor="anthropic")
    assert "request a names no model" in result.detail and "assumed" in result.detail


@pytest.mark.parametrize(
    ("vendor", "build", "model"),
    [
        ("anthropic", _messages, "claude-sonnet-4-5"),
        ("bedrock-converse", _converse, "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        ("vertex-anthropic", _messages, "claude-sonnet-4-5@20250929"),
    ],
)
def test_a_listed_model_carries_no_such_note(vendor: str, build: Any, model: str) -> None:
    result = diff(build(model, "Where?"), build(model, "And?"), vendor=vendor)
    assert "assumed" not in result.detail


def test_the_command_says_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = "meta.llama4-maverick-17b-instruct-v1:0"
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_converse(model, "Where?")))
    b.write_text(json.dumps(_converse(model, "And?")))
    assert main(["diff", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "cache kept" in out and "assumed" in out
