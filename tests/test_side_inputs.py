"""
Every file promptcache reads goes through one reading path (`promptcache._inputs`): the side
inputs (the price table by --prices or $PROMPTCACHE_PRICES, the minimum-token table by
$PROMPTCACHE_MIN_TOKENS, `lint --config`) get the checks the main inputs get. Each bad kind of
file is a clear error and exit 2: never an internal error, a hang, or memory without bound.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from promptcache.cli import main

_TEMPLATE = "Hello {{ name }}\n"


def _not_utf8(tmp: Path) -> tuple[str, str]:
    path = tmp / "latin1.json"
    path.write_bytes('{"vendors": {"caf\xe9": {}}}'.encode("latin-1"))
    return str(path), "is not UTF-8 text: byte 0xe9 at offset"


def _utf16(tmp: Path) -> tuple[str, str]:
    path = tmp / "utf16.json"
    path.write_bytes('{"vendors": {}}'.encode("utf-16"))
    return str(path), "UTF-16 is not supported: save it as UTF-8"


def _folder(tmp: Path) -> tuple[str, str]:
    (tmp / "folder").mkdir()
    return str(tmp / "folder"), "is a directory, not a regular file"


def _under_a_file(tmp: Path) -> tuple[str, str]:
    (tmp / "file").write_text("{}")
    return str(tmp / "file" / "prices.json"), "a folder in the path"


def _loop(tmp: Path) -> tuple[str, str]:
    loop = tmp / "loop.json"
    loop.symlink_to(loop)
    return str(loop), "is a symlink loop"


def _missing(tmp: Path) -> tuple[str, str]:
    return str(tmp / "nowhere.json"), "does not exist"


def _deep(tmp: Path) -> tuple[str, str]:
    path = tmp / "deep.json"
    path.write_text('{"vendors": ' + "[" * 5000 + "]" * 5000 + "}")
    return str(path), "nests 5001 levels"


def _long_integer(tmp: Path) -> tuple[str, str]:
    path = tmp / "digits.json"
    path.write_text('{"vendors": {}, "n": 1' + "0" * 5000 + "}")
    return str(path), "number too large to read"


_JSON_KINDS: dict[str, Callable[[Path], tuple[str, str]]] = {
    "not utf-8": _not_utf8,
    "utf-16": _utf16,
    "folder": _folder,
    "path under a file": _under_a_file,
    "symlink loop": _loop,
    "missing": _missing,
    "deep": _deep,
    "5000-digit integer": _long_integer,
}

_WHAT_IF = ["cost", "--prefix-tokens", "2000", "--requests", "3", "--model", "claude-sonnet-4-5"]


def _side_input(
    which: str, path: str, tmp: Path, monkeypatch: pytest.MonkeyPatch | None = None
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment that make a command read `path` as the side input `which`."""
    if which == "--prices":
        return [*_WHAT_IF, "--prices", path], {}
    if which == "PROMPTCACHE_PRICES":
        return _WHAT_IF, {"PROMPTCACHE_PRICES": path}
    if which == "PROMPTCACHE_MIN_TOKENS":
        return ["vendors"], {"PROMPTCACHE_MIN_TOKENS": path}
    template = tmp / "t.j2"
    template.write_text(_TEMPLATE)
    return ["lint", "--config", path, str(template)], {}


_SIDE_INPUTS = ["--prices", "PROMPTCACHE_PRICES", "PROMPTCACHE_MIN_TOKENS", "lint --config"]


@pytest.mark.parametrize("which", _SIDE_INPUTS)
@pytest.mark.parametrize("kind", sorted(_JSON_KINDS))
def test_a_bad_side_input_is_a_clear_error(
    which: str,
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, said = _JSON_KINDS[kind](tmp_path)
    if which == "lint --config" and kind in ("deep", "5000-digit integer"):
        # TOML, not JSON: a long integer is the same refusal in TOML's words
        Path(path).write_text("[tool.promptcache.lint]\nmax_bytes = 1" + "0" * 5000 + "\n")
        said = "Exceeds the limit"
    argv, env = _side_input(which, path, tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err and "internal error" not in err, err
    assert os.path.basename(path) in err, err  # the error names the file


def _cli(
    argv: list[str], env: dict[str, str], stdin: int | None = None
) -> subprocess.CompletedProcess[str]:
    """In a child process with a timeout: a FIFO or device that is read would hang the test."""
    return subprocess.run(
        [sys.executable, "-m", "promptcache", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=stdin,
        env={**os.environ, **env},
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("which", _SIDE_INPUTS)
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/dev/urandom"])
def test_a_stream_or_device_as_a_side_input_is_refused_not_read(
    which: str, kind: str, tmp_path: Path
) -> None:
    if kind == "fifo":
        path, said = str(tmp_path / "pipe.json"), "is a FIFO (named pipe)"
        os.mkfifo(path)
    else:
        path, said = kind, "is a device"
    argv, env = _side_input(which, path, tmp_path)
    done = _cli(argv, env)
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert "internal error" not in done.stderr


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_standard_input_from_a_device_is_refused_before_a_byte_is_read() -> None:
    with open("/dev/zero", "rb") as zero:
        done = _cli(["inspect", "-"], {}, stdin=zero.fileno())
    assert done.returncode == 2 and "standard input is a device" in done.stderr


def test_standard_input_stops_at_the_bound(tmp_path: Path) -> None:
    """A pipe is read a chunk at a time, and no further than the bound."""
    writer = subprocess.Popen(
        [sys.executable, "-c", "import sys\nwhile True: sys.stdout.buffer.write(b' ' * 65536)"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert writer.stdout is not None
        done = _cli(["inspect", "-", "--max-bytes", "100000"], {}, stdin=writer.stdout.fileno())
    finally:
        writer.kill()
        writer.wait()
        assert writer.stdout is not None
        writer.stdout.close()
    assert done.returncode == 2
    assert "standard input is over 100,000 bytes, over the 100,000-byte input limit" in done.stderr
    assert "--max-bytes N" in done.stderr


@pytest.mark.parametrize("value", ["99999999999999999999999", "0", "-5", "1e9", "many"])
def test_an_impossible_max_bytes_is_a_usage_error(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = tmp_path / "r.json"
    request.write_text('{"model": "claude-sonnet-4-5", "messages": []}')
    assert main(["inspect", str(request), "--max-bytes", value]) == 2
    err = capsys.readouterr().err
    assert "--max-bytes" in err and repr(value) in err and "internal error" not in err, err


def test_a_main_input_in_utf16_names_the_encoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = tmp_path / "r.json"
    request.write_bytes('{"model": "claude-sonnet-4-5", "messages": []}'.encode("utf-16"))
    assert main(["inspect", str(request)]) == 2
    err = capsys.readouterr().err
    assert "UTF-16 is not supported: save it as UTF-8" in err and "surrogates" not in err, err


@pytest.mark.parametrize("body", [b'{"chat_template": "hi", "n": 1' + b"0" * 5000 + b"}"])
def test_a_long_integer_in_a_file_lint_reads_is_a_finding_not_an_internal_error(
    body: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "tokenizer_config.json"
    config.write_bytes(body)
    assert main(["lint", str(config)]) == 1
    out, err = capsys.readouterr()
    assert "cannot parse" in out and "5001 digits" in out and "internal error" not in err
