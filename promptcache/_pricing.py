"""
Dated, editable price and minimum-token tables, and the cost of a `CacheUsage`.

Both tables ship as JSON in `promptcache/data/` with the date they were compiled and a source for
every row. Prices change more often than code, so users override them without a release: pass a
JSON file of the same shape to `load_prices(path)` / `load_min_tokens(path)`, or point the
`PROMPTCACHE_PRICES` / `PROMPTCACHE_MIN_TOKENS` environment variables at one. The user file is
merged over the shipped table model by model, field by field.

    cost(usage, model="claude-sonnet-4-6", vendor="anthropic")
    -> Cost(actual=0.0123, without_cache=0.0456, savings=0.0333, ...)

The counterfactual prices every input token at the base input rate: what the same request would
have cost with caching off. OpenAI's GPT-5.6 write rate replaces the input rate (it is not added
on top), as does Anthropic's; Gemini's explicit caches add storage per token-hour.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ._errors import InputError
from ._usage import CacheUsage
from .vendors import get_vendor

__all__ = [
    "Cost",
    "MinTokenTable",
    "PriceTable",
    "Rates",
    "cost",
    "load_min_tokens",
    "load_prices",
    "match_model",
]

PRICES_ENV = "PROMPTCACHE_PRICES"
MIN_TOKENS_ENV = "PROMPTCACHE_MIN_TOKENS"
_MILLION = 1_000_000


def _table_key(vendor: str) -> str:
    """A vendor name or alias as the tables key it: formats of one vendor share a list."""
    try:
        return get_vendor(vendor).family
    except InputError:
        return vendor  # the table says which vendors it knows


def _billed_write_ttl(vendor: str) -> str:
    """Which TTL an unsplit write is billed at (`CacheRules.billed_write_ttl`)."""
    try:
        return get_vendor(vendor).rules.billed_write_ttl or ""
    except InputError:
        return ""


def normalise_model(model: str) -> str:
    """Strip the decorations platforms add: `models/`, Bedrock's `us.anthropic.` and `-v1:0`."""
    name = model.strip().lower()
    name = name.removeprefix("models/")
    if "anthropic." in name:
        name = name.split("anthropic.", 1)[1]
    return name


# What may follow a price key: a dated or versioned snapshot of the same model, never a
# different tier ("-lite", "-mini"), which has its own price.
_SNAPSHOT = re.compile(
    r"(-\d{4}-?\d{2}-?\d{2}|-v\d[\w.:-]*|-latest|-preview[\w.-]*|-exp[\w.-]*|@.*|:.*)$"
)


def match_model(model: str, keys: Any, *, family: bool = True) -> str | None:
    """
    The longest table key that names `model`: equal to it, or a prefix followed by `-`, `@`,
    `:` or `.`. With `family=False` (prices) only a snapshot suffix may follow the key
    (`claude-sonnet-4-6-20260115`, Vertex's `@20260115`, Bedrock's `-v1:0`), so that
    `gemini-2.5-flash-lite` never gets `gemini-2.5-flash`'s price.
    """
    name = normalise_model(model)
    best: str | None = None
    for key in keys:
        k = str(key).lower()
        rest = name[len(k) :] if name.startswith(k) else None
        fits = rest == "" or (
            rest is not None
            and rest[0] in "-@:."
            and (family or _SNAPSHOT.fullmatch(rest) is not None)
        )
        if fits and (best is None or len(k) > len(best)):
            best = str(key)
    return best


# -- tables -----------------------------------------------------------------------------------


def _read_json(path: str | Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"table file {str(path)!r} does not exist") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"table file {str(path)!r} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("vendors"), dict):
        raise InputError(
            f"table file {str(path)!r} needs a top-level object with a 'vendors' object, like "
            "promptcache/data/prices.json"
        )
    return data


def _shipped(name: str) -> dict[str, Any]:
    text = (
        resources.files("promptcache").joinpath("data").joinpath(name).read_text(encoding="utf-8")
    )
    data: dict[str, Any] = json.loads(text)
    return data


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Merge dicts recursively; the override wins on leaves."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _user_file(path: str | Path | None, env: str) -> str | Path | None:
    return path if path is not None else (os.environ.get(env) or None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rates:
    """Per-million-token prices of one model. `writes` maps a TTL ("5m", "1h", "30m", "12h")."""

    input: float
    output: float
    read: float | None = None
    writes: Mapping[str, float] = field(default_factory=dict)
    storage_per_hour: float | None = None
    source: str = ""

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> Rates:
        try:
            writes = {
                k[len("write_") :]: float(v) for k, v in data.items() if k.startswith("write_")
            }
            storage = data.get("storage_per_hour")
            read = data.get("read")
            return cls(
                input=float(data["input"]),
                output=float(data["output"]),
                read=None if read is None else float(read),
                writes=writes,
                storage_per_hour=None if storage is None else float(storage),
                source=str(data.get("source", "")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(
                f"price row {where} is incomplete or not numeric ({exc}); each row needs numeric "
                "'input' and 'output', and optional 'read', 'write_<ttl>', 'storage_per_hour'"
            ) from None


@dataclass(frozen=True, slots=True, kw_only=True)
class PriceTable:
    """Prices by vendor and model, with the date the table was compiled."""

    as_of: str
    currency: str
    vendors: Mapping[str, Mapping[str, Mapping[str, Any]]]

    def rates(self, vendor: str, model: str) -> Rates:
        vendor = _table_key(vendor)
        models = self.vendors.get(vendor)
        if models is None:
            raise InputError(
                f"no prices for vendor {vendor!r}; known: {sorted(self.vendors)}. Self-hosted "
                "engines have no token prices: report their hit rate instead"
            )
        key = match_model(model, models, family=False)
        if key is None:
            raise InputError(
                f"no price for {vendor} model {model!r} in the table dated {self.as_of}; known: "
                f"{sorted(models)}. Add a row in a JSON file and pass it to load_prices(path) or "
                f"set {PRICES_ENV}"
            )
        return Rates.from_json(models[key], f"{vendor}/{key}")


_MINIMA: dict[tuple[int, str, str], tuple[Mapping[str, Any], int]] = {}
_MINIMA_SIZE = 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class MinTokenTable:
    """Minimum cacheable prefix per vendor and model."""

    as_of: str
    vendors: Mapping[str, Mapping[str, Any]]

    def minimum(self, vendor: str, model: str) -> int:
        # Every request plans with its model's minimum: look each one up once per table. The
        # memo holds the table's dict itself, so a new table (an edited file) never matches.
        known = _MINIMA.get((id(self.vendors), vendor, model))
        if known is not None and known[0] is self.vendors:
            return known[1]
        found = self._minimum(vendor, model)
        if len(_MINIMA) >= _MINIMA_SIZE:
            _MINIMA.clear()
        _MINIMA[(id(self.vendors), vendor, model)] = (self.vendors, found)
        return found

    def _minimum(self, vendor: str, model: str) -> int:
        vendor = _table_key(vendor)
        entry = self.vendors.get(vendor)
        if entry is None:
            raise InputError(
                f"no minimum-token table for vendor {vendor!r}; known: {sorted(self.vendors)}"
            )
        models: Mapping[str, int] = entry.get("models", {})
        key = match_model(model, models)
        return int(models[key]) if key is not None else int(entry["default"])


def load_prices(path: str | Path | None = None) -> PriceTable:
    """The shipped price table, merged with `path` or the file named by $PROMPTCACHE_PRICES."""
    data = _table("prices.json", *_user_key(_user_file(path, PRICES_ENV)))
    return PriceTable(
        as_of=str(data.get("as_of", "")),
        currency=str(data.get("currency", "USD")),
        vendors=data["vendors"],
    )


def load_min_tokens(path: str | Path | None = None) -> MinTokenTable:
    """The shipped minimum table, merged with `path` or $PROMPTCACHE_MIN_TOKENS."""
    data = _table("min_tokens.json", *_user_key(_user_file(path, MIN_TOKENS_ENV)))
    return MinTokenTable(as_of=str(data.get("as_of", "")), vendors=data["vendors"])


def _user_key(user: str | Path | None) -> tuple[str | None, float]:
    """The user file and its mtime: an edited file is read again, an unchanged one is not."""
    if user is None:
        return None, 0.0
    try:
        return str(user), Path(user).stat().st_mtime
    except OSError:
        return str(user), -1.0  # _read_json reports the missing file


@functools.lru_cache(maxsize=32)
def _table(name: str, user: str | None, mtime: float) -> dict[str, Any]:
    # Callers get read-only views in practice (PriceTable/MinTokenTable only read them).
    data = _shipped(name)
    return _merge(data, _read_json(user)) if user is not None else data


# -- cost -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Cost:
    """What one request cost, what it would have cost without caching, and the difference."""

    actual: float
    without_cache: float
    breakdown: Mapping[str, float]
    currency: str = "USD"
    vendor: str = ""
    model: str = ""
    as_of: str = ""
    notes: tuple[str, ...] = ()

    @property
    def savings(self) -> float:
        """Negative when caching cost more than it saved (writes that were never read)."""
        return self.without_cache - self.actual


def cost(
    usage: CacheUsage,
    *,
    model: str | None = None,
    vendor: str | None = None,
    prices: PriceTable | None = None,
    storage_token_hours: float = 0.0,
) -> Cost:
    """
    Price `usage`. `model` and `vendor` default to the ones the usage record carries.

    `storage_token_hours` adds Gemini explicit-cache storage: cached tokens times hours kept.
    """
    vendor = vendor or usage.vendor
    model = model or usage.model
    if not vendor or not model:
        raise InputError(
            f"cost() needs a vendor and a model; the usage record has vendor={usage.vendor!r}, "
            f"model={usage.model!r}. Pass vendor=... and model=..."
        )
    table = prices or load_prices()
    rates = table.rates(vendor, model)
    breakdown = _breakdown(usage, rates, vendor, storage_token_hours)
    notes = (
        () if usage.caching_reported else ("caching not reported: all input priced as uncached",)
    )
    without = (usage.total_input * rates.input + usage.output * rates.output) / _MILLION
    return Cost(
        actual=sum(breakdown.values()),
        without_cache=without,
        breakdown=breakdown,
        currency=table.currency,
        vendor=vendor,
        model=model,
        as_of=table.as_of,
        notes=notes,
    )


def _breakdown(
    usage: CacheUsage, rates: Rates, vendor: str, storage_token_hours: float
) -> dict[str, float]:
    out = {
        "uncached_input": usage.uncached_input * rates.input / _MILLION,
        "output": usage.output * rates.output / _MILLION,
    }
    if usage.cache_read:
        if rates.read is None:
            raise InputError(
                f"the price row for {usage.model!r} has no 'read' rate but the usage has "
                f"{usage.cache_read} cache-read tokens; add 'read' to the row"
            )
        out["cache_read"] = usage.cache_read * rates.read / _MILLION
    out.update(_write_costs(usage, rates, vendor))
    if storage_token_hours:
        if rates.storage_per_hour is None:
            raise InputError(
                f"the price row for {usage.model!r} has no 'storage_per_hour'; add it to price "
                "explicit-cache storage"
            )
        out["storage"] = storage_token_hours * rates.storage_per_hour / _MILLION
    return out


def _write_costs(usage: CacheUsage, rates: Rates, vendor: str) -> dict[str, float]:
    """Each TTL at its own rate; the unsplit rest at the default TTL, or at input if no write fee."""
    if not usage.cache_write:
        return {}
    out: dict[str, float] = {}
    split = sum(usage.cache_write_by_ttl.values())
    for ttl, tokens in usage.cache_write_by_ttl.items():
        if tokens:
            out[f"cache_write_{ttl}"] = tokens * _write_rate(rates, ttl, vendor) / _MILLION
    rest = usage.cache_write - split
    if rest > 0:
        ttl = _billed_write_ttl(vendor)
        out["cache_write"] = rest * _write_rate(rates, ttl, vendor) / _MILLION
    return out


def _write_rate(rates: Rates, ttl: str, vendor: str) -> float:
    if ttl in rates.writes:
        return rates.writes[ttl]
    if rates.writes:
        raise InputError(
            f"{vendor} price row has write rates for {sorted(rates.writes)} but not for TTL "
            f"{ttl!r}; add 'write_{ttl}' to the row"
        )
    return rates.input  # no write fee: writes are billed as plain input (OpenAI before GPT-5.6)
