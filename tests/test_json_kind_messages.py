"""Errors about a file's top-level JSON value name it in JSON's words: null, a number, a string."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcache.cli import main


@pytest.mark.parametrize(
    ("text", "kind"), [("null", "null"), ("42", "number"), ("4.5", "number"), ('"x"', "string")]
)
def test_inspect_names_a_top_level_value_in_json_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, kind: str
) -> None:
    path = tmp_path / "r.json"
    path.write_text(text)
    assert main(["inspect", str(path)]) == 2
    assert f"holds a JSON {kind};" in capsys.readouterr().err


def test_report_names_a_null_line_as_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("null\n")
    main(["report", str(log)])
    err = capsys.readouterr().err
    assert "got a JSON null;" in err and "NoneType" not in err
