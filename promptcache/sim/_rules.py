"""
The vendor rules the emulators follow, read from where the project keeps them
(`promptcache.vendors`: each format's `CacheRules`; the adapters for request defaults; the dated
minimum-token table), never typed in again here.

The one rule the project does not carry elsewhere is at the bottom, with its source in
`shared/reference/vendors.md`.
"""

from __future__ import annotations

import inspect

from .._pricing import load_min_tokens
from ..vendors import TTL_SECONDS, CacheRules, Capabilities, get_vendor
from ..vendors._openai import supports_breakpoints
from ..vendors.anthropic import deferred as deferred_tool

__all__ = [
    "OPENAI_MAX_MATCHED_BREAKPOINTS",
    "anthropic_rules",
    "deferred_tool",
    "engine_block_tokens",
    "gemini_explicit_ttl",
    "minimum",
    "openai_explicit",
    "openai_rules",
    "openai_setting_ttls",
    "rules",
    "ttl_seconds",
]


def rules(vendor: str) -> CacheRules:
    """A request format's cache rules: "anthropic", "openai", "openai-responses", "gemini", ..."""
    return get_vendor(vendor).rules


def anthropic_rules() -> Capabilities:
    return rules("anthropic").capabilities


def openai_explicit(model: str) -> bool:
    """GPT-5.6 and later: breakpoints matched exactly, writes billed."""
    return supports_breakpoints(model)


def openai_rules(model: str, endpoint: str = "openai") -> Capabilities:
    """The marker capabilities of `model` (explicit for GPT-5.6+, automatic before)."""
    found = rules(endpoint)
    if openai_explicit(model) or found.automatic_capabilities is None:
        return found.capabilities
    return found.automatic_capabilities


def openai_setting_ttls(endpoint: str) -> tuple[str, ...]:
    """
    The values `prompt_cache_options.ttl` takes on an endpoint ("openai" or "openai-responses"),
    the default first, from the format's rules.
    """
    return rules(endpoint).setting_ttls["prompt_cache_options.ttl"]


def engine_block_tokens() -> int:
    """vLLM's KV block size in tokens (only full blocks are hashed and cached)."""
    step = rules("engine").capabilities.increment_tokens
    if step is None:  # pragma: no cover - the engine's record always carries it
        raise RuntimeError("the engine's cache rules lack increment_tokens")
    return step


def gemini_explicit_ttl() -> int:
    """Seconds an explicit CachedContent lives when the request names no TTL (the manager's)."""
    from ..adapters.gemini import GeminiCacheManager

    default = inspect.signature(GeminiCacheManager).parameters["ttl_seconds"].default
    return int(default)


def ttl_seconds(name: str) -> float:
    """Seconds of a TTL name ("5m", "1h", "30m", "12h", "24h")."""
    try:
        return TTL_SECONDS[name]
    except KeyError:
        raise ValueError(f"unknown TTL {name!r}; known: {', '.join(TTL_SECONDS)}") from None


def minimum(vendor: str, model: str) -> int:
    """The smallest prefix `vendor` caches for `model`, from the editable minimum-token table."""
    return load_min_tokens().minimum(rules(vendor).min_tokens_key, model)


# -- a rule the project does not carry elsewhere yet (source: shared/reference/vendors.md) -----

# OpenAI GPT-5.6: "considers up to the latest 80 breakpoints in the conversation" (§3.2, SDK-O).
OPENAI_MAX_MATCHED_BREAKPOINTS = 80
