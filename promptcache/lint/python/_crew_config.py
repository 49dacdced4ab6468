"""
A CrewAI project's YAML configuration (`@CrewBase` classes): the `{placeholders}` of its agents'
role, goal and backstory and of its tasks' description and expected output, read from the
`agents_config`/`tasks_config` files next to the class (CrewAI's defaults `config/agents.yaml`
and `config/tasks.yaml`), so that `kickoff(inputs=...)` is followed into them.

The files are scanned, not parsed as YAML (lint needs no YAML library): a top-level key opens an
agent or a task, an indented `field:` opens one of the fields above, and its text runs to the
next field or key. A file that cannot be read leaves nothing known (the crew's variables are
then not followed, as for a crew whose agents the analysis cannot see).
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from .._loader import read_source
from .frameworks.crewai import AFTER_AGENT, CONFIG_DEFAULTS, CREW_BASE

if TYPE_CHECKING:
    from ._frame import Frame

__all__ = ["crew_base_template"]

_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")
_FIELD = re.compile(r"^\s+(role|goal|backstory|description|expected_output)\s*:(.*)$")
_OTHER_FIELD = re.compile(r"^\s+[A-Za-z_]\w*\s*:")
_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")


def crew_base_template(frame: Frame) -> dict[str, tuple[int, str]]:
    """The placeholders of the configuration of the `@CrewBase` class whose method this frame
    runs (empty when it runs no such method or the files cannot be read)."""
    function = frame.function
    cls = function.cls if function is not None else None
    path = frame.module.path
    if cls is None or path is None or not _is_crew_base(cls.node):
        return {}
    info: dict[str, tuple[int, str]] = {}
    for attribute, default in CONFIG_DEFAULTS:
        configured = cls.attrs.get(attribute)
        name = configured.text if configured is not None and configured.text else default
        try:
            text = read_source(path.parent / name, max_bytes=frame.a.config.max_bytes)
        except (OSError, ValueError):  # an InputError or not UTF-8: its placeholders are unknown
            continue
        _placeholders(text, info)
    return info


def _is_crew_base(node: ast.ClassDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == CREW_BASE:
            return True
    return False


def _placeholders(text: str, info: dict[str, tuple[int, str]]) -> None:
    for fields in _entries(text):
        expected = fields.get("expected_output", "")
        for field, body in fields.items():
            if field in ("role", "goal", "backstory"):
                role, after = "system", AFTER_AGENT
            else:
                role = "template"
                after = len(expected) if field == "description" else 0
            for found in _PLACEHOLDER.finditer(body):
                name = found.group(1)
                if name not in info or role == "system":
                    info[name] = (len(body) - found.end() + after, role)


def _entries(text: str) -> list[dict[str, str]]:
    """Each top-level entry's fields (role, goal, ...) and their text."""
    entries: list[dict[str, str]] = []
    field = ""
    for line in text.splitlines():
        if _KEY.match(line):
            entries.append({})
            field = ""
        elif (found := _FIELD.match(line)) is not None and entries:
            field = found.group(1)
            entries[-1][field] = found.group(2)
        elif _OTHER_FIELD.match(line):
            field = ""
        elif field and entries:
            entries[-1][field] += "\n" + line.strip()
    return entries
