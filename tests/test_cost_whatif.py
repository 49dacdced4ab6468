"""`promptcache cost` what-if mode: a workload priced before any traffic, no response files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptcache.cli import main

BASIC = ["cost", "--prefix-tokens", "10000", "--tail-tokens", "200", "--requests", "100"]
SEED = [*BASIC, "--write-multiplier", "1.25", "--read-multiplier", "0.1"]
DAY = ["--price-date", "2026-11-30"]


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert main([*argv, "--format", "json"]) == 0, capsys.readouterr().err
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_basic_form_gives_the_seed_figures(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, SEED)
    assert out["no_cache"] == 1_020_000
    assert out["with_cache"] == 131_500
    assert round(out["savings"], 3) == 0.871
    assert out["break_even_requests"] == 2
    assert out["unit"] == "base-input tokens"


def test_one_hour_write_breaks_even_at_three(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, [*BASIC, "--write-multiplier", "2", "--read-multiplier", "0.1"])
    assert out["break_even_requests"] == 3


def test_human_output_is_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(SEED) == 0
    out = capsys.readouterr().out
    assert "1,020,000" in out and "131,500" in out and "87.1%" in out
    assert "N > 1.28 (2 requests)" in out


def test_ttl_options_against_gaps(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*SEED[:-4], "--read-multiplier", "0.1", "--ttl", "5m=1.25", "--ttl", "1h=2"]
    out = _json(capsys, [*argv, "--gaps", "10m"])
    assert out["best_ttl"] == "1h"
    assert [o["option"] for o in out["ttl_options"]] == ["5m", "1h"]
    assert [b["requests"] for b in out["break_even"]] == [2, 3]
    assert out["prewarm"]["traffic"] == "bursty"
    out = _json(capsys, [*argv, "--gaps", "30"])
    assert out["best_ttl"] == "5m" and out["prewarm"]["traffic"] == "continuous"


def test_gpt_4o_prices_with_its_sources(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, [*BASIC, "--model", "gpt-4o", *DAY])
    assert out["vendor"] == "openai" and out["currency"] == "USD"
    assert out["no_cache"] == pytest.approx(100 * 10_200 * 2.5 / 1e6)
    assert out["with_cache"] == pytest.approx(
        (10_200 * 2.5 + 99 * (10_000 * 1.25 + 200 * 2.5)) / 1e6
    )
    assert [o["option"] for o in out["ttl_options"]] == ["in_memory", "24h"]
    assert any("5-10 minutes" in note for note in out["notes"])
    for figure in ("input", "output", "read"):
        price = out["prices"][figure]
        assert price["origin"] == "genai-prices" and price["as_of"] == "2026-11-30"
        assert price["detail"].startswith("genai-prices ")


def test_anthropic_model_compares_its_ttls(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, [*BASIC, "--model", "claude-sonnet-4-6", "--gaps", "20m", *DAY])
    assert [o["option"] for o in out["ttl_options"]] == ["5m", "1h"]
    assert out["best_ttl"] == "1h"
    assert {b["option"]: b["requests"] for b in out["break_even"]} == {"5m": 2, "1h": 3}


def test_gemini_model_compares_explicit_and_implicit(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(capsys, [*BASIC, "--model", "gemini-2.5-pro", *DAY])
    assert out["gemini"]["explicit"]["storage"] == pytest.approx(10_000 * 4.5 / 1e6)
    assert out["prices"]["storage_per_hour"]["origin"] == "table"
    assert out["prices"]["input"]["origin"] == "genai-prices"
    assert any("does not guarantee hits" in note for note in out["notes"])


def test_switch_and_cascade(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*BASIC, "--model", "claude-haiku-4-5", *DAY]
    out = _json(capsys, [*argv, "--switch-to", "claude-opus-5", "--cascade-to", "claude-opus-5"])
    # Opus 5: write 6.25, read 0.50 per million; its first request writes the prefix again.
    assert out["switch"]["cold_penalty"] == pytest.approx(10_000 * (6.25 - 0.5) / 1e6)
    assert out["switch"]["switch_at_request"] == 51
    assert out["cascade"]["escalated_requests"] == 30
    assert out["cascade"]["large_model_cold_writes"] == 1


def test_below_the_minimum_nothing_is_cached(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["cost", "--prefix-tokens", "2000", "--requests", "10", "--model", "claude-haiku-4-5"]
    out = _json(capsys, [*argv, *DAY])
    assert out["min_tokens"] == 4096
    assert out["with_cache"] == out["no_cache"] and out["savings"] == 0
    assert any("below" in note for note in out["notes"])


def test_an_override_file_wins_and_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "prices.json"
    path.write_text(
        json.dumps({"as_of": "2027-02-01", "vendors": {"openai": {"gpt-4o": {"input": 2.0}}}})
    )
    out = _json(capsys, [*BASIC, "--model", "gpt-4o", "--prices", str(path), *DAY])
    assert out["prices"]["input"]["per_million"] == 2.0
    assert out["prices"]["input"]["origin"] == "override"
    assert out["prices"]["input"]["as_of"] == "2027-02-01"
    assert out["prices"]["read"]["origin"] == "genai-prices"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["cost"], "needs response FILEs to price, or --prefix-tokens"),
        (["cost", "--prefix-tokens", "10"], "needs --write-multiplier and --read-multiplier"),
        ([*SEED, "--requests", "3", "--gaps", "1,2,3"], "3 gaps given for 3 requests"),
        ([*SEED, "--gaps", "60"], "--gaps needs a TTL"),
        ([*SEED, "--ttl", "soon"], "cannot read TTL 'soon'"),
        ([*BASIC, "--model", "qwen3-32b"], "pass --vendor"),
        ([*BASIC, "--model", "claude-unknown-9"], "no price for anthropic model"),
        ([*SEED, "--cascade-to", "claude-opus-5"], "pass --model too"),
        ([*BASIC, "--model", "gpt-4o", "--price-date", "soon"], "not a date"),
        (["cost", "--prefix-tokens", "10", "r.json"], "not both"),
        (["cost", "missing.json"], "cannot read 'missing.json'"),
    ],
)
def test_bad_input_is_a_usage_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_multipliers_with_a_model_price_a_custom_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _json(capsys, [*SEED, "--model", "claude-sonnet-4-6", *DAY])
    assert out["option"] == "custom"
    assert out["no_cache"] == pytest.approx(1_020_000 * 3.0 / 1e6)
    assert out["with_cache"] == pytest.approx(131_500 * 3.0 / 1e6)  # the seed, in dollars
    assert [o["option"] for o in out["ttl_options"]] == ["5m", "1h"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--vendor", "anthropic"], "--vendor is about model prices"),
        (["--prices", "p.json"], "--prices is about model prices"),
        (["--model", "claude-sonnet-4-6", "--ttl", "5m=1.25"], "--ttl defines options"),
    ],
)
def test_flags_that_would_be_ignored_are_errors(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*SEED, *extra]) == 2
    assert message in capsys.readouterr().err
