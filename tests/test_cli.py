from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptcache.cli import main

from .test_ingest import ANTHROPIC


@pytest.fixture
def request_file(tmp_path: Path) -> Path:
    path = tmp_path / "request.json"
    body = json.loads(json.dumps(ANTHROPIC))
    body["system"][0]["text"] = "You are terse. Request 3f2504e0-4f89-11d3-9a0c-0305e82c3301."
    path.write_text(json.dumps(body))
    return path


def test_inspect_text(request_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(request_file)]) == 0
    out = capsys.readouterr().out
    assert "vendor anthropic  model claude-sonnet-4-6" in out
    assert "-- tools" in out and "tools[0]" in out and "zeta" in out
    assert "cacheable prefix:" in out
    assert "system[0] offset" in out and "UUID" in out


def test_inspect_json_is_data(request_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(request_file), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [b["path"] for b in report["blocks"]][:3] == ["tools[0]", "tools[1]", "system[0]"]
    assert report["tokens"]["total"] == sum(b["tokens"] for b in report["blocks"])
    assert report["volatile"][0]["kind"] == "UUID"
    assert set(report) >= {
        "vendor",
        "model",
        "blocks",
        "tokens",
        "breakpoints",
        "volatile",
        "prefix_hash",
    }


def test_inspect_reads_a_dumped_prompt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from promptcache import Prompt

    path = tmp_path / "prompt.json"
    path.write_text(json.dumps(Prompt().add_system("s").with_tail("q").to_json()))
    assert main(["inspect", str(path), "--format", "json"]) == 0
    assert [b["path"] for b in json.loads(capsys.readouterr().out)["blocks"]] == [
        "system[0]",
        "tail[0]",
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("{not json", "is not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"model": "x"}', "cannot tell which vendor"),
    ],
)
def test_inspect_errors_exit_2_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect"]) == 2
    assert main(["no-such-command"]) == 2
    assert main([]) == 2
    assert "usage:" in capsys.readouterr().err


def test_version_and_help_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert main(["inspect", "--help"]) == 0
    assert "promptcache" in capsys.readouterr().out


def test_console_script_runs_as_module(request_file: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "promptcache", "inspect", str(request_file), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["vendor"] == "anthropic"


def test_inspect_places_breakpoints_above_the_minimum(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = json.loads(json.dumps(ANTHROPIC))
    body["system"][0]["text"] = "You answer questions about orders. " * 600
    path = tmp_path / "long.json"
    path.write_text(json.dumps(body))
    assert main(["inspect", str(path), "--format", "json"]) == 0
    planned = json.loads(capsys.readouterr().out)["breakpoints"]["planned"]
    paths = [bp["path"] for bp in planned]
    # the end of the shared prefix, and (a conversation) the end of the turn
    assert paths[-2:] == ["history[3]", "tail[0]"]
    assert "system[0]" in paths
    assert all(bp["ttl"] == "5m" for bp in planned)


def test_inspect_explains_a_prefix_below_the_minimum(
    request_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", str(request_file)]) == 0
    out = capsys.readouterr().out
    # the model's own 1,024, with the 346-token tool-use system prompt the API adds counted
    # toward it (not a made-up "minimum of 678")
    assert "(plus 346 the vendor adds) is below claude-sonnet-4-6's minimum of 1024" in out
    assert "minimum of 678" not in out


def _marked(body: dict[str, Any], *where: tuple[str, int, str | None]) -> dict[str, Any]:
    for layer, index, ttl in where:
        marker: dict[str, Any] = (
            {"type": "ephemeral"} if ttl is None else {"type": "ephemeral", "ttl": ttl}
        )
        if layer == "messages":
            body["messages"][index]["content"][-1]["cache_control"] = marker
        else:
            body[layer][index]["cache_control"] = marker
    return body


def _with_list_content(body: dict[str, Any]) -> dict[str, Any]:
    for message in body["messages"]:
        if isinstance(message["content"], str):
            message["content"] = [{"type": "text", "text": message["content"]}]
    return body


def test_inspect_lists_the_files_own_markers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = _marked(_with_list_content(json.loads(json.dumps(ANTHROPIC))), ("system", 0, "1h"))
    path = tmp_path / "marked.json"
    path.write_text(json.dumps(body))
    assert main(["inspect", str(path)]) == 0
    assert "cache markers already in the file: system[0] (1h)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("where", "problem"),
    [
        (
            [
                ("tools", 0, None),
                ("tools", 1, None),
                ("system", 0, None),
                ("messages", 0, None),
                ("messages", 1, None),
            ],
            "exceed Anthropic's 4",
        ),
        ([("tools", 1, "5m"), ("system", 0, "1h")], "has ttl '1h' after a '5m' marker at tools[1]"),
    ],
)
def test_inspect_fails_on_markers_the_api_would_refuse(
    where: list[tuple[str, int, str | None]],
    problem: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    body = _marked(_with_list_content(json.loads(json.dumps(ANTHROPIC))), *where)
    path = tmp_path / "refused.json"
    path.write_text(json.dumps(body))
    assert main(["inspect", str(path)]) == 1
    out = capsys.readouterr().out
    assert "  problem: " in out and problem in out
    assert main(["inspect", str(path), "--format", "json"]) == 1
    assert problem in json.loads(capsys.readouterr().out)["markers"]["problems"][0]


def test_inspect_reads_malformed_markers_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = json.loads(json.dumps(ANTHROPIC))
    body["tools"][0]["cache_control"] = "yes"
    body["system"].append("not a block")
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(body))
    # An internal error (exit 3) prints no traceback either: pin the code and the stream.
    assert main(["inspect", str(path)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err


def test_inspect_reads_a_request_whose_format_field_is_not_a_string(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `format` names a dumped Prompt only when it is a string; anything else is a plain request
    path = tmp_path / "format.json"
    body = {
        "format": 3,
        "model": "claude-sonnet-4-6",
        "messages": [{"role": "user", "content": "hi"}],
    }
    path.write_text(json.dumps(body))
    assert main(["inspect", str(path)]) == 0
    assert "internal error" not in capsys.readouterr().err


def test_inspect_shows_the_lookback_breakpoint_of_a_wide_fan_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # peers F8: an agent turn of 24 parallel tool calls, whose results are the new turn: the
    # previous request ended at the question (history[4]), 25 content blocks before the prefix end
    body = json.loads(json.dumps(ANTHROPIC))
    body["system"][0]["text"] = "You answer questions about orders. " * 600
    body["messages"][-1]["content"][0].pop("cache_control")
    uses = [
        {"type": "tool_use", "id": f"toolu_{i:02d}", "name": "alpha", "input": {"order": i}}
        for i in range(24)
    ]
    results = [
        {"type": "tool_result", "tool_use_id": f"toolu_{i:02d}", "content": f"order {i}: late"}
        for i in range(24)
    ]
    body["messages"] += [
        {"role": "assistant", "content": [{"type": "text", "text": "Checking each."}, *uses]},
        {"role": "user", "content": results},
    ]
    path = tmp_path / "fan_out.json"
    path.write_text(json.dumps(body))
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "  history[4]       ttl 5m   lookback: the previous request in this loop ended" in out
    assert main(["inspect", str(path), "--format", "json"]) == 0
    planned = json.loads(capsys.readouterr().out)["breakpoints"]["planned"]
    assert [(bp["path"], bp["block_index"], bp["part"]) for bp in planned] == [
        ("system[0]", 2, None),
        ("history[4]", 7, None),
        ("history[5]", 8, None),
        ("tail[0]", 9, None),
    ]


@pytest.mark.parametrize(
    ("body", "vendor", "problem"),
    [
        ({"contents": ["hi", 3]}, None, "a gemini request: expected an object, found a string"),
        (
            {"messages": [], "tools": [{"description": "no name"}], "max_tokens": 5},
            None,
            "an anthropic request: an object has no 'name' key",
        ),
        ({"messages": 3, "max_tokens": 1}, None, "'messages' must be a list of objects, got 3"),
        ({"input": [None]}, None, "'input' must be a list of objects, got [null]"),
        ({"contents": True}, "gemini", "a gemini request: expected a list, found true or false"),
    ],
)
def test_inspect_names_a_malformed_request_instead_of_failing_inside(
    body: dict[str, Any],
    vendor: str | None,
    problem: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(body))
    assert main(["inspect", str(path), *(["--vendor", vendor] if vendor else [])]) == 2
    err = capsys.readouterr().err
    assert problem in err and "internal error" not in err


_KEYS = st.sampled_from(
    [
        "role",
        "content",
        "type",
        "text",
        "cache_control",
        "ttl",
        "tools",
        "system",
        "messages",
        "model",
        "input",
        "name",
        "input_schema",
        "tool_use_id",
        "id",
        "extra_body",
        "cache_salt",
        "arguments",
        "function",
        "tool_calls",
        "contents",
        "parts",
        "config",
        "instructions",
        "call_id",
        "output",
        "function_call",
        "function_response",
        "format",
    ]
)
_LEAVES = st.none() | st.booleans() | st.integers(-2, 2) | st.text(max_size=6)
_LEAVES |= st.sampled_from(["user", "assistant", "system", "tool", "text", "tool_use", "1h"])
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


@given(
    a=st.dictionaries(_KEYS, _VALUES, min_size=1, max_size=5),
    b=st.dictionaries(_KEYS, _VALUES, max_size=5),
    vendor=st.sampled_from([None, "anthropic", "openai", "openai-responses", "gemini"]),
)
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_json_object_gets_an_answer_not_an_internal_error(
    a: dict[str, Any],
    b: dict[str, Any],
    vendor: str | None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(a))
    second.write_text(json.dumps(b))
    chosen = ["--vendor", vendor] if vendor else []
    inspected = _answer(capsys, "inspect", str(first), *chosen)
    diff_vendor = ["--vendor", vendor] if vendor and vendor != "openai-responses" else []
    code, out = _answer(capsys, "diff", str(first), str(second), *diff_vendor)
    assert inspected[0] in (0, 1, 2) and code in (0, 1, 2)
    assert code == 2 or (code == 1) == out.startswith(("cache invalidated", "nothing cached"))


def _answer(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """
    The exit code and stdout of one run. Every code in (0, 1, 2) is a valid answer (3 is an
    internal error): 2 must come with a named error and nothing on stdout, 0 and 1 with a
    report and nothing on stderr.
    """
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "internal error" not in err
    if code == 2:
        assert err.startswith("promptcache: error: ") and not out, (err, out)
    else:
        assert out and not err, (code, out, err)
    return code, out


# -- issue 9: vendor detection and names ----------------------------------------------------


def test_inspect_with_a_vendor_that_does_not_fit_is_an_error(
    request_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An Anthropic body read as Gemini used to report 0 tokens and exit 0.
    assert main(["inspect", str(request_file), "--vendor", "gemini"]) == 2
    err = capsys.readouterr().err
    assert "does not read as Gemini" in err and "looks like Anthropic Messages" in err
    assert main(["inspect", str(request_file), "--vendor", "CLAUDE"]) == 0  # aliases, any case


def test_inspect_shows_the_request_wide_ttl_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "openai.json"
    body = {
        "model": "gpt-5.4",
        "prompt_cache_retention": "24h",
        "messages": [
            {"role": "developer", "content": "Be terse."},
            {"role": "user", "content": "hi"},
        ],
    }
    path.write_text(json.dumps(body))
    assert main(["inspect", str(path), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["vendor"] == "openai"
    assert report["ttl_settings"] == {"prompt_cache_retention": "24h"}


@pytest.mark.parametrize(
    ("request_", "refused"),
    [
        ({"model": "gpt-5.6", "messages": [{"role": "user", "content": "hi"}]}, True),
        ({"model": "gpt-5.6", "input": [{"role": "user", "content": "hi"}]}, False),
    ],
    ids=["chat", "responses"],
)
def test_inspect_names_a_request_ttl_the_endpoint_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], request_: dict[str, Any], refused: bool
) -> None:
    # prompt_cache_options.ttl is Literal["30m"] on Chat Completions, "30m" | "12h" on Responses
    # (vendors.md 3.2). inspect printed "cache lifetime: ... = 12h" for both, confidently.
    path = tmp_path / "request.json"
    path.write_text(json.dumps({**request_, "prompt_cache_options": {"ttl": "12h"}}))
    assert main(["inspect", str(path), "--format", "json"]) == (1 if refused else 0)
    problems = json.loads(capsys.readouterr().out)["markers"]["problems"]
    assert any("'12h'" in p and "30m" in p for p in problems) == refused


@pytest.mark.parametrize("source", ["stdin", "file"])
def test_an_empty_input_is_named_as_empty(
    source: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Was "- is not valid JSON (Input is a zero-length, empty document ...)".
    import io

    path = tmp_path / "empty.json"
    path.write_bytes(b" \n")
    if source == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert main(["inspect", "-" if source == "stdin" else str(path)]) == 2
    err = capsys.readouterr().err
    assert "is empty" in err and "zero-length" not in err
    assert ("standard input" in err) == (source == "stdin")


def test_a_command_imports_only_its_own_module(tmp_path: Path) -> None:
    """`report` does not pay for the linter's, the simulators' or the demo's imports; help and
    unknown commands still list every command."""
    log = tmp_path / "empty.jsonl"
    log.write_text("")
    script = f"""
import contextlib, io, sys
from promptcache.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["report", {str(log)!r}, "--format", "json"]) == 0
loaded = sorted(m for m in sys.modules if m.startswith(("promptcache.lint", "promptcache._demo")))
assert not loaded, loaded
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.mark.parametrize("argv", [["--help"], ["repor"]])
def test_help_and_unknown_commands_list_every_command(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    main(argv)
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    for command in ("cost", "diff", "engine-stats", "inspect", "kv", "lint", "report", "vendors"):
        assert command in shown
