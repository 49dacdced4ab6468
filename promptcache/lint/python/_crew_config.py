"""
A CrewAI project's YAML configuration (`@CrewBase` classes): the `{placeholders}` of its agents'
role, goal and backstory and of its tasks' description and expected output, read from the
`agents_config`/`tasks_config` files next to the class (CrewAI's defaults `config/agents.yaml`
and `config/tasks.yaml`), so that `kickoff(inputs=...)` is followed into them.

The files are read with PyYAML (`yaml.safe_load`, as CrewAI reads them), imported only here: it
is no dependency of promptcache's, and CrewAI projects have it. A file that cannot be read or
parsed, or PyYAML missing (a pre-commit hook's own environment: add `pyyaml` to its
`additional_dependencies`), leaves nothing known: the crew's variables are then not followed
(PC506), as for a crew whose agents the analysis cannot see, never taken as clean.
"""

from __future__ import annotations

import ast
import importlib
import re
from typing import TYPE_CHECKING, Any

from .._loader import read_source
from ._placeholders import Slot
from .frameworks.crewai import AFTER_AGENT, AFTER_EXPECTED, CONFIG_DEFAULTS, CREW_BASE

if TYPE_CHECKING:
    from ._frame import Frame

__all__ = ["crew_base_template"]

_FIELDS = ("role", "goal", "backstory", "description", "expected_output")
_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")


def crew_base_template(frame: Frame) -> dict[str, Slot]:
    """The placeholders of the configuration of the `@CrewBase` class whose method this frame
    runs (empty when it runs no such method or one of the files cannot be read)."""
    function = frame.function
    cls = function.cls if function is not None else None
    path = frame.module.path
    if cls is None or path is None or not _is_crew_base(cls.node):
        return {}
    info: dict[str, Slot] = {}
    for attribute, default in CONFIG_DEFAULTS:
        configured = cls.attrs.get(attribute)
        name = configured.text if configured is not None and configured.text else default
        try:
            text = read_source(path.parent / name, max_bytes=frame.a.config.max_bytes)
            entries = _entries(text)
        except (OSError, ValueError, ImportError):  # unreadable, not YAML, or no PyYAML
            return {}  # one file unknown: where any input lands is unknown (not a part of it)
        _placeholders(entries, info)
    return info


def _is_crew_base(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == CREW_BASE:
            return True
    return False


def _placeholders(entries: list[dict[str, str]], info: dict[str, Slot]) -> None:
    for fields in entries:
        expected = fields.get("expected_output", "")
        for field, body in fields.items():
            if field in ("role", "goal", "backstory"):
                role, after = "system", AFTER_AGENT
            else:
                role = "template"
                after = AFTER_EXPECTED + (len(expected) if field == "description" else 0)
            for found in _PLACEHOLDER.finditer(body):
                name = found.group(1)
                if name not in info or role == "system":
                    info[name] = Slot(len(body) - found.end() + after, role)


def _entries(text: str) -> list[dict[str, str]]:
    """Each top-level entry's fields (role, goal, ...) and their text; ValueError if not YAML."""
    yaml: Any = importlib.import_module("yaml")
    try:
        data = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError) as exc:  # PyYAML's composer recurses per level
        raise ValueError(f"not YAML: {type(exc).__name__}") from exc
    if data is None:  # an empty file: no entries
        return []
    if not isinstance(data, dict):  # CrewAI reads a mapping of names to entries; this is not one
        raise ValueError(f"not a mapping of entries: {type(data).__name__}")
    return [
        {field: value[field] for field in _FIELDS if isinstance(value.get(field), str)}
        for value in data.values()
        if isinstance(value, dict)
    ]
