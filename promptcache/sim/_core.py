"""
What the emulators share: the clock, their own token ruler, their own hash chain, and a store of
cache entries with expiry.

None of this uses the code the emulators check (the renderer, the planner, the diff, the
monitor): an emulator reads a request the way the vendor's server does, from the JSON the SDK
sends, and matches prefixes with the few lines below.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import orjson

from .._errors import InputError

__all__ = [
    "BYTES_PER_TOKEN",
    "EMULATION",
    "Clock",
    "Entry",
    "ManualClock",
    "Outcome",
    "Segment",
    "Store",
    "chain",
    "tokens_of",
]

# Every answer carries this label, so an emulated number is never mistaken for a vendor's.
EMULATION = "promptcache emulation: no model ran, the cache usage is emulated"

# The emulators' own ruler: one token per 4 bytes of their rendering of a request. Real
# tokenizers differ by vendor; the emulators need one that is the same on every run.
BYTES_PER_TOKEN = 4

Clock = Callable[[], float]


class ManualClock:
    """
    A clock the caller moves: `clock.advance(301)` makes a 5-minute entry expire.

    It starts at `start` (epoch seconds), by default at the beginning of the current UTC hour:
    logs and reports made on it carry today's dates, and hour buckets start on the hour.
    """

    def __init__(self, start: float | None = None) -> None:
        self.now = float(time.time() // 3600 * 3600 if start is None else start)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise InputError(f"a clock only moves forward; got advance({seconds}), use >= 0")
        self.now += seconds

    def __repr__(self) -> str:
        return f"ManualClock(now={self.now})"


def system_clock() -> float:
    return time.time()


def tokens_of(data: bytes) -> int:
    """Tokens of `data` by the emulators' ruler (rounded up: any byte costs something)."""
    return -(-len(data) // BYTES_PER_TOKEN)


def canonical(value: object) -> bytes:
    """The bytes a server would compare: JSON with sorted keys, as the SDK sent it otherwise."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


@dataclass(frozen=True, slots=True, kw_only=True)
class Segment:
    """
    One content block as the server sees it: its bytes (markers left out: a marker does not
    change the content), its tokens, and the marker it carries (a TTL string, "" for the vendor's
    default) or None.
    """

    data: bytes
    tokens: int
    marker: str | None = None
    markable: bool = True

    @classmethod
    def of(cls, value: object, *, marker: str | None = None, markable: bool = True) -> Segment:
        data = canonical(value)
        return cls(data=data, tokens=tokens_of(data), marker=marker, markable=markable)


def chain(seed: bytes, pieces: Iterable[bytes]) -> list[bytes]:
    """The hash of every prefix: link i covers the seed and pieces 0..i."""
    out = []
    link = hashlib.sha256(seed).digest()
    for piece in pieces:
        link = hashlib.sha256(link + hashlib.sha256(piece).digest()).digest()
        out.append(link)
    return out


@dataclass(slots=True)
class Entry:
    """A cached prefix: how many tokens it holds, its TTL and when it expires."""

    tokens: int
    ttl: float
    expires: float


class Store:
    """Cache entries by prefix hash; expired ones are gone when looked at."""

    def __init__(self) -> None:
        self.entries: dict[bytes, Entry] = {}

    def live(self, key: bytes, now: float) -> Entry | None:
        entry = self.entries.get(key)
        if entry is not None and entry.expires <= now:
            del self.entries[key]
            return None
        return entry

    def put(self, key: bytes, tokens: int, ttl: float, now: float) -> None:
        held = self.live(key, now)
        # A write never shortens what an earlier, longer-lived write promised.
        expires = max(now + ttl, held.expires if held else 0.0)
        self.entries[key] = Entry(
            tokens=tokens, ttl=max(ttl, held.ttl if held else 0.0), expires=expires
        )

    def refresh(self, key: bytes, now: float) -> None:
        entry = self.entries[key]
        entry.expires = max(entry.expires, now + entry.ttl)

    def copy(self) -> Store:
        other = Store()
        other.entries = {k: Entry(e.tokens, e.ttl, e.expires) for k, e in self.entries.items()}
        return other

    def __len__(self) -> int:
        return len(self.entries)


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    """What the cache did with one request, in tokens."""

    read: int
    write: int
    uncached: int
    write_by_ttl: Mapping[str, int] = field(default_factory=dict)
    read_at: int = -1  # the content block whose entry was read (-1: none)
    written_at: tuple[int, ...] = ()
