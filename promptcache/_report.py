"""
`build_report`: hit rate, tokens, cost and invalidations by cause over a log of requests.

The log is JSON Lines, one record per request:

    {"vendor": "anthropic", "key": "session-42", "at": 1764374400.0,
     "request": {...SDK keyword arguments...}, "response": {...the response JSON...}}

`vendor` may come from the command line instead; `key` defaults to the monitor's key; `at` is
epoch seconds or an ISO 8601 time. The log is read one line at a time and every aggregate is a
counter, so memory stays constant however long the log is: the only per-session state is the
monitor's, which is bounded by its byte budget and key limit.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from ._canonical import load_json
from ._errors import InputError
from ._usage import CacheUsage
from .debug.memory import model_of
from .debug.monitor import Invalidation, Monitor, read_usage
from .vendors import Vendor, resolve_vendor

__all__ = ["CauseSummary", "Report", "build_report"]

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

    def to_json(self) -> dict[str, Any]:
        return {
            "cause": self.cause,
            "events": self.events,
            "tokens_lost": self.tokens_lost,
            "cost_lost": self.cost_lost,
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

    @property
    def total_input(self) -> int:
        return self.uncached_input + self.cache_read + self.cache_write

    @property
    def hit_rate(self) -> float | None:
        return self.cache_read / self.total_input if self.total_input else None

    @property
    def savings(self) -> float | None:
        if self.cost is None or self.cost_without_cache is None:
            return None
        return self.cost_without_cache - self.cost

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
            },
            "cost": {
                "currency": self.currency,
                "actual": self.cost,
                "without_cache": self.cost_without_cache,
                "savings": self.savings,
                "unpriced_records": self.unpriced_records,
            },
            "invalidations": [c.to_json() for c in self.invalidations],
        }


@dataclass(slots=True)
class _Totals:
    records: int = 0
    uncached: int = 0
    read: int = 0
    write: int = 0
    output: int = 0
    cost: float = 0.0
    without: float = 0.0
    priced: int = 0
    unpriced: int = 0
    events: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    lost: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    lost_cost: dict[str, float] = field(default_factory=lambda: defaultdict(float))


class _Pricer:
    """`_pricing.cost` with a cache of failures, so an unpriced model costs one lookup."""

    def __init__(self) -> None:
        self._unknown: set[tuple[str, str]] = set()
        self._table: Any = None

    @property
    def currency(self) -> str:
        """The price table's currency (USD until a table is loaded)."""
        return "USD" if self._table is None else str(self._table.currency)

    def price(
        self, usage: CacheUsage, vendor: str, model: str | None
    ) -> tuple[float, float] | None:
        if not model or (vendor, model) in self._unknown:
            return None
        try:
            from ._pricing import cost, load_prices

            if self._table is None:
                self._table = load_prices()
            result = cost(usage, model=model, vendor=vendor, prices=self._table)
        except (ImportError, InputError):
            self._unknown.add((vendor, model))
            return None
        return result.actual, result.without_cache

    def lost(self, tokens: int, vendor: str, model: str | None) -> float | None:
        """What `tokens` cost as uncached input instead of cache reads."""
        if not tokens:
            return 0.0
        full = self.price(_input(tokens, 0, vendor, model), vendor, model)
        read = self.price(_input(0, tokens, vendor, model), vendor, model)
        return None if full is None or read is None else full[0] - read[0]


def _input(uncached: int, read: int, vendor: str, model: str | None) -> CacheUsage:
    return CacheUsage(
        uncached_input=uncached,
        cache_read=read,
        cache_write=0,
        output=0,
        vendor=vendor,
        model=model,
    )


def build_report(
    lines: Iterable[bytes | str],
    *,
    vendor: str | None = None,
    body_budget: int = 64 * 1024 * 1024,
    max_keys: int = 10_000,
) -> Report:
    """Read log records one by one and total them. `vendor` applies to records that name none."""
    totals, pricer = _Totals(), _Pricer()
    monitors: dict[str, Monitor] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        record = _record(line, number)
        spec = _vendor(record, vendor, number)
        if spec.name not in monitors:
            monitors[spec.name] = Monitor(
                spec, logger=_QUIET, metrics=False, body_budget=body_budget, max_keys=max_keys
            )
        _add(totals, pricer, monitors[spec.name], record, spec, number)
    return _summary(totals, pricer.currency)


def _record(line: bytes | str, number: int) -> Mapping[str, Any]:
    try:
        record = load_json(line, f"line {number}")
    except orjson.JSONDecodeError as exc:
        raise InputError(
            f"line {number}: not valid JSON ({exc}); each line is one record"
        ) from None
    if (
        not isinstance(record, dict)
        or "request" not in record
        or ("response" not in record and "usage" not in record)
    ):
        text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
        raise InputError(
            f"line {number}: expected an object with 'request' and 'response' keys, got "
            f'{text.strip()[:60]!r}; write one {{"request": ..., "response": ...}} a line'
        )
    return record


def _vendor(record: Mapping[str, Any], default: str | None, number: int) -> Vendor:
    """The record's format: named by the record or --vendor (checked), else detected."""
    name = record.get("vendor", default)
    if name is not None and not isinstance(name, str):
        raise InputError(f"line {number}: 'vendor' must be a name, got {name!r}")
    request = record["request"]
    if not isinstance(request, Mapping):
        raise InputError(
            f"line {number}: 'request' must be an object (the SDK call's keyword arguments), "
            f"got {orjson.dumps(request)[:40].decode(errors='replace')}"
        )
    try:
        return resolve_vendor(request, name)
    except InputError as exc:
        raise InputError(f"line {number}: {exc}") from None


def _add(
    totals: _Totals,
    pricer: _Pricer,
    monitor: Monitor,
    record: Mapping[str, Any],
    spec: Vendor,
    number: int,
) -> None:
    request = record["request"]
    if not isinstance(request, Mapping):
        raise InputError(
            f"line {number}: 'request' must be an object (the SDK call's keyword arguments), "
            f"got {orjson.dumps(request)[:40].decode(errors='replace')}"
        )
    try:
        usage = read_usage(spec, _usage_of(record, number))
        event = monitor.observe(
            request, usage=usage, key=record.get("key"), at=_moment(record.get("at"), number)
        )
    except InputError as exc:
        raise InputError(f"line {number}: {exc}") from None
    totals.records += 1
    totals.uncached += usage.uncached_input
    totals.read += usage.cache_read or 0
    totals.write += usage.cache_write or 0
    totals.output += usage.output
    vendor = spec.name
    model = model_of(request, usage)
    priced = pricer.price(usage, vendor, model)
    if priced is None:
        totals.unpriced += 1
    else:
        totals.priced += 1
        totals.cost += priced[0]
        totals.without += priced[1]
    if event is not None:
        _add_event(totals, pricer, event, vendor, model)


def _add_event(
    totals: _Totals, pricer: _Pricer, event: Invalidation, vendor: str, model: str | None
) -> None:
    totals.events[event.cause] += 1
    totals.lost[event.cause] += event.tokens_lost
    lost = pricer.lost(event.tokens_lost, vendor, model)
    if lost is not None:
        totals.lost_cost[event.cause] += lost


def _usage_of(record: Mapping[str, Any], number: int) -> Any:
    answer = record.get("response", record.get("usage"))
    if answer is None:
        raise InputError(f"line {number}: 'response' is null; log the response or its usage")
    return answer


def _moment(value: Any, number: int) -> float | datetime | None:
    if value is None or isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
    raise InputError(f"line {number}: 'at' must be epoch seconds or ISO 8601, got {value!r}")


def _summary(totals: _Totals, currency: str) -> Report:
    causes = [
        CauseSummary(
            cause=cause,
            events=count,
            tokens_lost=totals.lost[cause],
            cost_lost=totals.lost_cost.get(cause),
        )
        for cause, count in totals.events.items()
    ]
    causes.sort(key=lambda c: (-(c.cost_lost or 0.0), -c.tokens_lost, -c.events, c.cause))
    priced = totals.priced > 0
    return Report(
        records=totals.records,
        uncached_input=totals.uncached,
        cache_read=totals.read,
        cache_write=totals.write,
        output=totals.output,
        cost=totals.cost if priced else None,
        cost_without_cache=totals.without if priced else None,
        unpriced_records=totals.unpriced,
        invalidations=tuple(causes),
        currency=currency,
    )
