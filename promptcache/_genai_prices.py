"""
Model prices read from `genai-prices`, the maintained price data of the Pydantic ecosystem.

genai-prices knows input, output, cache-read and cache-write rates (the write at the vendor's
default TTL, and Anthropic's 1-hour write) for many more models than we could keep by hand. It
does not know cache-write rates for other TTLs, minimum cacheable tokens or Gemini storage: those
stay in our own table (`promptcache/data/prices.json`).

    figures = lookup("openai", "gpt-4o", when=datetime(2026, 11, 30, tzinfo=UTC), input_tokens=0)
    figures.rates  -> {"input": 2.5, "read": 1.25, "output": 10.0}
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from importlib.metadata import PackageNotFoundError, version
from typing import Any

__all__ = [
    "GenaiFigures",
    "knows_vendor",
    "lookup",
    "package_version",
    "snapshot_id",
    "tier_starts",
    "vendor_of",
]

# genai-prices price keys -> our row fields. "write" is the vendor's default TTL; the caller
# names that TTL.
_FIELDS = {
    "input_mtok": "input",
    "output_mtok": "output",
    "cache_read_mtok": "read",
    "cache_write_mtok": "write",
    "cache_write_1h_mtok": "write_1h",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class GenaiFigures:
    """The figures genai-prices has for one model, per million tokens, and where they came from."""

    rates: Mapping[str, float]
    model_id: str
    provider: str
    version: str
    effective_from: str | None
    tiered: bool
    tier_starts: tuple[int, ...] = ()


@functools.cache
def package_version() -> str:
    try:
        return version("genai-prices")
    except PackageNotFoundError:  # pragma: no cover - a core dependency
        return "unknown"


def lookup(vendor: str, model: str, *, when: dt.datetime, input_tokens: int) -> GenaiFigures | None:
    """The model's figures in force at `when`, at the tier `input_tokens` falls in; None if absent."""
    found = _raw(vendor, model, when, snapshot_id())
    if found is None:
        return None
    raw, model_id, provider, effective_from = found
    starts = _starts(raw)
    return GenaiFigures(
        rates={field: float(_at_tier(value, input_tokens)) for field, value in raw.items()},
        model_id=model_id,
        provider=provider,
        version=package_version(),
        effective_from=effective_from,
        tiered=bool(starts),
        tier_starts=starts,
    )


def tier_starts(vendor: str, model: str, *, when: dt.datetime) -> tuple[int, ...]:
    """
    Every input size at which one of the model's prices changes tier, ascending: a request of
    `n` input tokens pays the same rates as any other request with as many starts below `n`
    (`_at_tier` moves to a tier when `n > start`). Empty for flat prices or an unknown model.
    """
    found = _raw(vendor, model, when, snapshot_id())
    return () if found is None else _starts(found[0])


def snapshot_id() -> int:
    """Which genai-prices data is in force (`UpdatePrices` swaps the snapshot). Asked once per
    priced record, so the module is looked up once rather than imported on every call."""
    return id(_data_snapshot().get_snapshot())


@functools.cache
def _data_snapshot() -> Any:
    """genai-prices' snapshot module, imported once, the first time prices are needed."""
    if "pydantic" in sys.modules or _PLUGINS_OFF in os.environ:
        from genai_prices import data_snapshot
    else:
        # genai-prices declares pydantic types on import, and pydantic then imports every
        # installed pydantic plugin (logfire's takes ~0.15 s, most of a short `report`). Before
        # pydantic is imported no model of the caller's exists, so none misses its plugins; the
        # setting is read at each schema build and not cached, so the caller's later models load
        # them as usual. Only genai-prices' own price types go without.
        os.environ[_PLUGINS_OFF] = "__all__"
        try:
            from genai_prices import data_snapshot
        finally:
            del os.environ[_PLUGINS_OFF]
    return data_snapshot


_PLUGINS_OFF = "PYDANTIC_DISABLE_PLUGINS"


def _starts(raw: Mapping[str, Any]) -> tuple[int, ...]:
    return tuple(
        sorted(
            {
                int(tier.start)
                for value in raw.values()
                if not isinstance(value, Decimal)
                for tier in value.tiers
            }
        )
    )


@functools.lru_cache(maxsize=256)
def _raw(
    vendor: str, model: str, when: dt.datetime, snapshot: int
) -> tuple[dict[str, Any], str, str, str | None] | None:
    """genai-prices' own price objects for the model; cached per snapshot (`UpdatePrices` swaps
    it), since a report prices every record of a log."""
    if _provider(vendor) is None:
        return None
    found = _provider_model(vendor, model)
    if found is None:
        return None
    provider, info = found
    prices = info.get_prices(when)
    raw = {
        f: getattr(prices, k) for k, f in _FIELDS.items() if getattr(prices, k, None) is not None
    }
    if "input" not in raw:
        return None
    return raw, info.id, provider.id, _effective_from(info.prices, when)


def _provider_model(vendor: str, model: str) -> tuple[Any, Any] | None:
    """The first of the vendor's providers (`PLATFORM_PROVIDERS`) that prices `model`."""
    snapshot = _data_snapshot().get_snapshot()
    for provider_id in PLATFORM_PROVIDERS.get(vendor, (vendor,)):
        try:
            found: tuple[Any, Any] = snapshot.find_provider_model(model, None, provider_id, None)
        except LookupError:
            continue
        return found
    return None


def _at_tier(value: Any, input_tokens: int) -> Decimal:
    """A flat price, or the tier a request of `input_tokens` input tokens is billed at."""
    if isinstance(value, Decimal):
        return value
    price: Decimal = value.base
    for tier in value.tiers:
        if input_tokens > tier.start:
            price = tier.price
    return price


def _effective_from(prices: Any, when: dt.datetime) -> str | None:
    """The start date of the dated price in force at `when`, when genai-prices records one."""
    if not isinstance(prices, list):
        return None
    for conditional in reversed(prices):
        constraint = conditional.constraint
        if constraint is None:
            return None
        if constraint.active(when):
            start = getattr(constraint, "start_date", None)
            return None if start is None else start.isoformat()
    return None


# Cloud platforms (families of `promptcache.vendors`) and the genai-prices providers that price
# them, first found wins: genai-prices' `google` lists Claude and Gemini on Vertex AI; its
# `azure` prices OpenAI's models (falling back to OpenAI's list itself); Foundry bills in Claude
# Consumption Units, priced here at Anthropic's list; Bedrock's Messages API at `aws`'s rows
# (the source of each price names the provider and row it came from).
PLATFORM_PROVIDERS: Mapping[str, tuple[str, ...]] = {
    "vertex-anthropic": ("google",),
    "vertex-gemini": ("google",),
    "azure-openai": ("azure",),
    "foundry": ("anthropic",),
    "bedrock-mantle": ("aws", "anthropic"),
}


def knows_vendor(vendor: str) -> bool:
    """Whether genai-prices has prices for our vendor family `vendor` ("gemini" is its "google")."""
    return _provider(vendor) is not None


def _provider(vendor: str) -> Any:
    """genai-prices' provider for one of the registry's vendor families; None for the rest."""
    from .vendors import VENDORS

    data_snapshot = _data_snapshot()

    if vendor not in {v.family for v in VENDORS}:
        return None
    providers = data_snapshot.get_snapshot().providers
    for provider_id in PLATFORM_PROVIDERS.get(vendor, (vendor,)):
        found = data_snapshot.find_provider_by_id(providers, provider_id)
        if found is not None:
            return found
    return None


def vendor_of(model: str) -> str | None:
    """Our vendor family for `model`, from genai-prices' provider detection; None if it cannot tell."""
    from .vendors import VENDORS

    data_snapshot = _data_snapshot()

    try:
        provider = data_snapshot.get_snapshot().find_provider(model.lower(), None, None)
    except LookupError:
        return None
    for family in dict.fromkeys(v.family for v in VENDORS):
        found = _provider(family)
        if found is not None and found.id == provider.id:
            return family
    return None
