"""The recorder: what Monitor and wrap() write is what `report` reads; private by default."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from promptcache import CacheDiagnosis, CacheUsage, InputError, Monitor, Recorder
from promptcache._report import build_report
from promptcache.cli import main

from . import pairs
from .sim import AnthropicSim
from .test_privacy import EMAIL, NAME, PLANTED

_WRITE = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)


def _session(monitor: Monitor, *, clock_at: int = 3, turns: int = 6) -> None:
    sim, request, at = AnthropicSim(), pairs.anthropic(), 1_764_000_000.0
    request["system"][0]["text"] = f"Customer {NAME} <{EMAIL}>. " + pairs.GUIDE
    request["metadata"] = {"user_id": EMAIL}
    for n in range(turns):
        if n == clock_at:
            request["system"][0]["text"] = "Now: 20:41:07. " + request["system"][0]["text"]
        at += 30
        monitor.observe(request, sim.respond(request, at), at=at)
        request = pairs.next_turn(request, n)


def _files(folder: Path) -> list[str]:
    """What a user sees in the folder: the log and its backups (the hidden lock files aside)."""
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def test_default_log_holds_no_prompt_text_and_reports_the_same(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    plain_monitor = Monitor("anthropic", metrics=False)
    with Recorder(log) as recorder:
        _session(Monitor("anthropic", metrics=False, recorder=recorder))
    _session(plain_monitor)
    text = log.read_text()
    for planted in PLANTED:
        assert planted.lower() not in text.lower()
    assert "Follow the runbook" not in text and "20:41:07" not in text
    records = [json.loads(line) for line in _lines(log)]
    assert len(records) == 6
    assert {r["v"] for r in records} == {1} and {r["content"] for r in records} == {"hashes"}
    assert records[0]["key"] is None  # the monitor's default: metadata.user_id, hashed there
    assert records[0]["request"]["metadata"]["user_id"].startswith("#")
    assert set(records[0]["response"]) <= {"model", "usage", "type"}
    report = build_report(_lines(log))
    assert report.records == 6
    assert report.cache_read == sum(
        r["response"]["usage"]["cache_read_input_tokens"] for r in records
    )
    # the same miss at the same place; with hashes the clock is not visible, so its cause is the
    # generic content change rather than "timestamp"
    assert [c.cause for c in report.invalidations] == ["content_changed"]
    assert list(plain_monitor.stats()["by_cause"]) == ["timestamp"]
    assert sum(c.events for c in report.invalidations) == plain_monitor.stats()["events"] == 1


def test_full_content_is_written_only_when_asked(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    with Recorder(log, content="full") as recorder:
        _session(Monitor("anthropic", metrics=False, recorder=recorder))
    assert EMAIL in log.read_text()
    report = build_report(_lines(log))
    assert [c.cause for c in report.invalidations] == ["timestamp"]


def test_usage_only_observations_are_readable(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    with Recorder(log) as recorder:
        monitor = Monitor("anthropic", metrics=False, recorder=recorder)
        monitor.observe(pairs.anthropic(), usage=_WRITE, at=0.0, key="session-1")
        monitor.observe(pairs.anthropic(), usage=_WRITE, at=10.0, key="session-1")
    report = build_report(_lines(log))
    assert report.records == 2 and report.cache_write == 4000
    assert [c.cause for c in report.invalidations] == ["none"]


def test_an_unreported_output_is_logged_as_null_and_read_back_as_unknown(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    streamed = CacheUsage(uncached_input=5, cache_read=2000, cache_write=0, output=None)
    with Recorder(log) as recorder:
        monitor = Monitor("anthropic", metrics=False, recorder=recorder)
        monitor.observe(pairs.anthropic(), usage=_WRITE, at=0.0, key="session-1")
        monitor.observe(pairs.anthropic(), usage=streamed, at=10.0, key="session-1")
    records = [json.loads(line) for line in _lines(log)]
    assert [r["usage"]["output"] for r in records] == [1, None]
    report = build_report(_lines(log))
    assert (report.records, report.skipped) == (2, 0)
    assert (report.output, report.output_unreported_records) == (1, 1)


def test_a_neutral_usage_without_output_reads_as_unknown_and_old_logs_read_as_before() -> None:
    request = pairs.anthropic()
    neutral = {"uncached_input": 5, "cache_read": 0, "cache_write": 2000}
    lines = [
        json.dumps({"at": 0.0, "request": request, "usage": {**neutral, "output": 7}}),  # older
        json.dumps({"v": 1, "at": 9.0, "request": request, "usage": neutral}),  # no output said
    ]
    report = build_report(lines)
    assert (report.records, report.output, report.output_unreported_records) == (2, 7, 1)
    with pytest.raises(InputError, match=r"usage.output must be a whole number >= 0 or null"):
        build_report([json.dumps({"request": request, "usage": {**neutral, "output": -1}})])


def test_rotation_gzips_backups_and_report_reads_them_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls.jsonl"
    with Recorder(log, max_bytes=30_000, backups=50) as recorder:
        monitor = Monitor("anthropic", metrics=False, recorder=recorder)
        for _ in range(4):
            _session(monitor, turns=5)
    backups = sorted(tmp_path.glob("calls.jsonl.*.gz"))
    assert backups and all(gzip.decompress(b.read_bytes()) for b in backups)
    assert log.stat().st_size <= 30_000
    assert main(["report", str(tmp_path / "calls.jsonl*"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["records"] == 20


def test_rotation_keeps_at_most_the_backups_asked(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    with Recorder(log, max_bytes=5_000, backups=2) as recorder:
        monitor = Monitor("anthropic", metrics=False, recorder=recorder)
        _session(monitor, turns=6)
    assert _files(tmp_path) == [
        "calls.jsonl",
        "calls.jsonl.1.gz",
        "calls.jsonl.2.gz",
    ]


def test_a_write_failure_never_reaches_the_caller(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    recorder = Recorder(blocker / "calls.jsonl")  # a path under a file: cannot be created
    monitor = Monitor("anthropic", metrics=False, recorder=recorder)
    _session(monitor, turns=2)
    recorder.flush()  # the writer thread meets the failure
    assert recorder.dropped == 2
    assert "could not write" in caplog.text and EMAIL not in caplog.text


def test_wrap_takes_a_recorder(tmp_path: Path) -> None:
    from promptcache import wrap

    class Messages:
        def create(self, **kwargs: Any) -> dict[str, Any]:
            return {
                "model": kwargs["model"],
                "content": [{"type": "text", "text": f"Hello {NAME}"}],
                "usage": {
                    "input_tokens": 10,
                    "output_tokens": 3,
                    "cache_read_input_tokens": 0,
                    "cache_creation_input_tokens": 2000,
                },
            }

    class Anthropic:
        messages = Messages()

    log = tmp_path / "calls.jsonl"
    with Recorder(log) as recorder:
        client = wrap(Anthropic(), vendor="anthropic", recorder=recorder)
        client.messages.create(**pairs.anthropic())
    (record,) = [json.loads(line) for line in _lines(log)]
    assert record["vendor"] == "anthropic" and NAME not in log.read_text()


def test_an_explicit_personal_key_is_hashed_in_the_log(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    with Recorder(log) as recorder:
        Monitor("anthropic", metrics=False, recorder=recorder).observe(
            pairs.anthropic(), usage=_WRITE, key=EMAIL, at=0.0
        )
    record = json.loads(log.read_text())
    assert record["key"].startswith("key:") and EMAIL not in log.read_text()


def test_a_truncated_gzip_is_named_not_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls.jsonl"
    with Recorder(log, content="full") as recorder:
        _session(Monitor("anthropic", metrics=False, recorder=recorder))
    data = gzip.compress(log.read_bytes())
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(data[: len(data) * 2 // 3])
    status = main(["report", str(cut), "--format", "json"])
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert status == (2 if out["records"] == 0 else 0)  # nothing readable at all: exit 2
    assert out["skipped"]["lines"] == 1 and "cannot be read past" in captured.err
    assert "internal error" not in captured.err


def _gapped_session(monitor: Monitor, turns: int = 14) -> tuple[int, int]:
    """A session with a clock put in the system prompt and a pause past the TTL; its reads and
    writes as the responses gave them."""
    sim, request, at = AnthropicSim(), pairs.anthropic(), 1_764_000_000.0
    read = write = 0
    for n in range(turns):
        if n == 4:
            request["system"][0]["text"] = "Now: 20:41:07. " + request["system"][0]["text"]
        at += 30 + (600 if n == 9 else 0)
        response = sim.respond(request, at)
        read += response["usage"]["cache_read_input_tokens"]
        write += response["usage"]["cache_creation_input_tokens"]
        monitor.observe(request, response, at=at)
        request = pairs.next_turn(request, n)
    return read, write


@pytest.mark.parametrize("content", ["full", "hashes"])
def test_a_rotated_log_reports_what_the_monitor_saw(
    content: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Twelve backups: the glob must read calls.jsonl.12.gz (oldest) ... .2.gz, .1.gz, calls.jsonl
    # in that order (not .1, .10, .11, .12, .2, ... newest first), or every key's requests go
    # backwards in time and the report invents order_ambiguous misses.
    log = tmp_path / "calls.jsonl"
    live = Monitor("anthropic", metrics=False)
    with Recorder(log, content=content, max_bytes=1, backups=20) as recorder:  # type: ignore[arg-type]
        read, write = _gapped_session(Monitor("anthropic", metrics=False, recorder=recorder))
    _gapped_session(live)
    assert len(list(tmp_path.glob("calls.jsonl.*.gz"))) == 13
    assert main(["report", str(tmp_path / "calls.jsonl*"), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    seen = live.stats()
    assert out["records"] == seen["observations"] == 14
    assert (out["tokens"]["cache_read"], out["tokens"]["cache_write"]) == (read, write)
    found = {c["cause"]: (c["events"], c["tokens_lost"]) for c in out["invalidations"]}
    expected = {
        cause: (count, seen["tokens_lost"][cause]) for cause, count in seen["by_cause"].items()
    }
    assert set(expected) == {"timestamp", "ttl_expired"}
    if content == "hashes":  # the clock cannot be told from other text once hashed
        expected["content_changed"] = expected.pop("timestamp")
    assert found == expected


def test_a_line_cut_short_by_a_crash_costs_only_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls.jsonl"
    with Recorder(log) as recorder:
        Monitor("anthropic", metrics=False, recorder=recorder).observe(
            pairs.anthropic(), usage=_WRITE, at=0.0, key="session-1"
        )
    whole = log.read_bytes()
    log.write_bytes(whole + whole[: len(whole) // 2])  # the process died mid-write
    with Recorder(log) as recorder:  # the next run appends to the same file
        Monitor("anthropic", metrics=False, recorder=recorder).observe(
            pairs.anthropic(), usage=_WRITE, at=10.0, key="session-1"
        )
    assert main(["report", str(log), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["records"] == 2  # the record written after the crash is read
    assert [p["line"] for p in out["skipped"]["named"]] == [2]


def test_threads_sharing_a_recorder_write_whole_lines_and_lose_none(tmp_path: Path) -> None:
    import threading

    log = tmp_path / "calls.jsonl"
    big = pairs.anthropic(system=pairs.GUIDE * 8)  # ~90 KB a line: over any write buffer
    with Recorder(log, max_bytes=600_000, backups=100) as recorder:

        def writer(n: int) -> None:
            for turn in range(25):
                recorder.record(big, _WRITE, key=f"session-{n}", at=float(turn))

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert recorder.dropped == 0
    lines = log.read_bytes().splitlines()
    for backup in tmp_path.glob("calls.jsonl.*.gz"):
        lines += gzip.decompress(backup.read_bytes()).splitlines()
    records = [json.loads(line) for line in lines]  # every line whole
    assert sorted(r["key"] for r in records) == sorted(
        f"session-{n}" for n in range(6) for _ in range(25)
    )


def test_layout_fields_are_kept_only_when_they_read_as_names_not_text() -> None:
    request = pairs.anthropic(model="claude-sonnet-4-5@20250929")
    request["system"][0]["cache_control"]["ttl"] = "1h"
    request["messages"] += [
        {"role": NAME, "content": "hi"},
        {"role": "user", "content": [{"type": EMAIL, "text": "hi"}]},
        {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": NAME}]},
        {"role": "user", "content": [{"type": "text", "text": "hi"}], "stream": f"{NAME}!"},
    ]
    line = Recorder("unused.jsonl").line(request, _WRITE, key=None, at=0.0, vendor="anthropic")
    text = line.decode()
    assert [p for p in PLANTED if p.lower() in text.lower()] == []
    record = json.loads(line)["request"]
    assert record["model"] == "claude-sonnet-4-5@20250929"
    assert record["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert [m["role"] for m in record["messages"][:2]] == ["user", "assistant"]


def test_overlapping_requests_report_as_the_monitor_judged_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # wrap() passes when each request was sent: the second was sent before the first returned,
    # so which cache state it could read is unknown. The log must carry that, or the report
    # calls the same miss the server's.
    log, events = tmp_path / "calls.jsonl", []
    miss = CacheUsage(uncached_input=2005, cache_read=0, cache_write=0, output=1)
    with Recorder(log) as recorder:
        monitor = Monitor(
            "anthropic", metrics=False, recorder=recorder, on_invalidation=events.append
        )
        monitor.observe(pairs.anthropic(), usage=_WRITE, key="s-1", sent_at=100.0, at=105.0)
        monitor.observe(pairs.anthropic(), usage=miss, key="s-1", sent_at=103.0, at=108.0)
    assert [e.cause for e in events] == ["order_ambiguous"]
    assert main(["report", str(log), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["cause"] for c in out["invalidations"]] == ["order_ambiguous"]


def test_rotating_does_not_hold_up_the_call_that_rotates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # gzipping a 256 MiB log takes seconds (about 17 s for prompt text at level 9 here); that
    # must not happen inside the user's LLM call that happened to fill the file.
    import threading
    import time

    from promptcache.debug import recorder as recorder_module

    compressed = threading.Event()
    may_compress = threading.Event()
    real_copy = recorder_module.shutil.copyfileobj

    def slow_copy(src: Any, dst: Any) -> None:
        may_compress.wait(10)
        real_copy(src, dst)
        compressed.set()

    monkeypatch.setattr(recorder_module.shutil, "copyfileobj", slow_copy)
    log = tmp_path / "calls.jsonl"
    recorder = Recorder(log, max_bytes=1)
    recorder.record(pairs.anthropic(), _WRITE, key="s-1", at=1.0)
    started = time.monotonic()
    recorder.record(pairs.anthropic(), _WRITE, key="s-1", at=2.0)  # rotates
    assert time.monotonic() - started < 5 and not compressed.is_set()
    may_compress.set()
    recorder.close()  # waits for the backup
    assert compressed.is_set() and _files(tmp_path) == [
        "calls.jsonl",
        "calls.jsonl.1.gz",
    ]
    assert main(["report", str(tmp_path / "calls.jsonl*"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["records"] == 2


def test_a_backup_left_plain_by_a_stopped_run_is_gzipped_not_overwritten(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    with Recorder(log, max_bytes=1) as recorder:
        recorder.record(pairs.anthropic(), _WRITE, key="s-1", at=1.0)
    (tmp_path / "calls.jsonl.1").write_bytes(log.read_bytes())  # renamed, never gzipped
    with Recorder(log, max_bytes=1) as recorder:
        recorder.record(pairs.anthropic(), _WRITE, key="s-1", at=2.0)  # rotates
    names = _files(tmp_path)
    assert names == ["calls.jsonl", "calls.jsonl.1.gz", "calls.jsonl.2.gz"]


def test_asyncio_tasks_through_wrap_write_one_whole_line_each(tmp_path: Path) -> None:
    import asyncio

    pytest.importorskip("anthropic")
    from promptcache import wrap
    from promptcache.sim import AnthropicEmulator

    log = tmp_path / "calls.jsonl"
    emulator = AnthropicEmulator()  # wall clock, as wrap()'s own monitor reads

    async def session(client: Any, n: int) -> None:
        request = pairs.anthropic(system=f"Tenant {n}. " + pairs.GUIDE)
        for turn in range(4):
            await client.messages.create(**request)
            request = pairs.next_turn(request, turn)

    async def main_loop() -> None:
        with Recorder(log, max_bytes=60_000, backups=100) as recorder:
            client = wrap(emulator.client(is_async=True), recorder=recorder)
            await asyncio.gather(*(session(client, n) for n in range(8)))
        assert recorder.dropped == 0

    asyncio.run(main_loop())
    lines = log.read_bytes().splitlines()
    for backup in tmp_path.glob("calls.jsonl.*.gz"):
        lines += gzip.decompress(backup.read_bytes()).splitlines()
    assert len([json.loads(line) for line in lines]) == 32


def test_the_vendors_own_diagnosis_survives_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A streamed call gives the monitor a CacheUsage, not a response: its diagnosis (Anthropic's
    # cache_miss_reason) names the cause when the local view finds none, in the report too.
    from promptcache._usage import CacheDiagnosis

    log, events = tmp_path / "calls.jsonl", []
    said = CacheDiagnosis(reason="system_changed", missed_tokens=2000, reusable_tokens=0)
    miss = CacheUsage(uncached_input=2005, cache_read=0, cache_write=0, output=1, diagnosis=said)
    with Recorder(log) as recorder:
        monitor = Monitor(
            "anthropic", metrics=False, recorder=recorder, on_invalidation=events.append
        )
        monitor.observe(pairs.anthropic(), usage=_WRITE, key="s-1", at=0.0)
        monitor.observe(pairs.anthropic(), usage=miss, key="s-1", at=10.0)
    assert [(e.cause, e.vendor_reason) for e in events] == [("content_changed", "system_changed")]
    assert main(["report", str(log), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["cause"] for c in out["invalidations"]] == [events[0].cause]


def test_the_placeholder_memo_is_bounded_and_changes_no_placeholder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from promptcache.debug import recorder as recorder_module
    from promptcache.debug.privacy import short_hash

    monkeypatch.setattr(recorder_module, "_MEMO_CHARS", 1_000)
    monkeypatch.setattr(recorder_module, "_memo", {})
    monkeypatch.setattr(recorder_module, "_memo_chars", 0)
    texts = [f"turn {n}: " + "x" * 90 for n in range(100)]
    for _ in range(2):  # the second pass reads the memo where it still holds the text
        for text in texts:
            shown = recorder_module.redact({"text": text})["text"]
            assert shown == f"#{short_hash(text)}#" + "." * (len(text) - 14)
            assert sum(map(len, recorder_module._memo)) <= 1_000


def test_every_field_the_recorder_writes_is_in_the_documented_format() -> None:
    import re

    from promptcache._usage import CacheDiagnosis

    doc = (Path(__file__).parents[2] / "docs" / "log-format.md").read_text()
    documented = set(re.findall(r"^\| `(\w+)` \|", doc, re.M))
    recorder = Recorder("unused.jsonl")
    said = CacheDiagnosis(reason="system_changed", missed_tokens=1, reusable_tokens=0)
    usage = CacheUsage(uncached_input=1, cache_read=0, cache_write=0, output=1, diagnosis=said)
    lines = [
        recorder.line(pairs.anthropic(), usage, key="s-1", at=2.0, vendor="anthropic", sent_at=1.0),
        recorder.line(pairs.anthropic(), {"usage": {}}, key=None, at=2.0, vendor="anthropic"),
    ]
    written = [json.loads(line) for line in lines]
    assert set().union(*written) <= documented
    assert written[0]["v"] == 1 and "version 1" in doc
    for field in written[0]["usage"]:  # the vendor-neutral usage object, in its example
        assert f'"{field}"' in doc, field


def test_a_recorder_refuses_a_path_that_is_not_a_file_when_made(tmp_path: Path) -> None:
    # opening a FIFO for writing blocks until something reads it: inside the user's LLM call
    import os

    fifo = tmp_path / "calls.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is a FIFO"):
        Recorder(fifo)
    with pytest.raises(InputError, match="is a directory"):
        Recorder(tmp_path)


def test_a_hashed_non_ascii_prompt_is_judged_against_the_minimum_as_the_full_one() -> None:
    # About one token per CJK character: a same-length ASCII placeholder would estimate a third
    # of the tokens, and a prompt over the minimum would read as below it in the report.
    guide = (
        "あなたはAcme Cloudのサポート担当者です。エスカレーションポリシーに従ってください。" * 40
    )
    nothing = CacheUsage(uncached_input=1500, cache_read=0, cache_write=0, output=1)
    causes = {}
    for content in ("full", "hashes"):
        recorder = Recorder("unused.jsonl", content=content)  # type: ignore[arg-type]
        request, lines = pairs.anthropic(system=guide, tools=[]), []
        for n in range(3):
            at = 1_764_000_000.0 + n * 10
            lines.append(recorder.line(request, nothing, key="s-1", at=at, vendor="anthropic"))
            request = pairs.next_turn(request, n)
        causes[content] = [c.cause for c in build_report(lines).invalidations]
    assert causes["full"] == ["not_cached"] and causes["hashes"] == causes["full"]


def test_a_hashed_log_keeps_the_ttl_settings_the_monitor_reads() -> None:
    # OpenAI's prompt_cache_retention="24h": hashed, the report fell back to the default TTL and
    # called a server-side miss two hours later ttl_expired
    request = {
        "model": "gpt-5",
        "messages": [
            {"role": "system", "content": pairs.GUIDE},
            {"role": "user", "content": "hi"},
        ],
        "prompt_cache_retention": "24h",
    }
    write = CacheUsage(uncached_input=2000, cache_read=0, cache_write=None, output=1)
    read_nothing = CacheUsage(uncached_input=2010, cache_read=0, cache_write=None, output=1)
    causes = {}
    for content in ("full", "hashes"):
        recorder = Recorder("unused.jsonl", content=content)  # type: ignore[arg-type]
        lines = [
            recorder.line(request, usage, key="s-1", at=at, vendor="openai")
            for usage, at in ((write, 1_764_000_000.0), (read_nothing, 1_764_007_200.0))
        ]
        causes[content] = [c.cause for c in build_report(lines).invalidations]
    assert causes == {"full": ["none"], "hashes": ["none"]}


def test_a_hashed_log_keeps_llama_cpp_native_usage(tmp_path: Path) -> None:
    # llama.cpp's /completion answer has no usage block, only timings: dropping them left a
    # record the report could not read
    request = {"model": "qwen", "messages": [{"role": "user", "content": f"Hi, I am {NAME}"}]}
    answer = {
        "model": "qwen",
        "content": f"Hello {NAME}",
        "tokens_predicted": 3,
        "timings": {"cache_n": 0, "prompt_n": 12, "predicted_n": 3},
    }
    line = Recorder("unused.jsonl").line(request, answer, key="s-1", at=1.0, vendor="engine")
    assert NAME not in line.decode()
    report = build_report([line])
    assert (report.records, report.uncached_input, report.output) == (1, 12, 3)


def test_an_object_key_holding_text_is_hashed_in_the_log() -> None:
    # Responses' metadata takes any keys; schema property names are the developer's
    request = {
        "model": "gpt-5",
        "input": [{"role": "user", "content": "hi"}],
        "metadata": {f"customer {NAME}": "1", EMAIL: "2", "tenant_id": "3"},
    }
    line = Recorder("unused.jsonl").line(request, _WRITE, key=None, at=1.0, vendor="openai")
    text = line.decode()
    assert [p for p in PLANTED if p.lower() in text.lower()] == []
    metadata = json.loads(line)["request"]["metadata"]
    assert "tenant_id" in metadata and len(metadata) == 3


def test_the_kept_response_fields_carry_no_text() -> None:
    # usage and diagnostics are token counts and reason names; a vendor (or a relay) that puts
    # text there must not put it in the hashed log
    answer = {
        "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": f"Hello {NAME}"}],
        "usage": {"input_tokens": 10, "output_tokens": 3, "note": f"for {EMAIL}"},
        "diagnostics": {"cache_miss_reason": {"type": "system_changed", "detail": NAME}},
    }
    line = Recorder("unused.jsonl").line(
        pairs.anthropic(), answer, key=None, at=1.0, vendor="anthropic"
    )
    assert [p for p in PLANTED if p.lower() in line.decode().lower()] == []
    kept = json.loads(line)["response"]
    assert kept["usage"]["input_tokens"] == 10 and kept["model"] == "claude-sonnet-4-6"
    assert kept["diagnostics"]["cache_miss_reason"]["type"] == "system_changed"


def test_the_neutral_usage_carries_no_text_in_a_hashed_log(tmp_path: Path) -> None:
    # What a stream gives the monitor: a CacheUsage, logged as the neutral usage. Its model and
    # the vendor's reason are names; text there is hashed as in a response's usage.
    said = CacheDiagnosis(reason=f"changed for {NAME}", missed_tokens=5)
    texts = CacheUsage(
        uncached_input=5, cache_read=0, cache_write=0, output=1, model=EMAIL, diagnosis=said
    )
    names = dataclasses.replace(
        texts, model="claude-sonnet-4-6", diagnosis=CacheDiagnosis(reason="system_changed")
    )
    log = tmp_path / "calls.jsonl"
    with Recorder(log) as recorder:
        line = recorder.line(pairs.anthropic(), texts, key=None, at=1.0, vendor="anthropic")
        recorder.record(pairs.anthropic(), texts, at=2.0, vendor="anthropic")
        recorder.record(pairs.anthropic(), names, at=3.0, vendor="anthropic")
    written = log.read_text()
    assert [p for p in PLANTED if p.lower() in (line.decode() + written).lower()] == []
    kept = [json.loads(text)["usage"] for text in written.splitlines()]
    assert kept[0]["diagnosis"]["missed_tokens"] == 5
    assert (kept[1]["model"], kept[1]["diagnosis"]["reason"]) == (
        "claude-sonnet-4-6",
        "system_changed",
    )


def test_sdk_objects_in_a_request_are_hashed_when_written_on_the_callers_thread(
    tmp_path: Path,
) -> None:
    # Responses API callers send the last response's output items (SDK objects) back as input.
    # The background snapshot turns them into JSON before redacting; background=False wrote
    # their text as it was, as did a dataclass (orjson writes one natively).
    pydantic = pytest.importorskip("pydantic")

    class Item(pydantic.BaseModel):  # type: ignore[misc,name-defined]
        role: str
        content: str

    @dataclasses.dataclass
    class Note:
        text: str

    request = {
        "model": "gpt-5",
        "input": [Item(role="assistant", content=f"Hello {NAME}"), {"role": "user"}],
        "metadata": Note(text=EMAIL),
    }
    answer = {"model": "gpt-5", "usage": {"input_tokens": 30, "output_tokens": 2}}
    log = tmp_path / "calls.jsonl"
    with Recorder(log, background=False) as recorder:
        recorder.record(request, answer, at=1.0, vendor="openai-responses")
    with Recorder(tmp_path / "queued.jsonl") as queued:
        queued.record(request, answer, at=1.0, vendor="openai-responses")
    written = log.read_text()
    assert [p for p in PLANTED if p.lower() in written.lower()] == []
    assert written == (tmp_path / "queued.jsonl").read_text()  # both modes write the same
    assert json.loads(written)["request"]["input"][0]["role"] == "assistant"


def test_the_placeholder_memo_counts_what_it_holds_under_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Callers' threads and writer threads share the memo; its character count was updated
    # without a lock: two threads missing on one text counted it twice, and a lost `+=` let the
    # memo outgrow its bound. A switch interval of a microsecond makes the interleaving likely.
    import sys
    import threading

    from promptcache.debug import recorder as recorder_module

    monkeypatch.setattr(recorder_module, "_MEMO_CHARS", 40_000)
    texts = [f"turn {n}: " + "x" * (n % 50) for n in range(1_500)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(20):
            monkeypatch.setattr(recorder_module, "_memo", {})
            monkeypatch.setattr(recorder_module, "_memo_chars", 0)
            start = threading.Barrier(8)

            def redact_all(start: threading.Barrier = start) -> None:
                start.wait()
                for text in texts:
                    recorder_module.redact(text)

            threads = [threading.Thread(target=redact_all) for _ in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            held = sum(map(len, recorder_module._memo))
            assert recorder_module._memo_chars == held and held <= 40_000
    finally:
        sys.setswitchinterval(interval)
