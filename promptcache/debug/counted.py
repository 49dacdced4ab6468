"""
Cache usage from the token counts telemetry reports (OpenTelemetry GenAI spans, LiteLLM's usage).
"""

from __future__ import annotations

from typing import Any

from .._usage import CacheUsage


def token_count(value: Any) -> int | None:
    """`value` when it is a token count (an int, not a bool); None: the source did not say."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def counted_usage(
    *,
    total: int,
    read: int | None,
    write: int | None,
    output: int | None,
    vendor: str,
    model: str | None,
) -> CacheUsage:
    """
    Split an input total that counts cached tokens inside it (the GenAI conventions, OpenAI,
    LiteLLM) into read, written and uncached. A total smaller than its cached part is kept as
    uncached input and named in `problems`, never silently fixed. `output` None: the source did
    not report it (unknown, not 0).
    """
    cached = (read or 0) + (write or 0)
    uncached = total - cached
    problems: tuple[str, ...] = ()
    if uncached < 0:
        uncached = total
        problems = (f"input tokens {total} < cache read+write {cached}; taken as uncached",)
    return CacheUsage(
        uncached_input=uncached,
        cache_read=read,
        cache_write=write,
        output=output,
        vendor=vendor,
        model=model,
        problems=problems,
    )
