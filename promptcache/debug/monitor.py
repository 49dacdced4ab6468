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
turn in a row, `not_cached` (the markers never took effect); each once per key. A later read
under the documented minimum and no longer than the prefix a key's `below_minimum` was said of
disproves it: a `below_minimum_withdrawn` follow-up goes to the same outlets. The shortest read
under the documented minimum is the model's learned minimum (no prefix that long is called
`below_minimum` again, under any key). And the default
key is per model, so a switch of model starts a key with no previous request: a full miss there
is compared with the latest request under another model, and `model_changed` is named when it
began the same way.

Memory is bounded: per key, the request itself (the "body", held by reference, needed to name a
field) while the bodies total at most `body_budget` bytes (estimated at four bytes a token), least
recently observed first out, then a fingerprint of its elements (fingerprint.py); at most
`max_keys` keys. In bytes: at most body_budget + max_keys x (920 B + 200 B per element of a key's
request; a fingerprint takes 20 B an element, the records judging may have made 200 B);
`memory()` gives the running estimate. Besides, up to 2 MiB of recently hashed element JSON is kept with its hash and
token count, so an element sent again (shared tools, earlier turns) is not hashed again. All per-key state lives in one `KeyState` (memory.py); every operation on it,
eviction included, is O(1) in the number of keys. Observing is safe from many threads and from
asyncio code (it never awaits and holds its lock only to swap the per-key state).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .._canonical import refuse_unreadable, refusing_deeper
from .._errors import InputError, check_hash_key
from .._tokens import DEFAULT_COUNTER, TokenCounter
from .._usage import CacheUsage
from ..sim._clocks import clock_mismatch
from ..vendors import TTL_SECONDS, Vendor, detect_vendor, get_vendor, resolve_vendor
from ..vendors._elements import model_of_request, plain_request
from ..vendors._platform import model_names, named_models
from .background import Background
from .events import Invalidation
from .exporters import Exporter
from .fingerprint import fingerprint
from .judging import Judging
from .memory import (
    Entry,
    KeyState,
    Record,
    Serialised,
    Stats,
    entry_ttls,
    marker_sign,
    model_of,
    params,
    snapshot,
    written,
)
from .privacy import describe, export_key
from .recorder import Recorder, location_name
from .store import StateStore, StoreUnavailable

__all__ = ["Invalidation", "Monitor", "adapter_for", "read_usage"]

LOGGER = logging.getLogger("promptcache.monitor")

# Bodies are held by reference; their size is estimated from the vendor's token count (about four
# bytes of JSON per token), which costs nothing to compute on the hot path.
_BYTES_PER_TOKEN = 4
_SHAPES = 256  # request shapes whose format is remembered
# The once-per-key causes said across a fleet live as long as the longest cache TTL (plus slack).
_SAID_SECONDS = max(TTL_SECONDS.values())
_SEEN = 8192  # elements whose record is remembered for the store's hash chain


@dataclass(frozen=True, slots=True)
class _Pending:
    """One observation waiting for the background worker (the request is the entry's copy)."""

    key: str
    entry: Entry
    request: Mapping[str, Any]
    usage: CacheUsage
    defaulted: bool


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

    `store` shares each key's state among the processes of a fleet (`RedisStore.from_url(...)`);
    by default the state stays in this process. With a store, observing runs in a background
    thread (`background=False` judges on the caller's thread), `observe` returns None and the
    events go to the outlets above; `flush()` waits for the queue, `close()` stops the worker.
    When the store fails the monitor judges from this process's own observations, says so once
    and counts it, and goes back to the store when it answers again.

    `base_models` maps model ids that name no model to the model they serve, given once for every
    request: a Bedrock application inference profile ARN to its foundation model id (what the
    adapters take as `base_model=`; `aws bedrock get-inference-profile` lists it), or an Azure
    deployment to its model. Such an id is then judged by the served model's minimum and its
    switch to another name of that model is no `model_changed`; an ARN not in it stays unknown,
    said once.
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
        store: StateStore | None = None,
        background: bool | None = None,
        queue_size: int = 10_000,
        base_models: Mapping[str, str] | None = None,
    ) -> None:
        if queue_size < 1:
            raise InputError(f"queue_size must be >= 1, got {queue_size}")
        check_hash_key()  # a too-short $PROMPTCACHE_HASH_KEY is said here, not at the first miss
        self._base_models = model_names(base_models or {})
        # id of a format's record -> (the record, it reading `base_models`): a few records
        self._mapped: dict[int, tuple[Vendor, Vendor]] = {}
        self._named = None if vendor is None else self._with_models(get_vendor(vendor))
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
        self._read_under_minimum: dict[tuple[str, str], int] = {}
        self._unknown_models: set[tuple[str, str]] = set()
        self._contradicted_below_minimum = 0  # keys whose below_minimum was withdrawn
        self._hashed: dict[bytes, tuple[str | None, Record]] = {}
        self._hashed_bytes = 0
        self._hashed_by: TokenCounter | None = None
        self._shapes: dict[tuple[frozenset[str], str | None], Vendor] = {}
        self._ambiguous: set[tuple[frozenset[str], str | None]] = set()
        self._exporter = Exporter(prometheus_registry) if metrics else None
        if self._exporter is not None and self.vendor is not None:
            self._exporter.bind(self.vendor)  # its series exist at 0 before any request
        self.store = store
        # element id -> (the element, its path, its markers, its record); the element is held so
        # that its id stays its own
        self._seen: OrderedDict[int, tuple[Any, str, Any, Record]] = OrderedDict()
        self._seen_lock = threading.Lock()
        self._degraded = False  # the store failed and has not answered since
        self._unreported: set[str] = set()  # vendors said to report no caching
        self._worker: Background | None = None
        if background if background is not None else store is not None:
            self._worker = Background(
                self._work, size=queue_size, logger=self.logger, name="promptcache-monitor"
            )

    # -- the one call ---------------------------------------------------------------------

    def observe(
        self,
        request: Mapping[str, Any],
        response: Any = None,
        *,
        usage: CacheUsage | None = None,
        key: str | None = None,
        at: float | datetime | None = None,
        sent_at: float | datetime | None = None,
        partial: bool = False,
        vendor: str | Vendor | None = None,
        location: str | None = None,
    ) -> Invalidation | None:
        """
        Record one request and its response (an SDK object or its JSON), or its `usage` directly.

        Returns the `Invalidation` when the read fell short of what the previous request with
        the same key left in the cache, else None; always None when observing in the background
        (the event goes to the logger, `on_invalidation` and the metrics). `at` is when the
        response came (default: now); `sent_at`, when the request was sent (default: `at`): each
        request is judged against the latest one of its key sent before it. `partial`: the
        request was rebuilt from telemetry without its cache markers, cache key or settings (GenAI
        span messages): a change in what it holds is named, and nothing else is claimed (no
        marker, TTL, lookback or server-side finding: a miss with no change found is cause "none"
        and not `server_side`). `vendor`: this request's format, when the caller knows more than
        its shape says (an OpenAI body LiteLLM sent to Azure is Azure OpenAI's); checked against
        the body as the monitor's own `vendor` is. `location`: the Vertex AI location the call
        went to (`wrap()` reads it from the client; `vertex_anthropic.location_of`), written to
        the recorder's log so that `promptcache report` prices the call at its tier.
        """
        if key is not None and not isinstance(key, str):
            raise InputError(
                f"observe(key=...): {describe(key)} must be a str (the cache key); pass "
                "str(...) of it, or leave key out to use the request's own"
            )
        if location is not None:
            location_name(location, "location=")
        plain = plain_request(request, "request")
        if at is None and (mismatch := clock_mismatch(response, self._clock)) is not None:
            raise mismatch
        try:
            named = None if vendor is None else self._format_named(plain, vendor)
            return self._observe(
                plain, response, usage, key, at, sent_at, partial, vendor=named, location=location
            )
        except (RecursionError, TypeError):  # as `refusing_deeper`, without a context manager
            refuse_unreadable(request=plain, response=response)
            raise

    def _observe_read(
        self,
        request: Mapping[str, Any],
        data: bytes,
        *,
        usage: CacheUsage,
        key: str | None,
        at: float | datetime | None,
        sent_at: float | datetime | None = None,
        vendor: Vendor | None = None,
    ) -> Invalidation | None:
        """
        `observe` for a request parsed from JSON that nothing else holds (`promptcache report`
        reading a log), with `data`, its `orjson.dumps`: the body is kept as that JSON
        (`Serialised`), so the parsed tree goes as soon as the caller lets go of it, and a kept
        body is one bytes object to free. `vendor`: the request's format, when the caller has
        already resolved it (as `resolve_vendor` does, which this monitor would do again).
        """
        plain = request if type(request) is dict else plain_request(request, "request")
        try:
            return self._observe(
                plain, None, usage, key, at, sent_at, serialised=data, vendor=vendor
            )
        except (RecursionError, TypeError):  # as `refusing_deeper`, without a context manager
            refuse_unreadable(request=plain)
            raise

    def _observe(
        self,
        plain: Mapping[str, Any],
        response: Any,
        usage: CacheUsage | None,
        key: str | None,
        at: float | datetime | None,
        sent_at: float | datetime | None,
        partial: bool = False,
        *,
        serialised: bytes | None = None,
        vendor: Vendor | None = None,
        location: str | None = None,
    ) -> Invalidation | None:
        if usage is None and response is None:
            raise InputError("observe() needs the response or usage=CacheUsage(...)")
        if vendor is None:
            vendor = self._vendor_of(plain, response)
        if usage is None:
            usage = read_usage(vendor, response)
        moment = self._moment(at)
        name = key if key is not None else self._key(plain, vendor, usage)
        entry = self._entry(plain, vendor, usage, moment, serialised=serialised)
        entry.partial = partial
        if sent_at is not None:
            entry.sent = self._moment(sent_at)
        if self.recorder is not None:
            answer = usage if response is None else response
            sent = None if sent_at is None else entry.sent
            self.recorder.record(
                plain,
                answer,
                key=key,
                at=moment,
                vendor=vendor.name,
                sent_at=sent,
                location=location,
            )
        if self._worker is None:
            return self._observed(name, entry, plain, usage, defaulted=key is None)
        if self._exporter is not None:  # here, where the caller's span is current
            self._exporter.usage(usage, vendor.name, entry.model)
        # The copy in the entry is what is judged: the caller may append to its lists meanwhile.
        pending = _Pending(name, entry, entry.request or {}, usage, key is None)
        if not self._worker.put(pending):
            self._dropped()
        return None

    def _work(self, pending: _Pending) -> None:
        with refusing_deeper(request=pending.request):
            self._observed(
                pending.key,
                pending.entry,
                pending.request,
                pending.usage,
                defaulted=pending.defaulted,
            )

    def _observed(
        self,
        name: str,
        entry: Entry,
        request: Mapping[str, Any],
        usage: CacheUsage,
        *,
        defaulted: bool,
    ) -> Invalidation | None:
        if self.store is not None:
            entry.records = self._chain(entry)  # the hash chain is what the store keeps
        default = name == self._default_key(entry.vendor, entry.model)
        previous = self._swap(name, entry, default=default)
        order = _order_in_process(previous, entry)
        try:
            shared = self._shared(name, entry) if self.store is not None else None
            if shared is not None:
                previous, order = shared
            event = self._judge_readable(name, previous, entry, request, usage, defaulted, order)
        except BaseException:
            # A refused request leaves the key as it was: the next one is judged against the
            # request before it, not against one we could not read.
            with self._lock:
                self._stats.observations -= 1
                self._keys.restore(name, entry, previous, default=default, shrink=self._shrink)
            raise
        if usage.cache_read is None:
            self._unjudged(entry.vendor.name, usage)
        if shared is not None and entry.dry:
            self._amend(name, entry)
        if self._exporter is not None and self._worker is None:
            self._exporter.usage(usage, entry.vendor.name, entry.model)
        if event is not None:
            self._emit(event)
        return event

    def _judge_readable(
        self,
        name: str,
        previous: Entry | None,
        entry: Entry,
        request: Mapping[str, Any],
        usage: CacheUsage,
        defaulted: bool,
        order: str | None,
    ) -> Invalidation | None:
        """
        `_judge`, where a previous request that cannot be read (kept when its cache read needed
        no diff) does not refuse this one: it is judged as the key's first, and the user told.
        """
        try:
            return self._judge(
                name, previous, entry, request, usage, defaulted=defaulted, order=order
            )
        except TypeError:  # CanonicalError included
            if previous is None:
                raise
            self._records(entry)  # raises when this request is the unreadable one
            self.logger.warning(
                "promptcache: the request before this one under key %s could not be read; this "
                "one is judged as the key's first",
                export_key(name),
            )
            return self._judge(name, None, entry, request, usage, defaulted=defaulted, order=order)

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every observation so far is judged; False if `timeout` s passed first."""
        return True if self._worker is None else self._worker.flush(timeout)

    def close(self, timeout: float | None = 5.0) -> None:
        """Judge what is queued (up to `timeout` s), stop the worker, close the store."""
        if self._worker is not None:
            self._worker.flush(timeout)
            self._worker.close(timeout)
        if self.store is not None:
            self.store.close()

    # -- the shared store -----------------------------------------------------------------

    def _chain(self, entry: Entry) -> tuple[Record, ...]:
        """
        The entry's element records, each element hashed once while it is sent again and again:
        a conversation's next request holds the same tool, system and message objects as the one
        before, so only the new turns are serialised. An element edited in place is not seen
        (as the in-process monitor, which holds the same objects, does not see it either).
        """
        body = entry.body
        if entry.records is not None or not isinstance(body, dict):
            return self._records(entry)
        cache = self._seen
        out = []
        with self._seen_lock:
            for element in entry.vendor.elements(body):
                value = element.value
                sign = marker_sign(element)
                hit = cache.get(id(value))
                if hit is not None and hit[0] is value and hit[1:3] == (element.path, sign):
                    cache.move_to_end(id(value))
                    out.append(hit[3])
                    continue
                record = self._record(element)
                cache[id(value)] = (value, element.path, sign, record)
                out.append(record)
            while len(cache) > _SEEN:
                cache.popitem(last=False)
        return tuple(out)

    def _store_ttl(self, entry: Entry) -> float:
        """
        How long the store keeps the entry (the store adds its slack): the longest TTL its markers
        asked for or the server wrote, else the vendor's default, else the monitor's override.
        """
        if self.ttl_seconds is not None:
            return self.ttl_seconds
        named = [
            TTL_SECONDS[t] for t in (*entry_ttls(entry, self._records(entry)), *written(entry))
        ]
        return max(named, default=entry.vendor.rules.default_ttl_seconds or 0.0)

    def _shared(self, name: str, entry: Entry) -> tuple[Entry | None, str | None] | None:
        """The previous state and ordering words from the store; None when it cannot answer."""
        store = self.store
        if store is None:
            return None
        if not store.available:
            self._fell_back("its circuit is open")
            return None
        try:
            exchange = store.exchange(name, entry, ttl_seconds=self._store_ttl(entry))
        except StoreUnavailable as error:
            self._fell_back(str(error))
            return None
        self._back()
        for cause in exchange.said:  # said by another process: said here too
            Judging._first_time(self, name, cause)
        return exchange.previous, _order(exchange.previous, entry, exchange.same_time)

    def _amend(self, name: str, entry: Entry) -> None:
        store = self.store
        if store is None:
            return
        try:
            store.amend(name, entry, ttl_seconds=self._store_ttl(entry))
        except StoreUnavailable as error:
            self._fell_back(str(error))

    def _first_time(self, key: str, cause: str) -> bool:
        local = super()._first_time(key, cause)
        store = self.store
        if store is None or not store.available:
            return local
        try:
            return store.first_time(key, cause, ttl_seconds=_SAID_SECONDS)
        except StoreUnavailable as error:
            self._fell_back(str(error))
            return local

    def _fell_back(self, why: str) -> None:
        """This observation is judged in-process: counted always, said once per outage."""
        with self._lock:
            self._stats.fallbacks += 1
            first = not self._degraded
            self._degraded = True
            if first:
                self._stats.outages += 1
        if self._exporter is not None:
            self._exporter.fallback()
        if first:
            self.logger.warning(
                "promptcache: the monitor's state store is unavailable (%s); judging from this "
                "process's own observations until it answers again",
                why,
            )

    def _back(self) -> None:
        with self._lock:
            was = self._degraded
            self._degraded = False
        if was:
            self.logger.warning("promptcache: the monitor's state store answers again")

    def _withdraw(self, event: Invalidation) -> None:
        """
        A follow-up taking back an earlier `below_minimum`, to the outlets that had the claim: the
        logger, the callback, the span, Prometheus (a counter of its own: counters only grow, so
        the claim stays counted where it was, and a dashboard subtracts). Counted in `stats()` as
        `below_minimum_contradicted`, not as an event: it is no miss.
        """
        with self._lock:
            self._contradicted_below_minimum += 1
        self._deliver(event)

    def _unjudged(self, vendor: str, usage: CacheUsage) -> None:
        """A response that did not report caching is not judged: counted always, said once."""
        with self._lock:
            self._stats.unjudged += 1
            first = vendor not in self._unreported
            self._unreported.add(vendor)
        if first:
            self.logger.warning(
                "promptcache: %s responses do not report caching (%s), so their calls are not "
                "judged; `stats()['unjudged']` counts them",
                vendor,
                "; ".join(usage.problems) or "cache reads unknown, not 0",
            )

    def _dropped(self) -> None:
        with self._lock:
            self._stats.dropped += 1
            first = self._stats.dropped == 1
        if self._exporter is not None:
            self._exporter.dropped()
        if first:
            self.logger.warning(
                "promptcache: the monitor's background queue is full (queue_size=%d): an "
                "observation was not judged; `stats()['dropped']` counts them",
                self._worker_size(),
            )

    def _worker_size(self) -> int:
        return self._worker.size if self._worker is not None else 0

    def now(self) -> float:
        """The monitor's clock (epoch seconds): what `at` and `sent_at` default to."""
        return self._clock()

    def key_of(self, request: Mapping[str, Any]) -> str:
        """The default cache key of a request."""
        plain = plain_request(request, "request")
        return self._key(plain, self._vendor_of(plain, None))

    def _key(
        self, request: Mapping[str, Any], vendor: Vendor, usage: CacheUsage | None = None
    ) -> str:
        explicit = request.get("prompt_cache_key")
        if isinstance(explicit, str) and explicit:
            return explicit
        metadata = request.get("metadata")
        if isinstance(metadata, Mapping) and isinstance(metadata.get("user_id"), str):
            return str(metadata["user_id"])
        # Gemini names the model in the call (or the URL), not the body: the response's model
        # version names it then
        model = model_of_request(request) if usage is None else model_of(request, usage)
        return self._default_key(vendor, model)

    def _default_key(self, vendor: Vendor, model: Any) -> str:
        named = model if isinstance(model, str) and model else "unknown-model"
        # The request's own format, not the vendor the monitor was named for: two formats of one
        # model (Bedrock's Converse and InvokeModel through one client) serialise the prompt
        # differently, so one never reads the other's entries; under one key each call of the
        # other format read as a model change.
        return f"{vendor.name}:{named}"

    def _format_named(self, request: Mapping[str, Any], vendor: str | Vendor) -> Vendor:
        """The format `observe(vendor=...)` names, checked against the request; of the monitor's
        own vendor's family, the monitor's own record (`with_deployments`' names kept)."""
        wanted = get_vendor(vendor)
        if self._named is not None and self._named.family == wanted.family:
            return self._vendor_of(request, None)
        return self._with_models(resolve_vendor(request, wanted))

    def _with_models(self, vendor: Vendor) -> Vendor:
        """`vendor` reading the ids of `base_models` as the models they serve (one record each)."""
        if not self._base_models:
            return vendor
        known = self._mapped.get(id(vendor))
        if known is not None and known[0] is vendor:
            return known[1]
        # setdefault: two threads racing here still get one record (the shape cache compares
        # records by identity); a mapped record maps to itself
        known = self._mapped.setdefault(
            id(vendor), (vendor, named_models(vendor, self._base_models))
        )
        self._mapped.setdefault(id(known[1]), (known[1], known[1]))
        return known[1]

    def _vendor_of(self, request: Mapping[str, Any], response: Any) -> Vendor:
        """The request's format: the named vendor's (checked against its shape) or detected."""
        # Requests of one application come in a handful of shapes: read each shape once (the
        # top-level fields and the model decide it), not every request's messages again.
        model = model_of_request(request)
        shape = (frozenset(request), model if isinstance(model, str) else None)
        known = self._shapes.get(shape)
        if known is not None and (self._named is not None or self._still(known, shape, request)):
            return known
        if self._named is not None:
            found = self._with_models(resolve_vendor(request, self._named))
        else:
            # The request alone decides, as for inspect, diff and report: a response that broke
            # a tie here would give one body two formats depending on who reads it.
            found = self._with_models(detect_vendor(request))
            if known is not None and known is not found:  # one shape, two formats
                self._ambiguous.add(shape)
        if len(self._shapes) >= _SHAPES:
            self._shapes.clear()
            self._ambiguous.clear()
        self._shapes[shape] = found
        return found

    def _still(
        self, known: Vendor, shape: tuple[frozenset[str], str | None], request: Mapping[str, Any]
    ) -> bool:
        """
        Whether a detected format remembered for a request shape holds for this request. The shape
        does not always say it: a gateway may serve one model name in two formats with the same
        top-level keys. A shape seen in two formats is detected request by request from then on;
        otherwise the format is kept while the request fits it. (A named vendor's formats differ
        in top-level keys, so its shapes need no check.)
        """
        return shape not in self._ambiguous and known.misfit(request) is None

    # -- introspection --------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """
        Observations, events, and events and tokens lost by cause; with a store, the observations
        judged in-process because it failed and the outages; in the background, those dropped;
        `unjudged`, when any: those whose response did not report caching (nothing to judge by);
        `below_minimum_contradicted`, when any: the keys whose `below_minimum` a later read took
        back (a `below_minimum_withdrawn` follow-up; `events` and `by_cause` count what was
        emitted, the claim included, and no follow-up).
        """
        with self._lock:
            stats: dict[str, Any] = {
                "observations": self._stats.observations,
                "events": self._stats.events,
                "by_cause": dict(self._stats.by_cause),
                "tokens_lost": dict(self._stats.tokens_lost),
            }
            if self.store is not None:
                stats["store_fallbacks"] = self._stats.fallbacks
                stats["store_outages"] = self._stats.outages
            if self._worker is not None:
                stats["dropped"] = self._stats.dropped
            if self._stats.unjudged:
                stats["unjudged"] = self._stats.unjudged
            if self._contradicted_below_minimum:
                stats["below_minimum_contradicted"] = self._contradicted_below_minimum
            return stats

    def memory(self) -> dict[str, int]:
        """Keys held, bytes of full bodies held (never above `body_budget`), bodies held."""
        with self._lock:
            return self._keys.memory()

    def forget(self, key: str) -> None:
        """Drop what is known about `key` (the session ended), in the store too."""
        with self._lock:
            self._keys.forget(key)
        if self.store is not None:
            try:
                self.store.forget(key)
            except StoreUnavailable as error:
                self._fell_back(str(error))

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
        self,
        request: Mapping[str, Any],
        vendor: Vendor,
        usage: CacheUsage,
        at: float,
        *,
        serialised: bytes | None = None,
    ) -> Entry:
        """
        The new entry: a shallow snapshot (or the request's JSON, `serialised`, and its settings)
        and numbers, so observing costs almost nothing.
        """
        body: dict[str, Any] | Serialised = (
            snapshot(request) if serialised is None else Serialised(serialised)
        )
        return Entry(
            at=at,
            vendor=vendor,
            read=usage.cache_read or 0,
            write=usage.cache_write or 0,
            total=usage.total_input,
            model=model_of(request, usage),
            body=body,
            params={} if serialised is None else params(request),
            records=None,
            size=_BYTES_PER_TOKEN * max(usage.total_input, 1),
            written=usage.cache_write_by_ttl,
            measured=usage.prefix_measure if usage.passes > 1 else None,
            unmeasured=usage.caching_reported and usage.prefix_measure is None,
        )

    def _swap(self, key: str, entry: Entry, *, default: bool) -> Entry | None:
        """Store `entry` as the key's latest; return the one it replaces. Enforces the budgets."""
        with self._lock:
            self._stats.observations += 1
            return self._keys.swap(key, entry, default=default, shrink=self._shrink)

    def _shrink(self, entry: Entry) -> None:
        """
        What stays of an entry whose body is dropped for the budget: the records where judging or
        the store computed them already, else the body's fingerprint (one pass in C per
        container), else, for a body the fingerprint cannot take, the records.
        """
        if entry.records is not None or entry.fingerprint is not None:
            return  # the fingerprint: made when observed (`KeyState.dropping`)
        body = entry.request
        if body is not None:
            entry.fingerprint = fingerprint(entry.vendor, body, self.counter)
        if entry.fingerprint is None:
            self._records(entry)

    def _emit(self, event: Invalidation) -> None:
        with self._lock:
            self._stats.events += 1
            self._stats.by_cause[event.cause] += 1
            self._stats.tokens_lost[event.cause] += event.tokens_lost
        self._deliver(event)

    def _deliver(self, event: Invalidation) -> None:
        self.logger.warning("%s", event.message())
        if self._exporter is not None:
            if event.withdrawal:
                self._exporter.withdrawal(event)
            else:
                self._exporter.invalidation(event)
        if self.on_invalidation is not None:
            try:
                self.on_invalidation(event)
            except Exception:  # a broken callback must not break the caller's LLM request
                self.logger.exception("promptcache: the on_invalidation callback raised")


# -- ordering -------------------------------------------------------------------------------


def _order(previous: Entry | None, entry: Entry, same_time: int) -> str | None:
    """Why `previous`'s place before `entry` is uncertain, or None."""
    if same_time:
        return (
            f"{same_time} other request(s) of this key were sent at the same moment "
            f"({entry.sent_at:.3f})"
        )
    if previous is not None and previous.at > entry.sent_at:
        return (
            f"the previous request of this key (sent at {previous.sent_at:.3f}) had not finished "
            f"when this one was sent ({entry.sent_at:.3f}; it finished at {previous.at:.3f})"
        )
    return None


def _order_in_process(previous: Entry | None, entry: Entry) -> str | None:
    """
    In-process, only a key's latest state is kept: a request that finishes after a later one of
    its key finds that later one, not the state before it.
    """
    if previous is not None and previous.sent_at > entry.sent_at:
        return (
            f"a later request of this key (sent at {previous.sent_at:.3f}) was observed before "
            f"this one (sent at {entry.sent_at:.3f}), and the state before this one is gone"
        )
    # Two requests observed at the same moment in one process are taken in the order observed.
    return _order(previous, entry, 0)


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
