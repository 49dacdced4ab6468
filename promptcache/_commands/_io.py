"""Input helpers shared by the subcommands."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .._errors import InputError, json_kind
from .._inputs import DEFAULT_MAX_BYTES, MAX_BYTES_CEILING, parse_json, read_bounded
from .._outputs import check_output, write_atomic
from ..vendors import VENDOR_NAMES, get_vendor, unknown_vendor


def load_json_object(
    file: str, *, holds: str, max_bytes: int = DEFAULT_MAX_BYTES
) -> dict[str, Any]:
    """
    Read a JSON object from `file` ('-' is standard input). `holds` says what the file should
    hold ("SDK keyword arguments"), so every error names the file, the problem and the fix. A
    FIFO or device is refused by name, and more than `max_bytes` is an error naming --max-bytes.
    """
    raw = read_bounded(file, max_bytes=max_bytes, flag="--max-bytes")
    name = "standard input" if file == "-" else repr(file)
    if not raw.strip():
        raise InputError(f"{name} is empty; expected a JSON object of {holds}")
    try:
        data = parse_json(raw, name)
    except InputError as exc:
        raise InputError(f"{exc}; expected a JSON object of {holds}") from None
    if not isinstance(data, dict):
        raise InputError(
            f"{name} holds a JSON {json_kind(data)}; expected a JSON object of {holds}"
        )
    return data


def vendor_name(text: str) -> str:
    """argparse `type=` for every `--vendor`: any registry name or alias, in any case."""
    try:
        return get_vendor(text).name
    except InputError:
        # Typed on the command line, not read from a request: the user's own word, quoted
        # ("Bedrock"), where a name from a request that reads like a word is shown by its hash.
        raise argparse.ArgumentTypeError(str(unknown_vendor(repr(text)))) from None


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


def output_file(path: Path, *, inputs: Iterable[str | Path] = (), flag: str = "-o") -> Path:
    """
    Check an `-o` path before any work is done (`promptcache._outputs.check_output`): a file in
    an existing folder, a regular one if it is there, and none of the run's `inputs`.
    """
    return check_output(path, inputs=inputs, flag=flag)


def write_output(
    path: Path, text: str, *, inputs: Iterable[str | Path] = (), flag: str = "-o"
) -> None:
    """Write a report to an `-o` path atomically; a refusal (a full disk) names the path."""
    write_atomic(path, text, inputs=inputs, flag=flag)


def add_base_model_option(parser: argparse.ArgumentParser) -> None:
    """`--base-model`: the model a model id that names none (an application profile ARN) serves."""
    parser.add_argument(
        "--base-model",
        metavar="MODEL",
        help="the foundation model the request's model id serves, when the id names none (a "
        "Bedrock application inference profile ARN: `aws bedrock get-inference-profile` lists "
        "it); its minimum, TTLs and price then apply",
    )


def add_pricing_options(parser: argparse.ArgumentParser, *, location: str, billing: str) -> None:
    """`--location` (a Vertex AI location) and `--billing` (how the deployment is billed), as
    `cost` and `report` take them; `location` and `billing` end each help text."""
    parser.add_argument(
        "--location",
        help="the Vertex AI location a Claude call went to (global, us, eu, us-east5, ...)"
        f"{location}: regional and multi-region endpoints cost 10%% more from Claude Sonnet "
        "4.5 on",
    )
    parser.add_argument(
        "--billing",
        choices=("per-token", "provisioned", "ccu"),
        default=None,
        help="how the deployment is billed, when not per token: provisioned (an Azure PTU "
        "deployment) or ccu (Foundry's Claude Consumption Units); then no per-token "
        f"{billing}",
    )


def add_base_models_option(parser: argparse.ArgumentParser) -> None:
    """`--base-model ID=MODEL`, repeatable: a log names many model ids, so each is mapped."""
    parser.add_argument(
        "--base-model",
        metavar="ID=MODEL",
        action="append",
        default=[],
        help="the foundation model a model id that names none serves (a Bedrock application "
        "inference profile ARN: `aws bedrock get-inference-profile` lists it), e.g. "
        "'arn:aws:bedrock:...:application-inference-profile/abc=anthropic.claude-sonnet-4-5-"
        "20250929-v1:0'; its minimum, TTLs and price then apply. Repeat for each id",
    )


def base_model_pairs(pairs: list[str]) -> dict[str, str]:
    """`--base-model ID=MODEL` options as the mapping the library takes. The id is split at the
    last `=`: an ARN holds none, and a model id holds none either."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        model_id, sep, model = pair.rpartition("=")
        if not sep or not model_id.strip() or not model.strip():
            raise InputError(
                f"--base-model {pair!r}: expected ID=MODEL, the model id as the log names it and "
                "the foundation model it serves"
            )
        mapping[model_id.strip()] = model.strip()
    return mapping


def base_models(model: Any, base_model: str | None) -> dict[str, str]:
    """`--base-model` as the mapping the library takes: {the request's model id: base model}."""
    if base_model is None:
        return {}
    if not isinstance(model, str) or not model.strip():
        raise InputError(
            f"--base-model {base_model!r}: the request names no model id to map; pass --model "
            "with the id it was sent to"
        )
    return {model.strip(): base_model}


def add_max_bytes_option(parser: argparse.ArgumentParser) -> None:
    """`--max-bytes`: the input size bound of the commands that read a whole JSON file."""
    parser.add_argument(
        "--max-bytes",
        type=_positive,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help=f"largest input file read (default {DEFAULT_MAX_BYTES:,} bytes)",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of bytes, got {text!r}") from None
    if not 1 <= value <= MAX_BYTES_CEILING:
        raise argparse.ArgumentTypeError(
            f"expected a number of bytes from 1 to {MAX_BYTES_CEILING:,}, got {text!r}"
        )
    return value
