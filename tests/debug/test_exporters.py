"""What the monitor's exporter writes on the caller's span: known counts only."""

from __future__ import annotations

from typing import Any

import pytest

from promptcache import CacheUsage, Monitor
from promptcache.debug.exporters import MODEL_LABELS

from . import pairs
from .spans import memory_tracer


def test_counts_the_vendor_did_not_report_are_left_off_the_span() -> None:
    # an engine without its cache report (cache_read None), and OpenAI, which never reports
    # writes: a 0 on the span would read as "nothing cached" to every dashboard and to
    # MonitorSpanProcessor, which takes these attributes as the conventions' counts
    tracer, exported = memory_tracer()
    monitor = Monitor("anthropic")
    usages = [
        CacheUsage(uncached_input=2000, cache_read=None, cache_write=None, output=1),
        CacheUsage(uncached_input=80, cache_read=1920, cache_write=None, output=1),
    ]
    for at, usage in enumerate(usages):
        with tracer.start_as_current_span(f"turn-{at}"):
            monitor.observe(pairs.anthropic(), usage=usage, at=float(at))
    unknown, read_only = (span.attributes or {} for span in exported.get_finished_spans())
    assert unknown["gen_ai.usage.input_tokens"] == 2000
    assert "gen_ai.usage.cache_read.input_tokens" not in unknown
    assert "gen_ai.usage.cache_creation.input_tokens" not in unknown
    assert read_only["gen_ai.usage.cache_read.input_tokens"] == 1920
    assert "gen_ai.usage.cache_creation.input_tokens" not in read_only


def _server_side_misses(registry: Any) -> dict[tuple[str, str], float]:
    return {
        (s.labels["vendor"], s.labels["model"]): s.value
        for family in registry.collect()
        for s in family.samples
        if s.name == "promptcache_server_side_misses_total"
    }


def test_server_side_misses_are_counted_by_vendor_and_model_only() -> None:
    prometheus_client = pytest.importorskip("prometheus_client")
    registry = prometheus_client.CollectorRegistry()
    monitor = Monitor("anthropic", prometheus_registry=registry)
    wrote = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
    for at in (0.0, 10.0, 20.0):  # identical prefix, nothing read: two server-side misses
        monitor.observe(pairs.anthropic(), usage=wrote, at=at, key="user@example.org")
    changed = pairs.anthropic(system=pairs.with_header("At 10:00:01"))
    monitor.observe(changed, usage=wrote, at=30.0, key="user@example.org")  # client-side
    assert _server_side_misses(registry) == {("anthropic", "claude-sonnet-4-6"): 2.0}
    labels = {k for f in registry.collect() for s in f.samples for k in s.labels.values()}
    assert not any("example.org" in value for value in labels)


def test_the_model_label_stays_bounded() -> None:
    prometheus_client = pytest.importorskip("prometheus_client")
    registry = prometheus_client.CollectorRegistry()
    monitor = Monitor("anthropic", prometheus_registry=registry)
    wrote = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
    for n in range(MODEL_LABELS + 5):
        request = dict(pairs.anthropic(), model=f"claude-x-{n}")
        monitor.observe(request, usage=wrote, at=0.0, key=f"k{n}")
        monitor.observe(request, usage=wrote, at=5.0, key=f"k{n}")
    request = dict(pairs.anthropic(), model="Zebulon Quackenbush")
    monitor.observe(request, usage=wrote, at=0.0, key="z")
    monitor.observe(request, usage=wrote, at=5.0, key="z")
    counted = _server_side_misses(registry)
    assert len(counted) == MODEL_LABELS + 1 and counted[("anthropic", "(other)")] == 6.0


def _samples(registry: Any, name: str) -> dict[tuple[str, ...], float]:
    return {
        tuple(s.labels.values()): s.value
        for family in registry.collect()
        for s in family.samples
        if s.name == name
    }


def test_every_cause_series_exists_at_0_before_its_first_event() -> None:
    """Prometheus's increase() and rate() count from a series' first sample: a series born at 1
    hides the first event of its cause after every restart, so each one starts at 0 as soon as
    its vendor (and, for server-side misses, its model) is first seen."""
    prometheus_client = pytest.importorskip("prometheus_client")
    from promptcache.debug.events import MONITOR_CAUSES

    registry = prometheus_client.CollectorRegistry()
    monitor = Monitor("anthropic", prometheus_registry=registry)
    wrote = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
    monitor.observe(pairs.anthropic(), usage=wrote, at=0.0, key="k")
    for name in ("promptcache_invalidations_total", "promptcache_tokens_lost_total"):
        assert _samples(registry, name) == {("anthropic", c): 0.0 for c in MONITOR_CAUSES}
    assert _server_side_misses(registry) == {("anthropic", "claude-sonnet-4-6"): 0.0}
    changed = pairs.anthropic(system=pairs.with_header("At 10:00:01"))
    monitor.observe(changed, usage=wrote, at=30.0, key="k")
    counted = _samples(registry, "promptcache_invalidations_total")
    assert counted[("anthropic", "timestamp")] == 1.0
    assert sum(counted.values()) == 1.0


def test_every_cause_the_judging_writes_is_one_the_metrics_make_at_0() -> None:
    """A cause added to the judging without adding it to MONITOR_CAUSES would be born at 1."""
    import ast
    from pathlib import Path

    import promptcache.debug as debug
    from promptcache.debug.events import MONITOR_CAUSES, WITHDRAWN

    written = set()
    for module in ("judging.py", "monitor.py"):
        tree = ast.parse((Path(debug.__file__).parent / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            value = node.value if isinstance(node, ast.keyword) and node.arg == "cause" else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                written.add(value.value)
    assert written and written <= {*MONITOR_CAUSES, WITHDRAWN}, written - set(MONITOR_CAUSES)


def test_the_memo_of_models_seen_stays_bounded() -> None:
    """Model names are caller data: a stream of distinct ones grows no set without bound."""
    prometheus_client = pytest.importorskip("prometheus_client")
    from promptcache.debug import exporters

    registry = prometheus_client.CollectorRegistry()
    monitor = Monitor("anthropic", prometheus_registry=registry)
    wrote = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
    for n in range(exporters._SEEN_MODELS + 50):
        monitor.observe(dict(pairs.anthropic(), model=f"m-{n}"), usage=wrote, at=0.0, key=f"k{n}")
    exporter = monitor._exporter
    assert exporter is not None
    assert len(exporter._server_side_bound) == exporters._SEEN_MODELS
    assert len(_server_side_misses(registry)) == MODEL_LABELS + 1  # 50 names and "(other)"
