"""
Reading the files a user points promptcache at, safely: several files and globs, gzip, standard
input; a FIFO, device or socket is refused by name (reading one would hang or never end), a
symlink loop is named, and every read is bounded (a whole JSON file by `max_bytes`, a log line by
`max_line_bytes`), with the flag that raises the bound in the error.
"""

from __future__ import annotations

import errno
import glob
import gzip
import logging
import os
import re
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ._errors import InputError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "Source",
    "check_regular",
    "open_source",
    "read_bounded",
    "resolve_sources",
]

DEFAULT_MAX_BYTES = 64 * 1024 * 1024  # one JSON document (inspect, diff, cost)
DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024  # one log record
_GZIP_MAGIC = b"\x1f\x8b"
_LOGGER = logging.getLogger("promptcache.inputs")
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True, kw_only=True)
class Source:
    """One input: a regular file (its size on disk, for progress) or standard input."""

    name: str
    path: Path | None
    size: int | None


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def check_regular(path: Path, *, fix: str | None = None) -> os.stat_result:
    """
    The file's stat if it is a regular file; else an InputError naming it and what it is, ending
    with `fix` (default: how to read a stream instead).
    """
    try:
        info = path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{str(path)!r} is a symlink loop; point at the file itself") from None
        raise InputError(f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        hint = " (to read a stream, pipe it to standard input and pass '-')" if fix is None else fix
        raise InputError(f"{str(path)!r} is {_kind(info.st_mode)}, not a regular file{hint}")
    return info


def resolve_sources(patterns: Sequence[str]) -> list[Source]:
    """
    Files named or matched by glob patterns, in order, each file once (however many paths lead
    to it: `**` follows symlinks); '-' is standard input. A named path that is not a readable
    regular file is an error; a glob's match that is not one (a symlink loop, a FIFO) is skipped
    with a notice, as lint skips them in a folder.
    """
    sources: list[Source] = []
    files: set[tuple[int, int]] = set()  # (device, inode) of every file taken
    for pattern in patterns:
        if pattern == "-":
            sources.append(Source(name="<stdin>", path=None, size=None))
            continue
        matched = glob.has_magic(pattern)
        names = _in_time_order(glob.glob(pattern, recursive=True)) if matched else [pattern]
        if not names:
            raise InputError(f"no file matches {pattern!r}")
        if matched and all(os.path.isdir(name) for name in names):
            raise InputError(f"no file matches {pattern!r}, only folders; name the files in them")
        again = taken = 0
        for name in names:
            path = Path(name)
            if matched and path.is_dir():
                continue  # a glob's directories are not inputs
            try:
                info = check_regular(path)
            except InputError as exc:
                if not matched:
                    raise
                _LOGGER.warning("promptcache: skipped %s", exc)
                continue
            if (info.st_dev, info.st_ino) in files:
                again += 1
                continue
            files.add((info.st_dev, info.st_ino))
            sources.append(Source(name=name, path=path, size=info.st_size))
            taken += 1
        if matched and taken == again == 0:
            raise InputError(f"no readable file matches {pattern!r} (each match is named above)")
        if again:
            _LOGGER.warning(
                "promptcache: %s path(s) matched by %r lead to files already read (through "
                "symlinks or a repeated name); each file is read once",
                again,
                pattern,
            )
    return sources


# A rotated backup: `calls.jsonl.3` or `calls.jsonl.3.gz` (the recorder's, logrotate's and
# logging.handlers' naming, where .1 is the newest).
_BACKUP = re.compile(r"(?P<base>.+)\.(?P<n>[0-9]{1,6})(?:\.gz)?")


def _in_time_order(names: list[str]) -> list[str]:
    """
    A glob's matches in name order, except that the rotated backups of a file that is itself
    there (matched or on disk) come first, oldest (highest number) first, then the file: the
    order their records were written in. The report judges each record against the one before
    it; read newest first, every session would run backwards in time.
    """
    matched = set(names)

    def order(name: str) -> tuple[str, int, int]:
        found = _BACKUP.fullmatch(name)
        if found is not None:
            base = found["base"]
            if base in matched or os.path.isfile(base):
                return (base, 0, -int(found["n"]))
        return (name, 1, 0)

    return sorted(names, key=order)


def open_source(source: Source) -> tuple[IO[bytes], IO[bytes]]:
    """
    The source's bytes, gunzipped when they start with the gzip magic, and the raw handle under
    them (its position is the progress through the file). The caller closes both.
    """
    if source.path is None:
        raw: IO[bytes] = sys.stdin.buffer
        _check_stdin(raw)
    else:
        try:
            # Log lines run to kilobytes: with the default 8 KiB buffer, most readline() calls
            # refill it more than once (a read and a copy each); 1 MiB reads a log 3x faster.
            raw = source.path.open("rb", buffering=_CHUNK)
        except OSError as exc:
            raise InputError(f"cannot read {source.name!r}: {exc.strerror or exc}") from None
    peek = getattr(raw, "peek", None)
    head = peek(2)[:2] if callable(peek) else b""
    if head == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw, mode="rb"), raw  # type: ignore[return-value]
    return raw, raw


def _check_stdin(stdin: IO[bytes]) -> None:
    """Standard input redirected from a device (`< /dev/zero`) would be read forever."""
    try:
        mode = os.fstat(stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is an OSError
        return  # not a real file descriptor (a test's stand-in): nothing to check
    if (stat.S_ISCHR(mode) or stat.S_ISBLK(mode)) and not stdin.isatty():
        raise InputError(
            "standard input is a device (such as /dev/zero), not a log; redirect a file or pipe "
            "one to '-', or name the file"
        )


def lines_of(handle: IO[bytes], max_line_bytes: int) -> Iterator[bytes | None]:
    """
    The handle's lines; a line longer than `max_line_bytes` is consumed in chunks and yields None
    (the caller names it), so one huge line costs bounded memory.
    """
    while True:
        line = handle.readline(max_line_bytes + 1)
        if not line:
            return
        if len(line) > max_line_bytes and not line.endswith(b"\n"):
            while True:  # skip to the end of the over-long line, a chunk at a time
                rest = handle.readline(_CHUNK)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def read_bounded(
    file: str, *, max_bytes: int = DEFAULT_MAX_BYTES, flag: str = "--max-bytes"
) -> bytes:
    """All of `file` ('-': standard input), refusing non-regular files and more than `max_bytes`."""
    if file == "-":
        data = sys.stdin.buffer.read(max_bytes + 1)
    else:
        path = Path(file)
        info = check_regular(path)
        if info.st_size > max_bytes:
            raise _too_big(file, info.st_size, max_bytes, flag)
        try:
            with path.open("rb") as handle:
                data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise InputError(f"cannot read {file!r}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise _too_big(file, None, max_bytes, flag)
    return data


def _too_big(file: str, size: int | None, limit: int, flag: str) -> InputError:
    what = f"{size:,} bytes" if size is not None else f"over {limit:,} bytes"
    return InputError(
        f"{file!r} is {what}, over the {limit:,}-byte input limit; raise it with {flag} N"
    )
