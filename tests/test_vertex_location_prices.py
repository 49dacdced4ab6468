"""
Claude on Vertex AI costs 10% more on a regional or multi-region endpoint than on the global one,
for Claude Sonnet 4.5 and later (Anthropic's Vertex page). The location comes from the endpoint
URL, `AnthropicVertex(region=)` or `genai.Client(location=)`; `cost(location=...)` prices its
tier and says which, the +10% marked derived; no location is priced at the global rate with a
note that it may be 10% more, never silently.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcache import CacheUsage, cost
from promptcache.cli import main
from promptcache.sim.platforms import VertexAnthropicEmulator, VertexGeminiEmulator
from promptcache.vendors.vertex_anthropic import location_of, location_tier

SONNET = "claude-sonnet-4-5@20250929"
OLD = "claude-sonnet-4@20250514"  # before Sonnet 4.5: one price everywhere
USAGE = CacheUsage(uncached_input=1000, cache_read=9000, cache_write=2000, output=500)


@pytest.mark.parametrize(
    ("source", "location"),
    [
        (
            "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/"
            f"publishers/anthropic/models/{SONNET}:rawPredict",
            "us-east5",
        ),
        ("https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers", "global"),
        ("https://aiplatform.us.rep.googleapis.com/v1/projects/p/locations/us/publishers", "us"),
        ("projects/p/locations/europe-west1/publishers/anthropic/models/x", "europe-west1"),
        ("https://example.com/v1/messages", None),
    ],
)
def test_the_location_is_read_from_the_endpoint(source: str, location: str | None) -> None:
    assert location_of(source) == location


def test_the_location_is_read_from_the_sdk_clients() -> None:
    assert location_of(VertexAnthropicEmulator().client(region="europe-west1")) == "europe-west1"
    assert location_of(VertexGeminiEmulator().client(location="us")) == "us"
    assert location_of(object()) is None


def test_the_tiers() -> None:
    assert [location_tier(x) for x in ("global", "us", "eu", "us-east5", None, "nowhere")] == [
        "global",
        "multi-region",
        "multi-region",
        "regional",
        None,
        None,
    ]


def test_a_regional_or_multi_region_call_costs_ten_percent_more() -> None:
    base = cost(USAGE, model=SONNET, vendor="vertex-anthropic", location="global")
    for location, tier in (("us-east5", "regional"), ("eu", "multi-region")):
        priced = cost(USAGE, model=SONNET, vendor="vertex-anthropic", location=location)
        assert priced.actual == pytest.approx(base.actual * 1.1)
        assert priced.without_cache == pytest.approx(base.without_cache * 1.1)
        assert any(tier in n and "+10%" in n and "derived" in n for n in priced.notes)
    assert any("global rate" in n for n in base.notes)


def test_an_unknown_location_is_the_global_rate_said_to_be_maybe_more() -> None:
    base = cost(USAGE, model=SONNET, vendor="vertex-anthropic", location="global")
    for location in (None, "atlantis-1x"):
        priced = cost(USAGE, model=SONNET, vendor="vertex-anthropic", location=location)
        assert priced.actual == pytest.approx(base.actual)
        assert any("10% more" in n and "global rate" in n for n in priced.notes)


def test_models_before_sonnet_4_5_have_one_price_everywhere() -> None:
    here = cost(USAGE, model=OLD, vendor="vertex-anthropic", location="us-east5")
    there = cost(USAGE, model=OLD, vendor="vertex-anthropic", location="global")
    assert here.actual == pytest.approx(there.actual)
    assert not any("10%" in n for n in here.notes)


def test_other_vendors_are_not_repriced_by_a_location_and_say_so() -> None:
    priced = cost(USAGE, model="claude-sonnet-4-5", vendor="anthropic", location="us-east5")
    plain = cost(USAGE, model="claude-sonnet-4-5", vendor="anthropic")
    assert priced.actual == pytest.approx(plain.actual) and plain.notes == ()
    assert any("'us-east5' left out" in n for n in priced.notes)


def test_cost_command_takes_location(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reply = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "ok"}],
        "usage": {"input_tokens": 1000, "cache_read_input_tokens": 9000, "output_tokens": 50},
    }
    path = tmp_path / "reply.json"
    path.write_text(json.dumps(reply))
    args = ["cost", str(path), "--vendor", "vertex-anthropic"]
    assert main([*args, "--location", "us-east5"]) == 0
    assert "regional rate" in capsys.readouterr().out
    assert main(args) == 0
    assert "10% more" in capsys.readouterr().out


def test_cost_json_shows_the_rates_of_the_tier(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "usage.json"
    path.write_text(json.dumps({"usage": {"input_tokens": 10, "output_tokens": 5}}))
    args = ["cost", str(path), "--vendor", "vertex-anthropic", "--model", SONNET, "--format"]
    prices = []
    for location in ("global", "us-east5"):
        assert main([*args, "json", "--location", location]) == 0
        prices.append(json.loads(capsys.readouterr().out)["responses"][0]["prices"])
    regional, world = prices[1]["input"], prices[0]["input"]
    assert regional["per_million"] == pytest.approx(world["per_million"] * 1.1)
    assert "regional tier (derived)" in regional["detail"] and "derived" not in world["detail"]
