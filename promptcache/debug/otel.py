"""
Feed a `Monitor` from the GenAI spans an instrumentation library already emits.

`MonitorSpanProcessor` is an OpenTelemetry `SpanProcessor`: add it to the `TracerProvider` the
instrumentation (OpenInference, OpenLLMetry, Logfire, Pydantic AI, the OTel GenAI
instrumentations) writes to, and every finished GenAI span is observed with no change at the call
sites. A span carries the usage; it carries the request only when the instrumentation captured
content (`span_requests` reads it: OpenInference's whole request body, or the GenAI conventions'
messages rebuilt into the vendor's shape, without markers, cache key or settings). Without the
request there is nothing to diff, so the processor tallies hit rates only (`hit_rates()`), counts
the span in `unjudged` and says why once per reason on its logger; a span without cache token
counts (or without any input token count) has an unknown hit rate, said once too. Nothing of the
prompt is ever logged.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .._errors import InputError, MissingDependencyError, describe
from .._usage import CacheUsage
from ..vendors import get_vendor
from .counted import counted_usage, token_count
from .monitor import Monitor
from .span_requests import span_request

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
OPERATION = "gen_ai.operation.name"
# Operations that are no single model call: embeddings (no prompt cache), and agents, tools and
# workflows, whose usage (Pydantic AI's agent run) repeats their model calls' as a sum.
NOT_CALLS = frozenset(
    {
        "embeddings",
        "create_embeddings",
        "invoke_agent",
        "create_agent",
        "execute_tool",
        "invoke_workflow",
        "retrieval",
    }
)
# What marks a span as no single model call: those operations, or OpenLLMetry's request type
# (its indexed-attribute releases name an embeddings span by `llm.request.type` only).
NOT_CALL_MARKERS = (
    (OPERATION, NOT_CALLS),
    ("llm.request.type", frozenset({"embedding", "rerank"})),
)
AGGREGATED = "gen_ai.aggregated_usage.input_tokens"
# What marks a span as one model call, by convention (GenAI operation names, OpenInference's span
# kind, OpenLLMetry's request type): one without input tokens is a call whose usage is unknown.
CALL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
CALL_MARKERS = (
    (OPERATION, CALL_OPERATIONS),
    ("openinference.span.kind", frozenset({"LLM"})),
    ("llm.request.type", frozenset({"chat", "completion"})),
)
# Logfire's request span: for a stream it ends before the stream is read, without usage, which
# its "streaming response" span carries (and is counted from); its attributes do not say whether
# the request streamed (`request_data` keeps the model only), so one without usage is no call.
LOGFIRE_REQUEST = "request_data"
RESPONSE_ID = "gen_ai.response.id"
# An index in a reason's path, `[3]` or OpenLLMetry's `gen_ai.prompt.3.content` (or the path's
# last part, `gen_ai.prompt.3`): a reason is said and counted once whatever message it is in.
_INDEX = re.compile(r"\[\d+\]|(?<=\.)\d+(?!\w)")
# A refused value as a reason names it (`describe`: `str of 40 chars, sha256 3f2a...`): its
# length and hash are folded too, so a different misplaced text in each span is one reason
_DESCRIBED = re.compile(r"(?<= of )\d+(?= chars| items|, sha256 )|(?<=sha256 )[0-9a-f]{12}\b")
# Why a span whose request the monitor refused (or whose key= function failed) was not judged;
# one reason whatever the error, so the count stays one entry (the first error is said)
UNREAD = "the monitor could not read its request"
# Response ids remembered to count a call traced by two instrumentations once.
_ANSWERS_KEPT = 4096
# Logfire keeps the vendor's usage object verbatim, zero cache counts included.
RAW_USAGE = "gen_ai.usage.raw"
# Instrumentations that leave both cache counts out when they are 0: the attribute that marks
# their spans, and the vendor whose spans they do it on (None: every vendor). OpenInference's
# Anthropic instrumentor writes a count only when it is not 0 (Anthropic reports both always);
# Pydantic AI keeps 0 for a count the vendor did not send, and writes only counts that are not.
ZERO_OMITTED = (
    ("openinference.span.kind", "anthropic"),
    ("model_request_parameters", None),
)
# The official botocore instrumentation (opentelemetry-instrumentation-botocore 0.66) marks its
# Bedrock spans so; it copies Bedrock's `inputTokens`, which EXCLUDES cache reads and writes,
# into gen_ai.usage.input_tokens (the conventions' count includes them), and writes a cache
# count only when it is not 0.
BOTOCORE_BEDROCK = (("rpc.system", "aws-api"), ("gen_ai.system", "aws.bedrock"))


@dataclass(frozen=True, slots=True, kw_only=True)
class HitRate:
    """
    Input tokens of the spans seen for one vendor and model, by how the cache treated them.
    `unreported_spans` carried no cache token counts (or no input token count at all, as a stream
    sent without asking for usage): their input is in none of the counts, and
    `rate` covers only the spans that did (None when none did: unknown, not 0).
    """

    spans: int
    cache_read: int
    cache_write: int
    uncached_input: int
    unreported_spans: int = 0

    @property
    def rate(self) -> float | None:
        total = self.cache_read + self.cache_write + self.uncached_input
        return None if total == 0 else self.cache_read / total


def _first(attributes: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        if name in attributes:
            return attributes[name]
    return None


# GenAI semantic-convention provider names of the cloud platforms (`gen_ai.provider.name`;
# anthropic 2.15's AnthropicVertex writes "gcp.vertex_ai"): Vertex serves Claude and Gemini
# under one name, told apart by the model.
PLATFORM_SYSTEMS = {"azure.ai.openai": "azure-openai", "az.ai.openai": "azure-openai"}
VERTEX_SYSTEMS = frozenset({"gcp.vertex_ai", "gcp.vertex.ai", "vertex_ai"})


def _vendor(system: Any, model: str | None = None) -> str:
    """The registry's name for the span's system; a system it does not know, as the span says."""
    if not isinstance(system, str) or not system:
        return ""
    named = system.lower()
    if named in VERTEX_SYSTEMS:
        claude = isinstance(model, str) and "claude" in model
        return "vertex-anthropic" if claude else "vertex-gemini"
    try:
        return get_vendor(PLATFORM_SYSTEMS.get(named, named)).name
    except InputError:
        return system


def _format(vendor: str) -> str:
    """The request format a vendor name stands for (a platform's: the format it serves)."""
    try:
        return get_vendor(vendor).serves or vendor
    except InputError:
        return vendor


def _model(attributes: Mapping[str, Any]) -> str | None:
    """The model the span names (the response's, else the request's); None: not a string."""
    named = _first(attributes, MODEL)
    return named if isinstance(named, str) else None


def _count(attributes: Mapping[str, Any], names: tuple[str, ...]) -> int | None:
    return token_count(_first(attributes, names))


def _cache_counts(attributes: Mapping[str, Any], vendor: str) -> tuple[int | None, int | None]:
    """
    Cache read and write counts; None where the span does not say. Instrumentations leave out a
    count that is 0: one count present means the other is 0 (for Anthropic, which reports both),
    and on the spans of those in `ZERO_OMITTED` neither present means 0 and 0.
    """
    read, write = _count(attributes, CACHE_READ), _count(attributes, CACHE_WRITE)
    if read is None and write is not None:
        read = 0
    anthropic = _format(vendor) == "anthropic"
    if anthropic and write is None and read is not None:
        write = 0
    if read is None and write is None:
        for marker, omits_for in ZERO_OMITTED:
            if marker in attributes and omits_for in (None, _format(vendor)):
                return 0, (0 if anthropic else None)
    return read, write


def _raw_usage(attributes: Mapping[str, Any], vendor: str) -> CacheUsage | None:
    """The vendor's own usage object (Logfire's `gen_ai.usage.raw`) read by its reader; or None."""
    raw = attributes.get(RAW_USAGE)
    if not isinstance(raw, str):
        return None
    try:  # a vendor the registry does not know raises InputError too
        usage = get_vendor(vendor).read_usage(json.loads(raw))
    except (ValueError, InputError):
        return None  # not a usage object we read: the attributes are used instead
    return usage if usage.caching_reported else None


def span_usage(attributes: Mapping[str, Any]) -> CacheUsage | None:
    """
    The usage of the model call a GenAI span records; None for a span that reports no input
    tokens or records no single model call (an agent run's sum, embeddings, a tool).
    """
    if AGGREGATED in attributes or any(attributes.get(n) in v for n, v in NOT_CALL_MARKERS):
        return None
    total = _count(attributes, INPUT_TOKENS)
    if total is None:
        return None
    model = _model(attributes)
    vendor = _vendor(_first(attributes, SYSTEM), model)
    raw = _raw_usage(attributes, vendor)
    if raw is not None:
        return replace(raw, vendor=vendor, model=model or raw.model)
    read, write = _cache_counts(attributes, vendor)
    if all(attributes.get(name) == value for name, value in BOTOCORE_BEDROCK):
        read, write = read or 0, write or 0
        total += read + write
        invoke = str(attributes.get("rpc.method", "")).startswith("InvokeModel")
        vendor = "bedrock-invoke" if invoke else "bedrock-converse"
    return counted_usage(
        total=total,
        read=read,
        write=write,
        output=_count(attributes, OUTPUT_TOKENS),  # absent: unknown, not 0
        vendor=vendor,
        model=model,
    )


def _call_without_usage(attributes: Mapping[str, Any]) -> bool:
    """
    Whether a span `span_usage` reads no usage from still records one model call: the call was
    made, its input tokens are unknown (a stream sent without asking for usage, for one).
    """
    if AGGREGATED in attributes or LOGFIRE_REQUEST in attributes:
        return False
    return any(attributes.get(name) in values for name, values in CALL_MARKERS)


def _response_id(attributes: Mapping[str, Any]) -> str | None:
    """The vendor's id of the response (GenAI conventions, or OpenInference's output JSON)."""
    answer = attributes.get(RESPONSE_ID)
    if isinstance(answer, str) and answer:
        return answer
    output = attributes.get("output.value")
    if isinstance(output, str) and attributes.get("output.mime_type") == "application/json":
        try:
            answer = json.loads(output).get("id")
        except (ValueError, AttributeError):
            return None
        return answer if isinstance(answer, str) and answer else None
    return None


def _any_index(found: re.Match[str]) -> str:
    return "[*]" if found.group().startswith("[") else "*"


def _failed(span: Any) -> bool:
    """A span whose call failed (its status is ERROR): no answer, so no usage to miss."""
    status = getattr(span, "status", None)
    return getattr(getattr(status, "status_code", None), "name", None) == "ERROR"


class MonitorSpanProcessor(SpanProcessor):
    """
    An OpenTelemetry span processor that observes each finished GenAI span on `monitor`.

        provider.add_span_processor(MonitorSpanProcessor(Monitor()))

    Spans with the request are judged by the monitor (invalidations go to its outlets); spans
    without one it can read add to `hit_rates()` only, are counted in `unjudged` by reason, and
    each reason is reported once on the logger.
    `key`, a function of the span's attributes, names the monitor's key for a span (None: the
    monitor's own, from the request): a request rebuilt from GenAI-convention messages has lost
    its `prompt_cache_key` and `metadata.user_id`, so without it every request of a model shares
    one key.
    """

    def __init__(
        self,
        monitor: Monitor,
        *,
        key: Callable[[Mapping[str, Any]], str | None] | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        if not isinstance(monitor, Monitor):
            raise InputError(f"MonitorSpanProcessor needs a Monitor, got {type(monitor).__name__}")
        if key is not None and not callable(key):
            raise InputError(
                f"MonitorSpanProcessor's key must be a function of the span's attributes, got "
                f"{type(key).__name__}"
            )
        self.monitor = monitor
        self.key = key
        self.logger = logger or LOGGER
        self._lock = threading.Lock()
        self._rates: dict[tuple[str, str], HitRate] = {}
        self._said: set[str] = set()
        # why spans with usage were not judged (no request, a part not rebuilt), by reason
        self.unjudged: Counter[str] = Counter()
        self._answers: OrderedDict[str, None] = OrderedDict()

    def on_end(self, span: Any) -> None:
        # Called inside the traced call, as its span ends: nothing may escape into it.
        try:
            self._observe(span)
        except Exception as error:
            # the type only: an exception's message may quote the request
            self.logger.warning(
                "promptcache: span %s not observed: %s raised while reading it",
                _named(span),
                type(error).__name__,
            )

    def _observe(self, span: Any) -> None:
        attributes = dict(span.attributes or {})
        usage = span_usage(attributes)
        if usage is None:
            if not _failed(span) and _call_without_usage(attributes):
                model = _model(attributes)
                self._tally(_vendor(_first(attributes, SYSTEM), model), model, None)
                self._say_once(
                    "input",
                    "promptcache: GenAI span %s records a model call but no input token count "
                    "(a stream sent without asking for usage?): counted in unreported_spans, "
                    "its hit rate is unknown",
                    _named(span),
                )
            return
        if self._answered(attributes):
            self._say_once(
                "twice",
                "promptcache: GenAI span %s records a response another span already recorded "
                "(two instrumentations on one client?): counted once",
                _named(span),
            )
            return
        self._tally(usage.vendor, usage.model, usage)
        if not usage.caching_reported:
            self._say_once(
                "counts",
                "promptcache: GenAI span %s carries no cache token counts, only input tokens: "
                "its hit rate is unknown and no invalidation can be judged",
                _named(span),
            )
        request = span_request(attributes, _format(usage.vendor))
        if request.body is None:
            reason = _DESCRIBED.sub("*", _INDEX.sub(_any_index, request.reason))
            with self._lock:
                self.unjudged[reason] += 1
            self._say_once(
                reason,
                "promptcache: GenAI span %s: %s: reporting hit rates only, no invalidation "
                "causes (said once per reason, counted in MonitorSpanProcessor.unjudged)",
                _named(span),
                request.reason,
            )
            return
        try:
            key = self.key(attributes) if self.key is not None else None
            if key is not None and not isinstance(key, str):
                raise InputError(f"the key function returned {type(key).__name__}, not a string")
            self.monitor.observe(request.body, usage=usage, key=key, partial=request.partial)
        except InputError as error:
            # counted and said once like any span not judged (not a warning per span); the
            # message names paths and types, never prompt text
            with self._lock:
                self.unjudged[UNREAD] += 1
            self._say_once(
                UNREAD,
                "promptcache: GenAI span %s not observed: %s (said once, counted in "
                "MonitorSpanProcessor.unjudged[%r])",
                _named(span),
                error,
                UNREAD,
            )

    def _answered(self, attributes: Mapping[str, Any]) -> bool:
        """Whether the span's response (by its id) was counted already; remembers it if not."""
        answer = _response_id(attributes)
        if answer is None:
            return False
        with self._lock:
            if answer in self._answers:
                return True
            self._answers[answer] = None
            if len(self._answers) > _ANSWERS_KEPT:
                self._answers.popitem(last=False)
        return False

    def _tally(self, vendor: str, model: str | None, usage: CacheUsage | None) -> None:
        """Adds one span's input tokens; `usage` None: a call whose usage the span does not give."""
        name = (vendor or "unknown", model or "unknown")
        reported = usage is not None and usage.caching_reported
        with self._lock:
            seen = self._rates.get(
                name, HitRate(spans=0, cache_read=0, cache_write=0, uncached_input=0)
            )
            if usage is None or not reported:
                self._rates[name] = replace(
                    seen, spans=seen.spans + 1, unreported_spans=seen.unreported_spans + 1
                )
                return
            self._rates[name] = HitRate(
                spans=seen.spans + 1,
                cache_read=seen.cache_read + (usage.cache_read or 0),
                cache_write=seen.cache_write + (usage.cache_write or 0),
                uncached_input=seen.uncached_input + usage.uncached_input,
                unreported_spans=seen.unreported_spans,
            )

    def _say_once(self, topic: str, message: str, *args: Any) -> None:
        with self._lock:
            if topic in self._said:
                return
            self._said.add(topic)
        self.logger.warning(message, *args)

    def hit_rates(self) -> dict[tuple[str, str], HitRate]:
        """Per (vendor, model): spans seen and their input tokens read, written and uncached."""
        with self._lock:
            return dict(self._rates)

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.monitor.flush(None if timeout_millis is None else timeout_millis / 1000)


def _named(span: Any) -> str:
    """A span in a warning: its name can carry a prompt (a tool name, a question), so it is
    described (type, length, hash), never quoted."""
    return f"[name: {describe(getattr(span, 'name', None))}]"
