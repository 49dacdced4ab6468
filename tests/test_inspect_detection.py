"""`inspect` on a request that OpenAI and a self-hosted engine both read: it says so, and how to pick."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcache.cli import main

SYSTEM = "You are the support agent. You answer questions about orders and refunds. " * 120


def _file(tmp_path: Path, model: str) -> str:
    request = {
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": "Where is my order?"},
        ],
    }
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    return str(path)


def test_a_model_openai_does_not_serve_reads_as_either(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It said "vendor openai" and that OpenAI caches qwen3-8b's prompts, with no word of doubt."""
    assert main(["inspect", _file(tmp_path, "qwen3-8b"), "--bar", "never"]) == 0
    out = capsys.readouterr().out
    assert "fits both" in out and "--vendor engine" in out and "--vendor openai" in out, out
    assert main(["inspect", _file(tmp_path, "qwen3-8b"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["also_fits"] == ["engine"]


@pytest.mark.parametrize(
    ("model", "named"), [("gpt-4o", None), ("qwen3-8b", "engine"), ("qwen3-8b", "openai")]
)
def test_no_doubt_when_the_model_or_the_vendor_settles_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str, named: str | None
) -> None:
    argv = ["inspect", _file(tmp_path, model), "--format", "json"]
    assert main(argv + (["--vendor", named] if named else [])) == 0
    assert json.loads(capsys.readouterr().out)["also_fits"] == []
