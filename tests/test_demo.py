"""`promptcache demo`: the session against the emulation, its JSON contract, and its errors."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from promptcache.cli import EXIT_CLOSED_PIPE, main
from promptcache.sim import EMULATION

SDKS = {
    "anthropic": "anthropic",
    "openai": "openai",
    "openai-responses": "openai",
    "vLLM": "openai",  # an alias, in any case
    "gemini": "google.genai",
}


@pytest.mark.parametrize("vendor", sorted(SDKS))
def test_json_shows_savings_then_the_planted_miss(
    vendor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip(SDKS[vendor], reason=f"{SDKS[vendor]} is not installed")
    assert main(["demo", "--vendor", vendor, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["emulation"] is True and report["label"] == EMULATION
    requests = report["requests"]
    assert len(requests) >= 6 and requests[-1]["broken"] and not requests[-2]["broken"]
    assert requests[0]["cache_read"] == 0
    assert all(r["cache_read"] > 0 for r in requests[1:-1])  # every later turn reads the cache
    session = report["session"]
    assert session["cache_read"] / session["total_input"] > 0.7
    if vendor != "vLLM":  # self-hosted: no prices
        assert session["cost"] < 0.5 * session["cost_without_cache"]
    assert report["invalidation"]["cause"] == "timestamp"
    assert report["diff"]["cause"] == "timestamp" and report["diff"]["layer"] == "system"


def test_text_output_labels_the_emulation(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("anthropic")
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "EMULATED" in out and "saved" in out and "cause timestamp" in out
    assert EMULATION in out.replace("\n", " ")


def test_a_missing_sdk_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # import anthropic -> ImportError
    assert main(["demo"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'promptcache-sdk[anthropic]'" in err and "Traceback" not in err


def test_an_unknown_vendor_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--vendor", "palm"]) == 2
    assert "unknown vendor 'palm'" in capsys.readouterr().err


def _euro_prices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user price file in EUR: the demo's figures are in EUR, and no dollar sign is shown."""
    prices = tmp_path / "prices.json"
    row = {"input": 2.8, "output": 14.0, "read": 0.28, "write_5m": 3.5, "write_1h": 5.6}
    prices.write_text(
        json.dumps({"currency": "EUR", "vendors": {"anthropic": {"claude-sonnet-4-6": row}}})
    )
    monkeypatch.setenv("PROMPTCACHE_PRICES", str(prices))


def test_text_output_shows_the_price_tables_currency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("anthropic")
    _euro_prices(tmp_path, monkeypatch)
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "$" not in out, out
    assert re.search(r"Cost [\d.]+ EUR instead of [\d.]+ EUR without caching", out), out
    assert re.search(r"│ [\d.]+ EUR │ +[\d.]+ EUR │", out), out


def test_json_output_names_the_currency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("anthropic")
    assert main(["demo", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["currency"] == "USD"
    _euro_prices(tmp_path, monkeypatch)
    assert main(["demo", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["currency"] == "EUR"


def test_a_self_hosted_session_has_no_currency(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openai")
    assert main(["demo", "--vendor", "engine", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["currency"] is None and report["session"]["cost"] is None


def test_an_unknown_vendor_typed_as_a_word_is_quoted(capsys: pytest.CaptureFixture[str]) -> None:
    # The value was typed on the command line: the error quotes it, capitalised or not (a name
    # read from a request that reads like a word is shown by its hash instead).
    assert main(["demo", "--vendor", "Palm"]) == 2
    assert "unknown vendor 'Palm'; use one of anthropic" in capsys.readouterr().err


@pytest.mark.parametrize("form", ["json", "text"])
def test_a_reader_that_closes_the_pipe_ends_the_demo_quietly(form: str) -> None:
    """`promptcache demo --format json | head -c 700` said "internal error: BrokenPipeError"
    in 3 runs of 8 (text: exit 1). Here the reader closes its end before the demo writes."""
    import os
    import subprocess

    pytest.importorskip("anthropic")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    read_end, write_end = os.pipe()
    os.close(read_end)  # `head` already gone: every write is EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "promptcache", "demo", "--format", form],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    # quiet, and the status of a process the closed pipe stopped (cli.EXIT_CLOSED_PIPE, 128 + 13)
    assert done.stderr == "" and done.returncode == EXIT_CLOSED_PIPE, done.stderr
