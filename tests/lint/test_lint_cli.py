"""`promptcache lint` on the command line: exit codes, formats, bad input."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from promptcache.cli import main

from ._helpers import STATIC


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "clean.j2").write_text("You are {{ persona }}.\n" + STATIC)
    (templates / "busted.jinja").write_text("Now: {{ now() }}\n" + STATIC)
    (templates / "notes.txt").write_text("{{ now() }}" + STATIC)  # not a template name
    return tmp_path


def test_findings_exit_1_with_text(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "templates"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[0].startswith("templates/busted.jinja:1:9: PC101 ")
    assert len(out.splitlines()) == 1
    assert "Found 1 problem(s) in 1 file(s)." in err


def test_clean_exit_0(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "templates/clean.j2"]) == 0
    assert capsys.readouterr().out == ""


def test_default_path_is_the_current_folder(project: Path) -> None:
    assert main(["lint"]) == 1


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_formats(project: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    assert main(["lint", "--format", fmt, "templates"]) == 1
    out = capsys.readouterr().out
    if fmt == "github":
        assert out.startswith("::warning file=templates/busted.jinja,line=1,col=9,title=PC101")
    else:
        data = json.loads(out)
        assert data[0]["code"] == "PC101" if fmt == "json" else data["version"] == "2.1.0"


def test_output_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--format", "json", "-o", "report.json", "templates"]) == 1
    assert json.loads((project / "report.json").read_text())[0]["path"] == "templates/busted.jinja"
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    ("output", "said"),
    [
        ("templates", "is a folder"),
        ("missing/dir/report.json", "'missing/dir' does not exist"),
        ("pyproject.toml/report.json", "is not a folder"),
    ],
)
def test_output_that_cannot_be_a_file_is_a_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str], output: str, said: str
) -> None:
    assert main(["lint", "-o", output, "templates"]) == 2
    err = capsys.readouterr().err
    assert f"-o {output!r}" in err and said in err
    assert "internal error" not in err
    assert not (project / "missing").exists()


def test_select_ignore_threshold_flags(project: Path) -> None:
    assert main(["lint", "--ignore", "PC101", "templates"]) == 0
    assert main(["lint", "--select", "pc102", "templates"]) == 0
    assert main(["lint", "--threshold", "100000", "templates"]) == 0


def test_config_from_pyproject(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        "[tool.promptcache.lint]\nignore = ['PC101']\nexclude = ['templates/skip*']\n"
    )
    assert main(["lint", "templates"]) == 0
    (project / "templates" / "skip.j2").write_text("{{ user.name }}" + STATIC)
    assert main(["lint", "templates"]) == 0


def test_explicit_files_are_linted_whatever_their_name(project: Path) -> None:
    assert main(["lint", "templates/notes.txt"]) == 1


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["lint", "missing.j2"], "'missing.j2' does not exist"),
        (["lint", "--select", "ZZ1", "templates"], "'ZZ1' matches no lint rule"),
        (["lint", "--threshold", "-3", "templates"], "expected a whole number of tokens"),
        (["lint", "--format", "xml", "templates"], "invalid choice: 'xml'"),
    ],
)
def test_usage_errors_exit_2(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert "Traceback" not in err


def test_bad_pyproject_exits_2(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text("[tool.promptcache.lint]\nthreshold = 'x'\n")
    assert main(["lint", "templates"]) == 2
    assert "threshold must be a whole number of tokens" in capsys.readouterr().err


def test_binary_and_undecodable_files(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "templates" / "logo.j2").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (project / "templates" / "latin1.j2").write_bytes("Caf\xe9 {{ x }}".encode("latin-1"))
    (project / "templates" / "wide.j2").write_bytes("{{ x }}".encode("utf-16"))
    assert main(["lint", "--format", "json", "templates"]) == 1
    records = {r["path"]: r for r in json.loads(capsys.readouterr().out)}
    assert records["templates/logo.j2"]["code"] == "PC001"
    assert "binary file" in records["templates/logo.j2"]["message"]
    latin = records["templates/latin1.j2"]
    assert latin["code"] == "PC001"
    assert "byte 0xe9 at offset 3 (line 1)" in latin["message"]
    assert "UTF-8" in latin["message"]
    assert "UTF-16" in records["templates/wide.j2"]["message"]


def test_parse_error_does_not_stop_the_run(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "templates" / "a_broken.j2").write_text("{% for x in y %}")
    assert main(["lint", "templates"]) == 1
    codes = [line.split()[1] for line in capsys.readouterr().out.splitlines()]
    assert codes == ["PC001", "PC101"]


def test_unreadable_file(tmp_path: Path) -> None:
    from promptcache.lint import lint_file

    (finding,) = lint_file(tmp_path)  # a folder where a file was expected
    assert finding.code == "PC001"
    assert "cannot read the file" in finding.message


def test_list_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--list-rules"]) == 0
    assert "PC101 volatile-call:" in capsys.readouterr().out


# -- the habits of ruff users ---------------------------------------------------------------------


def test_statistics(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "templates" / "two.j2").write_text("Now: {{ now() }}\n{{ request_id }}\n" + STATIC)
    assert main(["lint", "--statistics", "templates"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines() == ["2\tPC101\tvolatile-call", "1\tPC102\tper-request-variable"]


def test_exit_zero(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--exit-zero", "templates"]) == 0
    assert "PC101" in capsys.readouterr().out  # still reported


def test_info_findings_do_not_fail_the_run(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "templates" / "busted.jinja").unlink()
    (project / "templates" / "main.j2").write_text("{% include 'gone.j2' %}\n" + STATIC)
    assert main(["lint", "templates"]) == 0
    out, err = capsys.readouterr()
    assert "PC002 could not check the included template 'gone.j2'" in out
    assert "1 note(s)" in err


def test_no_file_matched_warns(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "empty").mkdir()
    assert main(["lint", "empty"]) == 0
    assert "warning: no file matched in empty" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "env", "coloured"),
    [
        (["--color", "always"], {}, True),
        (["--color", "always"], {"NO_COLOR": "1"}, True),  # the flag wins over the environment
        (["--color", "never"], {"FORCE_COLOR": "1"}, False),
        ([], {"FORCE_COLOR": "1"}, True),  # auto: FORCE_COLOR colours a pipe
        ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
        ([], {}, False),  # auto: not a terminal
    ],
)
def test_color(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    env: dict[str, str],
    coloured: bool,
) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR", "TERM", "COLORTERM"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(["lint", *argv, "templates"]) == 1
    out = capsys.readouterr().out
    assert ("\x1b[" in out) is coloured
    plain = "templates/busted.jinja:1:9: PC101 volatile call `now()`"
    assert plain in out.replace("\x1b[1m", "").replace("\x1b[0m", "").replace("\x1b[33m", "")


class _ClosedPipe(io.StringIO):
    """stdout whose reader went away (`| head`): every write fails with EPIPE."""

    def __init__(self) -> None:
        super().__init__()
        self._read_end, self._write_end = os.pipe()

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self) -> int:
        return self._write_end


def test_broken_pipe_ends_quietly(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stdout, stderr = _ClosedPipe(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    assert main(["lint", "--color", "never", "templates"]) == 1  # the findings' status
    assert "internal error" not in stderr.getvalue()
    assert "Traceback" not in stderr.getvalue() and "BrokenPipe" not in stderr.getvalue()
    os.close(stdout._read_end)


def test_a_file_in_a_folder_that_cannot_be_read_is_a_finding_not_a_log_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # over --max-bytes, and a dangling link named like a template: neither was checked, and the
    # JSON report (what CI reads) must say so, not only a warning on the log
    (project / "templates" / "busted.jinja").unlink()
    (project / "templates" / "big.j2").write_text("Hello {{ name }}\n" * 400)
    (project / "templates" / "gone.j2").symlink_to(project / "nowhere.j2")
    assert main(["lint", "--format", "json", "--max-bytes", "5000", "templates"]) == 0
    findings = json.loads(capsys.readouterr().out)
    skipped = {(f["path"], f["code"]): f["message"] for f in findings}
    assert set(skipped) == {("templates/big.j2", "PC003"), ("templates/gone.j2", "PC003")}
    assert "6,800 bytes, over the 5,000-byte input limit" in skipped[("templates/big.j2", "PC003")]
