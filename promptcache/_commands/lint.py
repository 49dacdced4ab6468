"""`promptcache lint`: find cache busters in Jinja2 prompt templates and chat templates."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..lint import FORMATS, RULES, find_pyproject, format_findings, lint_paths, load_config

__all__ = ["register", "run"]

_DESCRIPTION = """\
Lint Jinja2 prompt templates (and chat templates: *.jinja, tokenizer_config.json) for values
that change per request in the cacheable prefix. Configuration: [tool.promptcache.lint] in the
nearest pyproject.toml. Exit status: 0 no findings, 1 findings, 2 usage or internal error."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "lint", help="find cache busters in Jinja2 prompt templates", description=_DESCRIPTION
    )
    parser.add_argument("paths", nargs="*", default=["."], help="template files or folders")
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format")
    parser.add_argument("--select", type=_codes, help="comma-separated codes or prefixes to report")
    parser.add_argument("--ignore", type=_codes, help="comma-separated codes or prefixes to skip")
    parser.add_argument(
        "--threshold", type=_tokens, help="tokens that must follow a volatile value"
    )
    parser.add_argument("--config", type=Path, help="pyproject.toml to read (default: nearest)")
    parser.add_argument("--output", "-o", type=Path, help="write the report here instead of stdout")
    parser.add_argument("--list-rules", action="store_true", help="print the rules and exit")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.list_rules:
        for rule in RULES.values():
            print(f"{rule.code} {rule.name}: {rule.summary}")
        return 0
    config = load_config(args.config or find_pyproject(Path.cwd()))
    overrides = {
        key: value
        for key, value in (
            ("select", args.select),
            ("ignore", args.ignore),
            ("threshold", args.threshold),
        )
        if value is not None
    }
    config = config.replace(**overrides)
    findings = lint_paths(args.paths, config=config)
    report = format_findings(findings, args.format)
    if args.output:
        args.output.write_text(report, encoding="utf-8")
    else:
        sys.stdout.write(report)
    if args.format == "text" and findings:
        files = len({f.path for f in findings})
        print(f"Found {len(findings)} problem(s) in {files} file(s).", file=sys.stderr)
    return 1 if findings else 0


def _codes(value: str) -> tuple[str, ...]:
    codes = tuple(c.strip().upper() for c in value.split(",") if c.strip())
    if not codes:
        raise argparse.ArgumentTypeError(f"expected comma-separated rule codes, got {value!r}")
    return codes


def _tokens(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of tokens >= 0, got {value!r}")
    return number
