"""
`build_report`: hit rate, tokens, cost and invalidations by cause over a log of requests.

The log is JSON Lines, one record per request:

    {"vendor": "anthropic", "key": "session-42", "at": 1764374400.0,
     "request": {...SDK keyword arguments...}, "response": {...the response JSON...}}

`vendor` may come from the command line instead; `key` defaults to the monitor's key; `at` is
epoch seconds or an ISO 8601 time (docs/log-format.md is the versioned contract; the recorder
writes it). The log is read one line at a time and every aggregate is a counter, so memory stays
constant however long the log is: the per-session state is the monitors' (each bounded by its byte
budget and key limit), the groups are at most `max_groups` (the rest fall into "(other)"), and at
most `_PROBLEMS_KEPT` malformed lines are named (all are counted).
"""

from __future__ import annotations

import dataclasses
import heapq
import logging
from bisect import bisect_left
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

import orjson

from ._canonical import load_json
from ._errors import InputError, json_kind, shown, shown_keys, shown_name
from ._pricing import (
    PRICES_ENV,
    Rates,
    check_billing,
    cost_figures_at,
    list_price_caveat,
    located_rates,
    not_per_token_note,
)
from ._usage import CacheUsage
from ._vendor_side import VendorSide, VendorSideCounter
from .debug.diff import unknown_model
from .debug.fingerprint import fingerprint_held
from .debug.memory import model_of
from .debug.monitor import Invalidation, Monitor, read_usage
from .debug.privacy import describe, export_key
from .debug.recorder import LOG_FORMAT_VERSION, usage_from_json
from .debug.recorder import location_name as _location_name
from .vendors import Vendor, get_vendor, resolve_vendor
from .vendors._platform import model_names
from .vendors.vertex_anthropic import location_of

__all__ = [
    "GROUPINGS",
    "CauseSummary",
    "GroupSummary",
    "PricingNote",
    "Problem",
    "Report",
    "ReportBuilder",
    "build_report",
    "money",
    "unpriced_events_note",
    "unpriced_note",
]

GROUPINGS = ("key", "model", "vendor", "hour", "day")
_BUCKET_SECONDS = {"hour": 3600, "day": 86400}
_OTHER = "(other)"
_PROBLEMS_KEPT = 100
MAX_GROUPS = 10_000
_SHAPES = 256

# The report collects events itself; its monitors log nowhere (a detached, disabled logger, so
# neither the root logger's handlers nor logging's last-resort handler see a million warnings).
_QUIET = logging.Logger("promptcache.report")
_QUIET.disabled = True


@dataclass(frozen=True, slots=True, kw_only=True)
class CauseSummary:
    """Invalidations of one cause: how many, the tokens that were not read, what that cost."""

    cause: str
    events: int
    tokens_lost: int
    cost_lost: float | None
    unpriced_events: int = 0  # left out of `cost_lost`: a partial sum says how partial it is

    def to_json(self) -> dict[str, Any]:
        return {
            "cause": self.cause,
            "events": self.events,
            "tokens_lost": self.tokens_lost,
            "cost_lost": self.cost_lost,
            "unpriced_events": self.unpriced_events,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """A log line that was not read: where, and why (never its content)."""

    source: str
    line: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "line": self.line, "reason": self.reason}

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}"


@dataclass(frozen=True, slots=True, kw_only=True)
class PricingNote:
    """How some records were priced, as `cost()` notes it (a Vertex location's tier, a list
    price that is not the bill), and how many records it is true of."""

    note: str
    records: int

    def to_json(self) -> dict[str, Any]:
        return {"note": self.note, "records": self.records}


@dataclass(frozen=True, slots=True, kw_only=True)
class GroupSummary:
    """The totals of one group (a key, model, vendor or time bucket)."""

    group: str
    records: int
    uncached_input: int
    cache_read: int
    cache_write: int
    output: int
    cost: float | None
    invalidations: int
    tokens_lost: int
    unreported_records: int = 0
    unreported_input: int = 0
    unpriced_records: int = 0  # left out of `cost`: a partial sum says how partial it is
    # records that did not report output tokens: left out of `output`, and (when priced) their
    # output's cost is not in `cost`; the counts say how partial the sums are
    output_unreported_records: int = 0
    output_unpriced_records: int = 0

    @property
    def total_input(self) -> int:
        return self.uncached_input + self.cache_read + self.cache_write

    @property
    def hit_rate(self) -> float | None:
        return _hit_rate(self.cache_read, self.total_input, self.unreported_input)

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "records": self.records,
            "hit_rate": self.hit_rate,
            "input": self.total_input,
            "uncached_input": self.uncached_input,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "output": self.output,
            "cost": self.cost,
            "invalidations": self.invalidations,
            "tokens_lost": self.tokens_lost,
            "unreported_records": self.unreported_records,
            "unpriced_records": self.unpriced_records,
            "output_unreported_records": self.output_unreported_records,
            "output_unpriced_records": self.output_unpriced_records,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """Totals over a log. Costs are None when no record could be priced."""

    records: int
    uncached_input: int
    cache_read: int
    cache_write: int
    output: int
    cost: float | None
    cost_without_cache: float | None
    unpriced_records: int
    invalidations: tuple[CauseSummary, ...]
    currency: str = "USD"
    skipped: int = 0
    problems: tuple[Problem, ...] = ()
    by: str | None = None
    groups: tuple[GroupSummary, ...] = ()
    breakdowns: Mapping[str, tuple[GroupSummary, ...]] = field(default_factory=dict)
    worst: tuple[Invalidation, ...] = ()
    unreported_records: int = 0
    unreported_input: int = 0
    output_unreported_records: int = 0  # not in `output`: their output tokens are unknown
    output_unpriced_records: int = 0  # priced, but their output's cost is not in `cost`
    vendor_side: VendorSide | None = None  # server-side misses (_vendor_side.py)
    # below_minimum events a later read of the same key took back: left out of every figure
    below_minimum_contradicted: int = 0
    pricing_notes: tuple[PricingNote, ...] = ()
    # "per-token", or a bill that is not (`--billing provisioned|ccu`): `cost` and every cost
    # figure are then None, and the list prices are kept apart, for comparison only
    billing: str = "per-token"
    list_price: float | None = None
    list_price_without_cache: float | None = None

    @property
    def events(self) -> int:
        return sum(c.events for c in self.invalidations)

    @property
    def total_input(self) -> int:
        return self.uncached_input + self.cache_read + self.cache_write

    @property
    def hit_rate(self) -> float | None:
        """Read over input, of the records that reported caching (the others' reads are unknown)."""
        return _hit_rate(self.cache_read, self.total_input, self.unreported_input)

    @property
    def savings(self) -> float | None:
        if self.cost is None or self.cost_without_cache is None:
            return None
        return self.cost_without_cache - self.cost

    @property
    def list_savings(self) -> float | None:
        """What caching saved at list prices, for a bill that is not per token."""
        if self.list_price is None or self.list_price_without_cache is None:
            return None
        return self.list_price_without_cache - self.list_price

    def _list_price_json(self) -> dict[str, float | None] | None:
        if self.billing == "per-token":
            return None
        return {
            "actual": self.list_price,
            "without_cache": self.list_price_without_cache,
            "savings": self.list_savings,
        }

    def totals(self) -> GroupSummary:
        """The whole log as one group named "(all)": the row a report without --by has."""
        return GroupSummary(
            group="(all)",
            records=self.records,
            uncached_input=self.uncached_input,
            cache_read=self.cache_read,
            cache_write=self.cache_write,
            output=self.output,
            cost=self.cost,
            invalidations=self.events,
            tokens_lost=sum(c.tokens_lost for c in self.invalidations),
            unreported_records=self.unreported_records,
            unreported_input=self.unreported_input,
            unpriced_records=self.unpriced_records,
            output_unreported_records=self.output_unreported_records,
            output_unpriced_records=self.output_unpriced_records,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "hit_rate": self.hit_rate,
            "tokens": {
                "input": self.total_input,
                "uncached_input": self.uncached_input,
                "cache_read": self.cache_read,
                "cache_write": self.cache_write,
                "output": self.output,
                "unreported_records": self.unreported_records,
                "output_unreported_records": self.output_unreported_records,
            },
            "cost": {
                "currency": self.currency,
                "actual": self.cost,
                "without_cache": self.cost_without_cache,
                "savings": self.savings,
                "unpriced_records": self.unpriced_records,
                "output_unpriced_records": self.output_unpriced_records,
                "billing": self.billing,
                "list_price": self._list_price_json(),
                "notes": [n.to_json() for n in self.pricing_notes],
            },
            "invalidations": [c.to_json() for c in self.invalidations],
            "skipped": {
                "lines": self.skipped,
                "named": [p.to_json() for p in self.problems],
            },
            "by": self.by,
            "groups": [g.to_json() for g in self.groups],
            "vendor_side": None if self.vendor_side is None else self.vendor_side.to_json(),
            # present only when some were, as Monitor.stats() does with its `unjudged`
            **(
                {"below_minimum_contradicted": self.below_minimum_contradicted}
                if self.below_minimum_contradicted
                else {}
            ),
        }


class _PricesUnreadable(InputError):
    """The price table could not be loaded: the whole report stops, no line is skipped for it."""


@dataclass(slots=True)
class _Counts:
    """Records, tokens and priced cost: what the totals and every group count alike."""

    records: int = 0
    uncached: int = 0
    read: int = 0
    write: int = 0
    output: int = 0
    cost: float = 0.0
    priced: int = 0
    unreported: int = 0  # records that did not report caching: their reads are unknown
    unreported_input: int = 0
    output_unreported: int = 0  # records that did not report output: left out of `output`
    output_unpriced: int = 0  # of them, the priced ones: their output's cost is not in `cost`

    def count(self, usage: CacheUsage, priced: tuple[float, float] | None) -> None:
        self.records += 1
        self.uncached += usage.uncached_input
        self.read += usage.cache_read or 0
        self.write += usage.cache_write or 0
        if usage.output is None:
            self.output_unreported += 1
            if priced is not None:  # priced without its output: the sum leaves that out
                self.output_unpriced += 1
        else:
            self.output += usage.output
        if usage.cache_read is None:
            self.unreported += 1
            self.unreported_input += usage.total_input
        if priced is not None:
            self.priced += 1
            self.cost += priced[0]


@dataclass(slots=True)
class _Totals(_Counts):
    without: float = 0.0
    events: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    lost: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    lost_cost: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    lost_unpriced: dict[str, int] = field(default_factory=lambda: defaultdict(int))


@dataclass(slots=True)
class _Group(_Counts):
    events: int = 0
    lost: int = 0


# a `below_minimum` kept until withdrawn: the event, its vendor, model, time and location
_Claim = tuple[Invalidation, str, str | None, float | None, str | None]

# (vendor, model) rows a report's pricer holds: a log names a handful of models, and a log that
# names a new one on every line must not grow the cache with it
_ROWS_KEPT = 1024
# distinct pricing notes a report names (a Vertex location's tier per model and location); the
# records of any further note are counted as such
_NOTES_KEPT = 100

# a model's tiers (the input sizes they start at), their rates, and the notes its price carries
_Row = tuple[tuple[int, ...], tuple[Rates, ...], tuple[str, ...]]


class _Pricer:
    """
    `_pricing.cost_figures` with each (vendor, model, location) row resolved once, at the
    report's first record of it, and a cache of the models it cannot price, so one costs one
    lookup. A report prices at one day's rates (the day it started) and at the price data in
    force when it first met the model: genai-prices swapping its data halfway does not reprice
    half the log. A Vertex location prices its tier as `cost(location=)` does, and the notes
    `cost()` would give each priced record are counted (`notes`).
    """

    def __init__(self, served: Mapping[str, str] | None = None, *, caveats: bool = True) -> None:
        # {a model id that names no model (an application profile ARN): the model it serves}
        self._served = dict(served or {})
        # whether a platform's per-token figures are noted as list prices (not with a bill
        # declared not per token, which says more)
        self._caveats = caveats
        self._unknown: set[tuple[str, str]] = set()
        self._rows: dict[tuple[str, str, str | None], _Row] = {}
        self._table: Any = None
        self._notes: dict[str, int] = {}
        self._notes_left_out = 0

    @property
    def currency(self) -> str:
        """The price table's currency (USD until a table is loaded)."""
        return "USD" if self._table is None else str(self._table.currency)

    def price(
        self,
        usage: CacheUsage,
        vendor: str,
        model: str | None,
        location: str | None = None,
        *,
        noted: bool = False,
    ) -> tuple[float, float] | None:
        """The record's cost and its cost without caching; `noted`: count the notes its price
        carries (a record's own price, not a figure derived from it)."""
        if not model:
            return None
        model = self._served.get(model, model)
        row = self._rows.get((vendor, model, location))
        if row is None:
            row = self._row(vendor, model, location)
            if row is None:
                if noted:  # why the record is left out of the cost, counted
                    self._note((_unpriced_why(vendor, model),))
                return None
        starts, by_tier, notes = row
        try:
            rates = by_tier[bisect_left(starts, usage.total_input)]
            figures = cost_figures_at(usage, rates, vendor)
        except InputError:
            # Not every failure is the model's: a write at a TTL its row has no rate for, or a
            # read on a row with no read rate, fails this record alone.
            return None
        if noted:
            self._note(notes)
        return figures

    def _note(self, notes: tuple[str, ...]) -> None:
        for note in notes:
            if note in self._notes:
                self._notes[note] += 1
            elif len(self._notes) < _NOTES_KEPT:
                self._notes[note] = 1
            else:
                self._notes_left_out += 1

    def notes(self) -> tuple[PricingNote, ...]:
        """Each note the priced records carry, with how many; most records first."""
        found = [PricingNote(note=n, records=c) for n, c in self._notes.items()]
        found.sort(key=lambda n: (-n.records, n.note))
        if self._notes_left_out:
            more = f"other pricing notes (more than {_NOTES_KEPT:,} distinct ones, not named)"
            found.append(PricingNote(note=more, records=self._notes_left_out))
        return tuple(found)

    def _row(self, vendor: str, model: str, location: str | None) -> _Row | None:
        """The model's tiers and rates at `location`, resolved once; None (and never asked
        again) for a model the table cannot price."""
        if (vendor, model) in self._unknown:
            return None
        table = self._loaded()
        try:
            starts, by_tier = table.tiers(vendor, model)
        except (ImportError, InputError):
            if len(self._unknown) >= _ROWS_KEPT:
                self._unknown.clear()
            self._unknown.add((vendor, model))
            return None
        located = [located_rates(rates, vendor, model, location) for rates in by_tier]
        notes = located[0][1] if located else ()
        caveat = list_price_caveat(vendor) if self._caveats else None  # Foundry: not its bill
        row: _Row = (
            starts,
            tuple(rates for rates, _ in located),
            notes if caveat is None else (*notes, caveat),
        )
        if len(self._rows) >= _ROWS_KEPT:
            self._rows.clear()
        self._rows[(vendor, model, location)] = row
        return row

    def _loaded(self) -> Any:
        """The price table, loaded at the first record priced: one report prices at one day's
        rates, today's, as `cost()` does. A table that cannot be read (a broken
        $PROMPTCACHE_PRICES file) stops the report: every cost would read as unknown."""
        if self._table is None:
            from ._pricing import load_prices

            try:
                self._table = load_prices(when=date.today())
            except InputError as exc:
                raise _PricesUnreadable(f"cannot price the log: {exc}") from None
        return self._table

    def lost(
        self, tokens: int, vendor: str, model: str | None, location: str | None = None
    ) -> float | None:
        """What `tokens` cost as uncached input instead of cache reads."""
        if not tokens:
            return 0.0
        full = self.price(_input(tokens, 0, vendor, model), vendor, model, location)
        read = self.price(_input(0, tokens, vendor, model), vendor, model, location)
        return None if full is None or read is None else full[0] - read[0]


def _unpriced_why(vendor: str, model: str) -> str:
    """Why records of (vendor, model) are not priced, for the report's pricing notes."""
    try:
        spec = get_vendor(vendor)
    except InputError:
        spec = None
    if spec is not None and unknown_model(spec, model):
        return (
            f"not priced: the {vendor} model id {shown_name(model)} names no model (an application "
            "inference profile?); pass --base-model ID=MODEL with the model it serves"
        )
    return (
        f"not priced: no price row for {vendor} model {shown_name(model)}; add one in a price "
        f"file named by ${PRICES_ENV}"
    )


def money(value: float | None, currency: str) -> str:
    """An amount as the report pages and tables show it; "n/a" when it is unknown."""
    if value is None:
        return "n/a"
    return f"${value:,.4f}" if currency == "USD" else f"{value:,.4f} {currency}"


def unpriced_note(group: GroupSummary) -> str:
    """What a group's partial cost leaves out, to follow the cost: records not priced at all,
    and records whose output was not reported (their output's cost); "" for none."""
    if group.cost is None:
        return ""
    parts = []
    if group.unpriced_records:
        parts.append(f"{group.unpriced_records:,} unpriced")
    if group.output_unpriced_records:
        parts.append(f"output cost of {group.output_unpriced_records:,} unknown")
    return f" ({', '.join(parts)})" if parts else ""


def unpriced_events_note(cause: CauseSummary) -> str:
    """What a cause's partial cost lost leaves out, to follow it: its events that could not be
    priced; "" for none (or when none was priced: the cost is then unknown, "n/a")."""
    if cause.cost_lost is None or not cause.unpriced_events:
        return ""
    return f" ({cause.unpriced_events:,} unpriced)"


def _hit_rate(read: int, total: int, unreported: int) -> float | None:
    known = total - unreported
    return read / known if known > 0 else None


def _input(uncached: int, read: int, vendor: str, model: str | None) -> CacheUsage:
    return CacheUsage(
        uncached_input=uncached,
        cache_read=read,
        cache_write=0,
        output=0,
        vendor=vendor,
        model=model,
    )


class ReportBuilder:
    """
    Totals a log one line at a time. A line that cannot be read is counted and named (source,
    line number, reason; never its content) and skipped, or with `strict=True` raises InputError.
    """

    def __init__(
        self,
        *,
        vendor: str | None = None,
        body_budget: int = 32 * 1024 * 1024,
        max_keys: int = 10_000,
        strict: bool = False,
        by: str | None = None,
        max_groups: int = MAX_GROUPS,
        also: tuple[str, ...] = (),
        worst: int = 0,
        evidence: int = 0,
        clear_keys: bool = False,
        base_models: Mapping[str, str] | None = None,
        location: str | None = None,
        billing: str | None = None,
    ) -> None:
        check_billing(billing)
        if location is not None:
            location = _location_name(location, "location=")
        for name in (by, *also):
            if name is not None and name not in GROUPINGS:
                raise InputError(f"cannot group by {name!r}; use one of {', '.join(GROUPINGS)}")
        self.vendor, self.strict, self.by = vendor, strict, by
        # Keys are shown as the monitor's logs show them (hashed unless they look opaque), in
        # every format, whatever log they come from; `clear_keys` is the user asking for them.
        self.clear_keys = clear_keys
        # every grouping kept: --by's, and the ones a picture needs (`also`)
        self.groupings = tuple(dict.fromkeys(g for g in (by, *also) if g is not None))
        self.worst_kept = worst
        # a min-heap by tokens lost, then by order read (earlier first): a line number repeats
        # in every file read, and a tie left to the events themselves cannot be compared
        self._worst: list[tuple[int, int, Invalidation]] = []
        self._kept = 0
        self.body_budget, self.max_keys, self.max_groups = body_budget, max_keys, max_groups
        # `base_models`: ids that name no model (application profile ARNs, deployments) -> the
        # model each serves, whose minimum, TTLs and price apply (as `Monitor(base_models=)`)
        self.base_models = model_names(base_models or {})
        # where Claude on Vertex AI calls went, for records that do not say (`location` field)
        self.location = location
        self.billing = billing or "per-token"
        per_token = self.billing == "per-token"
        self._totals, self._pricer = _Totals(), _Pricer(self.base_models, caveats=per_token)
        self._monitors: dict[str, Monitor] = {}
        self._groups: dict[str, dict[Any, _Group]] = {g: {} for g in self.groupings}
        self._skipped = 0
        self._problems: list[Problem] = []
        # `evidence`: how many server-side misses' evidence records are kept (`--evidence`)
        self._side = VendorSideCounter(
            max_groups=max_groups, max_keys=max_keys, evidence_kept=evidence
        )
        self._shapes: dict[tuple[frozenset[str], str | None, str | None], Vendor] = {}
        self._ambiguous: set[tuple[frozenset[str], str | None, str | None]] = set()
        # key -> its below_minimum, vendor, model, time and location, until a later read takes
        # it back
        self._claims: OrderedDict[str, _Claim] = OrderedDict()
        self._withdrawn = 0

    def add_line(self, line: bytes | str | None, number: int, source: str = "<log>") -> None:
        """One line of the log (None: a line over the size bound, already consumed)."""
        if line is None:
            self._problem(source, number, "longer than the line size limit (--max-line-bytes)")
            return
        if not line or line.isspace():  # not `strip()`: that copies every line
            return
        try:
            record, request = _record(line, number)
            spec = self._vendor_of(record, number)
            monitor = self._monitors.get(spec.name)
            if monitor is None:
                monitor = self._monitors[spec.name] = Monitor(
                    spec,
                    logger=_QUIET,
                    metrics=False,
                    on_invalidation=self._fold,
                    body_budget=self.body_budget,
                    max_keys=self.max_keys,
                    capture_content=self.worst_kept > 0,
                    base_models=self.base_models,
                )
            _add(self, monitor, record, request, spec, number, source)
        except _PricesUnreadable:
            raise  # not this line's problem: no line could be priced
        except InputError as exc:
            self._problem(source, number, _without_line(str(exc), number))

    def _vendor_of(self, record: Mapping[str, Any], number: int) -> Vendor:
        """As `_vendor`, remembered per request shape (its top-level fields, model and the
        vendor named), as the monitor does: a log holds a handful of shapes."""
        request, name = record["request"], record.get("vendor")
        if name is None:  # null, like absent, leaves it to --vendor
            name = self.vendor
        is_mapping = type(request) is dict or isinstance(request, Mapping)
        if not is_mapping or not isinstance(name, (str, type(None))):
            return _vendor(record, self.vendor, number)  # raises, naming the problem
        model = request.get("model")
        shape = (frozenset(request), model if isinstance(model, str) else None, name)
        known = self._shapes.get(shape)
        # Detected (no vendor named), the shape does not always say it: a gateway may serve one
        # model name in two formats with the same top-level keys. The format remembered is kept
        # while the request fits it, and a shape seen in two formats is detected record by
        # record from then on. A named vendor's siblings differ in top-level keys.
        if known is None or (
            name is None and (shape in self._ambiguous or known.misfit(request) is not None)
        ):
            found = _vendor(record, self.vendor, number)
            if known is not None and found is not known:
                self._ambiguous.add(shape)
            if len(self._shapes) >= _SHAPES:
                self._shapes.clear()
                self._ambiguous.clear()
            self._shapes[shape] = known = found
        return known

    def unreadable(self, source: str, number: int, reason: str) -> None:
        """A line the reader could not get at all (a corrupt or truncated gzip stream)."""
        self._problem(source, number, reason)

    def _problem(self, source: str, number: int, reason: str) -> None:
        if self.strict:
            prefix = "" if source == "<log>" else f"{source}: "
            raise InputError(f"{prefix}line {number}: {reason}")
        self._skipped += 1
        if len(self._problems) < _PROBLEMS_KEPT:
            self._problems.append(Problem(source=source, line=number, reason=reason))

    def groups_of(self, key: str, vendor: str, model: str | None, at: float | None) -> list[_Group]:
        """The group of this record in every grouping kept."""
        found = []
        for grouping, groups in self._groups.items():
            name: Any
            if grouping == "key":
                name = key if self.clear_keys else export_key(key)
            elif grouping == "model":
                name = model or "(unknown)"
            elif grouping == "vendor":
                name = vendor
            else:
                step = _BUCKET_SECONDS[grouping]
                name = None if at is None else int(at // step) * step
            group = groups.get(name)
            if group is None:
                if len(groups) >= self.max_groups:
                    name = _OTHER
                    group = groups.get(name)
                if group is None:
                    group = groups[name] = _Group()
            found.append(group)
        return found

    def keep_if_worst(self, event: Invalidation) -> None:
        """Keep the `worst` events that lost the most tokens (bounded)."""
        if self.worst_kept <= 0:
            return
        self._kept += 1
        item = (event.tokens_lost, -self._kept, event)
        if len(self._worst) < self.worst_kept:
            heapq.heappush(self._worst, item)
        elif item[:2] > self._worst[0][:2]:
            heapq.heapreplace(self._worst, item)

    def claimed(
        self,
        event: Invalidation,
        vendor: str,
        model: str | None,
        at: float | None,
        location: str | None,
    ) -> None:
        """A `below_minimum` counted: kept (bounded as the monitor's keys) until withdrawn."""
        self._claims[event.key] = (event, vendor, model, at, location)
        self._claims.move_to_end(event.key)
        if len(self._claims) > self.max_keys:
            self._claims.popitem(last=False)  # the monitor has forgotten that key too

    def _fold(self, event: Invalidation) -> None:
        """A monitor took a key's `below_minimum` back: it leaves the totals, groups and worst."""
        claim = self._claims.pop(event.key, None) if event.withdrawal else None
        if claim is None:
            return
        old, vendor, model, at, location = claim
        self._withdrawn += 1
        _remove_event(self._totals, self._pricer, old, vendor, model, location)
        if self.groupings:
            for group in self.groups_of(old.key, vendor, model, at):
                group.events -= 1
                group.lost -= old.tokens_lost
        if any(kept is old for _, _, kept in self._worst):
            self._worst = [item for item in self._worst if item[2] is not old]
            heapq.heapify(self._worst)

    def result(self) -> Report:
        return _summary(self)


def build_report(
    lines: Iterable[bytes | str],
    *,
    vendor: str | None = None,
    body_budget: int = 32 * 1024 * 1024,
    max_keys: int = 10_000,
    strict: bool = True,
    by: str | None = None,
    evidence: int = 0,
    base_models: Mapping[str, str] | None = None,
    location: str | None = None,
    billing: str | None = None,
) -> Report:
    """Read log records one by one and total them. `vendor` applies to records that name none;
    `evidence` is how many server-side misses' evidence records to keep (`Report.vendor_side`);
    `base_models` maps model ids that name no model (application profile ARNs) to the model each
    serves, whose minimum, TTLs and price then apply (as `Monitor(base_models=)`). `location`:
    the Vertex AI location of Claude calls whose record names none (as `cost(location=)`);
    `billing`: "provisioned" or "ccu" for a deployment not billed per token (as
    `cost(billing=)`): the report then gives no per-token cost and keeps the list prices apart."""
    builder = ReportBuilder(
        vendor=vendor,
        body_budget=body_budget,
        max_keys=max_keys,
        strict=strict,
        by=by,
        evidence=evidence,
        base_models=base_models,
        location=location,
        billing=billing,
    )
    for number, line in enumerate(lines, start=1):
        builder.add_line(line, number)
    return builder.result()


def _without_line(message: str, number: int) -> str:
    prefix = f"line {number}: "
    return message[len(prefix) :] if message.startswith(prefix) else message


def _record(line: bytes | str, number: int) -> tuple[Mapping[str, Any], bytes]:
    """
    The line's record and its request's JSON (`orjson.dumps(request)`, what the monitor keeps
    of the body). Serialising the request is also most of the depth check every reader makes
    (`check_depth`): the request is serialised one level down, as it sits in the record, and the
    rest of the record apart, so a record nested past `MAX_DEPTH` is refused exactly as before.
    """
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return _checked_record(line, number)  # words the error (too deep, or not JSON)
    if type(record) is not dict or "request" not in record:
        return _checked_record(line, number)
    try:
        request = orjson.dumps([record["request"]])[1:-1]  # a copy: sized as it is
        for name, value in record.items():  # the rest: only a container can nest, one level down
            if name != "request" and (type(value) is dict or type(value) is list):
                orjson.dumps([value])
    except orjson.JSONEncodeError:  # nested too deep: the only thing parsed JSON can fail on
        return _checked_record(line, number)
    _check_shape(record, number)
    return record, request


def _checked_record(line: bytes | str, number: int) -> tuple[Mapping[str, Any], bytes]:
    """`_record` the slow way, for a line it could not take as it is: raises what is wrong."""
    try:
        record = load_json(line, f"line {number}")
    except orjson.JSONDecodeError as exc:
        raise InputError(
            f"line {number}: not valid JSON ({_json_error(exc)}); each line is one record"
        ) from None
    _check_shape(record, number)
    return record, orjson.dumps(record["request"])


def _check_shape(record: Any, number: int) -> None:
    """A record has a request and a response (or usage), in a log format version read here."""
    if (
        not isinstance(record, dict)
        or "request" not in record
        or ("response" not in record and "usage" not in record)
    ):
        raise InputError(
            f"line {number}: expected an object with 'request' and 'response' keys, got "
            f'{_shape(record)}; write one {{"request": ..., "response": ...}} a line'
        )
    version = record.get("v", LOG_FORMAT_VERSION)
    if version != LOG_FORMAT_VERSION or type(version) is not int:
        raise InputError(
            f"line {number}: log format version {shown(version)}, and this promptcache reads "
            f"version {LOG_FORMAT_VERSION} (docs/log-format.md); a newer one may mean other "
            "things: upgrade promptcache-sdk"
        )


def _json_error(exc: orjson.JSONDecodeError) -> str:
    """orjson's reason and position, without the document excerpt it may carry."""
    return f"{exc.msg} at column {exc.colno}"


def _shape(value: Any) -> str:
    if isinstance(value, dict):
        return f"an object with keys {shown_keys(value)}" if value else "an empty object"
    return f"a JSON {json_kind(value)}"


def _vendor(record: Mapping[str, Any], default: str | None, number: int) -> Vendor:
    """The record's format: named by the record or --vendor (checked), else detected."""
    name = record.get("vendor")
    if name is None:  # null, like absent, leaves it to --vendor
        name = default
    if name is not None and not isinstance(name, str):
        raise InputError(f"line {number}: 'vendor' must be a name, got {describe(name)}")
    request = record["request"]
    if not isinstance(request, Mapping):
        raise InputError(
            f"line {number}: 'request' must be an object (the SDK call's keyword arguments), "
            f"got {describe(request)}"
        )
    try:
        return resolve_vendor(request, name)
    except InputError as exc:
        raise InputError(f"line {number}: {exc}") from None


def _add(
    builder: ReportBuilder,
    monitor: Monitor,
    record: Mapping[str, Any],
    data: bytes,
    spec: Vendor,
    number: int,
    source: str = "<log>",
) -> None:
    """Count one record; `data` is its request's JSON, which the monitor keeps as the body."""
    totals, pricer = builder._totals, builder._pricer
    request = record["request"]
    key = record.get("key")
    if key is not None and not isinstance(key, str):
        raise InputError(f"line {number}: 'key' must be a string, got {describe(key)}")
    name = key if key is not None else monitor._key(request, spec)
    previous = builder._side.previous(monitor, name)
    try:
        usage = read_usage(spec, _usage_of(record, number))
        location = _record_location(record) or builder.location
        at = _moment(record.get("at"), number)
        sent = _moment(record.get("sent_at"), number, "sent_at")
        event = monitor._observe_read(
            request, data, usage=usage, key=key, at=at, sent_at=sent, vendor=spec
        )
    except InputError as exc:
        raise InputError(f"line {number}: {exc}") from None
    fingerprint_held(monitor._keys, name, request, data, monitor.counter)  # the tree in hand
    vendor = spec.name
    model = model_of(request, usage)
    priced = pricer.price(usage, vendor, model, location, noted=True)
    totals.count(usage, priced)
    if priced is not None:
        totals.without += priced[1]
    if event is not None:
        if at is None and event.cause == "none":
            event = _untimed(event)
        _add_event(totals, pricer, event, vendor, model, location)
        builder.keep_if_worst(event)
    builder._side.count(
        monitor, name, previous, spec, model, usage, event, at, record, (source, number)
    )
    if builder.groupings:
        for group in builder.groups_of(name, vendor, model, at):
            _add_group(group, usage, priced, event)
    if event is not None and event.cause == "below_minimum":
        builder.claimed(event, vendor, model, at, location)


def _untimed(event: Invalidation) -> Invalidation:
    """A miss on an unchanged prefix, in a record with no time: the TTL may have run out, or the
    server missed; which is unknown, and "none" (the server's) would be a guess."""
    return dataclasses.replace(
        event,
        cause="unknown",
        server_side=False,
        detail="unchanged prefix and no read, and the record has no 'at': a TTL expiry cannot "
        "be told from a server-side miss; log the time",
    )


def _add_group(
    group: _Group, usage: CacheUsage, priced: tuple[float, float] | None, event: Any
) -> None:
    group.count(usage, priced)
    if event is not None:
        group.events += 1
        group.lost += event.tokens_lost


def _add_event(
    totals: _Totals,
    pricer: _Pricer,
    event: Invalidation,
    vendor: str,
    model: str | None,
    location: str | None,
) -> None:
    totals.events[event.cause] += 1
    totals.lost[event.cause] += event.tokens_lost
    lost = pricer.lost(event.tokens_lost, vendor, model, location)
    if lost is None:
        totals.lost_unpriced[event.cause] += 1
    else:
        totals.lost_cost[event.cause] += lost


def _remove_event(
    totals: _Totals,
    pricer: _Pricer,
    event: Invalidation,
    vendor: str,
    model: str | None,
    location: str | None,
) -> None:
    """`_add_event` undone (a cause left with no event leaves the table)."""
    cause = event.cause
    totals.events[cause] -= 1
    totals.lost[cause] -= event.tokens_lost
    lost = pricer.lost(event.tokens_lost, vendor, model, location)
    if lost is None:
        totals.lost_unpriced[cause] -= 1
    else:
        totals.lost_cost[cause] -= lost
    if not totals.events[cause]:
        for table in (totals.events, totals.lost, totals.lost_cost, totals.lost_unpriced):
            table.pop(cause, None)


def _record_location(record: Mapping[str, Any]) -> str | None:
    """The record's `location` (where the call went, as the recorder writes it), else the one
    its `endpoint` names (a gateway's log: a Vertex AI host or URL), or None."""
    value = record.get("location")
    if value is not None:
        return _location_name(value, "'location'")
    endpoint = record.get("endpoint")
    if not isinstance(endpoint, str):
        return None
    found = location_of(endpoint if "://" in endpoint else f"https://{endpoint}")
    return None if found is None else _location_name(found, "the location 'endpoint' names")


def _usage_of(record: Mapping[str, Any], number: int) -> Any:
    answer = record.get("response", record.get("usage"))
    if "response" not in record and isinstance(answer, Mapping):
        neutral = usage_from_json(answer)  # the recorder's vendor-neutral usage (format v1)
        if neutral is not None:
            return neutral
    if answer is None:
        raise InputError("'response' is null; log the response or its usage")
    return answer


# The times a report can name (1970 to the end of year 9999): outside them `--by hour` and the
# HTML page cannot write the date, and a TTL gap of a thousand years is a broken clock, not data.
_LATEST = 253_402_300_800.0


def _moment(value: Any, number: int, field: str = "at") -> float | None:
    """Epoch seconds of `field`; an ISO 8601 time without an offset is UTC (as buckets are)."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        moment = float(value)
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise InputError(
                f"{field!r} must be epoch seconds or ISO 8601, got {describe(value)}"
            ) from None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        moment = parsed.timestamp()
    else:
        raise InputError(f"{field!r} must be epoch seconds or ISO 8601, got {describe(value)}")
    if not 0.0 <= moment < _LATEST:
        raise InputError(
            f"{field!r} is {shown(value)}, outside 1970-01-01 to 9999-12-31 (epoch seconds, UTC); "
            "write the time the request was sent"
        )
    return moment


def _group_name(name: Any, by: str | None) -> str:
    if by in _BUCKET_SECONDS and isinstance(name, int):
        moment = datetime.fromtimestamp(name, tz=timezone.utc)
        return moment.strftime("%Y-%m-%dT%H:%MZ" if by == "hour" else "%Y-%m-%d")
    return "(no time)" if name is None else str(name)


def _groups(builder: ReportBuilder, grouping: str) -> tuple[GroupSummary, ...]:
    def order(item: tuple[Any, _Group]) -> tuple[int, Any]:
        name, group = item
        if grouping in _BUCKET_SECONDS:  # time order; the untimed and the overflow last
            return (0, name) if isinstance(name, int) else (1, str(name))
        return (-group.records, str(name))

    return tuple(
        GroupSummary(
            group=_group_name(name, grouping),
            records=g.records,
            uncached_input=g.uncached,
            cache_read=g.read,
            cache_write=g.write,
            output=g.output,
            cost=g.cost if g.priced and builder.billing == "per-token" else None,
            invalidations=g.events,
            tokens_lost=g.lost,
            unreported_records=g.unreported,
            unreported_input=g.unreported_input,
            unpriced_records=g.records - g.priced,
            output_unreported_records=g.output_unreported,
            output_unpriced_records=g.output_unpriced,
        )
        for name, g in sorted(builder._groups[grouping].items(), key=order)
    )


def _summary(builder: ReportBuilder) -> Report:
    totals, currency = builder._totals, builder._pricer.currency
    # a bill not per token (provisioned, CCU) has no per-token figure: only list prices, apart
    per_token = builder.billing == "per-token"
    causes = [
        CauseSummary(
            cause=cause,
            events=count,
            tokens_lost=totals.lost[cause],
            cost_lost=totals.lost_cost.get(cause) if per_token else None,
            unpriced_events=totals.lost_unpriced.get(cause, 0),
        )
        for cause, count in totals.events.items()
    ]
    causes.sort(key=lambda c: (-(c.cost_lost or 0.0), -c.tokens_lost, -c.events, c.cause))
    priced = totals.priced > 0
    notes = builder._pricer.notes()
    if not per_token and priced:
        billed = PricingNote(note=not_per_token_note(builder.billing), records=totals.priced)
        notes = (billed, *notes)
    return Report(
        records=totals.records,
        uncached_input=totals.uncached,
        cache_read=totals.read,
        cache_write=totals.write,
        output=totals.output,
        cost=totals.cost if priced and per_token else None,
        cost_without_cache=totals.without if priced and per_token else None,
        pricing_notes=notes,
        billing=builder.billing,
        list_price=totals.cost if priced and not per_token else None,
        list_price_without_cache=totals.without if priced and not per_token else None,
        unpriced_records=totals.records - totals.priced,
        invalidations=tuple(causes),
        currency=currency,
        skipped=builder._skipped,
        problems=tuple(builder._problems),
        by=builder.by,
        groups=() if builder.by is None else _groups(builder, builder.by),
        breakdowns={g: _groups(builder, g) for g in builder.groupings},
        worst=tuple(e for _, _, e in sorted(builder._worst, key=lambda t: t[:2], reverse=True)),
        unreported_records=totals.unreported,
        unreported_input=totals.unreported_input,
        output_unreported_records=totals.output_unreported,
        output_unpriced_records=totals.output_unpriced,
        vendor_side=builder._side.result(),
        below_minimum_contradicted=builder._withdrawn,
    )
