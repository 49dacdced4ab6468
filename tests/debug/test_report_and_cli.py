"""`promptcache report` over a JSONL log, and `promptcache diff` on files."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptcache._report import build_report
from promptcache.cli import main

from . import pairs
from .sim import AnthropicSim


def _log(sessions: int = 3, turns: int = 5) -> Iterator[str]:
    """Sessions on a simulated Anthropic cache; session 1 renders the clock at turn 3."""
    for s in range(sessions):
        sim, request, at = AnthropicSim(), pairs.anthropic(), 1_764_000_000.0 + s
        for n in range(turns):
            if s == 1 and n == 3:
                request["system"][0]["text"] = pairs.with_header("Time: 20:41:07")
            at += 30
            response = sim.respond(request, at)
            yield json.dumps(
                {
                    "vendor": "anthropic",
                    "key": f"s{s}",
                    "at": at,
                    "request": request,
                    "response": response,
                }
            )
            request = pairs.next_turn(request, n)


@pytest.fixture
def log_file(tmp_path: Path) -> Path:
    path = tmp_path / "calls.jsonl"
    path.write_text("\n".join(_log()) + "\n")
    return path


def test_report_totals_and_causes() -> None:
    report = build_report(_log())
    assert report.records == 15
    assert report.cache_read > 0 and report.cache_write > 0
    assert report.hit_rate is not None and 0.4 < report.hit_rate < 0.9
    assert [(c.cause, c.events) for c in report.invalidations] == [("timestamp", 1)]
    assert report.cost is not None and report.savings is not None and report.savings > 0
    cause = report.invalidations[0]
    assert cause.tokens_lost > 1500 and cause.cost_lost is not None and cause.cost_lost > 0


def test_report_prices_in_the_price_tables_currency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prices = tmp_path / "prices.json"
    eur = {"input": 2.8, "output": 14.0, "read": 0.28, "write_5m": 3.5}
    prices.write_text(
        json.dumps({"currency": "EUR", "vendors": {"anthropic": {"claude-sonnet-4-6": eur}}})
    )
    monkeypatch.setenv("PROMPTCACHE_PRICES", str(prices))
    report = build_report(_log(sessions=1))
    assert report.cost is not None and report.currency == "EUR"
    assert report.to_json()["cost"]["currency"] == "EUR"


def test_report_orders_costliest_first() -> None:
    lines = list(_log(sessions=2))
    extra = []
    for s in range(3):  # three sessions that each lose their cache to a TTL gap
        sim, request = AnthropicSim(), pairs.anthropic()
        for n, at in enumerate((0.0, 30.0, 2000.0)):
            extra.append(
                json.dumps(
                    {
                        "vendor": "anthropic",
                        "key": f"ttl{s}",
                        "at": at,
                        "request": request,
                        "response": sim.respond(request, at),
                    }
                )
            )
            request = pairs.next_turn(request, n)
    report = build_report([*lines, *extra])
    assert [c.cause for c in report.invalidations] == ["ttl_expired", "timestamp"]


def test_report_cli_json(log_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(log_file), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["records"] == 15 and data["invalidations"][0]["cause"] == "timestamp"
    assert set(data) == {
        "records",
        "hit_rate",
        "tokens",
        "cost",
        "invalidations",
        "skipped",
        "by",
        "groups",
        "vendor_side",
    }


def test_report_cli_text(log_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(log_file)]) == 0
    out = capsys.readouterr().out
    assert "hit rate" in out and "timestamp" in out and "saved" in out


def test_report_bad_line_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(next(_log()) + "\n{not json\n")
    assert main(["report", str(path), "--strict"]) == 2
    err = capsys.readouterr().err
    assert "line 2: not valid JSON" in err and "Traceback" not in err


def test_report_names_a_request_that_is_not_an_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "scalar.jsonl"
    record = json.loads(next(_log()))
    path.write_text(json.dumps({**record, "vendor": "openai", "request": -1}) + "\n")
    assert main(["report", str(path), "--strict"]) == 2
    err = capsys.readouterr().err
    assert "line 1: 'request' must be an object" in err and "internal error" not in err


def test_report_detects_a_vendor_the_record_does_not_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "novendor.jsonl"
    record = json.loads(next(_log()))
    del record["vendor"]
    path.write_text(json.dumps(record) + "\n")
    assert main(["report", str(path)]) == 0
    assert main(["report", str(path), "--vendor", "Anthropic"]) == 0
    # a shape that fits several formats equally is an error naming them, not a guess
    bare = {"request": {"messages": [{"role": "user", "content": "hi"}]}, "usage": {}}
    path.write_text(json.dumps(bare) + "\n")
    assert main(["report", str(path), "--strict"]) == 2
    assert "line 1: this request could be" in capsys.readouterr().err


def test_report_streams_in_constant_memory() -> None:
    record = json.loads(next(_log()))

    def lines(n: int) -> Iterator[str]:
        for i in range(n):
            yield json.dumps(dict(record, key=f"k{i % 50}", at=float(i)))

    def peak(n: int) -> int:
        tracemalloc.start()
        build_report(lines(n))
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    small, large = peak(300), peak(3000)
    assert large < small * 1.5, (small, large)


# -- diff on the command line ---------------------------------------------------------------


def _write(tmp_path: Path, name: str, body: dict[str, Any]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(body))
    return str(path)


def test_diff_cli_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path, "a.json", pairs.anthropic(system=pairs.with_header("At 10:00:01")))
    b = _write(tmp_path, "b.json", pairs.anthropic(system=pairs.with_header("At 10:00:02")))
    assert main(["diff", a, b, "--vendor", "anthropic", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert list(data) == pairs.DIFF_JSON_KEYS
    assert (
        data["cause"] == "timestamp" and data["path"] == "system[0].text" and data["offset"] == 10
    )


def test_diff_cli_text_marks_the_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A model whose 1,024-token minimum the ~1,750-token pair is over (Gemini 2.5 Flash: 2,048)
    flash = {"model": "gemini-3-flash"}
    a = _write(
        tmp_path, "a.json", {**pairs.gemini(system=pairs.with_header("At 10:00:01")), **flash}
    )
    b = _write(
        tmp_path, "b.json", {**pairs.gemini(system=pairs.with_header("At 10:00:02")), **flash}
    )
    assert main(["diff", a, b, "--vendor", "gemini"]) == 1
    out = capsys.readouterr().out
    assert "cache invalidated (gemini): timestamp in system" in out
    assert "[-1-]" in out and "{+2+}" in out and "\x1b[" not in out
    assert main(["diff", a, b, "--vendor", "gemini", "--color", "always"]) == 1
    assert "\x1b[31m" in capsys.readouterr().out


def test_diff_cli_clean_exit_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path, "a.json", pairs.openai())
    b = _write(tmp_path, "b.json", pairs.openai(temperature=0))
    assert main(["diff", a, b, "--vendor", "openai", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["invalidated"] is False


def test_diff_cli_errors_are_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    good = _write(tmp_path, "a.json", pairs.openai())
    assert main(["diff", good, str(bad)]) == 2
    err = capsys.readouterr().err
    assert "holds a JSON list; expected a JSON object of SDK keyword arguments" in err
    assert "Traceback" not in err
    assert main(["diff", good, str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["diff", good, good, "--vendor", "palm"]) == 2


def test_report_record_without_request_names_line_and_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"x": 1}\n')
    assert main(["report", str(log), "--vendor", "anthropic", "--strict"]) == 2
    err = capsys.readouterr().err
    assert "line 1: expected an object with 'request' and 'response' keys" in err
    assert "got an object with keys 'x'" in err and "Traceback" not in err


def test_every_cause_that_loses_cache_has_a_fix_line() -> None:
    from promptcache._commands.diff import _FIXES
    from promptcache.debug.causes import CAUSES

    assert set(CAUSES) - {"none"} == set(_FIXES)


def _short_marked(day: str, text: str = "You are a helpful assistant.") -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "system": [
            {
                "type": "text",
                "text": f"{text} Today is {day}.",
                "cache_control": {"type": "ephemeral"},
            }
        ],
        "messages": [{"role": "user", "content": "hi"}],
    }


def test_diff_cli_says_a_prefix_under_the_minimum_was_never_cached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _write(tmp_path, "a.json", _short_marked("2026-11-29"))
    b = _write(tmp_path, "b.json", _short_marked("2026-11-30"))
    assert main(["diff", a, b, "--vendor", "anthropic"]) == 1
    out = capsys.readouterr().out
    assert "nothing cached (anthropic): a's cached prefix is under the model's minimum" in out
    assert "tokens lost" not in out and "1024-token minimum for claude-sonnet-4-5" in out
    assert main(["diff", a, b, "--vendor", "anthropic", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["cause"], data["invalidated"], data["tokens_lost"]) == ("below_minimum", False, 0)


def test_diff_cli_says_a_loss_near_the_minimum_is_uncertain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prose = "The controller reconciles desired and observed state. " * 72
    a = _write(tmp_path, "a.json", _short_marked("2026-11-29", prose))
    b = _write(tmp_path, "b.json", _short_marked("2026-11-30", prose))
    assert main(["diff", a, b, "--vendor", "anthropic"]) == 1
    out = capsys.readouterr().out
    assert "if a was cached (uncertain: its prefix is near the model's minimum)" in out
    assert main(["diff", a, b, "--vendor", "anthropic", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["tokens_lost"] is None


def test_report_keeps_128_mib_of_bodies_by_default(
    log_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the report holds copies of the bodies; dropping one past the budget costs a parse and a
    # hash, which was most of the time on busy full-content logs (bench/bench_report.py)
    from promptcache._commands import report as command

    budgets: list[int] = []
    real = command.ReportBuilder

    def spy(**kwargs: Any) -> Any:
        budgets.append(kwargs["body_budget"])
        return real(**kwargs)

    monkeypatch.setattr(command, "ReportBuilder", spy)
    assert main(["report", str(log_file)]) == 0
    assert main(["report", str(log_file), "--max-body-bytes", "1000"]) == 0
    assert budgets == [128 * 1024 * 1024, 1000]


def test_a_body_over_the_budget_is_judged_from_its_hashes(
    log_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(log_file), "--format", "json"]) == 0
    kept = json.loads(capsys.readouterr().out)["invalidations"]
    assert main(["report", str(log_file), "--format", "json", "--max-body-bytes", "0"]) == 0
    hashed = json.loads(capsys.readouterr().out)["invalidations"]
    assert [c["cause"] for c in kept] == ["timestamp"]
    assert [c["cause"] for c in hashed] == ["content_changed"]  # the element, not the field
