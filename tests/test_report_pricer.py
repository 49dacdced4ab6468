"""
`report`'s pricer resolves each (vendor, model) row once and prices every record from it: the
figures must be `cost_figures`' own, asked record by record, and its caches must stay bounded.
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache import CacheUsage
from promptcache._errors import InputError
from promptcache._pricing import cost_figures, load_prices
from promptcache._report import _ROWS_KEPT, _Pricer

MODELS = [
    ("anthropic", "claude-sonnet-4-6"),
    ("anthropic", "claude-haiku-4-5"),
    ("anthropic", "claude-opus-4-6"),
    ("anthropic", "no-such-model"),
    ("openai", "gpt-5.4"),
    ("openai", "gpt-4.1-2025-04-14"),
    ("openai-responses", "gpt-5.6-sol"),
    ("gemini", "gemini-2.5-pro"),  # priced in tiers: 200k input tokens and over cost more
    ("gemini", "gemini-2.5-flash"),
    ("nosuchvendor", "model"),
]

counts = st.integers(min_value=0, max_value=400_000)
usages = st.builds(
    lambda uncached, read, write, output, split, unreported: CacheUsage(
        uncached_input=uncached,
        cache_read=None if unreported else read,
        cache_write=None if unreported else write + sum(split.values()),
        output=output,
        cache_write_by_ttl=split,
    ),
    counts,
    counts,
    counts,
    st.one_of(st.none(), counts),
    st.dictionaries(st.sampled_from(["5m", "1h", "24h"]), counts, max_size=2),
    st.booleans(),
)


def _uncached(usage: CacheUsage, vendor: str, model: str) -> tuple[float, float] | None:
    """The figures asked the slow way: the table looked up for this one record."""
    try:
        return cost_figures(usage, model=model, vendor=vendor, prices=load_prices(when=_today()))
    except (ImportError, InputError):
        return None


def _today() -> dt.date:
    return dt.date.today()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(MODELS), usages), min_size=1, max_size=12))
def test_the_pricer_gives_cost_figures_own_figures_record_by_record(
    records: list[tuple[tuple[str, str], CacheUsage]],
) -> None:
    pricer = _Pricer()
    for (vendor, model), usage in records:
        assert pricer.price(usage, vendor, model) == _uncached(usage, vendor, model)


def test_a_record_its_row_cannot_price_does_not_unprice_the_model() -> None:
    """A write at a TTL the row has no rate for fails that record alone."""
    pricer = _Pricer()
    odd = CacheUsage(
        uncached_input=10, cache_read=0, cache_write=5, output=1, cache_write_by_ttl={"7d": 5}
    )
    fine = CacheUsage(uncached_input=10, cache_read=100, cache_write=0, output=1)
    assert pricer.price(odd, "anthropic", "claude-sonnet-4-6") is None
    assert pricer.price(fine, "anthropic", "claude-sonnet-4-6") == _uncached(
        fine, "anthropic", "claude-sonnet-4-6"
    )


def test_the_pricer_holds_a_bounded_number_of_models() -> None:
    """A log naming a new model on every line (a million of them) must not grow the caches."""
    pricer = _Pricer()
    usage = CacheUsage(uncached_input=10, cache_read=0, cache_write=0, output=1)
    for n in range(_ROWS_KEPT * 2 + 5):
        assert pricer.price(usage, "anthropic", f"claude-unknown-{n}") is None
    assert len(pricer._unknown) <= _ROWS_KEPT
    assert len(pricer._rows) <= _ROWS_KEPT


@pytest.mark.parametrize("tokens", [1_000, 199_999, 200_000, 200_001, 350_000])
def test_each_tier_of_a_tiered_model_is_priced_at_its_own_rates(tokens: int) -> None:
    pricer = _Pricer()
    for size in (1_000, tokens):  # the row resolved at another tier first
        usage = CacheUsage(uncached_input=size, cache_read=0, cache_write=0, output=10)
        assert pricer.price(usage, "gemini", "gemini-2.5-pro") == _uncached(
            usage, "gemini", "gemini-2.5-pro"
        )
