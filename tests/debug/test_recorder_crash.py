"""
The recorder's rotation loses and duplicates no record across a crash at any point: a child
process is killed (`os._exit`) before and after every file operation of the rotations, a second
run then writes on, and every record is on disk exactly once (as `report 'calls.jsonl*'` counts
them); a gzip that fails (a full disk) keeps the plain backup, never overwritten by the next
rotation, and a record that reached no disk is counted in `dropped`.
"""

from __future__ import annotations

import errno
import gzip
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from promptcache import CacheUsage, Recorder
from promptcache.cli import main
from promptcache.debug import recorder as recorder_module

from . import pairs

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX only")

_WRITE = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
_FIRST, _SECOND, _MAX_BYTES = 10, 8, 24_000

# The child: writes records `sess-N` one by one, printing N once record() returned; the
# `kill_at`-th file operation of a rotation (rename, remove, gzip copy) ends the process,
# before or after the operation. Then, if asked, a fresh recorder writes on (a restart).
_CHILD = textwrap.dedent(
    """
    import os, shutil, sys
    from pathlib import Path
    from promptcache import CacheUsage, Recorder
    from promptcache.debug import recorder as module
    from tests.debug import pairs

    path, start, count, kill_at, when = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5]
    calls = [0]

    def faulty(name, real):
        def op(*args, **kwargs):
            calls[0] += 1
            if calls[0] == kill_at and when == "before":
                os._exit(9)
            result = real(*args, **kwargs)
            if calls[0] == kill_at and when == "after":
                os._exit(9)
            return result
        return op

    Path.replace = faulty("replace", Path.replace)
    Path.unlink = faulty("unlink", Path.unlink)
    module.shutil.copyfileobj = faulty("gzip", shutil.copyfileobj)
    usage = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
    recorder = Recorder(path, max_bytes=MAX_BYTES, backups=50, background=False)
    request = pairs.anthropic()
    for n in range(start, start + count):
        request["messages"][-1]["content"] = f"turn {n} " + "x" * (n % 5) * 40
        recorder.record(request, usage, key=f"sess-{n}", at=float(n))
        print(n, flush=True)
    recorder.close()
    print("ops", calls[0], flush=True)
    """
).replace("MAX_BYTES", str(_MAX_BYTES))


def _child(path: Path, start: int, count: int, kill_at: int = 0, when: str = "") -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), str(start), str(count), str(kill_at), when],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == (9 if kill_at else 0), done.stderr  # 9: killed as asked
    return done.stdout.split("\n")


def _restart(log: Path) -> None:
    """The app started again: a fresh recorder writes on (and rotates)."""
    recorder = Recorder(log, max_bytes=_MAX_BYTES, backups=50, background=False)
    request = pairs.anthropic()
    for n in range(1000, 1000 + _SECOND):
        recorder.record(request, _WRITE, key=f"sess-{n}", at=float(n))
    recorder.close()
    assert recorder.dropped == 0


def _on_disk(folder: Path, name: str, *, twins: bool = True) -> tuple[list[str], int]:
    """
    The keys of every record in the log and its backups, and how many lines are torn. `twins=False`:
    a plain backup beside its whole .gz (a rotation killed between renaming the .gz into place
    and removing the plain one) is read once, as `report` reads it.

    A torn line is the record in flight when the process died: a kill that lands inside the
    write of a line longer than a page (these are ~7.5 KB) can end that write short, at a page
    boundary, and no append can be made atomic across it. The recorder ends such a line before
    writing the next one, and `report` skips and counts it; it can only be the last line a file
    had when the process died.
    """
    keys, torn = [], 0
    names = {file.name for file in folder.iterdir()}
    for file in sorted(folder.iterdir()):
        if not file.name.startswith(name) or file.name.endswith(".lock"):
            continue
        if not twins and f"{file.name}.gz" in names:
            continue
        data = file.read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        for line in data.splitlines():
            if not line.strip():
                continue
            try:
                keys.append(json.loads(line)["key"])
            except json.JSONDecodeError:
                assert line.startswith(b"{"), line[:80]  # the start of a record, cut short
                torn += 1
    return keys, torn


def _counted_by_report(log: Path, capsys: pytest.CaptureFixture[str], torn: int = 0) -> int:
    assert main(["report", f"{log}*", "--format", "json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert out["skipped"]["lines"] == torn  # a torn line is skipped and counted, never read
    return int(out["records"])


def _operations(tmp_path: Path) -> int:
    """How many rename/remove/gzip operations a clean run's rotations take."""
    lines = _child(tmp_path / "clean" / "calls.jsonl", 0, _FIRST)
    return int(next(line for line in lines if line.startswith("ops")).split()[1])


def test_a_crash_at_any_step_of_a_rotation_loses_and_doubles_no_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "clean").mkdir()
    operations = _operations(tmp_path)
    assert operations >= 12  # several rotations happened
    tried = 0
    for kill_at in range(1, operations + 1):
        for when in ("before", "after"):
            folder = tmp_path / f"{kill_at}-{when}"
            folder.mkdir()
            log = folder / "calls.jsonl"
            lines = _child(log, 0, _FIRST, kill_at, when)
            returned = [int(x) for x in lines if x.isdigit()]
            # (killed after the last record returned: in the gzip of the last backup)
            in_flight = f"sess-{len(returned)}"  # killed inside its record(): on disk at most once
            keys, torn = _on_disk(folder, "calls.jsonl", twins=False)
            assert sorted(k for k in keys if k != in_flight) == sorted(
                f"sess-{n}" for n in returned
            )
            assert keys.count(in_flight) + torn <= 1  # the record in flight: whole, torn or none
            assert _counted_by_report(log, capsys, torn) == len(returned) + keys.count(in_flight)
            _restart(log)
            keys, torn_after = _on_disk(folder, "calls.jsonl")
            assert torn_after == torn  # the restart ended the torn line and glued nothing onto it
            expected = [f"sess-{n}" for n in returned] + [
                f"sess-{n}" for n in range(1000, 1000 + _SECOND)
            ]
            assert sorted(k for k in keys if k != in_flight) == sorted(expected), (kill_at, when)
            assert keys.count(in_flight) + torn <= 1
            assert _counted_by_report(log, capsys, torn) == len(expected) + keys.count(in_flight)
            tried += 1
    assert tried == 2 * operations


def test_a_failed_gzip_keeps_every_plain_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(*args: object, **kwargs: object) -> Any:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(recorder_module.gzip, "open", full)
    log = tmp_path / "calls.jsonl"
    recorder = Recorder(log, max_bytes=_MAX_BYTES, backups=1000, background=False)
    request = pairs.anthropic()
    for n in range(200):
        recorder.record(request, _WRITE, key=f"sess-{n}", at=float(n))
    recorder.close()
    keys, torn = _on_disk(tmp_path, "calls.jsonl")
    assert torn == 0
    assert len(list(tmp_path.glob("calls.jsonl.*"))) > 5  # it rotated, gzip failing each time
    assert sorted(keys) == sorted(f"sess-{n}" for n in range(200)) and recorder.dropped == 0
    assert _counted_by_report(log, capsys) == 200


def test_on_a_full_disk_every_record_is_on_disk_or_counted_as_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_write = os.write
    calls = [0]

    def sometimes_full(fd: int, data: Any) -> int:
        calls[0] += 1
        if calls[0] % 3 == 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    def full(*args: object, **kwargs: object) -> Any:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(recorder_module.os, "write", sometimes_full)
    monkeypatch.setattr(recorder_module.gzip, "open", full)
    log = tmp_path / "calls.jsonl"
    recorder = Recorder(log, max_bytes=_MAX_BYTES, backups=1000, background=False)
    request = pairs.anthropic()
    for n in range(300):
        recorder.record(request, _WRITE, key=f"sess-{n}", at=float(n))
    recorder.close()
    keys, torn = _on_disk(tmp_path, "calls.jsonl")
    assert torn == 0
    assert len(keys) == len(set(keys))
    assert len(keys) + recorder.dropped == 300, (len(keys), recorder.dropped)
    assert recorder.dropped > 0
    assert _counted_by_report(log, capsys) == len(keys)
