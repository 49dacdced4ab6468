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
from typing import IO, Any

import orjson

from ._canonical import load_json
from ._errors import InputError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINE_BYTES",
    "MAX_BYTES_CEILING",
    "Source",
    "check_max_bytes",
    "check_regular",
    "decode_utf8",
    "open_regular",
    "open_source",
    "parse_json",
    "read_bounded",
    "read_json",
    "read_text",
    "resolve_sources",
]

DEFAULT_MAX_BYTES = 64 * 1024 * 1024  # one JSON document (inspect, diff, cost)
DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024  # one log record
_GZIP_MAGIC = b"\x1f\x8b"
_LOGGER = logging.getLogger("promptcache.inputs")
_CHUNK = 1 << 20
# The largest bound a flag may set (1 TiB): a bound is a promise the read can keep.
MAX_BYTES_CEILING = 1 << 40
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


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
        names = _without_gzipped_twins(names) if matched else names
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


def _without_gzipped_twins(names: list[str]) -> list[str]:
    """
    A glob's matches less each plain backup whose .gz is matched too: a recorder gzips backup
    `calls.jsonl.1` to `calls.jsonl.1.gz` and then removes the plain one, so when both are there
    (it stopped between the two, or is between them now) they hold the same records.
    """
    present = set(names)
    twins = [
        n for n in names if _BACKUP.fullmatch(n) and not n.endswith(".gz") and f"{n}.gz" in present
    ]
    for name in twins:
        _LOGGER.warning(
            "promptcache: skipped %r: %r holds the same records (a rotation stopped before "
            "removing the plain copy)",
            name,
            f"{name}.gz",
        )
    return [n for n in names if n not in set(twins)]


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
        # Log lines run to kilobytes: with the default 8 KiB buffer, most readline() calls
        # refill it more than once (a read and a copy each); 1 MiB reads a log 3x faster.
        raw = os.fdopen(open_regular(source.path), "rb", buffering=_CHUNK)
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
    file: str | Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    flag: str | None = "--max-bytes",
    what: str | None = None,
) -> bytes:
    """
    All of `file` ('-': standard input), refusing what is not a regular file (opened without
    blocking, then checked: a FIFO or device is named, never read), more than `max_bytes`
    (`flag` raises the bound; None: there is none to raise) and anything a path cannot reach (a
    folder, a path under a file, a symlink loop). `what` names the file in errors ("price table").
    """
    check_max_bytes(max_bytes, flag)
    name = _label(file, what)
    if str(file) == "-":
        return _read_stdin(max_bytes, flag, name)
    fd = open_regular(file if isinstance(file, Path) else Path(file), what=what)  # no re-parse
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise _too_big(name, size, max_bytes, flag)
        data = _read_fd(fd, max_bytes, name)
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # the file grew while it was read
        raise _too_big(name, None, max_bytes, flag)
    return data


def read_text(
    file: str | Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    flag: str | None = "--max-bytes",
    what: str | None = None,
) -> str:
    """`read_bounded`, decoded as UTF-8 (a clear error for UTF-16, UTF-32 or stray bytes)."""
    data = read_bounded(file, max_bytes=max_bytes, flag=flag, what=what)
    return decode_utf8(data, _label(file, what))


def read_json(
    file: str | Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    flag: str | None = "--max-bytes",
    what: str | None = None,
) -> Any:
    """`read_bounded`, parsed by `parse_json` (UTF-8, depth and number limits)."""
    data = read_bounded(file, max_bytes=max_bytes, flag=flag, what=what)
    return parse_json(data, _label(file, what))


def parse_json(data: bytes, name: str) -> Any:
    """
    JSON from `data` read from `name`: UTF-8 only, nested at most `MAX_DEPTH` deep, numbers a
    double can hold. Every refusal is an InputError naming the file and the fix.
    """
    _refuse_wide_text(data, name)
    try:
        return load_json(data, name)
    except orjson.JSONDecodeError as exc:
        decode_utf8(data, name)  # a stray byte is named as such, not as a JSON error
        if "infinity" in str(exc):
            raise InputError(
                f"{name} holds a number too large to read ({exc.msg} at line {exc.lineno}); "
                "write it as a string, or with fewer digits"
            ) from None
        raise InputError(f"{name} is not valid JSON: {exc}") from None


_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def _refuse_wide_text(data: bytes, name: str) -> None:
    """UTF-16/32 text (a BOM, or NUL bytes between ASCII ones) is named as the encoding it is."""
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            raise InputError(
                f"{name} is {encoding} text; {encoding} is not supported: save it as UTF-8"
            )
    head = data[:64]
    if len(head) >= 4 and head.count(0) * 4 >= len(head) and head.strip(b"\0").isascii():
        raise InputError(f"{name} is UTF-16 text; UTF-16 is not supported: save it as UTF-8")


def decode_utf8(data: bytes, name: str) -> str:
    """`data` as UTF-8 text (a leading BOM dropped); an InputError naming the first bad byte."""
    _refuse_wide_text(data, name)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{name} is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start} "
            f"(line {line}) cannot be decoded; save it as UTF-8"
        ) from None


def open_regular(path: Path, *, what: str | None = None) -> int:
    """
    A read-only descriptor of `path` if it is a regular file. It is opened with O_NONBLOCK and
    checked with fstat before a byte is read: opening a FIFO without it waits for a writer
    forever, and checking the path first would leave a gap for it to be swapped.
    """
    name = _label(path, what)
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC)
    except OSError as exc:
        raise _open_error(name, path, exc) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        stream = " (to read a stream, pipe it to standard input and pass '-')"
        raise InputError(
            f"{name} is {_kind(mode)}, not a regular file; name a file{stream if what is None else ''}"
        )
    os.set_blocking(fd, True)
    return fd


def _open_error(name: str, path: Path, exc: OSError) -> InputError:
    if exc.errno == errno.ELOOP:
        return InputError(f"{name} is a symlink loop; point at the file itself")
    if exc.errno == errno.ENOTDIR:
        return InputError(f"{name}: a folder in the path {str(path)!r} is a file; check the path")
    if exc.errno == errno.ENOENT:
        return InputError(f"cannot read {name}: it does not exist; check the path")
    if exc.errno == errno.ENXIO:  # a socket
        return InputError(f"{name} is a socket, not a regular file; name a file")
    return InputError(f"cannot read {name}: {exc.strerror or exc}")


def check_max_bytes(max_bytes: int, flag: str | None) -> None:
    """A bound a read can honour: from 1 byte to `MAX_BYTES_CEILING`."""
    if not 1 <= max_bytes <= MAX_BYTES_CEILING:
        shown = f"{flag} {max_bytes}" if flag else f"a bound of {max_bytes} bytes"
        raise InputError(f"{shown} is out of range; give 1 to {MAX_BYTES_CEILING:,} bytes")


def _read_fd(fd: int, max_bytes: int, name: str) -> bytes:
    """At most `max_bytes + 1` bytes, a chunk at a time (one read of the bound would allocate it)."""
    chunks: list[bytes] = []
    total = 0
    while total <= max_bytes:
        try:
            chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - total))
        except OSError as exc:
            raise InputError(f"cannot read {name}: {exc.strerror or exc}") from None
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def _read_stdin(max_bytes: int, flag: str | None, name: str) -> bytes:
    stdin = sys.stdin.buffer
    _check_stdin(stdin)
    chunks: list[bytes] = []
    total = 0
    while total <= max_bytes:
        chunk = stdin.read(min(_CHUNK, max_bytes + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > max_bytes:
        raise _too_big(name, None, max_bytes, flag)
    return b"".join(chunks)


def _label(file: str | Path, what: str | None) -> str:
    shown = "standard input" if str(file) == "-" else repr(str(file))
    return shown if what is None else f"{what} {shown}"


def _too_big(name: str, size: int | None, limit: int, flag: str | None) -> InputError:
    what = f"{size:,} bytes" if size is not None else f"over {limit:,} bytes"
    fix = f"raise it with {flag} N" if flag else "this is not a file promptcache reads"
    return InputError(f"{name} is {what}, over the {limit:,}-byte input limit; {fix}")
