"""
A base model given for an opaque model id (`--base-model`, `base_models=`) that itself names no
model (a first-party name such as `claude-sonnet-4-5` for a Bedrock application inference
profile, a typo) left the id unknown, and every command then told the user to "pass
--base-model", which they had. Each now names the base model given and the form it needs.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from promptcache import Monitor, diff
from promptcache.cli import main

ARN = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"
POLICY = "Shipwell policy: refunds within thirty days of delivery, no questions asked. " * 150


def _converse(question: str) -> dict[str, Any]:
    return {
        "modelId": ARN,
        "system": [{"text": POLICY}, {"cachePoint": {"type": "default"}}],
        "messages": [{"role": "user", "content": [{"text": question}]}],
    }


def test_diff_names_the_base_model_that_names_no_model() -> None:
    result = diff(_converse("a"), _converse("b"), base_models={ARN: "claude-sonnet-4-5"})
    assert "'claude-sonnet-4-5'" in result.detail and "foundation model id" in result.detail
    assert "pass base_models" not in result.detail
    good = diff(
        _converse("a"),
        _converse("b"),
        base_models={ARN: "anthropic.claude-sonnet-4-5-20250929-v1:0"},
    )
    assert "assumed" not in good.detail


def test_cost_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reply = {
        "output": {"message": {"role": "assistant", "content": [{"text": "ok"}]}},
        "usage": {"inputTokens": 14, "outputTokens": 9, "cacheReadInputTokens": 1830},
    }
    path = tmp_path / "reply.json"
    path.write_text(json.dumps(reply))
    args = ["cost", str(path), "--vendor", "bedrock", "--model", ARN]
    assert main([*args, "--base-model", "claude-sonnet-4-5"]) == 2
    err = capsys.readouterr().err
    assert "--base-model 'claude-sonnet-4-5'" in err and "foundation model id" in err
    assert main([*args, "--base-model", "anthropic.claude-sonnet-4-5-20250929-v1:0"]) == 0
    capsys.readouterr()


def test_the_monitor_names_it(caplog: pytest.LogCaptureFixture) -> None:
    monitor = Monitor("bedrock", base_models={ARN: "claude-sonnet-4-5"}, metrics=False)
    # nothing read or written: under the minimum or over it, which the minimum decides
    reply = {
        "usage": {
            "inputTokens": 2900,
            "outputTokens": 9,
            "cacheReadInputTokens": 0,
            "cacheWriteInputTokens": 0,
        }
    }
    with caplog.at_level(logging.WARNING, logger="promptcache.monitor"):
        monitor.observe(_converse("a"), reply)
        monitor.observe(_converse("b"), reply)
    said = [r.getMessage() for r in caplog.records if "names no model" in r.getMessage()]
    assert said and "'claude-sonnet-4-5'" in said[0] and "foundation model id" in said[0]
