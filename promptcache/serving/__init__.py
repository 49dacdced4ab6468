"""
Serving self-hosted engines: KV-cache capacity planning (`kv`), prefix-affinity keys and router
hand-off (`affinity`), routing over a small fleet (`fleet`), engine prefix-cache metrics
(`metrics`) and a local llama.cpp server for tests and benchmarks (`llamacpp`).
"""

from __future__ import annotations

from .affinity import ROUTERS, RouterAffinity, routing_key, tenant_salt
from .fleet import Fleet, FleetError, FleetResponse, HashRing
from .kv import KVShape, OffloadCost, offload_cost, shape_from_config
from .llamacpp import LlamaServer
from .metrics import CacheCounters, IntervalStats, interval, parse_metrics, scrape

__all__ = [
    "ROUTERS",
    "CacheCounters",
    "Fleet",
    "FleetError",
    "FleetResponse",
    "HashRing",
    "IntervalStats",
    "KVShape",
    "LlamaServer",
    "OffloadCost",
    "RouterAffinity",
    "interval",
    "offload_cost",
    "parse_metrics",
    "routing_key",
    "scrape",
    "shape_from_config",
    "tenant_salt",
]
