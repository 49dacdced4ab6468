"""The recorder's writer thread: the caller only snapshots; nothing lost, reordered or silent."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

from promptcache import CacheUsage, Recorder
from promptcache.debug import recorder as recorder_module

from . import pairs
from .test_privacy import EMAIL

_WRITE = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
_ANSWER = {"model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "hi"}]}


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _slow_writes(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """A disk that takes `seconds` for each append."""
    write = Recorder._write

    def slow(self: Recorder, data: bytes) -> None:
        time.sleep(seconds)
        write(self, data)

    monkeypatch.setattr(Recorder, "_write", slow)


def test_the_request_as_it_was_at_the_call_is_recorded(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    request = pairs.anthropic()
    request["messages"][-1]["content"] = f"Mail {EMAIL} the invoice"
    with Recorder(log, content="full") as recorder:
        for n in range(20):
            recorder.record(request, _ANSWER, key="s-1", at=float(n))
            # the caller goes on with its conversation in place, right after the call
            request["messages"][-1]["content"] = f"turn {n}"
            request["messages"].append({"role": "assistant", "content": "x"})
            _ANSWER["content"][0]["text"] = f"changed {n}"  # type: ignore[index]
    _ANSWER["content"][0]["text"] = "hi"  # type: ignore[index]
    records = _records(log)
    assert records[0]["request"]["messages"][-1]["content"] == f"Mail {EMAIL} the invoice"
    assert records[0]["response"]["content"][0]["text"] == "hi"
    assert [len(r["request"]["messages"]) for r in records] == [
        len(pairs.anthropic()["messages"]) + n for n in range(20)
    ]


def test_redaction_runs_on_the_writer_thread_not_the_callers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []
    redact = recorder_module.redact

    def spying(value: Any, key: str | None = None) -> Any:
        threads.append(threading.current_thread())
        return redact(value, key)

    monkeypatch.setattr(recorder_module, "redact", spying)
    with Recorder(tmp_path / "calls.jsonl") as recorder:
        recorder.record(pairs.anthropic(), _WRITE, key="s-1", at=1.0)
    assert threads and threading.current_thread() not in threads


def test_a_slow_disk_does_not_hold_up_the_caller_and_close_writes_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _slow_writes(monkeypatch, 0.1)
    log = tmp_path / "calls.jsonl"
    recorder = Recorder(log)
    start = time.perf_counter()
    for n in range(5):
        recorder.record(pairs.anthropic(), _WRITE, key="s-1", at=float(n))
    assert time.perf_counter() - start < 0.1  # five writes take 0.5 s on the writer thread
    recorder.close()
    assert [r["at"] for r in _records(log)] == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert recorder.dropped == 0


def test_records_are_written_in_call_order(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    with Recorder(log, max_bytes=20_000, backups=0) as recorder:
        for n in range(300):
            recorder.record(pairs.anthropic(), _WRITE, key="s-1", at=float(n))
    ats = [r["at"] for r in _records(log)]  # what the last rotation left
    assert ats == sorted(ats) and ats[-1] == 299.0


def test_a_full_queue_drops_counts_and_warns_once_per_outage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    prometheus_client = pytest.importorskip("prometheus_client")
    registry = prometheus_client.CollectorRegistry()
    log = tmp_path / "calls.jsonl"
    request = pairs.anthropic()
    request["messages"][-1]["content"] = f"Mail {EMAIL}"
    size = len(json.dumps(request)) + 10  # about one snapshot
    recorder = Recorder(log, queue_bytes=3 * size, prometheus_registry=registry)
    gate = threading.Lock()
    write = Recorder._write

    def held(self: Recorder, data: bytes) -> None:
        with gate:  # the disk hangs while the test holds the gate
            write(self, data)

    monkeypatch.setattr(Recorder, "_write", held)

    def outage(first: int) -> None:
        with gate:
            for n in range(first, first + 10):
                recorder.record(request, _WRITE, key="s-1", at=float(n))  # never raises
        assert recorder.flush(timeout=10)

    with caplog.at_level(logging.WARNING, "promptcache.recorder"):
        outage(0)
        dropped = recorder.dropped
        assert 5 <= dropped <= 7  # one in the writer's hands, about three queued
        assert len(_records(log)) == 10 - dropped
        warnings = [r.getMessage() for r in caplog.records]
        assert len(warnings) == 1 and "queue_bytes=" in warnings[0] and EMAIL not in warnings[0]
        outage(10)  # the queue drained in between: a second outage is said again
    recorder.close()
    assert len(caplog.records) == 2
    assert len(_records(log)) == 20 - recorder.dropped
    counted = registry.get_sample_value(
        "promptcache_recorder_dropped_total", {"reason": "queue_full"}
    )
    assert counted == recorder.dropped


def test_an_outage_without_prometheus_looks_for_it_once_not_per_dropped_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each drop happens on the caller's thread; where prometheus_client is not installed, a
    # failed import searches the whole path again (~50 us here) on every dropped call.
    monkeypatch.setitem(sys.modules, "prometheus_client", None)  # `import` raises ImportError
    asked = []
    find = recorder_module._dropped_counter

    def counted(registry: Any) -> Any:
        asked.append(registry)
        return find(registry)

    monkeypatch.setattr(recorder_module, "_dropped_counter", counted)
    recorder = Recorder(tmp_path / "calls.jsonl", queue_bytes=1)
    gate = threading.Lock()
    write = Recorder._write

    def held(self: Recorder, data: bytes) -> None:
        with gate:
            write(self, data)

    monkeypatch.setattr(Recorder, "_write", held)
    with gate:
        for n in range(10):
            recorder.record(pairs.anthropic(), _WRITE, key="s-1", at=float(n))
    recorder.close()
    assert recorder.dropped >= 8 and len(asked) == 1


def test_background_and_synchronous_write_the_same_bytes(tmp_path: Path) -> None:
    request = pairs.anthropic()
    request["metadata"] = {"user_id": EMAIL, "Jane Doe": ("a", 1, None, 2.5)}
    request["messages"][-1]["content"] = "日本語のテキスト " + EMAIL
    for content in ("hashes", "full"):
        logs = []
        for background in (True, False):
            log = tmp_path / f"{content}-{background}.jsonl"
            with Recorder(log, content=content, background=background) as recorder:  # type: ignore[arg-type]
                recorder.record(request, _WRITE, key=EMAIL, at=1.0, vendor="anthropic")
                recorder.record(
                    request, _ANSWER, key="s-1", at=2.0, vendor="anthropic", sent_at=1.5
                )
            logs.append(log.read_bytes())
        assert logs[0] == logs[1] and len(logs[0].splitlines()) == 2


def test_a_short_script_loses_nothing_at_exit(tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    script = textwrap.dedent(
        f"""
        import time
        from promptcache import CacheUsage, Recorder
        write = Recorder._write
        def slow(self, data):
            time.sleep(0.002)
            write(self, data)
        Recorder._write = slow
        recorder = Recorder({str(log)!r})
        usage = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
        for n in range(200):
            recorder.record({{"model": "m", "messages": []}}, usage, key="s-1", at=float(n))
        """  # no close(): the script just ends, with most records still queued
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    assert [r["at"] for r in _records(log)] == [float(n) for n in range(200)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_forked_child_writes_its_own_records_not_the_parents_queue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _slow_writes(monkeypatch, 0.05)
    log = tmp_path / "calls.jsonl"
    recorder = Recorder(log, content="full")
    for n in range(4):  # still queued in the parent at the fork
        recorder.record(pairs.anthropic(), _WRITE, key="parent", at=float(n))
    with warnings.catch_warnings():  # 3.12+ warns on fork while a thread runs (the writer)
        warnings.simplefilter("ignore", DeprecationWarning)
        child = os.fork()
    if child == 0:  # pragma: no cover - the child's exit status is the assertion
        try:
            for n in range(3):
                recorder.record(pairs.anthropic(), _WRITE, key="child", at=float(n))
            recorder.close()
            os._exit(0 if recorder.dropped == 0 else 1)
        finally:
            os._exit(2)
    _, status = os.waitpid(child, 0)
    recorder.close()
    assert os.waitstatus_to_exitcode(status) == 0
    keys = sorted(r["key"] for r in _records(log))
    assert keys == ["child"] * 3 + ["parent"] * 4


def test_queue_bytes_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="queue_bytes must be >= 1, got 0"):
        Recorder(tmp_path / "calls.jsonl", queue_bytes=0)


def test_close_with_a_timeout_counts_and_says_what_it_could_not_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    prometheus_client = pytest.importorskip("prometheus_client")
    registry = prometheus_client.CollectorRegistry()
    _slow_writes(monkeypatch, 0.2)
    log = tmp_path / "calls.jsonl"
    recorder = Recorder(log, prometheus_registry=registry)
    for n in range(5):
        recorder.record(pairs.anthropic(), _WRITE, key="s-1", at=float(n))
    with caplog.at_level(logging.WARNING, "promptcache.recorder"):
        recorder.close(timeout=0.1)  # the first write is still on the disk
    written = len(_records(log)) if log.exists() else 0
    assert recorder.dropped >= 3 and written + recorder.dropped == 5
    assert "not yet written" in caplog.text and "timeout" in caplog.text
    counted = registry.get_sample_value("promptcache_recorder_dropped_total", {"reason": "closed"})
    assert counted == recorder.dropped


def test_an_idle_writer_thread_ends_and_the_next_record_starts_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recorder_module, "_WRITER_IDLE", 0.05)
    log = tmp_path / "calls.jsonl"
    with Recorder(log) as recorder:
        recorder.record(pairs.anthropic(), _WRITE, key="s-1", at=1.0)
        assert recorder.flush(timeout=10)
        writer = recorder._writer
        assert writer is not None
        writer.join(timeout=5)
        assert not writer.is_alive() and recorder._writer is None
        recorder.record(pairs.anthropic(), _WRITE, key="s-1", at=2.0)
    assert [r["at"] for r in _records(log)] == [1.0, 2.0]
