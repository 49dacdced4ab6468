"""
Per-request values at the place where two texts differ: the volatile scan's timestamps and ids
(UUIDs and compact timestamps glued into a path, a URL or a file name included:
`/tmp/app-settings-<uuid>.json`), plus a date glued into a name, which the scan leaves alone in
one request, and readings of the clock that are not dates
("snapshot 4m old", "updated 3 hours ago", "ends in 12 minutes"). Used by the cause classifier.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from .._volatile import find_volatile

__all__ = ["TIME_KINDS", "Hit", "covers", "hits_near", "standalone"]

TIME_KINDS = frozenset(
    {
        "iso_timestamp",
        "iso_basic",
        "rfc2822",
        "date",
        "date_words",
        "clock_time",
        "epoch",
        "clock_duration",
    }
)
# A value that changed between two requests and parses as a time is a clock reading whatever
# date it names, so the "near now" window of the volatile guard is opened wide.
_ANY_TIME = timedelta(days=365 * 200)
_REACH = 64  # characters either side of the change that are scanned

# An ISO date bounded by anything but a digit, glued into a name included: the volatile scan
# leaves a date in a name alone (in one request it is a pinned model version or a file's name),
# but a date there that changed between two requests is a clock reading or other content, which
# `covers` and `standalone` tell apart. UUIDs and compact timestamps in paths are the scan's own.
_EMBEDDED = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)")
_UNIT = (
    r"(?:seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|wks?|w|months?|mo"
    r"|years?|yrs?|y)"
)
_AMOUNT = rf"(?<![\d.])\d+(?:\.\d+)?\s?{_UNIT}(?:\s?\d+\s?{_UNIT})*\b"
# An amount of time is read off the clock when its words say it is an age or a countdown:
# "4m old", "3 hours ago", "12 minutes left", "uptime: 2h 5m", "expires in 30s". "Retry for
# 3 hours" is a setting, not a reading.
_DURATION = re.compile(
    rf"(?P<after>{_AMOUNT})(?=\s+(?:old|ago|left|remaining|elapsed|from now|since)\b)"
    rf"|\b(?:uptime|elapsed|age|remaining|left|countdown|in)(?P<before>:?\s+{_AMOUNT})",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Hit:
    """A per-request value: its kind, label, and span [lo, hi) in the text."""

    kind: str
    label: str
    lo: int
    hi: int


def hits_near(text: str, start: int, end: int) -> list[Hit]:
    """Per-request values that overlap the changed span [start, end) (or touch it)."""
    lo, hi = max(0, start - _REACH), min(len(text), end + _REACH)
    window = text[lo:hi]
    found = [
        Hit(kind=m.kind, label=m.label, lo=lo + m.offset, hi=lo + m.offset + len(m.value))
        for m in find_volatile(window, window=_ANY_TIME)
    ]
    found += _embedded(window, lo) + _durations(window, lo)
    return [h for h in found if h.lo <= end and h.hi >= start]


def _embedded(window: str, lo: int) -> list[Hit]:
    return [
        Hit(kind="date", label="date", lo=lo + m.start(), hi=lo + m.end())
        for m in _EMBEDDED.finditer(window)
        if _valid_date(m.group())
    ]


def _valid_date(value: str) -> bool:
    try:
        datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        return False
    return True


def _durations(window: str, lo: int) -> list[Hit]:
    hits = []
    for m in _DURATION.finditer(window):
        group = "after" if m.group("after") is not None else "before"
        begin = m.start(group) + len(m.group(group)) - len(m.group(group).lstrip(": \t"))
        hits.append(
            Hit(
                kind="clock_duration",
                label="clock-derived duration",
                lo=lo + begin,
                hi=lo + m.end(),
            )
        )
    return hits


def covers(text: str, start: int, end: int, hits: list[Hit]) -> bool:
    """
    Every letter and digit of the changed span lies inside one of `hits`: the change is the
    value, not a renamed file that happens to carry one ("report-2026-11-30.pdf" replaced by
    "minutes-2026-10-02.md" is other content).
    """
    return all(
        not text[i].isalnum() or any(h.lo <= i < h.hi for h in hits) for i in range(start, end)
    )


def standalone(text: str, hit: Hit) -> bool:
    """The value is a word of its own, not part of a name (`report-2026-12-01.pdf`, `run_<id>`)."""
    before = text[max(0, hit.lo - 2) : hit.lo].rjust(2)
    after = text[hit.hi : hit.hi + 2].ljust(2)
    return not (_glued(before[1], before[0]) or _glued(after[0], after[1]))


def _glued(char: str, beyond: str) -> bool:
    """`char` joins the value to a name: a letter or digit, or `-_./` with one beyond it."""
    return char.isalnum() or (char in "-_./" and beyond.isalnum())
