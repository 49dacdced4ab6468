"""
A vendor's prompt-cache rules as data: what the planner, diff, monitor, `inspect` and the
emulators read, so that each vendor fact is written once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["TTL_SECONDS", "CacheRules", "Capabilities", "Setting"]

Marking = Literal["explicit", "automatic"]
TtlOrder = Literal["non-increasing", "none"]
Drops = Literal["everything", "messages"]

# Every TTL name a vendor uses, in seconds.
TTL_SECONDS: Mapping[str, float] = {
    "5m": 300.0,
    "30m": 1800.0,
    "1h": 3600.0,
    "12h": 43200.0,
    "24h": 86400.0,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Capabilities:
    """
    What a vendor's cache markers can do, as data. The planner reads only this.

    `ttls` lists the TTL choices longest first. With `ttl_order="non-increasing"` a breakpoint may
    not carry a longer TTL than one in front of it (Anthropic: "a ttl='1h' cache_control block
    must not come after a ttl='5m' cache_control block"). `lookback_blocks` is how many content
    blocks the vendor walks back from a breakpoint to find an earlier cache entry (None: no
    limit). `unmarkable` names content-part types that may not carry a marker, and
    `unmarkable_layers` the prompt layers that never can (OpenAI: tools and instructions).
    `minimum_per_breakpoint`: the minimum cacheable prefix counts from the breakpoint before
    each one (AWS Bedrock: "your first cache checkpoint can be defined after 1,024 tokens and
    your second ... after 2,048"), not on the whole prefix (Anthropic).
    """

    vendor: str
    marking: Marking
    max_breakpoints: int
    lookback_blocks: int | None = None
    ttls: tuple[str, ...] = ()
    default_ttl: str | None = None
    ttl_order: TtlOrder = "none"
    unmarkable: frozenset[str] = frozenset()
    unmarkable_layers: frozenset[str] = frozenset()
    automatic_mode: bool = False
    increment_tokens: int | None = None
    minimum_per_breakpoint: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting:
    """
    A request parameter outside the render order whose change still drops cache: `path` is
    dotted (`output_config.effort`), `drops` says from where the cache is lost.
    """

    path: str
    cause: str
    drops: Drops = "everything"


@dataclass(frozen=True, slots=True, kw_only=True)
class CacheRules:
    """
    Everything promptcache assumes about one request format's prompt cache.

    - `marking`: "explicit" caches only at markers (a request without any caches nothing);
      "automatic" caches every prefix. `explicit_switch` names a request setting (dotted path,
      value) that turns an automatic vendor explicit (OpenAI `prompt_cache_options.mode`).
    - `top_level_marker`: a request field that marks the request's last block (Anthropic's
      automatic `cache_control`).
    - `capabilities`: the planner's view (slots, TTLs and their order, lookback, what cannot be
      marked); `automatic_capabilities` replaces it for models without explicit breakpoints.
    - `default_ttl_seconds`: the TTL when the request names none (None: evicted by LRU, not time).
    - `ttl_settings`: request fields (dotted) that name a TTL for the whole request.
    - `setting_ttls`: the values each of those settings accepts, the default first, where the
      vendor lists them (OpenAI: `prompt_cache_options.ttl` is "30m" only on Chat Completions).
    - `granularity_tokens`: how coarsely cache reads are matched; a read this far below what
      was expected is still a hit, and a change this close to the end of an automatically
      cached request loses nothing measurable.
    - `min_tokens_key`: the vendor's key in the shipped minimum-token and price tables.
    - `billed_write_ttl`: the TTL a cache write is billed at when the usage does not split it.
    - `render_order`: the order the vendor lays out the request's layers before hashing.
    - `invalidating`: settings outside the render order whose change drops cache (the model
      always does; it is not listed).
    - `miss_reasons`: the vendor's own miss diagnostics (Anthropic `cache_miss_reason.type`,
      OpenAI `prompt_cache_diagnostics.reason`) in our causes.
    """

    marking: Marking
    capabilities: Capabilities
    automatic_capabilities: Capabilities | None = None
    explicit_switch: tuple[str, str] | None = None
    top_level_marker: str | None = None
    default_ttl_seconds: float | None
    ttl_settings: tuple[str, ...] = ()
    setting_ttls: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    granularity_tokens: int
    min_tokens_key: str
    billed_write_ttl: str | None = None
    render_order: tuple[str, ...] = ("tools", "system", "messages")
    invalidating: tuple[Setting, ...] = ()
    miss_reasons: Mapping[str, str] = field(default_factory=dict)
    unrendered_tool_flag: str | None = None
    # What of a tool carrying that flag is still rendered into the prefix: nothing for Anthropic;
    # OpenAI shows a deferred function's (namespace's, MCP server's) name and description.
    deferred_tool_shown: tuple[str, ...] = ()
    # Tool types that group tools, and the key of their members: the flag applies to a group's
    # members, and a flagged member leaves the prefix whole (the group shows its own name and
    # description). OpenAI's namespaces.
    tool_groups: Mapping[str, str] = field(default_factory=dict)
    string_is_text_block: bool = False

    @property
    def caches_only_at_markers(self) -> bool:
        return self.marking == "explicit"

    def to_json(self) -> dict[str, Any]:
        """The rules as JSON (`promptcache vendors --format json`): every field, by name."""
        caps = self.capabilities
        return {
            "marking": self.marking,
            "explicit_switch": _pair(self.explicit_switch),
            "top_level_marker": self.top_level_marker,
            "max_breakpoints": caps.max_breakpoints,
            "lookback_blocks": caps.lookback_blocks,
            "ttls": list(caps.ttls),
            "default_ttl": caps.default_ttl,
            "ttl_order": caps.ttl_order,
            "minimum_per_breakpoint": caps.minimum_per_breakpoint,
            "default_ttl_seconds": self.default_ttl_seconds,
            "ttl_settings": list(self.ttl_settings),
            "setting_ttls": {k: list(v) for k, v in self.setting_ttls.items()},
            "granularity_tokens": self.granularity_tokens,
            "min_tokens_key": self.min_tokens_key,
            "billed_write_ttl": self.billed_write_ttl,
            "render_order": list(self.render_order),
            "unmarkable": sorted(caps.unmarkable),
            "unmarkable_layers": sorted(caps.unmarkable_layers),
            "breakpoints_need_model": self.automatic_capabilities is not None,
            "invalidating": [
                {"path": "model", "cause": "model_changed", "drops": "everything"},
                *({"path": s.path, "cause": s.cause, "drops": s.drops} for s in self.invalidating),
            ],
            "miss_reasons": dict(self.miss_reasons),
            "unrendered_tool_flag": self.unrendered_tool_flag,
            "deferred_tool_shown": list(self.deferred_tool_shown),
            "tool_groups": dict(self.tool_groups),
            "string_is_text_block": self.string_is_text_block,
        }


def _pair(pair: tuple[str, str] | None) -> dict[str, str] | None:
    return None if pair is None else {"setting": pair[0], "value": pair[1]}
