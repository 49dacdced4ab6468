"""
`promptcache inspect` on a Converse request that already carries cache points says which of them
Bedrock would cache nothing at: one with fewer tokens than the model's minimum since the cache
point before it (AWS counts the minimum per cache point), as a note, not a refusal (Bedrock
answers the request; it only does not cache there).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptcache.cli import main
from promptcache.vendors.bedrock_converse import cache_point_segments

MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"  # 1,024 tokens on Bedrock
FIRST = "Shipwell order desk: refunds within thirty days, exchanges within sixty. " * 90
SECOND = "Returns manual, chapter two: damaged parcels and lost parcels. " * 45  # ~700 tokens
POINT = {"cachePoint": {"type": "default"}}


def _request(second: str) -> dict[str, Any]:
    return {
        "modelId": MODEL,
        "system": [{"text": FIRST}, POINT, {"text": second}, POINT],
        "messages": [{"role": "user", "content": [{"text": "Where is SH-1?"}, POINT]}],
    }


def test_each_cache_point_gets_the_tokens_since_the_one_before() -> None:
    segments = cache_point_segments(_request(SECOND), lambda text: len(text) // 4)
    paths = [(path, before) for path, _, before in segments]
    assert paths == [
        ("system[1]", None),
        ("system[3]", "system[1]"),
        ("messages[0].content[1]", "system[3]"),
    ]
    tokens = [n for _, n, _ in segments]
    assert tokens[0] > 1024 and 500 < tokens[1] < 1024 and tokens[2] < 50


def _inspect(tmp_path: Path, request: dict[str, Any], capsys: Any) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    code = main(["inspect", str(path), "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_inspect_notes_the_points_bedrock_caches_nothing_at(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _inspect(tmp_path, _request(SECOND), capsys)
    assert code == 0  # Bedrock answers it; it only caches less
    notes = report["markers"]["notes"]
    assert [n.split(":")[0] for n in notes] == ["system[3]", "messages[0].content[1]"]
    assert all("per cache point" in n and "1024" in n for n in notes)
    question = [{"role": "user", "content": [{"text": "Where is SH-1?"}]}]
    code, report = _inspect(tmp_path, {**_request(SECOND * 3), "messages": question}, capsys)
    assert code == 0 and report["markers"]["notes"] == []
