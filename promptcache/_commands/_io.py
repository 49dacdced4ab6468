"""Input helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

from .._canonical import load_json
from .._errors import InputError
from ..vendors import VENDOR_NAMES, get_vendor


def load_json_object(file: str, *, holds: str) -> dict[str, Any]:
    """
    Read a JSON object from `file` ('-' is standard input). `holds` says what the file should
    hold ("SDK keyword arguments"), so every error names the file, the problem and the fix.
    """
    try:
        raw = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {file!r}: {exc.strerror or exc}") from None
    name = "standard input" if file == "-" else file
    if not raw.strip():
        raise InputError(f"{name} is empty; expected a JSON object of {holds}")
    try:
        data = load_json(raw, file)
    except orjson.JSONDecodeError as exc:
        raise InputError(
            f"{name} is not valid JSON ({exc}); expected a JSON object of {holds}"
        ) from None
    if not isinstance(data, dict):
        raise InputError(
            f"{name} holds a JSON {type(data).__name__}; expected a JSON object of {holds}"
        )
    return data


def vendor_name(text: str) -> str:
    """argparse `type=` for every `--vendor`: any registry name or alias, in any case."""
    try:
        return get_vendor(text).name
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_vendor_option(
    parser: argparse.ArgumentParser, what: str, *, required: bool = False
) -> None:
    """The one `--vendor` option: names and aliases from `promptcache.vendors`, detected if left out."""
    parser.add_argument(
        "--vendor",
        type=vendor_name,
        required=required,
        metavar="VENDOR",
        help=f"{what}: {', '.join(VENDOR_NAMES)} or an alias (`promptcache vendors`); "
        "default: detected from the request's shape",
    )


def output_file(path: Path) -> Path:
    """
    Check an `-o` path before any work is done: it must name a file in an existing folder, so a
    mistyped path is a usage error naming it, not an internal error after the work is lost.
    """
    if path.is_dir():
        raise InputError(
            f"-o {str(path)!r} is a folder; name a file, e.g. -o {str(path / 'report.txt')!r}"
        )
    folder = path.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise InputError(
            f"-o {str(path)!r}: the folder {str(folder)!r} {what}; create it or choose another path"
        )
    return path


def write_output(path: Path, text: str) -> None:
    """Write a report to an `-o` path; a refusal (permissions, a full disk) names the path."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write -o {str(path)!r}: {exc.strerror or exc}") from None
