"""The Grafana dashboard's every query, run by a real Prometheus over the monitor's own counters.

docs/images/dashboard.py backfills three hours of emulated traffic into Prometheus's TSDB and runs
each panel's PromQL through /api/v1/query_range: that is the dashboard's picture and its test. The
Prometheus tests skip where `prometheus` is not installed (.ci/run installs it: CI never skips).
"""

from __future__ import annotations

import copy
import html
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from promptcache.debug.events import WITHDRAWN

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
sys.path.insert(0, str(IMAGES))  # the pictures' scripts import each other by name

import dashboard  # noqa: E402
import panels  # noqa: E402

pytest.importorskip("prometheus_client")
pytest.importorskip("anthropic")
pytest.importorskip("openai")


def test_the_readings_are_openmetrics_counters_with_a_timestamp_on_every_sample() -> None:
    from prometheus_client.openmetrics.parser import text_string_to_metric_families

    text = dashboard.openmetrics(dashboard.traffic(minutes=6))
    assert text.endswith("# EOF\n")
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert {"promptcache_cache_read_tokens", "promptcache_input_tokens"} <= set(families)
    for family in families.values():
        assert family.type == "counter"
        by_series: dict[tuple[tuple[str, str], ...], list[Any]] = {}
        for sample in family.samples:
            assert sample.timestamp is not None, sample
            by_series.setdefault(tuple(sorted(sample.labels.items())), []).append(sample)
        for samples in by_series.values():
            times = [float(s.timestamp) for s in samples]
            # from the scrape after the series' first count to the last, every scrape
            end = dashboard.START + 6 * 60
            assert times == [float(at) for at in range(int(times[0]), end + 1, 60)], times
            values = [s.value for s in samples]
            assert values == sorted(values)  # a counter never goes down


def test_the_dashboard_s_variables_get_grafana_s_values_and_an_unknown_one_is_refused() -> None:
    window = dashboard.Window()
    expr = 'sum(rate(m{vendor=~"$vendor"}[$__rate_interval])) + increase(m[$__range])'
    assert dashboard.expanded(expr, window) == (
        'sum(rate(m{vendor=~".*"}[240s])) + increase(m[10800s])'
    )
    with pytest.raises(dashboard.DashboardError, match=r"\$__interval"):
        dashboard.expanded("rate(m[$__interval])", window)


def _prometheus_with_traffic(folder: Path) -> tuple[Any, dict[str, int]]:
    """A real Prometheus holding the traffic's counters, and the monitors' events by cause."""
    for tool in ("prometheus", "promtool"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not on PATH: {dashboard.INSTALL} (as .ci/run does)")
    readings = dashboard.traffic()
    # the mix the panels are there to show: client-side causes and server-side misses
    assert {"timestamp", "tools_changed", "none"} <= set(readings.causes), readings.causes
    server = dashboard.prometheus(dashboard.backfill(dashboard.openmetrics(readings), folder))
    return server, {c: n for c, n in readings.causes.items() if c != WITHDRAWN}


def test_every_panel_s_queries_return_series_from_a_real_prometheus(tmp_path: Path) -> None:
    """One test, one Prometheus: three hours of traffic take a CPU for about ten seconds."""
    board = dashboard.load_dashboard()
    server, emitted = _prometheus_with_traffic(tmp_path)
    with server as url:
        found = dashboard.evaluate(board, url, dashboard.Window())
        # a query that finds nothing, and one Prometheus refuses, fail loudly, naming the panel
        misspelt = _with_expr("sum by (cause) (rate(promptcache_tokens_lsot_total[$__range]))")
        with pytest.raises(dashboard.DashboardError, match=r"panel 4 .* query A returned no"):
            dashboard.evaluate(misspelt, url, dashboard.Window())
        unclosed = _with_expr("sum by (cause) (rate(promptcache_tokens_lost_total[$__range])")
        with pytest.raises(dashboard.DashboardError, match=r"panel 4 .* bad_data"):
            dashboard.evaluate(unclosed, url, dashboard.Window())
    assert [p.panel["id"] for p in found] == [p["id"] for p in board["panels"]]
    for data in found:
        assert data.series, data.panel["title"]
    legends = {s.legend for data in found for s in data.series}
    assert {"anthropic", "openai", "timestamp", "anthropic claude-sonnet-4-6"} <= legends
    # the one withdrawal of the run is counted (a series born at 1 would read 0 in increase())
    withdrawn = next(d for d in found if "withdrawn" in d.panel["title"])
    counted = {s.labels["vendor"]: s.points[-1][1] for s in withdrawn.series}
    assert counted == {"vertex-gemini": pytest.approx(1, abs=0.2)}  # the zero rows are left out
    # every event the monitors emitted is in the table, the first of each cause included: each
    # (vendor, cause) series starts at 0, so increase() has a sample before the first event
    table = next(d for d in found if d.panel["title"].startswith("Invalidations in the range"))
    by_cause: dict[str, float] = {}
    for series in table.series:
        cause = series.labels["cause"]
        by_cause[cause] = by_cause.get(cause, 0.0) + series.points[-1][1]
    assert by_cause == {c: pytest.approx(n, rel=0.05, abs=0.3) for c, n in emitted.items()}
    stat = next(d for d in found if d.panel["type"] == "stat")
    assert 0.5 < stat.series[0].points[-1][1] <= 1.0  # a hit rate, not a token count
    page = panels.page_html(found, board, "note", dashboard.Window())
    for panel in board["panels"]:
        assert html.escape(panel["title"]) in page
    drawn = sum(len(d.series) for d in found if d.panel["type"] != "table")
    assert page.count("<polyline") >= drawn


def _with_expr(expr: str) -> dict[str, Any]:
    board = copy.deepcopy(dashboard.load_dashboard())
    board["panels"][3]["targets"][0]["expr"] = expr
    return board
