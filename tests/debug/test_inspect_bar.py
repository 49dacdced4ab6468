"""`inspect` draws the request's layout as a bar of layers and breakpoints (rich)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcache._commands.inspect import layout_bar
from promptcache.cli import main

from . import pairs


def _report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, dict[str, object]]:
    request = tmp_path / "req.json"
    request.write_text(json.dumps(pairs.anthropic()))
    argv = ["inspect", str(request), "--model", "claude-sonnet-4-6"]
    assert main([*argv, "--format", "json"]) in (0, 1)
    return str(request), json.loads(capsys.readouterr().out)


def test_bar_segments_follow_token_shares_and_marks_each_breakpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, report = _report(tmp_path, capsys)
    bar, marks, legend = layout_bar(report, color=False, width=64).splitlines()[:3]
    assert len(bar) == 64
    planned = report["breakpoints"]["planned"]  # type: ignore[index]
    assert marks.count("^") == len({bp["block_index"] for bp in planned}) > 0
    blocks = report["blocks"]  # type: ignore[assignment]
    total = sum(b["tokens"] for b in blocks)
    last = max(bp["block_index"] for bp in planned)
    through = sum(b["tokens"] for b in blocks[: last + 1])
    assert abs(marks.rindex("^") + 1 - through / total * 64) <= 1
    for layer in dict.fromkeys(b["layer"] for b in blocks):
        assert layer in legend


def test_the_bar_is_drawn_in_colour_on_a_terminal_and_can_be_turned_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request, report = _report(tmp_path, capsys)
    assert "\x1b[" in layout_bar(report, color=True)
    argv = ["inspect", request, "--model", "claude-sonnet-4-6"]
    main([*argv, "--bar", "always"])
    assert capsys.readouterr().out.startswith("█")
    main([*argv, "--bar", "never"])
    assert "█" not in capsys.readouterr().out


def test_without_colour_each_layer_has_its_own_glyph_and_share(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, report = _report(tmp_path, capsys)
    bar, _, legend = layout_bar(report, color=False, width=64).splitlines()[:3]
    blocks = report["blocks"]  # type: ignore[assignment]
    total = sum(b["tokens"] for b in blocks)
    layers = [layer for layer in dict.fromkeys(b["layer"] for b in blocks)]
    glyphs = [part.split(" ")[0] for part in legend.split("  ")]
    assert len(set(glyphs)) == len(layers) == len(glyphs)  # told apart without colour
    for layer, glyph in zip(layers, glyphs, strict=True):
        tokens = sum(b["tokens"] for b in blocks if b["layer"] == layer)
        assert abs(bar.count(glyph) - tokens / total * 64) <= 1.5, (layer, bar)


def test_escape_sequences_in_a_request_are_shown_not_sent_to_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a tool result holding a fetched page may carry anything, terminal escapes included
    request = pairs.anthropic()
    request["messages"][0]["content"] = "page: \x1b]0;owned\x07\x1b[2J end"
    path = tmp_path / "req.json"
    path.write_text(json.dumps(request))
    main(["inspect", str(path), "--bar", "never"])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\\x1b" in out


def test_diff_shows_escape_sequences_in_the_excerpt_without_sending_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = pairs.anthropic(), pairs.anthropic()
    b["system"][0]["text"] = "\x1b]0;owned\x07\x1b[2J" + b["system"][0]["text"]
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    assert (
        main(["diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--color", "always"]) == 1
    )
    out = capsys.readouterr().out
    assert "\x07" not in out and "\x1b]" not in out and "\x1b[2J" not in out
    assert "\\x1b]0;owned\\x07" in out and "\x1b[" in out  # our own colours stay
