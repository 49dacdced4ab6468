"""A negative token count is refused by every usage reader, naming the field: never priced."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptcache._errors import InputError
from promptcache.cli import main
from promptcache.vendors import get_vendor

CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "anthropic",
        {"usage": {"input_tokens": -5, "output_tokens": 10, "cache_read_input_tokens": 100}},
        "input_tokens",
    ),
    (
        "openai",
        {
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 10,
                "prompt_tokens_details": {"cached_tokens": -3},
            }
        },
        "cached_tokens",
    ),
    (
        "openai-responses",
        {
            "usage": {
                "input_tokens": 100,
                "output_tokens": 10,
                "input_tokens_details": {"cached_tokens": -3},
            }
        },
        "cached_tokens",
    ),
    (
        "bedrock-converse",
        {
            "usage": {
                "inputTokens": 100,
                "outputTokens": 10,
                "cacheReadInputTokens": 50,
                "cacheWriteInputTokens": -1,
            }
        },
        "cacheWriteInputTokens",
    ),
    (
        "gemini",
        {"usageMetadata": {"promptTokenCount": -100, "candidatesTokenCount": 5}},
        "promptTokenCount",
    ),
]


@pytest.mark.parametrize(("vendor", "response", "field"), CASES, ids=[c[0] for c in CASES])
def test_reader_refuses_negative_count(vendor: str, response: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError, match=rf"{field}.*negative \(-\d+\)"):
        get_vendor(vendor).read_usage(response)


def test_cost_exits_2_on_a_negative_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    response = {"model": "gpt-4o", **CASES[1][1]}
    path.write_text(json.dumps(response))
    assert main(["cost", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cached_tokens" in err and "negative" in err and "Traceback" not in err


def _huge(value: Any) -> Any:
    """The response with each negative count replaced by ten billion."""
    if isinstance(value, dict):
        return {k: _huge(v) for k, v in value.items()}
    return 10**10 if isinstance(value, int) and value < 0 else value


@pytest.mark.parametrize(("vendor", "response", "field"), CASES, ids=[c[0] for c in CASES])
def test_reader_refuses_a_count_no_context_window_holds(
    vendor: str, response: dict[str, Any], field: str
) -> None:
    # 10**10 tokens in one request: no model's window holds it; priced, it was $60,000 of input
    with pytest.raises(InputError, match=rf"{field}.*10000000000"):
        get_vendor(vendor).read_usage(_huge(response))


def test_cost_of_a_huge_count_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"model": "claude-sonnet-4-5", "usage": {"input_tokens": 10**18}}))
    assert main(["cost", str(path)]) == 2
    assert "input_tokens" in capsys.readouterr().err
