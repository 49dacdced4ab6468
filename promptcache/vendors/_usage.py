"""Usage readers, shared by the vendor modules: each format's adapter reads its responses."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .._usage import CacheUsage

__all__ = ["adapter_usage"]


def adapter_usage(name: str) -> Callable[[Any], CacheUsage]:
    """The usage reader of adapter `name`, loaded on first use (adapters import their SDK types)."""

    def read_usage(response: Any) -> CacheUsage:
        usage: CacheUsage = _adapter(name).read_usage(response)
        return usage

    return read_usage


@functools.cache
def _adapter(name: str) -> Any:
    from ..adapters import get_adapter

    return get_adapter(name)
