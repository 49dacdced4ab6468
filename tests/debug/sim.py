"""
The monitor tests' cache: promptcache's Anthropic cache EMULATION (`promptcache.sim`), which
matches prefixes with its own code, not the diff's or the monitor's, driven on the tests' clock.
`evict()` plays a server-side drop.
"""

from __future__ import annotations

from typing import Any

from promptcache.sim import AnthropicEmulator, ManualClock


class AnthropicSim:
    def __init__(self) -> None:
        self.clock = ManualClock(0.0)
        self.emulator = AnthropicEmulator(clock=self.clock)

    def evict(self) -> None:
        self.emulator.store.entries.clear()

    def respond(self, request: dict[str, Any], at: float) -> dict[str, Any]:
        self.clock.now = at
        status, body = self.emulator.handle("POST", "/v1/messages", {"max_tokens": 16, **request})
        assert status == 200, body
        return body
