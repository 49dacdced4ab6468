"""
One writing path for every output (`report --html`, `lint -o`): an input of the run is never
overwritten, a FIFO or device is refused without blocking, a write is atomic (an error leaves the
old file whole and no temporary file behind), a full disk is a clear exit 2, on a file as on
standard output, and a closed pipe on standard output is a quiet exit.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from promptcache import _outputs
from promptcache.cli import EXIT_CLOSED_PIPE, main

from .debug.test_report_and_cli import _log

_TEMPLATE = (
    "Today is {{ now }}.\n{% for d in docs %}{{ d }}{% endfor %}\nYou are a helpful assistant.\n"
)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "calls.jsonl"
    path.write_text("\n".join(_log(sessions=1, turns=3)) + "\n")
    return path


@pytest.fixture
def template(tmp_path: Path) -> Path:
    path = tmp_path / "t.j2"
    path.write_text(_TEMPLATE)
    return path


def _cli(*argv: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """In a child process with a timeout: an output that blocks fails the test, not the run."""
    return subprocess.run(
        [sys.executable, "-m", "promptcache", *argv],
        capture_output="stdout" not in kwargs,
        text=True,
        timeout=60,
        check=False,
        **kwargs,  # type: ignore[call-overload]
    )


def test_report_refuses_to_write_its_html_over_its_log(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = log.read_bytes()
    assert main(["report", str(log), "--html", str(log)]) == 2
    err = capsys.readouterr().err
    assert "is also an input of this run" in err and "internal error" not in err, err
    assert log.read_bytes() == before


def test_report_refuses_a_glob_matched_log_reached_through_a_link(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = log.read_bytes()
    link = tmp_path / "out.html"
    link.symlink_to(log)
    assert main(["report", str(tmp_path / "*.jsonl"), "--html", str(link)]) == 2
    assert "is also an input of this run" in capsys.readouterr().err
    hard = tmp_path / "hard.html"
    os.link(log, hard)
    assert main(["report", str(log), "--html", str(hard)]) == 2
    assert log.read_bytes() == before


def test_report_refuses_to_write_over_its_price_file(
    log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text('{"vendors": {}}')
    monkeypatch.setenv("PROMPTCACHE_PRICES", str(prices))
    assert main(["report", str(log), "--html", str(prices)]) == 2
    assert "is also an input of this run" in capsys.readouterr().err
    assert prices.read_text() == '{"vendors": {}}'


def test_lint_refuses_to_write_its_report_over_the_template(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", str(template), "-o", str(template)]) == 2
    assert "is also an input of this run" in capsys.readouterr().err
    assert main(["lint", str(tmp_path), "-o", str(template)]) == 2  # found in a folder linted
    assert "is also an input of this run" in capsys.readouterr().err
    assert template.read_text() == _TEMPLATE


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("command", ["report", "lint"])
def test_an_output_that_is_a_fifo_is_refused_without_blocking(
    command: str, log: Path, template: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    if command == "report":
        done = _cli("report", str(log), "--html", str(fifo))
    else:
        done = _cli("lint", str(template), "-o", str(fifo))
    assert done.returncode == 2 and "is not a regular file" in done.stderr, done.stderr


def test_a_full_disk_leaves_the_old_output_whole_and_no_temporary_file(
    template: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out" / "report.txt"
    out.parent.mkdir()
    out.write_text("the last report\n")
    real_write = os.write
    calls = []

    def full(fd: int, data: bytes | memoryview) -> int:
        calls.append(fd)
        if len(calls) > 1:  # part of the text is written, then the disk is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, bytes(data)[:5])

    monkeypatch.setattr(_outputs.os, "write", full)
    assert main(["lint", str(template), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"cannot write -o {str(out)!r}: the disk is full" in err and "internal" not in err
    assert out.read_text() == "the last report\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["report.txt"]


def test_a_written_output_is_whole_and_keeps_a_symlink(
    template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert main(["lint", str(template), "-o", str(link), "--format", "json"]) == 1
    assert link.is_symlink() and '"PC102"' in real.read_text()
    assert real.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json", "t.j2"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("argv", [["vendors"], ["vendors", "--format", "json"], ["demo"]])
def test_a_full_disk_under_standard_output_is_a_clear_exit_2(argv: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = _cli(*argv, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert "cannot write standard output: the disk is full" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


@pytest.mark.parametrize("argv", [["vendors"], ["vendors", "--format", "json"], ["demo"]])
def test_a_closed_pipe_on_standard_output_is_a_quiet_exit(argv: list[str]) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before a byte is written (`| head -c 0`)
    try:
        done = _cli(*argv, stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert done.returncode == EXIT_CLOSED_PIPE
    assert done.stderr == ""
