"""
What the monitor keeps per cache key: the previous request (its body while the byte budget
allows, then hashes only), the usage it got, and the counters. Plain data and the helpers that
build it; the judging reads it.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from .._usage import CacheUsage
from ..vendors import TTL_SECONDS, Vendor
from ..vendors._elements import (
    MARKERS,
    Element,
    get_path,
    model_of_request,
    plain,
    same_place,
    strip_markers,
)

if TYPE_CHECKING:
    from .fingerprint import Fingerprint

__all__ = [
    "COUNT_BYTES",
    "ELEMENT_BYTES",
    "ENTRY_BYTES",
    "FINGERPRINT_BYTES",
    "RECORD_BYTES",
    "Entry",
    "KeyState",
    "Record",
    "Serialised",
    "Stats",
    "carries_marker",
    "common_start",
    "entry_ttls",
    "marker_sign",
    "model_of",
    "params",
    "snapshot",
    "without_markers",
    "written",
]

_LAYER_KEYS = frozenset({"tools", "system", "messages", "input", "instructions", "contents"})
_CONFIG_LAYER_KEYS = frozenset({"system_instruction", "systemInstruction", "tools"})


@dataclass(frozen=True, slots=True)
class Record:
    """One element as hashes: what stays of a body once it is dropped for the byte budget."""

    layer: str
    path: str
    digest: int
    tokens: int
    ttl: str | None
    marked: bool


@dataclass(frozen=True, slots=True, init=False)
class Serialised:
    """
    A request body kept as its JSON: what the monitor holds for a request it was handed as parsed
    JSON that nothing else keeps (`promptcache report` reading a log). Holding bytes instead of
    the parsed tree costs nothing to let go of; it is read back only when judging needs the body
    (a miss to explain, or its hashes when it is dropped for the budget). The JSON is held as
    `head` + `tail`: the start it shares with other bodies (every session's tools and system
    prompt, most of a body) held once for all of them (`_SharedHeads`), and its own rest.
    """

    head: bytes
    tail: bytes

    def __init__(self, data: bytes) -> None:
        head = _HEADS.head_of(data)
        object.__setattr__(self, "head", head)
        object.__setattr__(self, "tail", data[len(head) :] if head else data)

    @property
    def data(self) -> bytes:
        """The whole JSON (a copy, joined: only where it is read back)."""
        return self.head + self.tail if self.head else self.tail

    def holds(self, data: bytes) -> bool:
        """Whether this is the JSON `data` (compared in place, without joining)."""
        head, tail = self.head, self.tail
        return len(data) == len(head) + len(tail) and data.startswith(head) and data.endswith(tail)

    def load(self) -> dict[str, Any]:
        value: dict[str, Any] = orjson.loads(self.data)
        return value


# Heads kept, and the shortest worth keeping (a shorter shared start saves less than it costs).
_HEADS_KEPT = 8
_HEAD_MIN = 1024
# Bodies that match no head between two tries at learning one from them: a try compares two
# bodies (a binary search of memcmps), and a log whose bodies share no start must not pay it on
# every record.
_LEARN_EVERY = 32


class _SharedHeads:
    """
    The starts that the bodies a process keeps share (a report's log: thousands of sessions of
    one application, each sending the same tools and system prompt before its own turns), each
    held once. Learned from the bodies themselves: now and then a body that matches no head is
    compared with the last one sampled, and their common start, when long enough, becomes a head.
    Bounded (`_HEADS_KEPT`); a head stays in memory while a body holds it. A plain list read and
    written without a lock, as `fingerprint._SHAPES`: a race costs a duplicate head at worst,
    and a head is only ever a prefix that a body is checked against, so no body is misread.
    """

    __slots__ = ("_heads", "_last", "_misses")

    def __init__(self) -> None:
        self._heads: list[bytes] = []
        self._misses = 0
        self._last = b""

    def head_of(self, data: bytes) -> bytes:
        """A head `data` starts with (the most recently matched first), or b"" for none."""
        heads = self._heads
        for i, head in enumerate(heads):
            if data.startswith(head):
                if i:  # the head most bodies match is tried first
                    heads.insert(0, heads.pop(i))
                return head
        self._misses += 1
        if self._misses % _LEARN_EVERY == 1:
            self._learn(data)
        return b""

    def _learn(self, data: bytes) -> None:
        size = _common_start(data, self._last)
        self._last = data
        if size >= _HEAD_MIN:
            self._heads.insert(0, data[:size])
            del self._heads[_HEADS_KEPT:]


def _common_start(a: bytes, b: bytes) -> int:
    """The length of the longest common start of `a` and `b` (memcmps on views: no copies)."""
    low, high = 0, min(len(a), len(b))
    view = memoryview(a)
    while low < high:
        middle = (low + high + 1) // 2
        if b.startswith(view[:middle]):
            low = middle
        else:
            high = middle - 1
    return low


_HEADS = _SharedHeads()


@dataclass(slots=True, kw_only=True)
class Entry:
    """
    What one key's previous request left behind. The body is the request's own elements, held by
    reference in copied containers (nothing is serialised on the hot path); `records` (hashes,
    sizes) are computed from it when judging needs them. When the body is dropped for the budget
    what stays is its `fingerprint` (compact hashes, fingerprint.py), or the records where they
    were computed already.
    `written` is the write's split by TTL as the server reported it. `dry` counts the turns in a
    row, this one included, whose marked prefix (`prefix` tokens) was over the minimum and yet
    neither read nor written; both stay 0 on any other turn. `sent` is when the request was
    sent, where the caller said (the order of a key's requests across processes goes by it).
    `partial`: the request was rebuilt from telemetry, without markers, cache key or settings.
    `measured` is the cached prefix the usage measured when it is not `read + write` (a usage
    summing a server-side tool loop's passes: its last pass), and `unmeasured` says the usage
    measured none (its numbers contradict, or it sums passes it does not itemise): what the next
    request may read then comes from this request's own prefix.
    A body kept `Serialised` has its `params` filled from the start (settings never parse it).
    """

    at: float
    vendor: Vendor
    read: int
    write: int
    total: int
    model: str | None
    body: dict[str, Any] | Serialised | None
    params: dict[str, Any]
    records: tuple[Record, ...] | None
    size: int
    written: Mapping[str, int]
    fingerprint: Fingerprint | None = None
    dry: int = 0
    prefix: int = 0
    sent: float | None = None
    partial: bool = False
    measured: int | None = None
    unmeasured: bool = False

    @property
    def sent_at(self) -> float:
        """When the request was sent (`observe(sent_at=)`), else when it was observed."""
        return self.at if self.sent is None else self.sent

    @property
    def has_body(self) -> bool:
        return self.body is not None

    @property
    def request(self) -> dict[str, Any] | None:
        """The kept body as a dict (read back from its JSON when kept serialised), else None."""
        body = self.body
        return body.load() if isinstance(body, Serialised) else body

    @property
    def settings(self) -> Mapping[str, Any]:
        """Model and parameters: from the body while it is kept in hand, else from `params`."""
        return self.body if isinstance(self.body, dict) else self.params


@dataclass(slots=True)
class Stats:
    observations: int = 0
    events: int = 0
    by_cause: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    tokens_lost: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    fallbacks: int = 0  # observations judged in-process because the store failed
    outages: int = 0  # times the store went from answering to failing
    dropped: int = 0  # observations the background queue had no room for
    unjudged: int = 0  # observations whose response did not report caching


# What CPython holds per key beyond the body (the Entry, its params, the dict slots), per element
# record (`Record`, kept where judging or the store computed records), and per dropped body's
# fingerprint: the object itself, and per element two machine integers in arrays. Measured with
# tracemalloc (CPython 3.11, 2,000 keys of 16- and 56-element Anthropic requests): records about
# 640 B per key and 182 B per record; fingerprints 910 B per key, entry included, and 19.6 B per
# element (bench/bench_monitor.py --memory). Of a body with text that is not ASCII it keeps the
# token count of each such element besides: two more machine integers (`COUNT_BYTES`).
ENTRY_BYTES = 700
# `KeyState.dropping`: at least 15 in 16 of the recent swaps dropped a body (out of 2**16).
_SHEDDING = 15 << 12
RECORD_BYTES = 200
FINGERPRINT_BYTES = 220
ELEMENT_BYTES = 20
COUNT_BYTES = 16


class KeyState:
    """
    All the monitor keeps per cache key, in one place: the latest entry of each key (least
    recently observed first), which of them still hold their body (same order), the byte count of
    those bodies, the default keys among them, and the once-per-key causes already reported.

    Every operation is O(1) in the number of keys: the over-budget path drops bodies from the
    front of `bodies`, which holds only entries that still have one, so it never walks past the
    entries whose body is already gone. Callers hold the monitor's lock around every call.
    """

    __slots__ = (
        "bodies",
        "body_budget",
        "body_bytes",
        "claims",
        "counts",
        "defaults",
        "elements",
        "entries",
        "fingerprints",
        "hashes",
        "max_keys",
        "shedding",
        "warned",
    )

    def __init__(self, *, body_budget: int, max_keys: int) -> None:
        self.body_budget = body_budget
        self.max_keys = max_keys
        self.entries: OrderedDict[str, Entry] = OrderedDict()
        self.bodies: OrderedDict[str, None] = OrderedDict()
        self.defaults: OrderedDict[str, None] = OrderedDict()
        self.warned: dict[str, set[str]] = {}
        # key -> the prefix (tokens) its `below_minimum` said the vendor caches nothing of
        self.claims: dict[str, int] = {}
        self.body_bytes = 0
        self.hashes = 0  # element records held by entries whose body is gone
        self.elements = 0  # elements of the fingerprints of entries whose body is gone
        self.fingerprints = 0
        self.counts = 0  # token counts those fingerprints keep (elements not ASCII)
        self.shedding = 0  # how many recent swaps dropped a body, decaying, out of 2**16

    def __len__(self) -> int:
        return len(self.entries)

    def swap(
        self, key: str, entry: Entry, *, default: bool, shrink: Callable[[Entry], object]
    ) -> Entry | None:
        """
        Store `entry` as `key`'s latest and return the one it replaces. Then enforce the key limit
        and the body budget, least recently observed first; `shrink` turns an entry's body into
        its hashes and settings before the body goes.
        """
        previous = self._pop(key)
        self.entries[key] = entry
        if entry.body is not None:
            self.bodies[key] = None
            self.body_bytes += entry.size
        if default:
            self.defaults[key] = None
        while len(self.entries) > self.max_keys:
            oldest = next(iter(self.entries))
            self._pop(oldest)
            self.warned.pop(oldest, None)
            self.claims.pop(oldest, None)
        shed = self.body_bytes > self.body_budget and entry.body is not None
        while self.body_bytes > self.body_budget and self.bodies:
            held, _ = self.bodies.popitem(last=False)
            self._drop_body(self.entries[held], shrink)
        # a moving average (weight 1/16) of whether each swap dropped a body, 1 being 2**16
        self.shedding += ((shed << 16) - self.shedding) >> 4
        return previous

    def restore(
        self,
        key: str,
        entry: Entry,
        previous: Entry | None,
        *,
        default: bool,
        shrink: Callable[[Entry], object],
    ) -> None:
        """
        Undo `swap(key, entry)`: `previous` is the key's latest again (none: the key is gone).
        Only while `entry` is still the latest: a later observation of the key stands.
        """
        if self.entries.get(key) is not entry:
            return
        self._pop(key)
        if previous is not None:
            self.swap(key, previous, default=default, shrink=shrink)

    def _pop(self, key: str) -> Entry | None:
        entry = self.entries.pop(key, None)
        if entry is None:
            return None
        if key in self.bodies:
            del self.bodies[key]
            self.body_bytes -= entry.size
        else:
            self._count_hashes(entry, -1)
        self.defaults.pop(key, None)
        return entry

    def _drop_body(self, entry: Entry, shrink: Callable[[Entry], object]) -> None:
        shrink(entry)  # keep the hashes (records or a fingerprint) and the settings
        if isinstance(entry.body, dict):
            entry.params = params(entry.body)
        entry.body = None
        self.body_bytes -= entry.size
        self._count_hashes(entry, 1)

    def _count_hashes(self, entry: Entry, sign: int) -> None:
        """
        Count in (`sign` 1) or out (-1) what a body-less entry keeps of its elements. The
        fingerprint decides, not the records: judging, outside the lock, may set the records of
        an entry whose body `_drop_body` drops meanwhile (`shrink` saw none and made the
        fingerprint), and `_pop` must take back what was counted. A fingerprint is set once,
        by `shrink` or while the body is still held (`dropping`), before it is counted in.
        """
        kept = entry.fingerprint
        if kept is not None:
            self.elements += sign * len(kept)
            self.counts += sign * len(kept.tokens)
            self.fingerprints += sign
        elif entry.records is not None:
            self.hashes += sign * len(entry.records)

    @property
    def dropping(self) -> bool:
        """
        Whether nearly every observation drops a body for the budget (more keys in flight than
        it holds): then a body observed now will most likely go too before its key comes back,
        so a caller holding its parsed tree may fingerprint it now rather than have the drop
        parse its JSON again (`promptcache report`). Not on the odd drop: a body its key's next
        request replaces, fingerprinted for nothing, costs more than the parse saved.
        """
        return self.shedding >= _SHEDDING

    def forget(self, key: str) -> None:
        self._pop(key)
        self.warned.pop(key, None)
        self.claims.pop(key, None)

    def latest_defaults(self) -> Iterator[tuple[str, Entry]]:
        """The entries under default keys (vendor and model), latest first."""
        for key in reversed(self.defaults):
            yield key, self.entries[key]

    def said(self, key: str, cause: str) -> bool:
        return cause in self.warned.get(key, ())

    def first_time(self, key: str, cause: str) -> bool:
        said = self.warned.setdefault(key, set())
        if cause in said:
            return False
        said.add(cause)
        return True

    def memory(self) -> dict[str, int]:
        """
        Keys, bodies and hashes held, and `estimated_bytes`: the bodies (at most `body_budget`)
        plus `ENTRY_BYTES` per key, `RECORD_BYTES` per element record, and per dropped body's
        fingerprint `FINGERPRINT_BYTES`, `ELEMENT_BYTES` per element and `COUNT_BYTES` per token
        count it keeps. `hashes` counts the element hashes of both kinds. O(1): no walk over keys.
        """
        return {
            "keys": len(self.entries),
            "bodies": len(self.bodies),
            "body_bytes": self.body_bytes,
            "body_budget": self.body_budget,
            "hashes": self.hashes + self.elements,
            "estimated_bytes": self.body_bytes
            + ENTRY_BYTES * len(self.entries)
            + RECORD_BYTES * self.hashes
            + FINGERPRINT_BYTES * self.fingerprints
            + ELEMENT_BYTES * self.elements
            + COUNT_BYTES * self.counts,
        }


def model_of(request: Mapping[str, Any], usage: CacheUsage) -> str | None:
    model = model_of_request(request)
    return model if isinstance(model, str) else usage.model


def entry_ttls(entry: Entry, records: Sequence[Record]) -> list[str]:
    """The TTLs the entry's markers and request settings asked for (`CacheRules.ttl_settings`)."""
    ttls = [r.ttl for r in records if r.marked and r.ttl]
    rules = entry.vendor.rules
    for dotted in rules.ttl_settings:
        value = get_path(entry.settings, dotted)
        if isinstance(value, str):
            ttls.append(value)
    default = rules.capabilities.default_ttl
    if not ttls and default is not None and any(r.marked for r in records):
        ttls.append(default)
    return [ttl for ttl in ttls if ttl in TTL_SECONDS]


def written(entry: Entry) -> list[str]:
    """The TTLs the server says the entry's write went to."""
    return [ttl for ttl, tokens in entry.written.items() if tokens and ttl in TTL_SECONDS]


def snapshot(request: Mapping[str, Any]) -> dict[str, Any]:
    """
    A copy of the request one level down (two inside a Gemini `config`): later appends to, or
    replacements in, the caller's lists do not reach it. The elements themselves are shared, not
    copied; a message dict edited in place after it was sent is seen edited (README, "Monitor").
    """
    copy = {k: list(v) if type(v) is list else v for k, v in request.items()}
    config = copy.get("config")
    if type(config) is dict:
        copy["config"] = {k: list(v) if type(v) is list else v for k, v in config.items()}
    return copy


def params(request: Mapping[str, Any]) -> dict[str, Any]:
    """The request minus its elements: model, settings, top-level markers (small)."""
    kept = {k: v for k, v in request.items() if k not in _LAYER_KEYS}
    config = kept.get("config")
    if config is None:  # most requests (and the ABC check below costs more than the rest)
        return kept
    config = plain(config)
    if isinstance(config, Mapping):
        kept["config"] = {k: v for k, v in config.items() if k not in _CONFIG_LAYER_KEYS}
    return kept


def without_markers(element: Element) -> tuple[Any, str | None, bool]:
    """The element with cache markers removed, the first marker's TTL, and whether it had one."""
    value, key = element.value, element.content_key
    if key is not None and isinstance(value, Mapping) and isinstance(value.get(key), list):
        blocks = value[key]
        if not carries_marker(value, key):
            return value, None, False
        stripped = [strip_markers(b) for b in blocks]
        ttl = next((t for _, t, marked in stripped if marked and t), None)
        return {**value, key: [b for b, _, _ in stripped]}, ttl, True
    return strip_markers(value)


_MARKER_KEYS = frozenset(MARKERS)


def carries_marker(value: Any, key: str | None) -> bool:
    """
    Whether `without_markers` finds a cache marker in an element's `value`: in its content
    blocks when its content (`key`) is a list, else in its own keys.
    """
    if not isinstance(value, Mapping):
        return False
    content = value.get(key) if key is not None else None
    if isinstance(content, list):
        return any(
            isinstance(b, Mapping) and not _MARKER_KEYS.isdisjoint(b.keys()) for b in content
        )
    return not _MARKER_KEYS.isdisjoint(value.keys())


def marker_sign(element: Element) -> tuple[tuple[int, str, str], ...]:
    """
    Where the element's cache markers sit and what they say (block index, marker, value): the
    part of an element callers move or edit in place between requests.
    """
    value, key = element.value, element.content_key
    if not isinstance(value, Mapping):
        return ()
    blocks = value.get(key) if key is not None else None
    inner = blocks if isinstance(blocks, list) else ()
    return tuple(
        (index, marker, repr(block[marker]))
        for index, block in enumerate((value, *inner))
        if isinstance(block, Mapping)
        for marker in _MARKER_KEYS & block.keys()
    )


def common_start(old: Sequence[Record], new: Sequence[Record]) -> int:
    """How many leading elements are the same in both (by hash and path)."""
    return next(
        (
            i
            for i, (a, b) in enumerate(zip(old, new, strict=False))
            if a.digest != b.digest or not same_place(a.path, b.path)
        ),
        min(len(old), len(new)),
    )
