"""
`CacheUsage`: one normalised usage record for every vendor and engine.

    total_input = uncached_input + cache_write + cache_read

Vendors disagree on what their "input tokens" mean (Anthropic's exclude cache reads and writes;
OpenAI's, Gemini's and the OpenAI-compatible engines' include them). Each adapter does its own
arithmetic and hands back this record, so nothing downstream needs to know.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["CacheDiagnosis", "CacheUsage"]


@dataclass(frozen=True, slots=True, kw_only=True)
class CacheDiagnosis:
    """
    The vendor's own explanation of a cache miss, when the caller asked for one.

    Anthropic returns it as `message.diagnostics.cache_miss_reason` (beta header
    `cache-diagnosis-2026-04-07`), OpenAI Responses as `prompt_cache_diagnostics`. `reason` is the
    vendor's `type` (or OpenAI's `reason`) verbatim, such as "system_changed" or "input_changed";
    None means the vendor has not diagnosed yet ("pending") or found no divergence.
    """

    reason: str | None
    missed_tokens: int | None = None
    reusable_tokens: int | None = None
    raw: Mapping[str, object] = field(default_factory=dict)

    @property
    def pending(self) -> bool:
        return self.reason is None


@dataclass(frozen=True, slots=True, kw_only=True)
class CacheUsage:
    """
    Token usage of one request, split by how the cache treated each input token.

    `cache_read` and `cache_write` are None when the server did not report caching at all (an
    engine started without its cache-report flag, an old model): "unknown", which is not 0.
    `output` is None, likewise, when the response did not say how many tokens it generated (a
    stream read without its usage event, a proxy or telemetry span that dropped the count): its
    cost is unknown, and anything priced from the record says so rather than pricing it at 0.
    `problems` lists what did not add up in the vendor's own numbers; nothing is silently fixed.
    `passes` counts the sampling passes the usage sums: a server-side tool loop (Anthropic web
    search or code execution, Responses built-in tools) bills several passes in one usage, so its
    reads and writes are not the size of one cached prefix. `last_pass_cached` is what the final
    pass read and wrote, where the vendor itemises its passes (Anthropic `usage.iterations`).
    """

    uncached_input: int
    cache_read: int | None
    cache_write: int | None
    output: int | None
    cache_write_by_ttl: Mapping[str, int] = field(default_factory=dict)
    vendor: str = ""
    endpoint: str = ""
    model: str | None = None
    problems: tuple[str, ...] = ()
    diagnosis: CacheDiagnosis | None = None
    passes: int = 1
    last_pass_cached: int | None = None

    @property
    def prefix_measure(self) -> int | None:
        """
        The tokens of cached prefix this usage measures (what a following request may expect to
        read), or None where it measures none: its numbers contradict each other, or it sums
        several passes without saying what the last one held.
        """
        if self.problems or not self.caching_reported:
            return None
        if self.passes > 1:
            return self.last_pass_cached
        return (self.cache_read or 0) + (self.cache_write or 0)

    @property
    def caching_reported(self) -> bool:
        return self.cache_read is not None or self.cache_write is not None

    @property
    def output_reported(self) -> bool:
        return self.output is not None

    @property
    def total_input(self) -> int:
        return self.uncached_input + (self.cache_write or 0) + (self.cache_read or 0)

    @property
    def hit_rate(self) -> float | None:
        """Share of input tokens read from the cache; None when caching was not reported."""
        if not self.caching_reported or self.total_input == 0:
            return None
        return (self.cache_read or 0) / self.total_input
