"""
The measured targets on real request-building code (tests/lint/pycorpus, README there).

Recall at least 0.9 on the labelled real busters, findings in at most 1 in 20 clean files, and
every synthetic ordering buster found.
"""

from __future__ import annotations

from ._pycorpus import CORPUS, labels, promptcache_findings, score


def test_corpus_is_labelled() -> None:
    real = labels(CORPUS / "real")
    assert sum(len(marks) for marks in real.values()) >= 10
    assert sum(1 for path, marks in real.items() if path.name.startswith("c") and not marks) >= 20


def test_recall_on_real_busters() -> None:
    result = score(CORPUS / "real", promptcache_findings(CORPUS / "real"))
    assert result.recall >= 0.9, result.missed


def test_false_alarms_on_clean_real_files() -> None:
    result = score(CORPUS / "real", promptcache_findings(CORPUS / "real"))
    assert result.noisy_clean_files * 20 <= result.clean_files, result.noisy


def test_synthetic_ordering_busters() -> None:
    result = score(CORPUS / "synthetic", promptcache_findings(CORPUS / "synthetic"))
    assert result.recall == 1.0, result.missed
    # With no labels read, recall is 1.0 by definition: the busters must be there to be found.
    assert result.busters >= 16
    # The synthetic clean cases (sc*.py: the same shapes done right) stay clean.
    assert result.clean_files >= 2 and result.noisy_clean_files == 0, result.noisy
