"""`cost_figures`, what `report` prices every record with, gives `cost()`'s figures exactly."""

from __future__ import annotations

import datetime as dt

import pytest

from promptcache import CacheUsage
from promptcache._pricing import cost, cost_figures, load_prices

DAY = dt.date(2026, 11, 30)


@pytest.mark.parametrize(
    ("vendor", "model", "fields"),
    [
        ("anthropic", "claude-sonnet-4-6", {"cache_read": 2_000, "cache_write": 300}),
        (
            "anthropic",
            "claude-sonnet-4-6",
            {"cache_read": 0, "cache_write": 900, "cache_write_by_ttl": {"5m": 100, "1h": 700}},
        ),
        ("anthropic", "claude-haiku-4-5", {"cache_read": 7, "cache_write": 0}),
        ("openai", "gpt-5.4", {"cache_read": 1_024, "cache_write": 0}),
        ("openai-responses", "gpt-5.6-sol", {"cache_read": 512, "cache_write": 2_048}),
        (
            "gemini",
            "gemini-2.5-pro",
            {"uncached_input": 250_000, "cache_read": 4_096, "cache_write": 0},
        ),
        (
            "gemini",
            "gemini-2.5-pro",
            {"uncached_input": 12, "cache_read": None, "cache_write": None},
        ),
    ],
)
def test_cost_figures_are_costs_actual_and_uncached_figures(
    vendor: str, model: str, fields: dict[str, object]
) -> None:
    values: dict[str, object] = {"uncached_input": 123, "output": 45, **fields}
    spent = CacheUsage(**values, vendor=vendor, model=model)  # type: ignore[arg-type]
    table = load_prices(when=DAY)
    whole = cost(spent, vendor=vendor, model=model, prices=table)
    assert cost_figures(spent, vendor=vendor, model=model, prices=table) == (
        whole.actual,
        whole.without_cache,
    )
