"""
Recall and false alarms of `promptcache lint` on real templates (tests/lint/corpus/).

The corpus files were labelled by reading them before running the linter (labels.json; origin
and licence in the corpus README). A buster counts as found when a warning or error finding
that is not PC001 lands on one of its labelled lines; a clean file counts as a false alarm when
any warning or error finding (PC001 included) is reported on it. Info findings ("could not
check", "skipped") are neither.

    python -m pytest -q -s tests/lint/test_lint_corpus.py    # prints the figures
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from promptcache.lint import Finding, lint_paths

CORPUS = Path(__file__).parent / "corpus"
RECALL_TARGET = 0.9
FALSE_ALARM_TARGET = 1 / 20


@dataclass(frozen=True, slots=True, kw_only=True)
class Score:
    busters: int
    found: int
    clean: int
    false_alarms: int
    missed: tuple[str, ...]
    alarmed: tuple[str, ...]

    @property
    def recall(self) -> float:
        return self.found / self.busters

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.clean


def _labels() -> dict[str, dict[str, object]]:
    data = json.loads((CORPUS / "labels.json").read_text(encoding="utf-8"))
    return {name: label for name, label in data.items() if not name.startswith("_")}


def _problems(name: str) -> list[Finding]:
    findings = lint_paths([CORPUS / name])
    return [f for f in findings if f.severity in ("warning", "error")]


def score() -> Score:
    busters = found = clean = false_alarms = 0
    missed: list[str] = []
    alarmed: list[str] = []
    for name, label in sorted(_labels().items()):
        problems = _problems(name)
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


def test_every_corpus_file_is_labelled_and_documented() -> None:
    labels = _labels()
    files = {
        p.relative_to(CORPUS).as_posix()
        for p in CORPUS.rglob("*")
        if p.is_file() and p.name not in ("labels.json", "README.md")
    }
    assert files == set(labels)
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    assert all(f"| {name} |" in readme for name in labels)


def test_recall_and_false_alarms_meet_the_targets() -> None:
    result = score()
    print(
        f"\ncorpus: {result.busters} busters, found {result.found} "
        f"(recall {result.recall:.2f}); {result.clean} clean files, "
        f"{result.false_alarms} false alarms ({result.false_alarm_rate:.3f})"
    )
    for line in (*result.missed, *result.alarmed):
        print("  ", line)
    assert result.recall >= RECALL_TARGET, result.missed
    assert result.false_alarm_rate <= FALSE_ALARM_TARGET, result.alarmed
