"""
Find text that looks like it changes on every request.

A timestamp, a UUID or a nonce inside a stable layer makes every request's prefix different from
the last, so nothing after it is ever read from the cache. Dates and times count as volatile only
when they are near the current moment (within `window`, three days by default): that is what a
value rendered from `now()` looks like, while a date in a historical document is stable content.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime

__all__ = ["VolatileMatch", "candidates", "describe", "find_volatile", "recent"]

_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
_MONTH_NAMES = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
)
_DAY = "mon|tue|wed|thu|fri|sat|sun"

# One alternation, so the text is scanned once. Group names are the kinds reported.
_PATTERN = re.compile(
    r"(?P<iso_timestamp>\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)"
    rf"|(?P<rfc2822>\b(?:{_DAY}),\s+\d{{1,2}}\s+(?:{_MONTHS})\s+\d{{4}}\s+\d{{2}}:\d{{2}}(?::\d{{2}})?\s*(?:[+-]\d{{4}}|GMT|UTC)?)"
    r"|(?P<uuid>\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b)"
    r"|(?P<date>\b\d{4}-\d{2}-\d{2}\b|\b\d{4}/\d{2}/\d{2}\b|\b\d{1,2}/\d{1,2}/\d{4}\b|\b\d{1,2}\.\d{1,2}\.\d{4}\b)"
    rf"|(?P<date_words>\b(?:{_MONTH_NAMES}|{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTH_NAMES}|{_MONTHS})\.?,?\s+\d{{4}}\b)"
    r"|(?P<clock_time>\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b(?:\s?[AaPp][Mm])?|\b\d{1,2}:\d{2}\s?[AaPp][Mm]\b)"
    r"|(?P<epoch>\b1[0-9]{9}(?:[0-9]{3})?\b)"
    r"|(?P<hex_nonce>\b[0-9a-fA-F]{32,}\b)"
    r"|(?P<base64_nonce>(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{22,}={0,2}(?![A-Za-z0-9+/_-]))",
    re.IGNORECASE,
)
# Values glued into a path, a URL or a file name, which the word-bounded pattern above cannot
# see (its nonce branch takes the whole path): a UUID, and ISO 8601's basic format as file names
# and build stamps write it (20261201T194211Z). The `T` and a valid date and time tell it from an
# order or build number (20261201194211) or a version; `diff` reads these through this scan too.
_GLUED = re.compile(
    r"(?P<uuid>(?<![0-9a-fA-F])[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}(?![0-9a-fA-F]))"
    r"|(?P<iso_basic>(?<![0-9A-Za-z])\d{8}T\d{6}(?:Z|[+-]\d{4})?(?!\d))"
)
_NONCES = frozenset({"hex_nonce", "base64_nonce"})
_LABELS = {
    "iso_timestamp": "ISO 8601 timestamp",
    "iso_basic": "ISO 8601 timestamp (basic format)",
    "rfc2822": "RFC 2822 timestamp",
    "uuid": "UUID",
    "date": "date",
    "date_words": "date",
    "clock_time": "clock time",
    "epoch": "epoch timestamp",
    "hex_nonce": "long hex string (a nonce or digest)",
    "base64_nonce": "base64 nonce",
}
_DATE_FORMATS = ("%Y-%m-%d", "%Y/%m/%d", "%m/%d/%Y", "%d/%m/%Y", "%d.%m.%Y")


@dataclass(frozen=True, slots=True, kw_only=True)
class VolatileMatch:
    """One volatile-looking value: what kind it is, the text, and where it starts."""

    kind: str
    value: str
    offset: int

    @property
    def label(self) -> str:
        return _LABELS.get(self.kind, self.kind)

    @property
    def described(self) -> str:
        """The label with its article, as spoken: "an ISO 8601 timestamp", "a UUID"."""
        return describe(self.label)


def describe(label: str) -> str:
    """`label` with the article it takes when read aloud."""
    return f"{'an' if label.startswith(('ISO', 'RFC', 'epoch')) else 'a'} {label}"


def find_volatile(
    text: str, *, now: datetime | None = None, window: timedelta = timedelta(days=3)
) -> list[VolatileMatch]:
    """Return the volatile-looking values in `text`, in order of appearance."""
    return recent(candidates(text), now=now, window=window)


def recent(
    found: tuple[VolatileMatch, ...],
    *,
    now: datetime | None = None,
    window: timedelta = timedelta(days=3),
) -> list[VolatileMatch]:
    """The `candidates` that are volatile now: dates and times only when near `now`."""
    if not found:
        return []
    moment = now or datetime.now(timezone.utc)
    return [match for match in found if _is_volatile(match, moment, window)]


@functools.lru_cache(maxsize=256)
def candidates(text: str) -> tuple[VolatileMatch, ...]:
    """
    Every pattern hit in `text`, before the recency check of `recent`.

    Memoised: stable layers repeat the same texts request after request (that is why they are
    cacheable), so the scan is paid once per distinct text. Recency is judged on every call.
    """
    if not _could_match(text):
        return ()
    words = [
        VolatileMatch(kind=found.lastgroup or "", value=found.group(), offset=found.start())
        for found in _PATTERN.finditer(text)
        if not _in_a_name(found, text)
    ]
    glued = [
        VolatileMatch(kind=found.lastgroup or "", value=found.group(), offset=found.start())
        for found in _GLUED.finditer(text)
        if found.lastgroup != "iso_basic" or _parse_basic(found.group()) is not None
    ]
    return tuple(_merged(words, glued) if glued else words)


def _in_a_name(found: re.Match[str], text: str) -> bool:
    """
    A date glued by `-` or `_` to the name before it is part of that name: a model version
    pinned in its id (`gpt-4o-2024-08-06`), a file name. It names no moment of this request.
    """
    start = found.start()
    return (
        found.lastgroup == "date"
        and start >= 2
        and text[start - 1] in "-_"
        and text[start - 2].isalnum()
    )


def _merged(words: list[VolatileMatch], glued: list[VolatileMatch]) -> list[VolatileMatch]:
    """
    Both scans in order of appearance, each value once. A nonce-looking run that holds a glued
    value is the path around it (`dumps/db_20261201T194211Z_full`), not a token: it is dropped.
    """
    spans = [(g.offset, g.offset + len(g.value)) for g in glued]
    seen = {(w.offset, w.value) for w in words}
    kept = [
        w
        for w in words
        if w.kind not in _NONCES
        or not any(w.offset <= lo and hi <= w.offset + len(w.value) for lo, hi in spans)
    ]
    kept += [g for g in glued if (g.offset, g.value) not in seen]
    return sorted(kept, key=lambda m: m.offset)


def _could_match(text: str) -> bool:
    # Every pattern needs a digit (nonces are required to carry one below), so text with no digit
    # at all is skipped without running the regex.
    return any(d in text for d in "0123456789")


def _is_volatile(match: VolatileMatch, now: datetime, window: timedelta) -> bool:
    kind, value = match.kind, match.value
    if kind in ("uuid", "clock_time"):
        return True
    if kind == "hex_nonce":
        return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    if kind == "base64_nonce":
        return _looks_random(value)
    moment = _parse_moment(kind, value)
    return moment is not None and abs(moment - now) <= window


def _looks_random(value: str) -> bool:
    """Mixed case and digits, like a token; not a long identifier or a path written in words."""
    body = value.rstrip("=")
    digits = sum(c.isdigit() for c in body)
    upper = sum(c.isupper() for c in body)
    lower = sum(c.islower() for c in body)
    return digits >= 2 and upper >= 2 and lower >= 2 and "__" not in body


def _parse_moment(kind: str, value: str) -> datetime | None:
    try:
        if kind == "epoch":
            seconds = int(value) / (1000 if len(value) == 13 else 1)
            return datetime.fromtimestamp(seconds, timezone.utc)
        if kind == "iso_basic":
            return _parse_basic(value)
        if kind == "iso_timestamp":
            return _aware(datetime.fromisoformat(value.replace("Z", "+00:00").replace(" ", "T")))
        if kind == "rfc2822":
            return _aware(parsedate_to_datetime(value))
        if kind == "date_words":
            return _parse_words(value)
        return _parse_date(value)
    except (ValueError, TypeError, OverflowError, OSError):
        return None


def _parse_basic(value: str) -> datetime | None:
    """`20261201T194211`, then `Z`, `+0100` or nothing (UTC), as ISO 8601's basic format."""
    try:
        moment = datetime.strptime(value[:15], "%Y%m%dT%H%M%S")
        zone = value[15:]
        if zone in ("", "Z"):
            return moment.replace(tzinfo=timezone.utc)
        offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5]))
        return moment.replace(tzinfo=timezone(offset if zone[0] == "+" else -offset))
    except ValueError:
        return None


def _parse_date(value: str) -> datetime | None:
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(value, fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    return None


def _parse_words(value: str) -> datetime | None:
    cleaned = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", value.replace(",", " ").replace(".", " "))
    words = cleaned.split()
    for fmt in ("%B %d %Y", "%b %d %Y", "%d %B %Y", "%d %b %Y"):
        try:
            return datetime.strptime(" ".join(words), fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    return None


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
