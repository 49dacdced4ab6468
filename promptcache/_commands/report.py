"""`promptcache report LOG...`: hit rate, tokens, cost and invalidations over request logs."""

from __future__ import annotations

import argparse
import csv
import gc
import io
import os
import sys
import zlib
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import orjson

from .._errors import InputError
from .._inputs import DEFAULT_MAX_LINE_BYTES, Source, lines_of, open_source, resolve_sources
from .._pricing import PRICES_ENV
from .._printable import printable
from .._report import (
    GROUPINGS,
    MAX_GROUPS,
    Report,
    ReportBuilder,
    unpriced_events_note,
    unpriced_note,
)
from .._report import money as _money
from .._vendor_side import EVIDENCE_KEPT, SideRow, VendorSide
from ._io import (
    add_base_models_option,
    add_pricing_options,
    add_vendor_option,
    base_model_pairs,
    output_file,
    write_output,
)

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
_PROGRESS_MIN_BYTES = 16 * 1024 * 1024  # smaller inputs finish before a bar is worth drawing
# skipped lines named on stderr (all of them are counted; --format json names 100)
_NOTICES = 10
_COLLECT_EVERY = 200_000  # lines between full garbage collections while reading
_WORST = 10  # invalidations shown with their excerpts in --html
# Request bodies the report's monitors keep, as JSON bytes, to name the field a miss changed. The
# live monitor's default (32 MiB) holds the caller's own objects; the report holds copies, and
# a body dropped past the budget is parsed again and hashed: on a log of ~12 KB requests with
# 5,000 sessions in flight that was three quarters of the time (bench/bench_report.py).
DEFAULT_BODY_BUDGET = 128 * 1024 * 1024


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="hit rate, tokens, cost and invalidations by cause over request logs",
        description=(
            'Read LOG files (JSON Lines, one {"vendor", "key", "at", "request", "response"} '
            "record per request; docs/log-format.md), gzipped or not, one line at a time in "
            "memory that does not grow with the log (one line of at most --max-line-bytes, the "
            "monitors' --max-body-bytes of request bodies and 10,000 keys, at most --max-groups "
            "groups), "
            "and print the cache hit rate, read and write tokens, cost and "
            "savings, and the invalidations the monitor finds, costliest cause first. Lines "
            "that cannot be read are skipped, counted and named (--strict stops instead). "
            "Exit 1 when a --fail-under or --max-invalidations gate fails; 2 when not one line "
            "could be read."
        ),
    )
    parser.add_argument(
        "log", nargs="+", help="JSONL log files or glob patterns ('-' for stdin; .gz is read)"
    )
    add_vendor_option(parser, "vendor of records that name none")
    parser.add_argument(
        "--format", choices=("text", "json", "csv"), default="text", help="output format"
    )
    parser.add_argument(
        "--by", choices=GROUPINGS, help="also total per key, model, vendor, hour or day"
    )
    parser.add_argument(
        "--clear-keys",
        action="store_true",
        help="show cache keys as the log holds them; by default a key that does not look like "
        "an opaque id (a name, an e-mail address) is shown as its hash, in every format",
    )
    parser.add_argument(
        "--strict", action="store_true", help="stop at the first unreadable line (exit 2)"
    )
    add_base_models_option(parser)
    add_pricing_options(
        parser,
        location=", for records that do not name theirs (wrap() writes it)",
        billing="cost, and the list prices apart, for comparison only",
    )
    parser.add_argument(
        "--html",
        type=Path,
        metavar="OUT.html",
        help="also write the report as one self-contained HTML page (charts, costliest keys, "
        "worst invalidations with their excerpts when the log holds prompt text)",
    )
    parser.add_argument(
        "--evidence",
        type=Path,
        metavar="OUT.jsonl",
        help="also write one JSON line per server-side miss (identical prefix, short read): "
        "prefix hashes, tokens expected and read, gap, TTLs, the vendor's ids; no prompt text. "
        "For a vendor support ticket (docs/server-side-misses.md)",
    )
    parser.add_argument(
        "--section",
        choices=("summary", "vendor-side"),
        default="summary",
        help="what --format csv writes: the totals (or --by groups), or the vendor-side rows "
        "(server-side misses by model, hour, prompt size and gap)",
    )
    parser.add_argument(
        "--fail-under",
        type=_rate,
        metavar="HIT_RATE",
        help="exit 1 when the hit rate is under this (0.8 or 80%%)",
    )
    parser.add_argument(
        "--max-invalidations",
        type=_count,
        metavar="N",
        help="exit 1 when more than N invalidations are found",
    )
    parser.add_argument(
        "--max-line-bytes",
        type=_count,
        default=DEFAULT_MAX_LINE_BYTES,
        metavar="N",
        help=f"longest record read; longer lines are skipped (default {DEFAULT_MAX_LINE_BYTES:,})",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=_count,
        default=DEFAULT_BODY_BUDGET,
        metavar="N",
        help="request bodies kept to name the field a miss changed; past it the oldest are kept "
        "as hashes, which is slower and names the element, not the field "
        f"(default {DEFAULT_BODY_BUDGET:,})",
    )
    parser.add_argument(
        "--max-groups",
        type=_count,
        default=MAX_GROUPS,
        metavar="N",
        help=f"most --by groups kept; the rest are totalled as '(other)' (default {MAX_GROUPS:,})",
    )
    parser.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="progress bar on stderr (auto: on a terminal, for inputs over 16 MiB)",
    )
    parser.set_defaults(handler=run)


def _rate(text: str) -> float:
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a hit rate such as 0.8 or 80%, got {text!r}"
        ) from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(
            f"a hit rate is between 0 and 1 (or 0% and 100%), got {text!r}"
        )
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    if args.section != "summary" and args.format != "csv":
        raise InputError(
            f"--section {args.section} chooses what --format csv writes; text and JSON hold every "
            "section: add --format csv, or leave --section out"
        )
    sources = resolve_sources(args.log)
    inputs = _inputs_of(args, sources)
    html = None if args.html is None else output_file(args.html, inputs=inputs, flag="--html")
    evidence = (
        None
        if args.evidence is None
        else output_file(args.evidence, inputs=inputs, flag="--evidence")
    )
    builder = ReportBuilder(
        vendor=args.vendor,
        strict=args.strict,
        by=args.by,
        max_groups=args.max_groups,
        body_budget=args.max_body_bytes,
        also=("hour", "key") if html is not None else (),
        worst=_WORST if html is not None else 0,
        evidence=EVIDENCE_KEPT if evidence is not None else 0,
        clear_keys=args.clear_keys,
        base_models=base_model_pairs(args.base_model),
        location=args.location,
        billing=args.billing,
    )
    _read_all(builder, sources, args.max_line_bytes, _wants_progress(args.progress, sources))
    report = builder.result()
    _notice_skipped(report)
    if html is not None:
        from .._html import render_html

        write_output(html, render_html(report), inputs=inputs, flag="--html")
    if evidence is not None:
        write_output(evidence, render_evidence(report), inputs=inputs, flag="--evidence")
    if args.format == "json":
        sys.stdout.write(orjson.dumps(report.to_json()).decode() + "\n")
    elif args.format == "csv":
        csv_of = render_vendor_side_csv if args.section == "vendor-side" else render_csv
        sys.stdout.write(csv_of(report))
    else:
        sys.stdout.write(render_text(report))
    if report.records == 0 and report.skipped:
        # Every line refused: the figures above describe no traffic, not a clean one.
        sys.stderr.write(
            f"promptcache: error: none of the {report.skipped:,} lines could be read (the reasons "
            "are above); check the log format (docs/log-format.md) and --vendor\n"
        )
        return EXIT_ERROR
    return _gates(report, args.fail_under, args.max_invalidations)


def _inputs_of(args: argparse.Namespace, sources: list[Source]) -> list[str | Path]:
    """Every file this run reads: an output must not overwrite one of them."""
    named: list[str | Path] = [source.path for source in sources if source.path is not None]
    prices = getattr(args, "prices", None) or os.environ.get(PRICES_ENV)
    return [*named, prices] if prices else named


def _wants_progress(mode: str, sources: list[Source]) -> bool:
    if mode != "auto":
        return mode == "always"
    size = sum(s.size or 0 for s in sources)
    return sys.stderr.isatty() and size >= _PROGRESS_MIN_BYTES


def _read_all(
    builder: ReportBuilder, sources: list[Source], max_line_bytes: int, progress: bool
) -> None:
    # Parsed records are trees without cycles, freed by reference counting; the cyclic collector
    # would walk every body the monitors hold, over and over (a quarter of the time). It is off
    # while reading, with a full collection every _COLLECT_EVERY lines.
    enabled = gc.isenabled()
    gc.disable()
    try:
        _read(builder, sources, max_line_bytes, progress)
    finally:
        if enabled:
            gc.enable()


def _read(
    builder: ReportBuilder, sources: list[Source], max_line_bytes: int, progress: bool
) -> None:
    if not progress:
        for source in sources:
            _read_source(builder, source, max_line_bytes, None)
        return
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        for source in sources:
            task = bar.add_task(source.name, total=source.size)

            def tick(done: int, task: Any = task) -> None:
                bar.update(task, completed=done)

            _read_source(builder, source, max_line_bytes, tick)


def _read_source(builder: ReportBuilder, source: Source, max_line_bytes: int, tick: Any) -> None:
    number = 0
    try:
        for number, line in _numbered(source, max_line_bytes, tick):
            builder.add_line(line, number, source.name)
    except (EOFError, OSError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        reason = f"the file cannot be read past this line ({type(exc).__name__}: {exc})"
        builder.unreadable(source.name, number + 1, reason)


def _numbered(source: Source, max_line_bytes: int, tick: Any) -> Iterator[tuple[int, bytes | None]]:
    with ExitStack() as stack:
        handle, raw = open_source(source)
        if source.path is not None:  # standard input stays open
            stack.enter_context(raw)
        if handle is not raw:
            stack.enter_context(handle)
        for number, line in enumerate(lines_of(handle, max_line_bytes), start=1):
            if tick is not None and number % 2048 == 0 and source.size:
                tick(raw.tell())
            if number % _COLLECT_EVERY == 0:
                gc.collect()
            yield number, line
        if tick is not None and source.size:
            tick(source.size)


def _notice_skipped(report: Report) -> None:
    if not report.skipped:
        return
    for problem in report.problems[:_NOTICES]:
        sys.stderr.write(f"promptcache: skipped {printable(str(problem))}\n")
    more = report.skipped - min(len(report.problems), _NOTICES)
    tail = f" ({more:,} more not shown; --format json names up to 100)" if more > 0 else ""
    sys.stderr.write(
        f"promptcache: {report.skipped:,} unreadable lines skipped{tail}; --strict stops at the first\n"
    )


def _gates(report: Report, fail_under: float | None, max_events: int | None) -> int:
    failed = []
    if report.records == 0 and (fail_under is not None or max_events is not None):
        failed.append("no records were read, so the log shows nothing either way")
    if fail_under is not None and (report.hit_rate is None or report.hit_rate < fail_under):
        rate = "n/a" if report.hit_rate is None else f"{report.hit_rate:.1%}"
        failed.append(f"hit rate {rate} is under --fail-under {fail_under:.1%}")
    if max_events is not None and report.events > max_events:
        failed.append(f"{report.events:,} invalidations, over --max-invalidations {max_events:,}")
    for reason in failed:
        sys.stderr.write(f"promptcache: gate failed: {reason}\n")
    return EXIT_FINDINGS if failed else EXIT_OK


def render_csv(report: Report) -> str:
    """One row per group (--by), or one row of totals; the columns of `GroupSummary.to_json`."""
    rows = [group.to_json() for group in report.groups or (report.totals(),)]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def render_text(report: Report) -> str:
    rate = "n/a" if report.hit_rate is None else f"{report.hit_rate:.1%}"
    lines = [
        f"records        {report.records:,}"
        + (f"  ({report.skipped:,} unreadable lines skipped)" if report.skipped else ""),
        f"hit rate       {rate} of input tokens read from cache"
        + _left_out(
            report.unreported_records,
            "caching",
            "vLLM needs --enable-prompt-tokens-details, SGLang --enable-cache-report",
        ),
        f"tokens         read {report.cache_read:,}  written {report.cache_write:,}  "
        f"uncached {report.uncached_input:,}  output {report.output:,}"
        + _left_out(report.output_unreported_records, "output tokens", "their output is unknown"),
        _cost_line(report),
        *_pricing_notes(report),
    ]
    if report.invalidations:
        lines.append("invalidations  (costliest first)")
        for item in report.invalidations:
            money = "" if item.cost_lost is None else f"  {_money(item.cost_lost, report.currency)}"
            money += unpriced_events_note(item)
            lines.append(
                f"  {item.cause:<20} {item.events:>6,} events  {item.tokens_lost:>12,} tokens{money}"
            )
    else:
        lines.append("invalidations  none")
    if report.below_minimum_contradicted:
        lines.append(
            f"  note: {report.below_minimum_contradicted:,} below_minimum verdict(s) withdrawn: "
            "a later response of the same key read a prefix under the documented minimum; "
            "they are left out of the figures above"
        )
    if report.vendor_side is not None:
        lines.extend(_vendor_side_text(report.vendor_side))
    if report.groups:
        lines.append(f"by {report.by}")
        names = [printable(g.group) for g in report.groups]
        width = max(len(name) for name in names)
        for name, g in zip(names, report.groups, strict=True):
            hit = "n/a" if g.hit_rate is None else f"{g.hit_rate:6.1%}"
            cost = "" if g.cost is None else f"  {_money(g.cost, report.currency)}"
            cost += unpriced_note(g)
            lines.append(
                f"  {name:<{width}}  {g.records:>8,} records  hit {hit}  "
                f"{g.invalidations:>5,} invalidations{cost}"
            )
    return "\n".join(lines) + "\n"


def _left_out(records: int, what: str, why: str) -> str:
    """A total's note: how many records did not report `what`, left out of it, and why."""
    if not records:
        return ""
    return f" ({records:,} records did not report {what} and are left out: {why})"


def _pricing_notes(report: Report) -> list[str]:
    """How the records were priced (a Vertex location's tier, a list price), with how many."""
    return [
        f"  note: {n.records:,} record{'s' if n.records != 1 else ''}: {printable(n.note)}"
        for n in report.pricing_notes
    ]


def _cost_line(report: Report) -> str:
    unpriced = (
        f"  ({report.unpriced_records:,} records unpriced)" if report.unpriced_records else ""
    )
    if report.output_unpriced_records:  # savings stay exact: output costs the same either way
        unpriced += (
            f"  (output cost of {report.output_unpriced_records:,} records unknown, not in the "
            "actual and without-caching figures)"
        )
    if report.billing != "per-token" and report.list_price is not None:
        label = "CCU" if report.billing == "ccu" else report.billing
        return (
            f"cost           not priced per token ({label}); at list prices, for comparison "
            f"only: {_money(report.list_price, report.currency)} actual, "
            f"{_money(report.list_price_without_cache, report.currency)} without caching, "
            f"{_money(report.list_savings, report.currency)} saved{unpriced}"
        )
    if report.cost is None or report.cost_without_cache is None:
        return "cost           n/a (no record could be priced)"
    return (
        f"cost           {_money(report.cost, report.currency)} actual, "
        f"{_money(report.cost_without_cache, report.currency)} without caching, "
        f"{_money(report.savings or 0.0, report.currency)} saved{unpriced}"
    )


def render_evidence(report: Report) -> str:
    """The evidence file: one JSON object a line per server-side miss (`_vendor_side.evidence`)."""
    side = report.vendor_side
    if side is None:
        return ""
    if side.evidence_left_out:
        sys.stderr.write(
            f"promptcache: --evidence holds the first {EVIDENCE_KEPT:,} server-side misses; "
            f"{side.evidence_left_out:,} more are counted in the report, not written (report a "
            "shorter span of the log to have them all)\n"
        )
    return "".join(orjson.dumps(item).decode() + "\n" for item in side.evidence)


def render_vendor_side_csv(report: Report) -> str:
    """The vendor-side rows, one per group of each grouping (`SideRow.to_json`'s columns)."""
    side = report.vendor_side
    rows: list[dict[str, Any]] = []
    if side is not None:
        rows.append({"grouping": "all", **side.total.to_json()})
        for grouping, groups in side.rows().items():
            rows.extend({"grouping": grouping, **row.to_json()} for row in groups)
    names = list(dict.fromkeys(name for row in rows for name in row)) or ["grouping", "group"]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _vendor_side_text(side: VendorSide) -> list[str]:
    total = side.total
    if not total.follow_ups:
        return ["vendor side    no follow-ups (no key had a second request that reported caching)"]
    lines = [
        f"vendor side    server-side misses  {total.server_side:,} of {total.follow_ups:,} "
        f"follow-ups ({_share(total.rate)}): an identical prefix, and the read fell short"
    ]
    titles = {"model": "model", "prompt_tokens": "prompt tokens", "gap": "gap", "hour": "hour"}
    for grouping in ("model", "prompt_tokens", "gap", "hour"):
        rows = side.rows()[grouping]
        if not rows:
            continue
        lines.append(f"  by {titles[grouping]}")
        names = [printable(row.group) for row in rows]
        width = max(len(name) for name in names)
        lines.extend(
            f"    {name:<{width}}  {_side_row(row)}" for name, row in zip(names, rows, strict=True)
        )
    return lines


def _side_row(row: SideRow) -> str:
    text = (
        f"{row.follow_ups:>7,} follow-ups  {row.server_side:>6,} misses ({_share(row.rate)})  "
        f"{row.zero_read:,} zero-read  {row.partly_read:,} partly read  "
        f"{row.under_minimum:,} under the minimum"
    )
    if row.read_under_minimum:
        text += f" ({row.read_under_minimum:,} of them read anyway)"
    facts = row.facts
    if facts is not None:
        ttl = (
            "none (evicted by use)"
            if facts.default_ttl_seconds is None
            else (f"{facts.default_ttl_seconds:,.0f} s")
        )
        kind = "implicit" if facts.marking == "automatic" else "at markers"
        minimum = (
            f"minimum {facts.minimum_tokens:,} tokens assumed (the table's default: no row names "
            "the model)"
            if facts.minimum_assumed
            else f"documented minimum {facts.minimum_tokens:,} tokens"
        )
        text += f"; {minimum}, default TTL {ttl}, cached {kind}"
    return text


def _share(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate:.1%}"
