"""`promptcache lint`: find cache busters in prompt templates, chat templates and Python code."""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.text import Text

from .._errors import InputError
from .._inputs import MAX_BYTES_CEILING
from ..lint import (
    FORMATS,
    RULES,
    Finding,
    LintConfig,
    discover,
    find_pyproject,
    format_findings,
    lint_report,
    load_config,
)
from ..lint._reporters import printable
from ..lint.python import fix_paths
from ._io import output_file, write_output

__all__ = ["register", "run"]

_DESCRIPTION = """\
Lint Jinja2 prompt templates (and chat templates: *.jinja, tokenizer_config.json) and the Python
code that builds requests (*.py) for values that change per request in the cacheable prefix.
Configuration: [tool.promptcache.lint] in the
nearest pyproject.toml. Exit status: 0 no findings (info notes do not count), 1 findings, 2 usage,
configuration or input error, or a file --fix could not rewrite, 3 internal error (a bug in
promptcache)."""
_STYLES = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "lint",
        help="find cache busters in prompt templates and request-building Python",
        description=_DESCRIPTION,
    )
    parser.add_argument("paths", nargs="*", default=["."], help="template files or folders")
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format")
    parser.add_argument("--select", type=_codes, help="comma-separated codes or prefixes to report")
    parser.add_argument("--ignore", type=_codes, help="comma-separated codes or prefixes to skip")
    parser.add_argument(
        "--threshold", type=_tokens, help="tokens that must follow a volatile value"
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        default=None,
        help="treat every variable not declared stable as per-request",
    )
    parser.add_argument("--config", type=Path, help="pyproject.toml to read (default: nearest)")
    parser.add_argument("--output", "-o", type=Path, help="write the report here instead of stdout")
    parser.add_argument(
        "--statistics", action="store_true", help="print how many findings each rule has"
    )
    parser.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when there are findings"
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text output (auto: when stdout is a terminal; FORCE_COLOR and "
        "NO_COLOR are honoured)",
    )
    parser.add_argument(
        "--max-bytes",
        type=_positive,
        metavar="N",
        help="largest file read (default 67,108,864); a larger one named on the command line is "
        "an error, one found in a folder is skipped with a notice",
    )
    parser.add_argument("--list-rules", action="store_true", help="print the rules and exit")
    parser.add_argument(
        "--fix",
        action="store_true",
        help="apply the safe rewrites to Python files (sort_keys=True, orjson.OPT_SORT_KEYS, "
        "sorted(...)), then lint; a read-only file is left as it is, and the run exits 2",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.list_rules:
        return _write(lambda out: _print_rules(out), 0)
    if args.statistics and args.format != "text":
        raise InputError(
            f"--statistics prints a table of counts, not --format {args.format}; leave out one "
            "of the two (a JSON or SARIF report holds every finding's code to count)"
        )
    config = _config(args)
    inputs = _inputs_of(args, config)
    output = output_file(args.output, inputs=inputs) if args.output else None
    refused = _fix(args.paths, config) if args.fix else []
    report = lint_report(args.paths, config=config)
    findings = report.findings
    if report.files == 0:
        print(
            f"promptcache lint: warning: no file matched in {', '.join(args.paths)} (folders are "
            f"searched for {', '.join(config.include)}; see `include` and `exclude`)",
            file=sys.stderr,
        )
    problems = [f for f in findings if f.severity != "info"]
    status = 1 if problems and not args.exit_zero else 0
    if output is not None:
        text = _statistics(findings) if args.statistics else format_findings(findings, args.format)
        write_output(output, text, inputs=inputs)
    elif args.statistics:
        status = _write(lambda out: out.write(_statistics(findings)), status)
    elif args.format == "text":
        status = _write(lambda out: _print_text(findings, out, args.color), status)
    else:
        status = _write(lambda out: out.write(format_findings(findings, args.format)), status)
    if args.format == "text" and findings:
        _summary(findings, problems)
    for reason in refused:  # last, where it is seen: the run did not do all it was asked
        print(f"promptcache: error: {reason}", file=sys.stderr)
    return 2 if refused else status


def _inputs_of(args: argparse.Namespace, config: LintConfig) -> list[str | Path]:
    """
    What this run reads, which `-o` must not overwrite: the files named, the configuration, and
    an existing `-o` file inside a folder being linted that the folder's search would read.
    """
    inputs: list[str | Path] = [*args.paths]
    pyproject = args.config or find_pyproject(Path.cwd())
    if pyproject is not None:
        inputs.append(pyproject)
    output = args.output
    if output is None or not output.is_file():
        return inputs
    place = os.path.realpath(output)
    for folder in (Path(p) for p in args.paths if os.path.isdir(p)):
        inside = place.startswith(os.path.realpath(folder) + os.sep)
        if inside and any(fnmatch.fnmatch(output.name, g) for g in config.include):
            inputs.append(output)
    return inputs


def _config(args: argparse.Namespace) -> LintConfig:
    config = load_config(args.config or find_pyproject(Path.cwd()))
    overrides = {
        key: value
        for key, value in (
            ("select", args.select),
            ("ignore", args.ignore),
            ("threshold", args.threshold),
            ("strict", args.strict),
            ("max_bytes", args.max_bytes),
        )
        if value is not None
    }
    return config.replace(**overrides)


def _write(print_to: Any, status: int) -> int:
    """Print to stdout; a reader that stops early (`| head`) ends the run quietly."""
    try:
        print_to(sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:
        # Python would report the broken pipe again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return status


def _print_rules(out: TextIO) -> None:
    for rule in RULES.values():
        out.write(f"{rule.code} {rule.name}: {rule.summary}\n")


def _print_text(findings: Sequence[Finding], out: TextIO, color: str) -> None:
    console = _console(out, color)
    if console is None:
        out.write(format_findings(findings, "text"))
        return
    for f in findings:
        line = Text()
        line.append(f"{printable(f.path)}:{f.line}:{f.column}:", style="bold")
        line.append(" ")
        line.append(f.code, style=_STYLES[f.severity])
        line.append(f" {f.message}")
        console.print(line, soft_wrap=True, highlight=False)


def _console(out: TextIO, color: str) -> Console | None:
    """A rich console when the text is coloured (None: plain text, byte for byte)."""
    if color == "never":
        return None
    if color == "always":
        return Console(file=out, force_terminal=True, no_color=False, highlight=False)
    console = Console(file=out, highlight=False)  # reads FORCE_COLOR, NO_COLOR and the tty
    return (
        console if console.is_terminal and console.color_system and not console.no_color else None
    )


def _statistics(findings: Sequence[Finding]) -> str:
    """Like `ruff --statistics`: count, code and rule name, most frequent first."""
    counts = Counter(f.code for f in findings)
    width = len(str(max(counts.values(), default=0)))
    return "".join(
        f"{count:>{width}}\t{code}\t{RULES[code].name}\n"
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    )


def _summary(findings: Sequence[Finding], problems: Sequence[Finding]) -> None:
    notes = len(findings) - len(problems)
    if problems:
        files = len({f.path for f in problems})
        print(f"Found {len(problems)} problem(s) in {files} file(s).", file=sys.stderr)
    if notes:
        print(
            f"{notes} note(s): what could not be checked or followed (PC002, PC506) or files "
            "and folders skipped (PC003).",
            file=sys.stderr,
        )


def _fix(paths: list[str], config: LintConfig) -> list[str]:
    """
    Apply the safe Python rewrites; what they cannot mend is reported by the lint that follows.
    Why each file that could not be rewritten (read-only, a failed write) was left as it was.
    """
    refused: list[str] = []
    applied = fix_paths(discover(paths, config), config=config, refused=refused)
    if applied:
        print(f"Fixed {applied} problem(s).", file=sys.stderr)
    return refused


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


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if not 1 <= number <= MAX_BYTES_CEILING:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of bytes from 1 to {MAX_BYTES_CEILING:,}, got {value!r}"
        )
    return number
