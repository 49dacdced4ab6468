"""`promptcache cost`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcache.cli import main


def _write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_cost_prices_a_response_and_sums(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    response = {
        "model": "claude-sonnet-4-6",
        "usage": {
            "input_tokens": 0,
            "cache_read_input_tokens": 1_000_000,
            "cache_creation_input_tokens": 0,
            "output_tokens": 0,
        },
    }
    file = _write(tmp_path, "r.json", response)
    assert main(["cost", "--vendor", "anthropic", "--format", "json", file, file]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["responses"][0]["cost"]["actual"] == pytest.approx(0.30)
    assert out["total"]["without_cache"] == pytest.approx(6.0)
    assert out["total"]["savings"] == pytest.approx(5.4)
    read = out["responses"][0]["prices"]["read"]
    assert (read["per_million"], read["origin"]) == (0.3, "genai-prices")
    assert read["as_of"]  # the day genai-prices was asked about


def test_cost_needs_a_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = _write(tmp_path, "u.json", {"usage": {"input_tokens": 1, "output_tokens": 1}})
    assert main(["cost", "--vendor", "anthropic", file]) == 2
    assert "pass --model" in capsys.readouterr().err
    assert main(["cost", "--vendor", "anthropic", "--model", "claude-haiku-4-5", file]) == 0
    assert "total: USD" in capsys.readouterr().out


def test_cost_detects_the_api_from_the_response(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    anthropic = {
        "type": "message",
        "model": "claude-sonnet-4-6",
        "usage": {"input_tokens": 10, "cache_read_input_tokens": 100, "output_tokens": 1},
    }
    chat = {
        "object": "chat.completion",
        "model": "gpt-5.4",
        "usage": {"prompt_tokens": 110, "completion_tokens": 1, "total_tokens": 111},
    }
    files = [_write(tmp_path, "a.json", anthropic), _write(tmp_path, "c.json", chat)]
    assert main(["cost", "--format", "json", *files]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["usage"]["cache_read"] for r in out["responses"]] == [100, None]
    assert main(["cost", "--vendor", "CLAUDE", files[0]]) == 0  # an alias, in any case


def test_cost_refuses_a_response_whose_api_it_cannot_tell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = _write(tmp_path, "x.json", {"model": "my-model", "tokens": 3})
    assert main(["cost", file]) == 2
    assert "cannot tell which API answered" in capsys.readouterr().err


def test_a_response_without_output_tokens_costs_unknown_not_its_input_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    usage = {"input_tokens": 0, "cache_read_input_tokens": 1_000_000, "output_tokens": 2_000}
    known = {"model": "claude-sonnet-4-6", "usage": usage}
    stripped = {"model": "claude-sonnet-4-6", "usage": {**usage}}
    del stripped["usage"]["output_tokens"]  # type: ignore[attr-defined]
    files = [_write(tmp_path, "known.json", known), _write(tmp_path, "stripped.json", stripped)]
    assert main(["cost", "--vendor", "anthropic", "--format", "json", *files]) == 0
    out = json.loads(capsys.readouterr().out)
    first, second = out["responses"]
    assert second["usage"]["output"] is None and "output" not in second["cost"]["breakdown"]
    assert second["cost"]["actual"] is None and second["cost"]["without_cache"] is None
    assert second["cost"]["savings"] == pytest.approx(first["cost"]["savings"]) == 5.4 / 2
    total = out["total"]
    assert (total["actual"], total["without_cache"], total["output_unreported"]) == (None, None, 1)
    assert total["savings"] == pytest.approx(5.4)
    assert main(["cost", "--vendor", "anthropic", *files]) == 0
    text = capsys.readouterr().out
    assert "out unknown  USD unknown (output tokens not reported)" in text
    assert "total: USD unknown: 1 of 2 responses did not report their output tokens" in text


@pytest.mark.parametrize("form", ["text", "json"])
def test_cost_says_when_a_response_did_not_report_caching(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    """No cache fields: all input is priced as uncached, and a 0 saving is not a measured one;
    `cost()`'s note says so, and the command must pass it on rather than drop it."""
    response = {"model": "gpt-4o", "usage": {"prompt_tokens": 1000, "completion_tokens": 10}}
    file = _write(tmp_path, "r.json", response)
    assert main(["cost", "--vendor", "openai", "--format", form, file]) == 0
    out = capsys.readouterr().out
    note = "caching not reported: all input priced as uncached"
    if form == "json":
        assert json.loads(out)["responses"][0]["cost"]["notes"] == [note]
    else:
        assert f"  note: {note}\n" in out, out
