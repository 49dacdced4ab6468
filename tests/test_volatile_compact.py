"""
Compact timestamps in the volatile scan (issue #23): what `diff` calls a `timestamp` when it
changes, `inspect` finds in one request, through the one detector (`_volatile`), and the
look-alikes (an order or build number, a phone number, a date pinned in a model name) are left
alone by both.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from promptcache import diff, find_volatile
from promptcache.cli import main

from .debug import pairs

NOW = datetime(2026, 12, 1, 22, 30, tzinfo=timezone.utc)
BASIC = "ISO 8601 timestamp (basic format)"
EPOCH = int(NOW.timestamp())

# (text, the value found) with NOW as the clock
FOUND = [
    ("Context built 20261201T223000Z.", "20261201T223000Z"),
    ("Snapshot: backup-20261201T223000.tar", "20261201T223000"),
    ("Run 20261201T233000+0100 of the nightly job.", "20261201T233000+0100"),
    ("Export s3://bucket/dumps/db_20261201T223000Z_full.sql.gz", "20261201T223000Z"),
]
# (text, the clock it is read at): the look-alike's own date, so only its shape decides
LEFT_ALONE = [
    ("Order 20261201223000 shipped.", NOW),  # an order or build number: no `T`
    ("Call +1 415 555 0100 or 4155550100 for support.", NOW),
    ("Ticket 20261301T223000 is open.", NOW),  # month 13: no date
    ("Model gpt-4o-2024-08-06 answers.", datetime(2024, 8, 6, 12, tzinfo=timezone.utc)),
    ("Model claude-3-5-sonnet-20241022 answers.", datetime(2024, 10, 22, tzinfo=timezone.utc)),
    ("Use gemini-2.0-flash-001 or 20240101-preview.", datetime(2024, 1, 1, tzinfo=timezone.utc)),
]


@pytest.mark.parametrize(("text", "value"), FOUND)
def test_the_scan_finds_a_compact_iso_timestamp(text: str, value: str) -> None:
    [match] = find_volatile(text, now=NOW)
    assert (match.value, match.label) == (value, BASIC)
    assert text[match.offset :].startswith(value)
    assert match.described == f"an {BASIC}"


def test_a_compact_timestamp_far_from_now_is_stable_content() -> None:
    assert find_volatile("Schema frozen 20190301T120000Z.", now=NOW) == []


@pytest.mark.parametrize(
    "text", [f"ts={EPOCH} end", f"ts={EPOCH * 1000 + 123} end"], ids=["seconds", "milliseconds"]
)
def test_the_scan_finds_epoch_times_near_now(text: str) -> None:
    assert [m.kind for m in find_volatile(text, now=NOW)] == ["epoch"]


@pytest.mark.parametrize(("text", "now"), LEFT_ALONE)
def test_a_look_alike_is_left_alone(text: str, now: datetime) -> None:
    assert find_volatile(text, now=now) == []


def test_a_uuid_glued_into_a_path_is_found() -> None:
    text = "Settings are in /tmp/app-settings-3f2504e0-4f89-11d3-9a0c-0305e82c3301.json."
    [match] = find_volatile(text, now=NOW)
    assert (match.kind, match.value) == ("uuid", "3f2504e0-4f89-11d3-9a0c-0305e82c3301")


# -- one rule: diff's timestamp is inspect's volatile value --------------------------------


def _later(text: str) -> str:
    """The same text a few minutes later (each compact timestamp moved on)."""
    return text.replace("223000", "224512").replace("233000", "234512")


@pytest.mark.parametrize(("text", "value"), FOUND)
def test_diff_calls_the_same_change_a_timestamp(text: str, value: str) -> None:
    a, b = (
        pairs.anthropic(system=pairs.with_header(text)),
        pairs.anthropic(system=pairs.with_header(_later(text))),
    )
    assert diff(a, b, "anthropic").cause == "timestamp"


@pytest.mark.parametrize(("text", "now"), LEFT_ALONE[:3])
def test_diff_calls_a_look_alike_change_content(text: str, now: datetime) -> None:
    changed = text.replace("223000", "224512").replace("0100", "0199")
    a = pairs.anthropic(system=pairs.with_header(text))
    b = pairs.anthropic(system=pairs.with_header(changed))
    assert diff(a, b, "anthropic").cause == "content_changed"


# -- inspect, for every vendor ------------------------------------------------------------------

REQUESTS = {
    "anthropic": lambda system: pairs.anthropic(system=system),
    "openai": lambda system: pairs.openai(system=system),
    "gemini": lambda system: pairs.gemini(system=system),
}


def _inspect(tmp_path: Path, vendor: str, system: str, capsys: Any) -> dict[str, Any]:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(REQUESTS[vendor](system)))
    assert main(["inspect", str(path), "--vendor", vendor, "--format", "json"]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


@pytest.mark.parametrize("vendor", sorted(REQUESTS))
def test_inspect_names_a_compact_timestamp_in_the_system_prompt(
    vendor: str, tmp_path: Path, capsys: Any
) -> None:
    stamp = (datetime.now(timezone.utc) - timedelta(minutes=3)).strftime("%Y%m%dT%H%M%SZ")
    report = _inspect(tmp_path, vendor, pairs.with_header(f"Context built {stamp}."), capsys)
    assert [(v["kind"], v["value"]) for v in report["volatile"]] == [(BASIC, stamp)]


@pytest.mark.parametrize("vendor", sorted(REQUESTS))
def test_inspect_leaves_a_pinned_model_version_alone(
    vendor: str, tmp_path: Path, capsys: Any
) -> None:
    today = datetime.now(timezone.utc)
    pinned = f"Escalate to claude-3-5-sonnet-{today:%Y%m%d} or gpt-4o-{today:%Y-%m-%d}."
    assert _inspect(tmp_path, vendor, pairs.with_header(pinned), capsys)["volatile"] == []
