"""Price table, cost, the counterfactual without caching, savings, user overrides."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcache import CacheUsage, InputError
from promptcache._pricing import cost, load_prices, match_model


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
    assert table.as_of == "2026-11-29"
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
    c = cost(u, vendor="openai-responses", model="gpt-5.6-sol")
    assert c.actual == pytest.approx((3 * 5.0 + 18_011 * 6.25 + 30.0) / 1e6)


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
    assert c.breakdown["storage"] == pytest.approx(9.0)
    assert c.breakdown["cache_read"] == pytest.approx(0.31)


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
    assert table.as_of == "2027-01-01"
    assert table.rates("anthropic", "claude-sonnet-4-6").input == 2.0
    assert table.rates("anthropic", "claude-sonnet-4-6").output == 15.0  # merged field by field
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
    with pytest.raises(InputError, match=r"no price for gemini model 'gemini-2\.5-flash-lite'"):
        cost(usage(), vendor="gemini", model="gemini-2.5-flash-lite")
