"""`report --html`: one self-contained page, checked in real headless Chromium (Playwright)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from promptcache import Monitor, Recorder
from promptcache.cli import main

from . import pairs
from .sim import AnthropicSim
from .test_report_and_cli import _log

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
NAME, EMAIL = "Zebulon Quackenbush", "zebulon.quackenbush@example.org"


def _browser() -> Any:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail("CI must install Debian's chromium (.ci/run does)")
        pytest.skip("no /usr/bin/chromium (apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    return sync_api.sync_playwright()


def _open(page_file: Path) -> tuple[dict[str, Any], list[str], list[str]]:
    """The page's figures as the browser shows them, its console errors, and any fetch."""
    errors: list[str] = []
    fetched: list[str] = []
    with _browser() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: fetched.append(r.url))
            page.goto(page_file.as_uri())
            shown = {
                "records": page.inner_text("#records"),
                "hit_rate": page.inner_text("#hit-rate"),
                "invalidations": page.inner_text("#invalidations"),
                "causes": page.eval_on_selector_all(
                    "#causes tr[data-cause]",
                    "rows => rows.map(r => [r.dataset.cause, Number(r.dataset.events)])",
                ),
                "keys": page.eval_on_selector_all(
                    "#keys tr[data-key]", "rows => rows.map(r => r.dataset.key)"
                ),
                "worst": page.eval_on_selector_all(
                    "#worst tr.worst", "rows => rows.map(r => r.innerText)"
                ),
                "charts": page.locator("svg[role=img]").count(),
                "text": page.inner_text("body"),
            }
        finally:
            browser.close()
    return shown, errors, [u for u in fetched if not u.startswith("file://")]


def test_the_page_shows_the_json_reports_figures_offline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(_log()) + "\n")
    page = tmp_path / "report.html"
    assert main(["report", str(log), "--format", "json", "--html", str(page), "--clear-keys"]) == 0
    data = json.loads(capsys.readouterr().out)
    shown, errors, fetched = _open(page)
    assert errors == [] and fetched == []
    assert shown["records"] == f"{data['records']:,}"
    assert shown["hit_rate"] == f"{data['hit_rate']:.1%}"
    assert shown["causes"] == [[c["cause"], c["events"]] for c in data["invalidations"]]
    assert shown["invalidations"] == str(sum(c["events"] for c in data["invalidations"]))
    assert sorted(shown["keys"]) == ["s0", "s1", "s2"]
    assert shown["charts"] == 4  # hit rate, cost; server-side misses by size and by gap
    (worst,) = shown["worst"]
    assert "timestamp" in worst and "Time: 20:41:07" in worst  # the log holds the prompt text


def test_a_hashed_log_puts_no_prompt_text_in_the_page(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    with Recorder(log) as recorder:
        monitor = Monitor("anthropic", metrics=False, recorder=recorder)
        sim, request, at = AnthropicSim(), pairs.anthropic(), 1_764_000_000.0
        request["system"][0]["text"] = f"Customer {NAME} <{EMAIL}>. " + pairs.GUIDE
        for n in range(5):
            if n == 3:
                request["system"][0]["text"] = "Now: 20:41:07. " + request["system"][0]["text"]
            at += 30
            monitor.observe(request, sim.respond(request, at), at=at, key="session-1")
            request = pairs.next_turn(request, n)
    page = tmp_path / "report.html"
    assert main(["report", str(log), "--html", str(page)]) == 0
    html = page.read_text()
    assert NAME not in html and EMAIL not in html and "20:41:07" not in html
    shown, errors, _ = _open(page)
    assert errors == [] and shown["causes"] == [["content_changed", 1]]


def test_html_to_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(_log()) + "\n")
    assert main(["report", str(log), "--html", str(tmp_path / "nope" / "r.html")]) == 2


def test_the_charts_place_each_hour_by_its_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import re

    records = [json.loads(line) for line in _log(sessions=1, turns=3)]
    for record, hour in zip(records, (0, 1, 10), strict=True):  # nine empty hours
        record["at"] = 1_764_000_000 // 3600 * 3600 + hour * 3600 + 60
        record["key"] = f"k{hour}"  # separate sessions: no TTL judgment in the way
    log, page = tmp_path / "log.jsonl", tmp_path / "report.html"
    log.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert main(["report", str(log), "--html", str(page)]) == 0
    capsys.readouterr()
    chart = page.read_text().split("<svg", 2)[1]  # hit rate per hour
    xs = [float(x) for x in re.findall(r'<circle cx="([0-9.]+)"', chart)]
    assert len(xs) == 3
    assert abs((xs[1] - xs[0]) / (xs[2] - xs[0]) - 0.1) < 0.01  # 1 hour of 10


def test_the_charts_place_utc_hours_evenly_whatever_the_machines_zone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The hour labels are UTC; read back as the machine's local time, the hour a DST change
    # skips (02:00 in New York on 2026-03-08) fell on the next one: two hours at one x.
    import re
    import time
    from datetime import datetime, timezone

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        first = datetime(2026, 3, 8, 1, tzinfo=timezone.utc).timestamp()
        records = [json.loads(line) for line in _log(sessions=1, turns=3)]
        for hour, record in enumerate(records):
            record["at"] = first + hour * 3600 + 60
            record["key"] = f"k{hour}"
        log, page = tmp_path / "log.jsonl", tmp_path / "report.html"
        log.write_text("\n".join(json.dumps(r) for r in records) + "\n")
        assert main(["report", str(log), "--html", str(page), "--clear-keys"]) == 0
    finally:
        monkeypatch.undo()
        time.tzset()
    capsys.readouterr()
    chart = page.read_text().split("<svg", 2)[1]
    xs = [float(x) for x in re.findall(r'<circle cx="([0-9.]+)"', chart)]
    assert len(xs) == 3
    assert abs((xs[1] - xs[0]) / (xs[2] - xs[0]) - 0.5) < 0.01


def test_a_keys_partial_cost_says_how_many_records_it_leaves_unpriced(tmp_path: Path) -> None:
    records = [json.loads(line) for line in _log()]
    for record in records[3:5]:  # session s0's last two turns, on a model nobody prices
        record["request"]["model"] = "not-a-real-model"
    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    page = tmp_path / "report.html"
    assert main(["report", str(log), "--html", str(page), "--clear-keys"]) == 0
    rows = page.read_text().split('<tr data-key="')
    (s0,) = [row.split("</tr>")[0] for row in rows if row.startswith('s0"')]
    (s1,) = [row.split("</tr>")[0] for row in rows if row.startswith('s1"')]
    assert "(2 unpriced)" in s0 and "unpriced" not in s1


def _side_bars(page_file: Path) -> tuple[dict[str, Any], list[str]]:
    """The server-side bars as the browser lays them out: each band's data and drawn heights."""
    errors: list[str] = []
    with _browser() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_file.as_uri())
            shown = {
                "summary": page.inner_text("#server-side"),
                "models": page.eval_on_selector_all(
                    "#side-models tr[data-model]", "rows => rows.map(r => r.innerText)"
                ),
                "bands": page.eval_on_selector_all(
                    "svg[aria-label='server-side misses by prompt size'] g.band",
                    """groups => groups.map(g => ({
                        band: g.dataset.band,
                        follow_ups: Number(g.dataset.followUps),
                        misses: Number(g.dataset.misses),
                        zero: g.querySelector('rect.zero').getBoundingClientRect().height,
                        partial: g.querySelector('rect.partial').getBoundingClientRect().height,
                        label: g.querySelector('text').getBoundingClientRect().width,
                    }))""",
                ),
            }
        finally:
            browser.close()
    return shown, errors


def test_the_page_charts_server_side_misses_by_prompt_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from .test_report_vendor_side import _gemini

    log, page = tmp_path / "calls.jsonl", tmp_path / "report.html"
    log.write_text("\n".join(_gemini({5000: 1.0, 12000: 0.0, 24000: 0.5})) + "\n")
    assert main(["report", str(log), "--format", "json", "--html", str(page)]) == 0
    data = json.loads(capsys.readouterr().out)["vendor_side"]
    shown, errors = _side_bars(page)
    assert errors == []
    assert shown["summary"].startswith("8 of 12 follow-ups (66.7%)")
    (model,) = shown["models"]
    assert "gemini:gemini-2.5-flash" in model and "2,048" in model and "implicit" in model
    bands = {b["band"]: b for b in shown["bands"]}
    expected = {
        r["group"]: (r["follow_ups"], r["server_side_misses"]) for r in data["by_prompt_tokens"]
    }
    assert {k: (b["follow_ups"], b["misses"]) for k, b in bands.items()} == expected
    # drawn to scale: 8k-16k all 0-read (full height), 16k-32k all partly read, 4k-8k nothing
    full = bands["8k-16k"]["zero"]
    assert full > 50 and bands["8k-16k"]["partial"] == 0
    assert bands["16k-32k"]["partial"] == pytest.approx(full, rel=0.02)
    assert bands["16k-32k"]["zero"] == 0 and bands["4k-8k"]["zero"] == 0
    assert all(b["label"] > 0 for b in bands.values())  # each band is named on the page
