"""
Vendor-neutral cache debugging: where two requests first diverge (`divergence`), why
(`causes`), which settings drop cache (`settings`), the `diff` built from them, and the runtime
monitor (`monitor`: its memory, its `judging`, its `events` and `exporters`). Every vendor fact
is read from `promptcache.vendors`.
"""

from __future__ import annotations

from .diff import DiffResult, diff
from .events import Invalidation
from .monitor import Monitor
from .recorder import Recorder
from .redis_store import RedisStore
from .store import StateStore

__all__ = ["DiffResult", "Invalidation", "Monitor", "Recorder", "RedisStore", "StateStore", "diff"]
