"""
Dated model prices and minimum-token tables, and the cost of a `CacheUsage`.

Model prices (input, output, cache read, cache write where it has them) come from `genai-prices`.
Our own table, `promptcache/data/prices.json`, keeps only what genai-prices lacks: cache-write
multipliers per TTL, Gemini storage per hour, and rows for models it does not list; the
minimum-token table is ours alone. Both files carry the date they were compiled and a source for
every row; every figure a `Rates` holds says where it came from (`Rates.sources`).

Prices change more often than code, so users override them without a release: pass a JSON file
of the same shape to `load_prices(path)` / `load_min_tokens(path)`, or point the
`PROMPTCACHE_PRICES` / `PROMPTCACHE_MIN_TOKENS` environment variables at one. The user's price
file wins field by field over genai-prices and the shipped table; a malformed one is an error that
names the offending entry.

    cost(usage, model="claude-sonnet-4-6", vendor="anthropic")
    -> Cost(actual=0.0123, without_cache=0.0456, savings=0.0333, ...)

The counterfactual prices every input token at the base input rate: what the same request would
have cost with caching off. A response that did not report its output tokens (`usage.output` is
None) has no known total: `actual` and `without_cache` are None, and `savings`, which the output
does not change, stays exact. OpenAI's GPT-5.6 write rate replaces the input rate (it is not added
on top), as does Anthropic's; Gemini's explicit caches add storage per token-hour.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import os
import re
from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from ._errors import InputError
from ._genai_prices import knows_vendor, lookup, snapshot_id, tier_starts
from ._inputs import read_json
from ._usage import CacheUsage
from .vendors import get_vendor

__all__ = [
    "Cost",
    "MinTokenTable",
    "PriceSource",
    "PriceTable",
    "Rates",
    "cost",
    "cost_figures",
    "cost_figures_at",
    "list_price_caveat",
    "load_min_tokens",
    "load_prices",
    "located_rates",
    "match_model",
    "not_per_token_note",
]

PRICES_ENV = "PROMPTCACHE_PRICES"
MIN_TOKENS_ENV = "PROMPTCACHE_MIN_TOKENS"
_MILLION = 1_000_000


# Asked for every priced record; the vendor registry is fixed at import.
@functools.lru_cache(maxsize=64)
def _table_key(vendor: str) -> str:
    """A vendor name or alias as the tables key it: formats of one vendor share a list."""
    try:
        return get_vendor(vendor).family
    except InputError:
        return vendor  # the table says which vendors it knows


# Asked for every priced record; the vendor registry is fixed at import.
@functools.lru_cache(maxsize=64)
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
    # Bedrock's cross-region profiles of other providers' models: `us.amazon.nova-pro-v1:0`
    return _BEDROCK_GEO.sub("", name, count=1)


_BEDROCK_GEO = re.compile(
    r"^(?:[a-z0-9:/-]*/)?(?:global|us-gov|us|eu|apac|jp|au)\.(?=[a-z0-9-]+\.)"
)


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

# Fields a price row may carry, besides `write_<ttl>`.
_ROW_FIELDS = ("input", "output", "read", "storage_per_hour")
_TOP_KEYS = {"format", "as_of", "currency", "unit", "about", "vendors", "write_multipliers"}
_TTL = re.compile(r"[a-z0-9_]+")


# A price or minimum-token table is kilobytes; a bound keeps `/dev/zero`-sized mistakes out.
_TABLE_MAX_BYTES = 16 * 1024 * 1024


def _read_json(path: str | Path) -> dict[str, Any]:
    # The one reading path: a FIFO, device, folder, non-UTF-8 text, deep JSON or a number too
    # long to read is a clear error here as it is for a command's main input.
    data = read_json(path, max_bytes=_TABLE_MAX_BYTES, flag=None, what="table file")
    if not isinstance(data, dict) or not isinstance(data.get("vendors"), dict):
        raise InputError(
            f"table file {str(path)!r} needs a top-level object with a 'vendors' object, like "
            "promptcache/data/prices.json"
        )
    return data


def validate_price_file(data: Mapping[str, Any], where: str) -> None:
    """Raise `InputError` naming the first malformed part of a price file (shipped or user's)."""
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise InputError(
            f"{where}: unknown top-level key {unknown[0]!r}; a price file may hold "
            f"{sorted(_TOP_KEYS)}"
        )
    for key in ("as_of", "currency"):
        if key in data and not isinstance(data[key], str):
            raise InputError(f"{where}: {key!r} must be a string, got {data[key]!r}")
    for vendor, models in data["vendors"].items():
        if not isinstance(models, dict):
            raise InputError(
                f"{where}: vendors.{vendor} must be an object of model rows, got {models!r}"
            )
        for model, row in models.items():
            _validate_row(row, f"{where}: vendors.{vendor}.{model}")
    multipliers = data.get("write_multipliers", {})
    if not isinstance(multipliers, dict):
        raise InputError(f"{where}: 'write_multipliers' must be an object of vendors")
    for vendor, row in multipliers.items():
        _validate_multipliers(row, f"{where}: write_multipliers.{vendor}")


def _validate_row(row: Any, where: str) -> None:
    if not isinstance(row, dict):
        raise InputError(
            f'{where} must be an object like {{"input": 3.0, "output": 15.0, "read": 0.3}}, '
            f"got {row!r}"
        )
    for key, value in row.items():
        if key == "source":
            if not isinstance(value, str):
                raise InputError(f"{where}.source must be a string, got {value!r}")
        elif key in _ROW_FIELDS or (key.startswith("write_") and _TTL.fullmatch(key[6:])):
            _check_price(value, f"{where}.{key}")
        else:
            raise InputError(
                f"{where}: unknown field {key!r}; a row holds {list(_ROW_FIELDS)}, "
                "'write_<ttl>' (e.g. 'write_1h') and 'source'"
            )


def _validate_multipliers(row: Any, where: str) -> None:
    if not isinstance(row, dict):
        raise InputError(f'{where} must be an object like {{"5m": 1.25, "1h": 2.0}}')
    for key, value in row.items():
        if key in ("source", "as_of"):
            continue
        if key == "free_ttls":
            if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
                raise InputError(f"{where}.free_ttls must be a list of TTL names")
        else:
            _check_price(value, f"{where}.{key}")


def _check_price(value: Any, where: str) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not ok or not math.isfinite(value) or value < 0:
        raise InputError(f"{where} must be a non-negative number, got {value!r}")


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
class PriceSource:
    """
    Where one figure came from: `genai-prices`, our shipped `table`, or the user's `override`
    file; `as_of` the date it describes (None when the override file gives none).
    """

    origin: str
    detail: str
    as_of: str | None
    effective_from: str | None = None

    def to_json(self) -> dict[str, str | None]:
        return {
            "origin": self.origin,
            "detail": self.detail,
            "as_of": self.as_of,
            "effective_from": self.effective_from,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Rates:
    """
    Per-million-token prices of one model. `writes` maps a TTL ("5m", "1h", "30m", "12h") to the
    write rate where the vendor charges for writes; `free_ttls` are retention options whose writes
    bill as plain input (OpenAI before GPT-5.6). `sources` says where each figure came from.
    """

    input: float
    output: float
    read: float | None = None
    writes: Mapping[str, float] = field(default_factory=dict)
    storage_per_hour: float | None = None
    source: str = ""
    free_ttls: tuple[str, ...] = ()
    sources: Mapping[str, PriceSource] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> Rates:
        _validate_row(data, f"price row {where}")
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
        except KeyError as exc:
            raise InputError(
                f"price row {where} is incomplete ({exc}); each row needs numeric "
                "'input' and 'output', and optional 'read', 'write_<ttl>', 'storage_per_hour'"
            ) from None


@dataclass(frozen=True, slots=True, kw_only=True)
class PriceTable:
    """
    Prices by vendor and model. Each figure comes from the first of: the user's override file,
    genai-prices (USD tables only), our shipped table; cache-write rates for TTLs that none of
    them lists follow the vendor's write multiplier. `as_of` is the shipped table's date, `when`
    the day genai-prices is asked about.
    """

    as_of: str
    currency: str
    vendors: Mapping[str, Mapping[str, Mapping[str, Any]]]
    overrides: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    override_path: str | None = None
    override_as_of: str | None = None
    write_multipliers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    when: dt.date | None = None
    use_genai_prices: bool = True
    # (vendor, model, day, genai-prices snapshot) -> the tier starts and one `Rates` per tier.
    _resolved: dict[tuple[str, str, dt.date, int], tuple[tuple[int, ...], tuple[Rates, ...]]] = (
        field(default_factory=dict, init=False, repr=False, compare=False)
    )

    def rates(self, vendor: str, model: str, *, input_tokens: int = 0) -> Rates:
        """The model's rates, at the price tier a request of `input_tokens` input tokens pays."""
        # A report prices every record of a log, and resolving a model's rates (model matching,
        # three layers, row parsing) costs far more than pricing a record. The rates differ only
        # between price tiers, so each model is resolved once per tier and a lookup is a dict
        # hit and a bisect on the tier starts read from the price data.
        starts, by_tier = self.tiers(vendor, model)
        return by_tier[bisect_left(starts, input_tokens)]

    def tiers(self, vendor: str, model: str) -> tuple[tuple[int, ...], tuple[Rates, ...]]:
        """The model's tier starts and its rates in each tier, as they are now: a request of `n`
        input tokens pays `rates[bisect_left(starts, n)]`. For a caller that prices many
        requests of one model at one moment's rates (`promptcache report`)."""
        day = self.when or dt.date.today()
        key = (vendor, model, day, snapshot_id() if self._asks_genai_prices() else 0)
        found = self._resolved.get(key)
        if found is None:
            found = self._resolve_tiers(vendor, model, day)
            if len(self._resolved) >= _RESOLVED_SIZE:
                self._resolved.clear()
            self._resolved[key] = found
        return found

    def _asks_genai_prices(self) -> bool:
        return self.use_genai_prices and self.currency == "USD"

    def _resolve_tiers(
        self, vendor: str, model: str, day: dt.date
    ) -> tuple[tuple[int, ...], tuple[Rates, ...]]:
        """The tier starts of the model's prices and its rates in each tier (a single tier when
        its prices are flat): a request of `n` tokens is in tier `bisect_left(starts, n)`."""
        starts: tuple[int, ...] = ()
        if self._asks_genai_prices():
            starts = tier_starts(_table_key(vendor), normalise_model(model), when=_noon(day))
        sizes = (0, *(start + 1 for start in starts))  # one request size inside each tier
        return starts, tuple(self._resolve(vendor, model, day, size) for size in sizes)

    def _resolve(self, vendor: str, model: str, day: dt.date, input_tokens: int) -> Rates:
        """The model's rates at one request size, from every layer (uncached)."""
        vendor = _table_key(vendor)
        figures: dict[str, tuple[float, PriceSource]] = {}
        for layer in self._layers(vendor, model, day, input_tokens):
            for key, (value, source) in layer.items():
                figures.setdefault(key, (value, source))
        if "input" not in figures or "output" not in figures:
            raise self._no_price(vendor, model, figures)
        _derive_writes(figures, vendor, self._multipliers(vendor))
        return _rates(figures, self._free_ttls(vendor, figures))

    # -- layers, first wins ---------------------------------------------------------------------

    def _layers(
        self, vendor: str, model: str, day: dt.date, input_tokens: int
    ) -> list[dict[str, tuple[float, PriceSource]]]:
        known = vendor in self.vendors or vendor in self.overrides or knows_vendor(vendor)
        if not known:
            raise InputError(
                f"no prices for vendor {vendor!r}; known: "
                f"{sorted(set(self.vendors) | set(self.overrides))}. Self-hosted "
                "engines have no token prices: report their hit rate instead"
            )
        layers = [self._override_layer(vendor, model)]
        if self.currency == "USD":  # genai-prices and our shipped rows are in USD
            layers += [
                self._genai_layer(vendor, model, day, input_tokens),
                self._table_layer(vendor, model),
            ]
        return layers

    def _override_layer(self, vendor: str, model: str) -> dict[str, tuple[float, PriceSource]]:
        models = self.overrides.get(vendor, {})
        key = match_model(model, models, family=False)
        if key is None:
            return {}
        detail = f"{self.override_path or 'override'} ({vendor}/{key})"
        source = PriceSource(origin="override", detail=detail, as_of=self.override_as_of)
        return _row_figures(models[key], source)

    def _table_layer(self, vendor: str, model: str) -> dict[str, tuple[float, PriceSource]]:
        models = self.vendors.get(vendor, {})
        key = match_model(model, models, family=False)
        if key is None:
            return {}
        row = models[key]
        detail = f"promptcache table ({vendor}/{key}): {row.get('source', 'no source given')}"
        return _row_figures(row, PriceSource(origin="table", detail=detail, as_of=self.as_of))

    def _genai_layer(
        self, vendor: str, model: str, day: dt.date, input_tokens: int
    ) -> dict[str, tuple[float, PriceSource]]:
        if not self.use_genai_prices:
            return {}
        found = None
        if _BEDROCK_GEO.match(model.strip().lower()):
            # genai-prices prices Bedrock's profiles apart (global, and regional at +10%): ask
            # it with the profile id before the decorations are stripped
            found = lookup(vendor, model.strip(), when=_noon(day), input_tokens=input_tokens)
        if found is None:
            found = lookup(
                vendor, normalise_model(model), when=_noon(day), input_tokens=input_tokens
            )
        if found is None:
            return {}
        tier = _tier_label(found.tier_starts, input_tokens)
        source = PriceSource(
            origin="genai-prices",
            detail=f"genai-prices {found.version} ({found.provider}/{found.model_id}{tier})",
            as_of=day.isoformat(),
            effective_from=found.effective_from,
        )
        default_ttl = _billed_write_ttl(vendor) or None
        out: dict[str, tuple[float, PriceSource]] = {}
        for key, value in found.rates.items():
            if key == "write":
                if default_ttl is None:
                    continue  # a write rate we cannot place on a TTL
                key = f"write_{default_ttl}"
            out[key] = (value, source)
        return out

    def _multipliers(self, vendor: str) -> tuple[dict[str, float], PriceSource | None]:
        row = self.write_multipliers.get(vendor)
        if not row:
            return {}, None
        ttls = {k: float(v) for k, v in row.items() if k not in ("source", "as_of", "free_ttls")}
        source = PriceSource(
            origin="table",
            detail=f"promptcache table (write multipliers, {vendor}): {row.get('source', '')}",
            as_of=str(row.get("as_of", self.as_of)),
        )
        return ttls, source

    def _free_ttls(self, vendor: str, figures: Mapping[str, Any]) -> tuple[str, ...]:
        if any(k.startswith("write_") for k in figures):
            return ()
        row = self.write_multipliers.get(vendor) or {}
        return tuple(row.get("free_ttls", ()))

    def _no_price(self, vendor: str, model: str, figures: Mapping[str, Any]) -> InputError:
        have = f" (found only {sorted(figures)})" if figures else ""
        where = (
            "in genai-prices or the table"
            if self.currency == "USD"
            else f"in the {self.currency} override file"
        )
        return InputError(
            f"no price for {vendor} model {model!r} {where} dated {self.as_of}{have}; known rows: "
            f"{sorted(set(self.vendors.get(vendor, {})) | set(self.overrides.get(vendor, {})))}. "
            f"Add a row in a JSON file and pass it to load_prices(path) or set {PRICES_ENV}"
        )


_RESOLVED_SIZE = 1024


def _noon(day: dt.date) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, 12, tzinfo=dt.timezone.utc)


def _tier_label(starts: tuple[int, ...], input_tokens: int) -> str:
    """Which price tier a request of `input_tokens` pays, named by its bounds (the same words for
    every size in the tier); empty for flat prices."""
    if not starts:
        return ""
    index = bisect_left(starts, input_tokens)
    if index == 0:
        return f", price tier of prompts up to {starts[0]:,} input tokens"
    return f", price tier of prompts over {starts[index - 1]:,} input tokens"


def _row_figures(
    row: Mapping[str, Any], source: PriceSource
) -> dict[str, tuple[float, PriceSource]]:
    return {k: (float(v), source) for k, v in row.items() if k != "source"}


def _derive_writes(
    figures: dict[str, tuple[float, PriceSource]],
    vendor: str,
    multipliers: tuple[dict[str, float], PriceSource | None],
) -> None:
    """Fill write rates for the vendor's other TTLs from its multipliers, for models that charge
    for writes at all (a model without any write rate bills writes as input)."""
    ttls, source = multipliers
    if source is None or not any(k.startswith("write_") for k in figures):
        return
    base = figures["input"][0]
    for ttl, multiplier in ttls.items():
        figures.setdefault(f"write_{ttl}", (base * multiplier, source))


def _rates(figures: Mapping[str, tuple[float, PriceSource]], free_ttls: tuple[str, ...]) -> Rates:
    value = {k: v for k, (v, _) in figures.items()}
    read = value.get("read")
    storage = value.get("storage_per_hour")
    sources = {k: s for k, (_, s) in figures.items()}
    return Rates(
        input=value["input"],
        output=value["output"],
        read=read,
        writes={k[len("write_") :]: v for k, v in value.items() if k.startswith("write_")},
        storage_per_hour=storage,
        source="; ".join(sorted({s.detail for s in sources.values()})),
        free_ttls=free_ttls,
        sources=sources,
    )


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

    def lists(self, vendor: str, model: str) -> bool:
        """
        Whether `minimum` is documented for `model`: a row names it, or the vendor documents one
        minimum for all its models (no rows). Else it is the default, assumed for a model the
        rows do not name.
        """
        entry = self.vendors.get(_table_key(vendor), {})
        rows = entry.get("models", {})
        if match_model(model, rows) is not None or (not rows and "default" in entry):
            return True
        inherited = entry.get("inherits")
        return inherited is not None and "default" not in entry and self.lists(inherited, model)

    def _minimum(self, vendor: str, model: str) -> int:
        vendor = _table_key(vendor)
        entry = self.vendors.get(vendor)
        if entry is None:
            raise InputError(
                f"no minimum-token table for vendor {vendor!r}; known: {sorted(self.vendors)}"
            )
        own: Mapping[str, int] = entry.get("models", {})
        key = match_model(model, own)
        if key is not None:
            return int(own[key])
        inherited = entry.get("inherits")
        if inherited is not None and "default" not in entry:
            # A platform serving another vendor's models: that vendor's table, where its own
            # rows are silent (a fact is kept once).
            return self._minimum(str(inherited), model)
        return int(entry["default"])


def load_prices(
    path: str | Path | None = None,
    *,
    when: dt.date | None = None,
    use_genai_prices: bool = True,
) -> PriceTable:
    """
    Prices from genai-prices and the shipped table, under `path` or the file named by
    $PROMPTCACHE_PRICES (which wins field by field). `when` is the day genai-prices prices for
    (today by default); `use_genai_prices=False` uses only the shipped table and the override.
    """
    shipped = _shipped("prices.json")
    user = _user_file(path, PRICES_ENV)
    override = None
    if user is not None:
        name, mtime = _user_key(user)
        override = _override(str(name), mtime)
    multipliers = dict(shipped.get("write_multipliers", {}))
    if override is not None:
        multipliers = _merge(multipliers, override.get("write_multipliers", {}))
    return PriceTable(
        as_of=str(shipped.get("as_of", "")),
        currency=str((override or {}).get("currency", shipped.get("currency", "USD"))),
        vendors=shipped["vendors"],
        overrides=(override or {}).get("vendors", {}),
        override_path=None if user is None else str(user),
        override_as_of=None if override is None else override.get("as_of"),
        write_multipliers=multipliers,
        when=when,
        use_genai_prices=use_genai_prices,
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
def _override(user: str, mtime: float) -> dict[str, Any]:
    data = _read_json(user)
    validate_price_file(data, f"price file {user!r}")
    return data


@functools.lru_cache(maxsize=32)
def _table(name: str, user: str | None, mtime: float) -> dict[str, Any]:
    # Callers get read-only views in practice (PriceTable/MinTokenTable only read them).
    data = _shipped(name)
    return _merge(data, _read_json(user)) if user is not None else data


# -- cost -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Cost:
    """
    What one request cost, what it would have cost without caching, and the difference.

    `actual` and `without_cache` are None when the response did not report its output tokens:
    the output's cost is unknown, and a total that priced it at 0 would be wrong. `savings` is
    exact either way (caching does not change the output's cost, so it cancels out; negative when
    caching cost more than it saved: writes that were never read), and `breakdown` then holds the
    input parts only, with a note that says so.
    """

    actual: float | None
    without_cache: float | None
    savings: float
    breakdown: Mapping[str, float]
    currency: str = "USD"
    vendor: str = ""
    model: str = ""
    as_of: str = ""
    notes: tuple[str, ...] = ()
    # "per-token", or a bill that is not (`NOT_PER_TOKEN`): `actual` and `without_cache` are
    # then None and `list_price` keeps what the tokens would cost at list prices
    billing: str = "per-token"
    list_price: float | None = None

    @property
    def output_reported(self) -> bool:
        """Whether the output was priced (`actual` and `without_cache` are known)."""
        return self.actual is not None


def located_rates(
    rates: Rates, vendor: str, model: str, location: str | None
) -> tuple[Rates, tuple[str, ...]]:
    """Claude on Vertex AI at a location's tier (the price sources list the global rate): the
    rates and a note naming the tier; other vendors and models unchanged."""
    from .vendors import vertex_anthropic as vertex

    if _table_key(vendor) != "vertex-anthropic":
        if location is None:
            return rates, ()
        if _table_key(vendor) == "vertex-gemini":  # wrap() records where its calls went
            return rates, (
                f"location {location!r} not priced: Gemini on Vertex AI is priced at the rows "
                "genai-prices lists for it, which name no location",
            )
        # said, not dropped silently: Bedrock's tier follows its model id's profile instead
        return rates, (
            f"location {location!r} left out: only Claude on Vertex AI is priced by it; this "
            f"was priced as {vendor} (a Vertex AI answer: pass --vendor vertex-anthropic)",
        )
    if not vertex.location_premium(model):
        return rates, ()
    tier = vertex.location_tier(location)
    if tier is None:
        said = "location not given" if location is None else f"location {location!r} not known"
        return rates, (
            f"{said}: priced at Vertex AI's global rate; a regional or multi-region endpoint "
            f"costs 10% more for {model} (pass location=, or --location)",
        )
    if tier == "global":
        return rates, ("priced at Vertex AI's global rate (location global)",)
    scale, derived = 1 + vertex.LOCATION_PREMIUM, f"; +10% for the {tier} tier (derived)"
    scaled = replace(
        rates,
        input=rates.input * scale,
        output=rates.output * scale,
        read=None if rates.read is None else rates.read * scale,
        writes={ttl: rate * scale for ttl, rate in rates.writes.items()},
        source=rates.source + derived,
        sources={k: replace(v, detail=v.detail + derived) for k, v in rates.sources.items()},
    )
    note = (
        f"priced at Vertex AI's {tier} rate ({location}): the global rate +10%, derived "
        "(Anthropic's Vertex page; not read from a Google price page)"
    )
    return scaled, (note,)


def cost(
    usage: CacheUsage,
    *,
    model: str | None = None,
    vendor: str | None = None,
    prices: PriceTable | None = None,
    storage_token_hours: float = 0.0,
    location: str | None = None,
    billing: str | None = None,
) -> Cost:
    """
    Price `usage`. `model` and `vendor` default to the ones the usage record carries.

    `storage_token_hours` adds Gemini explicit-cache storage: cached tokens times hours kept.
    `location`: where a Claude on Vertex AI call went (`vertex_anthropic.location_of` reads it
    from the URL or client); its tier's rate applies, and a note says which.
    `billing`: "provisioned" (an Azure PTU deployment) or "ccu" (Foundry's Claude Consumption
    Units) declares a bill that is not per token: the cost then says so and gives no total.
    """
    check_billing(billing)
    vendor = vendor or usage.vendor
    model = model or usage.model
    if not vendor or not model:
        raise InputError(
            f"cost() needs a vendor and a model; the usage record has vendor={usage.vendor!r}, "
            f"model={usage.model!r}. Pass vendor=... and model=..."
        )
    table = prices or load_prices()
    rates = table.rates(vendor, model, input_tokens=usage.total_input)
    rates, where = located_rates(rates, vendor, model, location)
    breakdown = _breakdown(usage, rates, vendor, storage_token_hours)
    spent = sum(breakdown.values())
    without = _without_cache(usage.total_input, usage.output or 0, rates)
    known = usage.output is not None
    notes = (
        (() if usage.caching_reported else ("caching not reported: all input priced as uncached",))
        + (() if known else (_OUTPUT_NOT_REPORTED,))
        + where
    )
    priced = Cost(
        actual=spent if known else None,
        without_cache=without if known else None,
        savings=without - spent,
        breakdown=breakdown,
        currency=table.currency,
        vendor=vendor,
        model=model,
        as_of=table.as_of,
        notes=notes,
    )
    return _billed(priced, billing)


# Bills that are not per token (vendors-cloud.md §7): the name `cost(billing=)` takes, its label
# and what the bill is instead.
NOT_PER_TOKEN: Mapping[str, tuple[str, str]] = {
    "provisioned": (
        "provisioned",
        "a provisioned (PTU) deployment is billed for its reserved throughput by the hour, "
        "whatever tokens it serves",
    ),
    "ccu": (
        "CCU",
        "Foundry bills Claude in Claude Consumption Units through the Azure Marketplace, at "
        "rates not read here",
    ),
}
# Platforms whose per-token figures are list prices, not what the platform bills.
_LIST_PRICES_ONLY: Mapping[str, str] = {
    "foundry": "Foundry bills Claude in Claude Consumption Units (CCUs) through the Azure "
    "Marketplace: these are Anthropic's per-token list prices, not the bill (pass billing='ccu' "
    "or --billing ccu to say so)",
}


def check_billing(billing: str | None) -> None:
    """Refuse a `billing=` name that is not known, naming the ones that are."""
    if billing is None or billing == "per-token" or billing in NOT_PER_TOKEN:
        return
    raise InputError(
        f"billing={billing!r} is not known; choose 'per-token' (the default), 'provisioned' (an "
        "Azure provisioned/PTU deployment) or 'ccu' (Foundry's Claude Consumption Units)"
    )


def list_price_caveat(vendor: str) -> str | None:
    """Why `vendor`'s per-token figures are list prices and not its bill (Foundry), or None."""
    return _LIST_PRICES_ONLY.get(_table_key(vendor))


def not_per_token_note(billing: str) -> str:
    """What a bill that is not per token (`NOT_PER_TOKEN`) is instead, said on its cost."""
    label, why = NOT_PER_TOKEN[billing]
    return (
        f"not priced per token ({label}): {why}; what the tokens would cost at list prices is "
        "kept as list_price, for comparison only"
    )


def _billed(price: Cost, billing: str | None) -> Cost:
    """`price` as the bill it is: per token (a platform's list-price caveat noted), or not."""
    if billing is None or billing == "per-token":
        caveat = list_price_caveat(price.vendor)
        return price if caveat is None else replace(price, notes=(*price.notes, caveat))
    note = not_per_token_note(billing)
    return replace(
        price,
        actual=None,
        without_cache=None,
        billing=billing,
        list_price=price.actual,
        notes=(*price.notes, note),
    )


_OUTPUT_NOT_REPORTED = (
    "output tokens not reported: the output's cost is unknown, so the total is too "
    "(savings are exact; the breakdown holds the input parts)"
)


def cost_figures(
    usage: CacheUsage, *, model: str, vendor: str, prices: PriceTable
) -> tuple[float, float]:
    """
    `cost(...)`'s `actual` and `without_cache`, the same figures computed the same way, for a
    caller that prices every record of a log and reads nothing else (`promptcache report`).
    When the output was not reported they price the input alone (what `cost` leaves in its
    breakdown): the caller must count such records and say that their output is not in the sum.
    """
    return cost_figures_at(
        usage, prices.rates(vendor, model, input_tokens=usage.total_input), vendor
    )


def cost_figures_at(usage: CacheUsage, rates: Rates, vendor: str) -> tuple[float, float]:
    """`cost_figures` at `rates`, the model's rates at the usage's tier (`PriceTable.tiers`)."""
    total_input = usage.total_input
    output = usage.output or 0  # unreported: left out, and the caller says so
    # `_breakdown`'s values, in its order, summed as `cost` sums them; no dict of named parts.
    terms = [usage.uncached_input * rates.input / _MILLION, output * rates.output / _MILLION]
    if usage.cache_read:
        if rates.read is None:
            _breakdown(usage, rates, vendor, 0.0)  # raises, naming the missing rate
        terms.append(usage.cache_read * rates.read / _MILLION)  # type: ignore[operator]
    write = usage.cache_write
    if write and not usage.cache_write_by_ttl:  # `_write_costs` with no TTL split: one term
        if write > 0:
            terms.append(write * _write_rate(rates, _billed_write_ttl(vendor), vendor) / _MILLION)
    elif write:
        terms += _write_costs(usage, rates, vendor).values()
    return sum(terms), _without_cache(total_input, output, rates)


def _without_cache(total_input: int, output: int, rates: Rates) -> float:
    """The counterfactual: every input token at the input rate (`output` 0 when unreported, as
    `_breakdown` leaves its part out)."""
    return (total_input * rates.input + output * rates.output) / _MILLION


def _breakdown(
    usage: CacheUsage, rates: Rates, vendor: str, storage_token_hours: float
) -> dict[str, float]:
    out = {"uncached_input": usage.uncached_input * rates.input / _MILLION}
    if usage.output is not None:  # unreported: no output part, rather than a part of 0
        out["output"] = usage.output * rates.output / _MILLION
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
