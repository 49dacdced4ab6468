"""
`promptcache cost FILE...`: price vendor responses, with and without caching.
`promptcache cost --prefix-tokens P ...`: price a workload before sending it (see `_cost_whatif`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

import orjson

from .._errors import InputError, shown_name
from .._pricing import Cost, PriceTable, Rates, cost, load_prices, located_rates
from .._usage import CacheUsage
from ..debug.diff import unknown_model
from ..vendors import Vendor, detect_response_vendor, get_vendor
from ..vendors._platform import named_models, unserved_base, unserved_base_fix
from . import _cost_whatif
from ._io import (
    add_base_model_option,
    add_max_bytes_option,
    add_pricing_options,
    add_vendor_option,
    base_models,
    load_json_object,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "cost",
        help="price responses, or a workload before sending it: cost with and without caching",
        description=(
            "Read each FILE, a vendor response as JSON (or only its usage object), into one "
            "usage record, and price it (prices from genai-prices and the dated table; override "
            "with --prices or PROMPTCACHE_PRICES). The total line sums every file. Without FILEs, "
            "--prefix-tokens starts a what-if: the workload's cost with and without caching, the "
            "break-even request count, the TTL to choose, keep-alives, and other models. Exit 1 "
            "when a response's own numbers contradict each other (each is named as a problem): "
            "its price rests on them."
        ),
    )
    parser.add_argument("files", nargs="*", help="response JSON files ('-' for stdin)")
    add_vendor_option(parser, "the API that answered (a what-if infers it from --model)")
    add_max_bytes_option(parser)
    parser.add_argument("--model", help="the model, when the response does not name one")
    add_base_model_option(parser)
    add_pricing_options(parser, location="", billing="total")
    parser.add_argument("--prices", help="a JSON price file merged over the shipped table")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    _cost_whatif.add_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if _cost_whatif.wants_what_if(args):
        return _cost_whatif.run(args)
    if not args.files:
        raise InputError(
            "promptcache cost needs response FILEs to price, or --prefix-tokens for a what-if "
            "(e.g. --prefix-tokens 10000 --tail-tokens 200 --requests 100 --write-multiplier "
            "1.25 --read-multiplier 0.1)"
        )
    table = load_prices(args.prices)
    rows = []
    for file in args.files:
        response = load_json_object(
            file, holds="a vendor response or its usage", max_bytes=args.max_bytes
        )
        vendor = get_vendor(args.vendor) if args.vendor else _detected(response, file)
        usage = vendor.read_usage(response)
        model = args.model or usage.model
        if not model:
            raise InputError(f"{file}: the response names no model; pass --model")
        priced = _priced_as(usage, model, vendor, table, args.base_model, args)
        rows.append((file, usage, priced))
    if args.format == "json":
        payload = {
            "as_of": table.as_of,
            "currency": table.currency,
            "responses": [
                _json(f, u, c)
                | {"prices": _cost_whatif.prices_json(_rates(table, u, c, args.location))}
                for f, u, c in rows
            ],
            "total": _total(rows),
        }
        sys.stdout.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        sys.stdout.write(_text(rows, table.as_of, table.currency))
    # A price computed from numbers that contradict each other is not a clean answer.
    return 1 if any(usage.problems for _, usage, _ in rows) else 0


def _priced_as(
    usage: CacheUsage,
    model: str,
    vendor: Vendor,
    table: PriceTable,
    base_model: str | None,
    args: argparse.Namespace,
) -> Cost:
    """The cost at the rates of the model `model` serves (`--base-model`), said in a note; a
    model id that names no model, unmapped, is refused rather than priced on a guess."""
    served = named_models(vendor, base_models(model, base_model))
    priced = served.rules_model(model)
    base = unserved_base(served, model) if unknown_model(served, priced) else None
    if base is not None:
        raise InputError(
            f"--base-model {shown_name(base)}: cannot tell which model {shown_name(model)} "
            f"serves, so its price is unknown; {unserved_base_fix(base)}"
        )
    if unknown_model(served, priced):
        raise InputError(
            f"cannot tell which model {shown_name(model)} serves (an application inference "
            "profile?), so its price is unknown; pass --base-model with the foundation model id "
            "`aws bedrock get-inference-profile` lists for it"
        )
    price = cost(
        usage,
        model=priced,
        vendor=vendor.name,
        prices=table,
        location=args.location,
        billing=args.billing,
    )
    if priced == model:
        return price
    note = f"priced as {priced}, the model {shown_name(model)} serves (--base-model)"
    return replace(price, notes=(*price.notes, note))


def _detected(response: dict[str, Any], file: str) -> Vendor:
    try:
        return detect_response_vendor(response)
    except InputError as exc:
        raise InputError(f"{file}: {exc}") from None


def _rates(table: PriceTable, usage: CacheUsage, price: Cost, location: str | None) -> Rates:
    """The rates the cost was priced at (a Vertex location's tier included)."""
    rates = table.rates(price.vendor, price.model, input_tokens=usage.total_input)
    return located_rates(rates, price.vendor, price.model, location)[0]


def _json(file: str, usage: CacheUsage, price: Cost) -> dict[str, Any]:
    return {
        "file": file,
        "model": price.model,
        "usage": {
            "uncached_input": usage.uncached_input,
            "cache_write": usage.cache_write,
            "cache_read": usage.cache_read,
            "output": usage.output,
            "total_input": usage.total_input,
            "cache_write_by_ttl": dict(usage.cache_write_by_ttl),
            "problems": list(usage.problems),
        },
        "cost": {
            "actual": price.actual,
            "without_cache": price.without_cache,
            "savings": price.savings,
            "breakdown": dict(price.breakdown),
            "notes": list(price.notes),
            "billing": price.billing,
            "list_price": price.list_price,
        },
    }


def _total(rows: list[tuple[str, CacheUsage, Cost]]) -> dict[str, Any]:
    """The sums; `actual` and `without_cache` None when a response's output cost is unknown
    (`output_unreported` counts those), the savings exact either way."""
    unknown = sum(not c.output_reported for _, _, c in rows)
    # a bill that is not per token (provisioned, CCU) has no per-token figure to add
    apart = sum(c.billing != "per-token" for _, _, c in rows)
    actual = sum(c.actual or 0.0 for _, _, c in rows)
    without = sum(c.without_cache or 0.0 for _, _, c in rows)
    return {
        "actual": None if unknown or apart else actual,
        "without_cache": None if unknown or apart else without,
        "savings": sum(c.savings for _, _, c in rows if c.billing == "per-token"),
        "output_unreported": unknown,
        "not_per_token": apart,
    }


def _text(rows: list[tuple[str, CacheUsage, Cost]], as_of: str, currency: str) -> str:
    lines = []
    for file, usage, price in rows:
        out = "unknown" if usage.output is None else usage.output
        lines.append(
            f"{file}: {price.model}  in {usage.total_input} (uncached {usage.uncached_input}, "
            f"write {usage.cache_write}, read {usage.cache_read})  out {out}  "
            + _priced(price, currency)
        )
        lines += [f"  problem: {p}" for p in usage.problems]
        lines += [f"  note: {n}" for n in price.notes]  # what the figures could not include
    total = _total(rows)
    if total["not_per_token"]:
        others = (
            f"; saved {total['savings']:.6f} on the others"
            if total["not_per_token"] < len(rows)
            else ""
        )
        lines.append(
            f"total: {currency} unknown: {total['not_per_token']} of {len(rows)} responses are "
            f"not priced per token (provisioned / CCU){others} (prices as of {as_of})"
        )
    elif total["output_unreported"]:
        lines.append(
            f"total: {currency} unknown: {total['output_unreported']} of {len(rows)} responses "
            f"did not report their output tokens; saved {total['savings']:.6f} "
            f"(prices as of {as_of})"
        )
    else:
        lines.append(
            f"total: {currency} {total['actual']:.6f}, without caching "
            f"{total['without_cache']:.6f}, saved {total['savings']:.6f} (prices as of {as_of})"
        )
    return "\n".join(lines) + "\n"


def _priced(price: Cost, currency: str) -> str:
    if price.billing != "per-token":
        label = "CCU" if price.billing == "ccu" else price.billing
        listed = "unknown" if price.list_price is None else f"{price.list_price:.6f}"
        return f"not priced per token ({label}); {currency} {listed} at list prices"
    if price.actual is None or price.without_cache is None:
        return (
            f"{currency} unknown (output tokens not reported), saved {price.savings:.6f} by caching"
        )
    return f"{currency} {price.actual:.6f} vs {price.without_cache:.6f} without cache"
