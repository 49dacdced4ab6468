"""
One exit-code scheme for every command (promptcache.cli): 0 clean, 1 findings, 2 usage or input
error, 3 internal error. A CI job must tell "called wrong" (2) from "the tool broke" (3): both
were 2. Each command family gets a bad flag, a missing input and a crash planted inside its own
work (a function its handler calls), so a command that caught the crash itself would show here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from promptcache.cli import EXIT_FINDINGS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, main

# What a crash's own text is made of in these tests: a prompt's words must never be printed.
_PLANTED = "the user's secret question about invoice 4471"
_KV_SHAPE = ["--layers", "32", "--kv-heads", "8", "--head-dim", "128", "--bytes", "2"]


def _request(tmp_path: Path) -> str:
    path = tmp_path / "request.json"
    body = {
        "model": "claude-sonnet-4-6",
        "system": "You answer questions about orders.",
        "messages": [{"role": "user", "content": "hi"}],
    }
    path.write_text(json.dumps(body))
    return str(path)


def _argv(command: str, tmp_path: Path) -> list[str]:
    """A valid call of `command`: what the planted crash interrupts."""
    request = _request(tmp_path)
    (tmp_path / "log.jsonl").write_text("")
    return {
        "lint": ["lint", str(tmp_path)],
        "inspect": ["inspect", request],
        "diff": ["diff", request, request],
        "cost": ["cost", request],
        "report": ["report", str(tmp_path / "log.jsonl")],
        "demo": ["demo", "--format", "json"],
        "vendors": ["vendors"],
        "kv": ["kv", *_KV_SHAPE],
        "engine-stats": ["engine-stats", "http://127.0.0.1:9/metrics"],
    }[command]


# command -> (module, the name in it that the handler calls): the crash is planted there.
_CRASH_SITES = {
    "lint": ("promptcache._commands.lint", "lint_report"),
    "inspect": ("promptcache._commands.inspect", "load_json_object"),
    "diff": ("promptcache._commands.diff", "load_json_object"),
    "cost": ("promptcache._commands.cost", "load_json_object"),
    "report": ("promptcache._commands.report", "resolve_sources"),
    "demo": ("promptcache._commands.demo", "run_demo"),
    "vendors": ("promptcache._commands.vendors", "load_min_tokens"),
    "kv": ("promptcache._commands.kv", "_shape"),
    "engine-stats": ("promptcache._commands.engine_stats", "scrape"),
}
COMMANDS = sorted(_CRASH_SITES)


def test_every_command_has_a_crash_site() -> None:
    # A new command must join these tests: the list is the registry of subcommand modules.
    import pkgutil

    from promptcache import _commands

    modules = {m.name for m in pkgutil.iter_modules(_commands.__path__) if m.name[0] != "_"}
    assert {c.replace("-", "_") for c in COMMANDS} == modules


def _plant_crash(monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    module, name = _CRASH_SITES[command]

    def crash(*args: object, **kwargs: object) -> object:
        raise KeyError(_PLANTED)

    monkeypatch.setattr(f"{module}.{name}", crash)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_crash_inside_a_command_exits_3_with_one_line_and_no_text_of_it(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("PROMPTCACHE_DEBUG", raising=False)
    _plant_crash(monkeypatch, command)
    assert main(_argv(command, tmp_path)) == EXIT_INTERNAL
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("promptcache: internal error: KeyError at ")
    assert "Traceback" not in err and _PLANTED not in err  # a KeyError's text is its key
    assert "tests/test_cli_exit_codes.py" not in err  # the place is promptcache's own code
    assert "PROMPTCACHE_DEBUG=1" in err and "report" in err


def test_the_place_named_is_the_innermost_frame_of_promptcache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PROMPTCACHE_DEBUG", raising=False)
    import promptcache._commands.kv as kv

    def broken_plan(shape: object, args: object) -> object:
        return {}["budget"]  # a bug in a helper of the command

    monkeypatch.setattr(kv, "_plan", broken_plan)
    assert main(["kv", *_KV_SHAPE]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "KeyError at promptcache/_commands/kv.py:" in err


@pytest.mark.parametrize("command", COMMANDS)
def test_a_bad_flag_is_a_usage_error_exit_2(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*_argv(command, tmp_path), "--no-such-flag"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "unrecognized arguments: --no-such-flag" in err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["lint", "no/such/folder"],
        ["inspect", "no-such-request.json"],
        ["diff", "no-such-a.json", "no-such-b.json"],
        ["cost", "no-such-response.json"],
        ["report", "no-such-log.jsonl"],
        ["kv", "no-such-config.json"],
        ["engine-stats", "ftp://127.0.0.1/metrics"],
        ["demo", "--vendor", "no-such-vendor"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_missing_or_bad_input_is_exit_2_never_3(
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "error" in err and "internal error" not in err and "Traceback" not in err


def test_a_bad_lint_configuration_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.promptcache.lint]\nthreshold = 'many'\n")
    (tmp_path / "a.j2").write_text("Hello\n")
    assert main(["lint", "--config", str(config), str(tmp_path)]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "threshold" in err and "internal error" not in err


def test_no_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == EXIT_USAGE


def test_clean_and_findings_keep_0_and_1(tmp_path: Path) -> None:
    clean = tmp_path / "clean.j2"
    clean.write_text("You are a helpful assistant.\n{{ question }}\n")
    assert main(["lint", str(clean)]) == EXIT_OK
    busted = tmp_path / "busted.j2"
    busted.write_text("Today is {{ now() }}.\n" + "You follow these rules carefully.\n" * 200)
    assert main(["lint", str(busted)]) == EXIT_FINDINGS


def test_debug_prints_the_traceback_and_still_exits_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # An exception raised out of main() would exit 1 from `python -m promptcache`: "findings".
    monkeypatch.setenv("PROMPTCACHE_DEBUG", "1")
    _plant_crash(monkeypatch, "lint")
    assert main(_argv("lint", tmp_path)) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert err.startswith("Traceback") and "KeyError" in err


_CRASHING_RUN = """
import sys
import promptcache._commands.lint as lint

def crash(*args, **kwargs):
    raise RuntimeError("boom")

lint.lint_report = crash
from promptcache.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
def test_the_process_exit_status_of_a_crash_is_3(tmp_path: Path, debug: bool) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PROMPTCACHE_DEBUG"}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[1]), *sys.path])
    if debug:
        env["PROMPTCACHE_DEBUG"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", _CRASHING_RUN, "lint", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == EXIT_INTERNAL, done.stderr
    assert ("Traceback" in done.stderr) == debug


@pytest.mark.parametrize("suffix", [".j2", ".py"])
def test_a_crash_while_linting_a_file_names_the_file(
    suffix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Which file broke the linter is what a bug report needs, and what a user can `exclude`
    # meanwhile: the line names it (the path as the findings name it), still not the text.
    monkeypatch.delenv("PROMPTCACHE_DEBUG", raising=False)
    import promptcache.lint._engine as engine
    from promptcache.lint.python import PythonLinter

    def crash(*args: object, **kwargs: object) -> object:
        raise KeyError(_PLANTED)

    (tmp_path / "fine.txt").write_text("not linted")
    broken = tmp_path / f"agent{suffix}"
    broken.write_text("import anthropic\n" if suffix == ".py" else "Hello {{ name }}\n")
    if suffix == ".py":
        monkeypatch.setattr(PythonLinter, "lint_file", crash)
    else:
        monkeypatch.setattr(engine, "lint_file", crash)
    assert main(["lint", str(broken)]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert f"while linting {str(broken)!r}" in err and "KeyError at " in err
    assert _PLANTED not in err and "Traceback" not in err


def test_a_deliberate_error_while_linting_a_file_stays_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import promptcache.lint._engine as engine
    from promptcache._errors import InputError

    def refuse(*args: object, **kwargs: object) -> object:
        raise InputError("'agent.j2' is a FIFO; name a regular file")

    (tmp_path / "agent.j2").write_text("Hello\n")
    monkeypatch.setattr(engine, "lint_file", refuse)
    assert main(["lint", str(tmp_path / "agent.j2")]) == EXIT_USAGE
    assert "promptcache: error: 'agent.j2' is a FIFO" in capsys.readouterr().err


def test_exit_zero_does_not_hide_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `--exit-zero` forgives findings, not a linter that did not run to the end.
    monkeypatch.delenv("PROMPTCACHE_DEBUG", raising=False)
    _plant_crash(monkeypatch, "lint")
    assert main(["lint", "--exit-zero", str(tmp_path)]) == EXIT_INTERNAL
