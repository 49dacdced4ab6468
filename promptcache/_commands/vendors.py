"""`promptcache vendors`: every request format's cache rules, and the names that select it."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

from .._pricing import load_min_tokens
from ..vendors import VENDORS, Vendor


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "vendors",
        help="list each vendor's cache rules and the names --vendor accepts",
        description=(
            "Print every request format promptcache reads, the names and aliases that select it "
            "(any case), and the cache rules it assumes: what is cached (markers or every prefix), "
            "breakpoint budget, TTLs, match granularity, minimum prefix (from the shipped table; "
            "PROMPTCACHE_MIN_TOKENS overrides it), render order, and which settings invalidate "
            "which part of the cache."
        ),
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    table = load_min_tokens()
    listed = [v.to_json(table.minimum(v.family, "")) for v in VENDORS]
    if args.format == "json":
        sys.stdout.write(orjson.dumps(listed, option=orjson.OPT_INDENT_2).decode() + "\n")
        return 0
    console = Console(file=sys.stdout, width=max(100, Console().width))
    for vendor, described in zip(VENDORS, listed, strict=True):
        console.print(_table(vendor, described["rules"]))
    return 0


def _table(vendor: Vendor, rules: dict[str, Any]) -> Table:
    table = Table(
        title=f"{vendor.title}: --vendor {', '.join((vendor.name, *vendor.aliases))}",
        title_justify="left",
        show_header=False,
    )
    table.add_column("rule", style="bold")
    table.add_column("value")
    for label, value in _rows(rules):
        table.add_row(label, value)
    return table


def _rows(rules: dict[str, Any]) -> list[tuple[str, str]]:
    switch = rules["explicit_switch"]
    cached = (
        "only at cache markers: a request without any caches nothing"
        if rules["marking"] == "explicit"
        else "every prefix, automatically"
        + (f" (explicit only when {switch['setting']} = {switch['value']!r})" if switch else "")
    )
    ttl = rules["default_ttl_seconds"]
    rows = [
        ("cached", cached),
        ("breakpoints", _breakpoints(rules)),
        ("breakpoint TTLs", ", ".join(rules["ttls"]) or "none to choose"),
        ("default lifetime", "LRU eviction, no TTL" if ttl is None else f"{ttl:.0f} s"),
        ("TTL settings", _settings(rules) or "none"),
        ("granularity", f"reads match within {rules['granularity_tokens']} tokens"),
        ("minimum prefix", f"{rules['min_tokens_default']} tokens by default (per model: table)"),
        ("render order", " -> ".join(rules["render_order"])),
    ]
    rows += [
        (f"{s['path']} changed", f"{s['cause']}: drops {s['drops']}") for s in rules["invalidating"]
    ]
    if rules["miss_reasons"]:
        reasons = ", ".join(f"{k} -> {v}" for k, v in rules["miss_reasons"].items())
        rows.append(("vendor's miss reasons", reasons))
    return rows


def _settings(rules: dict[str, Any]) -> str:
    """Each request-wide TTL setting, with the values it accepts where the vendor lists them."""
    accepted = rules["setting_ttls"]
    return ", ".join(
        f"{path} ({' or '.join(accepted[path])})" if path in accepted else path
        for path in rules["ttl_settings"]
    )


def _breakpoints(rules: dict[str, Any]) -> str:
    if not rules["max_breakpoints"]:
        return "none (no markers)"
    text = f"up to {rules['max_breakpoints']}"
    if rules["lookback_blocks"] is not None:
        text += f", each finds an entry at most {rules['lookback_blocks']} content blocks back"
    if rules["ttl_order"] == "non-increasing":
        text += "; a longer TTL may not follow a shorter one"
    if rules["breakpoints_need_model"]:
        text += " (models that support explicit breakpoints only)"
    return text
