"""
A tiny Anthropic cache emulator for the monitor tests: what the server would read and write.

A request writes an entry at each breakpoint (the hash of the unit bytes up to it); the next
request reads the longest live entry found by walking back up to 20 content blocks from each of
its breakpoints (tools, system blocks and message content blocks count; a message's role does
not).
Entries live `ttl` seconds from their last use. `evict()` plays a server-side drop.
"""

from __future__ import annotations

import bisect
import hashlib
from typing import Any

from promptcache import DEFAULT_COUNTER
from promptcache.debug.divergence import breakpoints
from promptcache.vendors import Unit, get_vendor


class AnthropicSim:
    def __init__(self, ttl: float = 300.0) -> None:
        self.ttl = ttl
        self.entries: dict[bytes, float] = {}

    def evict(self) -> None:
        self.entries.clear()

    def respond(self, request: dict[str, Any], at: float) -> dict[str, Any]:
        units = get_vendor("anthropic").units(request)
        points = breakpoints(request, get_vendor("anthropic"))
        digest, prefixes, tokens, running = hashlib.sha256(request["model"].encode()), [], [], 0
        for unit in units:
            digest.update(unit.data)
            running += DEFAULT_COUNTER.count(unit.data.decode())
            prefixes.append(digest.copy().digest())
            tokens.append(running)
        blocks = [i for i, unit in enumerate(units) if not _is_head(unit)]
        read = max((self._lookback(p, blocks, prefixes, tokens, at) for p in points), default=0)
        last = max(points, default=-1)
        write = tokens[last] - read if last >= 0 and tokens[last] >= 1024 else 0
        for p in points:
            if tokens[p] >= 1024:
                self.entries[prefixes[p]] = at
        uncached = (tokens[-1] if tokens else 0) - read - write
        return {
            "model": request["model"],
            "usage": {
                "input_tokens": uncached,
                "cache_read_input_tokens": read,
                "cache_creation_input_tokens": write,
                "output_tokens": 10,
            },
        }

    def _lookback(
        self, point: int, blocks: list[int], prefixes: list[bytes], tokens: list[int], at: float
    ) -> int:
        """Each breakpoint walks back up to 20 content blocks for an earlier entry (Anthropic's)."""
        start = bisect.bisect_right(blocks, point) - 1  # the point itself, or the block before
        for index in reversed(blocks[max(0, start - 20) : start + 1]):
            if self._live(prefixes[index], at):
                return tokens[index]
        return 0

    def _live(self, key: bytes, at: float) -> bool:
        seen = self.entries.get(key)
        return seen is not None and at - seen <= self.ttl


def _is_head(unit: Unit) -> bool:
    """A message's role and other fields: the unit in front of its content blocks."""
    return unit.layer == "messages" and ".content" not in unit.path
