"""`promptcache engine-stats URL...`: engines' own prefix-cache hit rate, from their /metrics."""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from .._errors import InputError
from .._inputs import (
    DEFAULT_MAX_LINE_BYTES,
    Source,
    check_max_bytes,
    check_regular,
    lines_of,
    open_source,
)
from ..adapters import get_adapter
from ..serving.metrics import (
    DEFAULT_MAX_METRICS_BYTES,
    CacheCounters,
    IntervalStats,
    interval,
    metrics_url,
    scrape,
    to_json,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "engine-stats",
        help="prefix-cache hit rate of vLLM, SGLang or llama.cpp servers, from their /metrics",
        description=(
            "Scrape each URL's Prometheus /metrics (vLLM, SGLang, llama.cpp started with "
            "--metrics) and print the prefix-cache hit rate in prompt tokens since the engine "
            "started and, with --interval, over that many seconds. With --log, the per-request "
            "cached tokens from the responses in a request log stand beside it."
        ),
    )
    parser.add_argument("urls", nargs="+", metavar="URL", help="engine base URL or /metrics URL")
    parser.add_argument(
        "--interval", type=float, default=0.0, help="seconds between two scrapes (default: one)"
    )
    parser.add_argument(
        "--log",
        help="a request log (JSON Lines of {request, response}) from these engines; '-': stdin",
    )
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per scrape, the whole request"
    )
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=DEFAULT_MAX_METRICS_BYTES,
        metavar="N",
        help=f"largest /metrics answer read (default {DEFAULT_MAX_METRICS_BYTES:,} bytes)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.interval < math.inf:
        raise InputError(f"--interval must be 0 or more seconds, got {args.interval}")
    if not 0 < args.timeout < math.inf:
        raise InputError(f"--timeout must be positive seconds, got {args.timeout}")
    check_max_bytes(args.max_bytes, "--max-bytes")
    for url in args.urls:
        metrics_url(url)  # every URL checked before the first is scraped
    log = None if args.log is None else _log_source(args.log)  # before scraping (a FIFO hangs)
    first = {url: scrape(url, timeout=args.timeout, max_bytes=args.max_bytes) for url in args.urls}
    windows: dict[str, IntervalStats] = {}
    if args.interval:
        started = time.monotonic()
        time.sleep(args.interval)
        seconds = time.monotonic() - started
        for url in args.urls:
            windows[url] = interval(
                first[url], scrape(url, timeout=args.timeout, max_bytes=args.max_bytes), seconds
            )
    requests = _log_usage(log) if log is not None else None
    if args.format == "json":
        payload = {
            "engines": [_engine_json(url, first[url], windows.get(url)) for url in args.urls],
            "requests": requests,
        }
        sys.stdout.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        sys.stdout.write(_text(args.urls, first, windows, requests))
    return 0


def _engine_json(url: str, counters: CacheCounters, window: IntervalStats | None) -> dict[str, Any]:
    row = {"url": url, **to_json(counters), "interval": None}
    if window is not None:
        row["interval"] = {
            "seconds": window.seconds,
            "queried_tokens": window.queried_tokens,
            "hit_tokens": window.hit_tokens,
            "hit_rate": window.hit_rate,
            "restarted": window.restarted,
        }
    return row


def _log_source(name: str) -> Source:
    """The --log input: '-' is standard input, anything else must be a regular file."""
    if name == "-":
        return Source(name="<stdin>", path=None, size=None)
    path = Path(name)
    return Source(name=name, path=path, size=check_regular(path).st_size)


def _log_usage(log: Source) -> dict[str, Any]:
    """Per-request usage summed over a request log: cached tokens as each response reported."""
    adapter = get_adapter("engine")
    totals = {
        "requests": 0,
        "prompt_tokens": 0,
        "reported_prompt_tokens": 0,
        "cached_tokens": 0,
        "unknown": 0,
    }
    for number, record in _records(log):
        response = record.get("response")
        if not isinstance(response, dict):
            raise InputError(f"{log.name}:{number}: no response object; each line needs one")
        usage = adapter.read_usage(response)
        totals["requests"] += 1
        totals["prompt_tokens"] += usage.total_input
        if usage.cache_read is None:
            totals["unknown"] += 1
        else:
            totals["cached_tokens"] += usage.cache_read
            totals["reported_prompt_tokens"] += usage.total_input
    # Requests that did not report caching stay out of the rate: their reads are unknown.
    known = totals["reported_prompt_tokens"]
    rate = totals["cached_tokens"] / known if known else None
    return {**totals, "hit_rate": rate}


def _records(log: Source) -> Iterator[tuple[int, dict[str, Any]]]:
    """The log's records (gzipped or not), each line bounded as `report` bounds it."""
    path = log.name
    try:
        handle, raw = open_source(log)
        with raw, handle:
            for number, line in enumerate(lines_of(handle, DEFAULT_MAX_LINE_BYTES), 1):
                if line is None:
                    raise InputError(
                        f"{path}:{number}: longer than {DEFAULT_MAX_LINE_BYTES:,} bytes"
                    )
                if not line.strip():
                    continue
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    raise InputError(f"{path}:{number}: not JSON ({exc})") from None
                if not isinstance(record, dict):
                    raise InputError(f"{path}:{number}: expected a JSON object per line")
                yield number, record
    except (OSError, EOFError) as exc:
        raise InputError(f"cannot read {path!r}: {exc}") from None


def _percent(hits: float | None, queried: float | None, rate: float | None) -> str:
    if rate is None or hits is None or queried is None:
        return "unknown"
    return f"{hits:,.0f} of {queried:,.0f} prompt tokens from cache ({rate:.1%})"


def _text(
    urls: list[str],
    first: dict[str, CacheCounters],
    windows: dict[str, IntervalStats],
    requests: dict[str, Any] | None,
) -> str:
    lines = []
    for url in urls:
        counters = first[url]
        lines.append(
            f"{url}  {counters.engine}  since start: "
            + _percent(counters.hit_tokens, counters.queried_tokens, counters.hit_rate)
        )
        if counters.missing:
            lines.append(f"  not exposed: {', '.join(counters.missing)}")
        if counters.hit_rate_gauge is not None:
            lines.append(f"  engine's own hit-rate gauge: {counters.hit_rate_gauge:.1%}")
        window = windows.get(url)
        if window is not None:
            note = " (counters reset: the engine restarted)" if window.restarted else ""
            lines.append(
                f"  last {window.seconds:.0f} s: "
                + _percent(window.hit_tokens, window.queried_tokens, window.hit_rate)
                + note
            )
    if requests is not None:
        lines.append(
            f"per-request usage in the log: {requests['requests']:,} requests, "
            + _percent(
                requests["cached_tokens"], requests["reported_prompt_tokens"], requests["hit_rate"]
            )
            + (
                f"; {requests['unknown']:,} did not report caching (vLLM: "
                "--enable-prompt-tokens-details, SGLang: --enable-cache-report)"
                if requests["unknown"]
                else ""
            )
        )
    return "\n".join(lines) + "\n"
