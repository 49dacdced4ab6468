"""Shared by the emulator tests."""

from __future__ import annotations

import pytest

from promptcache.sim import ManualClock


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()
