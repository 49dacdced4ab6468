"""
Keys whose shape passed for an opaque id though they spell a name, and a hashed log that must
still tell a key-order miss from an edit (issue #22).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcache import CacheUsage, Invalidation, Monitor, Recorder
from promptcache._report import build_report
from promptcache.debug.privacy import export_key, looks_opaque, stored_key

from . import pairs

NAME = "Zebulon Quackenbush"
PLANTED = (NAME, "Quackenbush", "Zebulon", "quack", "smith", "joe1985")


def _leaks(text: str) -> list[str]:
    return [p for p in PLANTED if p.lower() in text.lower()]


@pytest.mark.parametrize(
    "key",
    [
        "zebulon_quack4242",  # any short word, "_" and letters with digits passed as a typed id
        "anna_smith1985",
        "zebulon_quackenbush42",
        "user_joe19851",
        "sess_quack4242",  # a generic prefix, and a name in the random part
        "deadbeefcafe",  # hex that spells words
    ],
)
def test_a_name_in_an_id_shape_is_hashed(key: str) -> None:
    assert not looks_opaque(key)
    assert export_key(key).startswith("key:") and key not in stored_key(key)


@pytest.mark.parametrize(
    "key", ["sess_8f3kQ2ab", "chatcmpl_8f3k29x7w1", "3f2a9c81d0e4b7aa", "cus_8fk2Q9x3"]
)
def test_a_random_typed_id_is_still_shown(key: str) -> None:
    assert looks_opaque(key) and export_key(key) == key


ARGS = '{"query": "letters to Zebulon Quackenbush", "limit": 3}'
ARGS_SWAPPED = '{"limit": 3, "query": "letters to Zebulon Quackenbush"}'
ARGS_SPACED = '{"query":"letters to Zebulon Quackenbush","limit":3}'


@pytest.mark.parametrize(
    ("second", "cause"), [(ARGS_SWAPPED, "key_order"), (ARGS_SPACED, "whitespace")]
)
def test_a_hashed_log_names_a_reserialised_argument_as_the_live_monitor_does(
    tmp_path: Path, second: str, cause: str
) -> None:
    log = tmp_path / "calls.jsonl"
    events: list[Invalidation] = []
    usage = CacheUsage(uncached_input=2000, cache_read=0, cache_write=0, output=1)
    with Recorder(log) as recorder:
        monitor = Monitor("openai", metrics=False, recorder=recorder, on_invalidation=events.append)
        monitor.observe(pairs.openai(messages=pairs.openai_turns(ARGS)), usage=usage, at=0.0)
        monitor.observe(pairs.openai(messages=pairs.openai_turns(second)), usage=usage, at=10.0)
        monitor.close()
    assert [e.cause for e in events] == [cause]
    assert _leaks(log.read_text()) == []
    report = build_report(log.read_text().splitlines())
    assert [c.cause for c in report.invalidations] == [cause]  # was random_id / content_changed
