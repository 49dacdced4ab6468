"""
The monitor on a Bedrock model id that names no model (an application inference profile ARN):
its minimum is unknown, so a miss is never called `below_minimum` on the table's default, and the
unknown model is said once, with how to tell it, without the ARN's account or any prompt text.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from promptcache import Monitor

ARN = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"
SECRET = "Shipwell refund policy for Jane Roe. "
SHORT = SECRET * 20  # a few hundred tokens: under the 1,024 default, maybe under the real one


def _request(model: str, question: str) -> dict[str, Any]:
    return {
        "modelId": model,
        "system": [{"text": SHORT}, {"cachePoint": {"type": "default"}}],
        "messages": [{"role": "user", "content": [{"text": question}]}],
    }


def _nothing_cached() -> dict[str, Any]:
    usage = {"inputTokens": 300, "outputTokens": 5, "totalTokens": 305}
    return {"usage": {**usage, "cacheReadInputTokens": 0, "cacheWriteInputTokens": 0}}


def _observe(monitor: Monitor, model: str) -> list[str]:
    causes = []
    for question in ("Where is my order?", "And the refund?", "Thanks."):
        event = monitor.observe(_request(model, question), _nothing_cached(), key="s1")
        if event is not None:
            causes.append(event.cause)
    return causes


def test_an_opaque_arn_is_not_judged_below_a_guessed_minimum(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="promptcache")
    assert _observe(Monitor("bedrock-converse"), ARN) == []
    said = [r.getMessage() for r in caplog.records if "names no model" in r.getMessage()]
    assert len(said) == 1  # once, not per request
    assert "min_tokens=" in said[0] and "foundation model id" in said[0]
    assert "123456789012" not in said[0] and "Shipwell" not in said[0]


def test_an_opaque_arn_with_its_minimum_given_is_judged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="promptcache")
    assert _observe(Monitor("bedrock-converse", min_tokens=1024), ARN) == ["below_minimum"]
    assert not any("names no model" in r.getMessage() for r in caplog.records)


def test_a_resolvable_bedrock_id_is_judged_against_its_minimum(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="promptcache")
    model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert _observe(Monitor("bedrock-converse"), model) == ["below_minimum"]
    assert not any("names no model" in r.getMessage() for r in caplog.records)
