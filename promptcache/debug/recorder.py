"""
`Recorder`: appends each observed request to the JSON Lines log `promptcache report` reads
(docs/log-format.md is the versioned contract), with size-based rotation and gzipped backups.

Private by default (`content="hashes"`): every string in the request becomes a placeholder of the
same length that carries the SHA-256 of the original (`#3f2a9c01b7d4#......`), so `report` still
finds where two requests diverge and estimates their size, and nothing of the prompt is written;
the response is reduced to its usage and model fields (token counts); keys that do not look like
opaque ids are hashed. `content="full"` writes the request and response as they were (the HTML
report's before/after excerpts need it). Writing never raises into the caller: an OSError is
logged once (without content) and the record dropped, counted in `dropped`.

By default (`background=True`) the caller's thread only takes a snapshot of the observation (one
`orjson.dumps` of the request and of the response: what the caller changes afterwards is not
what is recorded) and queues it; one writer thread per recorder redacts, serialises and appends,
in call order. The queue is bounded in bytes (`queue_bytes`); a record that finds it full is
dropped, never waited for, and counted (`dropped`, and a Prometheus counter when
prometheus_client is installed), with one warning per outage. `close()`, `flush()` and, at
interpreter exit, an atexit hook write out what is queued.
"""

from __future__ import annotations

import atexit
import collections
import dataclasses
import gzip
import logging
import os
import re
import shutil
import threading
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson

from .._errors import InputError, shown
from .._inputs import check_regular
from .._usage import CacheDiagnosis, CacheUsage
from ..vendors import VENDORS
from ..vendors._elements import plain
from ._filelock import FileLock
from .privacy import describe, export_key, short_hash

__all__ = [
    "LOCATION_NAME",
    "LOG_FORMAT_VERSION",
    "Recorder",
    "normalised_usage",
    "redact",
    "usage_from_json",
]

LOG_FORMAT_VERSION = 1
LOGGER = logging.getLogger("promptcache.recorder")

# Field names whose string values say how a request is laid out, never what it says: kept as they
# are in "hashes" mode, so `report` reads the same structure, roles, block types and TTLs.
_LAYOUT_KEYS = frozenset(
    {"model", "role", "type", "ttl", "tool_choice", "stream", "modelVersion", "model_version"}
    # Bedrock Converse names its model `modelId` (boto3's keyword)
    | {"modelId"}
    # and every request-wide TTL setting a vendor's rules read (prompt_cache_retention: "24h"):
    # the monitor reads their values, not only whether they changed
    | {path.rsplit(".", 1)[-1] for vendor in VENDORS for path in vendor.rules.ttl_settings}
)
# ...when the value reads as a name of that kind ("user", "tool_use", "1h",
# "claude-sonnet-4-5@20250929", "models/gemini-2.5-flash"), not as text: no spaces, not an
# e-mail address. A value the API would refuse anyway is hashed like any other string.
_LAYOUT_VALUE = re.compile(r"(?!\S*@\S*\.)[A-Za-z0-9_.:/@+-]{1,100}")
_RESPONSE_KEYS = frozenset(
    {"model", "modelVersion", "model_version", "object", "type", "diagnostics"}
    # llama.cpp's /completion answer carries its counts here, not in a usage block
    | {"timings", "tokens_predicted", "tokens_evaluated"}
)


# Placeholders of texts seen recently: a conversation sends the same tools, system prompt and
# turns again on every call, and hashing them again was most of a record's cost. Bounded by the
# characters held; emptied when full. Callers' threads and the writer threads of every recorder
# share it: `_memo_chars` is read, checked and written under `_memo_lock` (a `+=` on a global is
# no atomic step, so a lost update let the memo outgrow its bound); lookups need no lock.
_MEMO_CHARS = 4 * 1024 * 1024
_memo: dict[str, str] = {}
_memo_chars = 0
_memo_lock = threading.Lock()


def _placeholder(text: str) -> str:
    """
    `#<12 hex of sha256>#` (JSON text: `#<12>:<12>:<12>#`, `_json_hashes`) padded with dots to the text's length (at least the hash), or for
    non-ASCII text to the length whose token estimate is the text's (`EstimateCounter`).
    """
    global _memo_chars
    known = _memo.get(text)
    if known is not None:
        return known
    mark = f"#{short_hash(text)}{_json_hashes(text)}#"
    size = len(text)
    if not text.isascii():  # ~1 token a CJK character, 4 characters an ASCII one: the same
        size += round((len(text.encode("utf-8", "surrogatepass")) - size) * 4 / 3)  # estimate
    shown = mark + "." * (size - len(mark)) if size > len(mark) else mark
    with _memo_lock:
        if text in _memo:  # another thread put it in since the lookup: counted once
            return shown
        if _memo_chars + len(text) > _MEMO_CHARS:
            _memo.clear()
            _memo_chars = 0
        _memo[text] = shown
        _memo_chars += len(text)
    return shown


def _json_hashes(text: str) -> str:
    """
    For text that is a JSON object or array (tool-call arguments, a tool result): `:` and the
    short hash of its value with sorted keys, then `:` and that of its compact JSON in its own key
    order. Two texts of one value then tell a reordering (`key_order`) from other spacing
    (`whitespace`) on a hashed log as in the process (causes.py); "" for any other text.
    """
    if not text.lstrip().startswith(("{", "[")):
        return ""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return ""
    if not isinstance(value, (dict, list)):
        return ""
    try:
        ordered = orjson.dumps(value)
        sorted_keys = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:  # nested past orjson's depth: hashed as text only
        return ""
    return f":{short_hash(sorted_keys)}:{short_hash(ordered)}"


def redact(value: Any, key: str | None = None) -> Any:
    """`value` with every string replaced by its same-length hash placeholder (layout kept)."""
    kind = type(value)  # JSON's own types first: the ABC checks cost more than the walk
    if kind is str:
        if key in _LAYOUT_KEYS and _LAYOUT_VALUE.fullmatch(value):
            return value
        return _placeholder(value)
    if kind is dict:
        return {_key(k): redact(v, k) for k, v in value.items()}
    if kind is list:
        return [redact(v) for v in value]
    if kind in (int, float, bool) or value is None:
        return value
    if isinstance(value, str):
        return redact(str(value), key)
    if isinstance(value, Mapping):
        return {_key(k): redact(v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    return redact(_as_plain_json(value), key)


def _as_plain_json(value: Any) -> Any:
    """
    Any other value (an SDK object, a dataclass) as the JSON it is written as, for the hashing
    walks: returned as it was, orjson would write its text verbatim. An unknown type raises
    TypeError, and the record is dropped and counted, as the background snapshot does.
    """
    return orjson.loads(orjson.dumps(value, default=_as_json))


# An object key kept as it is: a field or property name. Any other (spaces, an '@': a metadata
# key may be anything, a person's name included) becomes its hash placeholder.
_KEY_NAME = re.compile(r"@?[\w.:/$-]{1,64}")


def _key(key: Any) -> Any:
    return key if not isinstance(key, str) or _KEY_NAME.fullmatch(key) else _placeholder(key)


def _usage_only(response: Any) -> Any:
    """
    The response's usage and model fields: token counts and names (a model, a reason), no
    generated text; a string there that does not read as a name is hashed like the request's.
    """
    if not isinstance(response, Mapping):
        return _names_only(response)
    return {
        k: _names_only(v)
        for k, v in response.items()
        if "usage" in k.lower() or k in _RESPONSE_KEYS or k.endswith("diagnostics")
    }


def _names_only(value: Any) -> Any:
    if isinstance(value, str):
        return value if _LAYOUT_VALUE.fullmatch(value) else _placeholder(value)
    if isinstance(value, Mapping):
        return {_key(k): _names_only(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_names_only(v) for v in value]
    if value is None or type(value) in (int, float, bool):
        return value
    return _names_only(_as_plain_json(value))


@dataclass(frozen=True, slots=True, kw_only=True)
class _Snapshot:
    """
    An observation as it was when recorded: the request and the response as JSON bytes (the
    caller may change its lists and dicts right after the call), or the usage's neutral object.
    """

    request: bytes
    response: bytes | None
    usage: dict[str, Any] | None
    key: str | None
    when: dict[str, float]
    vendor: str | None
    # `vendor_ids`, and `located`: fields that follow the times
    ids: dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.request) + (len(self.response) if self.response is not None else 0)


class Recorder:
    """
    Append every observation to `path` (JSON Lines, format v1). When the file passes `max_bytes`
    it becomes `path.1.gz` (gzipped; older ones shift to `.2.gz`...; `backups` are kept) and a new
    file starts. One whole line per write, under a lock that threads and, on POSIX, other
    processes with a `Recorder` on the same path take too (docs/log-format.md, "Files"); `close()`
    (or `with`) writes out what is queued and waits for a backup being gzipped.

    `background=True` (the default): `record()` snapshots the observation and queues it; a writer
    thread of this recorder writes it, in call order. At most `queue_bytes` of snapshots wait;
    beyond that a record is dropped (counted in `dropped`, warned once per outage), so a slow
    disk never holds up an LLM call. `background=False` writes on the caller's thread.

        recorder = Recorder("calls.jsonl")               # hashes and token counts only
        monitor = Monitor(recorder=recorder)            # or wrap(client, recorder=recorder)
        ...
        $ promptcache report 'calls.jsonl*'
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        content: Literal["hashes", "full"] = "hashes",
        max_bytes: int = 256 * 1024 * 1024,
        backups: int = 10,
        compress: bool = True,
        background: bool = True,
        queue_bytes: int = 64 * 1024 * 1024,
        metrics: bool = True,
        prometheus_registry: Any = None,
    ) -> None:
        if content not in ("hashes", "full"):
            raise InputError(f"content must be 'hashes' or 'full', got {content!r}")
        if max_bytes < 1 or backups < 0:
            raise InputError(f"max_bytes must be >= 1 and backups >= 0, got {max_bytes}, {backups}")
        if queue_bytes < 1:
            raise InputError(f"queue_bytes must be >= 1, got {queue_bytes}")
        self.path = Path(path)
        if os.path.lexists(self.path):  # a FIFO would block the first call until read
            check_regular(self.path, fix="; give the recorder a file path")
        self.content = content
        self.max_bytes, self.backups, self.compress = max_bytes, backups, compress
        self.dropped = 0
        self._lock = threading.Lock()
        self._file_lock = FileLock(self.path.with_name(f".{self.path.name}.lock"))
        self._gzip_lock = FileLock(self.path.with_name(f".{self.path.name}.gzip.lock"))
        self._fd: int | None = None
        self._identity: tuple[int, int] | None = None  # (inode, device) of the file we hold
        self._end = -1
        self._warned = False
        self._compressing: threading.Thread | None = None
        self.background, self.queue_bytes = background, queue_bytes
        self._metrics, self._registry = metrics, prometheus_registry
        self._drop_counter: Any = _NOT_ASKED
        self._start_queue()
        _RECORDERS.add(self)

    def _start_queue(self) -> None:
        """An empty queue; its writer thread starts with the first record queued."""
        self._queued: collections.deque[_Snapshot] = collections.deque()
        self._queued_bytes = 0
        self._busy = False  # the writer holds a record taken off the queue
        self._full = False  # in an outage: warned already, until the queue has room again
        self._changed = threading.Condition(threading.Lock())
        self._writer: threading.Thread | None = None

    # -- what a record holds ------------------------------------------------------------

    def line(
        self,
        request: Mapping[str, Any],
        response: Any,
        *,
        key: str | None,
        at: float,
        vendor: str | None,
        sent_at: float | None = None,
        location: str | None = None,
    ) -> bytes:
        """One log line (format v1) for an observation."""
        when: dict[str, Any] = {
            **_when(at, sent_at),
            **vendor_ids(response),
            **located(location),
        }
        if isinstance(response, CacheUsage):
            usage = normalised_usage(response)
            return self._dumps(request, None, key=key, when=when, vendor=vendor, usage=usage)
        return self._dumps(request, plain(response), key=key, when=when, vendor=vendor, usage=None)

    def _dumps(
        self,
        request: Mapping[str, Any],
        answer: Any,
        *,
        key: str | None,
        when: dict[str, Any],
        vendor: str | None,
        usage: dict[str, Any] | None,
    ) -> bytes:
        if self.content == "hashes":
            body: Any = redact(request)
            answer = _usage_only(answer)
            usage = None if usage is None else _names_only(usage)  # a model, a reason: names
            shown_key = None if key is None else export_key(key)
        else:
            body, shown_key = request, key
        record: dict[str, Any] = {
            "v": LOG_FORMAT_VERSION,
            **when,
            "vendor": vendor,
            "key": shown_key,
            "content": self.content,
            "request": body,
        }
        if usage is None:
            record["response"] = answer
        else:
            record["usage"] = usage
        return orjson.dumps(record, default=_unserialisable) + b"\n"

    # -- writing ------------------------------------------------------------------------

    def record(
        self,
        request: Mapping[str, Any],
        response: Any,
        *,
        key: str | None = None,
        at: float | None = None,
        vendor: str | None = None,
        sent_at: float | None = None,
        location: str | None = None,
    ) -> None:
        """
        Append one observation: `at` when the response came (default: now), `sent_at` when the
        request was sent, if known; `location`, the Vertex AI location the call went to, where
        the caller knows it (`wrap()` reads it from the client), which `report` prices by.
        Never raises: a failure is logged once and counted. In the background mode the
        observation is snapshotted here and written by the writer thread.
        """
        try:
            moment = time.time() if at is None else at
            if self.background:
                snapshot = self._snapshot(request, response, key, moment, vendor, sent_at, location)
                self._enqueue(snapshot)
                return
            data = self.line(
                request,
                response,
                key=key,
                at=moment,
                vendor=vendor,
                sent_at=sent_at,
                location=location,
            )
            with self._lock:
                self._write(data)
        except Exception as exc:  # never the caller's problem: said once, counted
            self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        with self._changed:
            self.dropped += 1
        self._count_drop("error")
        self._warn(exc)

    @staticmethod
    def _snapshot(
        request: Mapping[str, Any],
        response: Any,
        key: str | None,
        at: float,
        vendor: str | None,
        sent_at: float | None,
        location: str | None = None,
    ) -> _Snapshot:
        """What the writer needs, frozen now: the bytes of the request and the response."""
        when = _when(at, sent_at)
        usage = normalised_usage(response) if isinstance(response, CacheUsage) else None
        answer = None if usage is not None else orjson.dumps(plain(response), default=_as_json)
        return _Snapshot(
            request=orjson.dumps(request, default=_as_json),
            response=answer,
            usage=usage,
            key=key,
            when=when,
            vendor=vendor,
            ids={**vendor_ids(response), **located(location)},
        )

    def _enqueue(self, snapshot: _Snapshot) -> None:
        with self._changed:
            if self._queued_bytes + snapshot.size > self.queue_bytes and self._queued:
                first = not self._full
                self._full = True
                self.dropped += 1
            else:
                self._queued.append(snapshot)
                self._queued_bytes += snapshot.size
                if self._writer is None:
                    self._writer = threading.Thread(
                        target=self._drain, name="promptcache-recorder", daemon=True
                    )
                    self._writer.start()
                self._changed.notify_all()
                return
        self._count_drop("queue_full")
        if first:
            LOGGER.warning(
                "promptcache: the recorder's queue for %s is full (queue_bytes=%d): records "
                "are dropped and counted in Recorder.dropped until it drains; the disk is "
                "slower than the calls: give Recorder a larger queue_bytes= or a faster disk",
                self.path,
                self.queue_bytes,
            )

    def _drain(self) -> None:
        """The writer thread: each queued snapshot redacted, serialised and appended, in order."""
        while True:
            with self._changed:
                while True:
                    if self._writer is not threading.current_thread():
                        return  # closed (a later record starts a writer of its own)
                    if self._queued:
                        break
                    if not self._changed.wait(_WRITER_IDLE) and not self._queued:
                        self._writer = None  # idle: the next record starts another
                        return
                snapshot = self._queued.popleft()
                self._queued_bytes -= snapshot.size
                self._busy = True
                if not self._queued:
                    self._full = False  # drained: the next outage is warned again
            try:
                data = self._line_of(snapshot)
                with self._lock:
                    self._write(data)
            except Exception as exc:  # counted and said, as on the caller's path
                self._failed(exc)
            finally:
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()

    def _line_of(self, snapshot: _Snapshot) -> bytes:
        when: dict[str, Any] = {**snapshot.when, **snapshot.ids}
        vendor, key = snapshot.vendor, snapshot.key
        if self.content == "full":  # the snapshot is already the record's JSON: spliced in
            head: dict[str, Any] = {"v": LOG_FORMAT_VERSION, **when, "vendor": vendor, "key": key}
            head["content"] = self.content
            tail = (
                b',"response":' + snapshot.response
                if snapshot.response is not None
                else b',"usage":' + orjson.dumps(snapshot.usage)
            )
            return orjson.dumps(head)[:-1] + b',"request":' + snapshot.request + tail + b"}\n"
        request = orjson.loads(snapshot.request)
        answer = None if snapshot.response is None else orjson.loads(snapshot.response)
        return self._dumps(request, answer, key=key, when=when, vendor=vendor, usage=snapshot.usage)

    def flush(self, timeout: float | None = None) -> bool:
        """
        Wait until every record queued so far is written (or dropped); False if `timeout`
        seconds passed first. Immediate in the synchronous mode.
        """
        end = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while self._queued or self._busy:
                if self._writer is None or not self._writer.is_alive():
                    return False  # no thread to write them (cannot happen but after a crash)
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._changed.wait(left)
        return True

    def _count_drop(self, reason: str, records: int = 1) -> None:
        """The Prometheus counter of dropped records, when metrics are on and it is installed:
        looked up at the first drop, once (a failed import searches the whole path each time,
        and a drop happens on the caller's thread)."""
        if not self._metrics:
            return
        counter = self._drop_counter
        if counter is _NOT_ASKED:
            counter = self._drop_counter = _dropped_counter(self._registry)
        if counter is not None:
            counter.labels(reason).inc(records)

    def _warn(self, exc: Exception) -> None:
        if not self._warned:
            self._warned = True
            LOGGER.warning(
                "promptcache: the recorder could not write to %s (%s); records are dropped "
                "and counted in Recorder.dropped",
                self.path,
                type(exc).__name__,
            )

    def _write(self, data: bytes) -> None:
        """
        Append `data` under the lock every process writing this path takes: whole lines, none
        lost at a rotation (another process may have rotated the file since our last write).
        """
        self._file_lock.acquire()
        try:
            size = self._current_size()
            if size and size + len(data) > self.max_bytes:
                self._rotate()
                size = self._current_size()
            self._append(data, size)
        finally:
            self._file_lock.release()

    def _current_size(self) -> int:
        """
        The size of the file now at `path`, opened (again) when it is not the one we hold: not
        yet opened, or renamed away by a rotation in another process. A file that does not end
        with a newline (a writer died or failed mid-line) is ended first, so only that line is
        unreadable and the next record is not glued onto it.
        """
        try:
            info = os.stat(self.path)
            same = self._fd is not None and (info.st_ino, info.st_dev) == self._identity
        except FileNotFoundError:
            same = False
        if not same:
            self._close_file()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, _APPEND_FLAGS, 0o666)
            info = os.fstat(self._fd)
            self._identity = (info.st_ino, info.st_dev)
        size = info.st_size
        if size and size != self._end and not _ends_a_line(self._fd, size):
            self._append(b"\n", size)
            size += 1
        return size

    def _append(self, data: bytes, size: int) -> None:
        assert self._fd is not None
        pending = memoryview(data)
        while pending:  # a regular file takes it in one write; a short one is finished here
            pending = pending[os.write(self._fd, pending) :]
        self._end = size + len(data)  # where our last whole line ended (-1: not known)

    def _close_file(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._identity, self._end = None, -1

    def _rotate(self) -> None:
        """
        The file becomes backup 1 (older ones shift). Compressing it takes seconds for a large
        file, so it is renamed here, on the caller's thread, and gzipped on a background one: a
        call that happens to rotate the log, and every call waiting on the lock, is not held up.
        The gzip lock (held by the thread until backup 1 is a .gz) keeps any other process from
        shifting or gzipping backup 1 meanwhile; a rotation that comes before then waits for it.
        """
        self._close_file()
        self._join_compressing()
        self._gzip_lock.acquire()
        handed = False
        try:
            staged = self._backup(1, "")  # plain until gzipped: `report` reads it either way
            self._settle(staged)
            if self.backups == 0:
                self.path.unlink(missing_ok=True)
                return
            # Plain backups shift as gzipped ones do: a backup whose gzip failed (a full disk)
            # is kept, never overwritten by the next rotation.
            for suffix in ("", ".gz"):
                self._backup(self.backups, suffix).unlink(missing_ok=True)
            for n in range(self.backups - 1, 0, -1):
                for suffix in ("", ".gz"):
                    older = self._backup(n, suffix)
                    if older.exists():
                        older.replace(self._backup(n + 1, suffix))
            self.path.replace(staged)
            if self.compress:
                self._compressing = threading.Thread(
                    target=self._compress_and_release,
                    args=(staged, self._backup(1, ".gz")),
                    name="promptcache-recorder-gzip",
                )
                self._compressing.start()
                handed = True
        finally:
            if not handed:
                self._gzip_lock.release()

    def _settle(self, staged: Path) -> None:
        """
        Backup 1 as a run that stopped while gzipping it left it: both the plain file and the
        whole .gz (the gzip was renamed into place, the plain one not yet removed) hold the same
        records, so the plain one goes; a plain one alone is gzipped now.
        """
        if not staged.exists():
            return
        gzipped = self._backup(1, ".gz")
        if gzipped.exists():
            staged.unlink()
        elif self.compress:
            self._compress(staged, gzipped)

    def _join_compressing(self) -> None:
        if self._compressing is not None:
            self._compressing.join()
            self._compressing = None

    def _compress_and_release(self, staged: Path, target: Path) -> None:
        try:
            self._compress(staged, target)
        finally:
            self._gzip_lock.release()

    def _compress(self, staged: Path, target: Path) -> None:
        # Written under a hidden name (no glob of the log matches it), then renamed: a report
        # never reads half a gzip stream, and a crash leaves the plain backup in place.
        partial = target.with_name(f".{target.name}.partial")
        try:
            with staged.open("rb") as src, gzip.open(partial, "wb") as dst:
                shutil.copyfileobj(src, dst)
            partial.replace(target)
            staged.unlink()
        except OSError as exc:
            partial.unlink(missing_ok=True)
            LOGGER.warning(
                "promptcache: the recorder could not gzip %s (%s); it stays uncompressed",
                staged,
                type(exc).__name__,
            )

    def _forget_inherited(self) -> None:
        """
        In a process forked from the one that built this recorder: the descriptors and the
        lock's description are the parent's (unlocking them would unlock the parent), a lock
        held by a parent thread at the fork stays held here, and its gzip thread does not exist.
        """
        self._lock = threading.Lock()
        self._start_queue()  # the parent writes what it queued; the child's writer starts anew
        self._close_file()  # no lock is ever taken on the log's own descriptor
        self._file_lock.forget_inherited()
        self._gzip_lock.forget_inherited()
        self._compressing = None

    def _backup(self, n: int, suffix: str) -> Path:
        return self.path.with_name(f"{self.path.name}.{n}{suffix}")

    def close(self, timeout: float | None = None) -> None:
        """
        Write out what is queued (waiting at most `timeout` seconds; what is left then is
        dropped and counted), stop the writer thread, close the file and wait for a backup
        being gzipped. A record after `close()` starts a new writer and opens the file again.
        """
        self.flush(timeout)
        with self._changed:
            writer, self._writer = self._writer, None
            left = len(self._queued)
            self._queued.clear()
            self._queued_bytes = 0
            self.dropped += left
            self._changed.notify_all()
        if writer is not None and writer is not threading.current_thread():
            writer.join(timeout)
        if left:
            self._count_drop("closed", left)
            LOGGER.warning(
                "promptcache: the recorder closed %s with %d records not yet written (they "
                "are dropped and counted in Recorder.dropped); give close() a longer timeout",
                self.path,
                left,
            )
        with self._lock:
            self._close_file()
            self._join_compressing()
            self._file_lock.close()
            self._gzip_lock.close()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# A vendor's id for a call ("msg_01X...", "req_011C...", "chatcmpl-B9...", a Gemini responseId):
# written only when it reads as one, so no free text reaches the log through these fields.
_VENDOR_ID = re.compile(r"[A-Za-z0-9_.:/+=-]{1,200}")


def vendor_ids(response: Any) -> dict[str, str]:
    """
    The vendor's ids of the call, for a support ticket: `response_id`, the response's own `id`
    (Anthropic, OpenAI; Gemini's `responseId`), and `request_id`, the one the SDKs read from the
    `request-id` / `x-request-id` header (`_request_id` on the response object; a dict has none).
    """
    if isinstance(response, CacheUsage) or response is None:
        return {}
    if isinstance(response, Mapping):
        own = response.get("id", response.get("responseId", response.get("response_id")))
    else:
        own = getattr(response, "id", None) or getattr(response, "response_id", None)
    found = {"response_id": own, "request_id": getattr(response, "_request_id", None)}
    return {k: v for k, v in found.items() if isinstance(v, str) and _VENDOR_ID.fullmatch(v)}


# A Vertex AI location (`global`, `us`, `us-east5`): written, and read by `report`, only when it
# reads as one, so no free text reaches the log through it.
LOCATION_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")


def as_location_name(value: Any) -> str | None:
    """A location a client or a call names, as a location name (`US-East5` is us-east5: the host
    name it makes is read without case), or None when it reads as none. What `wrap()` and the
    LiteLLM logger pass on: the monitor refuses what is not a name, and a refused location would
    leave every call it came with unobserved."""
    if not isinstance(value, str):
        return None
    name = value.strip().lower()
    return name if LOCATION_NAME.fullmatch(name) else None


def location_name(value: Any, field: str) -> str:
    """`value` if it reads as a location name; else refused, named (the caller's own argument,
    `location=`) or described (a log's field may hold anything)."""
    # a name, so no free text reaches a log or a pricing note through it
    if isinstance(value, str) and LOCATION_NAME.fullmatch(value):
        return value
    got = repr(value)[:80] if field == "location=" and isinstance(value, str) else describe(value)
    raise InputError(
        f"{field} must be a Vertex AI location name such as 'global', 'us' or 'us-east5' "
        f"(lower-case letters, digits and '-'), got {got}"
    )


def located(location: str | None) -> dict[str, str]:
    """The record's `location` field: where the call went, when it reads as a location name."""
    if isinstance(location, str) and LOCATION_NAME.fullmatch(location):
        return {"location": location}
    return {}


def _when(at: float, sent_at: float | None) -> dict[str, float]:
    """The record's times: `sent_at` only when it is known and differs from `at`."""
    return {"at": at} if sent_at is None or sent_at == at else {"at": at, "sent_at": sent_at}


# O_APPEND: every write lands at the end as it is now, whoever wrote last; binary on Windows.
_APPEND_FLAGS = (
    os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)


def _ends_a_line(fd: int | None, size: int) -> bool:
    assert fd is not None
    os.lseek(fd, size - 1, os.SEEK_SET)  # reading only: writes go to the end (O_APPEND)
    return os.read(fd, 1) == b"\n"


# Every live recorder, so that a forked child drops what it inherited (see `_forget_inherited`).
_RECORDERS: weakref.WeakSet[Recorder] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    global _memo_lock
    _memo_lock = threading.Lock()  # a parent thread may have held it at the fork: never freed
    for recorder in list(_RECORDERS):
        recorder._forget_inherited()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)

# A writer thread with nothing to write for this long ends (the next record starts another), so
# a recorder the app dropped without close() does not keep a thread, and itself, alive for good.
_WRITER_IDLE = 60.0

# At interpreter exit the writer threads (daemons: they must not hold the exit up forever) still
# run; what is queued is written before they stop, so a short script loses nothing.
_EXIT_TIMEOUT = 30.0


def _flush_at_exit() -> None:
    for recorder in list(_RECORDERS):
        recorder.close(_EXIT_TIMEOUT)


atexit.register(_flush_at_exit)


def _as_json(value: Any) -> Any:
    """orjson's fallback for a snapshot: SDK objects as their JSON, any mapping as a dict."""
    dumped = plain(value)
    if dumped is not value:
        return dumped
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"cannot serialise {type(value).__name__}")


_NOT_ASKED = object()  # a recorder's drop counter before its first drop
_DROPPED: dict[int, tuple[Any, Any]] = {}
_DROPPED_LOCK = threading.Lock()


def _dropped_counter(registry: Any) -> Any:
    """`promptcache_recorder_dropped_total{reason}` in `registry` (default: prometheus's own),
    made on the first drop; None when prometheus_client is not installed."""
    try:
        import prometheus_client
    except ImportError:
        return None
    registry = registry if registry is not None else prometheus_client.REGISTRY
    with _DROPPED_LOCK:
        if id(registry) not in _DROPPED:  # the registry is kept alive with its counter
            counter = prometheus_client.Counter(
                "promptcache_recorder_dropped",
                "Records the recorder did not write: queue full, closed first, or an error",
                ["reason"],
                registry=registry,
            )
            _DROPPED[id(registry)] = (registry, counter)
        return _DROPPED[id(registry)][1]


def _unserialisable(value: Any) -> Any:
    dumped = plain(value)
    if dumped is value:
        raise TypeError(f"cannot serialise {type(value).__name__}")
    return dumped


def normalised_usage(usage: CacheUsage) -> dict[str, Any]:
    """A `CacheUsage` as the log's vendor-neutral "usage" object (format v1)."""
    neutral: dict[str, Any] = {
        "uncached_input": usage.uncached_input,
        "cache_read": usage.cache_read,
        "cache_write": usage.cache_write,
        "output": usage.output,
        "cache_write_by_ttl": dict(usage.cache_write_by_ttl),
        "model": usage.model,
    }
    # what says the numbers measure no cached prefix (`CacheUsage.prefix_measure`), so a report
    # of the log takes no expectation from them either: present only when they do
    if usage.problems:
        neutral["problems"] = list(usage.problems)
    if usage.passes != 1:
        neutral["passes"] = usage.passes
        neutral["last_pass_cached"] = usage.last_pass_cached
    said = usage.diagnosis
    if said is not None:  # the vendor's reason (a name) and counts; never its raw object
        neutral["diagnosis"] = {
            "reason": said.reason,
            "missed_tokens": said.missed_tokens,
            "reusable_tokens": said.reusable_tokens,
        }
    return neutral


def usage_from_json(data: Mapping[str, Any]) -> CacheUsage | None:
    """The vendor-neutral "usage" object back, or None when `data` is a vendor's own usage.
    Counts are whole numbers >= 0; `cache_read`/`cache_write` may be null and `output` null or
    absent: not reported (a log of an older promptcache always has a number there)."""
    if "uncached_input" not in data:
        return None
    counts: dict[str, Any] = {
        k: data.get(k) for k in ("uncached_input", "cache_read", "cache_write", "output")
    }
    for name, value in counts.items():
        if value is None and name in ("cache_read", "cache_write", "output"):
            continue
        if not _count(value):
            also = "" if name == "uncached_input" else " or null (not reported)"
            raise InputError(f"usage.{name} must be a whole number >= 0{also}, got {shown(value)}")
    by_ttl = data.get("cache_write_by_ttl") or {}
    if not isinstance(by_ttl, Mapping) or not all(_count(v) for v in by_ttl.values()):
        raise InputError(
            f"usage.cache_write_by_ttl must map TTLs to whole numbers >= 0, got {shown(by_ttl)}"
        )
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        raise InputError(f"usage.model must be a name or null, got {shown(model)}")
    passes, last = data.get("passes", 1), data.get("last_pass_cached")
    if not (_count(passes) and passes >= 1) or not (last is None or _count(last)):
        raise InputError(
            "usage.passes must be a whole number >= 1 and usage.last_pass_cached a whole number "
            f">= 0 or null, got {shown(passes)} and {shown(last)}"
        )
    return CacheUsage(
        problems=_problems(data.get("problems")),
        passes=passes,
        last_pass_cached=last,
        diagnosis=_diagnosis(data.get("diagnosis")),
        uncached_input=counts["uncached_input"],
        cache_read=counts["cache_read"],
        cache_write=counts["cache_write"],
        output=counts["output"],
        cache_write_by_ttl=dict(by_ttl),
        model=model,
    )


def _problems(data: Any) -> tuple[str, ...]:
    """The neutral usage's "problems": what did not add up (strings; hashed in a hashed log)."""
    if data is None:
        return ()
    if not isinstance(data, list) or not all(isinstance(p, str) for p in data):
        raise InputError(f"usage.problems must be a list of strings, got {shown(data)}")
    return tuple(data)


def _diagnosis(data: Any) -> CacheDiagnosis | None:
    """The neutral usage's "diagnosis" (format v1): the vendor's reason and token counts."""
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise InputError(f"usage.diagnosis must be an object, got {shown(data)}")
    reason = data.get("reason")
    missed, reusable = data.get("missed_tokens"), data.get("reusable_tokens")
    if not isinstance(reason, (str, type(None))) or any(
        count is not None and not _count(count) for count in (missed, reusable)
    ):
        raise InputError(
            "usage.diagnosis holds a reason (a name or null) and missed_tokens and "
            "reusable_tokens (whole numbers >= 0 or null)"
        )
    return CacheDiagnosis(reason=reason, missed_tokens=missed, reusable_tokens=reusable)


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0
