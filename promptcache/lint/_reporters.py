"""Write findings as text, JSON, SARIF 2.1.0 or GitHub workflow annotations."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote

from .._errors import InputError
from ._docs import language
from ._model import Finding
from .rules import RULES

__all__ = ["FORMATS", "format_findings", "printable"]

_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# Info findings (a part that could not be checked, a skipped file) are SARIF notes and GitHub
# notices: visible, but not failures.
_SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}
_DRIVE = re.compile(r"[A-Za-z]:/")
_GITHUB_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def format_text(findings: Sequence[Finding]) -> str:
    return "".join(
        f"{printable(f.path)}:{f.line}:{f.column}: {f.code} {_told(f)}\n" for f in findings
    )


def _told(finding: Finding) -> str:
    """The message, with the line the value is written on when it is reported elsewhere (a
    template's placeholder, a macro's body; in another file, that file too): where the fix goes,
    for a reader of plain text."""
    told = finding.message
    if finding.written_at is not None:
        told += f" (written at line {finding.written_at})"
    if finding.written_in is not None:
        path, line = finding.written_in
        told += f" (written at {printable(path)}:{line})"
    return told


def printable(path: str) -> str:
    """A file name for a line of text output: a newline, tab or other control character in it
    is written as its escape (`\\n`), so one finding stays one `path:line:col:` line."""
    if path.isprintable():
        return path
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in path)


def format_json(findings: Sequence[Finding]) -> str:
    records = [
        {
            "path": f.path,
            "line": f.line,
            "column": f.column,
            "code": f.code,
            "message": f.message,
            "severity": f.severity,
            "tokens_at_risk": f.tokens_at_risk,
            "written_at": f.written_at,
            "made_at": _place(f.made_at),
            "written_in": _place(f.written_in),
        }
        for f in findings
    ]
    return json.dumps(records, indent=2, ensure_ascii=False) + "\n"


def _place(place: tuple[str, int] | None) -> dict[str, Any] | None:
    return None if place is None else {"path": place[0], "line": place[1]}


def format_github(findings: Sequence[Finding]) -> str:
    lines = []
    for f in findings:
        properties = ",".join(
            f"{key}={_escape_property(value)}"
            for key, value in (
                ("file", f.path),
                ("line", f.line),
                ("col", f.column),
                ("title", f"{f.code} {RULES[f.code].name}"),
            )
        )
        command = _GITHUB_COMMANDS[f.severity]
        lines.append(f"::{command} {properties}::{_escape_data(_told(f))}\n")
    return "".join(lines)


def _escape_data(value: object) -> str:
    return str(value).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(value: object) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def format_sarif(findings: Sequence[Finding]) -> str:
    from .. import __version__

    codes = list(RULES)
    log = {
        "$schema": _SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "promptcache",
                        "version": __version__,
                        "rules": [_sarif_rule(code) for code in codes],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": [_sarif_result(f, codes.index(f.code)) for f in findings],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _sarif_rule(code: str) -> dict[str, Any]:
    rule = RULES[code]
    return {
        "id": code,
        "name": "".join(word.capitalize() for word in rule.name.split("-")),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.why},
        "help": {
            "text": f"{rule.why}\n\nBad:\n{rule.bad}\n\nGood:\n{rule.good}",
            "markdown": f"{rule.why}\n\nBad:\n```{language(code)}\n{rule.bad}\n```\n\n"
            f"Good:\n```{language(code)}\n{rule.good}\n```",
        },
        "defaultConfiguration": {"level": _SARIF_LEVELS[rule.severity]},
    }


def _sarif_result(finding: Finding, index: int) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": index,
        "level": _SARIF_LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(finding.path)},
                    "region": {"startLine": finding.line, "startColumn": finding.column},
                }
            }
        ],
    }
    if finding.tokens_at_risk is not None:
        result["properties"] = {"tokensAtRisk": finding.tokens_at_risk}
    related = []
    if finding.written_at is not None:
        related.append((finding.path, finding.written_at, "the value is written here"))
    if finding.written_in is not None:
        related.append((*finding.written_in, "the value is written here"))
    if finding.made_at is not None:
        related.append((*finding.made_at, "the value is made here"))
    if related:
        result["relatedLocations"] = [
            _sarif_related(number, *place) for number, place in enumerate(related)
        ]
    return result


def _sarif_related(index: int, path: str, line: int, text: str) -> dict[str, Any]:
    """A place apart from where the finding is reported: where the value is written (a
    macro's body, another module's template), or where it is made (a window cut in another
    module); `index` numbers it among the result's related locations."""
    return {
        "id": index,
        "message": {"text": text},
        "physicalLocation": {
            "artifactLocation": {"uri": _uri(path)},
            "region": {"startLine": line},
        },
    }


def _uri(path: str) -> str:
    """
    The SARIF `uri` of a finding's file: a relative reference for a relative path (every `:`
    escaped, so `a:b.j2` is not read as a URI of scheme `a`), a `file:` URI for an absolute one.
    """
    if path.startswith("/"):
        return "file://" + quote(path, safe="/")
    if _DRIVE.match(path):  # C:/... on Windows
        return "file:///" + path[:2] + quote(path[2:], safe="/")
    return quote(path, safe="/")


FORMATS: dict[str, Callable[[Sequence[Finding]], str]] = {
    "text": format_text,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
}


def format_findings(findings: Sequence[Finding], fmt: str = "text") -> str:
    """Render findings in one of `FORMATS` (text, json, sarif, github)."""
    try:
        return FORMATS[fmt](findings)
    except KeyError:
        raise InputError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}") from None
