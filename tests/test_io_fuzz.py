"""
Fuzz the reading and writing paths of every command, side inputs included: whatever bytes a
file holds, and whatever kind of path an output names, a command answers (exit 0, 1 or 2) with
no internal error and no traceback.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptcache.cli import main

_SHAPES = [
    b"",
    b"{}",
    b"[]",
    b'{"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "hi"}]}',
    b'{"vendors": {}}',
    b'{"usage": {"input_tokens": 5, "output_tokens": 1}}',
    b"[tool.promptcache.lint]\ninclude = ['*.j2']\n",
    b"\xef\xbb\xbf{}",
    '{"a": 1}'.encode("utf-16"),
    '{"a": 1}'.encode("utf-32"),
    b"\xff\xfe\x00",
    b"\x00\x01\x02",
    b"1" + b"0" * 5000,
    b'{"n": 1' + b"0" * 5000 + b"}",
    b"[" * 3000 + b"]" * 3000,
    b'{"a": NaN, "b": Infinity}',
    b'{"chat_template": "{{ messages }}"}',
    b"Hello {{ name }}\n{% for d in docs %}{{ d }}{% endfor %}\n",
]
_BYTES = st.one_of(
    st.sampled_from(_SHAPES),
    st.binary(max_size=300),
    st.tuples(st.sampled_from(_SHAPES), st.binary(max_size=40)).map(lambda t: t[0] + t[1]),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
)

_WHAT_IF = ["cost", "--prefix-tokens", "2000", "--requests", "3", "--model", "claude-sonnet-4-5"]


def _argv(command: str, path: str, tmp: Path) -> tuple[list[str], dict[str, str]]:
    template = tmp / "ok.j2"
    template.write_text("Hello {{ name }}\n")
    return {
        "inspect": (["inspect", path], {}),
        "diff": (["diff", path, path], {}),
        "cost": (["cost", path], {}),
        "kv": (["kv", "--config", path], {}),
        "report": (["report", path], {}),
        "lint-file": (["lint", path], {}),
        "--prices": ([*_WHAT_IF, "--prices", path], {}),
        "PROMPTCACHE_PRICES": (_WHAT_IF, {"PROMPTCACHE_PRICES": path}),
        "PROMPTCACHE_MIN_TOKENS": (["vendors"], {"PROMPTCACHE_MIN_TOKENS": path}),
        "lint --config": (["lint", "--config", path, str(template)], {}),
    }[command]


_COMMANDS = [
    "inspect",
    "diff",
    "cost",
    "kv",
    "report",
    "lint-file",
    "--prices",
    "PROMPTCACHE_PRICES",
    "PROMPTCACHE_MIN_TOKENS",
    "lint --config",
]
_NAMES = {"lint-file": ["t.j2", "tokenizer_config.json", "t.py"], "report": ["calls.jsonl"]}


@pytest.mark.parametrize("command", _COMMANDS)
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=_BYTES, pick=st.integers(min_value=0, max_value=2))
def test_any_bytes_in_any_input_get_an_answer_not_an_internal_error(
    command: str,
    data: bytes,
    pick: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    names = _NAMES.get(command, ["input.json"])
    path = tmp_path / names[pick % len(names)]
    path.write_bytes(data)
    argv, env = _argv(command, str(path), tmp_path)
    with monkeypatch.context() as patched:
        for name, value in env.items():
            patched.setenv(name, value)
        status = main(argv)
    err = capsys.readouterr().err
    assert status in (0, 1, 2), err
    assert "internal error" not in err and "Traceback" not in err, err


_OUTPUT_KINDS = [
    "new",
    "existing",
    "folder",
    "missing folder",
    "the input",
    "link to input",
    "under a file",
]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(kind=st.sampled_from(_OUTPUT_KINDS), command=st.sampled_from(["lint", "report"]))
def test_any_output_path_is_written_whole_or_refused_and_no_input_is_lost(
    kind: str,
    command: str,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from .debug.test_report_and_cli import _log

    tmp = tmp_path_factory.mktemp("out")
    source = tmp / ("t.j2" if command == "lint" else "calls.jsonl")
    source.write_text(
        "Today is {{ now }}.\n{% for d in docs %}{{ d }}{% endfor %}\n"
        if command == "lint"
        else "\n".join(_log(sessions=1, turns=2)) + "\n"
    )
    before = source.read_bytes()
    out = {
        "new": tmp / "out.txt",
        "existing": tmp / "old.txt",
        "folder": tmp,
        "missing folder": tmp / "nowhere" / "out.txt",
        "the input": source,
        "link to input": tmp / "link.txt",
        "under a file": source / "out.txt",
    }[kind]
    if kind == "existing":
        out.write_text("old")
    if kind == "link to input":
        out.symlink_to(source)
    flag = "-o" if command == "lint" else "--html"
    status = main([command, str(source), flag, str(out)])
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err, err
    assert source.read_bytes() == before  # an input is never overwritten
    if kind in ("new", "existing"):
        assert status in (0, 1) and out.read_text() not in ("", "old")
    else:
        assert status == 2 and "promptcache: error:" in err
    assert not [p for p in tmp.iterdir() if p.name.endswith(".tmp")]  # no temporary file left
