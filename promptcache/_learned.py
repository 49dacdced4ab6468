"""
What repeats, learned from traffic: the block-hash chains of recent requests per cache key.

A block's chained hash covers every block before it, so two requests share their prefix through
block i exactly when their hashes at i are equal. Where an earlier request under the same key
shared a prefix with this one and then went another way (another tenant after a shared system
prompt, another document after shared instructions), that fork is a prefix both will repeat: the
planner puts a breakpoint there. Only hashes are kept, never prompt text.

    seen = SharedPrefixes()
    p = plan(prompt, vendor="anthropic", model=MODEL, seen=seen)   # records the prompt, too
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque

from ._errors import InputError
from ._prompt import Prompt, Rendered

__all__ = ["SharedPrefixes"]


class SharedPrefixes:
    """
    The block-hash chains of the last `per_key` requests under each of up to `max_keys` cache
    keys (least recently used keys are forgotten first). Safe to share between threads.
    """

    def __init__(self, *, per_key: int = 16, max_keys: int = 1000) -> None:
        if per_key < 1 or max_keys < 1:
            raise InputError(f"per_key and max_keys must be >= 1, got {per_key} and {max_keys}")
        self.per_key = per_key
        self.max_keys = max_keys
        self._chains: OrderedDict[str, deque[tuple[bytes, ...]]] = OrderedDict()
        self._lock = threading.Lock()

    def record(self, key: str, prompt: Prompt | Rendered) -> None:
        """Remember the chain of a request sent under `key`."""
        chain = _chain(prompt)
        with self._lock:
            held = self._chains.get(key)
            if held is None:
                held = self._chains[key] = deque(maxlen=self.per_key)
                if len(self._chains) > self.max_keys:
                    self._chains.popitem(last=False)
            self._chains.move_to_end(key)
            if chain not in held:
                held.append(chain)

    def fork(self, key: str, prompt: Prompt | Rendered) -> int | None:
        """
        The furthest block of `prompt` where an earlier request under `key` shared the prefix and
        then differed (None: no such request). An earlier request that `prompt` merely extends
        (the previous turn of a chat) is no fork: it ends where `prompt` goes on.
        """
        chain = _chain(prompt)
        with self._lock:
            earlier = list(self._chains.get(key, ()))
        best: int | None = None
        for other in earlier:
            shared = _shared(chain, other)
            if 0 < shared < min(len(chain), len(other)) and (best is None or shared - 1 > best):
                best = shared - 1
        return best

    def __len__(self) -> int:
        with self._lock:
            return sum(len(chains) for chains in self._chains.values())


def _chain(prompt: Prompt | Rendered) -> tuple[bytes, ...]:
    rendered = prompt.render() if isinstance(prompt, Prompt) else prompt
    return tuple(block.hash for block in rendered.blocks)


def _shared(a: tuple[bytes, ...], b: tuple[bytes, ...]) -> int:
    """How many leading blocks two chains share (equal at i means equal before i: bisect)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[middle - 1] == b[middle - 1]:
            low = middle
        else:
            high = middle - 1
    return low
