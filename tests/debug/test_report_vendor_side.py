"""`report`'s vendor-side section: server-side misses by model, hour, size band and gap, and the
evidence of each (`report --evidence OUT.jsonl`)."""

from __future__ import annotations

import copy
import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptcache import Recorder
from promptcache._report import build_report
from promptcache.cli import main

from . import pairs
from .sim import AnthropicSim

T0 = 1_764_000_000.0  # 2025-11-24T16:00Z


def _anthropic(evict_at: frozenset[int] = frozenset({3}), turns: int = 6) -> Iterator[str]:
    """One Anthropic session on the emulator; the server drops its cache before `evict_at`."""
    sim, request, at = AnthropicSim(), pairs.anthropic(), T0
    for n in range(turns):
        at += 30
        if n in evict_at:
            sim.evict()
        response = sim.respond(request, at)
        response["id"] = f"msg_{n:04d}"
        yield json.dumps(
            {
                "vendor": "anthropic",
                "key": "s1",
                "at": at,
                "request_id": f"req_{n:04d}",
                "request": request,
                "response": response,
            }
        )
        request = pairs.next_turn(request, n)


def _gemini_request(tokens: int, session: int) -> dict[str, Any]:
    request = pairs.gemini(system=f"session {session} " + "policy text " * (tokens // 3))
    return request


def _gemini_record(request: dict[str, Any], prompt: int, cached: int, at: float, key: str) -> str:
    usage = {
        "promptTokenCount": prompt,
        "cachedContentTokenCount": cached,
        "candidatesTokenCount": 20,
        "totalTokenCount": prompt + 20,
    }
    response = {"usageMetadata": usage, "modelVersion": "gemini-2.5-flash", "responseId": "r-1"}
    return json.dumps(
        {"vendor": "gemini", "key": key, "at": at, "request": request, "response": response}
    )


def _gemini(sizes: dict[int, float]) -> list[str]:
    """Per prompt size, four sessions of two identical calls 20 s apart; the second reads the
    share `sizes[size]` of the prompt (0.0: the 9k-17k pattern; 1.0: a full read)."""
    lines = []
    for number, (size, share) in enumerate(sizes.items()):
        for s in range(4):
            request = _gemini_request(size, 10 * number + s)
            at = T0 + 100 * s
            key = f"g{number}-{s}"
            lines.append(_gemini_record(request, size, 0, at, key))
            again = copy.deepcopy(request)
            lines.append(_gemini_record(again, size, int(size * share), at + 20, key))
    return lines


def test_a_server_side_miss_is_counted_against_the_follow_ups_of_its_model() -> None:
    side = build_report(_anthropic()).vendor_side
    assert side is not None
    # six requests of one key: five follow-ups, one of them missed on an identical prefix
    assert (side.total.follow_ups, side.total.server_side, side.total.zero_read) == (5, 1, 1)
    assert side.total.rate == pytest.approx(0.2)
    (model,) = side.by_model
    assert model.group == "anthropic:claude-sonnet-4-6" and model.facts is not None
    # what the vendor documents, from its rules and the minimum table, beside the rate
    assert (model.facts.marking, model.facts.minimum_tokens) == ("explicit", 1024)
    assert model.facts.default_ttl_seconds == 300.0
    assert [(r.group, r.follow_ups, r.server_side) for r in side.by_gap] == [("<1m", 5, 1)]
    assert [(r.group, r.server_side) for r in side.by_hour] == [("2025-11-24T16:00Z", 1)]


def test_a_client_side_change_is_no_server_side_miss() -> None:
    side = build_report(_anthropic(evict_at=frozenset())).vendor_side
    assert side is not None and (side.total.follow_ups, side.total.server_side) == (5, 0)


def test_gemini_zero_reads_in_one_size_range_show_as_a_band() -> None:
    lines = _gemini({1500: 0.0, 5000: 1.0, 12000: 0.0, 24000: 1.0})
    side = build_report(lines).vendor_side
    assert side is not None
    bands = {r.group: r for r in side.by_size}
    # under the documented 2,048-token minimum: nothing promised, no miss claimed
    assert (bands["1k-2k"].under_minimum, bands["1k-2k"].server_side) == (4, 0)
    assert bands["4k-8k"].server_side == 0 and bands["16k-32k"].server_side == 0
    # over it and identical, yet 0 read: every follow-up of the 8k-16k band
    twelve = bands["8k-16k"]
    assert (twelve.follow_ups, twelve.server_side, twelve.zero_read) == (4, 4, 4)
    assert twelve.rate == 1.0 and side.total.rate == pytest.approx(4 / 16)


def test_a_partial_read_is_told_from_a_zero_read() -> None:
    side = build_report(_gemini({12000: 0.5})).vendor_side
    assert side is not None
    assert (side.total.server_side, side.total.zero_read, side.total.partly_read) == (4, 0, 4)


def test_a_read_under_the_documented_minimum_is_counted_as_observed() -> None:
    side = build_report(_gemini({1500: 0.6})).vendor_side
    assert side is not None
    assert (side.total.under_minimum, side.total.read_under_minimum) == (4, 4)


def test_the_evidence_of_a_miss_carries_hashes_counts_ids_and_no_prompt_text() -> None:
    side = build_report(_anthropic(), evidence=10).vendor_side
    assert side is not None
    (item,) = side.evidence
    assert item["prefix_hash_before"] == item["prefix_hash_after"]
    assert item["prefix_hash_before"].startswith("sha256:")
    assert item["tokens_read"] == 0 and item["tokens_expected"] > 1000
    assert item["gap_seconds"] == 30.0 and item["read"] == "none"
    assert (item["response_id"], item["request_id"]) == ("msg_0003", "req_0003")
    assert (item["previous_response_id"], item["previous_request_id"]) == ("msg_0002", "req_0002")
    assert item["ttl_requested"] == ["5m"] and item["ttl_assumed_seconds"] == 300.0
    assert item["line"] == "<log>:4" and item["endpoint"] == "anthropic"
    text = json.dumps(item)
    assert pairs.GUIDE[:40] not in text and "deploy" not in text


def test_report_evidence_writes_one_json_line_per_miss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(_anthropic(evict_at=frozenset({2, 4}))) + "\n")
    out = tmp_path / "evidence.jsonl"
    assert main(["report", str(log), "--evidence", str(out), "--format", "json"]) == 0
    lines = out.read_text().splitlines()
    assert [json.loads(line)["line"] for line in lines] == [f"{log}:3", f"{log}:5"]
    section = json.loads(capsys.readouterr().out)["vendor_side"]
    assert (section["follow_ups"], section["server_side_misses"]) == (5, 2)
    assert section["by_model"][0]["documented_minimum_tokens"] == 1024


def test_report_evidence_to_a_missing_folder_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(_anthropic()) + "\n")
    assert main(["report", str(log), "--evidence", str(tmp_path / "no" / "e.jsonl")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_the_text_report_has_the_vendor_side_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(_gemini({5000: 1.0, 12000: 0.0})) + "\n")
    assert main(["report", str(log)]) == 0
    text = capsys.readouterr().out
    assert "server-side misses  4 of 8 follow-ups (50.0%)" in text
    assert "gemini:gemini-2.5-flash" in text and "documented minimum 2,048" in text
    assert "8k-16k" in text and "4 zero-read" in text


def test_the_csv_report_can_hold_the_vendor_side_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(_gemini({5000: 1.0, 12000: 0.0})) + "\n")
    assert main(["report", str(log), "--format", "csv", "--section", "vendor-side"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    band = next(r for r in rows if (r["grouping"], r["group"]) == ("prompt_tokens", "8k-16k"))
    assert (band["follow_ups"], band["server_side_misses"], band["zero_read"]) == ("4", "4", "4")
    model = next(r for r in rows if r["grouping"] == "model")
    assert model["documented_minimum_tokens"] == "2048"


def test_a_hashed_recorder_log_keeps_the_vendors_ids(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    request = pairs.anthropic()
    response = {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": "private answer"}],
        "usage": {
            "input_tokens": 5,
            "output_tokens": 1,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 2000,
        },
    }
    with Recorder(path, background=False) as recorder:
        recorder.record(request, response, key="s1", at=T0)
    record = json.loads(path.read_text())
    assert record["response_id"] == "msg_01XFDUDYJgAACzvnptvVoYEL"
    assert "private answer" not in path.read_text()


def test_the_recorder_keeps_the_sdks_request_id_in_the_background(tmp_path: Path) -> None:
    types = pytest.importorskip("anthropic.types")
    message = types.Message.model_validate(
        {
            "id": "msg_01Aa",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": "private answer"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": 5,
                "output_tokens": 1,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 2000,
            },
        }
    )
    message._request_id = "req_011CXyz"  # what the SDK reads from the request-id header
    path = tmp_path / "calls.jsonl"
    for content in ("hashes", "full"):
        with Recorder(path, content=content) as recorder:  # type: ignore[arg-type]
            recorder.record(pairs.anthropic(), message, key="s1", at=T0)
    first, second = (json.loads(line) for line in path.read_text().splitlines())
    for record in (first, second):
        assert (record["response_id"], record["request_id"]) == ("msg_01Aa", "req_011CXyz")


def test_an_id_that_is_free_text_is_not_written(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    response = {"id": "Zebulon Quackenbush wrote this", "usage": {"input_tokens": 5}}
    with Recorder(path, background=False) as recorder:
        recorder.record(pairs.anthropic(), response, key="s1", at=T0)
    text = path.read_text()
    assert "response_id" not in text and "Zebulon" not in text


def test_the_model_rows_stay_bounded() -> None:
    from promptcache._report import ReportBuilder

    builder = ReportBuilder(max_groups=1)
    lines = [json.loads(line) for line in _gemini({5000: 0.0})]
    for number, record in enumerate(lines, start=1):
        record["request"]["model"] = f"gemini-2.5-flash-{number // 2 % 3}"  # three models
        builder.add_line(json.dumps(record), number)
    side = builder.result().vendor_side
    assert side is not None and side.total.follow_ups == 4
    names = [row.group for row in side.by_model]
    assert len(names) == 2 and "gemini:(other)" in names
    other = next(row for row in side.by_model if row.group == "gemini:(other)")
    assert other.facts is not None and other.facts.model == "(other)"


def test_a_section_without_csv_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(_anthropic()) + "\n")
    assert main(["report", str(log), "--section", "vendor-side"]) == 2
    assert "--format csv" in capsys.readouterr().err
