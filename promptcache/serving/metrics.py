"""
An engine's own prefix-cache counters, scraped from its Prometheus `/metrics`, and the hit rate
over an interval.

Counters are summed over their label sets (vLLM labels by engine and model, SGLang by cache
source). What each engine counts, in prompt tokens:

- vLLM: `vllm:prefix_cache_queries_total` (tokens looked up) and `vllm:prefix_cache_hits_total`.
- SGLang: `sglang:cached_tokens_total` (hits) over `sglang:prompt_tokens_total`, and its own
  `sglang:cache_hit_rate` gauge.
- llama.cpp (`--metrics`): `llamacpp:prompt_tokens_cached_total` (hits) and
  `llamacpp:prompt_tokens_total`, which EXCLUDES cached tokens, so queried = both added.

A rate with nothing queried, or from an engine that exposes none of these, is None ("unknown"),
never 0. Parsing goes through `prometheus_client`'s own text parser
(`pip install 'promptcache-sdk[engines]'`).
"""

from __future__ import annotations

import contextlib
import http.client
import math
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .._errors import InputError, MissingDependencyError

__all__ = ["CacheCounters", "IntervalStats", "interval", "parse_metrics", "scrape"]

Engine = Literal["vllm", "sglang", "llama.cpp", "unknown"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CacheCounters:
    """One scrape: cumulative prompt tokens looked up in the prefix cache and found there."""

    engine: Engine
    queried_tokens: float | None
    hit_tokens: float | None
    hit_rate_gauge: float | None = None
    missing: tuple[str, ...] = ()
    samples: Mapping[str, float] = field(default_factory=dict)

    @property
    def hit_rate(self) -> float | None:
        """Hits over queries since the engine started; None when unknown."""
        return _rate(self.hit_tokens, self.queried_tokens)


@dataclass(frozen=True, slots=True, kw_only=True)
class IntervalStats:
    """Counter deltas between two scrapes of one engine."""

    engine: Engine
    seconds: float
    queried_tokens: float | None
    hit_tokens: float | None
    restarted: bool = False

    @property
    def hit_rate(self) -> float | None:
        return _rate(self.hit_tokens, self.queried_tokens)


def _rate(hits: float | None, queried: float | None) -> float | None:
    if hits is None or not queried:
        return None
    return hits / queried


def parse_metrics(text: str) -> CacheCounters:
    """The prefix-cache counters in a Prometheus text exposition."""
    samples = _samples(text)
    if any(name.startswith("vllm:") for name in samples):
        return _counters(
            "vllm", samples, "vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total"
        )
    if any(name.startswith("sglang:") for name in samples):
        found = _counters(
            "sglang", samples, "sglang:prompt_tokens_total", "sglang:cached_tokens_total"
        )
        gauge = samples.get("sglang:cache_hit_rate")
        _check_usable("sglang:cache_hit_rate", gauge, most=1.0)
        return replace(found, hit_rate_gauge=gauge)
    if any(name.startswith("llamacpp:") for name in samples):
        found = _counters(
            "llama.cpp",
            samples,
            "llamacpp:prompt_tokens_total",
            "llamacpp:prompt_tokens_cached_total",
            hits_within_queries=False,
        )
        # llama.cpp's prompt_tokens_total leaves out the cached tokens: queried is both added.
        evaluated, cached = found.queried_tokens, found.hit_tokens
        queried = None if evaluated is None or cached is None else evaluated + cached
        return replace(found, queried_tokens=queried)
    return CacheCounters(
        engine="unknown",
        queried_tokens=None,
        hit_tokens=None,
        missing=("vllm:*, sglang:* or llamacpp:* metrics",),
        samples=samples,
    )


def _counters(
    engine: Engine,
    samples: Mapping[str, float],
    queries: str,
    hits: str,
    *,
    hits_within_queries: bool = True,
) -> CacheCounters:
    # hits_within_queries: the queries counter includes the hits (vLLM, SGLang); llama.cpp's
    # leaves them out, so there more hits than "queries" is an ordinary warm cache.
    for name in (queries, hits):
        _check_usable(name, samples.get(name))
    if hits_within_queries and samples.get(hits, 0.0) > samples.get(queries, math.inf):
        raise InputError(
            f"counter {hits} is unusable: it reads {samples[hits]:g}, more than {queries} "
            f"({samples[queries]:g}); the engine's counters disagree, no hit rate can be given"
        )
    missing = tuple(name for name in (queries, hits) if name not in samples)
    return CacheCounters(
        engine=engine,
        queried_tokens=samples.get(queries),
        hit_tokens=samples.get(hits),
        missing=missing,
        samples=samples,
    )


class _NotMetrics(InputError):
    """The text is not a Prometheus exposition (what the caller describes to the user)."""


def _check_usable(name: str, value: float | None, most: float = math.inf) -> None:
    """A counter that is NaN, infinite or negative (or a rate over 1) gives no rate: say so."""
    if value is None:
        return
    if math.isnan(value) or math.isinf(value):
        why = f"it reads {value}"
    elif value < 0:
        why = f"it reads {value:g}, and a count cannot be negative"
    elif value > most:
        why = f"it reads {value:g}, and a rate is at most {most:g}"
    else:
        return
    raise InputError(
        f"counter {name} is unusable: {why}; no hit rate can be given from this engine's /metrics"
    )


def _samples(text: str) -> dict[str, float]:
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        raise MissingDependencyError(
            "prometheus-client", "engines", "Reading an engine's /metrics"
        ) from None
    totals: dict[str, float] = {}
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                totals[sample.name] = totals.get(sample.name, 0.0) + float(sample.value)
    except ValueError:
        # prometheus_client's message quotes the line: the answer is described, never echoed.
        raise _NotMetrics("not a Prometheus text exposition") from None
    return totals


def metrics_url(url: str) -> str:
    """`{url}/metrics` (or `url` itself when it already ends in /metrics), an http(s) URL."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:
        raise InputError(f"{url!r} is not a URL ({exc}); give e.g. http://127.0.0.1:8000") from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(
            f"{url!r} is not an http(s) URL of an engine; give e.g. http://127.0.0.1:8000"
        )
    return url if url.rstrip("/").endswith("/metrics") else f"{url.rstrip('/')}/metrics"


# A /metrics page is kilobytes to a few megabytes (histograms per model); more is not one.
DEFAULT_MAX_METRICS_BYTES = 16 * 1024 * 1024
_READ_CHUNK = 64 * 1024


def scrape(
    url: str, *, timeout: float = 10.0, max_bytes: int = DEFAULT_MAX_METRICS_BYTES
) -> CacheCounters:
    """
    GET `{url}/metrics` (or `url` itself when it already ends in /metrics) and parse it.
    `timeout` bounds the whole request (connecting, a server that trickles a byte a second),
    `max_bytes` the answer (a server that streams without end).
    """
    if not 0 < timeout < math.inf:
        raise InputError(f"the scrape timeout must be positive seconds, got {timeout!r}")
    target = metrics_url(url)
    body, content_type = _fetch(target, timeout, max_bytes)
    try:
        text = body.decode("utf-8")
        return parse_metrics(text)
    except (_NotMetrics, UnicodeDecodeError):
        # Described, never echoed: the answer is not ours to print and may be anything.
        raise InputError(
            f"{target} answered {len(body):,} bytes of {content_type or 'no content type'} that "
            "are not a Prometheus text exposition; is this the engine's /metrics URL?"
        ) from None


@dataclass(slots=True)
class _Fetch:
    """What the fetching thread hands back (and the response, to close at the deadline)."""

    body: bytes | None = None
    content_type: str = ""
    error: InputError | None = None
    response: Any = None


def _fetch(target: str, timeout: float, max_bytes: int) -> tuple[bytes, str]:
    """
    The body at `target`, read in a thread the caller waits on for at most `timeout` seconds:
    a socket timeout bounds each read, not the sum of them, and a server that sends a byte a
    second would never trip it.
    """
    state = _Fetch()
    worker = threading.Thread(
        target=_get, args=(target, timeout, max_bytes, state), daemon=True, name="scrape"
    )
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        response = state.response
        if response is not None:
            with contextlib.suppress(Exception):  # ends the thread's blocked read
                response.close()
        raise InputError(
            f"{target} did not answer within {timeout:g} s (the whole request); raise --timeout"
        )
    if state.error is not None:
        raise state.error
    assert state.body is not None
    return state.body, state.content_type


def _get(target: str, timeout: float, max_bytes: int, state: _Fetch) -> None:
    try:
        with urllib.request.urlopen(target, timeout=timeout) as response:
            state.response = response
            state.content_type = str(response.headers.get("Content-Type", ""))[:80]
            state.body = _read_bounded(response, target, max_bytes)
    except InputError as exc:
        state.error = exc
    except urllib.error.HTTPError as exc:
        hint = (
            " (llama.cpp serves /metrics only when started with --metrics)"
            if exc.code in (404, 501)
            else ""
        )
        state.error = InputError(f"{target} answered HTTP {exc.code}{hint}")
    except http.client.HTTPException as exc:  # its text is what the server sent: not echoed
        state.error = InputError(
            f"{target} did not answer in HTTP ({type(exc).__name__}); is this an engine's URL?"
        )
    except (urllib.error.URLError, OSError, ValueError) as exc:
        state.error = InputError(f"cannot reach {target}: {getattr(exc, 'reason', exc)}")


def _read_bounded(response: Any, target: str, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = response.read1(_READ_CHUNK)  # what has arrived: no wait for a full chunk
        if not chunk:
            return b"".join(chunks)
        total += len(chunk)
        if total > max_bytes:
            raise InputError(
                f"{target} answered more than {max_bytes:,} bytes, more than a /metrics page; "
                "raise the bound with --max-bytes N if it is one"
            )
        chunks.append(chunk)


def interval(before: CacheCounters, after: CacheCounters, seconds: float) -> IntervalStats:
    """
    Deltas between two scrapes; a counter that went down, or another engine answering the second
    scrape, means the engine restarted.
    """
    queried = _delta(before.queried_tokens, after.queried_tokens)
    hits = _delta(before.hit_tokens, after.hit_tokens)
    restarted = before.engine != after.engine or any(
        d is not None and d < 0 for d in (queried, hits)
    )
    if restarted:
        # Counters start again from zero on a restart: the second scrape alone is the interval.
        queried, hits = after.queried_tokens, after.hit_tokens
    return IntervalStats(
        engine=after.engine,
        seconds=seconds,
        queried_tokens=queried,
        hit_tokens=hits,
        restarted=restarted,
    )


def _delta(before: float | None, after: float | None) -> float | None:
    if before is None or after is None:
        return None
    return after - before


def to_json(counters: CacheCounters) -> dict[str, Any]:
    return {
        "engine": counters.engine,
        "queried_tokens": counters.queried_tokens,
        "hit_tokens": counters.hit_tokens,
        "hit_rate": counters.hit_rate,
        "hit_rate_gauge": counters.hit_rate_gauge,
        "missing": list(counters.missing),
    }
