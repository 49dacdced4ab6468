"""
The report's vendor-side section: how often the server missed on a byte-identical prefix
(`Invalidation.server_side`), by model, hour, prompt-size band and gap since the key's previous
request, beside what the vendor documents (its minimum and TTL, from its `CacheRules` and the
shipped minimum table), and the evidence of each such miss (hashes, counts, ids; no prompt text).

The rate's denominator is the follow-ups: requests that reported caching and came after an
earlier request of their key (what could have been read). For vendors that cache implicitly
(OpenAI, Gemini: every prefix, no markers) a follow-up falls in one of three classes worth
telling apart: its prompt under the documented minimum (nothing is promised), over it with an
identical prefix yet 0 read, and partly read. Counted per size band, a range the vendor does not
cache in practice (Gemini's 0 reads between ~9k and ~17k tokens) shows as a band.

Memory is bounded: the models and hours are at most `max_groups` each (the rest are "(other)"),
the bands are fixed, the ids of each key's previous request are kept for at most `max_keys` keys,
and evidence records are kept only when asked for, at most `evidence_kept` (`report --evidence`:
`EVIDENCE_KEPT`; the rest are counted).
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ._pricing import load_min_tokens
from ._usage import CacheUsage
from .debug.diff import unknown_model
from .debug.events import Invalidation
from .debug.memory import Entry, Record, entry_ttls, written
from .debug.monitor import Monitor
from .debug.privacy import export_key
from .vendors import TTL_SECONDS, Vendor

__all__ = [
    "EVIDENCE_KEPT",
    "GAP_BANDS",
    "SIZE_BANDS",
    "ModelFacts",
    "SideRow",
    "VendorSide",
    "VendorSideCounter",
]

EVIDENCE_KEPT = 20_000  # about 1 KB each: `report --evidence` holds them until it writes
_OTHER = "(other)"
_NO_TIME = "(no time)"

# Upper bounds (exclusive) and names. Sizes in powers of two from 1k: a documented minimum (1,024,
# 2,048, 4,096) is a band edge, and a misbehaving range shows as one or two bands.
SIZE_BANDS: tuple[tuple[float, str], ...] = (
    (1024, "<1k"),
    (2048, "1k-2k"),
    (4096, "2k-4k"),
    (8192, "4k-8k"),
    (16384, "8k-16k"),
    (32768, "16k-32k"),
    (65536, "32k-64k"),
    (131072, "64k-128k"),
    (float("inf"), ">=128k"),
)
# Seconds: the documented TTLs (5 min, 1 h) are edges.
GAP_BANDS: tuple[tuple[float, str], ...] = (
    (60, "<1m"),
    (300, "1m-5m"),
    (1800, "5m-30m"),
    (3600, "30m-1h"),
    (float("inf"), ">=1h"),
)
# A vendor's id for a request or response ("msg_01X...", "req_011C...", "chatcmpl-B9...", a
# Gemini responseId): shown only when it reads as one, never a free text a log may hold there.
_ID = re.compile(r"[A-Za-z0-9_.:/+=-]{1,200}")


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelFacts:
    """What the vendor documents for a model, as promptcache's tables hold it."""

    vendor: str
    model: str
    marking: str  # "explicit": cached only at markers; "automatic": every prefix (implicit)
    minimum_tokens: int
    default_ttl_seconds: float | None
    # the minimum is the table's default, not the model's own: no row names the model, or its
    # id names none (an application inference profile ARN not mapped with --base-model)
    minimum_assumed: bool = False

    @property
    def documented_minimum(self) -> int | None:
        """The minimum, where the tables document it for this model; None where assumed."""
        return None if self.minimum_assumed else self.minimum_tokens

    def to_json(self) -> dict[str, Any]:
        return {
            "vendor": self.vendor,
            "model": self.model,
            "marking": self.marking,
            "documented_minimum_tokens": self.documented_minimum,
            "assumed_minimum_tokens": self.minimum_tokens if self.minimum_assumed else None,
            "documented_ttl_seconds": self.default_ttl_seconds,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class SideRow:
    """
    One group's follow-ups and the server-side misses among them. `zero_read` and `partly_read`
    split the misses; `under_minimum` counts follow-ups whose prompt was under the documented
    minimum (nothing promised) and `read_under_minimum` those of them that read anyway (the
    observed read wins over the table). `facts` is set on model rows.
    """

    group: str
    follow_ups: int
    server_side: int
    zero_read: int
    partly_read: int
    under_minimum: int
    read_under_minimum: int
    tokens_lost: int
    facts: ModelFacts | None = None

    @property
    def rate(self) -> float | None:
        return self.server_side / self.follow_ups if self.follow_ups else None

    def to_json(self) -> dict[str, Any]:
        row = {
            "group": self.group,
            "follow_ups": self.follow_ups,
            "server_side_misses": self.server_side,
            "rate": self.rate,
            "zero_read": self.zero_read,
            "partly_read": self.partly_read,
            "under_minimum": self.under_minimum,
            "read_under_minimum": self.read_under_minimum,
            "tokens_lost": self.tokens_lost,
        }
        if self.facts is not None:
            row.update(self.facts.to_json())
        return row


@dataclass(frozen=True, slots=True, kw_only=True)
class VendorSide:
    """The section: the totals, and rows by model, hour, size band and gap band."""

    total: SideRow
    by_model: tuple[SideRow, ...] = ()
    by_hour: tuple[SideRow, ...] = ()
    by_size: tuple[SideRow, ...] = ()
    by_gap: tuple[SideRow, ...] = ()
    evidence: tuple[dict[str, Any], ...] = ()
    evidence_left_out: int = 0

    def rows(self) -> dict[str, tuple[SideRow, ...]]:
        return {
            "model": self.by_model,
            "hour": self.by_hour,
            "prompt_tokens": self.by_size,
            "gap": self.by_gap,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            **self.total.to_json(),
            **{f"by_{name}": [r.to_json() for r in rows] for name, rows in self.rows().items()},
        }


@dataclass(slots=True)
class _Tally:
    follow_ups: int = 0
    server_side: int = 0
    zero_read: int = 0
    partly_read: int = 0
    under_minimum: int = 0
    read_under_minimum: int = 0
    lost: int = 0

    def add(self, kind: tuple[bool, bool, int], count: int, lost: int) -> None:
        """`count` follow-ups of one `kind` (under the minimum, read any, miss: 0/1 0-read/2 part)."""
        under, read, miss = kind
        self.follow_ups += count
        if under:
            self.under_minimum += count
            self.read_under_minimum += count if read else 0
        if miss:
            self.server_side += count
            self.zero_read += count if miss == 1 else 0
            self.partly_read += count if miss == 2 else 0
            self.lost += lost

    def row(self, group: str, facts: ModelFacts | None = None) -> SideRow:
        return SideRow(
            group=group,
            follow_ups=self.follow_ups,
            server_side=self.server_side,
            zero_read=self.zero_read,
            partly_read=self.partly_read,
            under_minimum=self.under_minimum,
            read_under_minimum=self.read_under_minimum,
            tokens_lost=self.lost,
            facts=facts,
        )


@dataclass(slots=True)
class _Ids:
    """The vendor's ids of a key's latest request, for the evidence of the next one's miss."""

    response: str | None
    request: str | None


_LAST_SIZE = len(SIZE_BANDS) - 1
_GAP_TOPS = [top for top, _ in GAP_BANDS[:-1]]  # bisect: the index of a gap's band


@dataclass
class VendorSideCounter:
    """
    Counts follow-ups and server-side misses as the report reads its records. Each follow-up is
    one count in two cells (model, size band, gap band and kind; hour and kind): the rows are
    summed from them at the end, so a record costs two dict updates, not a row per grouping.
    """

    max_groups: int = 10_000
    max_keys: int = 10_000
    evidence_kept: int = 0  # none unless asked (`--evidence`): each costs memory
    # (vendor, model, size band, gap band, kind) and (hour, kind) -> follow-ups; -> tokens lost
    _cells: dict[tuple[Any, ...], int] = field(default_factory=dict)
    _hour_cells: dict[tuple[Any, ...], int] = field(default_factory=dict)
    _lost: dict[tuple[Any, ...], int] = field(default_factory=dict)
    _models: dict[tuple[str, str], ModelFacts] = field(default_factory=dict)
    _hours: set[int | str] = field(default_factory=set)
    _ids: OrderedDict[str, _Ids] = field(default_factory=OrderedDict)
    _evidence: list[dict[str, Any]] = field(default_factory=list)
    _left_out: int = 0
    _facts_of: dict[tuple[str, str | None], tuple[ModelFacts, tuple[str, str]]] = field(
        default_factory=dict
    )

    def previous(self, monitor: Monitor, key: str) -> Entry | None:
        """The entry `key`'s next request is judged against: read before observing it."""
        return monitor._keys.entries.get(key)

    def count(
        self,
        monitor: Monitor,
        key: str,
        previous: Entry | None,
        spec: Vendor,
        model: str | None,
        usage: CacheUsage,
        event: Invalidation | None,
        at: float | None,
        record: Mapping[str, Any],
        where: tuple[str, int],
    ) -> None:
        """
        One record (`where`: its source and line). `previous` is what `previous()` gave before
        the monitor observed it. On the hot path of `report`: two dict updates a follow-up.
        """
        ids = before = None
        if self.evidence_kept:
            ids = _ids_of(record)
            before = self._swap_ids(key, ids)
        read = usage.cache_read
        if previous is None or read is None:
            return
        known = self._facts_of.get((spec.name, model))
        # the monitor's view of the format: ids mapped with --base-model read as their models
        facts, name = known if known is not None else self._facts(monitor._with_models(spec), model)
        size = usage.total_input
        server = event is not None and event.server_side
        miss = 0 if event is None or not server else 1 if event.actual_read == 0 else 2
        kind = (size < facts.minimum_tokens, read > 0, miss)
        band = min(max(size.bit_length() - 10, 0), _LAST_SIZE)  # powers of two from 1k
        gap = -1 if at is None else bisect.bisect_right(_GAP_TOPS, at - previous.at)
        cells, hours = self._cells, self._hour_cells
        cell, hour = (*name, band, gap, kind), (self._hour_key(at), kind)
        cells[cell] = cells.get(cell, 0) + 1
        hours[hour] = hours.get(hour, 0) + 1
        if event is not None and miss:
            lost = self._lost
            lost[cell] = lost.get(cell, 0) + event.tokens_lost
            lost[hour] = lost.get(hour, 0) + event.tokens_lost
            if ids is not None:
                self._keep(monitor, key, previous, event, facts, ids, before, record, where)

    def _hour_key(self, at: float | None) -> int | str:
        hour: int | str = _NO_TIME if at is None else int(at // 3600) * 3600
        if hour not in self._hours:
            if len(self._hours) >= self.max_groups:
                return _OTHER
            self._hours.add(hour)
        return hour

    def _facts(self, spec: Vendor, model: str | None) -> tuple[ModelFacts, tuple[str, str]]:
        """A model's documented facts and its row's name (bounded: then "(other)")."""
        if len(self._facts_of) >= self.max_groups:
            self._facts_of.clear()
        rules, table = spec.rules, load_min_tokens()
        served = spec.rules_model(model or "")
        facts = ModelFacts(
            vendor=spec.name,
            model=model or "(unknown)",
            marking=rules.marking,
            # as the monitor judges it: the shipped table (or its override file), at the model
            # a mapped id serves
            minimum_tokens=table.minimum(spec.family, served),
            default_ttl_seconds=rules.default_ttl_seconds,
            minimum_assumed=unknown_model(spec, model or "")
            or not served
            or not table.lists(spec.family, served),
        )
        known = self._facts_of[(spec.name, model)] = (facts, self._model_key(facts))
        return known

    def _model_key(self, facts: ModelFacts) -> tuple[str, str]:
        name = (facts.vendor, facts.model)
        if name not in self._models:
            if len(self._models) >= self.max_groups:
                name = (facts.vendor, _OTHER)
                if name in self._models:
                    return name
                facts = dataclasses.replace(facts, model=_OTHER)
            self._models[name] = facts
        return name

    def _swap_ids(self, key: str, ids: _Ids) -> _Ids | None:
        before = self._ids.pop(key, None)
        self._ids[key] = ids
        if len(self._ids) > self.max_keys:
            self._ids.popitem(last=False)
        return before

    def _keep(
        self,
        monitor: Monitor,
        key: str,
        previous: Entry,
        event: Invalidation,
        facts: ModelFacts,
        ids: _Ids,
        before: _Ids | None,
        record: Mapping[str, Any],
        where: tuple[str, int],
    ) -> None:
        if len(self._evidence) >= self.evidence_kept:
            self._left_out += 1
            return
        current = monitor._keys.entries.get(key)
        self._evidence.append(
            evidence(
                monitor,
                key,
                previous,
                current,
                event,
                facts,
                ids,
                before,
                record,
                f"{where[0]}:{where[1]}",
            )
        )

    def result(self) -> VendorSide:
        total = _Tally()
        models: dict[tuple[str, str], _Tally] = {}
        sizes: dict[int, _Tally] = {}
        gaps: dict[int, _Tally] = {}
        lost = self._lost
        for cell, count in self._cells.items():
            vendor, model, size, gap, kind = cell
            for tally in (
                total,
                models.setdefault((vendor, model), _Tally()),
                sizes.setdefault(size, _Tally()),
                gaps.setdefault(gap, _Tally()),
            ):
                tally.add(kind, count, lost.get(cell, 0))
        hours: dict[int | str, _Tally] = {}
        for cell, count in self._hour_cells.items():
            hour, kind = cell
            hours.setdefault(hour, _Tally()).add(kind, count, lost.get(cell, 0))
        gap_names = [name for _, name in GAP_BANDS]
        return VendorSide(
            total=total.row("(all)"),
            by_model=tuple(
                tally.row(f"{vendor}:{model}", self._models[(vendor, model)])
                for (vendor, model), tally in sorted(
                    models.items(), key=lambda item: (-item[1].follow_ups, item[0])
                )
            ),
            by_hour=tuple(
                hours[h].row(_hour_name(h))
                for h in sorted(hours, key=lambda h: (1, h) if isinstance(h, str) else (0, h))
            ),
            by_size=tuple(sizes[i].row(SIZE_BANDS[i][1]) for i in sorted(sizes)),
            by_gap=tuple(gaps[i].row(gap_names[i]) for i in sorted(gaps) if i >= 0)
            + ((gaps[-1].row(_NO_TIME),) if -1 in gaps else ()),
            evidence=tuple(self._evidence),
            evidence_left_out=self._left_out,
        )


def _hour_name(hour: int | str) -> str:
    if isinstance(hour, str):
        return hour
    return datetime.fromtimestamp(hour, tz=timezone.utc).strftime("%Y-%m-%dT%H:%MZ")


def _an_id(value: Any) -> str | None:
    return value if isinstance(value, str) and _ID.fullmatch(value) else None


def _ids_of(record: Mapping[str, Any]) -> _Ids:
    """The vendor's ids in a record: the recorder's `response_id` / `request_id` fields, else the
    response's own `id` (Anthropic, OpenAI) or `responseId` (Gemini)."""
    response = record.get("response")
    own = None
    if isinstance(response, Mapping):
        own = response.get("id", response.get("responseId"))
    return _Ids(
        response=_an_id(record.get("response_id", own)), request=_an_id(record.get("request_id"))
    )


def _cached_count(monitor: Monitor, entry: Entry, records: Sequence[Record]) -> int:
    """How many leading elements of `entry` hold the prefix the monitor expected to be read."""
    tokens, _ = monitor._prefix_tokens(entry)
    total = 0
    for count, record in enumerate(records, start=1):
        total += record.tokens
        if total >= tokens:
            return count
    return len(records)


def _chain(records: Sequence[Record]) -> str:
    """A hash of the elements' own hashes in order (`sha256:` and 16 hex digits)."""
    h = hashlib.sha256()
    for record in records:
        h.update(f"{record.layer}\x00{record.digest:016x}\n".encode())
    return "sha256:" + h.hexdigest()[:16]


def _endpoint(record: Mapping[str, Any], vendor: str) -> str:
    """The record's `endpoint` (a host or region, where the writer named one), else the format."""
    named = record.get("endpoint")
    return named if isinstance(named, str) and _ID.fullmatch(named) else vendor


def _iso(moment: float) -> str:
    return datetime.fromtimestamp(moment, tz=timezone.utc).isoformat().replace("+00:00", "Z")


def evidence(
    monitor: Monitor,
    key: str,
    previous: Entry,
    current: Entry | None,
    event: Invalidation,
    facts: ModelFacts,
    ids: _Ids,
    before: _Ids | None,
    record: Mapping[str, Any],
    where: str,
) -> dict[str, Any]:
    """
    One server-side miss as a support ticket needs it: hashes, counts, times, TTLs and the
    vendor's ids; the key as `export_key` shows it. Nothing of the prompt.
    """
    old = monitor._records(previous)
    count = _cached_count(monitor, previous, old)
    new = monitor._records(current)[:count] if current is not None else ()
    asked = entry_ttls(previous, old)
    return {
        "line": where,
        "at": _iso(event.at),
        "previous_at": _iso(previous.at),
        "gap_seconds": event.gap_seconds,
        "vendor": event.vendor,
        "endpoint": _endpoint(record, event.vendor),
        "model": event.model,
        "key": export_key(key),
        "prefix_elements": count,
        "prefix_hash_before": _chain(old[:count]),
        "prefix_hash_after": _chain(new) if len(new) == count else None,
        "tokens_expected": event.expected_read,
        "tokens_read": event.actual_read,
        "tokens_lost": event.tokens_lost,
        "read": "none" if event.actual_read == 0 else "partial",
        "ttl_requested": sorted(set(asked), key=TTL_SECONDS.__getitem__),
        "ttl_written": sorted(set(written(previous)), key=TTL_SECONDS.__getitem__),
        "ttl_assumed_seconds": monitor._ttl(previous),
        "documented_minimum_tokens": facts.documented_minimum,
        "assumed_minimum_tokens": facts.minimum_tokens if facts.minimum_assumed else None,
        "documented_ttl_seconds": facts.default_ttl_seconds,
        "response_id": ids.response,
        "request_id": ids.request,
        "previous_response_id": None if before is None else before.response,
        "previous_request_id": None if before is None else before.request,
        "vendor_reason": event.vendor_reason,
    }
