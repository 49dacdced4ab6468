"""Cache economics: the seed's worked examples, break-even, TTL choice, keep-alives, other models."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptcache import (
    CacheTerms,
    InputError,
    Rates,
    Workload,
    break_even,
    cascade,
    choose_ttl,
    gemini_explicit_vs_implicit,
    model_switch,
    prewarm,
    what_if,
)
from promptcache._economics import ttl_seconds

ANTHROPIC_5M = CacheTerms.from_multipliers(write=1.25, read=0.1, ttl="5m")
ANTHROPIC_1H = CacheTerms.from_multipliers(write=2.0, read=0.1, ttl="1h")


# -- the seed's worked examples (exact) -------------------------------------------------------


def test_seed_document_qa_example() -> None:
    # P = 10,000, Q = 200, N = 100 within the TTL, write 1.25x, read 0.1x.
    workload = Workload(prefix_tokens=10_000, tail_tokens=200, requests=100)
    result = what_if(workload, CacheTerms.from_multipliers(write=1.25, read=0.1))
    assert result.no_cache == 1_020_000
    assert result.with_cache == 131_500  # 12,700 for the cold request + 99 x 1,200
    assert (result.writes, result.reads) == (1, 99)
    assert f"{result.savings:.1%}" == "87.1%"
    assert result.saved == 888_500


def test_seed_break_even_5m() -> None:
    found = break_even(write=1.25, read=0.1)  # 1.25 + 0.1(N-1) < N  <=>  N > 1.28
    assert round(found.threshold or 0, 2) == 1.28
    assert found.requests == 2


def test_seed_break_even_1h() -> None:
    # At 2x/0.1x the break-even is 3 requests (N > 19/9 = 2.11). The seed's "N > 2.25" is its
    # inequality 2 + 0.2(N-1) < N, i.e. a 0.2x read: both give 3 requests.
    assert break_even(write=2.0, read=0.1).requests == 3
    assert break_even(write=2.0, read=0.1).threshold == pytest.approx(19 / 9)
    assert break_even(write=2.0, read=0.2).threshold == 2.25
    assert break_even(write=2.0, read=0.2).requests == 3


@pytest.mark.parametrize(("reuses", "saved"), [(2, 0.325), (5, 0.67), (10, 0.785)])
def test_seed_article_table(reuses: int, saved: float) -> None:
    # The article's table prices the prefix alone: (1.25 + 0.1(N-1)) / N against N.
    result = what_if(Workload(prefix_tokens=3_000, requests=reuses), ANTHROPIC_5M)
    assert result.savings == saved
    assert f"{result.savings:.1%}" == f"{saved:.1%}"


def test_the_article_table_is_prefix_only() -> None:
    with_tail = what_if(Workload(prefix_tokens=3_000, tail_tokens=100, requests=2), ANTHROPIC_5M)
    assert with_tail.savings != 0.325


def test_seed_cascade_expected_cost() -> None:
    # c_s = 1, c_l = 20 per request, no cacheable prefix: E = c_s + (1 - p) c_l.
    workload = Workload(prefix_tokens=0, tail_tokens=1, requests=100)
    small = CacheTerms(input=1.0)
    large = CacheTerms(input=20.0)
    for accept, expected in ((0.7, 7), (0.9, 3), (0.5, 11)):
        result = cascade(workload, small, large, accept_rate=accept)
        assert result.with_cache / 100 == expected
    assert cascade(workload, small, large, accept_rate=0.7).always_large.with_cache == 2000


# -- break-even is the first N that saves -----------------------------------------------------


@given(
    write=st.decimals(min_value="0.5", max_value="4", places=2),
    read=st.decimals(min_value="0", max_value="0.95", places=2),
)
def test_break_even_is_the_first_request_count_that_saves(write: object, read: object) -> None:
    terms = CacheTerms.from_multipliers(write=float(str(write)), read=float(str(read)))
    n = break_even(write=terms.write, read=terms.read).requests
    assert n is not None
    assert what_if(Workload(prefix_tokens=1_000, requests=n), terms).saved > 0
    if n > 1:
        assert what_if(Workload(prefix_tokens=1_000, requests=n - 1), terms).saved <= 0


def test_reads_at_full_price_never_break_even() -> None:
    assert break_even(write=1.25, read=1.0).requests is None


# -- gaps, TTLs, sliding expiry ---------------------------------------------------------------


def test_reads_slide_the_ttl() -> None:
    workload = Workload(prefix_tokens=1_000, requests=4, gaps=(200, 200, 200))
    assert what_if(workload, ANTHROPIC_5M).writes == 1  # each read pushes expiry out
    fixed = CacheTerms(write=1.0, read=0.1, ttl_seconds=300, refresh_on_read=False)
    assert what_if(workload, fixed).writes == 2  # expired at 300 s, rewritten at 400 s


def test_a_gap_of_exactly_the_ttl_misses() -> None:
    workload = Workload(prefix_tokens=1_000, requests=2, gaps=(300,))
    assert what_if(workload, ANTHROPIC_5M).writes == 2
    assert what_if(Workload(prefix_tokens=1_000, requests=2, gaps=(299,)), ANTHROPIC_5M).reads == 1


def test_ttl_choice_follows_the_gaps() -> None:
    slow = Workload(prefix_tokens=10_000, requests=10, gaps=(600,) * 9)
    fast = Workload(prefix_tokens=10_000, requests=10, gaps=(60,) * 9)
    assert choose_ttl(slow, [ANTHROPIC_5M, ANTHROPIC_1H]).best.terms.name == "1h"
    assert choose_ttl(fast, [ANTHROPIC_5M, ANTHROPIC_1H]).best.terms.name == "5m"
    slow_5m = choose_ttl(slow, [ANTHROPIC_5M, ANTHROPIC_1H]).options[0]
    assert (slow_5m.writes, slow_5m.reads) == (10, 0)
    assert slow_5m.with_cache == 10 * 10_000 * 1.25  # every request pays the write premium


@pytest.mark.parametrize(
    ("label", "seconds"), [("5m", 300), ("1h", 3600), ("12h", 43200), ("in_memory", 300)]
)
def test_ttl_labels(label: str, seconds: float) -> None:
    assert ttl_seconds(label) == seconds


def test_a_bad_ttl_label_says_how_to_write_one() -> None:
    with pytest.raises(InputError, match="like '5m', '1h'"):
        ttl_seconds("five minutes")


# -- keep-alives and pre-warming --------------------------------------------------------------


def test_continuous_traffic_gains_nothing_from_prewarming() -> None:
    workload = Workload(prefix_tokens=10_000, requests=50, gaps=(30,) * 49)
    result = prewarm(workload, ANTHROPIC_5M, ping_tokens=0)
    assert result.traffic == "continuous"
    assert (result.cold_starts, result.keepalive_requests, result.keepalive_saves) == (1, 0, 0)
    assert result.prewarm_before_bursts_costs == 1_000  # one more read of the prefix


def test_keepalives_pay_across_gaps_shorter_than_the_break_even() -> None:
    # A 20-minute gap on a 5-minute TTL: 4 keep-alive reads (4 x 1,000) instead of rewriting
    # the prefix (11,500 more than a read).
    workload = Workload(prefix_tokens=10_000, requests=3, gaps=(60, 1200))
    result = prewarm(workload, ANTHROPIC_5M, ping_tokens=0)
    assert result.traffic == "bursty"
    assert (result.cold_starts, result.keepalive_requests) == (2, 4)
    assert result.keepalive_saves == 7_500
    assert result.with_keepalive == what_if(workload, ANTHROPIC_5M).with_cache - 7_500
    assert result.keepalive_pays_below_gap_seconds == 3_600  # 11 keep-alives still cost less


def test_keepalives_do_not_pay_across_long_gaps() -> None:
    workload = Workload(prefix_tokens=10_000, requests=2, gaps=(4 * 3600,))
    result = prewarm(workload, ANTHROPIC_5M, ping_tokens=0)
    assert (result.keepalive_requests, result.keepalive_saves) == (0, 0)


# -- Gemini explicit vs implicit --------------------------------------------------------------

GEMINI = Rates(input=1.25, output=10.0, read=0.125, storage_per_hour=4.5, free_ttls=("implicit",))


def test_gemini_explicit_adds_storage_and_pays_only_when_implicit_misses() -> None:
    workload = Workload(prefix_tokens=100_000, requests=10)
    choice = gemini_explicit_vs_implicit(workload, GEMINI, cache_hours=1)
    assert choice.implicit.with_cache == pytest.approx(0.125 + 9 * 0.0125)
    assert choice.explicit.storage == pytest.approx(0.45)  # 100k tokens x 1 h x 4.50 / M
    assert choice.explicit.with_cache == pytest.approx(0.125 + 10 * 0.0125 + 0.45)
    # Explicit costs 0.4625 more; each implicit miss costs 100k x 1.125 / M = 0.1125.
    assert choice.explicit_pays_below_implicit_hit_rate == pytest.approx(1 - 0.4625 / 1.0125)


def test_gemini_explicit_recreates_an_expired_cache() -> None:
    workload = Workload(prefix_tokens=100_000, requests=3, gaps=(1800, 3600))
    choice = gemini_explicit_vs_implicit(workload, GEMINI, cache_hours=1)
    assert (choice.explicit.writes, choice.explicit.reads) == (2, 1)
    assert choice.explicit.storage == pytest.approx(2 * 0.45)


def test_gemini_comparison_needs_storage_rates() -> None:
    with pytest.raises(InputError, match="storage_per_hour"):
        gemini_explicit_vs_implicit(
            Workload(prefix_tokens=1, requests=2), Rates(input=1.0, output=1.0, read=0.1)
        )


# -- other models -----------------------------------------------------------------------------


def test_a_model_switch_pays_the_second_models_cold_write() -> None:
    workload = Workload(prefix_tokens=10_000, tail_tokens=200, requests=10)
    second = CacheTerms(input=2.0, write=2.5, read=0.2)
    switch = model_switch(workload, ANTHROPIC_5M, second, at=6)
    assert switch.before.writes == 1 and switch.after.writes == 1
    assert switch.cold_penalty == 10_000 * (2.5 - 0.2)
    assert switch.with_cache == (
        what_if(
            Workload(prefix_tokens=10_000, tail_tokens=200, requests=5), ANTHROPIC_5M
        ).with_cache
        + what_if(Workload(prefix_tokens=10_000, tail_tokens=200, requests=5), second).with_cache
    )


def test_a_cascade_counts_the_large_models_cold_cache() -> None:
    workload = Workload(prefix_tokens=10_000, requests=100, gaps=(30,) * 99)
    small = CacheTerms(input=1.0, write=1.25, read=0.1, ttl_seconds=300)
    large = CacheTerms(input=20.0, write=25.0, read=2.0, ttl_seconds=300)
    sparse = cascade(workload, small, large, accept_rate=0.98)  # 2 escalations, 2970 s apart
    assert sparse.escalated == 2 and sparse.large.writes == 2
    assert sparse.large_cold_cost == 2 * 10_000 * (25.0 - 2.0)
    dense = cascade(workload, small, large, accept_rate=0.5)  # 50 escalations, ~60 s apart
    assert dense.large.writes == 1


def test_workload_shape_errors_name_the_value() -> None:
    with pytest.raises(InputError, match="3 gaps given for 3 requests"):
        Workload(prefix_tokens=1, requests=3, gaps=(1, 2, 3))
    with pytest.raises(InputError, match="requests must be at least 1"):
        Workload(prefix_tokens=1, requests=0)
    with pytest.raises(InputError, match="prefix_tokens must be a non-negative whole number"):
        Workload(prefix_tokens=-5)
    with pytest.raises(InputError, match="accept_rate"):
        cascade(Workload(prefix_tokens=1), ANTHROPIC_5M, ANTHROPIC_1H, accept_rate=1.5)


@given(
    gaps=st.lists(st.integers(min_value=0, max_value=299), min_size=1, max_size=30),
    prefix=st.integers(min_value=0, max_value=50_000),
)
def test_gaps_inside_the_ttl_cost_what_no_gaps_cost(gaps: list[int], prefix: int) -> None:
    spaced = Workload(prefix_tokens=prefix, tail_tokens=7, requests=len(gaps) + 1, gaps=tuple(gaps))
    packed = Workload(prefix_tokens=prefix, tail_tokens=7, requests=len(gaps) + 1)
    assert what_if(spaced, ANTHROPIC_5M) == what_if(packed, ANTHROPIC_5M)


def test_a_sliding_cache_with_storage_pays_for_the_extension() -> None:
    terms = CacheTerms(write=1.0, read=0.1, ttl_seconds=3600, storage_per_token_hour=0.5)
    result = what_if(Workload(prefix_tokens=1_000, requests=2, gaps=(1800,)), terms)
    assert result.storage == 1_000 * 1.5 * 0.5  # kept 1 h, then 30 min more after the read
