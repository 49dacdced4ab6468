"""
Keys whose shape passed for an opaque id though they spell a name, and a hashed log that must
still tell a key-order miss from an edit (issue #22).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcache import CacheUsage, InputError, Invalidation, Monitor, Recorder
from promptcache._errors import HASH_KEY_ENV, short_hash
from promptcache._report import build_report
from promptcache.cli import main
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


def test_a_hash_key_too_short_to_be_a_secret_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(HASH_KEY_ENV, "short")
    with pytest.raises(InputError, match=rf"\${HASH_KEY_ENV} is 5 characters") as raised:
        short_hash(NAME)
    assert "short" not in str(raised.value).replace("PROMPTCACHE", "")  # the key is not quoted
    with pytest.raises(InputError, match=HASH_KEY_ENV):
        Monitor("anthropic", metrics=False)  # said where it is made, not at the first miss
    log = tmp_path / "calls.jsonl"
    log.write_text('{"request": {"model": "m", "messages": []}, "response": {}}\n')
    assert main(["report", str(log)]) == 2  # was: every line skipped for it, and exit 0
    assert f"${HASH_KEY_ENV} is 5 characters" in capsys.readouterr().err
    monkeypatch.setenv(HASH_KEY_ENV, "a-long-enough-secret-0123456789")
    assert short_hash(NAME) != short_hash(NAME.encode() + b" ")  # keyed and working
