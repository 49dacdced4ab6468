"""
Cache economics: what a workload costs with and without prompt caching, before sending traffic.

A workload is a shared prefix of P tokens, a per-request tail of Q tokens, N requests and the
gaps between them. `CacheTerms` says how one cache option bills (per token, in base-input units or
money): the input, write and read rates, the TTL, whether a read refreshes it, and storage.

    terms = CacheTerms.from_multipliers(write=1.25, read=0.1)
    result = what_if(Workload(prefix_tokens=10_000, tail_tokens=200, requests=100), terms)
    result.no_cache, result.with_cache, result.savings   # 1_020_000, 131_500, 0.871...
    break_even(write=1.25, read=0.1)                     # BreakEven(threshold=1.277..., requests=2)

The first request writes the prefix (W x P), every request within the TTL reads it (R x P), a
request after the TTL writes it again; the tail is always plain input. Caching saves when
W + R(N-1) < N, i.e. N > (W - R) / (1 - R): the tail cancels out of that comparison.

Around that core: the TTL to choose from the gaps (`choose_ttl`), when keeping the cache warm
between bursts pays (`prewarm`), Gemini explicit caches against implicit caching
(`gemini_explicit_vs_implicit`), and what switching or cascading to another model costs when that
model's cache is cold (`model_switch`, `cascade`). Arithmetic is exact (decimal fractions), so the
seed examples come out to the unit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from ._errors import InputError
from ._pricing import Rates
from .vendors import TTL_SECONDS, get_vendor

__all__ = [
    "BreakEven",
    "CacheTerms",
    "Cascade",
    "GeminiChoice",
    "ModelSwitch",
    "Prewarm",
    "RepeatedGaps",
    "TtlChoice",
    "WhatIf",
    "Workload",
    "break_even",
    "cascade",
    "choose_ttl",
    "gap_counts",
    "gemini_explicit_vs_implicit",
    "model_switch",
    "prewarm",
    "replay_requests",
    "ttl_options",
    "ttl_seconds",
    "what_if",
]

_MILLION = 1_000_000
_TTL_LABEL = re.compile(r"(\d+(?:\.\d+)?)([smhd])")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def ttl_seconds(label: str) -> float | None:
    """
    Seconds a TTL label stands for: the vendors' names ("5m", "30m", "1h", "12h", "24h"),
    "in_memory" (OpenAI's default retention, at the short end of its 5-10 minutes), "implicit"
    None (Gemini states no lifetime), or any number and unit ("90s", "10m").
    """
    if label in TTL_SECONDS:
        return TTL_SECONDS[label]
    if label == "in_memory":
        return get_vendor("openai").rules.default_ttl_seconds
    if label == "implicit":
        return None
    match = _TTL_LABEL.fullmatch(label.strip())
    if match is None:
        raise InputError(
            f"cannot read TTL {label!r}; write a number and a unit, like '5m', '1h', '3600s', "
            "or one of 'in_memory', 'implicit'"
        )
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


# -- the workload and the terms ---------------------------------------------------------------


class RepeatedGaps(Sequence[float]):
    """
    `times` gaps of `gap` seconds each, without a tuple of that many floats: `--gaps 10m
    --requests 1000000000000` is one value, and the what-if prices it in closed form.
    """

    __slots__ = ("gap", "times")

    def __init__(self, gap: float, times: int) -> None:
        self.gap = gap
        self.times = times

    def __len__(self) -> int:
        return self.times

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return RepeatedGaps(self.gap, len(range(self.times)[index]))
        range(self.times)[index]  # an IndexError for an index out of range
        return self.gap

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RepeatedGaps):
            return (self.gap, self.times) == (
                other.gap,
                other.times,
            ) or self.times == other.times == 0
        return (
            isinstance(other, Sequence)
            and len(other) == self.times
            and all(g == self.gap for g in other)
        )

    def __hash__(self) -> int:
        return hash((self.gap, self.times))

    def __repr__(self) -> str:
        return f"RepeatedGaps(gap={self.gap!r}, times={self.times!r})"


def gap_counts(gaps: Sequence[float]) -> list[tuple[float, int]]:
    """Each gap value with how many times it comes (without walking a `RepeatedGaps`)."""
    if isinstance(gaps, RepeatedGaps):
        return [(gaps.gap, gaps.times)] if gaps.times else []
    return [(g, 1) for g in gaps]


@dataclass(frozen=True, slots=True, kw_only=True)
class Workload:
    """
    P prefix tokens shared by N requests, each adding Q tail tokens (and producing `output_tokens`).
    `gaps` are the seconds between consecutive requests (N - 1 of them); empty means every request
    arrives within the TTL of the one before.
    """

    prefix_tokens: int
    tail_tokens: int = 0
    requests: int = 1
    gaps: Sequence[float] = ()
    output_tokens: int = 0

    def __post_init__(self) -> None:
        for name in ("prefix_tokens", "tail_tokens", "output_tokens"):
            _non_negative_int(getattr(self, name), name)
        _non_negative_int(self.requests, "requests")
        if self.requests < 1:
            raise InputError(f"requests must be at least 1, got {self.requests}")
        if self.gaps and len(self.gaps) != self.requests - 1:
            raise InputError(
                f"{len(self.gaps)} gaps given for {self.requests} requests; give one gap between "
                f"each pair of requests ({self.requests - 1}), or none"
            )
        bad = [g for g, _ in gap_counts(self.gaps) if not math.isfinite(g) or g < 0]
        if bad:
            raise InputError(f"gaps must be non-negative seconds, got {bad[0]!r}")

    @property
    def bursty(self) -> bool:
        """Whether any gap is given (the other case is traffic that never lets the cache lapse)."""
        return bool(self.gaps)

    def take(self, start: int, count: int) -> Workload:
        """Requests `start`..`start+count-1` (0-based) as a workload of their own."""
        gaps = self.gaps[start : start + count - 1] if self.gaps else ()
        return replace(self, requests=count, gaps=gaps)


def _non_negative_int(value: object, name: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InputError(f"{name} must be a non-negative whole number, got {value!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class CacheTerms:
    """
    How one cache option bills, per token: in base-input units (input 1) or in money.
    `ttl_seconds=None` never expires within the workload; `refresh_on_read` slides the TTL on each
    read (Anthropic, OpenAI); a Gemini explicit cache expires `ttl_seconds` after creation and
    bills `storage_per_token_hour` for each prefix token it holds.
    """

    name: str = "cache"
    input: float = 1.0
    write: float = 1.25
    read: float = 0.1
    output: float = 0.0
    ttl_seconds: float | None = None
    refresh_on_read: bool = True
    storage_per_token_hour: float = 0.0
    unit: str = "base-input tokens"

    def __post_init__(self) -> None:
        for name in ("input", "write", "read", "output", "storage_per_token_hour"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise InputError(f"{name} rate must be a non-negative number, got {value!r}")
        if self.ttl_seconds is not None and self.ttl_seconds <= 0:
            raise InputError(f"ttl_seconds must be positive, got {self.ttl_seconds!r}")

    @classmethod
    def from_multipliers(
        cls, *, write: float, read: float, ttl: str | None = None, name: str | None = None
    ) -> CacheTerms:
        """Terms in base-input token units: input 1, write `write`x, read `read`x."""
        return cls(
            name=name or ttl or "cache",
            write=write,
            read=read,
            ttl_seconds=None if ttl is None else ttl_seconds(ttl),
        )

    @classmethod
    def from_rates(cls, rates: Rates, *, ttl: str, currency: str = "USD") -> CacheTerms:
        """Money per token for `ttl`, one of `rates.writes` or `rates.free_ttls`."""
        if rates.read is None:
            raise InputError("the model's price has no cache-read rate; add 'read' to its row")
        if ttl in rates.writes:
            write = rates.writes[ttl]
        elif ttl in rates.free_ttls:
            write = rates.input
        else:
            offered = sorted(rates.writes) + list(rates.free_ttls)
            raise InputError(f"the model offers no TTL {ttl!r}; its options are {offered}")
        return cls(
            name=ttl,
            input=rates.input / _MILLION,
            write=write / _MILLION,
            read=rates.read / _MILLION,
            output=rates.output / _MILLION,
            ttl_seconds=ttl_seconds(ttl),
            unit=currency,
        )

    @property
    def write_multiplier(self) -> float:
        return float(_q(self.write) / _q(self.input)) if self.input else math.inf

    @property
    def read_multiplier(self) -> float:
        return float(_q(self.read) / _q(self.input)) if self.input else math.inf


def ttl_options(rates: Rates, currency: str = "USD") -> list[CacheTerms]:
    """Every retention option the model offers, as terms."""
    names = list(rates.writes) + [t for t in rates.free_ttls if t not in rates.writes]
    return [CacheTerms.from_rates(rates, ttl=name, currency=currency) for name in names]


def _q(value: float) -> Fraction:
    """The decimal a float was written as, exactly: 0.1 is 1/10, not 0.1000000000000000055."""
    return Fraction(repr(float(value)))


# -- the core ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class BreakEven:
    """`threshold`: caching saves when N > threshold; `requests`: the smallest such whole N.
    Both None when reads cost as much as input (caching never saves)."""

    threshold: float | None
    requests: int | None


def break_even(*, write: float, read: float) -> BreakEven:
    """The smallest N with W + R(N - 1) < N, for write and read multipliers W and R."""
    w, r = _q(write), _q(read)
    if r >= 1:
        return BreakEven(threshold=None, requests=None)
    threshold = (w - r) / (1 - r)
    return BreakEven(threshold=float(threshold), requests=max(1, math.floor(threshold) + 1))


@dataclass(frozen=True, slots=True, kw_only=True)
class WhatIf:
    """A workload priced under one set of terms, with and without caching."""

    terms: CacheTerms
    no_cache: float
    with_cache: float
    saved: float
    savings: float  # the fraction saved; negative when caching cost more than it saved
    writes: int
    reads: int
    storage: float
    break_even: BreakEven

    def to_json(self) -> dict[str, object]:
        return {
            "option": self.terms.name,
            "ttl_seconds": self.terms.ttl_seconds,
            "write_multiplier": self.terms.write_multiplier,
            "read_multiplier": self.terms.read_multiplier,
            "no_cache": self.no_cache,
            "with_cache": self.with_cache,
            "saved": self.saved,
            "savings": self.savings,
            "writes": self.writes,
            "reads": self.reads,
            "storage": self.storage,
            "break_even_requests": self.break_even.requests,
            "break_even_threshold": self.break_even.threshold,
        }


def what_if(workload: Workload, terms: CacheTerms) -> WhatIf:
    """Price `workload` under `terms`: every request at full input, and with the prefix cached."""
    p, n = workload.prefix_tokens, workload.requests
    per_request = workload.tail_tokens * _q(terms.input) + workload.output_tokens * _q(terms.output)
    no_cache = n * (p * _q(terms.input) + per_request)
    writes, reads, hours = _replay(workload, terms)
    with_cache = (
        n * per_request
        + writes * p * _q(terms.write)
        + reads * p * _q(terms.read)
        + hours * p * _q(terms.storage_per_token_hour)
    )
    return WhatIf(
        terms=terms,
        no_cache=float(no_cache),
        with_cache=float(with_cache),
        saved=float(no_cache - with_cache),
        savings=float(1 - with_cache / no_cache) if no_cache else 0.0,
        writes=writes,
        reads=reads,
        storage=float(hours * p * _q(terms.storage_per_token_hour)),
        break_even=break_even(write=terms.write_multiplier, read=terms.read_multiplier),
    )


def _replay(workload: Workload, terms: CacheTerms) -> tuple[int, int, Fraction]:
    """
    Writes, reads and storage-hours when the requests arrive `gaps` apart: in closed form when
    every gap is the same (or none is given), so a trillion requests cost no more than ten; else
    request by request (`replay_requests`, which the closed form is tested against).
    """
    gaps = workload.gaps
    if not gaps or isinstance(gaps, RepeatedGaps) or len(set(gaps)) == 1:
        gap = _q(gaps[0]) if gaps else Fraction(0)
        return _replay_even(workload.requests, gap, terms)
    return replay_requests(workload, terms)


def _replay_even(n: int, gap: Fraction, terms: CacheTerms) -> tuple[int, int, Fraction]:
    """`_replay` for n requests `gap` seconds apart (a request exactly at expiry misses)."""
    if terms.ttl_seconds is None:
        return 1, n - 1, Fraction(0)
    ttl = _q(terms.ttl_seconds)
    if n == 1 or gap >= ttl:  # every entry lapses before the next request: all writes
        return n, 0, n * ttl / 3600
    if terms.refresh_on_read:  # each read slides the expiry by one gap
        hours = ttl / 3600 + ((n - 1) * gap / 3600 if terms.storage_per_token_hour else 0)
        return 1, n - 1, hours
    # A fixed TTL: after a write, the requests k gaps later with k * gap < ttl read; then the
    # next one writes again. Cycles of 1 write and m reads.
    reads_per_write = math.ceil(ttl / gap) - 1 if gap else n - 1
    writes = -(-n // (reads_per_write + 1))
    return writes, n - writes, writes * ttl / 3600


def replay_requests(workload: Workload, terms: CacheTerms) -> tuple[int, int, Fraction]:
    """The reference replay, one request at a time (linear in the request count)."""
    ttl = None if terms.ttl_seconds is None else _q(terms.ttl_seconds)
    writes = reads = 0
    hours = Fraction(0)
    now, expires = Fraction(0), Fraction(-1)
    for i in range(workload.requests):
        if i and workload.gaps:
            now += _q(workload.gaps[i - 1])
        if i and (ttl is None or now < expires):
            reads += 1
            if ttl is not None and terms.refresh_on_read:
                if terms.storage_per_token_hour:
                    hours += (now + ttl - expires) / 3600
                expires = now + ttl
            continue
        writes += 1
        if ttl is not None:
            expires = now + ttl
            hours += ttl / 3600
    return writes, reads, hours


# -- which TTL --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TtlChoice:
    """Each retention option priced on the same gaps; `best` is the cheapest."""

    options: tuple[WhatIf, ...]

    @property
    def best(self) -> WhatIf:
        return min(self.options, key=lambda o: (o.with_cache, o.terms.write))


def choose_ttl(workload: Workload, options: Sequence[CacheTerms]) -> TtlChoice:
    """Price the workload under each TTL option (5m vs 1h; OpenAI's in_memory vs 24h, 30m vs 12h)."""
    if not options:
        raise InputError("choose_ttl needs at least one TTL option")
    return TtlChoice(options=tuple(what_if(workload, o) for o in options))


# -- pre-warming ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Prewarm:
    """
    Whether keeping the cache warm pays. `cold_starts` counts the writes; a keep-alive request
    (`max_tokens: 0`, a read of the prefix) inside a gap longer than the TTL pays when its reads
    cost less than writing the prefix again. Warming just before each burst moves the write off the
    first user's request (latency) but costs one more read per burst in money.
    """

    traffic: str
    cold_starts: int
    keepalive_requests: int
    with_keepalive: float
    keepalive_saves: float
    keepalive_pays_below_gap_seconds: float | None
    prewarm_before_bursts_costs: float

    def to_json(self) -> dict[str, object]:
        return {
            "traffic": self.traffic,
            "cold_starts": self.cold_starts,
            "keepalive_requests": self.keepalive_requests,
            "with_keepalive": self.with_keepalive,
            "keepalive_saves": self.keepalive_saves,
            "keepalive_pays_below_gap_seconds": self.keepalive_pays_below_gap_seconds,
            "prewarm_before_bursts_costs": self.prewarm_before_bursts_costs,
        }


def prewarm(workload: Workload, terms: CacheTerms, *, ping_tokens: int = 16) -> Prewarm:
    """
    Keep-alive and pre-warm arithmetic for `terms` (sliding TTLs only). A keep-alive sends the
    prefix plus `ping_tokens` of tail; a gap of g seconds needs floor(g / TTL) of them.
    """
    base = what_if(workload, terms)
    ttl = terms.ttl_seconds
    p = workload.prefix_tokens
    ping = p * _q(terms.read) + ping_tokens * _q(terms.input)
    rewrite = p * (_q(terms.write) - _q(terms.read))  # a write instead of a read
    lapsing = [(g, c) for g, c in gap_counts(workload.gaps) if ttl is not None and g >= ttl]
    pings = saves = Fraction(0)
    if ttl is not None and terms.refresh_on_read:
        for gap, times in lapsing:
            k = math.floor(_q(gap) / _q(ttl))
            if k * ping < rewrite:
                pings += k * times
                saves += (rewrite - k * ping) * times
    limit = _keepalive_limit(rewrite, ping, ttl) if terms.refresh_on_read else None
    return Prewarm(
        traffic="bursty" if lapsing else "continuous",
        cold_starts=base.writes,
        keepalive_requests=int(pings),
        with_keepalive=float(_q(base.with_cache) - saves),
        keepalive_saves=float(saves),
        keepalive_pays_below_gap_seconds=limit,
        prewarm_before_bursts_costs=float(base.writes * ping),
    )


def _keepalive_limit(rewrite: Fraction, ping: Fraction, ttl: float | None) -> float | None:
    """Gaps shorter than this are cheaper to bridge with keep-alives than to write again."""
    if ttl is None or rewrite <= 0:
        return None
    if ping <= 0:
        return math.inf
    most = math.ceil(rewrite / ping) - 1  # the most keep-alives that still cost less
    return float((most + 1) * _q(ttl))


# -- Gemini: explicit cache vs implicit caching -----------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class GeminiChoice:
    """
    Implicit caching (no write fee, no storage, hits not guaranteed: priced as if every request
    after the first hits, an upper bound on savings) against an explicit cache (creation bills the
    prefix as input, each request then reads it, storage per hour for the cache's whole lifetime;
    hits guaranteed until it expires, and a request after that creates it again). The explicit cache pays when the
    implicit hit rate would fall below `explicit_pays_below_implicit_hit_rate`.
    """

    implicit: WhatIf
    explicit: WhatIf
    explicit_pays_below_implicit_hit_rate: float | None

    def to_json(self) -> dict[str, object]:
        return {
            "implicit": self.implicit.to_json(),
            "explicit": self.explicit.to_json(),
            "explicit_pays_below_implicit_hit_rate": self.explicit_pays_below_implicit_hit_rate,
        }


def gemini_explicit_vs_implicit(
    workload: Workload, rates: Rates, *, cache_hours: float = 1.0, currency: str = "USD"
) -> GeminiChoice:
    """Both ways of caching a Gemini prefix; the explicit cache is kept `cache_hours` per creation."""
    if rates.read is None or rates.storage_per_hour is None:
        raise InputError(
            "comparing Gemini explicit and implicit caching needs the model's 'read' and "
            "'storage_per_hour' rates; add them to a price file (PROMPTCACHE_PRICES)"
        )
    if not math.isfinite(cache_hours) or cache_hours <= 0:
        raise InputError(f"cache_hours must be positive, got {cache_hours!r}")
    implicit = CacheTerms.from_rates(rates, ttl="implicit", currency=currency)
    explicit = replace(
        implicit,
        name="explicit",
        write=implicit.input + implicit.read,  # creation bills the prefix as input, then a read
        ttl_seconds=cache_hours * 3600,
        refresh_on_read=False,
        storage_per_token_hour=rates.storage_per_hour / _MILLION,
    )
    a, b = what_if(workload, implicit), what_if(workload, explicit)
    misses_cost = (
        (workload.requests - 1) * workload.prefix_tokens * (_q(a.terms.input) - _q(a.terms.read))
    )
    rate = None
    if misses_cost > 0:
        rate = max(0.0, float(1 - (_q(b.with_cache) - _q(a.with_cache)) / misses_cost))
    return GeminiChoice(implicit=a, explicit=b, explicit_pays_below_implicit_hit_rate=rate)


# -- another model: a switch, a cascade -------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelSwitch:
    """Requests before `at` on the first model, the rest on the second, whose cache starts cold."""

    at: int
    before: WhatIf
    after: WhatIf
    stay: WhatIf
    cold_penalty: float

    @property
    def with_cache(self) -> float:
        return self.before.with_cache + self.after.with_cache

    def to_json(self) -> dict[str, object]:
        return {
            "switch_at_request": self.at,
            "with_cache": self.with_cache,
            "stay_on_first_model": self.stay.with_cache,
            "cold_penalty": self.cold_penalty,
            "before": self.before.to_json(),
            "after": self.after.to_json(),
        }


def model_switch(
    workload: Workload, first: CacheTerms, second: CacheTerms, *, at: int
) -> ModelSwitch:
    """
    Switch models at request `at` (1-based; requests 1..at-1 ran on `first`). Caches are per model,
    so the second model writes the prefix again: `cold_penalty` is that write's cost over a read.
    """
    if not 2 <= at <= workload.requests:
        raise InputError(f"switch at request {at}: it must be between 2 and {workload.requests}")
    before = what_if(workload.take(0, at - 1), first)
    after = what_if(workload.take(at - 1, workload.requests - at + 1), second)
    penalty = workload.prefix_tokens * (_q(second.write) - _q(second.read))
    return ModelSwitch(
        at=at,
        before=before,
        after=after,
        stay=what_if(workload, first),
        cold_penalty=float(penalty),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Cascade:
    """
    Every request on the small model, the `escalated` share again on the large one, each model
    with its own cache (the large one's starts cold, and its entries lapse between escalations).
    Per request: c_small + (1 - p) c_large, with caching in both terms.
    """

    accept_rate: float
    escalated: int
    small: WhatIf
    large: WhatIf
    always_large: WhatIf
    large_cold_cost: float

    @property
    def with_cache(self) -> float:
        return self.small.with_cache + self.large.with_cache

    @property
    def no_cache(self) -> float:
        return self.small.no_cache + self.large.no_cache

    def to_json(self) -> dict[str, object]:
        return {
            "accept_rate": self.accept_rate,
            "escalated_requests": self.escalated,
            "with_cache": self.with_cache,
            "no_cache": self.no_cache,
            "always_large_with_cache": self.always_large.with_cache,
            "large_model_cold_writes": self.large.writes,
            "large_model_cold_cost": self.large_cold_cost,
            "small": self.small.to_json(),
            "large": self.large.to_json(),
        }


def cascade(
    workload: Workload, small: CacheTerms, large: CacheTerms, *, accept_rate: float
) -> Cascade:
    """
    A cascade: the small model answers every request and `accept_rate` of its answers are kept;
    the rest go to the large model. Escalations are spread evenly over the workload's span, so
    the large model sees round((1 - p) N) requests about 1 / (1 - p) times further apart.
    `large_cold_cost` is what its cold writes cost over reads.
    """
    if not 0 <= accept_rate <= 1:
        raise InputError(f"accept_rate must be between 0 and 1, got {accept_rate!r}")
    escalated = round((1 - _q(accept_rate)) * workload.requests)
    large_cost = _escalations(workload, large, escalated)
    cold = large_cost.writes * workload.prefix_tokens * (_q(large.write) - _q(large.read))
    return Cascade(
        accept_rate=accept_rate,
        escalated=escalated,
        small=what_if(workload, small),
        large=large_cost,
        always_large=what_if(workload, large),
        large_cold_cost=float(cold),
    )


def _escalations(workload: Workload, large: CacheTerms, escalated: int) -> WhatIf:
    if escalated == 0:
        return replace(
            what_if(replace(workload, requests=1, gaps=()), large),
            no_cache=0.0,
            with_cache=0.0,
            saved=0.0,
            savings=0.0,
            writes=0,
            reads=0,
            storage=0.0,
        )
    gaps: tuple[float, ...] = ()
    if workload.gaps and escalated > 1:
        spacing = sum(g * c for g, c in gap_counts(workload.gaps)) / (escalated - 1)
        gaps = (spacing,) * (escalated - 1)
    return what_if(replace(workload, requests=escalated, gaps=gaps), large)
