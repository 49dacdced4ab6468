"""
The Python analysis on real-shaped code: every mechanism found, no clean shape reported.

`tests/lint/pycorpus/cases/` holds short files we wrote, one per mechanism seen in real
request-building code (the real files are measured outside the suite: bench/score_lint.py).
Every labelled buster must be found and every clean case stay clean; the synthetic ordering
busters (`synthetic/`) likewise.
"""

from __future__ import annotations

from ._pycorpus import CORPUS, labels, promptcache_findings, score


def test_cases_are_labelled() -> None:
    cases = labels(CORPUS / "cases")
    assert sum(len(marks) for marks in cases.values()) >= 16
    assert sum(1 for path, marks in cases.items() if path.name.startswith("c") and not marks) >= 12


def test_every_real_shaped_buster_is_found() -> None:
    result = score(CORPUS / "cases", promptcache_findings(CORPUS / "cases"))
    assert result.busters >= 16
    assert result.recall == 1.0, result.missed


def test_no_finding_on_clean_real_shapes() -> None:
    result = score(CORPUS / "cases", promptcache_findings(CORPUS / "cases"))
    assert result.clean_files >= 12
    assert result.noisy_clean_files == 0, result.noisy


def test_synthetic_ordering_busters() -> None:
    result = score(CORPUS / "synthetic", promptcache_findings(CORPUS / "synthetic"))
    assert result.recall == 1.0, result.missed
    # With no labels read, recall is 1.0 by definition: the busters must be there to be found.
    assert result.busters >= 16
    # The synthetic clean cases (sc*.py: the same shapes done right) stay clean.
    assert result.clean_files >= 2 and result.noisy_clean_files == 0, result.noisy
