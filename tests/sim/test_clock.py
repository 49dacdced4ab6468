"""The emulator's ManualClock and the monitor: one clock, or a loud refusal; dates of today."""

from __future__ import annotations

import logging
import time
from datetime import datetime, timezone
from pathlib import Path

import orjson
import pytest

import promptcache
from promptcache import InputError, Monitor, Prompt, Recorder, get_adapter
from promptcache.sim import AnthropicEmulator, ManualClock

pytest.importorskip("anthropic")

PROMPT = Prompt().add_system("You are the support agent. " * 300).with_tail("Where is my order?")
REQUEST = get_adapter("anthropic").to_request(PROMPT, model="claude-sonnet-4-6")


def test_a_monitor_on_the_wall_clock_refuses_an_emulator_on_a_manual_clock() -> None:
    """It called a 600 s advance of the emulator's clock a 0 s gap: cause none, "server-side"."""
    clock = ManualClock()
    client = AnthropicEmulator(clock=clock).client()
    monitor = Monitor("anthropic")
    with pytest.raises(InputError, match=r"ManualClock.*Monitor\(\.\.\., clock=clock\)"):
        monitor.observe(REQUEST, client.messages.create(**REQUEST), key="s")


def test_one_clock_for_both_names_the_expiry() -> None:
    clock = ManualClock()
    client = AnthropicEmulator(clock=clock).client()
    monitor = Monitor("anthropic", clock=clock)
    assert monitor.observe(REQUEST, client.messages.create(**REQUEST), key="s") is None
    clock.advance(600)
    event = monitor.observe(REQUEST, client.messages.create(**REQUEST), key="s")
    assert event is not None and event.cause == "ttl_expired" and not event.server_side


def test_an_explicit_at_or_clock_is_the_caller_s_choice() -> None:
    client = AnthropicEmulator(clock=ManualClock()).client()
    Monitor("anthropic").observe(REQUEST, client.messages.create(**REQUEST), at=time.time())
    Monitor("anthropic", clock=lambda: 5.0).observe(REQUEST, client.messages.create(**REQUEST))


def test_an_emulator_on_the_wall_clock_needs_nothing() -> None:
    client = AnthropicEmulator().client()
    assert Monitor("anthropic").observe(REQUEST, client.messages.create(**REQUEST)) is None


def test_wrap_says_why_it_could_not_observe(caplog: pytest.LogCaptureFixture) -> None:
    client = promptcache.wrap(AnthropicEmulator(clock=ManualClock()).client())
    with caplog.at_level(logging.WARNING, logger="promptcache"):
        client.messages.create(**REQUEST)
    assert "clock=clock" in caplog.text, caplog.text


def test_a_manual_clock_starts_at_the_current_hour(tmp_path: Path) -> None:
    """It started at 1.8e9 s: logs and HTML reports made on it carried dates in January 2027."""
    clock = ManualClock()
    assert clock() % 3600 == 0 and 0 <= time.time() - clock() < 3600 + 5
    assert ManualClock(0.0)() == 0.0
    client = AnthropicEmulator(clock=clock).client()
    with Recorder(tmp_path / "calls.jsonl", background=False) as recorder:
        Monitor("anthropic", clock=clock, recorder=recorder).observe(
            REQUEST, client.messages.create(**REQUEST)
        )
    (record,) = [
        orjson.loads(line) for line in (tmp_path / "calls.jsonl").read_bytes().splitlines()
    ]
    at = record["at"]
    when = (
        datetime.fromtimestamp(at, timezone.utc)
        if isinstance(at, float)
        else datetime.fromisoformat(at)
    )
    assert when.year == datetime.now(timezone.utc).year
