"""What the monitor's exporter writes on the caller's span: known counts only."""

from __future__ import annotations

from promptcache import CacheUsage, Monitor

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
