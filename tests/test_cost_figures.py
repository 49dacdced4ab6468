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
        ("anthropic", "claude-haiku-4-5", {"cache_read": 7, "cache_write": -5}),
        ("anthropic", "claude-opus-4-6", {"cache_read": 0, "cache_write": 64}),
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


def test_a_report_prices_every_record_at_the_day_it_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The day is asked once (a report running past midnight does not switch rates halfway)."""
    import json

    from promptcache import _report

    days = iter([DAY, DAY + dt.timedelta(days=1)])

    class _Date(dt.date):
        @classmethod
        def today(cls) -> dt.date:
            return next(days)

    monkeypatch.setattr(_report, "date", _Date)
    builder = _report.ReportBuilder(vendor="anthropic")
    usage = {"input_tokens": 10, "cache_read_input_tokens": 0, "output_tokens": 1}
    request = {"model": "claude-sonnet-4-6", "messages": [{"role": "user", "content": "hi"}]}
    for n in range(1, 4):
        line = {"v": 1, "at": 1_764_000_000.0 + n, "request": request, "response": {"usage": usage}}
        builder.add_line(json.dumps(line), n)
    assert builder.result().records == 3
    assert builder._pricer._table.when == DAY


def test_an_unreported_output_is_left_out_of_the_figures_not_priced_at_zero() -> None:
    """`report` sums the input parts and counts the record as one whose output cost is unknown."""
    table = load_prices(when=DAY)
    spent = CacheUsage(
        uncached_input=123,
        cache_read=2_000,
        cache_write=300,
        output=None,
        vendor="anthropic",
        model="claude-sonnet-4-6",
    )
    whole = cost(spent, prices=table)
    assert whole.actual is None and whole.without_cache is None
    actual, without = cost_figures(
        spent, vendor="anthropic", model="claude-sonnet-4-6", prices=table
    )
    assert actual == pytest.approx(sum(whole.breakdown.values()))
    assert without - actual == pytest.approx(whole.savings)
