"""Price table, cost, the counterfactual without caching, savings, user overrides."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path

import pytest

from promptcache import CacheUsage, InputError
from promptcache._pricing import cost, load_prices, match_model

DAY = dt.date(2026, 11, 30)


def usage(**kwargs: object) -> CacheUsage:
    fields: dict[str, object] = {
        "uncached_input": 0,
        "cache_read": 0,
        "cache_write": 0,
        "output": 0,
    }
    fields.update(kwargs)
    return CacheUsage(**fields)  # type: ignore[arg-type]


def test_table_is_dated_and_has_every_vendor() -> None:
    table = load_prices()
    assert table.as_of == "2026-11-30"
    assert {"anthropic", "openai", "gemini"} <= set(table.vendors)


def test_anthropic_writes_priced_by_ttl() -> None:
    u = usage(
        uncached_input=1_000_000,
        cache_write=3_000_000,
        cache_read=10_000_000,
        output=1_000_000,
        cache_write_by_ttl={"5m": 1_000_000, "1h": 2_000_000},
    )
    c = cost(u, vendor="anthropic", model="claude-sonnet-4-6")
    assert c.breakdown == pytest.approx(
        {
            "uncached_input": 3.0,
            "output": 15.0,
            "cache_read": 3.0,
            "cache_write_5m": 3.75,
            "cache_write_1h": 12.0,
        }
    )
    assert c.actual == pytest.approx(36.75)
    assert c.without_cache == pytest.approx(14 * 3.0 + 15.0)
    assert c.savings == pytest.approx(57.0 - 36.75)


def test_unsplit_write_uses_the_default_ttl() -> None:
    c = cost(usage(cache_write=1_000_000), vendor="anthropic", model="claude-haiku-4-5")
    assert c.breakdown["cache_write"] == pytest.approx(1.25)


def test_writes_that_are_never_read_cost_more_than_no_cache() -> None:
    c = cost(usage(cache_write=1_000_000), vendor="anthropic", model="claude-opus-4-8")
    assert c.savings < 0


def test_openai_56_write_rate_replaces_the_input_rate() -> None:
    # GPT-5.6: each input token at exactly one of uncached / cached / write rates.
    u = usage(
        uncached_input=3,
        cache_write=18_011,
        cache_read=0,
        output=1,
        cache_write_by_ttl={"30m": 18_011},
    )
    c = cost(u, vendor="openai-responses", model="gpt-5.6-sol", prices=load_prices(when=DAY))
    # genai-prices on DAY: input 4.00, write 5.00 (1.25x), output 20.00 per million.
    assert c.actual == pytest.approx((3 * 4.0 + 18_011 * 5.0 + 20.0) / 1e6)


def test_openai_pre56_has_no_write_fee() -> None:
    c = cost(
        usage(uncached_input=100, cache_write=50, cache_read=1000), vendor="openai", model="gpt-5.4"
    )
    assert c.breakdown["cache_write"] == pytest.approx(50 * 2.5 / 1e6)


def test_gemini_storage_is_added() -> None:
    c = cost(
        usage(cache_read=1_000_000),
        vendor="gemini",
        model="gemini-2.5-pro",
        storage_token_hours=1_000_000 * 2,
    )
    assert c.breakdown["storage"] == pytest.approx(9.0)  # our table: 4.50 per 1M per hour
    # genai-prices: 0.125 up to 200k prompt tokens, 0.25 above; this request reads 1M.
    assert c.breakdown["cache_read"] == pytest.approx(0.25)


def test_unknown_caching_priced_as_uncached() -> None:
    u = CacheUsage(
        uncached_input=1000,
        cache_read=None,
        cache_write=None,
        output=0,
        vendor="openai",
        model="gpt-5.5",
    )
    c = cost(u)
    assert c.actual == c.without_cache and c.notes


def test_an_unreported_output_makes_the_total_unknown_not_priced_at_zero() -> None:
    spent = usage(
        uncached_input=1000,
        cache_read=50_000,
        cache_write=2_000,
        output=None,
        vendor="anthropic",
        model="claude-sonnet-4-6",
    )
    c = cost(spent)
    assert c.actual is None and c.without_cache is None and not c.output_reported
    assert "output" not in c.breakdown
    assert any("output tokens not reported" in note for note in c.notes)
    # the savings do not depend on the output (it costs the same with caching or without)
    for output in (0, 777):
        known = cost(dataclasses.replace(spent, output=output))
        assert known.output_reported and known.savings == pytest.approx(c.savings)
        assert known.actual == pytest.approx(sum(c.breakdown.values()) + known.breakdown["output"])


def test_model_and_vendor_come_from_the_record() -> None:
    u = CacheUsage(
        uncached_input=10,
        cache_read=0,
        cache_write=0,
        output=0,
        vendor="anthropic",
        model="claude-sonnet-4-6-20260115",
    )
    assert cost(u).model == "claude-sonnet-4-6-20260115"
    with pytest.raises(InputError, match="needs a vendor and a model"):
        cost(usage())


def test_unknown_model_says_how_to_add_it() -> None:
    with pytest.raises(InputError, match="PROMPTCACHE_PRICES"):
        cost(usage(), vendor="anthropic", model="claude-unknown-9")
    with pytest.raises(InputError, match="no prices for vendor 'engine'"):
        cost(usage(), vendor="engine", model="qwen")


def test_user_file_overrides_and_adds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "prices.json"
    path.write_text(
        json.dumps(
            {
                "as_of": "2027-01-01",
                "vendors": {
                    "anthropic": {"claude-sonnet-4-6": {"input": 2.0}},
                    "openai": {"my-finetune": {"input": 1.0, "read": 0.1, "output": 2.0}},
                },
            }
        )
    )
    table = load_prices(path)
    assert table.override_as_of == "2027-01-01"
    rates = table.rates("anthropic", "claude-sonnet-4-6")
    assert rates.input == 2.0
    assert rates.sources["input"].origin == "override"
    assert rates.sources["input"].as_of == "2027-01-01"
    assert rates.output == 15.0  # merged field by field
    assert rates.sources["output"].origin == "genai-prices"
    monkeypatch.setenv("PROMPTCACHE_PRICES", str(path))
    assert cost(usage(uncached_input=1_000_000), vendor="openai", model="my-finetune").actual == 1.0


def test_missing_write_rate_for_a_ttl_is_an_error() -> None:
    u = usage(cache_write=10, cache_write_by_ttl={"12h": 10})
    with pytest.raises(InputError, match="write_12h"):
        cost(u, vendor="anthropic", model="claude-sonnet-4-6")


@pytest.mark.parametrize(
    ("model", "family", "price"),
    [
        ("claude-opus-5", "claude-opus-5", "claude-opus-5"),
        ("claude-opus-5-5-20261001", "claude-opus-5-5", "claude-opus-5-5"),
        ("claude-opus-50", None, None),
        ("models/gemini-2.5-flash", "gemini-2.5-flash", "gemini-2.5-flash"),
        ("gemini-2.5-flash-lite", "gemini-2.5-flash", None),  # a different tier, its own price
        ("us.anthropic.claude-opus-5-v1:0", "claude-opus-5", "claude-opus-5"),
        ("claude-opus-5@20260101", "claude-opus-5", "claude-opus-5"),
        ("gemini-2.5-flash-preview-05-20", "gemini-2.5-flash", "gemini-2.5-flash"),
    ],
)
def test_model_matching(model: str, family: str | None, price: str | None) -> None:
    keys = ["claude-opus-5", "claude-opus-5-5", "gemini-2.5-flash"]
    assert match_model(model, keys) == family
    assert match_model(model, keys, family=False) == price


def test_a_cheaper_tier_is_not_priced_as_its_family() -> None:
    table = load_prices(when=DAY)
    lite = table.rates("gemini", "gemini-2.5-flash-lite")
    assert lite.input != table.rates("gemini", "gemini-2.5-flash").input
    assert "gemini-2.5-flash-lite" in lite.sources["input"].detail
    with pytest.raises(InputError, match=r"no price for gemini model 'gemini-3-flash-lite'"):
        table.rates("gemini", "gemini-3-flash-lite")  # neither genai-prices nor our table


def test_gpt_4o_is_priced_from_genai_prices() -> None:
    rates = load_prices(when=DAY).rates("openai", "gpt-4o")
    assert (rates.input, rates.read, rates.output) == (2.5, 1.25, 10.0)
    assert rates.writes == {}  # no write fee before GPT-5.6: writes bill as input
    assert rates.free_ttls == ("in_memory", "24h")
    assert {s.origin for s in rates.sources.values()} == {"genai-prices"}
    assert rates.sources["input"].as_of == "2026-11-30"
    assert rates.sources["input"].detail.startswith("genai-prices ")


def test_every_figure_names_its_source_and_date() -> None:
    rates = load_prices(when=DAY).rates("anthropic", "claude-sonnet-4-6")
    assert set(rates.sources) == {"input", "output", "read", "write_5m", "write_1h"}
    assert all(s.as_of for s in rates.sources.values())
    assert rates.sources["input"].effective_from == "2026-03-13"  # a dated price in genai-prices
    storage = load_prices(when=DAY).rates("gemini", "gemini-2.5-pro").sources["storage_per_hour"]
    assert (storage.origin, storage.as_of) == ("table", "2026-11-30")


def test_a_ttl_no_source_lists_follows_the_vendors_multiplier() -> None:
    rates = load_prices(when=DAY).rates("openai", "gpt-5.6-terra")
    assert rates.writes["30m"] == pytest.approx(2.5)  # genai-prices' write rate
    assert rates.writes["12h"] == pytest.approx(2.0 * 1.25)  # our multiplier, UNCONFIRMED
    assert rates.sources["write_12h"].origin == "table"
    assert rates.sources["write_30m"].origin == "genai-prices"


def test_long_prompts_pay_the_long_prompt_tier() -> None:
    table = load_prices(when=DAY)
    assert table.rates("gemini", "gemini-2.5-pro").input == 1.25
    assert table.rates("gemini", "gemini-2.5-pro", input_tokens=250_000).input == 2.5


def test_cached_rates_keep_the_tier_of_each_request_size() -> None:
    # A table resolves each model once and reuses it: the reuse must still move between tiers.
    # gemini-2.5-pro's input price changes for prompts over 200,000 tokens.
    table = load_prices(when=DAY)
    sizes = [0, 199_999, 200_000, 200_001, 250_000, 200_000, 1]
    for size in sizes:  # both sides of the boundary, through the warm table in turn
        fresh = load_prices(when=DAY)  # a table that has priced nothing yet
        assert table.rates("gemini", "gemini-2.5-pro", input_tokens=size) == fresh.rates(
            "gemini", "gemini-2.5-pro", input_tokens=size
        )
        spent = usage(uncached_input=size, cache_read=0, output=1_000, model="gemini-2.5-pro")
        assert cost(spent, vendor="gemini", prices=table) == cost(
            spent, vendor="gemini", prices=fresh
        )
    below = table.rates("gemini", "gemini-2.5-pro", input_tokens=200_000)
    above = table.rates("gemini", "gemini-2.5-pro", input_tokens=200_001)
    assert (below.input, above.input) == (1.25, 2.5)  # the tier starts past 200,000 tokens
    assert "up to 200,000" in below.sources["input"].detail
    assert "over 200,000" in above.sources["input"].detail


def test_a_non_usd_override_never_mixes_in_usd_prices(tmp_path: Path) -> None:
    path = tmp_path / "eur.json"
    path.write_text(json.dumps({"currency": "EUR", "vendors": {}}))
    with pytest.raises(InputError, match="no price for anthropic model 'claude-sonnet-4-6'"):
        load_prices(path).rates("anthropic", "claude-sonnet-4-6")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"vendors": {"anthropic": {"claude-sonnet-4-6": 3.0}}}, r"claude-sonnet-4-6 must be"),
        ({"vendors": {"anthropic": ["claude-sonnet-4-6"]}}, r"vendors\.anthropic must be"),
        (
            {"vendors": {"anthropic": {"claude-sonnet-4-6": {"inptu": 2.0}}}},
            r"unknown field 'inptu'",
        ),
        (
            {"vendors": {"openai": {"gpt-4o": {"input": "cheap"}}}},
            r"gpt-4o\.input must be a non-negative number, got 'cheap'",
        ),
        ({"vendors": {"openai": {"gpt-4o": {"read": -1}}}}, r"gpt-4o\.read must be"),
        ({"vendors": {}, "currancy": "EUR"}, r"unknown top-level key 'currancy'"),
    ],
)
def test_a_malformed_override_is_a_clear_error(tmp_path: Path, data: object, message: str) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=message):
        load_prices(path).rates("anthropic", "claude-sonnet-4-6").input  # noqa: B018


def test_the_shipped_table_is_well_formed() -> None:
    from promptcache._pricing import _shipped, validate_price_file

    validate_price_file(_shipped("prices.json"), "shipped prices.json")


def test_loading_genai_prices_leaves_the_callers_pydantic_plugins_alone() -> None:
    """genai-prices is imported with pydantic's plugins off (logfire's costs a short report
    ~0.15 s); the setting is put back, and the caller's own models still load every plugin."""
    import subprocess
    import sys

    script = """
import os
from promptcache import CacheUsage, cost
usage = CacheUsage(uncached_input=10, cache_read=0, cache_write=0, output=1)
cost(usage, vendor="anthropic", model="claude-sonnet-4-6")
assert "PYDANTIC_DISABLE_PLUGINS" not in os.environ
import pydantic
import pydantic.plugin._loader as loader
assert loader._plugins is None  # not loaded yet: nothing decided for the caller
class Model(pydantic.BaseModel):
    x: int
assert loader._plugins is not None  # loaded, for the caller's model, as without promptcache
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
