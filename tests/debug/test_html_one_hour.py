"""`report --html` over a log of one hour: the charts are readable, checked in headless Chromium."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from promptcache.cli import main

from .test_html_report import ARGS, CHROMIUM, _browser
from .test_report_and_cli import _log

_BOXES = """svg => {
  const box = e => { const r = e.getBoundingClientRect();
                     return {x: r.x, y: r.y, w: r.width, h: r.height, text: e.textContent}; };
  return {svg: box(svg), dots: [...svg.querySelectorAll('circle')].map(box),
          texts: [...svg.querySelectorAll('text')].map(box)};
}"""


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return not (
        a["x"] + a["w"] <= b["x"]
        or b["x"] + b["w"] <= a["x"]
        or a["y"] + a["h"] <= b["y"]
        or b["y"] + b["h"] <= a["y"]
    )


def test_one_hour_of_data_draws_a_point_clear_of_every_label_with_its_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It drew a lone dot at the left edge, the "100%" label on top of it, and the same hour
    label twice (as first and last)."""
    log, page = tmp_path / "calls.jsonl", tmp_path / "report.html"
    log.write_text("\n".join(_log()) + "\n")  # 15 records within one hour
    assert main(["report", str(log), "--html", str(page)]) == 0
    capsys.readouterr()
    with _browser() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            tab = browser.new_page(viewport={"width": 1000, "height": 900})
            tab.goto(page.as_uri())
            per_hour = tab.locator('svg[role=img][aria-label$="per hour"]')  # the line charts
            charts = [svg.evaluate(_BOXES) for svg in per_hour.all()]
        finally:
            browser.close()
    assert len(charts) == 2
    for chart in charts:
        (dot,) = chart["dots"]
        assert not any(_overlap(dot, text) for text in chart["texts"]), chart
        labels = [t["text"] for t in chart["texts"]]
        hours = [label for label in labels if re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\dZ", label)]
        assert len(hours) == 1, labels  # the one hour, said once
        assert any(
            "%" in label or "$" in label or "." in label
            for label in labels
            if label not in ("0", "100%")
        ), labels
        frame = chart["svg"]
        along = (dot["x"] + dot["w"] / 2 - frame["x"]) / frame["w"]
        assert 0.3 < along < 0.7, (dot, frame)  # in the middle, not at an edge
