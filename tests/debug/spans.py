"""An OpenTelemetry tracer whose finished spans stay in memory, for tests of what goes on spans."""

from __future__ import annotations

from typing import Any

import pytest


def memory_tracer() -> tuple[Any, Any]:
    """A tracer and the in-memory exporter its finished spans go to; skips without the SDK."""
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test"), exporter
