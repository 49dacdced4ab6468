"""
Bedrock counts the minimum cacheable prefix per cache point, from the one before it (AWS: "your
first cache checkpoint can be defined after 1,024 tokens and your second ... after 2,048"); the
Claude API counts it on the whole prefix. The planner drops a Bedrock cache point with fewer
than the minimum since the one before it (or that would leave the next one short), saying the
rule, as it drops a point under the minimum on Anthropic.
"""

from __future__ import annotations

import pytest

from promptcache import Layer, Prompt, get_adapter, plan
from promptcache.vendors.bedrock_converse import cache_points

SONNET_ON_BEDROCK = "anthropic.claude-sonnet-4-5-20250929-v1:0"  # 1,024 tokens on both
SONNET = "claude-sonnet-4-5"


def _prompt() -> Prompt:
    system = "Shipwell order desk: refunds within thirty days, exchanges within sixty. " * 90
    docs = "Returns manual, chapter two: damaged parcels and lost parcels. " * 45
    return Prompt().add_system(system).add_docs(docs).with_tail("Where is order SH-1?")


def test_the_prompt_has_a_system_end_over_the_minimum_and_a_short_docs_layer() -> None:
    rendered = _prompt().render()
    system, docs = rendered.layer_tokens(Layer.SYSTEM), rendered.layer_tokens(Layer.DOCS)
    assert system > 1024 and docs < 1024, (system, docs)  # what the tests below rely on


def test_anthropic_marks_both_layer_ends_on_the_whole_prefix() -> None:
    found = plan(_prompt(), vendor="anthropic", model=SONNET)
    assert [b.path for b in found.breakpoints] == ["system[0]", "docs[0]"]


@pytest.mark.parametrize("vendor", ["bedrock-converse", "bedrock-invoke"])
def test_bedrock_drops_a_cache_point_under_the_minimum_since_the_one_before(vendor: str) -> None:
    found = plan(_prompt(), vendor=vendor, model=SONNET_ON_BEDROCK)
    assert [b.path for b in found.breakpoints] == ["docs[0]"]  # the prefix end wins
    note = next(n for n in found.notes if "system[0]" in n)
    assert "per cache point" in note and "docs[0]" in note and "1024" in note


def test_the_converse_request_carries_only_the_cache_points_bedrock_counts() -> None:
    kwargs = get_adapter("bedrock-converse").to_request(_prompt(), model=SONNET_ON_BEDROCK)
    assert [where for where, _, _ in cache_points(kwargs)] == ["system[2]"]


def test_a_cache_point_far_enough_from_the_one_before_is_kept() -> None:
    longer = _prompt().add_docs("Chapter three: customs, duties and carriers abroad. " * 120)
    found = plan(longer, vendor="bedrock-converse", model=SONNET_ON_BEDROCK)
    tokens = [b.tokens for b in found.breakpoints]
    assert len(tokens) == 2 and tokens[0] >= 1024 and tokens[1] - tokens[0] >= 1024
