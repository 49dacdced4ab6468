"""
The Bedrock emulator counts the minimum per cache point, from the one before it, as AWS
describes it (and the planner plans it): a cache point with fewer tokens than the minimum since
the previous one writes nothing; the Anthropic emulator counts it on the whole prefix.
"""

from __future__ import annotations

from typing import Any

from promptcache.sim import AnthropicEmulator, BedrockEmulator, ManualClock

MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"  # 1,024 tokens on Bedrock
FIRST = "Shipwell order desk: refunds within thirty days, exchanges within sixty. " * 90
SECOND = "Returns manual, chapter two: damaged parcels and lost parcels. " * 45  # < 1,024


def _converse(second: str) -> dict[str, Any]:
    point = {"cachePoint": {"type": "default"}}
    return {
        "modelId": MODEL,
        "system": [{"text": FIRST}, point, {"text": second}, point],
        "messages": [{"role": "user", "content": [{"text": "Where is SH-1?"}]}],
    }


def _anthropic(second: str) -> dict[str, Any]:
    mark = {"type": "ephemeral"}
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 8,
        "system": [
            {"type": "text", "text": FIRST, "cache_control": mark},
            {"type": "text", "text": second, "cache_control": mark},
        ],
        "messages": [{"role": "user", "content": "Where is SH-1?"}],
    }


def test_a_cache_point_short_of_the_minimum_since_the_one_before_writes_nothing() -> None:
    client = BedrockEmulator(clock=ManualClock()).client()
    usage = client.converse(**_converse(SECOND))["usage"]
    # the first point only: SECOND (about 600 tokens) and the question go uncached
    assert usage["cacheWriteInputTokens"] > 1024 and usage["inputTokens"] > 500
    longer = client.converse(**_converse(SECOND * 3))["usage"]  # now over the minimum: written
    assert longer["cacheReadInputTokens"] == usage["cacheWriteInputTokens"]
    assert longer["cacheWriteInputTokens"] > 1024


def test_the_anthropic_emulator_counts_the_whole_prefix() -> None:
    client = AnthropicEmulator(clock=ManualClock()).client()
    usage = client.messages.create(**_anthropic(SECOND)).usage
    assert usage.input_tokens < 50  # both markers written: only the question is uncached
