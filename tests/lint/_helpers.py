"""Shared helpers for the lint tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

from promptcache.lint import LintConfig, lint_paths, lint_source
from promptcache.lint.python import lint_python_source

# About 300 estimated tokens of static text: comfortably over the default threshold of 100.
STATIC = "Follow the refund policy exactly as written in section four. " * 20
SHORT = "Thanks."


def codes(source: str, **kwargs: object) -> list[str]:
    """The codes of the findings for `source`, in order."""
    return [finding.code for finding in lint_source(source, **kwargs)]  # type: ignore[arg-type]


def config(**changes: object) -> LintConfig:
    return LintConfig().replace(**changes)


def python_problems(source: str, long: str | None = None) -> list[tuple[int, int | None, str]]:
    """Lint `source` (dedented; each `LONG` in it the repr of `long`, when given) as one Python
    file: its warnings and errors, no info notes, as (line, written at, code), in order."""
    text = textwrap.dedent(source)
    if long is not None:
        text = text.replace("LONG", repr(long))
    return [
        (f.line, f.written_at, f.code) for f in lint_python_source(text) if f.severity != "info"
    ]


def python_line_codes(source: str, long: str | None = None) -> list[tuple[int, str]]:
    """`python_problems` as (line, code), in order."""
    return [(line, code) for line, _, code in python_problems(source, long)]


def project_findings(
    root: Path, files: dict[str, str], code: str | None = None
) -> list[tuple[str, int, str]]:
    """Write `files` (path under `root` -> source, dedented) and lint `root` as one project: the
    findings as (file name, line, code), sorted, only `code`'s when given."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    found = lint_paths([root], config=LintConfig(root=root))
    return sorted((Path(f.path).name, f.line, f.code) for f in found if code in (None, f.code))


def lint_beside(
    root: Path, linted: str, text: str, others: dict[str, str]
) -> list[tuple[str, int, str]]:
    """Write `linted` (its text as is) and the `others` (dedented) under `root`, and lint only
    `linted` with `root` as the project (a pre-commit run on the file changed): its findings as
    (file name, line, code), in order."""
    (root / linted).write_text(text)
    for name, other in others.items():
        (root / name).write_text(textwrap.dedent(other))
    found = lint_paths([root / linted], config=LintConfig(root=root))
    return [(Path(f.path).name, f.line, f.code) for f in found]


def template_problems(root: Path, files: dict[str, str]) -> list[tuple[str, str, int]]:
    """Write `files` (path under `root` -> text, as is) and lint `root` as one project, the
    templates with the Python that renders them: the warnings and errors reported in `.j2`
    files, as (file name, code, line), sorted."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    found = lint_paths([root], config=LintConfig(root=root))
    return sorted(
        (Path(f.path).name, f.code, f.line)
        for f in found
        if f.severity != "info" and f.path.endswith(".j2")
    )
