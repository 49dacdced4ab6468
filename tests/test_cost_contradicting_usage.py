"""`cost` exits 1 when a response's numbers contradict each other: its price rests on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcache.cli import main

_CONTRADICTING = {
    "model": "gpt-4o",
    "usage": {
        "prompt_tokens": 100,
        "completion_tokens": 10,
        "prompt_tokens_details": {"cached_tokens": 200},
    },
}
_CLEAN = {
    "model": "gpt-4o",
    "usage": {
        "prompt_tokens": 300,
        "completion_tokens": 10,
        "prompt_tokens_details": {"cached_tokens": 200},
    },
}


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_contradicting_usage_exits_1_and_names_the_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    bad, good = tmp_path / "bad.json", tmp_path / "good.json"
    bad.write_text(json.dumps(_CONTRADICTING))
    good.write_text(json.dumps(_CLEAN))
    assert main(["cost", "--format", fmt, str(good), str(bad)]) == 1
    assert "less than cached (200)" in capsys.readouterr().out


def test_clean_usage_exits_0(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_CLEAN))
    assert main(["cost", str(good)]) == 0
