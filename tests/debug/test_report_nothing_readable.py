"""`report` over a log none of whose lines can be read is exit 2, not a clean empty report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcache.cli import main

_CONVERSE = {
    "modelId": "anthropic.claude-sonnet-4-5-20250929-v1:0",
    "system": [{"text": "You are helpful."}, {"cachePoint": {"type": "default"}}],
    "messages": [{"role": "user", "content": [{"text": "hi"}]}],
}
_USAGE = {"usage": {"inputTokens": 10, "outputTokens": 5, "cacheReadInputTokens": 0}}


def _log(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_every_line_refused_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = json.dumps({"key": "k", "at": 1764583200, "request": _CONVERSE, "response": _USAGE})
    log = _log(tmp_path, [record, record])
    assert main(["report", "--vendor", "anthropic", str(log)]) == 2
    assert "none of the 2 lines could be read" in capsys.readouterr().err


def test_garbage_only_is_exit_2(tmp_path: Path) -> None:
    assert main(["report", str(_log(tmp_path, ["{not json", "[1]"]))]) == 2


def test_one_readable_line_is_a_report(tmp_path: Path) -> None:
    record = json.dumps({"key": "k", "at": 1764583200, "request": _CONVERSE, "response": _USAGE})
    assert main(["report", str(_log(tmp_path, [record, "{not json"]))]) == 0


def test_an_empty_log_is_still_an_empty_report(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    assert main(["report", str(path)]) == 0
