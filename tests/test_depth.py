"""
Deep JSON: every reader accepts nesting up to `MAX_DEPTH` and refuses deeper input with an error
that names the depth and the limit (never a RecursionError or orjson's own words).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from promptcache import Monitor, diff
from promptcache._canonical import MAX_DEPTH
from promptcache._errors import InputError
from promptcache.cli import main

# The request around the nested tool input: request, messages, message, content, block.
_AROUND = 5
_DEPTHS = [MAX_DEPTH + 1, 300, 600, 3_000, 100_000]


def request_text(depth: int) -> bytes:
    """A request whose nesting is `depth` levels in all (at least `_AROUND`)."""
    inner = depth - _AROUND
    return (
        b'{"model":"claude-sonnet-4-6","max_tokens":5,"messages":[{"role":"user","content":'
        b'[{"type":"tool_use","id":"1","name":"n","input":'
        + b'{"a":' * inner
        + b"1"
        + b"}" * inner
        + b"}]}]}"
    )


def request_value(depth: int) -> dict[str, Any]:
    value: Any = 1
    for _ in range(depth - _AROUND):
        value = {"a": value}
    content = [{"type": "tool_use", "id": "1", "name": "n", "input": value}]
    return {
        "model": "claude-sonnet-4-6",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": content}],
    }


_RESPONSE = (
    b'{"usage":{"input_tokens":5,"output_tokens":1,"cache_read_input_tokens":0,'
    b'"cache_creation_input_tokens":0}}'
)


def _said(text: str, depth: int | None = None) -> None:
    assert f"at most {MAX_DEPTH}" in text, text
    if depth is not None:
        assert f"nests {depth} levels" in text, text
    assert "internal error" not in text and "Recursion" not in text, text


def _files(tmp_path: Path, depth: int) -> dict[str, list[str]]:
    request = tmp_path / "request.json"
    request.write_bytes(request_text(depth))
    log = tmp_path / "log.jsonl"
    log.write_bytes(b'{"request":' + request_text(depth) + b',"response":' + _RESPONSE + b"}\n")
    usage = tmp_path / "usage.json"
    usage.write_bytes(
        b'{"usage":{"input_tokens":5,"x":' + b"[" * (depth - 2) + b"]" * (depth - 2) + b"}}"
    )
    return {
        "inspect": ["inspect", str(request)],
        "diff": ["diff", str(request), str(request)],
        # report skips and names a bad line by default; --strict makes it the error checked here
        "report": ["report", "--vendor", "anthropic", "--strict", str(log)],
        "cost": ["cost", "--vendor", "anthropic", "--model", "claude-sonnet-4-6", str(usage)],
    }


@pytest.mark.parametrize("depth", _DEPTHS)
@pytest.mark.parametrize("command", ["inspect", "diff", "report", "cost"])
def test_commands_refuse_deeper_json_naming_depth_and_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, depth: int
) -> None:
    assert main(_files(tmp_path, depth)[command]) == 2
    err = capsys.readouterr().err
    # A line of report is one level deeper (the record around the request).
    _said(err, depth + 1 if command == "report" else depth)


@pytest.mark.parametrize("command", ["inspect", "diff", "report", "cost"])
def test_commands_accept_json_at_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    depth = MAX_DEPTH - 1 if command == "report" else MAX_DEPTH
    assert main(_files(tmp_path, depth)[command]) in (0, 1)
    assert "levels of objects" not in capsys.readouterr().err


@pytest.mark.parametrize("depth", _DEPTHS)
def test_lint_reports_a_deeper_tokenizer_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int
) -> None:
    config = tmp_path / "tokenizer_config.json"
    nested = b"[" * (depth - 1) + b"]" * (depth - 1)
    config.write_bytes(b'{"x":' + nested + b',"chat_template":"hi"}')
    assert main(["lint", str(config)]) == 1
    _said(capsys.readouterr().out, depth)


def test_lint_reads_a_tokenizer_config_at_the_limit(tmp_path: Path) -> None:
    config = tmp_path / "tokenizer_config.json"
    nested = b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1)
    config.write_bytes(b'{"x":' + nested + b',"chat_template":"hi"}')
    assert main(["lint", str(config)]) == 0


@pytest.mark.parametrize("depth", _DEPTHS[1:])
def test_diff_refuses_deeper_requests(depth: int) -> None:
    """diff() reads a part past the limit into an error with the depth (it measures only when
    reading fails: checking up front would serialise both requests once more)."""
    deep = request_value(depth)
    with pytest.raises(InputError) as raised:
        diff(request_value(10), deep, "anthropic")
    _said(str(raised.value))
    with pytest.raises(InputError) as raised:
        diff(deep, deep, "anthropic")
    _said(str(raised.value))


def _miss(read: int) -> dict[str, Any]:
    usage = {"input_tokens": 5, "cache_read_input_tokens": read}
    return {"usage": {**usage, "cache_creation_input_tokens": 0, "output_tokens": 1}}


@pytest.mark.parametrize("depth", _DEPTHS[1:])
def test_the_monitor_refuses_a_deeper_request_it_reads(depth: int) -> None:
    """The monitor reads a request only to explain a short cache read (observing stays cheap):
    then a part nested past the limit is refused with the depth, not a RecursionError."""
    monitor = Monitor("anthropic", metrics=False)
    with pytest.raises(InputError) as raised:
        monitor.observe(request_value(depth), _miss(0), key="k", at=0.0)
        monitor.observe(request_value(depth), _miss(0), key="k", at=1.0)
    _said(str(raised.value), depth)


def test_diff_and_the_monitor_accept_requests_at_the_limit() -> None:
    deep = request_value(MAX_DEPTH)
    assert not diff(deep, deep, "anthropic").invalidated
    monitor = Monitor("anthropic", metrics=False)
    monitor.observe(deep, _miss(0), key="k", at=0.0)
    monitor.observe(deep, _miss(0), key="k", at=1.0)


def test_brackets_inside_strings_are_not_nesting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the error path measures text; brackets in a string (escaped quotes too) don't count."""
    text = '"[{\\"' + "[" * 3000 + '"'
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": "m", "messages": [], "x": ' + text + "} trailing")
    assert main(["inspect", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "is not valid JSON" in err and "levels of objects" not in err
