"""
Feed a `Monitor` from the GenAI spans an instrumentation library already emits.

`MonitorSpanProcessor` is an OpenTelemetry `SpanProcessor`: add it to the `TracerProvider` the
instrumentation (OpenInference, OpenLLMetry, Pydantic AI, the OTel GenAI instrumentations)
writes to, and every finished GenAI span is observed with no change at the call sites. A span
carries the usage; it carries the request only when the instrumentation captured content
(OpenInference's `input.value`, on by default). Without the request there is nothing to diff,
so the processor tallies hit rates only (`hit_rates()`) and says so once on its logger.
Nothing of the prompt is ever logged.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import InputError, MissingDependencyError
from .._usage import CacheUsage
from ..vendors import get_vendor
from .counted import counted_usage
from .monitor import Monitor

try:
    from opentelemetry.sdk.trace import SpanProcessor
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise MissingDependencyError(
        "opentelemetry-sdk", "monitoring", "promptcache.debug.otel"
    ) from error

LOGGER = logging.getLogger("promptcache.monitor")

# Attribute names per convention, most specific first: OTel GenAI semantic conventions,
# OpenInference, OpenLLMetry (traceloop).
INPUT_TOKENS = ("gen_ai.usage.input_tokens", "llm.token_count.prompt", "gen_ai.usage.prompt_tokens")
OUTPUT_TOKENS = (
    "gen_ai.usage.output_tokens",
    "llm.token_count.completion",
    "gen_ai.usage.completion_tokens",
)
CACHE_READ = (
    "gen_ai.usage.cache_read.input_tokens",
    "llm.token_count.prompt_details.cache_read",
    "gen_ai.usage.cache_read_input_tokens",
)
CACHE_WRITE = (
    "gen_ai.usage.cache_creation.input_tokens",
    "llm.token_count.prompt_details.cache_write",
    "gen_ai.usage.cache_creation_input_tokens",
)
SYSTEM = ("gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system")
MODEL = ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name")


@dataclass(frozen=True, slots=True, kw_only=True)
class HitRate:
    """Input tokens of the spans seen for one vendor and model, by how the cache treated them."""

    spans: int
    cache_read: int
    cache_write: int
    uncached_input: int

    @property
    def rate(self) -> float | None:
        total = self.cache_read + self.cache_write + self.uncached_input
        return None if total == 0 else self.cache_read / total


def _first(attributes: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        if name in attributes:
            return attributes[name]
    return None


def _vendor(system: Any) -> str:
    """The registry's name for the span's system; a system it does not know, as the span says."""
    if not isinstance(system, str) or not system:
        return ""
    try:
        return get_vendor(system.lower()).name
    except InputError:
        return system


def _count(attributes: Mapping[str, Any], names: tuple[str, ...]) -> int | None:
    value = _first(attributes, names)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def span_usage(attributes: Mapping[str, Any]) -> CacheUsage | None:
    """The usage a GenAI span reports, or None for a span that reports no input tokens."""
    total = _count(attributes, INPUT_TOKENS)
    if total is None:
        return None
    system = _first(attributes, SYSTEM)
    model = _first(attributes, MODEL)
    return counted_usage(
        total=total,
        read=_count(attributes, CACHE_READ),
        write=_count(attributes, CACHE_WRITE),
        output=_count(attributes, OUTPUT_TOKENS) or 0,
        vendor=_vendor(system),
        model=model if isinstance(model, str) else None,
    )


def span_request(attributes: Mapping[str, Any]) -> dict[str, Any] | None:
    """The request body the span captured (OpenInference `input.value` as JSON), else None."""
    value = attributes.get("input.value")
    if not isinstance(value, str) or attributes.get("input.mime_type") != "application/json":
        return None
    try:
        request = json.loads(value)
    except ValueError:
        return None
    if not isinstance(request, dict) or not isinstance(request.get("model"), str):
        return None
    return request


class MonitorSpanProcessor(SpanProcessor):
    """
    An OpenTelemetry span processor that observes each finished GenAI span on `monitor`.

        provider.add_span_processor(MonitorSpanProcessor(Monitor()))

    Spans with the request are judged by the monitor (invalidations go to its outlets); spans
    without it add to `hit_rates()` only, and the first one is reported once on the logger.
    """

    def __init__(self, monitor: Monitor, *, logger: logging.Logger | None = None) -> None:
        if not isinstance(monitor, Monitor):
            raise InputError(f"MonitorSpanProcessor needs a Monitor, got {type(monitor).__name__}")
        self.monitor = monitor
        self.logger = logger or LOGGER
        self._lock = threading.Lock()
        self._rates: dict[tuple[str, str], HitRate] = {}
        self._said_no_request = False

    def on_end(self, span: Any) -> None:
        attributes = dict(span.attributes or {})
        usage = span_usage(attributes)
        if usage is None:
            return
        self._tally(usage)
        request = span_request(attributes)
        if request is None:
            self._say_no_request(span.name)
            return
        try:
            self.monitor.observe(request, usage=usage)
        except InputError as error:
            # the message names paths and types, never prompt text
            self.logger.warning("promptcache: span %r not observed: %s", span.name, error)

    def _tally(self, usage: CacheUsage) -> None:
        name = (usage.vendor or "unknown", usage.model or "unknown")
        with self._lock:
            seen = self._rates.get(
                name, HitRate(spans=0, cache_read=0, cache_write=0, uncached_input=0)
            )
            self._rates[name] = HitRate(
                spans=seen.spans + 1,
                cache_read=seen.cache_read + (usage.cache_read or 0),
                cache_write=seen.cache_write + (usage.cache_write or 0),
                uncached_input=seen.uncached_input + usage.uncached_input,
            )

    def _say_no_request(self, span_name: str) -> None:
        with self._lock:
            if self._said_no_request:
                return
            self._said_no_request = True
        self.logger.warning(
            "promptcache: GenAI span %r carries no request (content capture off?): reporting "
            "hit rates only, no invalidation causes",
            span_name,
        )

    def hit_rates(self) -> dict[tuple[str, str], HitRate]:
        """Per (vendor, model): spans seen and their input tokens read, written and uncached."""
        with self._lock:
            return dict(self._rates)

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.monitor.flush(None if timeout_millis is None else timeout_millis / 1000)
