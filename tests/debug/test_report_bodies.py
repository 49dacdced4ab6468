"""
`promptcache report` keeps each kept request body as its JSON (`Serialised`) instead of the parsed
tree: it must judge every record exactly as a monitor holding the parsed bodies does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptcache import Monitor
from promptcache._canonical import MAX_DEPTH
from promptcache._report import ReportBuilder
from promptcache.cli import main
from promptcache.debug.memory import Serialised
from promptcache.debug.store import decode_entry, encode_entry

from . import pairs
from .sim import AnthropicSim


def _records(sessions: int = 6, turns: int = 6) -> list[dict[str, Any]]:
    """Sessions with planted misses: a clock in the system prompt, a tool edited, a long pause,
    a server-side eviction."""
    out = []
    for s in range(sessions):
        sim, request, at = AnthropicSim(), pairs.anthropic(), 1_764_000_000.0 + s
        for n in range(turns):
            if s == 1 and n == 3:
                request["system"][0]["text"] = pairs.with_header("Time: 20:41:07")
            if s == 2 and n == 2:
                request["tools"][0]["description"] += " Now with filters."
            if s == 4 and n == 4:
                sim.evict()
            at += 30 if not (s == 3 and n == 3) else 4_000
            response = sim.respond(request, at)
            out.append(
                {
                    "vendor": "anthropic",
                    "key": f"s{s}",
                    "at": at,
                    "request": request,
                    "response": response,
                }
            )
            request = pairs.next_turn(request, n)
    return out


def _said(event: Any) -> tuple[Any, ...]:
    return (
        event.key,
        event.at,
        event.cause,
        event.layer,
        event.path,
        event.offset,
        event.before,
        event.after,
        event.expected_read,
        event.actual_read,
        event.tokens_lost,
        event.detail,
        event.server_side,
        event.gap_seconds,
    )


@pytest.mark.parametrize("budget", [32 * 1024 * 1024, 20_000, 0])
def test_report_judges_serialised_bodies_as_the_monitor_judges_parsed_ones(budget: int) -> None:
    records = _records()
    lines = [json.dumps(r) for r in records]
    builder = ReportBuilder(body_budget=budget, worst=len(lines))
    for number, line in enumerate(lines, start=1):
        builder.add_line(line, number)
    reported = sorted(_said(e) for e in builder.result().worst)

    monitor = Monitor("anthropic", metrics=False, body_budget=budget, capture_content=True)
    seen = []
    for record in (json.loads(line) for line in lines):
        event = monitor.observe(
            record["request"], record["response"], key=record["key"], at=record["at"]
        )
        if event is not None:
            seen.append(_said(event))
    if budget == 32 * 1024 * 1024:  # every body kept: each cause named in full
        assert {e[2] for e in seen} == {"timestamp", "tools_changed", "ttl_expired", "none"}
    assert reported == sorted(seen) and len(seen) >= 4

    # What the report's monitor holds: bytes, never the parsed tree.
    held = builder._monitors["anthropic"]._keys.entries.values()
    bodies = [e.body for e in held if e.body is not None]
    assert all(isinstance(b, Serialised) for b in bodies)
    assert (len(bodies) > 0) == (budget > 0)


def test_a_serialised_body_travels_to_the_store_as_the_json_it_is() -> None:
    records = _records(sessions=1, turns=2)
    builder = ReportBuilder()
    for number, record in enumerate(records, start=1):
        builder.add_line(json.dumps(record), number)
    monitor = builder._monitors["anthropic"]
    entry = monitor._keys.entries["s0"]
    assert isinstance(entry.body, Serialised)
    records_of = monitor._records(entry)
    kept = decode_entry(encode_entry(entry, records_of, body_limit=1 << 20))
    assert kept.body == records[-1]["request"]
    # only what judging reads of the settings (store.stored_settings): no max_tokens
    assert kept.params["model"] == "claude-sonnet-4-6" and "max_tokens" not in kept.params
    bare = decode_entry(encode_entry(entry, records_of, body_limit=100))  # over the limit
    assert bare.body is None and bare.records == records_of


def _nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"a": value}
    return value


@pytest.mark.parametrize("where", ["request", "response", "extra"])
@pytest.mark.parametrize("depth", [MAX_DEPTH, MAX_DEPTH + 1])
def test_a_record_nested_past_the_limit_is_refused_wherever_the_depth_is(
    where: str, depth: int
) -> None:
    # The report serialises the request apart from the rest of its record: the limit must still
    # fall on the record's depth, to the level, whichever part of it nests.
    request: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": 5, "messages": []}
    response: dict[str, Any] = {"usage": {"input_tokens": 5, "output_tokens": 1}}
    record: dict[str, Any] = {"vendor": "anthropic", "request": request, "response": response}
    # record -> request -> messages -> message -> content -> block -> input: 6 levels above
    if where == "request":
        block = {"type": "tool_use", "id": "1", "name": "n", "input": _nested(depth - 6)}
        request["messages"] = [{"role": "user", "content": [block]}]
    elif where == "response":
        response["extra"] = _nested(depth - 2)  # record -> response -> extra
    else:
        record["extra"] = _nested(depth - 1)  # record -> extra
    builder = ReportBuilder()
    builder.add_line(json.dumps(record), 1)
    report = builder.result()
    if depth <= MAX_DEPTH:
        assert (report.records, report.skipped) == (1, 0)
    else:
        assert (report.records, report.skipped) == (0, 1)
        assert f"nests {depth} levels" in report.problems[0].reason


def test_html_report_over_two_logs_keeps_worst_events_tied_at_the_same_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Line numbers restart in each file (a rotated log's backups, two runs' logs): two misses
    # losing the same tokens at the same line of two files tied on (tokens lost, line), and the
    # heap of worst events then compared the events themselves, an internal error.
    logs = []
    for run in ("a", "b"):
        log = tmp_path / f"{run}.jsonl"
        log.write_text("".join(json.dumps({**r, "key": run + r["key"]}) + "\n" for r in _records()))
        logs.append(str(log))
    page = tmp_path / "report.html"

    assert main(["report", *logs, "--html", str(page), "--format", "json"]) == 0

    report = json.loads(capsys.readouterr().out)
    assert report["records"] == 2 * len(_records())
    text = page.read_text()
    assert text.count('class="worst"') >= 2
