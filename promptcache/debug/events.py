"""`Invalidation`: one unexpected cache miss, as the monitor reports it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._printable import printable
from .causes import CAUSES
from .privacy import export_key

__all__ = ["MONITOR_CAUSES", "WITHDRAWN", "Invalidation"]

# Every cause the monitor's judging can give an event (`Invalidation.cause` below): the metrics
# create each (vendor, cause) series at 0 when a vendor is first seen, so that the first event of
# a cause is counted by Prometheus's increase() and rate() (a series born at 1 never is).
MONITOR_CAUSES: tuple[str, ...] = (*CAUSES, "ttl_expired", "lookback", "order_ambiguous")

# The cause of a follow-up that takes back an earlier `below_minimum` of the same key: a later
# response read from the cache a prefix shorter than the minimum the vendor documents.
WITHDRAWN = "below_minimum_withdrawn"


@dataclass(frozen=True, slots=True, kw_only=True, repr=False)
class Invalidation:
    """
    One unexpected cache miss: what should have been read, what was, and why.

    `cause` is a `diff` cause, or "ttl_expired" / "below_minimum" / "not_cached" (markers sent over
    the minimum, nothing ever written or read) / "lookback" (Anthropic: the previous request's last
    breakpoint lies more than 20 content blocks before every breakpoint of this request, so none
    of them finds its entry; `detail` gives the count and the fix), "order_ambiguous" (the previous
    request of the key was sent at the same moment, or had not finished when this one was sent, so
    which state this one could read is unknown; `detail` gives the times), or "none" with
    `server_side=True` when the prefix was identical and the server still missed. `vendor_reason`
    is the vendor's own diagnosis verbatim, when the response carried one.

    One cause is no miss: "below_minimum_withdrawn" (`WITHDRAWN`, `withdrawal` is True) follows an
    earlier `below_minimum` of the same key that a later read disproved (the vendor read a prefix
    under the minimum it documents and no longer than the one claimed); `actual_read` is that
    read, nothing is lost, and
    `detail` names the minimum learned for the model.

    `before`, `after` and the excerpts in `detail` are prompt text or setting values only when the
    monitor was made with `capture_content=True`; by default they are None (a model change keeps
    the two model names) and `detail` names the path, type, length and a short hash of each side. `message()` is what goes to logs: the key appears in it
    verbatim only when it looks like an opaque id (`privacy.export_key`), and control characters
    are escaped (`\\n`, `\\x1b`), so an excerpt cannot forge a log line or drive a terminal;
    `before`, `after` and `detail` stay as they were.
    """

    key: str
    vendor: str
    model: str | None
    cause: str
    layer: str | None
    path: str | None
    offset: int | None
    before: str | None
    after: str | None
    expected_read: int
    actual_read: int
    tokens_lost: int
    gap_seconds: float | None
    server_side: bool
    vendor_reason: str | None
    detail: str
    at: float

    def to_json(self) -> dict[str, Any]:
        """The fields, the key as `message()` shows it (hashed unless it looks opaque)."""
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["key"] = export_key(self.key)
        return out

    def __repr__(self) -> str:
        # A repr reaches logs and tracebacks: the key as message() shows it, never verbatim.
        fields = self.to_json()
        return f"Invalidation({', '.join(f'{name}={value!r}' for name, value in fields.items())})"

    @property
    def withdrawal(self) -> bool:
        """Whether this event takes back an earlier one of its key (no miss of its own)."""
        return self.cause == WITHDRAWN

    def message(self) -> str:
        if self.withdrawal:
            return printable(
                f"promptcache: earlier verdict for key {export_key(self.key)!r} ({self.vendor}) "
                f"withdrawn: {self.detail}"
            )
        where = f" at {self.path}" if self.path else ""
        if self.offset is not None and self.path:
            where += f" byte {self.offset}"
        # Escaped: with capture_content the detail quotes prompt text, and a newline or a
        # terminal escape in it would forge log lines or drive the terminal showing the log.
        return printable(
            f"prompt cache miss for key {export_key(self.key)!r} ({self.vendor}): cause {self.cause}{where}; "
            f"read {self.actual_read} of {self.expected_read} expected tokens; {self.detail}"
        )
