"""`promptcache report` on real logs: many files, gzip, bad lines, groups, CI gates, bad inputs."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from promptcache.cli import main
from promptcache.debug.privacy import export_key

from .pairs import anthropic as pairs_anthropic
from .pairs import next_turn
from .test_report_and_cli import _log

NAME, EMAIL = "Zebulon Quackenbush", "zebulon.quackenbush@example.org"


def _write_log(path: Path, records: Iterable[Mapping[str, Any]]) -> None:
    """`records` as a JSON Lines log at `path`."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["report", *argv, "--format", "json"]) in (0, 1)
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_several_files_globs_and_gzip_total_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = list(_log(sessions=4))
    whole = tmp_path / "all.jsonl"
    whole.write_text("\n".join(lines) + "\n")
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "a.jsonl").write_text("\n".join(lines[:10]) + "\n")
    with gzip.open(parts / "b.jsonl.gz", "wt") as handle:
        handle.write("\n".join(lines[10:]) + "\n")
    one = _json(capsys, str(whole))
    many = _json(capsys, str(parts / "*.jsonl*"))
    assert many["records"] == one["records"] == 20
    assert many["tokens"] == one["tokens"] and many["invalidations"] == one["invalidations"]


def test_bad_lines_are_skipped_counted_and_named_without_their_content(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = list(_log())
    bad = [
        f'{{"request": "{NAME} {EMAIL}"',  # truncated
        json.dumps({"note": f"{NAME} <{EMAIL}>"}),
        json.dumps({"request": f"{EMAIL}", "response": {}}),
    ]
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join([lines[0], bad[0], *lines[1:5], bad[1], bad[2], *lines[5:]]) + "\n")
    assert main(["report", str(log), "--format", "json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["records"] == 15
    skipped = data["skipped"]
    assert skipped["lines"] == 3
    assert [(p["line"], p["source"]) for p in skipped["named"]] == [
        (2, str(log)),
        (7, str(log)),
        (8, str(log)),
    ]
    assert "not valid JSON" in skipped["named"][0]["reason"]
    assert "'request' must be an object" in skipped["named"][2]["reason"]
    assert f"{log}:2:" in captured.err and "3 unreadable lines skipped" in captured.err
    for text in (captured.out, captured.err):
        assert NAME not in text and EMAIL not in text and "Quackenbush" not in text
    assert main(["report", str(log), "--strict"]) == 2
    err = capsys.readouterr().err
    assert "line 2: not valid JSON" in err and EMAIL not in err


@pytest.mark.parametrize("by", ["key", "model", "vendor", "hour", "day"])
def test_groups_add_up_to_the_totals(
    by: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.jsonl"
    records = [json.loads(line) for line in _log(sessions=3, turns=8)]
    for n, record in enumerate(records):
        record["at"] = 1_764_000_000.0 + n * 600  # ten minutes apart: four hours
    _write_log(log, records)
    data = _json(capsys, str(log), "--by", by)
    groups = data["groups"]
    assert isinstance(groups, list) and groups
    assert sum(g["records"] for g in groups) == data["records"]
    assert sum(g["cache_read"] for g in groups) == data["tokens"]["cache_read"]  # type: ignore[index]
    assert sum(g["invalidations"] for g in groups) == sum(
        c["events"]
        for c in data["invalidations"]  # type: ignore[attr-defined]
    )
    names = [g["group"] for g in groups]
    if by == "key":  # hashed as the monitor's logs show them (no --clear-keys)
        assert sorted(names) == sorted(export_key(k) for k in ("s0", "s1", "s2"))
        assert not {"s0", "s1", "s2"} & set(names)
    if by == "hour":
        assert len(names) >= 2 and names == sorted(names) and names[0].endswith(":00Z")


def test_group_count_is_bounded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(_log(sessions=5, turns=2)) + "\n")
    data = _json(capsys, str(log), "--by", "key", "--clear-keys", "--max-groups", "2")
    names = [g["group"] for g in data["groups"]]  # type: ignore[attr-defined]
    assert len(names) == 3 and "(other)" in names
    assert sum(g["records"] for g in data["groups"]) == 10  # type: ignore[attr-defined]


def test_ci_gates_exit_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(_log()) + "\n")
    rate = _json(capsys, str(log))["hit_rate"]
    assert isinstance(rate, float)
    assert main(["report", str(log), "--fail-under", f"{rate - 0.01:.4f}"]) == 0
    assert main(["report", str(log), "--fail-under", f"{(rate + 0.01) * 100:.2f}%"]) == 1
    assert "gate failed: hit rate" in capsys.readouterr().err
    assert main(["report", str(log), "--max-invalidations", "1"]) == 0
    assert main(["report", str(log), "--max-invalidations", "0"]) == 1
    assert "over --max-invalidations 0" in capsys.readouterr().err
    assert main(["report", str(log), "--fail-under", "1.5"]) == 2


def test_csv_has_a_row_per_group(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(_log()) + "\n")
    assert main(["report", str(log), "--by", "key", "--clear-keys", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["group"] for r in rows] == ["s0", "s1", "s2"]
    assert sum(int(r["records"]) for r in rows) == 15
    assert main(["report", str(log), "--format", "csv"]) == 0
    (total,) = csv.DictReader(io.StringIO(capsys.readouterr().out))
    assert total["records"] == "15" and total["invalidations"] == "1"


def test_progress_goes_to_stderr_and_leaves_the_output_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(_log()) + "\n")
    assert main(["report", str(log), "--progress", "always", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["records"] == 15


def test_an_over_long_line_is_skipped_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = list(_log())
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join([lines[0], "x" * 50_000, *lines[1:]]) + "\n")
    data = _json(capsys, str(log), "--max-line-bytes", "40000")
    assert data["records"] == 15
    assert "line size limit" in data["skipped"]["named"][0]["reason"]  # type: ignore[index]


# -- inputs that are not regular files ------------------------------------------------------


def _cli(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The CLI in a child process: a hang is a timeout here, not a stuck test run."""
    return subprocess.run(
        [sys.executable, "-m", "promptcache", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("command", ["report", "inspect"])
def test_a_fifo_is_refused_by_name_not_read(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    done = _cli(command, str(fifo))
    assert done.returncode == 2
    assert f"{str(fifo)!r} is a FIFO" in done.stderr and "internal error" not in done.stderr


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize("command", ["report", "inspect", "diff"])
def test_a_device_is_refused_by_name(command: str) -> None:
    argv = [command, "/dev/zero"] + (["/dev/zero"] if command == "diff" else [])
    done = _cli(*argv)
    assert done.returncode == 2
    assert "'/dev/zero' is a device" in done.stderr and "internal error" not in done.stderr


def test_a_symlink_loop_is_named(tmp_path: Path) -> None:
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    done = _cli("report", str(loop))
    assert done.returncode == 2 and "symlink loop" in done.stderr
    assert "internal error" not in done.stderr


def test_an_oversized_json_input_names_the_limit_and_the_flag(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b'{"messages": [' + b'"x",' * 300_000 + b'"x"]}')
    done = _cli("inspect", str(big), "--max-bytes", "100000")
    assert done.returncode == 2
    assert "over the 100,000-byte input limit" in done.stderr and "--max-bytes" in done.stderr


def test_lint_skips_a_symlink_loop_in_a_folder_with_a_notice(tmp_path: Path) -> None:
    (tmp_path / "ok.j2").write_text("Hello {{ name }}\n")
    loop = tmp_path / "loop.j2"
    loop.symlink_to(loop)
    done = _cli("lint", str(tmp_path))
    assert done.returncode in (0, 1), done.stderr
    assert "loop.j2:1:1: PC003 skipped: a symlink loop" in done.stdout
    assert "internal error" not in done.stderr


def test_malformed_records_are_named_without_the_text_they_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = json.loads(next(iter(_log())))
    usage = {"uncached_input": 5, "cache_read": 0, "cache_write": 0, "output": 1}
    bad = [
        {f"{NAME} <{EMAIL}>": 1, "at": 1},  # not a record: its keys are data too
        {"vendor": EMAIL, "request": good["request"], "usage": usage},
        {"request": {EMAIL: NAME}, "usage": usage},  # no shape we read
        {**good, "response": None},
    ]
    log = tmp_path / "log.jsonl"
    _write_log(log, bad)
    assert main(["report", str(log), "--format", "json"]) == 2  # every line refused: exit 2
    captured = capsys.readouterr()
    named = json.loads(captured.out)["skipped"]["named"]
    assert [p["line"] for p in named] == [1, 2, 3, 4]
    for text in (captured.out, captured.err):
        assert NAME not in text and EMAIL not in text and "Quackenbush" not in text, text
    assert "'at'" in named[0]["reason"] and "1 other" in named[0]["reason"]
    assert "unknown vendor" in named[1]["reason"]
    assert not any(p["reason"].startswith("line ") for p in named)  # FILE:LINE: says it once


@pytest.mark.parametrize(
    "at", [1e300, -1e18, -1, "0001-01-01T00:00:00Z", "9999-12-31T23:30:00-05:00"]
)
def test_a_time_no_date_can_name_is_a_named_line_not_an_internal_error(
    at: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [json.loads(line) for line in _log(sessions=1, turns=3)]
    records[1]["at"] = at
    log = tmp_path / "log.jsonl"
    _write_log(log, records)
    page = tmp_path / "report.html"
    assert main(["report", str(log), "--by", "hour", "--html", str(page), "--format", "json"]) == 0
    captured = capsys.readouterr()
    (problem,) = json.loads(captured.out)["skipped"]["named"]
    assert problem["line"] == 2 and "outside 1970-01-01 to 9999-12-31" in problem["reason"]
    assert "internal error" not in captured.err and page.exists()


def test_an_iso_time_without_an_offset_is_utc_whatever_the_machine_zone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    records = [json.loads(line) for line in _log(sessions=1, turns=2)]
    records[0]["at"], records[1]["at"] = "2026-11-30T10:05:00", "2026-11-30T10:06:00Z"
    log = tmp_path / "log.jsonl"
    _write_log(log, records)
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        groups = _json(capsys, str(log), "--by", "hour")["groups"]
    finally:
        monkeypatch.undo()
        time.tzset()
    assert [(g["group"], g["records"]) for g in groups] == [("2026-11-30T10:00Z", 2)]  # type: ignore[index]


def _argv(command: str, path: str) -> list[str]:
    """Each command that reads a path, pointed at `path`."""
    return {
        "report": ["report", path],
        "inspect": ["inspect", path],
        "diff": ["diff", path, path],
        "cost": ["cost", path],
        "kv": ["kv", path],
        "lint": ["lint", path],
        "engine-stats": ["engine-stats", "http://127.0.0.1:9", "--log", path],
    }[command]


_COMMANDS = ["report", "inspect", "diff", "cost", "kv", "lint", "engine-stats"]


@pytest.mark.parametrize("command", _COMMANDS)
@pytest.mark.parametrize("kind", ["device", "loop", "fifo"])
def test_every_command_names_a_path_it_cannot_read_and_what_it_is(
    command: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if kind == "device":
        path, said = "/dev/zero", "is a device"
    elif kind == "loop":
        loop = tmp_path / "loop.json"
        loop.symlink_to(loop)
        path, said = str(loop), "is a symlink loop"
    else:
        fifo = tmp_path / "pipe.json"
        os.mkfifo(fifo)
        path, said = str(fifo), "is a FIFO"
        done = _cli(*_argv(command, path))  # a hang is a timeout here
        assert done.returncode == 2 and f"{path!r} {said}" in done.stderr, done.stderr
        return
    assert main(_argv(command, path)) == 2
    err = capsys.readouterr().err
    assert f"{path!r} {said}" in err and "internal error" not in err, err


def test_lint_bounds_the_size_of_what_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.j2"
    big.write_text("Hello {{ name }}\n" * 200)  # 3,400 bytes
    (tmp_path / "ok.j2").write_text("Hello {{ name }}\n")
    assert main(["lint", str(big), "--max-bytes", "1000"]) == 2
    err = capsys.readouterr().err
    assert f"{str(big)!r} is 3,400 bytes, over the 1,000-byte input limit" in err
    assert "--max-bytes" in err and "internal error" not in err
    assert main(["lint", str(tmp_path), "--max-bytes", "1000"]) == 0  # found in a folder: skipped
    out = capsys.readouterr().out
    assert "big.j2:1:1: PC003 skipped: 3,400 bytes, over the 1,000-byte input limit" in out
    assert main(["lint", str(big), "--max-bytes", "4000"]) == 0


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_report_refuses_a_device_on_standard_input_instead_of_reading_forever() -> None:
    with open("/dev/zero", "rb") as zero:
        done = subprocess.run(
            [sys.executable, "-m", "promptcache", "report", "-"],
            stdin=zero,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2
    assert "standard input is a device" in done.stderr and "internal error" not in done.stderr


def test_a_null_vendor_is_an_absent_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a bare `messages` request fits several formats; a record's "vendor": null must leave the
    # choice to --vendor, as an absent field does (docs/log-format.md)
    usage = {"uncached_input": 5, "cache_read": 0, "cache_write": 0, "output": 1}
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"vendor": None, "request": request, "usage": usage}) + "\n")
    out = _json(capsys, str(log), "--vendor", "anthropic")
    assert out["records"] == 1 and out["skipped"]["lines"] == 0  # type: ignore[index]


@pytest.mark.parametrize(
    "usage",
    [
        {"uncached_input": -5, "cache_read": 0, "cache_write": 0, "output": 1},
        {"uncached_input": None, "cache_read": 0, "cache_write": 0, "output": 1},
        {
            "uncached_input": 5,
            "cache_read": 0,
            "cache_write": 9,
            "output": 1,
            "cache_write_by_ttl": {"5m": EMAIL},
        },
        {"uncached_input": 5, "cache_read": 0, "cache_write": 0, "output": 1, "model": 7},
    ],
)
def test_a_neutral_usage_with_impossible_counts_is_named_not_totalled(
    usage: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    request = json.loads(next(iter(_log())))["request"]
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"request": request, "usage": usage}) + "\n")
    assert main(["report", str(log), "--format", "json"]) == 2  # nothing readable: exit 2
    out = json.loads(capsys.readouterr().out)
    assert out["records"] == 0 and out["skipped"]["lines"] == 1
    assert EMAIL not in json.dumps(out)


@pytest.mark.parametrize(
    "request_",
    [
        {"model": "claude-sonnet-4-6", "messages": [{"role": NAME, "content": "x"}]},
        {
            "model": "claude-sonnet-4-6",
            "messages": [{"role": "user", "content": [{"type": EMAIL, "text": "x"}]}],
        },
        {"model": "gpt-4o", "messages": [{"role": NAME, "content": "x"}]},
        {"model": "gemini-2.5-flash", "contents": [{"role": "user", "parts": [{EMAIL: "x"}]}]},
        {EMAIL: NAME},
    ],
)
def test_a_request_of_no_shape_we_read_is_refused_without_quoting_it(
    request_: dict[str, object], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request_))
    assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("promptcache: error:") and "internal error" not in err
    assert NAME not in err and EMAIL not in err and "Quackenbush" not in err, err


# The machine contract of `report --format json` and `--format csv`: renaming or dropping a key
# breaks the CI jobs and dashboards that read it, so it changes only on purpose, here.
REPORT_JSON = {
    "records": None,
    "hit_rate": None,
    "tokens": [
        "input",
        "uncached_input",
        "cache_read",
        "cache_write",
        "output",
        "unreported_records",
        "output_unreported_records",  # added: records whose output tokens were not reported
    ],
    "cost": [
        "currency",
        "actual",
        "without_cache",
        "savings",
        "unpriced_records",
        "output_unpriced_records",  # added: priced records whose output cost is unknown
        "billing",  # added: "per-token", or --billing provisioned / ccu
        "list_price",  # added: a bill not per token's list prices, apart (else null)
        "notes",  # added: how records were priced (a Vertex location's tier), with counts
    ],
    "invalidations": [
        "cause",
        "events",
        "tokens_lost",
        "cost_lost",
        "unpriced_events",  # added: events whose cost lost could not be priced
    ],
    "skipped": ["lines", "named"],
    "by": None,
    "groups": [
        "group",
        "records",
        "hit_rate",
        "input",
        "uncached_input",
        "cache_read",
        "cache_write",
        "output",
        "cost",
        "invalidations",
        "tokens_lost",
        "unreported_records",
        "unpriced_records",
        "output_unreported_records",
        "output_unpriced_records",
    ],
    "vendor_side": [
        "group",
        "follow_ups",
        "server_side_misses",
        "rate",
        "zero_read",
        "partly_read",
        "under_minimum",
        "read_under_minimum",
        "tokens_lost",
        "by_model",
        "by_hour",
        "by_prompt_tokens",
        "by_gap",
    ],
}


def test_the_json_and_csv_reports_keep_their_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join([*_log(), "not json"]) + "\n")
    data = _json(capsys, str(log), "--by", "key", "--clear-keys")
    assert list(data) == list(REPORT_JSON)
    for key, inner in REPORT_JSON.items():
        value = data[key]
        if isinstance(value, dict):
            assert list(value) == inner, key
        elif isinstance(value, list):
            assert value and all(list(item) == inner for item in value), key
    assert list(data["skipped"]["named"][0]) == ["source", "line", "reason"]  # type: ignore[index]
    assert main(["report", str(log), "--by", "key", "--clear-keys", "--format", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.split(",") == REPORT_JSON["groups"]


def test_a_glob_that_matches_only_folders_is_an_error_not_an_empty_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "calls.jsonl").mkdir()
    assert main(["report", str(tmp_path / "*.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "no file matches" in err and "folder" in err


def test_a_gate_over_no_records_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a CI job pointed at the wrong (empty) log must not pass its gate on nothing
    empty = tmp_path / "calls.jsonl"
    empty.write_text("")
    assert main(["report", str(empty)]) == 0  # no gate: a report of nothing, said as such
    assert main(["report", str(empty), "--max-invalidations", "0"]) == 1
    assert "no records were read" in capsys.readouterr().err


@pytest.mark.parametrize("version", [2, "1", 0])
def test_a_record_of_another_format_version_is_named_not_misread(
    version: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [json.loads(line) for line in _log(sessions=1, turns=2)]
    records[1]["v"] = version
    log = tmp_path / "log.jsonl"
    _write_log(log, records)
    out = _json(capsys, str(log))
    (problem,) = out["skipped"]["named"]  # type: ignore[index]
    assert problem["line"] == 2 and "format version" in problem["reason"]
    assert out["records"] == 1


def test_text_output_escapes_control_characters_a_log_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a key is data from the log: printed raw, "\x1b]0;...\x07" retitles the terminal and
    # "\x1b[2J" clears it
    records = [json.loads(line) for line in _log(sessions=1, turns=2)]
    for record in records:
        record["key"] = "s1\x1b]0;owned\x07\x1b[2J"
    log = tmp_path / "log.jsonl"
    _write_log(log, records)
    assert main(["report", str(log), "--by", "key", "--clear-keys"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "s1\\x1b]0;owned\\x07\\x1b[2J" in out


def _engine_log(tmp_path: Path) -> Path:
    """Two sessions on a vLLM: one started without --enable-prompt-tokens-details (no cached
    count in its usage: unknown, not 0), one with it."""
    request = {
        "model": "Qwen/Qwen3-8B",
        "messages": [{"role": "system", "content": "x" * 8000}, {"role": "user", "content": "hi"}],
    }
    usage = {"prompt_tokens": 2000, "completion_tokens": 5, "total_tokens": 2005}
    told = {**usage, "prompt_tokens_details": {"cached_tokens": 1984}}
    lines = [
        {
            "vendor": "engine",
            "at": 1_764_000_000 + n * 10,
            "key": key,
            "request": request,
            "response": {"model": "Qwen/Qwen3-8B", "usage": reply},
        }
        for key, reply in (("s1", usage), ("s2", told))
        for n in range(4)
    ]
    log = tmp_path / "engine.jsonl"
    log.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return log


def test_records_that_did_not_report_caching_are_not_counted_as_misses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _engine_log(tmp_path)
    data = _json(capsys, str(log), "--by", "key", "--clear-keys")
    assert data["hit_rate"] == pytest.approx(1984 / 2000)  # s2's, s1's reads unknown
    assert data["tokens"]["unreported_records"] == 4  # type: ignore[index]
    s1, s2 = data["groups"]  # type: ignore[misc]
    assert (s1["group"], s1["hit_rate"], s1["unreported_records"]) == ("s1", None, 4)
    assert s2["hit_rate"] == pytest.approx(1984 / 2000)
    assert main(["report", str(log)]) == 0
    out = capsys.readouterr().out
    assert "4 records did not report caching" in out and "--enable-prompt-tokens-details" in out


def test_without_times_a_miss_on_an_unchanged_prefix_is_unknown_not_the_servers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the same session, timed: the pause past the TTL is ttl_expired; untimed it cannot be told
    # from a server-side miss, and saying "none" (the server's) would be a guess
    from promptcache.sim import AnthropicEmulator, ManualClock

    clock = ManualClock(1_764_000_000.0)
    emulator, request, records = AnthropicEmulator(clock=clock), pairs_anthropic(), []
    for n in range(4):
        clock.advance(600 if n == 2 else 20)
        status, body = emulator.handle("POST", "/v1/messages", {"max_tokens": 16, **request})
        assert status == 200
        records.append({"at": clock.now, "key": "s1", "request": request, "response": body})
        request = next_turn(request, n)
    timed, untimed = tmp_path / "timed.jsonl", tmp_path / "untimed.jsonl"
    _write_log(timed, records)
    untimed.write_text(
        "\n".join(json.dumps({k: v for k, v in r.items() if k != "at"}) for r in records) + "\n"
    )
    assert [c["cause"] for c in _json(capsys, str(timed))["invalidations"]] == ["ttl_expired"]  # type: ignore[index]
    assert [c["cause"] for c in _json(capsys, str(untimed))["invalidations"]] == ["unknown"]  # type: ignore[index]


def test_a_file_reached_by_several_paths_is_read_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    # `**` follows a symlink back up the tree until the path is too long: the same log matched
    # forty times over would be counted forty times
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "calls.jsonl").write_text("\n".join(_log()) + "\n")
    (folder / "up").symlink_to("..")
    (tmp_path / "same.jsonl").symlink_to(folder / "calls.jsonl")
    once = _json(capsys, str(folder / "calls.jsonl"))
    many = _json(capsys, str(folder / "**" / "*.jsonl"), str(tmp_path / "same.jsonl"))
    assert many["records"] == once["records"] == 15
    assert "already read" in caplog.text


def test_a_glob_of_nothing_readable_is_an_error_after_naming_each_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    loop = tmp_path / "calls.jsonl"
    loop.symlink_to(loop)
    (tmp_path / "good.jsonl").write_text("\n".join(_log()) + "\n")
    assert _json(capsys, str(tmp_path / "*.jsonl"))["records"] == 15  # the loop skipped
    assert "symlink loop" in caplog.text
    assert main(["report", str(tmp_path / "calls*")]) == 2
    assert "no readable file matches" in capsys.readouterr().err


def test_a_group_with_unpriced_records_says_how_many_its_cost_leaves_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a group's cost sums only the records that could be priced: without the count, a group
    # with a model the price tables do not know shows a partial cost as if it were the whole
    records = [json.loads(line) for line in _log()]
    for record in records[3:5]:  # session s0's last two turns, on a model nobody prices
        record["request"]["model"] = "not-a-real-model"
    log = tmp_path / "log.jsonl"
    _write_log(log, records)
    data = _json(capsys, str(log), "--by", "key", "--clear-keys")
    assert data["cost"]["unpriced_records"] == 2  # type: ignore[index]
    groups = {g["group"]: g for g in data["groups"]}  # type: ignore[attr-defined]
    assert groups["s0"]["unpriced_records"] == 2 and groups["s0"]["cost"] > 0
    assert groups["s1"]["unpriced_records"] == 0
    assert main(["report", str(log), "--by", "key", "--clear-keys", "--format", "csv"]) == 0
    rows = {r["group"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert rows["s0"]["unpriced_records"] == "2"
    assert main(["report", str(log), "--by", "key", "--clear-keys"]) == 0
    (s0,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  s0")]
    assert "(2 unpriced)" in s0
    assert main(["report", str(log)]) == 0
    assert "(2 records unpriced)" in capsys.readouterr().out


def _without_output(tmp_path: Path) -> tuple[Path, Path]:
    """The log, and the same log where session s0's last two responses lost output_tokens."""
    full, stripped = tmp_path / "full.jsonl", tmp_path / "stripped.jsonl"
    records = [json.loads(line) for line in _log()]
    _write_log(full, records)
    for record in records[3:5]:
        del record["response"]["usage"]["output_tokens"]
    _write_log(stripped, records)
    return full, stripped


def test_records_without_output_tokens_are_counted_not_priced_at_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    full, stripped = _without_output(tmp_path)
    whole, partial = _json(capsys, str(full)), _json(capsys, str(stripped))
    tokens, cost = partial["tokens"], partial["cost"]
    assert tokens["output_unreported_records"] == cost["output_unpriced_records"] == 2  # type: ignore[index]
    assert whole["tokens"]["output_unreported_records"] == 0  # type: ignore[index]
    assert tokens["output"] < whole["tokens"]["output"]  # type: ignore[index,operator]
    # the input is priced as before, the unknown output is left out; the savings are exact
    assert cost["actual"] < whole["cost"]["actual"]  # type: ignore[index,operator]
    assert cost["savings"] == pytest.approx(whole["cost"]["savings"])  # type: ignore[index]
    assert main(["report", str(stripped)]) == 0
    text = capsys.readouterr().out
    assert "2 records did not report output tokens" in text
    assert "output cost of 2 records unknown" in text


def test_the_csv_and_html_reports_say_which_groups_lack_output_tokens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, stripped = _without_output(tmp_path)
    assert main(["report", str(stripped), "--by", "key", "--clear-keys", "--format", "csv"]) == 0
    rows = {r["group"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert rows["s0"]["output_unreported_records"] == rows["s0"]["output_unpriced_records"] == "2"
    assert rows["s1"]["output_unreported_records"] == "0"
    page = tmp_path / "report.html"
    assert main(["report", str(stripped), "--html", str(page), "--clear-keys"]) == 0
    html = page.read_text()
    assert 'id="output-unknown">output cost of 2 records unknown' in html
    keys = {row.split('"')[0]: row.split("</tr>")[0] for row in html.split('<tr data-key="')[1:]}
    assert "(output cost of 2 unknown)" in keys["s0"] and "unknown" not in keys["s1"]


def test_a_record_its_price_row_cannot_price_leaves_the_models_other_records_priced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A write at a TTL the row has no rate for cannot be priced; the model itself can. Once
    # such a record came, every later record of the model was counted unpriced as well.
    def record(at: int, ttl: str) -> str:
        usage = {
            "uncached_input": 10,
            "cache_read": 0,
            "cache_write": 100,
            "output": 5,
            "cache_write_by_ttl": {ttl: 100},
            "model": "claude-sonnet-4-6",
        }
        line = {"vendor": "anthropic", "key": f"k{at}", "at": at, "usage": usage}
        return json.dumps({**line, "request": pairs_anthropic()}) + "\n"

    log = tmp_path / "calls.jsonl"
    log.write_text(record(0, "5m") + record(1, "7d") + record(2, "5m"))
    data = _json(capsys, str(log), "--by", "key", "--clear-keys")
    assert data["records"] == 3
    assert data["cost"]["unpriced_records"] == 1  # type: ignore[index]
    priced = {g["group"]: g["cost"] for g in data["groups"]}  # type: ignore[attr-defined]
    assert priced["k1"] is None and priced["k0"] == priced["k2"] > 0


def test_a_price_file_that_cannot_be_read_is_an_error_not_an_unpriced_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # It read as "cost n/a (no record could be priced)", exit 0: as if no model were known.
    prices = tmp_path / "prices.json"
    prices.write_text("{not json")
    monkeypatch.setenv("PROMPTCACHE_PRICES", str(prices))
    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(_log(sessions=1)) + "\n")
    assert main(["report", str(log)]) == 2
    err = capsys.readouterr().err
    assert str(prices) in err and "not valid JSON" in err and "skipped" not in err


def test_a_causes_cost_lost_says_how_many_of_its_events_it_leaves_unpriced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The cost lost to a cause sums the events that could be priced; without the count, a
    # cause met on a model the price tables do not know shows a partial sum as the whole.
    records = [json.loads(line) for line in _log()]
    unpriced = [
        {**r, "key": "s9", "request": {**r["request"], "model": "not-a-real-model"}}
        for r in records
        if r["key"] == "s1"  # the session whose clock changes: one timestamp miss
    ]
    log = tmp_path / "log.jsonl"
    _write_log(log, [*records, *unpriced])
    data = _json(capsys, str(log))
    (cause,) = [c for c in data["invalidations"] if c["cause"] == "timestamp"]  # type: ignore[attr-defined]
    assert cause["events"] == 2 and cause["cost_lost"] > 0
    assert cause["unpriced_events"] == 1
    assert main(["report", str(log)]) == 0
    (line,) = [s for s in capsys.readouterr().out.splitlines() if s.startswith("  timestamp")]
    assert line.endswith("(1 unpriced)")
    page = tmp_path / "report.html"
    assert main(["report", str(log), "--html", str(page)]) == 0
    assert (
        "(1 unpriced)" in page.read_text().split('data-cause="timestamp"', 1)[1].split("</tr>")[0]
    )


def test_a_log_through_one_gateway_model_reads_each_records_own_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The format detected is remembered per request shape (top-level keys, model); a gateway
    # that serves one model name in two formats gave both the same shape, so an OpenAI record
    # after an Anthropic one was read as Anthropic and skipped ("the response has no usage").
    def turn(request: dict[str, Any], usage: dict[str, int], at: float) -> dict[str, Any]:
        return {"key": f"k{at}", "at": at, "request": request, "response": {"usage": usage}}

    anthropic = {
        "model": "gw-model",
        "max_tokens": 100,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
            },
        ],
    }
    openai = {
        "model": "gw-model",
        "max_tokens": 100,
        "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
    }
    log = tmp_path / "calls.jsonl"
    _write_log(
        log,
        [
            turn(anthropic, {"input_tokens": 10, "output_tokens": 1}, 1.0),
            turn(openai, {"prompt_tokens": 12, "completion_tokens": 2}, 2.0),
        ],
    )
    data = _json(capsys, str(log), "--by", "vendor")
    assert data["skipped"]["lines"] == 0  # type: ignore[index]
    vendors = {g["group"]: g["records"] for g in data["groups"]}  # type: ignore[attr-defined]
    assert vendors == {"anthropic": 1, "openai": 1}


def test_a_gateway_shape_seen_in_two_formats_is_read_record_by_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Once a shape has come in two formats, a request that fits both (text blocks only) is
    # detected from its own record, not taken as the format remembered last.
    def turn(request: dict[str, Any], usage: dict[str, int], at: float) -> dict[str, Any]:
        return {"key": f"k{at}", "at": at, "request": request, "response": {"usage": usage}}

    def anthropic(content: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "model": "gw-model",
            "max_tokens": 100,
            "messages": [{"role": "user", "content": content}],
        }

    tool_use = [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]
    openai = {
        "model": "gw-model",
        "max_tokens": 100,
        "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
    }
    claude = {"input_tokens": 10, "output_tokens": 1}
    log = tmp_path / "calls.jsonl"
    _write_log(
        log,
        [
            turn(anthropic(tool_use), claude, 1.0),
            turn(openai, {"prompt_tokens": 12, "completion_tokens": 2}, 2.0),
            turn(anthropic([{"type": "text", "text": "hi"}]), claude, 3.0),
        ],
    )
    data = _json(capsys, str(log), "--by", "vendor")
    assert data["skipped"]["lines"] == 0  # type: ignore[index]
    vendors = {g["group"]: g["records"] for g in data["groups"]}  # type: ignore[attr-defined]
    assert vendors == {"anthropic": 2, "openai": 1}
