"""
`promptcache cost --prefix-tokens P ...`: what a workload would cost with and without caching.

No response files: the workload is described by flags, priced in base-input token units from
`--write-multiplier`/`--read-multiplier`, or in money from `--model`'s prices.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import orjson
from rich import box
from rich.console import Console
from rich.table import Table

from .._economics import (
    CacheTerms,
    RepeatedGaps,
    Workload,
    break_even,
    cascade,
    choose_ttl,
    gap_counts,
    gemini_explicit_vs_implicit,
    model_switch,
    prewarm,
    ttl_options,
    ttl_seconds,
    what_if,
)
from .._errors import InputError
from .._genai_prices import vendor_of
from .._pricing import PriceTable, Rates, load_min_tokens, load_prices


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "what-if mode (no FILEs)",
        "price a workload before sending it: cost with and without caching",
    )
    add = group.add_argument
    add("--prefix-tokens", type=int, metavar="P", help="tokens of the shared, cacheable prefix")
    add("--tail-tokens", type=int, default=0, metavar="Q", help="tokens each request adds after it")
    add("--requests", type=int, default=1, metavar="N", help="requests sharing the prefix")
    add("--output-tokens", type=int, default=0, help="output tokens per request (money only)")
    add("--write-multiplier", type=float, metavar="W", help="cache-write price / base input price")
    add("--read-multiplier", type=float, metavar="R", help="cache-read price / base input price")
    add(
        "--gaps",
        metavar="LIST",
        help="seconds between requests: one value for all, or N-1 comma-separated (5m, 1h allowed)",
    )
    add(
        "--ttl",
        action="append",
        default=[],
        metavar="NAME[=W]",
        help="a TTL option to compare, e.g. 5m=1.25 1h=2 (repeat); with --model, its own options",
    )
    add("--price-date", metavar="YYYY-MM-DD", help="price as of this day (default: today)")
    add("--switch-to", metavar="MODEL", help="also price switching to MODEL mid-way (cold cache)")
    add(
        "--switch-at",
        type=int,
        metavar="K",
        help="the first request on --switch-to (default N/2+1)",
    )
    add("--cascade-to", metavar="MODEL", help="also price a cascade from --model to MODEL")
    add("--accept-rate", type=float, default=0.7, metavar="p", help="cascade: share kept (0.7)")
    add("--cache-hours", type=float, default=1.0, help="Gemini explicit cache lifetime (1)")
    add("--ping-tokens", type=int, default=16, help="tail tokens of one keep-alive request (16)")


def wants_what_if(args: argparse.Namespace) -> bool:
    return args.prefix_tokens is not None


def run(args: argparse.Namespace) -> int:
    if args.files:
        raise InputError(
            "give response FILEs (to price them) or --prefix-tokens (a what-if), not both"
        )
    workload = Workload(
        prefix_tokens=args.prefix_tokens,
        tail_tokens=args.tail_tokens,
        requests=args.requests,
        gaps=_gaps(args.gaps, args.requests),
        output_tokens=args.output_tokens,
    )
    report = _model_report(args, workload) if args.model else _unit_report(args, workload)
    if args.format == "json":
        sys.stdout.write(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        _print(report)
    return 0


# -- input ------------------------------------------------------------------------------------


def _gaps(text: str | None, requests: int) -> Sequence[float]:
    if text is None:
        return ()
    values = [_seconds(item) for item in text.split(",") if item.strip()]
    if len(values) == 1 and requests > 2:
        return RepeatedGaps(values[0], requests - 1)  # not a tuple of a trillion floats
    return tuple(values)


def _seconds(item: str) -> float:
    item = item.strip()
    try:
        return float(item)
    except ValueError:
        seconds = ttl_seconds(item)
        if seconds is None:
            raise InputError(f"--gaps: {item!r} is not a duration") from None
        return seconds


def _ttl_flag(text: str, default_write: float | None) -> tuple[str, float]:
    name, _, write = text.partition("=")
    ttl_seconds(name)  # a readable error for a bad name
    if write:
        try:
            return name, float(write)
        except ValueError:
            raise InputError(f"--ttl {text!r}: {write!r} is not a multiplier") from None
    if default_write is None:
        raise InputError(f"--ttl {text!r}: give its write multiplier, like --ttl {name}=1.25")
    return name, default_write


# -- units mode -------------------------------------------------------------------------------


def _unit_report(args: argparse.Namespace, workload: Workload) -> dict[str, Any]:
    for flag in ("switch_to", "cascade_to", "vendor", "prices", "price_date"):
        if getattr(args, flag):
            raise InputError(f"--{flag.replace('_', '-')} is about model prices: pass --model too")
    if args.read_multiplier is None or (args.write_multiplier is None and not args.ttl):
        raise InputError(
            "a what-if needs --write-multiplier and --read-multiplier (e.g. 1.25 and 0.1), "
            "or --model to take them from the model's prices"
        )
    options = [
        CacheTerms.from_multipliers(write=w, read=args.read_multiplier, ttl=name)
        for name, w in (_ttl_flag(t, args.write_multiplier) for t in args.ttl)
    ]
    if args.write_multiplier is not None:
        headline = CacheTerms.from_multipliers(
            write=args.write_multiplier, read=args.read_multiplier
        )
        if options:
            headline = replace(options[0], write=args.write_multiplier)
    else:
        headline = options[0]
    if workload.gaps and headline.ttl_seconds is None:
        raise InputError("--gaps needs a TTL to judge them against: add --ttl 5m (or 1h, ...)")
    report = {"mode": "what-if", "unit": "base-input tokens", "currency": None}
    report.update(_core(workload, headline, options, args.ping_tokens))
    return report


def _core(
    workload: Workload, headline: CacheTerms, options: Sequence[CacheTerms], ping_tokens: int
) -> dict[str, Any]:
    result = what_if(workload, headline)
    out: dict[str, Any] = {"workload": _workload_json(workload)}
    out.update(result.to_json())
    if options:
        choice = choose_ttl(workload, options)
        out["ttl_options"] = [o.to_json() for o in choice.options]
        out["best_ttl"] = choice.best.terms.name
    out["break_even"] = [
        {
            "option": o.name,
            "write_multiplier": o.write_multiplier,
            "read_multiplier": o.read_multiplier,
        }
        | _break_even_json(o)
        for o in (options or [headline])
    ]
    if workload.gaps and headline.ttl_seconds is not None:
        out["prewarm"] = prewarm(workload, headline, ping_tokens=ping_tokens).to_json()
    return out


def _break_even_json(terms: CacheTerms) -> dict[str, Any]:
    found = break_even(write=terms.write_multiplier, read=terms.read_multiplier)
    return {"requests": found.requests, "threshold": found.threshold}


def _workload_json(workload: Workload) -> dict[str, Any]:
    return {
        "prefix_tokens": workload.prefix_tokens,
        "tail_tokens": workload.tail_tokens,
        "requests": workload.requests,
        "output_tokens": workload.output_tokens,
        "gaps": _gaps_json(workload.gaps),
    }


_LISTED_GAPS = 100_000  # more repeated gaps than this are given as {"every", "count"}


def _gaps_json(gaps: Sequence[float]) -> Any:
    if isinstance(gaps, RepeatedGaps) and len(gaps) > _LISTED_GAPS:
        return {"every": gaps.gap, "count": len(gaps)}
    return [gap for gap, times in gap_counts(gaps) for _ in range(times)]


# -- money mode -------------------------------------------------------------------------------


def _model_report(args: argparse.Namespace, workload: Workload) -> dict[str, Any]:
    table = load_prices(args.prices, when=_price_date(args.price_date))
    vendor = _vendor(args.vendor, args.model)
    tokens = workload.prefix_tokens + workload.tail_tokens
    rates = table.rates(vendor, args.model, input_tokens=tokens)
    headline, options = _money_terms(rates, table, args)
    notes = _assumptions(options)
    minimum = _minimum(vendor, args.model)
    if minimum is not None and workload.prefix_tokens < minimum:
        notes.append(
            f"the prefix ({workload.prefix_tokens} tokens) is below {args.model}'s minimum "
            f"cacheable prefix ({minimum}): the vendor will not cache it"
        )
        headline = replace(headline, write=headline.input, read=headline.input)
        options = [replace(o, write=o.input, read=o.input) for o in options]
    report: dict[str, Any] = {
        "mode": "what-if",
        "unit": table.currency,
        "currency": table.currency,
        "model": args.model,
        "vendor": vendor,
        "min_tokens": minimum,
    }
    report.update(_core(workload, headline, options, args.ping_tokens))
    report["prices"] = prices_json(rates)
    if vendor == "gemini" and rates.storage_per_hour is not None:
        choice = gemini_explicit_vs_implicit(
            workload, rates, cache_hours=args.cache_hours, currency=table.currency
        )
        report["gemini"] = choice.to_json()
    _other_models(report, args, workload, table, headline)
    report["notes"] = notes
    return report


_ASSUMPTIONS = {
    "in_memory": "in_memory retention lasts 5-10 minutes of inactivity: priced at 5 (the worst case)",
    "implicit": (
        "implicit caching does not guarantee hits: priced as if every repeat hits (the most it "
        "can save)"
    ),
}


def _assumptions(options: Sequence[CacheTerms]) -> list[str]:
    return [_ASSUMPTIONS[o.name] for o in options if o.name in _ASSUMPTIONS]


def _money_terms(
    rates: Rates, table: PriceTable, args: argparse.Namespace
) -> tuple[CacheTerms, list[CacheTerms]]:
    """The headline terms and the model's retention options. Multipliers given on the command
    line price a custom option on the model's base input rate; the model's own stay beside it."""
    if args.ttl:
        raise InputError(
            "--ttl defines options from multipliers; with --model the model's own TTL options "
            "are compared (drop --ttl, or drop --model)"
        )
    options = ttl_options(rates, table.currency)
    headline = options[0] if options else _free(rates, table.currency)
    if args.write_multiplier is not None or args.read_multiplier is not None:
        custom = _with_multipliers(headline, args.write_multiplier, args.read_multiplier)
        headline = replace(custom, name="custom")
    return headline, options


def _with_multipliers(terms: CacheTerms, write: float | None, read: float | None) -> CacheTerms:
    return replace(
        terms,
        write=terms.write if write is None else terms.input * write,
        read=terms.read if read is None else terms.input * read,
    )


def _free(rates: Rates, currency: str) -> CacheTerms:
    """A model with no retention options in the tables: writes bill as input, no TTL."""
    if rates.read is None:
        raise InputError("the model's price has no cache-read rate; add 'read' to its row")
    return CacheTerms(
        name="cache",
        input=rates.input / 1e6,
        write=rates.input / 1e6,
        read=rates.read / 1e6,
        output=rates.output / 1e6,
        unit=currency,
    )


def _other_models(
    report: dict[str, Any],
    args: argparse.Namespace,
    workload: Workload,
    table: PriceTable,
    headline: CacheTerms,
) -> None:
    tokens = workload.prefix_tokens + workload.tail_tokens
    if args.switch_to:
        second = _terms_for(args.switch_to, args.vendor, table, tokens)
        at = args.switch_at or workload.requests // 2 + 1
        report["switch"] = {"to": args.switch_to} | model_switch(
            workload, headline, second, at=at
        ).to_json()
    if args.cascade_to:
        large = _terms_for(args.cascade_to, args.vendor, table, tokens)
        report["cascade"] = {"to": args.cascade_to} | cascade(
            workload, headline, large, accept_rate=args.accept_rate
        ).to_json()


def _terms_for(model: str, vendor: str | None, table: PriceTable, tokens: int) -> CacheTerms:
    rates = table.rates(_vendor(vendor, model), model, input_tokens=tokens)
    options = ttl_options(rates, table.currency)
    return options[0] if options else _free(rates, table.currency)


def _vendor(vendor: str | None, model: str) -> str:
    if vendor:
        return vendor
    found = vendor_of(model)
    if found is None:
        raise InputError(f"cannot tell which vendor serves {model!r}; pass --vendor")
    return found


def _minimum(vendor: str, model: str) -> int | None:
    try:
        return load_min_tokens().minimum(vendor, model)
    except InputError:
        return None


def _price_date(text: str | None) -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"--price-date {text!r} is not a date like 2026-11-30") from None


def prices_json(rates: Rates) -> dict[str, Any]:
    """Each figure of `rates` per million tokens, with its origin, detail and date."""
    values: dict[str, float | None] = {
        "input": rates.input,
        "output": rates.output,
        "read": rates.read,
        "storage_per_hour": rates.storage_per_hour,
    }
    values.update({f"write_{ttl}": rate for ttl, rate in rates.writes.items()})
    return {
        key: {"per_million": value} | rates.sources[key].to_json()
        for key, value in values.items()
        if value is not None and key in rates.sources
    }


# -- human output -----------------------------------------------------------------------------


def _print(report: dict[str, Any]) -> None:
    console = Console(highlight=False, soft_wrap=True)
    unit = report["unit"]
    console.print(_headline(report, unit))
    if "ttl_options" in report:
        console.print(_options_table(report, unit))
    if "prewarm" in report:
        console.print(_prewarm_table(report["prewarm"], unit))
    if "gemini" in report:
        console.print(_gemini_table(report["gemini"], unit))
    for key in ("switch", "cascade"):
        if key in report:
            console.print(_other_table(key, report[key], unit))
    if "prices" in report:
        console.print(_prices_table(report["prices"]))
    for note in report.get("notes", ()):
        console.print(f"note: {note}")


def _fmt(value: float, unit: str) -> str:
    if unit == "base-input tokens":
        return f"{value:,.1f}".removesuffix(".0")
    return f"{value:,.6f}"


def _headline(report: dict[str, Any], unit: str) -> Table:
    work = report["workload"]
    title = (
        f"{work['requests']} requests, prefix {work['prefix_tokens']:,} + tail "
        f"{work['tail_tokens']:,} tokens" + (f", {report['model']}" if "model" in report else "")
    )
    table = Table(title=title, box=box.SIMPLE, show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    if report["ttl_seconds"] is not None:
        table.add_row("cache option", f"{report['option']} (TTL {report['ttl_seconds']:,.0f} s)")
    table.add_row(f"without cache ({unit})", _fmt(report["no_cache"], unit))
    table.add_row(f"with cache ({unit})", _fmt(report["with_cache"], unit))
    table.add_row("saved", f"{report['savings']:.1%}")
    table.add_row("cache writes / reads", f"{report['writes']} / {report['reads']}")
    for row in report["break_even"]:
        n = row["requests"]
        table.add_row(
            f"break-even ({row['option']}, write {row['write_multiplier']:g}x, "
            f"read {row['read_multiplier']:g}x)",
            "never" if n is None else f"N > {row['threshold']:.2f} ({n} requests)",
        )
    return table


def _options_table(report: dict[str, Any], unit: str) -> Table:
    table = Table(title=f"TTL options (best: {report['best_ttl']})", box=box.SIMPLE)
    for column in ("option", "write", "writes", "reads", "with cache", "saved"):
        table.add_column(column, justify="left" if column == "option" else "right")
    for o in report["ttl_options"]:
        table.add_row(
            o["option"],
            f"{o['write_multiplier']:g}x",
            str(o["writes"]),
            str(o["reads"]),
            _fmt(o["with_cache"], unit),
            f"{o['savings']:.1%}",
        )
    return table


def _prewarm_table(pre: dict[str, Any], unit: str) -> Table:
    table = Table(title=f"keeping the cache warm ({pre['traffic']} traffic)", box=box.SIMPLE)
    table.add_column("what")
    table.add_column("value", justify="right")
    limit = pre["keepalive_pays_below_gap_seconds"]
    table.add_row("cold starts (writes)", str(pre["cold_starts"]))
    table.add_row("keep-alive requests that pay", str(pre["keepalive_requests"]))
    table.add_row("keep-alives save", _fmt(pre["keepalive_saves"], unit))
    table.add_row("with keep-alives", _fmt(pre["with_keepalive"], unit))
    table.add_row("keep-alives pay for gaps under", "-" if limit is None else f"{limit:,.0f} s")
    table.add_row(
        "pre-warming each burst costs (latency only)",
        _fmt(pre["prewarm_before_bursts_costs"], unit),
    )
    return table


def _gemini_table(gemini: dict[str, Any], unit: str) -> Table:
    table = Table(title="Gemini: implicit vs explicit cache", box=box.SIMPLE)
    for column in ("option", "with cache", "storage", "saved"):
        table.add_column(column, justify="left" if column == "option" else "right")
    for key in ("implicit", "explicit"):
        o = gemini[key]
        table.add_row(
            key, _fmt(o["with_cache"], unit), _fmt(o["storage"], unit), f"{o['savings']:.1%}"
        )
    rate = gemini["explicit_pays_below_implicit_hit_rate"]
    table.caption = (
        "implicit assumes every repeat hits (not guaranteed); explicit pays if fewer than "
        + ("-" if rate is None else f"{rate:.1%}")
        + " would"
    )
    return table


def _other_table(key: str, data: dict[str, Any], unit: str) -> Table:
    table = Table(title=f"{key} to {data['to']} (its cache starts cold)", box=box.SIMPLE)
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_row("with cache", _fmt(data["with_cache"], unit))
    if key == "switch":
        table.add_row("staying on the first model", _fmt(data["stay_on_first_model"], unit))
        table.add_row("cold-cache penalty", _fmt(data["cold_penalty"], unit))
    else:
        table.add_row("escalated requests", str(data["escalated_requests"]))
        table.add_row("always the large model", _fmt(data["always_large_with_cache"], unit))
        table.add_row("large model's cold writes cost", _fmt(data["large_model_cold_cost"], unit))
    return table


def _prices_table(prices: dict[str, Any]) -> Table:
    table = Table(title="prices (per 1M tokens) and where they come from", box=box.SIMPLE)
    for column in ("figure", "price", "source", "as of"):
        table.add_column(column)
    for key, figure in prices.items():
        table.add_row(key, f"{figure['per_million']:g}", figure["detail"], str(figure["as_of"]))
    return table
