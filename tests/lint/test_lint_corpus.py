"""
The template rules on real-shaped templates: every mechanism found, no clean shape reported.

`tests/lint/cases/templates/` holds templates we wrote, one per mechanism of the real chat
templates and prompt files the suite used to copy (their provenance and labels are kept in
bench/lint_corpus/legacy.toml; the real files are measured outside the suite with
bench/score_lint.py). Labels are in `labels.json` there: a buster is found when a warning or
error finding that is not PC001 lands on one of its lines; a clean file must get no warning or
error finding. Info findings ("could not check", "skipped") are neither.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from promptcache.lint import Finding, LintConfig, lint_paths

CASES = Path(__file__).parent / "cases" / "templates"


@dataclass(frozen=True, slots=True, kw_only=True)
class Score:
    busters: int
    found: int
    clean: int
    false_alarms: int
    missed: tuple[str, ...]
    alarmed: tuple[str, ...]


def _labels() -> dict[str, dict[str, object]]:
    data = json.loads((CASES / "labels.json").read_text(encoding="utf-8"))
    return {name: label for name, label in data.items() if not name.startswith("_")}


def _problems(name: str, label: dict[str, object]) -> list[Finding]:
    config = LintConfig(strict=bool(label.get("strict")))
    return [f for f in lint_paths([CASES / name], config=config) if f.severity != "info"]


def score() -> Score:
    busters = found = clean = false_alarms = 0
    missed: list[str] = []
    alarmed: list[str] = []
    for name, label in sorted(_labels().items()):
        problems = _problems(name, label)
        expected = label["busters"]
        assert isinstance(expected, list)
        if not expected:
            clean += 1
            if problems:
                false_alarms += 1
                alarmed.append(f"{name}: {[(f.line, f.code) for f in problems]}")
        for buster in expected:
            busters += 1
            lines = set(buster["lines"])
            if any(f.line in lines and f.code != "PC001" for f in problems):
                found += 1
            else:
                missed.append(f"{name}:{sorted(lines)} {buster['class']}")
    return Score(
        busters=busters,
        found=found,
        clean=clean,
        false_alarms=false_alarms,
        missed=tuple(missed),
        alarmed=tuple(alarmed),
    )


def test_every_case_is_labelled() -> None:
    files = {
        p.relative_to(CASES).as_posix()
        for p in CASES.rglob("*")
        if p.is_file() and p.name != "labels.json"
    }
    assert files == set(_labels())


def test_every_real_shaped_buster_is_found_and_no_clean_case_is_reported() -> None:
    result = score()
    assert result.busters >= 14 and result.clean >= 12
    assert result.found == result.busters, result.missed
    assert result.false_alarms == 0, result.alarmed


def test_a_name_the_default_list_does_not_know_needs_strict_mode() -> None:
    path = CASES / "prompts" / "report_data_strict_only.txt"
    assert [f for f in lint_paths([path]) if f.severity != "info"] == []
    (finding,) = lint_paths([path], config=LintConfig(strict=True))
    assert (finding.code, finding.line) == ("PC105", 7)
