"""
A Semantic Kernel plugin folder (`kernel.add_plugin(parent_directory=..., plugin_name=...)`):
its prompt functions' templates, read from the files Semantic Kernel loads, so that
`plugin["Summarize"]` run with `KernelArguments` is followed into them.

The layout is Semantic Kernel's: under `parent_directory/plugin_name/`, a folder per prompt
function holding `skprompt.txt` (its template) and `config.json` (its `template_format`, if
any), and YAML prompt files (`name:`, `template:`, `template_format:`), read with PyYAML as
Semantic Kernel reads them. The folder is looked for next to the module, then under the
project's root (where the application usually runs). A folder that cannot be found leaves the
plugin unknown: its functions' arguments are then not followed (PC506), never taken as clean;
a function whose files cannot be read is unknown the same way.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._loader import read_source
from ._filled_templates import sk_template
from ._values import EMPTY, Value

if TYPE_CHECKING:
    from ._frame import Frame

__all__ = ["sk_plugin"]

_PROMPT_FILE = "skprompt.txt"
_CONFIG_FILE = "config.json"
_YAML_SUFFIXES = (".yaml", ".yml")


def sk_plugin(frame: Frame, args: list[Value], keywords: dict[str, Value]) -> Value | None:
    """`kernel.add_plugin(parent_directory="prompts", plugin_name="Writer")`: the plugin, its
    functions as fields (None when it is not a folder of prompts the analysis can find)."""
    parent = keywords.get("parent_directory", EMPTY).text
    name = keywords.get("plugin_name", args[1] if len(args) > 1 else EMPTY).text
    if not parent or not name:
        return None
    folder = _folder(frame, Path(parent) / name)
    if folder is None:
        return None
    try:
        functions = [*_skprompt_functions(frame, folder), *_yaml_functions(frame, folder)]
    except OSError:  # a folder that cannot be listed: the plugin is unknown
        return None
    return Value(fields=tuple(functions), kind="dict") if functions else None


def _folder(frame: Frame, relative: Path) -> Path | None:
    places = [relative] if relative.is_absolute() else []
    if frame.module.path is not None:
        places.append(frame.module.path.parent / relative)
    places.append(frame.a.project.root / relative)
    return next((place for place in places if place.is_dir()), None)


def _skprompt_functions(frame: Frame, folder: Path) -> list[tuple[str, Value]]:
    functions = []
    for function in sorted(p for p in folder.iterdir() if (p / _PROMPT_FILE).is_file()):
        template = _read(frame, function / _PROMPT_FILE)
        config = (
            _read(frame, function / _CONFIG_FILE) if (function / _CONFIG_FILE).is_file() else ""
        )
        fmt = _json_format(config)
        text = EMPTY if template is None else Value(pieces=(template,))
        functions.append((function.name, sk_template(text, _text(fmt))))
    return functions


def _yaml_functions(frame: Frame, folder: Path) -> list[tuple[str, Value]]:
    functions = []
    for path in sorted(p for p in folder.iterdir() if p.suffix in _YAML_SUFFIXES and p.is_file()):
        data = _yaml(_read(frame, path))
        template = data.get("template") if isinstance(data, dict) else None
        name = data.get("name") if isinstance(data, dict) else None
        fmt = data.get("template_format") if isinstance(data, dict) else None
        text = Value(pieces=(template,)) if isinstance(template, str) else EMPTY
        key = name if isinstance(name, str) and name else path.stem
        functions.append((key, sk_template(text, _text(fmt if isinstance(fmt, str) else None))))
    return functions


def _read(frame: Frame, path: Path) -> str | None:
    try:
        return read_source(path, max_bytes=frame.a.config.max_bytes)
    except (OSError, ValueError):  # unreadable, or not UTF-8: its text is unknown
        return None


def _json_format(text: str | None) -> str | None:
    """A `config.json`'s `template_format`; None for the default, "?" when it is unreadable."""
    if text is None:
        return "?"
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return "?"
    fmt = data.get("template_format") if isinstance(data, dict) else None
    return fmt if isinstance(fmt, str) else None


def _yaml(text: str | None) -> Any:
    if text is None:
        return None
    try:
        yaml: Any = importlib.import_module("yaml")
        return yaml.safe_load(text)
    except ImportError:
        return None
    except Exception:  # yaml.YAMLError and its kin (PyYAML is imported lazily): unreadable
        return None


def _text(fmt: str | None) -> Value | None:
    # "?": a format that could not be read, which `sk_template` reads in every syntax
    return None if fmt is None else Value(pieces=(fmt,))
