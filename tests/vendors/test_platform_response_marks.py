"""
A response names the platform that answered even where its body is the first-party format: a
Claude message id is `msg_vrtx_...` from Vertex AI and `msg_bdrk_...` from Bedrock (plain `msg_`
from Anthropic's API), and Azure OpenAI adds `prompt_filter_results` (its content filter) to a
Chat Completions answer. `cost` detected every one of them as the first-party API, priced it at
that API's rows and, given `--location`, answered that the location was "left out"; it now reads
the platform (`--vendor` still wins).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptcache.cli import main
from promptcache.vendors import detect_response_vendor


def _claude(message_id: str) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": 12,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 3000,
            "output_tokens": 40,
        },
    }


def _chat(**extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o-2024-11-20",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}],
        "usage": {
            "prompt_tokens": 3000,
            "completion_tokens": 10,
            "prompt_tokens_details": {"cached_tokens": 2048},
        },
        **extra,
    }


@pytest.mark.parametrize(
    ("response", "vendor"),
    [
        (_claude("msg_vrtx_01AbCdEfGhIjKlMnOpQrStUv"), "vertex-anthropic"),
        (_claude("msg_bdrk_01AbCdEfGhIjKlMnOpQrStUv"), "bedrock-invoke"),
        (_claude("msg_01AbCdEfGhIjKlMnOpQrStUv"), "anthropic"),
        (
            _chat(prompt_filter_results=[{"prompt_index": 0, "content_filter_results": {}}]),
            "azure-openai",
        ),
        (_chat(), "openai"),
    ],
)
def test_the_platform_is_read_from_the_response(response: dict[str, Any], vendor: str) -> None:
    assert detect_response_vendor(response).name == vendor


def test_cost_prices_a_vertex_answer_at_its_location(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "reply.json"
    path.write_text(json.dumps(_claude("msg_vrtx_01AbCdEfGhIjKlMnOpQrStUv")))
    assert main(["cost", str(path), "--location", "us-east5", "--format", "json"]) == 0
    [priced] = json.loads(capsys.readouterr().out)["responses"]
    notes = priced["cost"]["notes"]
    assert any("regional rate (us-east5)" in n for n in notes)
    assert not any("left out" in n for n in notes)
    assert main(["cost", str(path), "--vendor", "anthropic", "--location", "us-east5"]) == 0
    assert "left out" in capsys.readouterr().out  # the vendor named still wins


def test_a_location_left_out_says_how_to_price_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "reply.json"
    path.write_text(json.dumps(_claude("msg_01AbCdEfGhIjKlMnOpQrStUv")))
    assert main(["cost", str(path), "--location", "us-east5"]) == 0
    out = capsys.readouterr().out
    assert "left out" in out and "--vendor vertex-anthropic" in out
