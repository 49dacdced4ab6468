"""
Exporters of the monitor's usage and events: OpenTelemetry span attributes and events, and
Prometheus counters, each only when its library is installed. No prompt text is exported:
causes, paths, counts and the cache key only, the key hashed unless it looks like an opaque id
(`privacy.export_key`); Prometheus labels are vendor and cause, and for server-side misses vendor
and model (bounded cardinality: at most `MODEL_LABELS` model names, each one that reads as a model
name, the rest "(other)").
"""

from __future__ import annotations

import re
import threading
from typing import Any

from .._usage import CacheUsage
from .events import MONITOR_CAUSES, Invalidation
from .privacy import export_key

__all__ = ["MODEL_LABELS", "Exporter"]

MODEL_LABELS = 50  # model label values per exporter; a request's model is caller data
_MODEL_NAME = re.compile(r"[A-Za-z0-9_.:/@+-]{1,100}")
_OTHER_MODEL = "(other)"
_SEEN_MODELS = 1024  # (vendor, model) pairs whose server-side series is made, remembered


class Exporter:
    """OpenTelemetry span attributes and Prometheus counters, each only when installed."""

    def __init__(self, registry: Any) -> None:
        self._trace = _optional("opentelemetry.trace")
        self._counters = _prometheus_counters(registry)
        # The per-vendor children are bound once; `labels()` on every request is a dict walk.
        self._usage_counters: dict[str, tuple[Any, Any, Any, Any]] = {}
        self._models: set[str] = set()
        self._server_side_bound: set[tuple[str, str | None]] = set()  # (vendor, model) seen

    def usage(self, usage: CacheUsage, vendor: str, model: str | None = None) -> None:
        span = self._span()
        if span is not None:
            # a count the vendor did not report is left off, not written as 0: a reader of the
            # span (a dashboard, MonitorSpanProcessor) would take 0 for "nothing cached"
            if usage.cache_read is not None:
                span.set_attribute("gen_ai.usage.cache_read.input_tokens", usage.cache_read)
            if usage.cache_write is not None:
                span.set_attribute("gen_ai.usage.cache_creation.input_tokens", usage.cache_write)
            span.set_attribute("gen_ai.usage.input_tokens", usage.total_input)
        if self._counters is not None:
            read, write, total, unreported = self._bound(vendor)
            self._bind_model(vendor, model)
            read.inc(usage.cache_read or 0)
            write.inc(usage.cache_write or 0)
            total.inc(usage.total_input)
            if usage.cache_read is None:  # reads unknown: kept out of the hit rate
                unreported.inc(usage.total_input)

    def bind(self, vendor: str) -> None:
        """Make the vendor's series now, at 0 (nothing without prometheus_client)."""
        if self._counters is not None:
            self._bound(vendor)

    def _bound(self, vendor: str) -> tuple[Any, Any, Any, Any]:
        """The vendor's usage counters, and every series of its causes made at 0 (once)."""
        bound = self._usage_counters.get(vendor)
        if bound is None:
            counters = self._counters or {}
            # all four bound at once, so each series exists (at 0) for the dashboard's sums
            read, write, total, unreported = (
                counters[n].labels(vendor) for n in ("read", "write", "input", "unreported")
            )
            bound = self._usage_counters[vendor] = (read, write, total, unreported)
            # A series first written at 1 has no earlier sample, so Prometheus's increase() and
            # rate() never count that 1: the first event of each cause in a process would be
            # missing from every panel. So each (vendor, cause) series is made here, at 0, when
            # the monitor is made for the vendor or first sees it (the dashboard's queries leave
            # out the zero ones).
            for cause in MONITOR_CAUSES:
                counters["events"].labels(vendor, cause)
                counters["lost"].labels(vendor, cause)
            counters["withdrawn"].labels(vendor, "below_minimum")
        return bound

    def _bind_model(self, vendor: str, model: str | None) -> None:
        """A server-side miss's (vendor, model) series, made at 0 with the model's first request.
        Runs on every observation: each (vendor, model) pair is looked at once, so the label's
        checks are not repeated per request."""
        if (vendor, model) in self._server_side_bound or self._counters is None:
            return
        if len(self._server_side_bound) < _SEEN_MODELS:  # caller data: the memo stays bounded
            self._server_side_bound.add((vendor, model))
        self._counters["server_side"].labels(vendor, self._model_label(model))

    def invalidation(self, event: Invalidation) -> None:
        span = self._span()
        if span is not None:
            span.set_attribute("promptcache.invalidation.cause", event.cause)
            span.add_event("promptcache.cache_invalidation", _span_event(event))
        if self._counters is not None:
            self._counters["events"].labels(event.vendor, event.cause).inc()
            self._counters["lost"].labels(event.vendor, event.cause).inc(event.tokens_lost)
            if event.server_side:
                model = self._model_label(event.model)
                self._counters["server_side"].labels(event.vendor, model).inc()

    def withdrawal(self, event: Invalidation) -> None:
        """A follow-up taking back an earlier event: a span event, and its own counter (the
        claim's count stays: counters only grow), labelled by the cause it withdraws."""
        withdrawn = event.cause.removesuffix("_withdrawn")
        span = self._span()
        if span is not None:
            attributes = _span_event(event) | {"promptcache.cause": withdrawn}
            span.add_event("promptcache.cache_invalidation_withdrawn", attributes)
        if self._counters is not None:
            self._counters["withdrawn"].labels(event.vendor, withdrawn).inc()

    def _model_label(self, model: str | None) -> str:
        """`model` as a label value: a name, one of at most MODEL_LABELS, else "(other)"."""
        if model is None:
            return "(unknown)"
        if model in self._models:
            return model
        if len(self._models) >= MODEL_LABELS or not _MODEL_NAME.fullmatch(model):
            return _OTHER_MODEL
        self._models.add(model)
        return model

    def fallback(self) -> None:
        """One observation judged in-process because the shared state store failed."""
        if self._counters is not None:
            self._counters["fallbacks"].inc()

    def dropped(self) -> None:
        """One observation the background queue had no room for."""
        if self._counters is not None:
            self._counters["dropped"].inc()

    def _span(self) -> Any:
        if self._trace is None:
            return None
        span = self._trace.get_current_span()
        return span if span.is_recording() else None


def _span_event(event: Invalidation) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "promptcache.cause": event.cause,
        "promptcache.key": export_key(event.key),
        "promptcache.expected_read": event.expected_read,
        "promptcache.actual_read": event.actual_read,
        "promptcache.server_side": event.server_side,
    }
    if event.path:
        attributes["promptcache.path"] = event.path
    return attributes


def _optional(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        return None


_COUNTERS: dict[int, tuple[Any, dict[str, Any]]] = {}
_COUNTERS_LOCK = threading.Lock()


def _prometheus_counters(registry: Any) -> dict[str, Any] | None:
    """One set of counters per registry (registering a name twice is an error in prometheus)."""
    client = _optional("prometheus_client")
    if client is None:
        return None
    registry = registry if registry is not None else client.REGISTRY
    with _COUNTERS_LOCK:
        if id(registry) not in _COUNTERS:  # the registry is kept alive with its counters
            _COUNTERS[id(registry)] = (registry, _make_counters(client, registry))
        return _COUNTERS[id(registry)][1]


def _make_counters(client: Any, registry: Any) -> dict[str, Any]:
    def counter(name: str, text: str, *labels: str) -> Any:
        return client.Counter(name, text, labels, registry=registry)

    return {
        "read": counter("promptcache_cache_read_tokens", "Input tokens read from cache", "vendor"),
        "write": counter("promptcache_cache_write_tokens", "Input tokens written", "vendor"),
        "input": counter("promptcache_input_tokens", "Input tokens, cached or not", "vendor"),
        "unreported": counter(
            "promptcache_unreported_input_tokens",
            "Input tokens of requests whose usage did not report caching (reads unknown)",
            "vendor",
        ),
        "events": counter(
            "promptcache_invalidations", "Unexpected cache misses by cause", "vendor", "cause"
        ),
        "lost": counter(
            "promptcache_tokens_lost", "Tokens expected from cache but not read", "vendor", "cause"
        ),
        "withdrawn": counter(
            "promptcache_withdrawn_invalidations",
            "Events a later observation took back, by the cause withdrawn (below_minimum: the "
            "vendor read a prefix under its documented minimum)",
            "vendor",
            "cause",
        ),
        "server_side": counter(
            "promptcache_server_side_misses",
            "Misses on a byte-identical prefix within the TTL (evidence for the vendor)",
            "vendor",
            "model",
        ),
        "fallbacks": counter(
            "promptcache_store_fallbacks",
            "Observations judged in-process because the shared state store failed",
        ),
        "dropped": counter(
            "promptcache_observations_dropped",
            "Observations not judged: the monitor's background queue was full",
        ),
    }
