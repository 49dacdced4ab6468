"""`promptcache kv [CONFIG.json]`: KV-cache capacity planning for a self-hosted model."""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from typing import Any

import orjson

from .._errors import InputError
from ..serving.kv import GIB, KVShape, offload_cost, shape_from_config
from ._io import load_json_object

_SUFFIXES = {"K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "kv",
        help="KV-cache bytes per token, concurrency for a budget, offload versus recompute",
        description=(
            "Size a model's KV cache from its Hugging Face config.json or from flags: bytes per "
            "token (2 · layers · kv_heads · head_dim · bytes; MLA and sliding-window layers from "
            "their config fields), bytes per request, how many requests a KV budget holds, and "
            "for a shared prefix: transfer over a link versus prefill again, and what sharing it "
            "across requests saves. Sizes are binary: GiB = 2**30 bytes."
        ),
    )
    parser.add_argument("config", nargs="?", help="the model's config.json ('-' for stdin)")
    shape = parser.add_argument_group("shape (instead of, or over, config.json)")
    shape.add_argument("--layers", type=int, help="transformer layers (num_hidden_layers)")
    shape.add_argument("--kv-heads", type=int, help="KV heads per layer (num_key_value_heads)")
    shape.add_argument("--head-dim", type=int, help="dimensions per head")
    shape.add_argument(
        "--bytes", type=float, help="bytes per element: 2 for bf16/fp16, 1 for an fp8 KV cache"
    )
    shape.add_argument("--sliding-window", type=int, help="tokens a sliding-window layer keeps")
    shape.add_argument("--sliding-layers", type=int, help="how many layers slide (default 0)")
    plan = parser.add_argument_group("planning")
    plan.add_argument(
        "--context",
        type=int,
        action="append",
        help="request length in tokens (repeatable; default 2048 and 32768)",
    )
    plan.add_argument(
        "--budget-gib", type=float, help="KV budget: accelerator memory minus weights"
    )
    plan.add_argument("--prefix", type=int, help="tokens of a shared prefix to cost")
    plan.add_argument(
        "--bandwidth-gibps", type=float, default=25.0, help="offload link, GiB/s (default 25)"
    )
    plan.add_argument("--params", help="model parameters for prefill FLOPs, e.g. 70B or 7e9")
    plan.add_argument("--tflops", type=float, help="effective prefill TFLOP/s, e.g. 500")
    plan.add_argument("--share", type=int, help="requests sharing the prefix at once")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    shape = _shape(args)
    payload = _plan(shape, args)
    if args.format == "json":
        sys.stdout.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        sys.stdout.write(_text(shape, payload))
    return 0


def _shape(args: argparse.Namespace) -> KVShape:
    _check_flags(args)
    flags = (args.layers, args.kv_heads, args.head_dim)
    if args.config:
        config = load_json_object(args.config, holds="a model's config.json")
        base = shape_from_config(config, bytes_per_element=args.bytes)
        _check_sliding_layers(
            args,
            layers=base.layers if args.layers is None else args.layers,
            window=base.sliding_window if args.sliding_window is None else args.sliding_window,
        )
        # A flag given (0 included: `--sliding-layers 0` means no layer slides) wins over the file.
        given = {
            "layers": args.layers,
            "kv_heads": args.kv_heads,
            "head_dim": args.head_dim,
            "sliding_window": args.sliding_window,
            "sliding_layers": args.sliding_layers,
        }
        overrides = {field: value for field, value in given.items() if value is not None}
        source = base.source
        if overrides:
            named = ", ".join("--" + field.replace("_", "-") for field in overrides)
            source += f"; overridden by {named}"
        return replace(base, **overrides, source=source)
    missing = [
        flag
        for flag, value in zip(("--layers", "--kv-heads", "--head-dim"), flags, strict=True)
        if value is None
    ]
    if args.bytes is None:
        missing.append("--bytes")
    if missing:
        raise InputError(
            f"give a config.json or the whole shape; missing {', '.join(missing)} "
            "(e.g. promptcache kv --layers 80 --kv-heads 8 --head-dim 128 --bytes 2)"
        )
    _check_sliding_layers(args, layers=args.layers, window=args.sliding_window)
    return KVShape(
        layers=args.layers,
        kv_heads=args.kv_heads,
        head_dim=args.head_dim,
        bytes_per_element=args.bytes,
        sliding_window=args.sliding_window,
        sliding_layers=args.sliding_layers or 0,
    )


def _check_flags(args: argparse.Namespace) -> None:
    """Refuse a shape flag by the name the user typed (KVShape names its own fields instead)."""
    for flag in ("layers", "kv_heads", "head_dim", "sliding_window"):
        value = getattr(args, flag)
        if value is not None and value <= 0:
            raise InputError(
                f"--{flag.replace('_', '-')} must be a positive whole number, got {value}"
            )
    if args.bytes is not None and not 0 < args.bytes < math.inf:
        raise InputError(
            f"--bytes must be a positive number of bytes per element (2 for bf16/fp16, 1 for an "
            f"fp8 KV cache), got {args.bytes}"
        )


def _check_sliding_layers(args: argparse.Namespace, *, layers: int, window: int | None) -> None:
    """`--sliding-layers` against the layer count and window it applies to (flag or file)."""
    count = args.sliding_layers
    if count is None:
        return
    where = "--layers" if args.layers is not None else "config.json"
    if not 0 <= count <= layers:
        raise InputError(
            f"--sliding-layers must be from 0 to the model's {layers} layers ({where}), got "
            f"{count}; pass how many of the {layers} layers use sliding-window attention "
            f"(0: none, {layers}: all)"
        )
    if count and window is None:
        raise InputError(
            f"--sliding-layers {count} needs the window they keep: add --sliding-window TOKENS"
        )


def _plan(shape: KVShape, args: argparse.Namespace) -> dict[str, Any]:
    budget = args.budget_gib * GIB if args.budget_gib is not None else None
    if budget is not None and not 0 < budget < math.inf:
        raise InputError(f"--budget-gib must be positive and finite, got {args.budget_gib}")
    contexts = args.context or [2048, 32768]
    payload: dict[str, Any] = {
        "shape": shape.to_json(),
        "bytes_per_token": shape.bytes_per_token,
        "budget_gib": args.budget_gib,
        "requests": [_request(shape, tokens, budget) for tokens in contexts],
        "tokens_in_budget": shape.tokens_in(budget) if budget is not None else None,
        "prefix": None,
    }
    if args.prefix is not None:
        payload["prefix"] = _prefix(shape, args)
    elif args.share is not None or args.params is not None or args.tflops is not None:
        raise InputError("--share, --params and --tflops cost a prefix: add --prefix TOKENS")
    return payload


def _request(shape: KVShape, tokens: int, budget: float | None) -> dict[str, Any]:
    if tokens <= 0:
        raise InputError(f"--context must be a positive token count, got {tokens}")
    size = shape.request_bytes(tokens)
    return {
        "tokens": tokens,
        "bytes": size,
        "gib": size / GIB,
        "concurrency": shape.concurrency(budget, tokens) if budget is not None else None,
    }


def _prefix(shape: KVShape, args: argparse.Namespace) -> dict[str, Any]:
    if args.prefix <= 0:
        raise InputError(f"--prefix must be a positive token count, got {args.prefix}")
    if (args.params is None) != (args.tflops is None):
        raise InputError("recompute time needs both --params (e.g. 70B) and --tflops (e.g. 500)")
    cost = offload_cost(
        shape,
        args.prefix,
        bandwidth_bytes_per_s=args.bandwidth_gibps * GIB,
        params=_count(args.params) if args.params is not None else None,
        flops_per_s=args.tflops * 1e12 if args.tflops is not None else None,
    )
    share = None
    if args.share is not None:
        if args.share < 1:
            raise InputError(f"--share must be at least 1 request, got {args.share}")
        saved = (args.share - 1) * cost.bytes
        share = {"requests": args.share, "saved_bytes": saved, "saved_gib": saved / GIB}
    return {
        "tokens": cost.tokens,
        "bytes": cost.bytes,
        "gib": cost.bytes / GIB,
        "bandwidth_gibps": args.bandwidth_gibps,
        "transfer_seconds": cost.transfer_seconds,
        "params": _count(args.params) if args.params is not None else None,
        "tflops": args.tflops,
        "recompute_seconds": cost.recompute_seconds,
        "offload_wins": cost.offload_wins,
        "share": share,
    }


def _count(text: str) -> float:
    """'70B', '7e9', '1.5T' -> a parameter count."""
    raw = text.strip().upper()
    scale = _SUFFIXES.get(raw[-1:], 1.0)
    number = raw[:-1] if raw[-1:] in _SUFFIXES else raw
    try:
        value = float(number) * scale
    except ValueError:
        raise InputError(f"--params must be a count like 70B or 7e9, got {text!r}") from None
    if value <= 0:
        raise InputError(f"--params must be positive, got {text!r}")
    return value


def _text(shape: KVShape, payload: dict[str, Any]) -> str:
    lines = [_per_token_line(shape)]
    if shape.source != "flags":  # what the file said and what was assumed or overridden
        lines.append(f"  shape from {shape.source}")
    budget = payload["budget_gib"]
    for row in payload["requests"]:
        line = f"{row['tokens']:>9,} tokens: {row['gib']:.2f} GiB per request"
        if row["concurrency"] is not None:
            line += f"; {row['concurrency']:,} fit in {budget:g} GiB"
        lines.append(line)
    if budget is not None:
        fit = payload["tokens_in_budget"]
        amount = "any length (every layer slides)" if fit is None else f"{fit:,} tokens"
        lines.append(f"a {budget:g} GiB budget holds {amount} of one sequence")
    if payload["prefix"]:
        lines += _prefix_lines(payload["prefix"])
    return "\n".join(lines) + "\n"


def _per_token_line(shape: KVShape) -> str:
    if shape.latent_dim is not None:
        how = f"{shape.layers} layers × {shape.latent_dim} latent dims (MLA)"
    else:
        how = f"2 × {shape.layers} layers × {shape.kv_heads} KV heads × {shape.head_dim} dims"
    line = (
        f"KV per token: {shape.bytes_per_token:,} bytes ({shape.bytes_per_token / 2**20:.2f} MiB)"
        f" = {how} × {shape.bytes_per_element:g} bytes"
    )
    if shape.sliding_layers:
        line += (
            f"\n  {shape.sliding_layers} of {shape.layers} layers keep only the last "
            f"{shape.sliding_window:,} tokens: {shape.bytes_per_token_beyond_window:,} bytes "
            "per token past the window"
        )
    return line


def _prefix_lines(prefix: dict[str, Any]) -> list[str]:
    line = (
        f"prefix of {prefix['tokens']:,} tokens: {prefix['gib']:.2f} GiB; "
        f"{prefix['transfer_seconds']:.2f} s over {prefix['bandwidth_gibps']:g} GiB/s"
    )
    if prefix["recompute_seconds"] is not None:
        verdict = "offload wins" if prefix["offload_wins"] else "recompute wins"
        line += (
            f" vs {prefix['recompute_seconds']:.2f} s to recompute "
            f"({prefix['params'] / 1e9:g}B parameters at {prefix['tflops']:g} TFLOP/s): {verdict}"
        )
    lines = [line]
    if prefix["share"]:
        share = prefix["share"]
        lines.append(
            f"shared by {share['requests']:,} requests: one copy instead of "
            f"{share['requests']:,} saves {share['saved_gib']:.2f} GiB"
        )
    return lines
