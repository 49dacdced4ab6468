"""
The runtime monitor: notices when a cache read that should have happened did not, and says why.

For each cache key the monitor keeps what the previous request left in the cache. A healthy
session obeys

    read(n) ≈ read(n-1) + write(n-1)

(with automatic prefix caching, where writes go unreported, the whole previous prompt stands in
for the write). A read short of that is a miss. The monitor then asks, in order: did the request
change on our side (the local `diff` against the previous request names the field and cause)? Was
the gap longer than the TTL (`ttl_expired`; the TTL is the shortest the markers asked for or the
server reports writing, so a 1h request written at 5m is named)? Was the prefix below the vendor's
minimum (`below_minimum`)? Did the previous request's last breakpoint lie more than the 20
content blocks Anthropic looks back over before every breakpoint of this one (`lookback`: a
parallel tool fan-out appended past a single rolling marker; counted from the kept request bodies,
on a miss only)? If none of those, the server missed on an identical prefix (eviction, routing):
cause "none", `server_side=True`. The vendor's own diagnostics, when the response
carries them, are attached and fill in the cause the local view cannot see.

Three things the rule above cannot see are checked apart. Markers placed with nothing read or
written expect nothing: under the minimum that is `below_minimum`, over it, on the second such
turn in a row, `not_cached` (the markers never took effect); each once per key. And the default
key is per model, so a switch of model starts a key with no previous request: a full miss there
is compared with the latest request under another model, and `model_changed` is named when it
began the same way.

Memory is bounded: per key, hashes of the request's units always, and the serialised units (the
"body", needed to name a field) only while the total stays within `body_budget` bytes, least
recently used first out; at most `max_keys` keys. Observing is safe from many threads and from
asyncio code (it never awaits and holds its lock only to swap the per-key state).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from ._diff import (
    MARKERS,
    DiffResult,
    Element,
    automatic,
    breakpoints,
    check_vendor,
    compare_elements,
    element_units,
    identical,
    plain,
    plain_request,
    request_elements,
    strip_markers,
    table_change,
)
from ._errors import InputError
from ._tokens import DEFAULT_COUNTER, TokenCounter
from ._usage import CacheUsage

__all__ = ["Invalidation", "Monitor", "read_usage"]

LOGGER = logging.getLogger("promptcache.monitor")

_TTL_SECONDS = {"5m": 300.0, "30m": 1800.0, "1h": 3600.0, "12h": 43200.0, "24h": 86400.0}
# Default TTL when the request names none: Anthropic's 5 minutes; OpenAI in-memory caches last
# "5-10 minutes" (we take the short end); Gemini's implicit cache is undocumented; engines evict by
# LRU, not by time.
_DEFAULT_TTL: dict[str, float | None] = {
    "anthropic": 300.0,
    "openai": 300.0,
    "gemini": 300.0,
    "engine": None,
}
# How far below read(n-1)+write(n-1) a read may fall before it counts as a miss: OpenAI matches in
# 128-token increments (older models), engines in blocks (vLLM: 16 tokens) plus template tails.
_SLACK_TOKENS = {"anthropic": 8, "openai": 128, "gemini": 256, "engine": 64}
_SLACK_SHARE = 0.02
# Bodies are held by reference; their size is estimated from the vendor's token count (about four
# bytes of JSON per token), which costs nothing to compute on the hot path.
_BYTES_PER_TOKEN = 4
_FALLBACK_MIN = {"anthropic": 1024, "openai": 1024, "gemini": 1024, "engine": 0}
# Anthropic: a breakpoint finds an earlier cache entry at most this many content blocks back.
_LOOKBACK_BLOCKS = 20
_LAYER_KEYS = frozenset({"tools", "system", "messages", "input", "instructions", "contents"})
# The vendor's own reason (Anthropic `cache_miss_reason.type`, OpenAI `reason`) in our vocabulary.
_VENDOR_CAUSES = {
    "model_changed": "model_changed",
    "tools_changed": "tools_changed",
    "system_changed": "content_changed",
    "messages_changed": "content_changed",
    "input_changed": "content_changed",
    "reasoning_effort_changed": "thinking_changed",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Invalidation:
    """
    One unexpected cache miss: what should have been read, what was, and why.

    `cause` is a `diff` cause, or "ttl_expired" / "below_minimum" / "not_cached" (markers sent over
    the minimum, nothing ever written or read) / "lookback" (Anthropic: the previous request's last
    breakpoint lies more than 20 content blocks before every breakpoint of this request, so none
    of them finds its entry; `detail` gives the count and the fix), or "none" with
    `server_side=True` when the prefix was identical and the server still missed. `vendor_reason`
    is the vendor's own diagnosis verbatim, when the response carried one.
    """

    key: str
    vendor: str
    model: str | None
    cause: str
    layer: str | None
    path: str | None
    offset: int | None
    before: str | None
    after: str | None
    expected_read: int
    actual_read: int
    tokens_lost: int
    gap_seconds: float | None
    server_side: bool
    vendor_reason: str | None
    detail: str
    at: float

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def message(self) -> str:
        where = f" at {self.path}" if self.path else ""
        if self.offset is not None and self.path:
            where += f" byte {self.offset}"
        return (
            f"prompt cache miss for key {self.key!r} ({self.vendor}): cause {self.cause}{where}; "
            f"read {self.actual_read} of {self.expected_read} expected tokens. {self.detail}"
        )


@dataclass(frozen=True, slots=True)
class _Record:
    """One element as hashes: what stays of a body once it is dropped for the byte budget."""

    layer: str
    path: str
    digest: int
    tokens: int
    ttl: str | None
    marked: bool


@dataclass(slots=True, kw_only=True)
class _Entry:
    """
    What one key's previous request left behind. The body is the request's own elements, held by
    reference in copied containers (nothing is serialised on the hot path); `records` (hashes,
    sizes) are computed from it when it is needed or when the body is dropped for the budget.
    `written` is the write's split by TTL as the server reported it. `dry` counts the turns in a
    row, this one included, whose marked prefix (`prefix` tokens) was over the minimum and yet
    neither read nor written; both stay 0 on any other turn.
    """

    at: float
    read: int
    write: int
    total: int
    model: str | None
    body: dict[str, Any] | None
    params: dict[str, Any]
    records: tuple[_Record, ...] | None
    size: int
    written: Mapping[str, int]
    dry: int = 0
    prefix: int = 0

    @property
    def has_body(self) -> bool:
        return self.body is not None

    @property
    def settings(self) -> Mapping[str, Any]:
        """Model and parameters: from the body while it is kept, then from `params`."""
        return self.body if self.body is not None else self.params


@dataclass(slots=True)
class _Stats:
    observations: int = 0
    events: int = 0
    by_cause: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    tokens_lost: dict[str, int] = field(default_factory=lambda: defaultdict(int))


class Monitor:
    """
    Observe every request and its response; get an `Invalidation` for each unexpected miss.

        monitor = Monitor("anthropic", on_invalidation=print)
        response = client.messages.create(**request)
        monitor.observe(request, response, key=session_id)

    `key` groups requests that should share a cache (a session, a tenant); by default it is the
    request's `prompt_cache_key`, else `metadata.user_id`, else vendor and model. Events go to
    the `promptcache.monitor` logger (warning), to `on_invalidation`, to the current
    OpenTelemetry span when opentelemetry is installed, and to Prometheus counters when
    prometheus_client is installed (`metrics=False` turns both off).
    """

    def __init__(
        self,
        vendor: str,
        *,
        on_invalidation: Callable[[Invalidation], Any] | None = None,
        ttl_seconds: float | None = None,
        min_tokens: int | None = None,
        body_budget: int = 32 * 1024 * 1024,
        max_keys: int = 10_000,
        counter: TokenCounter | None = None,
        logger: logging.Logger | None = None,
        metrics: bool = True,
        prometheus_registry: Any = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.vendor = check_vendor(vendor)
        if body_budget < 0 or max_keys < 1:
            raise InputError(
                f"body_budget must be >= 0 and max_keys >= 1, got {body_budget} and {max_keys}"
            )
        self.on_invalidation = on_invalidation
        self.ttl_seconds = ttl_seconds
        self.min_tokens = min_tokens
        self.body_budget = body_budget
        self.max_keys = max_keys
        self.counter = counter or DEFAULT_COUNTER
        self.logger = logger or LOGGER
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._body_bytes = 0
        self._warned: dict[str, set[str]] = {}  # the once-per-key causes already reported
        self._stats = _Stats()
        self._minimums: dict[str, int] = {}
        self._exporter = _Exporter(self.vendor, prometheus_registry) if metrics else None

    # -- the one call ---------------------------------------------------------------------

    def observe(
        self,
        request: Mapping[str, Any],
        response: Any = None,
        *,
        usage: CacheUsage | None = None,
        key: str | None = None,
        at: float | datetime | None = None,
    ) -> Invalidation | None:
        """
        Record one request and its response (an SDK object or its JSON), or its `usage` directly.

        Returns the `Invalidation` when the read fell short of what the previous request with
        the same key left in the cache, else None.
        """
        plain = plain_request(request, "request")
        if usage is None:
            if response is None:
                raise InputError("observe() needs the response or usage=CacheUsage(...)")
            usage = read_usage(self.vendor, response, plain)
        moment = self._moment(at)
        name = key if key is not None else self.key_of(plain)
        entry = self._entry(plain, usage, moment)
        previous = self._swap(name, entry)
        event = self._judge(name, previous, entry, plain, usage, defaulted=key is None)
        if self._exporter is not None:
            self._exporter.usage(usage)
        if event is not None:
            self._emit(event)
        return event

    def key_of(self, request: Mapping[str, Any]) -> str:
        """The default cache key of a request."""
        explicit = request.get("prompt_cache_key")
        if isinstance(explicit, str) and explicit:
            return explicit
        metadata = request.get("metadata")
        if isinstance(metadata, Mapping) and isinstance(metadata.get("user_id"), str):
            return str(metadata["user_id"])
        return f"{self.vendor}:{request.get('model')}"

    # -- introspection --------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Observations, events, and events and tokens lost by cause."""
        with self._lock:
            return {
                "observations": self._stats.observations,
                "events": self._stats.events,
                "by_cause": dict(self._stats.by_cause),
                "tokens_lost": dict(self._stats.tokens_lost),
            }

    def memory(self) -> dict[str, int]:
        """Keys held, bytes of full bodies held (never above `body_budget`), hashes held."""
        with self._lock:
            return {
                "keys": len(self._entries),
                "body_bytes": self._body_bytes,
                "body_budget": self.body_budget,
                "hashes": sum(len(e.records or ()) for e in self._entries.values()),
            }

    def forget(self, key: str) -> None:
        """Drop what is known about `key` (the session ended)."""
        with self._lock:
            entry = self._entries.pop(key, None)
            if entry is not None and entry.has_body:
                self._body_bytes -= entry.size
            self._warned.pop(key, None)

    # -- state ----------------------------------------------------------------------------

    def _moment(self, at: float | datetime | None) -> float:
        if at is None:
            return self._clock()
        if isinstance(at, datetime):
            return at.timestamp()
        if isinstance(at, (int, float)) and not isinstance(at, bool):
            return float(at)
        raise InputError(f"at must be epoch seconds or a datetime, got {type(at).__name__} {at!r}")

    def _entry(self, request: Mapping[str, Any], usage: CacheUsage, at: float) -> _Entry:
        """The new entry: a shallow snapshot and numbers, so observing costs almost nothing."""
        return _Entry(
            at=at,
            read=usage.cache_read or 0,
            write=usage.cache_write or 0,
            total=usage.total_input,
            model=_model(request, usage),
            body=_snapshot(request),
            params={},
            records=None,
            size=_BYTES_PER_TOKEN * max(usage.total_input, 1),
            written=usage.cache_write_by_ttl,
        )

    def _records(self, entry: _Entry) -> tuple[_Record, ...]:
        """The entry's element records (hash, tokens, markers), computed once."""
        records, body = entry.records, entry.body
        if records is not None:
            return records
        if body is None:  # dropped meanwhile by another thread, which kept the records first
            return entry.records or ()
        records = tuple(self._record(e) for e in request_elements(body, self.vendor))
        entry.records = records
        return records

    def _record(self, element: Element) -> _Record:
        data = orjson.dumps(element.value)
        stripped, ttl, marked = _without_markers(element)
        clean = data if not marked else orjson.dumps(stripped)
        return _Record(
            element.layer,
            element.path,
            hash(clean),
            self.counter.count(clean.decode("utf-8")),
            ttl,
            marked,
        )

    def _swap(self, key: str, entry: _Entry) -> _Entry | None:
        """Store `entry` as the key's latest; return the one it replaces. Enforces the budgets."""
        with self._lock:
            self._stats.observations += 1
            previous = self._entries.pop(key, None)
            if previous is not None and previous.has_body:
                self._body_bytes -= previous.size
            self._entries[key] = entry
            self._body_bytes += entry.size
            self._enforce_budgets()
            return previous

    def _enforce_budgets(self) -> None:
        while len(self._entries) > self.max_keys:
            old_key, old = self._entries.popitem(last=False)
            if old.has_body:
                self._body_bytes -= old.size
            self._warned.pop(old_key, None)
        if self._body_bytes <= self.body_budget:
            return
        for entry in self._entries.values():  # least recently used first
            if entry.has_body:
                self._records(entry)  # keep the hashes and the settings, drop the body
                entry.params = _params(entry.body or {})
                entry.body = None
                self._body_bytes -= entry.size
                if self._body_bytes <= self.body_budget:
                    return

    def _ttl(self, entry: _Entry) -> float | None:
        if self.ttl_seconds is not None:
            return self.ttl_seconds
        asked = _entry_ttls(entry, self._records(entry))
        # The shortest TTL is the first entry to lapse, and everything after it goes with it.
        # What the server says it wrote counts too: a relay that drops `ttl` makes a 1h write 5m.
        named = [_TTL_SECONDS[t] for t in (*asked, *_written(entry)) if t in _TTL_SECONDS]
        return min(named) if named else _DEFAULT_TTL[self.vendor]

    def _downgrade(self, entry: _Entry) -> str:
        """Words for a write the server made with a shorter TTL than the markers asked; or ''."""
        asked = [t for t in _entry_ttls(entry, self._records(entry)) if t in _TTL_SECONDS]
        written = [t for t in _written(entry) if t in _TTL_SECONDS]
        if not asked or not written:
            return ""
        shortest_asked = min(asked, key=_TTL_SECONDS.__getitem__)
        shortest_written = min(written, key=_TTL_SECONDS.__getitem__)
        if _TTL_SECONDS[shortest_written] >= _TTL_SECONDS[shortest_asked]:
            return ""
        return (
            f"; the prefix was written with a {shortest_written} TTL although {shortest_asked} "
            "was requested (a proxy, relay or older SDK dropping the marker's `ttl`?)"
        )

    def _minimum(self, model: str | None) -> int:
        if self.min_tokens is not None:
            return self.min_tokens
        name = model or ""
        if name not in self._minimums:
            self._minimums[name] = _min_tokens(self.vendor, name)
        return self._minimums[name]

    def _automatic(self, entry: _Entry) -> bool:
        """Automatic prefix caching: the whole prompt is cached, whatever the markers say."""
        return automatic(entry.settings, self.vendor)

    def _prefix_tokens(self, entry: _Entry) -> tuple[int, bool]:
        """Tokens up to the last breakpoint (element granularity), and whether there is one."""
        if self._automatic(entry):
            return entry.total, entry.total > 0
        records = self._records(entry)
        last = max((i for i, r in enumerate(records) if r.marked), default=-1)
        if entry.settings.get("cache_control") is not None:
            last = len(records) - 1
        return sum(r.tokens for r in records[: last + 1]), last >= 0

    # -- judging --------------------------------------------------------------------------

    def _judge(
        self,
        key: str,
        previous: _Entry | None,
        entry: _Entry,
        request: Mapping[str, Any],
        usage: CacheUsage,
        *,
        defaulted: bool,
    ) -> Invalidation | None:
        if usage.cache_read is None:
            return None  # the server did not report caching: nothing to judge
        small = self._nothing_cached(key, previous, entry, usage)
        if previous is None:
            if small is None and defaulted and usage.cache_read == 0:
                return self._switched_model(key, entry, usage)
            return small
        expected = self._expected(previous)
        slack = max(_SLACK_TOKENS[self.vendor], int(expected * _SLACK_SHARE))
        if expected <= 0 or usage.cache_read >= expected - slack:
            return small
        return self._explain(key, previous, entry, request, usage, expected)

    def _expected(self, previous: _Entry) -> int:
        """What the previous request left in the cache for this one to read."""
        written = previous.read + previous.write
        if self._automatic(previous) and previous.total >= self._minimum(previous.model):
            return max(written, previous.total)  # automatic prefix caching: the whole prompt
        return written

    def _nothing_cached(
        self, key: str, previous: _Entry | None, entry: _Entry, usage: CacheUsage
    ) -> Invalidation | None:
        """
        Markers placed, nothing read or written. Under the minimum that is the vendor's rule
        (`below_minimum`); over it, the markers never took effect (`not_cached`). Each once per key.
        """
        if usage.cache_read or usage.cache_write or self._said(key, "not_cached"):
            return None
        prefix, marked = self._prefix_tokens(entry)
        minimum = self._minimum(entry.model)
        if not marked:
            return None
        if prefix < minimum:
            if not self._first_time(key, "below_minimum"):
                return None
            return self._event(
                key,
                entry,
                usage,
                cause="below_minimum",
                expected=0,
                server_side=False,
                detail=f"the cached prefix is about {prefix} tokens, under the "
                f"{minimum}-token minimum for {entry.model}: the vendor caches nothing",
            )
        if usage.cache_write is None or self._automatic(entry):
            return None  # writes go unreported: a first request that wrote looks just the same
        entry.dry, entry.prefix = (previous.dry if previous is not None else 0) + 1, prefix
        # On the second such turn in a row, not the first: one request proves little (a request
        # sent once needs no cache; a prefix our estimate puts just over the minimum may be just
        # under the vendor's count), two in a row with the prefix grown is the pattern, and the
        # wait costs one turn. Not `server_side`: nothing was evicted, and the likely causes (a
        # gateway, the dialect, a longer prefix needed) are the caller's to fix.
        if previous is None or entry.dry < 2 or not self._first_time(key, "not_cached"):
            return None
        return self._event(
            key,
            entry,
            usage,
            cause="not_cached",
            expected=previous.prefix,
            server_side=False,
            gap=entry.at - previous.at,
            detail=f"cache markers were sent on {entry.dry} requests in a row (prefix about "
            f"{prefix} tokens, over the {minimum}-token minimum for {entry.model}) but nothing "
            "was written or read. Likely: a proxy or gateway strips the markers; the markers are "
            "in the wrong dialect for this endpoint or SDK; or the model's real minimum is higher "
            "than promptcache's table (lengthen the cached prefix)",
        )

    def _said(self, key: str, cause: str) -> bool:
        with self._lock:
            return cause in self._warned.get(key, ())

    def _first_time(self, key: str, cause: str) -> bool:
        """Whether a once-per-key `cause` is new for `key`; it counts as said from now on."""
        with self._lock:
            said = self._warned.setdefault(key, set())
            if cause in said:
                return False
            said.add(cause)
            return True

    def _switched_model(self, key: str, entry: _Entry, usage: CacheUsage) -> Invalidation | None:
        """
        A full miss on the first request under a default key (vendor and model): if a request
        under another model, the latest that did, began the same way within its TTL, the model
        was switched mid-session (a fallback), which loses the whole cache. A router and a main
        model used side by side send different prefixes, and stay quiet.
        """
        if key != f"{self.vendor}:{entry.model}":
            return None  # `prompt_cache_key` or `metadata.user_id`: one key across models
        with self._lock:
            others = [
                e
                for k, e in reversed(self._entries.items())
                if e.model != entry.model and k == f"{self.vendor}:{e.model}"
            ]
        for other in others:  # latest first
            gap = entry.at - other.at
            ttl = self._ttl(other)
            if ttl is not None and gap > ttl:
                continue  # lapsed anyway: the switch lost nothing
            shared = self._shared_start(other, entry)
            expected = min(self._expected(other), shared)
            if expected <= 0:
                continue
            before, after = str(other.model), str(entry.model)
            detail = (
                f"the model changed from {before} to {after} {gap:.0f} s after a {before} request "
                f"that began the same way: caches are per model, so nothing cached under {before} "
                "is read (the default key is per model; pass key= to follow a session across "
                "models)"
            )
            found = DiffResult(
                invalidated=True,
                layer="model",
                cause="model_changed",
                path="model",
                offset=None,
                before=before,
                after=after,
                tokens_lost=expected,
                vendor=self.vendor,
                detail=detail,
            )
            return self._event(
                key,
                entry,
                usage,
                cause="model_changed",
                expected=expected,
                server_side=False,
                found=found,
                gap=gap,
                reason=_vendor_reason(usage),
                detail=detail,
            )
        return None

    def _shared_start(self, before: _Entry, after: _Entry) -> int:
        """
        Tokens of the elements `after` starts with as `before` did, when they cover everything
        `before` had ahead of its conversation (tools, system; else its first message); else 0.
        """
        old, new = self._records(before), self._records(after)
        lead = next((i for i, r in enumerate(old) if r.layer == "messages"), len(old)) or 1
        same = _common_start(old, new)
        return sum(r.tokens for r in old[:same]) if same >= lead else 0

    def _explain(
        self,
        key: str,
        previous: _Entry,
        entry: _Entry,
        request: Mapping[str, Any],
        usage: CacheUsage,
        expected: int,
    ) -> Invalidation:
        found = self._diff(previous, request)
        gap = entry.at - previous.at
        reason = _vendor_reason(usage)
        ttl = self._ttl(previous)
        if found is not None and found.invalidated:
            return self._event(
                key,
                entry,
                usage,
                cause=found.cause,
                expected=expected,
                server_side=False,
                found=found,
                gap=gap,
                reason=reason,
                detail=found.detail,
            )
        if ttl is not None and gap > ttl:
            return self._event(
                key,
                entry,
                usage,
                cause="ttl_expired",
                expected=expected,
                server_side=False,
                gap=gap,
                reason=reason,
                detail=f"{gap:.0f} s since the last request, over the {ttl:.0f} s TTL"
                + self._downgrade(previous),
            )
        overflow = self._lookback(previous, request)
        if overflow is not None:
            return self._event(
                key,
                entry,
                usage,
                cause="lookback",
                expected=expected,
                server_side=False,
                gap=gap,
                reason=reason,
                detail=overflow,
            )
        cause = _VENDOR_CAUSES.get(reason or "", "none")
        detail = (
            f"the vendor reports {reason}"
            if cause != "none"
            else "identical prefix within the TTL and no read: a server-side miss (eviction, "
            "routing to another replica, or capacity)"
        )
        return self._event(
            key,
            entry,
            usage,
            cause=cause,
            expected=expected,
            server_side=cause == "none",
            gap=gap,
            reason=reason,
            detail=detail,
        )

    def _lookback(self, previous: _Entry, request: Mapping[str, Any]) -> str | None:
        """
        Words for a previous entry out of every breakpoint's reach (Anthropic's 20-block
        lookback), or None. Needs the previous body: its markers are not kept in the hashes.
        """
        if self.vendor != "anthropic" or previous.body is None:
            return None
        old_paths, old_points = _content_blocks(previous.body)
        if not old_points:
            return None
        last = old_points[-1]
        paths, points = _content_blocks(request)
        if any(0 <= point - last <= _LOOKBACK_BLOCKS for point in points):
            return None
        beyond = [point for point in points if point > last]
        if not beyond:
            return None  # no marker after the previous one: nothing looked back for it
        nearest = beyond[0]
        return (
            f"the previous request's last breakpoint ({old_paths[last]}) lies {nearest - last} "
            f"content blocks before the nearest breakpoint of this request ({paths[nearest]}); "
            f"Anthropic looks back at most {_LOOKBACK_BLOCKS} content blocks from a breakpoint, "
            "so the previous entry was not found (typically a parallel tool fan-out appended in "
            "one step). Let promptcache plan the markers (the Anthropic adapter places a lookback "
            f"breakpoint), or add an intermediate breakpoint at most {_LOOKBACK_BLOCKS} content "
            f"blocks after {old_paths[last]}"
        )

    def _diff(self, previous: _Entry, request: Mapping[str, Any]) -> DiffResult | None:
        if previous.body is not None:
            before = previous.body
            # The server already reported the short read, so any divergence inside the previous
            # request explains it, wherever its markers sit now (callers often move them in place).
            return compare_elements(
                before,
                request,
                request_elements(before, self.vendor),
                request_elements(request, self.vendor),
                self.vendor,
                self.counter,
                every_prefix=True,
            )
        return _hash_only(previous, request, self.vendor, self)

    def _event(
        self,
        key: str,
        entry: _Entry,
        usage: CacheUsage,
        *,
        cause: str,
        expected: int,
        server_side: bool,
        detail: str,
        found: DiffResult | None = None,
        gap: float | None = None,
        reason: str | None = None,
    ) -> Invalidation:
        actual = usage.cache_read or 0
        return Invalidation(
            key=key,
            vendor=self.vendor,
            model=entry.model,
            cause=cause,
            layer=found.layer if found else None,
            path=found.path if found else None,
            offset=found.offset if found else None,
            before=found.before if found else None,
            after=found.after if found else None,
            expected_read=expected,
            actual_read=actual,
            tokens_lost=max(0, expected - actual),
            gap_seconds=gap,
            server_side=server_side,
            vendor_reason=reason,
            detail=detail,
            at=entry.at,
        )

    def _emit(self, event: Invalidation) -> None:
        with self._lock:
            self._stats.events += 1
            self._stats.by_cause[event.cause] += 1
            self._stats.tokens_lost[event.cause] += event.tokens_lost
        self.logger.warning("%s", event.message())
        if self._exporter is not None:
            self._exporter.invalidation(event)
        if self.on_invalidation is not None:
            try:
                self.on_invalidation(event)
            except Exception:  # a broken callback must not break the caller's LLM request
                self.logger.exception("promptcache: the on_invalidation callback raised")


# -- helpers --------------------------------------------------------------------------------


def _model(request: Mapping[str, Any], usage: CacheUsage) -> str | None:
    model = request.get("model")
    return model if isinstance(model, str) else usage.model


def _entry_ttls(entry: _Entry, records: Sequence[_Record]) -> list[str]:
    ttls = [r.ttl for r in records if r.marked and r.ttl]
    for name in ("cache_control", "prompt_cache_options"):
        value = entry.settings.get(name)
        if isinstance(value, Mapping) and isinstance(value.get("ttl"), str):
            ttls.append(value["ttl"])
    retention = entry.settings.get("prompt_cache_retention")
    if isinstance(retention, str):
        ttls.append(retention)
    if not ttls and any(r.marked for r in records):
        ttls.append("5m")
    return ttls


def _written(entry: _Entry) -> list[str]:
    """The TTLs the server says the entry's write went to."""
    return [ttl for ttl, tokens in entry.written.items() if tokens]


_GEMINI_LAYER_CONFIG = frozenset({"system_instruction", "systemInstruction", "tools"})


def _snapshot(request: Mapping[str, Any]) -> dict[str, Any]:
    """
    A copy of the request one level down (two inside a Gemini `config`): later appends to, or
    replacements in, the caller's lists do not reach it. The elements themselves are shared, not
    copied; a message dict edited in place after it was sent is seen edited (README, "Monitor").
    """
    snapshot = {k: list(v) if type(v) is list else v for k, v in request.items()}
    config = snapshot.get("config")
    if type(config) is dict:
        snapshot["config"] = {k: list(v) if type(v) is list else v for k, v in config.items()}
    return snapshot


def _params(request: Mapping[str, Any]) -> dict[str, Any]:
    """The request minus its elements: model, settings, top-level markers (small)."""
    params = {k: v for k, v in request.items() if k not in _LAYER_KEYS}
    config = plain(params.get("config"))
    if isinstance(config, Mapping):
        params["config"] = {k: v for k, v in config.items() if k not in _GEMINI_LAYER_CONFIG}
    return params


def _without_markers(element: Element) -> tuple[Any, str | None, bool]:
    """The element with cache markers removed, the first marker's TTL, and whether it had one."""
    value, key = element.value, element.content_key
    if key is not None and isinstance(value, Mapping) and isinstance(value.get(key), list):
        blocks = value[key]
        if not any(isinstance(b, Mapping) and _MARKER_KEYS & b.keys() for b in blocks):
            return value, None, False
        stripped = [strip_markers(b) for b in blocks]
        ttl = next((t for _, t, marked in stripped if marked and t), None)
        return {**value, key: [b for b, _, _ in stripped]}, ttl, True
    return strip_markers(value)


_MARKER_KEYS = frozenset(MARKERS)


def _vendor_reason(usage: CacheUsage) -> str | None:
    diagnosis = getattr(usage, "diagnosis", None)
    reason = getattr(diagnosis, "reason", None)
    return reason if isinstance(reason, str) else None


def _hash_only(
    previous: _Entry, request: Mapping[str, Any], vendor: str, monitor: Monitor
) -> DiffResult:
    """The body was over the budget: locate the divergent element by hash, cause by layer only."""
    elements = request_elements(request, vendor)
    table = table_change(previous.settings, request, vendor, elements)
    records = monitor._records(previous)
    lost_all = sum(r.tokens for r in records)
    if table is not None and table.cause == "model_changed":
        return DiffResult(
            invalidated=True,
            layer="model",
            cause="model_changed",
            path="model",
            offset=None,
            before=str(table.before),
            after=str(table.after),
            tokens_lost=lost_all,
            vendor=vendor,
            detail="the model changed: caches are per model",
        )
    index = _common_start(records, [monitor._record(e) for e in elements])
    if index >= len(records):
        return identical(vendor)
    record = records[index]
    return DiffResult(
        invalidated=True,
        layer=record.layer,
        cause="tools_changed" if record.layer == "tools" else "content_changed",
        path=record.path,
        offset=None,
        before=None,
        after=None,
        tokens_lost=sum(r.tokens for r in records[index:]),
        vendor=vendor,
        detail=f"{record.path} differs (body not kept: over the monitor's byte budget, so the "
        "field and cause are not resolved further)",
    )


def _content_blocks(request: Mapping[str, Any]) -> tuple[list[str], list[int]]:
    """
    An Anthropic request's content blocks in the order the API reads them (tools, system blocks,
    each message's content blocks; a message's role is no block): their paths, and the indices of
    the ones that carry a breakpoint (the top-level automatic one marks the last block).
    """
    paths: list[str] = []
    at_unit: list[int | None] = []  # unit index -> content block index (None: a message's role)
    for element in request_elements(request, "anthropic"):
        heads = 1 if element.content_key is not None and isinstance(element.value, Mapping) else 0
        for number, unit in enumerate(element_units(element)):
            at_unit.append(None if number < heads else len(paths))
            if number >= heads:
                paths.append(unit.path)
    points = [at_unit[u] for u in breakpoints(request, "anthropic")]
    return paths, sorted({p for p in points if p is not None})


def _common_start(old: Sequence[_Record], new: Sequence[_Record]) -> int:
    """How many leading elements are the same in both (by hash and path)."""
    return next(
        (
            i
            for i, (a, b) in enumerate(zip(old, new, strict=False))
            if a.digest != b.digest or a.path != b.path
        ),
        min(len(old), len(new)),
    )


def _min_tokens(vendor: str, model: str) -> int:
    try:
        from ._pricing import load_min_tokens

        return load_min_tokens().minimum(vendor, model)
    except (ImportError, InputError, KeyError):
        return _FALLBACK_MIN[vendor]


# -- usage ----------------------------------------------------------------------------------


def read_usage(vendor: str, response: Any, request: Mapping[str, Any] | None = None) -> CacheUsage:
    """The usage record of a response, through the vendor's adapter."""
    if isinstance(response, CacheUsage):
        return response
    usage: CacheUsage = adapter_for(vendor, request).read_usage(response)
    return usage


def adapter_for(vendor: str, request: Mapping[str, Any] | None) -> Any:
    """The adapter that reads `request`'s responses: OpenAI's Responses API has its own."""
    if (
        vendor == "openai"
        and isinstance(request, Mapping)
        and ("input" in request or "instructions" in request)
    ):
        return _adapter("openai-responses")
    return _adapter(vendor)


_ADAPTERS: dict[str, Any] = {}


def _adapter(name: str) -> Any:
    """Adapters are stateless: one per name, made on first use (a dict lookup after that)."""
    adapter = _ADAPTERS.get(name)
    if adapter is None:
        from .adapters import get_adapter

        adapter = _ADAPTERS[name] = get_adapter(name)
    return adapter


# -- exporters ------------------------------------------------------------------------------


class _Exporter:
    """OpenTelemetry span attributes and Prometheus counters, each only when installed."""

    def __init__(self, vendor: str, registry: Any) -> None:
        self.vendor = vendor
        self._trace = _optional("opentelemetry.trace")
        self._counters = _prometheus_counters(registry)
        # The per-vendor children are bound once; `labels()` on every request is a dict walk.
        self._usage_counters = (
            None
            if self._counters is None
            else tuple(self._counters[name].labels(vendor) for name in ("read", "write", "input"))
        )

    def usage(self, usage: CacheUsage) -> None:
        span = self._span()
        if span is not None:
            span.set_attribute("gen_ai.usage.cache_read.input_tokens", usage.cache_read or 0)
            span.set_attribute("gen_ai.usage.cache_creation.input_tokens", usage.cache_write or 0)
            span.set_attribute("gen_ai.usage.input_tokens", usage.total_input)
        if self._usage_counters is not None:
            read, write, total = self._usage_counters
            read.inc(usage.cache_read or 0)
            write.inc(usage.cache_write or 0)
            total.inc(usage.total_input)

    def invalidation(self, event: Invalidation) -> None:
        span = self._span()
        if span is not None:
            span.set_attribute("promptcache.invalidation.cause", event.cause)
            span.add_event("promptcache.cache_invalidation", _span_event(event))
        if self._counters is not None:
            self._counters["events"].labels(self.vendor, event.cause).inc()
            self._counters["lost"].labels(self.vendor, event.cause).inc(event.tokens_lost)

    def _span(self) -> Any:
        if self._trace is None:
            return None
        span = self._trace.get_current_span()
        return span if span.is_recording() else None


def _span_event(event: Invalidation) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "promptcache.cause": event.cause,
        "promptcache.key": event.key,
        "promptcache.expected_read": event.expected_read,
        "promptcache.actual_read": event.actual_read,
        "promptcache.server_side": event.server_side,
    }
    if event.path:
        attributes["promptcache.path"] = event.path
    return attributes


def _optional(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        return None


_COUNTERS: dict[int, tuple[Any, dict[str, Any]]] = {}
_COUNTERS_LOCK = threading.Lock()


def _prometheus_counters(registry: Any) -> dict[str, Any] | None:
    """One set of counters per registry (registering a name twice is an error in prometheus)."""
    client = _optional("prometheus_client")
    if client is None:
        return None
    registry = registry if registry is not None else client.REGISTRY
    with _COUNTERS_LOCK:
        if id(registry) not in _COUNTERS:  # the registry is kept alive with its counters
            _COUNTERS[id(registry)] = (registry, _make_counters(client, registry))
        return _COUNTERS[id(registry)][1]


def _make_counters(client: Any, registry: Any) -> dict[str, Any]:
    def counter(name: str, text: str, *labels: str) -> Any:
        return client.Counter(name, text, labels, registry=registry)

    return {
        "read": counter("promptcache_cache_read_tokens", "Input tokens read from cache", "vendor"),
        "write": counter("promptcache_cache_write_tokens", "Input tokens written", "vendor"),
        "input": counter("promptcache_input_tokens", "Input tokens, cached or not", "vendor"),
        "events": counter(
            "promptcache_invalidations", "Unexpected cache misses by cause", "vendor", "cause"
        ),
        "lost": counter(
            "promptcache_tokens_lost", "Tokens expected from cache but not read", "vendor", "cause"
        ),
    }
