"""
One clock for an emulator and the monitor that judges its answers.

An emulator on a `ManualClock` lives in its own time: `clock.advance(600)` expires its entries.
A `Monitor` left on the wall clock sees the same two requests a moment apart, so it calls the
expiry "cause none, a server-side miss". The monitor asks here whether a response came from an
emulator on a manual clock while it reads another clock, and then refuses loudly.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from .._errors import InputError
from ._core import ManualClock

__all__ = ["ClockMismatchError", "answering", "clock_mismatch"]

# The clock each recent response id was answered on (None: not a manual one), newest last.
# Ids repeat across emulators (each counts from 1): the latest answer with an id is the one a
# monitor observes next, so it overwrites. Weak, so a finished test's clock is forgotten.
_BY_ID: OrderedDict[str, weakref.ref[ManualClock] | None] = OrderedDict()
_KEEP = 4096
_LOCK = threading.Lock()


class ClockMismatchError(InputError):
    """A monitor on one clock judged an emulator that answers on a `ManualClock`."""


def answering(clock: Callable[[], float], payload: Any) -> None:
    """An emulator answered `payload` on `clock` (called for every answer it gives)."""
    ident = _ident(payload)
    if ident is None:
        return
    with _LOCK:
        _BY_ID.pop(ident, None)
        _BY_ID[ident] = weakref.ref(clock) if isinstance(clock, ManualClock) else None
        while len(_BY_ID) > _KEEP:
            _BY_ID.popitem(last=False)


def clock_mismatch(response: Any, clock: Callable[[], float]) -> ClockMismatchError | None:
    """
    The error to raise when `response` is an emulator's, some emulator runs on a ManualClock, and
    the monitor reads the wall clock (its default); None otherwise. A monitor given any other
    clock, or an explicit `at`, made its own choice and is not second-guessed.
    """
    ident = _ident(response) if clock is time.time else None
    if ident is None or "emulated" not in ident:
        return None
    with _LOCK:
        answered = _BY_ID.get(ident)
    if answered is None or answered() is None:
        return None
    return ClockMismatchError(
        "this response came from a promptcache emulator that runs on a ManualClock, but the "
        "Monitor reads the wall clock (time.time): the two disagree about every gap (a "
        "clock.advance(600) reads as 0 s, and an expired entry as a server-side miss). Fix: give "
        "the monitor the emulator's clock, Monitor(..., clock=clock)"
    )


def _ident(response: Any) -> str | None:
    """A response's id (every emulator's says "emulated": msg_emulated_..., chatcmpl-emulated-)."""
    if isinstance(response, Mapping):
        ident = response.get("id", response.get("responseId"))
    else:
        ident = getattr(response, "id", None) or getattr(response, "response_id", None)
    return ident if isinstance(ident, str) else None
