"""
The vendor rules the emulators follow, read from where the project keeps them (the adapters'
capability records and the dated tables in `promptcache/data/`), never typed in again here.

The few rules the project does not carry yet are gathered at the bottom, each with its source in
`shared/reference/vendors.md`, so that they move to the vendor modules in one step.
"""

from __future__ import annotations

from functools import lru_cache

from .._pricing import load_min_tokens
from ..adapters._base import Capabilities

__all__ = [
    "OPENAI_MAX_MATCHED_BREAKPOINTS",
    "OPENAI_RETENTION",
    "anthropic_rules",
    "engine_block_tokens",
    "gemini_default_ttl",
    "minimum",
    "openai_explicit",
    "openai_request_ttl",
    "openai_rules",
]


@lru_cache(maxsize=1)
def anthropic_rules() -> Capabilities:
    from ..adapters.anthropic import AnthropicAdapter

    return AnthropicAdapter.capabilities


def openai_rules(model: str) -> Capabilities:
    from ..adapters.openai import OpenAIChatAdapter

    return OpenAIChatAdapter().capabilities_for(model)


def openai_explicit(model: str) -> bool:
    """GPT-5.6 and later: breakpoints matched exactly, writes billed."""
    from ..adapters.openai import supports_breakpoints

    return supports_breakpoints(model)


def openai_request_ttl(endpoint: str) -> str:
    """The default `prompt_cache_options.ttl` of an endpoint ("chat" or "responses")."""
    from ..adapters.openai import OpenAIChatAdapter, OpenAIResponsesAdapter

    adapter = OpenAIResponsesAdapter if endpoint == "responses" else OpenAIChatAdapter
    return adapter._request_ttls[0]


def engine_block_tokens() -> int:
    """vLLM's KV block size in tokens (only full blocks are hashed and cached)."""
    from ..adapters.engines import EngineAdapter

    step = EngineAdapter.capabilities.increment_tokens
    if step is None:  # pragma: no cover - the engine record always carries it
        raise RuntimeError("the engine adapter's capabilities lack increment_tokens")
    return step


def gemini_default_ttl() -> int:
    """Seconds an explicit CachedContent lives when the request names no TTL."""
    import inspect

    from ..adapters.gemini import GeminiCacheManager

    default = inspect.signature(GeminiCacheManager).parameters["ttl_seconds"].default
    return int(default)


def minimum(vendor: str, model: str) -> int:
    """The smallest prefix `vendor` caches for `model`, from the editable minimum-token table."""
    return load_min_tokens().minimum(vendor, model)


# -- rules the project does not carry elsewhere yet (sources: shared/reference/vendors.md) -----

# OpenAI GPT-5.6: "considers up to the latest 80 breakpoints in the conversation" (§3.2, SDK-O).
OPENAI_MAX_MATCHED_BREAKPOINTS = 80
# OpenAI before GPT-5.6, `prompt_cache_retention` (§3.1): in memory "cleared after 5-10 minutes
# of inactivity" (the emulator keeps the 5 minutes it can count on), or "24h".
OPENAI_RETENTION = {"in_memory": "5m", "24h": "24h"}
