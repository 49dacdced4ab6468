"""`promptcache report LOG.jsonl`: hit rate, tokens, cost and invalidations over a request log."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from .._errors import InputError
from .._report import Report, build_report
from ._io import add_vendor_option


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="hit rate, tokens, cost and invalidations by cause over a request log",
        description=(
            'Read LOG, JSON Lines with one {"vendor", "key", "at", "request", '
            '"response"} record per request, one line at a time (constant memory), and print '
            "the cache hit rate, read and write tokens, cost and savings, and the invalidations "
            "the monitor finds, costliest cause first."
        ),
    )
    parser.add_argument("log", help="the JSONL log ('-' for stdin)")
    add_vendor_option(parser, "vendor of records that name none")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    report = build_report(_lines(args.log), vendor=args.vendor)
    if args.format == "json":
        sys.stdout.write(orjson.dumps(report.to_json()).decode() + "\n")
    else:
        sys.stdout.write(render_text(report))
    return 0


def _lines(log: str) -> Iterator[bytes]:
    if log == "-":
        yield from sys.stdin.buffer
        return
    try:
        with Path(log).open("rb") as handle:
            yield from handle
    except OSError as exc:
        raise InputError(f"cannot read {log!r}: {exc.strerror or exc}") from None


def render_text(report: Report) -> str:
    rate = "n/a" if report.hit_rate is None else f"{report.hit_rate:.1%}"
    lines = [
        f"records        {report.records:,}",
        f"hit rate       {rate} of input tokens read from cache",
        f"tokens         read {report.cache_read:,}  written {report.cache_write:,}  "
        f"uncached {report.uncached_input:,}  output {report.output:,}",
        _cost_line(report),
    ]
    if report.invalidations:
        lines.append("invalidations  (costliest first)")
        for item in report.invalidations:
            money = "" if item.cost_lost is None else f"  {_money(item.cost_lost, report.currency)}"
            lines.append(
                f"  {item.cause:<20} {item.events:>6,} events  {item.tokens_lost:>12,} tokens{money}"
            )
    else:
        lines.append("invalidations  none")
    return "\n".join(lines) + "\n"


def _cost_line(report: Report) -> str:
    if report.cost is None or report.cost_without_cache is None:
        return "cost           n/a (no record could be priced)"
    unpriced = (
        f"  ({report.unpriced_records:,} records unpriced)" if report.unpriced_records else ""
    )
    return (
        f"cost           {_money(report.cost, report.currency)} actual, "
        f"{_money(report.cost_without_cache, report.currency)} without caching, "
        f"{_money(report.savings or 0.0, report.currency)} saved{unpriced}"
    )


def _money(value: float, currency: str) -> str:
    return f"${value:,.4f}" if currency == "USD" else f"{value:,.4f} {currency}"
