"""Bedrock model identity: ids, cross-region profiles and ARNs resolve to the model, or say not."""

from __future__ import annotations

import pytest

from promptcache import InputError
from promptcache.vendors._bedrock_models import resolve_model, same_model

SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0"


@pytest.mark.parametrize(
    ("model_id", "kind", "geo", "region"),
    [
        (SONNET, "foundation-model", None, None),
        (f"us.{SONNET}", "inference-profile", "us", None),
        (f"eu.{SONNET}", "inference-profile", "eu", None),
        (f"global.{SONNET}", "inference-profile", "global", None),
        # hermes-agent#46297: `apac.` and `au.` missed by a prefix check
        (f"apac.{SONNET}", "inference-profile", "apac", None),
        (f"au.{SONNET}", "inference-profile", "au", None),
        (f"us-gov.{SONNET}", "inference-profile", "us-gov", None),
        (
            f"arn:aws:bedrock:us-west-2::foundation-model/{SONNET}",
            "foundation-model",
            None,
            "us-west-2",
        ),
        (
            f"arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.{SONNET}",
            "inference-profile",
            "eu",
            "eu-west-1",
        ),
    ],
)
def test_names_that_carry_the_model_resolve(
    model_id: str, kind: str, geo: str | None, region: str | None
) -> None:
    found = resolve_model(model_id)
    assert (found.base, found.kind, found.geo, found.region) == (SONNET, kind, geo, region)
    assert found.resolved and found.provider == "anthropic"


def test_an_application_profile_arn_is_unresolved_unless_mapped() -> None:
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"
    found = resolve_model(arn)
    assert not found.resolved and found.kind == "application-inference-profile"
    assert "unresolved" in found.describe()
    assert resolve_model(arn, {arn: SONNET}).base == SONNET
    assert same_model(arn, SONNET) is None  # cannot tell: never a confident "same"
    assert same_model(arn, SONNET, {arn: SONNET}) is True


def test_same_model_across_profiles() -> None:
    assert same_model(f"us.{SONNET}", f"global.{SONNET}") is True
    assert same_model(f"us.{SONNET}", "us.anthropic.claude-haiku-4-5-20251001-v1:0") is False


def test_a_bad_id_is_refused() -> None:
    with pytest.raises(InputError, match="non-empty string"):
        resolve_model("  ")


@pytest.mark.parametrize(
    ("model_id", "minimum"),
    [
        ("amazon.nova-micro-v1:0", 1536),
        ("us.amazon.nova-micro-v1:0", 1536),  # a cross-region profile of a non-Claude model
        ("arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.amazon.nova-lite-v1:0", 1536),
        ("global.anthropic.claude-sonnet-4-6", 2048),
    ],
)
def test_the_minimum_table_reads_every_name_of_a_model(model_id: str, minimum: int) -> None:
    from promptcache import load_min_tokens

    assert load_min_tokens().minimum("bedrock-converse", model_id) == minimum


def test_a_global_profile_costs_the_list_price_and_a_geographic_one_ten_percent_more() -> None:
    from promptcache import CacheUsage, cost

    usage = CacheUsage(
        uncached_input=1000,
        cache_read=100_000,
        cache_write=10_000,
        output=100,
        cache_write_by_ttl={"1h": 10_000},
    )
    priced = {
        geo: cost(usage, model=f"{geo}{SONNET}", vendor="bedrock").actual
        for geo in ("global.", "us.", "")
    }
    # Sonnet 4.5 list prices: 3 input, 0.30 read, 6 for a 1h write (2x), 15 output
    assert priced["global."] == pytest.approx(0.0945)
    assert priced["us."] == pytest.approx(0.0945 * 1.1)  # geographic profile
    assert priced[""] == pytest.approx(0.0945 * 1.1)  # in-region
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"
    with pytest.raises(InputError):
        cost(usage, model=arn, vendor="bedrock")  # no price for a model it cannot name
