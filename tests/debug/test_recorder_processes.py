"""Several processes appending to one log, as the workers of one app do: none lost at rotations."""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from promptcache import CacheUsage, Recorder
from promptcache.cli import main

from . import pairs

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX flock; one process there")

_WRITE = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
WORKERS, RECORDS, MAX_BYTES = 4, 300, 40_000


def _worker(path: str, worker: int, start: Any) -> None:
    """One app worker: builds the recorder from the shared config, as each process does."""
    recorder = Recorder(path, max_bytes=MAX_BYTES, backups=1_000)
    request = pairs.anthropic()
    start.wait()
    for n in range(RECORDS):
        request["messages"][-1]["content"] = f"turn {n} " + "x" * (n % 7) * 50  # uneven lines
        recorder.record(request, _WRITE, key=f"worker-{worker}", at=float(n))
    recorder.close()
    sys.exit(1 if recorder.dropped else 0)


def _records(folder: Path, name: str) -> list[dict[str, Any]]:
    """Every line of the log and its backups, plain or gzipped; each must be whole JSON."""
    out = []
    for file in folder.iterdir():
        if not file.name.startswith(name):
            continue
        data = file.read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        assert data == b"" or data.endswith(b"\n"), file.name
        out += [json.loads(line) for line in data.splitlines()]
    return out


def _check(log: Path, capsys: pytest.CaptureFixture[str], extra: int = 0) -> None:
    records = _records(log.parent, log.name)
    written = sorted((r["key"], r["at"]) for r in records)
    expected = sorted((f"worker-{w}", float(n)) for w in range(WORKERS) for n in range(RECORDS))
    assert len(written) == len(expected) + extra
    assert [k for k in written if k[0].startswith("worker-")] == expected  # each exactly once
    assert len(list(log.parent.glob(log.name + ".*"))) > 10  # it did rotate, many times
    assert main(["report", f"{log}*", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["records"] == len(expected) + extra and out["skipped"]["lines"] == 0


def test_processes_sharing_a_log_lose_no_record_at_rotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    context = multiprocessing.get_context("spawn")
    log = tmp_path / "calls.jsonl"
    start = context.Event()
    processes = [context.Process(target=_worker, args=(str(log), w, start)) for w in range(WORKERS)]
    for process in processes:
        process.start()
    start.set()
    for process in processes:
        process.join(120)
    assert [p.exitcode for p in processes] == [0] * WORKERS
    _check(log, capsys)


def _forked_worker(recorder: Recorder, worker: int, start: Any) -> None:
    request = pairs.anthropic()
    start.wait()
    for n in range(RECORDS):
        request["messages"][-1]["content"] = f"turn {n} " + "x" * (n % 7) * 50
        recorder.record(request, _WRITE, key=f"worker-{worker}", at=float(n))
    recorder.close()
    os._exit(1 if recorder.dropped else 0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_workers_forked_after_the_recorder_was_built_and_used_lose_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A preloading server (gunicorn --preload) builds the app, recorder included, then forks:
    # every worker inherits the same open file and lock descriptors, which must not be shared.
    context = multiprocessing.get_context("fork")
    log = tmp_path / "calls.jsonl"
    recorder = Recorder(log, max_bytes=MAX_BYTES, backups=1_000)
    recorder.record(pairs.anthropic(), _WRITE, key="parent", at=0.0)  # opened before the fork
    start = context.Event()
    processes = [
        context.Process(target=_forked_worker, args=(recorder, w, start)) for w in range(WORKERS)
    ]
    with warnings.catch_warnings():  # 3.12+ warns on fork while a thread runs (pytest's)
        warnings.simplefilter("ignore", DeprecationWarning)
        for process in processes:
            process.start()
    start.set()
    for process in processes:
        process.join(120)
    assert [p.exitcode for p in processes] == [0] * WORKERS
    recorder.record(pairs.anthropic(), _WRITE, key="parent", at=1.0)  # the parent still writes
    recorder.close()
    _check(log, capsys, extra=2)


def _redact_in_child() -> None:
    from promptcache.debug.recorder import redact

    redact({"text": "a text this process never saw"})


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_child_forked_while_the_placeholder_memo_was_locked_can_still_redact() -> None:
    # A thread of the parent (a caller, a writer) holding the memo's lock at the fork leaves it
    # held in the child for ever: the child's first record would hang.
    from promptcache.debug import recorder as recorder_module

    context = multiprocessing.get_context("fork")
    with recorder_module._memo_lock, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        child = context.Process(target=_redact_in_child)
        child.start()
    child.join(20)
    if child.exitcode is None:
        child.kill()
    assert child.exitcode == 0
