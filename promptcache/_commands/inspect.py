"""`promptcache inspect FILE`: show a request's cache layout, block by block."""

from __future__ import annotations

import argparse
import io
import os
import sys
from typing import Any

import orjson

from .._errors import InputError
from .._ingest import Ingested, prompt_from_request
from .._parts import Message, Part, Tool
from .._plan import plan
from .._pricing import load_min_tokens
from .._printable import printable
from .._prompt import Layer, Prompt, Rendered
from .._tokens import DEFAULT_COUNTER
from ..adapters.anthropic import check_markers, markers_in_order
from ..debug.diff import unknown_model
from ..vendors import VENDOR_NAMES, get_vendor
from ..vendors._elements import get_path
from ..vendors._openai import openai_model
from ..vendors.bedrock_converse import cache_point_segments
from ._io import add_base_model_option, add_max_bytes_option, add_vendor_option, load_json_object


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "inspect",
        help="show a request's layers, blocks, token estimates, hashes and breakpoints",
        description=(
            "Read FILE, a JSON object holding the keyword arguments of a vendor SDK call (or a "
            "dumped promptcache Prompt), and print its cache layout: layers, blocks, token "
            "estimates, hash prefixes, where the breakpoints go, and volatile-looking values in "
            "the stable layers."
        ),
    )
    parser.add_argument(
        "file", help="JSON file with SDK keyword arguments or a dumped Prompt ('-' for stdin)"
    )
    add_vendor_option(parser, "the request's format")
    add_max_bytes_option(parser)
    parser.add_argument("--model", help="the model, when FILE does not name one")
    add_base_model_option(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument(
        "--bar",
        choices=("auto", "always", "never"),
        default="auto",
        help="draw the layout as a bar of layers and breakpoints (auto: on a terminal)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    data = load_json_object(
        args.file, holds="SDK keyword arguments or a dumped Prompt", max_bytes=args.max_bytes
    )
    ingested = _ingest(data, args.vendor)
    model = args.model or ingested.model
    # the model whose minimum and TTLs apply: the one an id naming none serves (--base-model)
    served = args.base_model or model
    rendered = ingested.prompt.render()
    added = _added(data, ingested.vendor, served)
    report = _report(ingested, served, rendered, added)
    report["model"] = model
    report["serves"] = args.base_model
    report["vendor_added"] = added
    report["markers"] = _markers(_as_sent_to(data, args.base_model), ingested.vendor)
    report["markers"]["notes"] = _uncached_points(data, ingested.vendor, served)
    report["ttl_settings"] = _ttl_settings(data, ingested.vendor)
    report["markers"]["problems"] += _refused_ttls(report["ttl_settings"], ingested.vendor)
    report["cached_content"] = _cached_content(data, ingested.vendor)
    report["unestimated"] = [w for w in _unestimated(data, ingested.vendor) if w not in added]
    if report["unestimated"]:
        report["breakpoints"]["notes"].append(
            "the token counts leave out what the vendor adds (below); the prefix is longer than "
            "counted here, so a minimum it seems under may not hold"
        )
    report["also_fits"] = [] if args.vendor else _also_fits(data, ingested.vendor)
    if args.format == "json":
        sys.stdout.write(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        if args.bar == "always" or (args.bar == "auto" and sys.stdout.isatty()):
            color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
            sys.stdout.write(layout_bar(report, color=color))
        sys.stdout.write(_text(report))
    return 1 if report["markers"]["problems"] else 0


_BAR_WIDTH = 64
_LAYER_STYLES = ("blue", "magenta", "green", "yellow", "cyan", "red")
# Without colour (a pipe, NO_COLOR) the layers are told apart by their glyph instead.
_LAYER_GLYPHS = ("█", "▓", "▒", "░", "#", "=")


def layout_bar(report: dict[str, Any], *, color: bool, width: int = _BAR_WIDTH) -> str:
    """
    The request as one bar: a segment per layer, as wide as its share of the tokens, and under it
    a `^` where each planned breakpoint ends its block; a legend names the layers.
    """
    from rich.console import Console
    from rich.text import Text

    blocks = report["blocks"]
    total = sum(b["tokens"] for b in blocks) or 1
    ends, at = [], 0
    for block in blocks:
        at += block["tokens"]
        ends.append(min(width - 1, max(0, round(at / total * width) - 1)))
    layers = list(dict.fromkeys(b["layer"] for b in blocks))
    style = {layer: _LAYER_STYLES[i % len(_LAYER_STYLES)] for i, layer in enumerate(layers)}
    glyph = {
        layer: "█" if color else _LAYER_GLYPHS[i % len(_LAYER_GLYPHS)]
        for i, layer in enumerate(layers)
    }
    bar, cells = Text(), 0
    for layer in layers:
        tokens = sum(b["tokens"] for b in blocks if b["layer"] == layer)
        cells_here = max(1, round(tokens / total * width)) if tokens else 0
        cells_here = min(cells_here, width - cells) if layer != layers[-1] else width - cells
        bar.append(glyph[layer] * max(cells_here, 0), style=style[layer])
        cells += max(cells_here, 0)
    marks = [" "] * width
    for bp in report["breakpoints"]["planned"]:
        index = bp.get("block_index")
        if isinstance(index, int) and 0 <= index < len(ends):
            marks[ends[index]] = "^"
    legend = Text("  ").join(
        Text.assemble((glyph[layer], style[layer]), f" {layer}") for layer in layers
    )
    console = Console(
        file=io.StringIO(),
        force_terminal=color,
        color_system="standard" if color else None,
        width=width + 20,
    )
    console.print(bar)
    console.print("".join(marks).rstrip() or "(no breakpoints planned)", highlight=False)
    console.print(legend, highlight=False)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    return str(out) + "\n"


# Where a Gemini request names an explicit cache (`caches.create`) it is read from.
_CACHED_CONTENT = (
    "cached_content",
    "cachedContent",
    "config.cached_content",
    "config.cachedContent",
)


def _as_sent_to(data: dict[str, Any], base_model: str | None) -> dict[str, Any]:
    """The request as the marker check reads it: sent to the model its id serves (the 1-hour
    option is the served model's), when --base-model names it."""
    if base_model is None:
        return data
    key = "modelId" if "modelId" in data else "model"
    return {**data, key: base_model}


def _added(data: dict[str, Any], vendor: str, model: str | None) -> dict[str, int]:
    """What the vendor adds that it documents a size for: counted into the prefix."""
    return get_vendor(vendor).added_tokens(data, model) if vendor in VENDOR_NAMES else {}


def _unestimated(data: dict[str, Any], vendor: str) -> list[str]:
    """What the estimate cannot count: tokens the vendor adds that the file does not hold."""
    return get_vendor(vendor).unestimated(data) if vendor in VENDOR_NAMES else []


def _cached_content(data: dict[str, Any], vendor: str) -> str | None:
    """The explicit Gemini cache the request reads before everything in the file, if it names one."""
    if vendor != "gemini":
        return None
    for path in _CACHED_CONTENT:
        value = get_path(data, path)
        if isinstance(value, str) and value:
            return value
    return None


def _also_fits(data: dict[str, Any], vendor: str) -> list[str]:
    """
    Other formats a detected request reads as just as well. OpenAI's Chat Completions and the
    self-hosted engines take the same body; only a model name OpenAI serves (`gpt-4o`) or an
    engine's own field (`cache_salt`, a `org/model` name) tells them apart, and their caches
    differ (OpenAI's minimum and 128-token steps; an engine's blocks on one replica).
    """
    if vendor != "openai" or openai_model(data.get("model")):
        return []
    engine = get_vendor("engine")
    ties = engine.misfit(data) is None and engine.signs(data) <= 0  # no sign of an engine either
    return ["engine"] if ties else []


def _ttl_settings(data: dict[str, Any], vendor: str) -> dict[str, Any]:
    """The request-wide TTL settings the format knows (`CacheRules.ttl_settings`) it carries."""
    if vendor not in VENDOR_NAMES:
        return {}
    found = {path: get_path(data, path) for path in get_vendor(vendor).rules.ttl_settings}
    return {path: value for path, value in found.items() if value is not None}


def _refused_ttls(settings: dict[str, Any], vendor: str) -> list[str]:
    """A request-wide TTL the format does not accept: the API refuses the whole request."""
    if vendor not in VENDOR_NAMES:
        return []
    spec = get_vendor(vendor)
    return [
        f"{path} is {value!r}, which {spec.title} does not accept; use one of {list(accepted)}"
        for path, value in settings.items()
        if (accepted := spec.rules.setting_ttls.get(path)) is not None and value not in accepted
    ]


def _ingest(data: dict[str, Any], vendor: str | None) -> Ingested:
    if str(data.get("format", "")).startswith("promptcache.prompt/"):
        return Ingested(
            prompt=Prompt.from_json(data, volatile="ignore"), model=None, vendor=vendor or "neutral"
        )
    return prompt_from_request(data, vendor)


def _report(
    ingested: Ingested, model: str | None, rendered: Rendered, added: dict[str, int]
) -> dict[str, Any]:
    blocks = [
        {
            "layer": str(b.layer),
            "path": b.path,
            "role": b.role,
            "tokens": b.tokens,
            "parts": b.parts,
            "hash": b.digest,
            "summary": _summary(ingested.prompt.layer(b.layer)[b.index]),
        }
        for b in rendered
    ]
    return {
        "vendor": ingested.vendor,
        "model": model,
        "counter": rendered.counter,
        "tokens": {
            "total": rendered.tokens,
            "cacheable_prefix": sum(b.tokens for b in rendered.prefix),
            # documented tokens the vendor puts before the request's own (a tool-use prompt)
            "vendor_added": sum(added.values()),
            **{str(layer): rendered.layer_tokens(layer) for layer in Layer},
        },
        "prefix_hash": rendered.prefix_hash.hex()[:12] or None,
        "blocks": blocks,
        "breakpoints": _breakpoints(ingested, model, rendered, sum(added.values())),
        "volatile": _volatile(ingested.prompt),
    }


def _breakpoints(
    ingested: Ingested, model: str | None, rendered: Rendered, added: int
) -> dict[str, Any]:
    if ingested.vendor not in VENDOR_NAMES or model is None:
        return {"planned": [], "notes": ["pass --vendor and --model to plan breakpoints"]}
    try:
        # The vendor's own tokens come first, so every prefix is `added` longer than counted:
        # the planner checks the request's own tokens plus those against the model's minimum.
        result = plan(rendered, vendor=ingested.vendor, model=model, vendor_added=added)
    except InputError as exc:  # a model whose minimum nobody can tell: said, not guessed
        return {"planned": [], "notes": [str(exc)]}
    # `part`: the content block inside a message that carries the marker (a lagging breakpoint in
    # a parallel tool fan-out, path `history[4].content[2]`); None: the block's last one.
    return {
        "planned": [
            {
                "path": bp.path,
                "block_index": bp.block_index,
                "part": bp.part,
                "ttl": bp.ttl,
                "reason": bp.reason,
            }
            for bp in result.breakpoints
        ],
        "notes": list(result.notes),
    }


def _markers(data: dict[str, Any], vendor: str) -> dict[str, Any]:
    """
    The cache markers the file already carries, and what the API would refuse about them (more
    than four, a 1h marker after a 5m one). Anthropic only: the other vendors take no markers.
    """
    try:
        own = get_vendor(vendor).check_markers
    except InputError:  # a dumped Prompt: no request format, no markers
        own = None
    if own is not None:
        found, refused = own(data)
        return {"present": [{"path": w, "ttl": ttl} for w, ttl in found], "problems": refused}
    if vendor != "anthropic":
        return {"present": [], "problems": []}
    try:
        present = list(markers_in_order(data))
    except InputError as exc:  # a marker on a thinking block
        return {"present": [], "problems": [str(exc)]}
    problems: list[str] = []
    try:
        check_markers(data)
    except InputError as exc:
        problems.append(str(exc))
    return {"present": [{"path": w, "ttl": ttl} for w, ttl in present], "problems": problems}


def _uncached_points(data: dict[str, Any], vendor: str, model: str | None) -> list[str]:
    """The cache points already in a Converse file that Bedrock caches nothing at: fewer tokens
    than the minimum since the one before (AWS counts it per cache point). Not refusals."""
    if vendor != "bedrock-converse" or not model:
        return []
    spec = get_vendor(vendor)
    if unknown_model(spec, model):
        return []  # its minimum is unknown: the breakpoint notes say so
    minimum = load_min_tokens().minimum(spec.family, model)
    return [
        f"{path}: about {tokens:,} tokens since {before or 'the start'}, under {model}'s "
        f"minimum of {minimum}: Bedrock counts the minimum per cache point and caches nothing "
        "there (the request still succeeds)"
        for path, tokens, before in cache_point_segments(data, DEFAULT_COUNTER.count)
        if tokens < minimum
    ]


def _summary(part: Part) -> str:
    """A few words that tell the block apart: a tool's name, the start of a text."""
    if isinstance(part, Tool):
        return part.name
    text = part.text if not isinstance(part, Message) else part.text or _kinds(part)
    flat = " ".join(text.split())
    return flat if len(flat) <= 40 else flat[:39] + "…"


def _kinds(message: Message) -> str:
    return "+".join(type(p).__name__ for p in message.content)


def _volatile(prompt: Prompt) -> list[dict[str, Any]]:
    return [
        {"path": path, "kind": match.label, "value": match.value, "offset": match.offset}
        for path, match in prompt.volatile_values()
    ]


def _also_fits_lines(report: dict[str, Any]) -> list[str]:
    others = report.get("also_fits") or []
    if not others:
        return []
    named = ", ".join(get_vendor(name).title for name in others)
    choices = " or ".join(f"--vendor {name}" for name in [report["vendor"], *others])
    return [
        f"note: this request fits both {get_vendor(report['vendor']).title} and {named}: "
        f"its shape and model do not say which, and their caches differ; read as "
        f"{report['vendor']} here. Pass {choices} to choose"
    ]


def _text(report: dict[str, Any]) -> str:
    tokens = report["tokens"]
    lines = [
        f"vendor {report['vendor']}  model {report['model'] or '?'}"
        + (f" (serves {report['serves']})" if report.get("serves") else "")
        + f"  tokens {tokens['total']:,} ({report['counter']})",
        *_also_fits_lines(report),
        "",
        f"{'block':<14} {'role':<10} {'tokens':>8}  {'hash':<12}  content",
    ]
    current = None
    for block in report["blocks"]:
        if block["layer"] != current:
            current = block["layer"]
            lines.append(f"-- {current} ({tokens[current]:,} tokens)")
        lines.append(
            f"{block['path']:<14} {block['role']:<10} {block['tokens']:>8,}  {block['hash']}  "
            f"{block['summary']}"
        )
    share = tokens["cacheable_prefix"] / tokens["total"] if tokens["total"] else 0.0
    lines += [
        "",
        f"cacheable prefix: {tokens['cacheable_prefix']:,} tokens ({share:.0%}), hash {report['prefix_hash'] or '-'}",
        *(f"cache lifetime: {k} = {v}" for k, v in report["ttl_settings"].items()),
    ]
    lines += [f"counted: {n:,} tokens, {what}" for what, n in report["vendor_added"].items()]
    lines += [f"not counted: {what}" for what in report["unestimated"]]
    if report["cached_content"]:
        lines.append(
            f"explicit cache: {report['cached_content']} is read before all of the above (its "
            "tokens are stored with the vendor, not in this file, and count as cache reads)"
        )
    lines += _breakpoint_lines(report["breakpoints"])
    lines += _marker_lines(report["markers"])
    lines += _volatile_lines(report["volatile"])
    return "\n".join(printable(line) for line in lines) + "\n"


def _breakpoint_lines(breakpoints: dict[str, Any]) -> list[str]:
    lines = ["breakpoints:"]
    width = max([16, *(len(bp["path"]) for bp in breakpoints["planned"])])  # history[4].content[2]
    lines += [
        f"  {bp['path']:<{width}} ttl {bp['ttl'] or '-':<4} {bp['reason']}"
        for bp in breakpoints["planned"]
    ]
    lines += [f"  note: {note}" for note in breakpoints["notes"]]
    if len(lines) == 1:
        lines.append("  none")
    return lines


def _marker_lines(markers: dict[str, Any]) -> list[str]:
    if not markers["present"] and not markers["problems"]:
        return []
    where = ", ".join(f"{m['path']} ({m['ttl'] or 'default ttl'})" for m in markers["present"])
    lines = [f"cache markers already in the file: {where or 'unreadable'}"]
    lines += [f"  problem: {problem}" for problem in markers["problems"]]
    lines += [f"  note: {note}" for note in markers.get("notes", ())]
    return lines


def _volatile_lines(found: list[dict[str, Any]]) -> list[str]:
    if not found:
        return ["volatile values in stable layers: none"]
    lines = [
        "volatile values in stable layers (each one breaks the cache for everything after it):"
    ]
    lines += [f"  {f['path']} offset {f['offset']}: {f['kind']} {f['value']!r}" for f in found]
    return lines
