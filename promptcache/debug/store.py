"""
Where the monitor keeps a cache key's state when many processes share it: the store interface,
the serialised form of one key's state, and the circuit breaker every remote store uses.

What is serialised is what judging needs and nothing more: the element hash chain (layer, path,
hash, tokens, the breakpoint's TTL and whether it was marked), the settings outside the render
order (model, parameters: never a message, system text or tool), the usage numbers, the times
and the model. The request body itself travels only when the caller opted in (`keep_bodies`), and
only under the store's byte bound.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from ..vendors import TTL_SECONDS, Vendor, get_vendor
from ..vendors._elements import get_path, setting
from .memory import Entry, Record, params
from .settings import HASHED_SETTINGS, setting_digest

__all__ = [
    "STATE_FORMAT",
    "CircuitBreaker",
    "Exchange",
    "StateStore",
    "StoreUnavailable",
    "decode_entry",
    "encode_entry",
]


class StoreUnavailable(Exception):
    """The store could not answer in time (down, slow, or its circuit is open)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Exchange:
    """
    What the store held for a key when an entry was put in: `previous`, the latest state sent
    before the entry (None when there is none); `same_time`, states sent at the very same moment
    (which one came first cannot be told); `said`, the once-per-key causes already reported.
    """

    previous: Entry | None
    same_time: int
    said: frozenset[str]


class StateStore(Protocol):
    """
    A store of per-key monitor state shared by many processes. Every call either answers or
    raises `StoreUnavailable` within the store's timeout; none ever blocks longer.
    """

    @property
    def available(self) -> bool:
        """False while the circuit is open: callers judge in-process without asking."""
        ...

    def exchange(self, key: str, entry: Entry, *, ttl_seconds: float) -> Exchange:
        """Put `entry` in as one of `key`'s states, atomically, and say what was there."""
        ...

    def amend(self, key: str, entry: Entry, *, ttl_seconds: float) -> None:
        """Replace the stored copy of `entry` (judging changed its counters)."""
        ...

    def first_time(self, key: str, cause: str, *, ttl_seconds: float) -> bool:
        """Whether a once-per-key cause is new for `key` across the fleet; it is said from now."""
        ...

    def forget(self, key: str) -> None: ...

    def close(self) -> None: ...


# -- serialisation --------------------------------------------------------------------------

# The version of the serialised state, part of every stored key's name. v2: element hashes are
# xxh3-64 (fingerprint.py); v1 (keys without a version) hashed with BLAKE2b, so its states cannot
# be compared with these and are never read.
STATE_FORMAT = "v3"  # v3: settings kept as hashes (`stored_settings`)


def encode_entry(entry: Entry, records: tuple[Record, ...], *, body_limit: int | None) -> bytes:
    """
    One state as JSON bytes. `body_limit` None keeps no body (the default: prompts are personal
    data); otherwise the body is kept when its JSON is at most that many bytes.
    """
    settings = params(entry.body) if isinstance(entry.body, dict) else entry.params
    if HASHED_SETTINGS not in settings:
        settings = stored_settings(settings, entry.vendor)
    state: dict[str, Any] = {
        "at": entry.at,
        "sent": entry.sent_at,
        "vendor": entry.vendor.name,
        "read": entry.read,
        "write": entry.write,
        "total": entry.total,
        "model": entry.model,
        "params": settings,
        "records": [[r.layer, r.path, r.digest, r.tokens, r.ttl, r.marked] for r in records],
        "size": entry.size,
        "written": dict(entry.written),
        "dry": entry.dry,
        "prefix": entry.prefix,
    }
    # What a server-tool loop's usage measured of the prefix (Entry.measured/unmeasured), only
    # when it is not read + write: a process of the same format without them reads read + write.
    if entry.measured is not None:
        state["measured"] = entry.measured
    if entry.unmeasured:
        state["unmeasured"] = True
    if body_limit is not None and entry.body is not None:
        kept = entry.body
        body = _body_json(kept, body_limit) if isinstance(kept, dict) else kept.data
        if body is not None and len(body) > body_limit:
            body = None
        if body is not None:
            state["body"] = orjson.Fragment(body)
    return orjson.dumps(state)


def stored_settings(settings: Mapping[str, Any], vendor: Vendor) -> dict[str, Any]:
    """
    What judging needs of a request's settings, and nothing that may be personal data: the
    model; the TTL a request-wide setting names; whether the explicit-mode switch and the
    top-level marker are set; and, for each setting whose change drops cache
    (`CacheRules.invalidating`), where it was and the hash of its value (`setting_digest`), so a
    change is found without keeping the value. `metadata.user_id`, `user`, `safety_identifier`,
    stop sequences, schema descriptions, labels and template arguments are not kept.
    """
    rules = vendor.rules
    kept: dict[str, Any] = {"model": settings.get("model")}
    for dotted in rules.ttl_settings:
        value = get_path(settings, dotted)
        if isinstance(value, str) and value in TTL_SECONDS:
            _set_path(kept, dotted, value)
    if rules.explicit_switch is not None:
        path, on = rules.explicit_switch
        if get_path(settings, path) == on:
            _set_path(kept, path, on)
    top = rules.top_level_marker
    if top is not None and settings.get(top) is not None:
        kept[top] = {"type": "ephemeral"}  # its presence is what judging reads
    hashed = {}
    for rule in rules.invalidating:
        where, value = setting(settings, rule.path)
        hashed[rule.path] = [where, setting_digest(value)]
    kept[HASHED_SETTINGS] = hashed
    return kept


def _set_path(target: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for name in parents:
        target = target.setdefault(name, {})
    target[last] = value


def _body_json(body: Mapping[str, Any], limit: int) -> bytes | None:
    try:
        data = orjson.dumps(body)
    except TypeError:  # a value JSON cannot carry: keep the hashes only
        return None
    return data if len(data) <= limit else None


def decode_entry(data: bytes | str) -> Entry:
    """A state written by `encode_entry` (by any process of any version that shares the format)."""
    state = orjson.loads(data)
    records = tuple(
        Record(layer, path, digest, tokens, ttl, marked)
        for layer, path, digest, tokens, ttl, marked in state["records"]
    )
    body = state.get("body")
    return Entry(
        at=state["at"],
        sent=state["sent"],
        vendor=get_vendor(state["vendor"]),
        read=state["read"],
        write=state["write"],
        total=state["total"],
        model=state["model"],
        body=body,
        params=state["params"],
        records=records,
        size=state["size"],
        written=state["written"],
        dry=state["dry"],
        prefix=state["prefix"],
        measured=state.get("measured"),
        unmeasured=state.get("unmeasured", False),
    )


# -- the circuit breaker --------------------------------------------------------------------


class CircuitBreaker:
    """
    Opens after `threshold` failures in a row; while open nothing is sent (so an outage costs no
    timeout per observation); after `cooldown` seconds one call is let through, and its success
    closes the circuit again. `opened` counts outages; `recovered` says a success closed one.
    """

    def __init__(
        self, *, threshold: int, cooldown: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.threshold = threshold
        self.cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._open_until: float | None = None
        self.opened = 0

    @property
    def closed(self) -> bool:
        with self._lock:
            return self._open_until is None

    def allows(self) -> bool:
        """Whether a call may be made now (closed, or open and its cooldown is over)."""
        with self._lock:
            return self._open_until is None or self._clock() >= self._open_until

    def success(self) -> bool:
        """Record a success; True when it closed an open circuit."""
        with self._lock:
            self._failures = 0
            was_open = self._open_until is not None
            self._open_until = None
            return was_open

    def failure(self) -> bool:
        """Record a failure; True when it opened the circuit (or kept a tried one open)."""
        with self._lock:
            self._failures += 1
            if self._open_until is not None:
                self._open_until = self._clock() + self.cooldown  # the trial failed: wait again
                return False
            if self._failures < self.threshold:
                return False
            self._open_until = self._clock() + self.cooldown
            self.opened += 1
            return True
