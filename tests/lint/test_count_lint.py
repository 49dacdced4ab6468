"""bench/count_lint.py: reads callgrind's count, and says plainly what it needs to run."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("count_lint", BENCH / "count_lint.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def test_the_count_is_read_from_callgrinds_summary_line() -> None:
    count_lint = _load()
    output = "==7== Events    : Ir\n==7== Collected : 4,138,872,111\n==7==\n==7== I   refs:  4,1\n"
    assert count_lint.collected(output) == 4_138_872_111
    with pytest.raises(ValueError, match="no 'Collected' count"):
        count_lint.collected("valgrind: command not found\n")


def test_without_valgrind_it_says_so_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    count_lint = _load()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert count_lint.main(["--workload", "synth"]) == 2
    assert "needs valgrind" in capsys.readouterr().err


def test_the_real_workload_asks_for_the_corpus_folder(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    count_lint = _load()
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/valgrind")
    assert count_lint.main(["--workload", "real"]) == 2
    assert "--real-corpus DIR" in capsys.readouterr().err


def test_each_side_is_counted_with_a_fixed_hash_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    # With salted string hashes, set and dict orders differ run to run and so does the count.
    import subprocess

    count_lint = _load()
    seen: dict[str, str] = {}

    class Done:
        returncode = 0
        stderr = "==7== Collected : 1,000\n"

    def run(command: list[str], **options: object) -> Done:
        environment = options["env"]
        assert isinstance(environment, dict)
        seen.update(environment)
        return Done()

    monkeypatch.setattr(subprocess, "run", run)
    assert count_lint._count("lint", "synth", None) == 1000
    assert seen["PYTHONHASHSEED"] == "0"
