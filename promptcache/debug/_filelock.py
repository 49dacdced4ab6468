"""
`FileLock`: an advisory lock between processes on a sidecar file (`flock`, POSIX).

`flock` belongs to an open file description, not to a thread: threads of one process that share
one `FileLock` do not exclude each other (the caller serialises them with a threading lock), while
another process, or another `FileLock` on the same file in this process, waits. Where there is no
`flock` (Windows) it locks nothing and `SHARED` is False: there, one process per file.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["SHARED", "FileLock"]

SHARED = sys.platform != "win32"

if sys.platform != "win32":
    import fcntl


class FileLock:
    """An exclusive lock on `path` (created, with its folder, on first use; never deleted)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        if sys.platform == "win32":
            return
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(
                self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666
            )
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def release(self) -> None:
        if sys.platform != "win32" and self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        """Release (closing the last descriptor of a description releases its lock) and forget."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def forget_inherited(self) -> None:
        """
        In a forked child: the descriptor is shared with the parent, so unlocking it would release
        the parent's lock; close this copy only, and open a description of our own when next used.
        """
        self.close()
