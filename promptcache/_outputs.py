"""
Writing the files a command produces (`report --html`, `lint -o`, any `-o`), safely: the one
writing path. A path that is one of the run's inputs (the same file, by any name) or is not a
regular file (a FIFO would block, a device would swallow the report) is refused before any work
is done; the text goes to a temporary file in the same folder that is renamed over the target,
so an error leaves the old file whole and no half-written one; a full disk is a clear error.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ._errors import InputError

__all__ = ["check_output", "write_atomic", "write_failure"]

# What a write error means to the user, and what to do about it.
_FIXES = {
    errno.ENOSPC: "the disk is full; free space or write elsewhere",
    errno.EDQUOT: "the disk quota is used up; free space or write elsewhere",
    errno.EFBIG: "the file is larger than this file system allows; write elsewhere",
    errno.EIO: "the device reported an I/O error; write elsewhere",
    errno.EROFS: "the file system is read-only; write elsewhere",
    errno.EACCES: "permission denied; write elsewhere or change the folder's permissions",
    errno.EPERM: "permission denied; write elsewhere or change the folder's permissions",
}


def write_failure(target: str, exc: OSError) -> InputError:
    """An OSError met while writing `target`, as a clear error naming it and the fix."""
    fix = _FIXES.get(exc.errno or 0, exc.strerror or str(exc))
    return InputError(f"cannot write {target}: {fix}")


def check_output(path: Path, *, inputs: Iterable[str | Path] = (), flag: str = "-o") -> Path:
    """
    `path` if a command may write its output there: a file (new, or a regular one) in an
    existing folder, and none of `inputs`. Called before the work is done, so a mistyped or
    dangerous path is a usage error at once, not an error after the work is lost.
    """
    shown = f"{flag} {str(path)!r}"
    try:
        info = path.stat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{shown} is a symlink loop; name a file") from None
        if exc.errno != errno.ENOTDIR:
            raise InputError(f"{shown}: {exc.strerror or exc}") from None
        info = None  # a path under a file: the folder check below names it
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise InputError(
            f"{shown} is a folder; name a file, e.g. {flag} {str(path / 'report.txt')!r}"
        )
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise InputError(
            f"{shown} is not a regular file (a FIFO, device or socket); name a file to write, "
            "or leave the option out to write to standard output"
        )
    folder = path.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise InputError(
            f"{shown}: the folder {str(folder)!r} {what}; create it or choose another path"
        )
    if info is not None:
        _refuse_an_input(path, info, inputs, shown)
    return path


def _refuse_an_input(
    path: Path, info: os.stat_result, inputs: Iterable[str | Path], shown: str
) -> None:
    for name in inputs:
        if str(name) == "-":
            continue
        try:
            other = os.stat(name)
        except OSError:
            continue  # not there: it cannot be overwritten
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            raise InputError(
                f"{shown} is also an input of this run ({str(name)!r}); writing it would destroy "
                "that input: choose another path"
            )


def write_atomic(
    path: Path, text: str, *, inputs: Iterable[str | Path] = (), flag: str = "-o"
) -> None:
    """
    Write `text` to `path` whole or not at all: to a temporary file in the same folder, flushed
    to disk, then renamed over `path` (a symlink is followed, so the link keeps pointing at the
    report). The checks of `check_output` are made again: the path may have changed meanwhile.
    """
    check_output(path, inputs=inputs, flag=flag)
    target = Path(os.path.realpath(path))
    data = text.encode("utf-8")
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    try:
        fd, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
    except OSError as exc:
        raise write_failure(f"{flag} {str(path)!r}", exc) from None
    try:
        try:
            _write_all(fd, data)
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except OSError as exc:
        _remove(temporary)
        raise write_failure(f"{flag} {str(path)!r}", exc) from None
    except BaseException:
        _remove(temporary)
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _remove(temporary: str) -> None:
    with contextlib.suppress(OSError):  # already gone: nothing else to undo
        os.unlink(temporary)


def _umask() -> int:
    # os.umask can only be read by setting it; set it back at once.
    current = os.umask(0o022)
    os.umask(current)
    return current
