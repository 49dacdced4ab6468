"""
A usage whose numbers measure no cached prefix (a flagged ConverseStream double count, two
InvokeModel reports that disagree, several server-side passes summed) sets no expectation in the
live monitor. Streams are recorded as the vendor-neutral usage object, which dropped `problems`,
`passes` and `last_pass_cached`, so `report` on the same log took the expectation the monitor
had refused and found a miss the monitor had not. The neutral usage keeps them now (format v1,
additive: docs/log-format.md), and the report agrees with the monitor.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from promptcache import CacheUsage, Monitor, Recorder, wrap
from promptcache._report import build_report
from promptcache.debug.recorder import normalised_usage, usage_from_json

from .._recording import aws_event_stream, stub_server
from ..vendors.test_bedrock_stream_double_count import DOUBLED, _events, _request, _usage
from .bedrock_cassettes import boto3_client


def test_the_neutral_usage_keeps_what_says_it_measures_no_prefix() -> None:
    usage = CacheUsage(
        uncached_input=4995,
        cache_read=0,
        cache_write=4993,
        output=12,
        problems=("inputTokens (4995) is at least cacheReadInputTokens + ...",),
        passes=3,
        last_pass_cached=1200,
    )
    back = usage_from_json(json.loads(json.dumps(normalised_usage(usage))))
    assert back is not None
    assert back.problems == usage.problems and back.prefix_measure is None
    assert (back.passes, back.last_pass_cached) == (3, 1200)
    clean = usage_from_json(
        normalised_usage(CacheUsage(uncached_input=1, cache_read=0, cache_write=0, output=1))
    )
    assert clean is not None and clean.problems == () and clean.passes == 1


def _log_of_doubled_stream(tmp_path: Path, content: Any) -> tuple[list[Any], list[str]]:
    events: list[Any] = []
    log = tmp_path / f"calls-{content}.jsonl"
    recorder = Recorder(log, background=False, content=content)
    monitor = Monitor("bedrock", on_invalidation=events.append, metrics=False, recorder=recorder)
    with stub_server() as stub:
        stub.serve(
            [aws_event_stream(_events(DOUBLED)), aws_event_stream(_events(_usage(14, 1210, 0)))]
        )
        client = wrap(boto3_client(stub.url), monitor=monitor)
        for question in ("Where is SH-1?", "And SH-2?"):
            for _ in client.converse_stream(**_request(question))["stream"]:
                pass
    recorder.close()
    return events, log.read_text().splitlines()


def test_report_agrees_with_the_monitor_on_a_flagged_stream(tmp_path: Path) -> None:
    for content in ("hashes", "full"):
        live, lines = _log_of_doubled_stream(tmp_path, content)
        assert live == []  # the monitor took no expectation from the doubled write
        first = json.loads(lines[0])
        assert first["usage"]["problems"]  # said, in words or (hashed) as placeholders
        report = build_report(lines)
        assert report.records == 2 and report.events == 0, content
