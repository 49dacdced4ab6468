"""
The promptcache pytest plugin (registered through the `pytest11` entry point, so installing
promptcache-sdk is enough): fixtures for testing prompt caching in your own suite.

    def test_session_hits_the_cache(cache_emulator, manual_clock):
        emulator = cache_emulator("anthropic")       # an EMULATION, on `manual_clock`
        client = emulator.client()                   # the real SDK, answered in process
        ...
        manual_clock.advance(301)                    # past the 5-minute TTL

The assertions live in `promptcache.testing` (no pytest needed to import them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .sim import Emulator, ManualClock, emulator_for

__all__ = ["cache_emulator", "manual_clock"]


@pytest.fixture
def manual_clock() -> ManualClock:
    """A clock that moves only when told to (`manual_clock.advance(seconds)`)."""
    return ManualClock()


@pytest.fixture
def cache_emulator(manual_clock: ManualClock) -> Callable[..., Emulator]:
    """Make a vendor's cache EMULATION on `manual_clock`: `cache_emulator("openai")`."""

    def make(vendor: str = "anthropic", **kwargs: Any) -> Emulator:
        return emulator_for(vendor, clock=manual_clock, **kwargs)

    return make
