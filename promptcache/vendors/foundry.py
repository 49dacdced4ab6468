"""
Claude in Microsoft Foundry (`anthropic.AnthropicFoundry`,
`https://{resource}.services.ai.azure.com/anthropic/v1/messages`): Anthropic's first-party body
and cache rules (1-hour TTL and automatic caching included; Foundry's prompt caching is GA),
where `model` is a **deployment name**; it defaults to the model id (`claude-opus-5`), but a
custom name says nothing of its model, so it resolves only through the user's mapping
(`named_models(VENDOR, {"my-claude": "claude-opus-5"})`). Minimums are the Claude API's
(Anthropic lists Foundry beside it); caches are isolated per Foundry workspace. Foundry bills
in Claude Consumption Units; the per-token rates used here are Anthropic's list prices.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._platform import on_platform
from .anthropic import VENDOR as ANTHROPIC

__all__ = ["VENDOR"]


def _not_marked(request: Mapping[str, Any]) -> bool:
    return False  # a Foundry body is Anthropic's own: only naming the vendor says Foundry


VENDOR = on_platform(
    ANTHROPIC,
    name="foundry",
    title="Claude in Microsoft Foundry (Anthropic Messages)",
    aliases=("anthropic-foundry", "azure-foundry", "microsoft-foundry", "foundry-claude"),
    table_key="foundry",
    detects=_not_marked,
)
