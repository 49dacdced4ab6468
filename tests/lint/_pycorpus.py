"""
Score a Python linter on tests/lint/pycorpus (cases we wrote, and synthetic ordering busters).

A buster is labelled in the corpus file itself: `# label: PC501` on its line, or `# label@N: PC502`
for line N (when the line is inside a string). Files named `c*.py` (`sc*.py` among the synthetic
ones) are clean.

    python -m tests.lint._pycorpus            # promptcache's figures
    python -m tests.lint._pycorpus --pcdlint  # the same files through pcdlint, when installed
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from promptcache.lint import LintConfig, lint_paths

CORPUS = Path(__file__).resolve().parent / "pycorpus"
_LABEL = re.compile(r"label(?:@(\d+))?: (PC\d{3})")


@dataclass(frozen=True, slots=True, kw_only=True)
class Score:
    busters: int
    found: int
    clean_files: int
    noisy_clean_files: int
    missed: tuple[str, ...]
    noisy: tuple[str, ...]

    @property
    def recall(self) -> float:
        return self.found / self.busters if self.busters else 1.0

    @property
    def false_alarm_rate(self) -> float:
        return self.noisy_clean_files / self.clean_files if self.clean_files else 0.0


def labels(folder: Path) -> dict[Path, set[tuple[int, str]]]:
    found: dict[Path, set[tuple[int, str]]] = {}
    for path in sorted(folder.rglob("*.py")):
        marks: set[tuple[int, str]] = set()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "# label" in line:
                for match in _LABEL.finditer(line):
                    marks.add((int(match.group(1) or number), match.group(2)))
        found[path] = marks
    return found


def promptcache_findings(folder: Path) -> dict[Path, set[tuple[int, str]]]:
    config = LintConfig(root=folder)
    result: dict[Path, set[tuple[int, str]]] = {}
    for finding in lint_paths([folder], config=config):
        path = Path(finding.path).resolve()
        result.setdefault(path, set()).add((finding.line, finding.code))
    return result


def score(
    folder: Path,
    findings: dict[Path, set[tuple[int, str]]],
    *,
    match_code: bool = True,
    same_file: bool = False,
) -> Score:
    busters = found = clean = noisy_clean = 0
    missed: list[str] = []
    noisy: list[str] = []
    for path, marks in labels(folder).items():
        got = findings.get(path.resolve(), set())
        if path.name.startswith(("c", "sc")) and not marks:
            clean += 1
            if got:
                noisy_clean += 1
                noisy.append(path.name)
            continue
        for line, code in sorted(marks):
            busters += 1
            hit = any((same_file or at == line) and (c == code or not match_code) for at, c in got)
            found += hit
            if not hit:
                missed.append(f"{path.relative_to(folder)}:{line} {code}")
    return Score(
        busters=busters,
        found=found,
        clean_files=clean,
        noisy_clean_files=noisy_clean,
        missed=tuple(missed),
        noisy=tuple(noisy),
    )


def pcdlint_findings(folder: Path) -> dict[Path, set[tuple[int, str]]] | None:
    """pcdlint's findings (any rule counts as a hit on its line), or None when it is missing."""
    executable = shutil.which("pcdlint") or _beside_python("pcdlint")
    if executable is None:
        return None
    files = [str(p) for p in sorted(folder.rglob("*.py"))]
    run = subprocess.run(
        [executable, "--format", "json", "--fail-on-warn", *files],
        capture_output=True,
        text=True,
        check=False,
    )
    data = json.loads(run.stdout or "[]")
    records: Iterable[dict[str, object]] = (
        data if isinstance(data, list) else data.get("findings", [])
    )
    result: dict[Path, set[tuple[int, str]]] = {}
    for record in records:
        path = Path(str(record.get("file_path") or record.get("path"))).resolve()
        line = int(str(record.get("lineno") or record.get("line") or 0))
        result.setdefault(path, set()).add((line, str(record.get("rule_id") or record.get("code"))))
    return result


def _beside_python(name: str) -> str | None:
    candidate = Path(sys.executable).parent / name
    return str(candidate) if candidate.exists() else None


def report(
    name: str,
    folder: Path,
    get: Callable[[Path], dict[Path, set[tuple[int, str]]] | None],
    **kw: bool,
) -> None:
    findings = get(folder)
    if findings is None:
        print(f"{name}: not installed")
        return
    result = score(folder, findings, **kw)
    print(
        f"{name} on {folder.name}/: recall {result.found}/{result.busters} = {result.recall:.2f}; "
        f"clean files with findings {result.noisy_clean_files}/{result.clean_files}"
    )
    for item in result.missed:
        print(f"  missed {item}")
    for item in result.noisy:
        print(f"  false alarm in {item}")


if __name__ == "__main__":
    for part in ("cases", "synthetic"):
        report("promptcache", CORPUS / part, promptcache_findings)
        if "--pcdlint" in sys.argv:
            # pcdlint's rules are not ours: any of its findings on the labelled line counts, and
            # (more generous still) any finding anywhere in the buster's file.
            report("pcdlint (same line)", CORPUS / part, pcdlint_findings, match_code=False)
            report(
                "pcdlint (same file)",
                CORPUS / part,
                pcdlint_findings,
                match_code=False,
                same_file=True,
            )
