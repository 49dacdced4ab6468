"""`promptcache demo`: an agent session against a vendor's cache EMULATION, offline, in seconds."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import orjson
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from .._demo import MODELS, DemoStep, run_demo
from .._report import money
from ..sim import EMULATION
from ..vendors import get_vendor
from ._io import vendor_name

_EXPLAIN = (
    "An agent session (6 tools, a long system prompt, 2 documents, parallel tool calls) through "
    "the real {sdk} SDK against promptcache's offline EMULATION of the {vendor} cache. No key, no "
    "network: the numbers are emulated, not billed."
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="run an agent session against an offline cache emulation and show the savings",
        description=(
            "Run a realistic agent session through the vendor's real SDK against promptcache's "
            "offline cache emulation: per-request cache reads, writes and cost against the "
            "no-cache cost; then a timestamp slipped into the system prompt, caught by the "
            "monitor and explained by diff."
        ),
    )
    parser.add_argument(
        "--vendor",
        type=vendor_name,
        default="anthropic",
        metavar="VENDOR",
        help="whose cache to emulate: anthropic (default), openai, openai-responses, gemini, or "
        "engine (vLLM), or an alias (`promptcache vendors`)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    if args.format == "json":
        steps = run_demo(args.vendor)
        sys.stdout.write(
            orjson.dumps(_json(args.vendor, steps), option=orjson.OPT_INDENT_2).decode()
        )
        sys.stdout.write("\n")
        return 0
    console = Console()
    sdk = get_vendor(args.vendor).sdk
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task(f"requests to the emulated {args.vendor} cache", total=None)

        def advance(step: DemoStep) -> None:
            progress.update(task, total=step.of, completed=step.number)

        steps = run_demo(args.vendor, on_step=advance)
    console.print(_EXPLAIN.format(sdk=sdk, vendor=args.vendor), style="dim")
    console.print(_table(args.vendor, steps))
    _summary(console, steps)
    return 0


def _money(value: float | None, currency: str | None) -> str:
    """An amount in the price table's currency ("$0.0123", "0.0123 EUR"); "-" when unpriced."""
    return "-" if value is None or currency is None else money(value, currency)


def _table(vendor: str, steps: list[DemoStep]) -> Table:
    model = MODELS[vendor]
    table = Table(title=f"{vendor} {model} (EMULATED cache)", title_justify="left")
    for name in ("#", "request", "read", "written", "uncached", "cost", "without cache"):
        table.add_column(name, justify="left" if name == "request" else "right")
    for step in steps:
        usage = step.usage
        table.add_row(
            str(step.number),
            step.label,
            f"{usage.cache_read or 0:,}",
            f"{usage.cache_write or 0:,}",
            f"{usage.uncached_input:,}",
            _money(step.cost, step.currency),
            _money(step.cost_without_cache, step.currency),
            style="red" if step.broken else None,
        )
    return table


def _summary(console: Console, steps: list[DemoStep]) -> None:
    session = [s for s in steps if not s.broken]
    read = sum(s.usage.cache_read or 0 for s in session)
    total = sum(s.usage.total_input for s in session)
    console.print(
        f"\n[bold]Session[/bold]: {read:,} of {total:,} input tokens read from the cache "
        f"({read / total:.0%})."
    )
    unpriced = next((s.unpriced for s in session if s.unpriced), None)
    if unpriced:
        console.print(f"No cost: {unpriced}.")
    elif all(s.cost is not None for s in session):
        spent = sum(s.cost or 0 for s in session)
        without = sum(s.cost_without_cache or 0 for s in session)
        currency = session[0].currency
        console.print(
            f"Cost {_money(spent, currency)} instead of {_money(without, currency)} without "
            "caching: "
            f"[green]{1 - spent / without:.0%} saved[/green]."
        )
    last = steps[-1]
    event = last.invalidation
    if event is None:
        console.print("[red]The monitor saw no miss on the broken request (unexpected).[/red]")
        return
    console.print(f"\n[bold red]Request {last.number}: a timestamp in the system prompt[/bold red]")
    console.print(f"Monitor: {event.message()}")
    if last.diff:
        console.print(
            f"Diff: cause [bold]{last.diff['cause']}[/bold] at {last.diff['path']} byte "
            f"{last.diff['offset']}: {last.diff['before']!r} -> {last.diff['after']!r}; "
            f"{last.diff['tokens_lost']:,} tokens no longer read from the cache."
        )
    console.print(
        "Fix: keep per-request values in the tail (Prompt.with_tail); "
        "`promptcache lint` and the volatile guard flag them before they ship."
    )
    console.print(f"\n[dim]{EMULATION}.[/dim]")


def _json(vendor: str, steps: list[DemoStep]) -> dict[str, Any]:
    session = [s for s in steps if not s.broken]
    priced = all(s.cost is not None for s in session)
    last = steps[-1]
    return {
        "emulation": True,
        "label": EMULATION,
        "vendor": vendor,
        "model": MODELS[vendor],
        "currency": next((s.currency for s in steps if s.currency is not None), None),
        "requests": [
            {
                "number": s.number,
                "label": s.label,
                "cache_read": s.usage.cache_read,
                "cache_write": s.usage.cache_write,
                "uncached_input": s.usage.uncached_input,
                "cost": s.cost,
                "cost_without_cache": s.cost_without_cache,
                "unpriced": s.unpriced,
                "broken": s.broken,
            }
            for s in steps
        ],
        "session": {
            "cache_read": sum(s.usage.cache_read or 0 for s in session),
            "total_input": sum(s.usage.total_input for s in session),
            "cost": sum(s.cost or 0 for s in session) if priced else None,
            "cost_without_cache": sum(s.cost_without_cache or 0 for s in session)
            if priced
            else None,
        },
        "invalidation": last.invalidation.to_json() if last.invalidation else None,
        "diff": last.diff or None,
    }
