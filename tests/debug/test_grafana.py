"""The Grafana dashboard queries only metrics the monitor exports, with the labels it sets."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from promptcache import CacheUsage, Monitor

from . import pairs

DASHBOARD = Path(__file__).parents[2] / "docs" / "grafana" / "promptcache.json"
_METRIC = re.compile(r"\b(promptcache_[a-z_]+)\b")
_LABELS = re.compile(r"\bby \(([^)]*)\)|\{([^}]*)\}")


def _exported() -> tuple[set[str], set[str]]:
    """Sample names and label names of a registry the monitor wrote to (a miss included)."""
    prometheus_client = pytest.importorskip("prometheus_client")
    registry = prometheus_client.CollectorRegistry()
    monitor = Monitor("anthropic", prometheus_registry=registry)
    usage = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
    monitor.observe(pairs.anthropic(), usage=usage, at=0.0, key="k")
    monitor.observe(pairs.anthropic(), usage=usage, at=1.0, key="k")
    # a below_minimum a later read takes back: the withdrawn counter gets its series
    gemini = Monitor("gemini", prometheus_registry=registry)
    small = pairs.gemini(system="You answer questions about Acme Cloud deployments.")
    for at, read in ((0.0, 0), (1.0, 40)):
        gemini.observe(
            small,
            usage=CacheUsage(uncached_input=60, cache_read=read, cache_write=None, output=1),
            at=at,
            key="g",
        )
    names, labels = set(), set()
    for family in registry.collect():
        for sample in family.samples:
            names.add(sample.name)
            labels |= set(sample.labels)
    return names, labels


def _exprs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["expr"]] if isinstance(node.get("expr"), str) else []
        if isinstance(node.get("query"), str) and "promptcache_" in node["query"]:
            found.append(node["query"])
        return found + [e for v in node.values() for e in _exprs(v)]
    if isinstance(node, list):
        return [e for v in node for e in _exprs(v)]
    return []


def test_every_query_names_an_exported_metric_and_label() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    names, labels = _exported()
    exprs = _exprs(dashboard)
    assert len(exprs) >= 6
    for expr in exprs:
        used = set(_METRIC.findall(expr))
        assert used, f"a query names no promptcache metric: {expr}"
        assert used <= names, f"{sorted(used - names)} not exported; exported: {sorted(names)}"
        for by, selector in _LABELS.findall(expr):
            keys = {k.strip() for k in by.split(",") if k.strip()}
            keys |= {m.split("=")[0].strip() for m in selector.split(",") if "=" in m}
            assert keys <= labels, f"{sorted(keys - labels)} is no label we set: {expr}"


def test_fleet_wide_queries_sum_across_processes() -> None:
    exprs = _exprs(json.loads(DASHBOARD.read_text()))
    assert any(
        re.search(r"sum by \(cause\) \(rate\(promptcache_invalidations_total", e) for e in exprs
    )
    # every rate is summed, so several processes (instances, pods) add up
    for expr in exprs:
        for rate in re.finditer(r"(rate|increase)\(", expr):
            assert "sum" in expr[: rate.start()], expr


def test_requests_that_did_not_report_caching_leave_the_hit_rate_alone() -> None:
    # An engine without its cache-report flag: reads unknown. Counted as input with 0 read, the
    # fleet hit rate would fall by their share; the dashboard takes them out.
    prometheus_client = pytest.importorskip("prometheus_client")
    registry = prometheus_client.CollectorRegistry()
    monitor = Monitor("engine", prometheus_registry=registry)
    request = {"model": "Qwen/Qwen3-8B", "messages": [{"role": "user", "content": "hi"}]}
    unknown = CacheUsage(uncached_input=2000, cache_read=None, cache_write=None, output=1)
    told = CacheUsage(uncached_input=16, cache_read=1984, cache_write=None, output=1)
    monitor.observe(request, usage=unknown, at=0.0, key="a")
    monitor.observe(request, usage=told, at=0.0, key="b")

    def total(name: str) -> float:
        return registry.get_sample_value(name, {"vendor": "engine"}) or 0.0

    read, known = (
        total("promptcache_cache_read_tokens_total"),
        total("promptcache_input_tokens_total"),
    )
    unreported = total("promptcache_unreported_input_tokens_total")
    assert (read, known, unreported) == (1984.0, 4000.0, 2000.0)
    dashboard = json.loads(DASHBOARD.read_text())
    hit_rates = [e for e in _exprs(dashboard) if "cache_read_tokens_total" in e and "/" in e]
    assert hit_rates and all("promptcache_unreported_input_tokens_total" in e for e in hit_rates)
    assert read / (known - unreported) == pytest.approx(0.992)


def test_a_panel_shows_server_side_misses_by_model() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [e for e in _exprs(dashboard) if "promptcache_server_side_misses_total" in e]
    assert exprs and all("by (vendor, model)" in e for e in exprs)
    names, labels = _exported()
    assert "promptcache_server_side_misses_total" in names and "model" in labels


def test_the_dashboard_shows_withdrawn_below_minimum_verdicts() -> None:
    # counters only grow: a withdrawn below_minimum stays in promptcache_invalidations_total,
    # and the dashboard shows the withdrawals beside it
    exprs = _exprs(json.loads(DASHBOARD.read_text()))
    assert any("promptcache_withdrawn_invalidations_total" in e for e in exprs)


def test_the_withdrawn_series_exists_at_zero_before_the_first_withdrawal() -> None:
    # Prometheus's increase() counts from a series' first sample: a series born at 1 (the one
    # withdrawal a model gets per process) would read 0 in the dashboard's table forever.
    prometheus_client = pytest.importorskip("prometheus_client")
    registry = prometheus_client.CollectorRegistry()
    monitor = Monitor("gemini", prometheus_registry=registry)
    usage = CacheUsage(uncached_input=60, cache_read=0, cache_write=None, output=1)
    monitor.observe(pairs.gemini(system="Short."), usage=usage, at=0.0, key="g")
    labels = {"vendor": "gemini", "cause": "below_minimum"}
    assert registry.get_sample_value("promptcache_withdrawn_invalidations_total", labels) == 0.0
