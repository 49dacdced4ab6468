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

Memory is bounded: per key, the request itself (the "body", held by reference, needed to name a
field) while the bodies total at most `body_budget` bytes (estimated at four bytes a token), least
recently observed first out, then hashes of its elements; at most `max_keys` keys. In bytes: at
most body_budget + max_keys x (700 B + 200 B per element of a key's request); `memory()` gives the
running estimate. All per-key state lives in one `KeyState` (memory.py); every operation on it,
eviction included, is O(1) in the number of keys. Observing is safe from many threads and from
asyncio code (it never awaits and holds its lock only to swap the per-key state).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from .._canonical import refusing_deeper
from .._errors import InputError
from .._tokens import DEFAULT_COUNTER, TokenCounter
from .._usage import CacheUsage
from ..vendors import Vendor, detect_vendor, get_vendor, resolve_vendor
from ..vendors._elements import plain_request
from .events import Invalidation
from .exporters import Exporter
from .judging import Judging
from .memory import Entry, KeyState, Stats, model_of, snapshot
from .privacy import describe
from .recorder import Recorder

__all__ = ["Invalidation", "Monitor", "adapter_for", "read_usage"]

LOGGER = logging.getLogger("promptcache.monitor")

# Bodies are held by reference; their size is estimated from the vendor's token count (about four
# bytes of JSON per token), which costs nothing to compute on the hot path.
_BYTES_PER_TOKEN = 4
_SHAPES = 256  # request shapes whose format is remembered


class Monitor(Judging):
    """
    Observe every request and its response; get an `Invalidation` for each unexpected miss.

        monitor = Monitor("anthropic", on_invalidation=print)  # or Monitor() to detect
        response = client.messages.create(**request)
        monitor.observe(request, response, key=session_id)

    `key` groups requests that should share a cache (a session, a tenant); by default it is the
    request's `prompt_cache_key`, else `metadata.user_id`, else vendor and model. `vendor` is
    any name or alias from `promptcache vendors`, or None to detect each request's format from
    its shape (a request that does not fit the named vendor raises `InputError`). Events go to
    the `promptcache.monitor` logger (warning), to `on_invalidation`, to the current
    OpenTelemetry span when opentelemetry is installed, and to Prometheus counters when
    prometheus_client is installed (`metrics=False` turns both off). Nothing of the prompt is
    logged, exported or put on the event unless `capture_content=True` (then the event's
    `before`/`after` and `detail` quote the excerpts `diff` finds); keys that do not look like
    opaque ids are hashed in log messages and spans. `recorder` appends every observation to the
    log `promptcache report` reads (`Recorder`; hashes and token counts only by default).
    """

    def __init__(
        self,
        vendor: str | Vendor | None = None,
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
        capture_content: bool = False,
        recorder: Recorder | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._named = None if vendor is None else get_vendor(vendor)
        self.vendor: str | None = None if self._named is None else self._named.name
        if body_budget < 0 or max_keys < 1:
            raise InputError(
                f"body_budget must be >= 0 and max_keys >= 1, got {body_budget} and {max_keys}"
            )
        self.on_invalidation = on_invalidation
        self.capture_content = capture_content
        self.recorder = recorder
        self.ttl_seconds = ttl_seconds
        self.min_tokens = min_tokens
        self.body_budget = body_budget
        self.max_keys = max_keys
        self.counter = counter or DEFAULT_COUNTER
        self.logger = logger or LOGGER
        self._clock = clock
        self._lock = threading.Lock()
        self._keys = KeyState(body_budget=body_budget, max_keys=max_keys)
        self._stats = Stats()
        self._minimums: dict[tuple[str, str], int] = {}
        self._shapes: dict[tuple[frozenset[str], str | None], Vendor] = {}
        self._exporter = Exporter(prometheus_registry) if metrics else None

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
        with refusing_deeper(request=plain, response=response):
            return self._observe(plain, response, usage, key, at)

    def _observe(
        self,
        plain: Mapping[str, Any],
        response: Any,
        usage: CacheUsage | None,
        key: str | None,
        at: float | datetime | None,
    ) -> Invalidation | None:
        if usage is None and response is None:
            raise InputError("observe() needs the response or usage=CacheUsage(...)")
        vendor = self._vendor_of(plain, response)
        if usage is None:
            usage = read_usage(vendor, response)
        moment = self._moment(at)
        name = key if key is not None else self._key(plain, vendor)
        entry = self._entry(plain, vendor, usage, moment)
        default = name == self._default_key(vendor, entry.model)
        previous = self._swap(name, entry, default=default)
        event = self._judge(name, previous, entry, plain, usage, defaulted=key is None)
        if self._exporter is not None:
            self._exporter.usage(usage, vendor.name)
        if self.recorder is not None:
            answer = usage if response is None else response
            self.recorder.record(plain, answer, key=key, at=moment, vendor=vendor.name)
        if event is not None:
            self._emit(event)
        return event

    def key_of(self, request: Mapping[str, Any]) -> str:
        """The default cache key of a request."""
        plain = plain_request(request, "request")
        return self._key(plain, self._vendor_of(plain, None))

    def _key(self, request: Mapping[str, Any], vendor: Vendor) -> str:
        explicit = request.get("prompt_cache_key")
        if isinstance(explicit, str) and explicit:
            return explicit
        metadata = request.get("metadata")
        if isinstance(metadata, Mapping) and isinstance(metadata.get("user_id"), str):
            return str(metadata["user_id"])
        return self._default_key(vendor, request.get("model"))

    def _default_key(self, vendor: Vendor, model: Any) -> str:
        return f"{self.vendor or vendor.name}:{model}"

    def _vendor_of(self, request: Mapping[str, Any], response: Any) -> Vendor:
        """The request's format: the named vendor's (checked against its shape) or detected."""
        # Requests of one application come in a handful of shapes: read each shape once (the
        # top-level fields and the model decide it), not every request's messages again.
        model = request.get("model")
        shape = (frozenset(request), model if isinstance(model, str) else None)
        known = self._shapes.get(shape)
        if known is not None:
            return known
        if self._named is not None:
            found = resolve_vendor(request, self._named)
        else:
            found = detect_vendor(request, None if isinstance(response, CacheUsage) else response)
        if len(self._shapes) >= _SHAPES:
            self._shapes.clear()
        self._shapes[shape] = found
        return found

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
        """Keys held, bytes of full bodies held (never above `body_budget`), bodies held."""
        with self._lock:
            return self._keys.memory()

    def forget(self, key: str) -> None:
        """Drop what is known about `key` (the session ended)."""
        with self._lock:
            self._keys.forget(key)

    # -- state ----------------------------------------------------------------------------

    def _moment(self, at: float | datetime | None) -> float:
        if at is None:
            return self._clock()
        if isinstance(at, datetime):
            return at.timestamp()
        if isinstance(at, (int, float)) and not isinstance(at, bool):
            return float(at)
        raise InputError(f"at must be epoch seconds or a datetime, got {describe(at)}")

    def _entry(
        self, request: Mapping[str, Any], vendor: Vendor, usage: CacheUsage, at: float
    ) -> Entry:
        """The new entry: a shallow snapshot and numbers, so observing costs almost nothing."""
        return Entry(
            at=at,
            vendor=vendor,
            read=usage.cache_read or 0,
            write=usage.cache_write or 0,
            total=usage.total_input,
            model=model_of(request, usage),
            body=snapshot(request),
            params={},
            records=None,
            size=_BYTES_PER_TOKEN * max(usage.total_input, 1),
            written=usage.cache_write_by_ttl,
        )

    def _swap(self, key: str, entry: Entry, *, default: bool) -> Entry | None:
        """Store `entry` as the key's latest; return the one it replaces. Enforces the budgets."""
        with self._lock:
            self._stats.observations += 1
            return self._keys.swap(key, entry, default=default, shrink=self._records)

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


# -- usage ----------------------------------------------------------------------------------


def read_usage(vendor: Vendor, response: Any) -> CacheUsage:
    """The usage record of a response, through the format's usage reader."""
    if isinstance(response, CacheUsage):
        return response
    return vendor.read_usage(response)


def adapter_for(vendor: str | Vendor | None, request: Mapping[str, Any] | None) -> Any:
    """The adapter that reads `request`'s responses (OpenAI's Responses API has its own)."""
    from ..adapters import get_adapter

    if isinstance(request, Mapping):
        return get_adapter(resolve_vendor(plain_request(request, "request"), vendor).name)
    if vendor is None:
        raise InputError("adapter_for() needs a vendor or a request to detect it from")
    return get_adapter(get_vendor(vendor).name)
