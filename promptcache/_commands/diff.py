"""`promptcache diff A.json B.json`: the field that breaks the cache between two requests."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, TextIO

import orjson

from .._errors import InputError
from .._printable import printable
from ..debug.diff import DiffResult, diff
from ..vendors._elements import model_of_request
from ._io import (
    add_base_model_option,
    add_max_bytes_option,
    add_vendor_option,
    base_models,
    load_json_object,
)

_FIXES = {
    "timestamp": "render the time at day precision, or move it to the last user message",
    "random_id": "keep ids out of the prefix, or derive them deterministically from the session",
    "key_order": "serialise with sorted keys (json.dumps(..., sort_keys=True)) or build the "
    "dict in one fixed order",
    "tools_changed": "keep the tool set fixed for the session; add tools only at the end",
    "tool_order": "sort tools by name before sending (MCP and dict order are not stable)",
    "block_order": "join system sections in one fixed order (sort them; don't iterate a map or set)",
    "model_changed": "caches are per model; keep one model per session or accept one rewrite",
    "whitespace": "normalise whitespace when rendering templates (trim_blocks, strip)",
    "unicode_normalization": "normalise text to one form before sending "
    "(unicodedata.normalize('NFC', text)); copy-paste and macOS file names produce NFD",
    "content_changed": "earlier content must be sent byte for byte as before; append, don't edit",
    "tool_choice_changed": "keep tool_choice fixed for the session",
    "thinking_changed": "keep the thinking / reasoning settings fixed for the session",
    "cache_salt_changed": "keep one cache_salt per tenant for the whole session",
    "not_cached": "mark the end of the stable prefix (promptcache's adapters place the markers)",
    "below_minimum": "lengthen the stable prefix past the model's minimum, or expect no caching",
}
# Causes that say `a` cached nothing: a finding (exit 1), though `b` lost nothing.
_NOTHING_CACHED = frozenset({"not_cached", "below_minimum"})
# When the value already sits in the final user turn, "move it there" is no fix.
_TAIL_FIXES = {
    "timestamp": "it is already in the last user message: end the cached prefix before this "
    "turn (no breakpoint on it), or render the time at day precision",
    "random_id": "it is already in the last user message: end the cached prefix before this "
    "turn (no breakpoint on it)",
}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "diff",
        help="name the field that breaks the cache between two requests",
        description=(
            "Compare request B against the earlier request A (JSON files holding the SDK keyword "
            "arguments) in the vendor's render order. Prints whether B loses cache A wrote at its "
            "breakpoints, the layer, path, byte offset and cause of the first divergence, and an "
            "estimate of the tokens lost. Without --vendor the vendor is detected from the requests' shape. Exit 0: nothing lost; 1: invalidated, or nothing was cached (no marker on a vendor that caches only at markers, or a cached prefix under the model's minimum); 2: error (including a request that does not read as the vendor)."
        ),
    )
    parser.add_argument("a", help="the earlier request (JSON file, '-' for stdin)")
    parser.add_argument("b", help="the later request (JSON file)")
    add_vendor_option(parser, "whose cache semantics")
    add_max_bytes_option(parser)
    add_base_model_option(parser)
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto", help="colour the text"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.a == "-" and args.b == "-":
        raise InputError("only one of A and B can be '-' (stdin)")
    holds = "SDK keyword arguments"
    a = load_json_object(args.a, holds=holds, max_bytes=args.max_bytes)
    b = load_json_object(args.b, holds=holds, max_bytes=args.max_bytes)
    mapped = base_models(model_of_request(a), args.base_model)
    result = diff(a, b, args.vendor, base_models=mapped)
    if args.format == "json":
        sys.stdout.write(orjson.dumps(result.to_json()).decode() + "\n")
    else:
        sys.stdout.write(render_text(result, color=_use_color(args.color, sys.stdout)))
    return 1 if result.invalidated or result.cause in _NOTHING_CACHED else 0


def _use_color(choice: str, stream: TextIO) -> bool:
    if choice != "auto":
        return choice == "always"
    return stream.isatty() and not os.environ.get("NO_COLOR")


def render_text(result: DiffResult, *, color: bool = False) -> str:
    """A short report for a person: verdict, location, the excerpt with the change marked."""
    paint = _Paint(color)
    lines = [_headline(result, paint)]
    if result.path is not None:
        where = f"  at {printable(result.path)}"
        if result.offset is not None:
            where += f", byte {result.offset}"
        lines.append(where)
    if result.detail:
        lines.append(f"  {printable(result.detail)}")
    lines += _excerpt_lines(result, paint)
    fixes = _TAIL_FIXES if result.in_tail and result.cause in _TAIL_FIXES else _FIXES
    if (result.invalidated or result.cause in _NOTHING_CACHED) and result.cause in fixes:
        lines.append(f"  fix: {fixes[result.cause]}")
    return "\n".join(lines) + "\n"


def _headline(result: DiffResult, paint: _Paint) -> str:
    if result.cause == "not_cached":
        return paint.red(f"nothing cached ({result.vendor}): a carries no cache marker")
    if result.cause == "below_minimum":
        return paint.red(
            f"nothing cached ({result.vendor}): a's cached prefix is under the model's minimum"
        )
    if not result.invalidated:
        return paint.green(f"cache kept ({result.vendor}): b reads everything a wrote")
    if result.tokens_lost is None:
        return paint.red(
            f"cache invalidated ({result.vendor}) if a was cached (uncertain: its prefix is near "
            f"the model's minimum): {result.cause} in {result.layer}"
        )
    lost = f"; about {result.tokens_lost:,} cached tokens lost" if result.tokens_lost else ""
    return paint.red(f"cache invalidated ({result.vendor}): {result.cause} in {result.layer}{lost}")


def _excerpt_lines(result: DiffResult, paint: _Paint) -> list[str]:
    excerpt = result.excerpt
    if excerpt is None:
        return []
    lines = []
    # escaped before painting: the request's text may hold escape sequences, ours may not be
    lead = printable(excerpt.lead)
    if result.before is not None:
        old = lead + paint.red(f"[-{printable(excerpt.old)}-]") + printable(excerpt.trail_old)
        lines.append(f"  - {old}")
    if result.after is not None:
        new = lead + paint.green(f"{{+{printable(excerpt.new)}+}}") + printable(excerpt.trail_new)
        lines.append(f"  + {new}")
    return lines


class _Paint:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def green(self, text: str) -> str:
        return self._wrap("32", text)
