"""
`report`'s vendor-side rows print each model's "documented minimum". For a model id that names
no model (an application inference profile ARN) or a model no row of the table names, that was
the table's default, printed as documented; and an ARN mapped with `--base-model` showed the
default instead of its served model's minimum, which the monitor judged by. Now the served
model's minimum is shown, and an assumed one says so (JSON: `documented_minimum_tokens` null,
`assumed_minimum_tokens` the figure judged by).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptcache._report import build_report
from promptcache.cli import main

ARN = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"
HAIKU = "anthropic.claude-haiku-4-5-20251001-v1:0"  # 4,096 tokens on Bedrock
POLICY = "Policy. " * 1500


def _lines(model: str) -> list[str]:
    out = []
    for i, (read, write) in enumerate([(0, 3000), (3000, 0)]):
        record = {
            "vendor": "bedrock-converse",
            "key": "s",
            "at": 1_764_374_400 + 10 * i,
            "request": {
                "modelId": model,
                "system": [{"text": POLICY}, {"cachePoint": {"type": "default"}}],
                "messages": [{"role": "user", "content": [{"text": f"q{i}"}]}],
            },
            "response": {
                "usage": {
                    "inputTokens": 12,
                    "outputTokens": 5,
                    "cacheReadInputTokens": read,
                    "cacheWriteInputTokens": write,
                }
            },
        }
        out.append(json.dumps(record))
    return out


def _model_row(lines: list[str], **options: Any) -> dict[str, Any]:
    side = build_report(lines, **options).to_json()["vendor_side"]
    [row] = side["by_model"]
    return row  # type: ignore[no-any-return]


def test_an_opaque_arns_minimum_is_said_to_be_assumed() -> None:
    facts = _model_row(_lines(ARN))
    assert facts["documented_minimum_tokens"] is None
    assert facts["assumed_minimum_tokens"] == 1024


def test_a_mapped_arn_shows_its_served_models_minimum() -> None:
    facts = _model_row(_lines(ARN), base_models={ARN: HAIKU})
    assert facts["documented_minimum_tokens"] == 4096
    assert facts.get("assumed_minimum_tokens") is None


def test_a_listed_model_keeps_its_documented_minimum() -> None:
    facts = _model_row(_lines(HAIKU))
    assert facts["documented_minimum_tokens"] == 4096


def test_the_text_says_assumed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(_lines(ARN)) + "\n")
    assert main(["report", str(log)]) == 0
    out = capsys.readouterr().out
    assert "minimum 1,024 tokens assumed" in out and "documented minimum" not in out
