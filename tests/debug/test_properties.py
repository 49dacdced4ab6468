"""Properties of `diff` over generated requests, and the monitor without optional packages."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache import CacheUsage, Monitor, diff
from promptcache.debug import exporters

from . import pairs

TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=200
)


@settings(max_examples=60, deadline=None)
@given(system=TEXT, turns=st.lists(TEXT, min_size=1, max_size=6))
def test_identical_requests_lose_nothing(system: str, turns: list[str]) -> None:
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(turns)
    ]
    a = pairs.anthropic(system=system, messages=messages)
    # min_tokens=1: a short generated prompt counts as cached (under the real minimum, identical
    # requests are below_minimum: nothing was cached to keep)
    same = diff(a, copy.deepcopy(a), "anthropic", min_tokens=1)
    assert same.to_json()["cause"] == "none"


@settings(max_examples=60, deadline=None)
@given(system=TEXT, extra=st.lists(TEXT, min_size=1, max_size=4))
def test_appending_never_invalidates(system: str, extra: list[str]) -> None:
    for vendor, build in (("anthropic", pairs.anthropic), ("openai", pairs.openai)):
        a = build(system=system)
        b = copy.deepcopy(a)
        b["messages"] += [{"role": "user", "content": t} for t in extra]
        assert not diff(a, b, vendor).invalidated


@settings(max_examples=80, deadline=None)
@given(
    system=TEXT,
    position=st.integers(min_value=0, max_value=199),
    char=st.characters(codec="utf-8", exclude_categories=("Cs",)),
)
def test_a_changed_character_is_located(system: str, position: int, char: str) -> None:
    position %= len(system)
    if system[position] == char:
        return
    changed = system[:position] + char + system[position + 1 :]
    # Followed by the guide: a prefix over the model's minimum, which the vendor caches.
    a, b = (
        pairs.anthropic(system=system + pairs.GUIDE),
        pairs.anthropic(system=changed + pairs.GUIDE),
    )
    result = diff(a, b, "anthropic")
    assert result.invalidated and result.path == "system[0].text" and result.layer == "system"
    assert result.offset == len(system[:position].encode("utf-8"))


def test_monitor_works_without_optional_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exporters, "_optional", lambda module: None)
    events: list[Any] = []
    monitor = Monitor("anthropic", on_invalidation=events.append)  # metrics on, nothing installed
    request = pairs.anthropic()
    usage = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
    monitor.observe(request, usage=usage, at=0.0)
    monitor.observe(request, usage=usage, at=1.0)
    assert [e.cause for e in events] == ["none"]
