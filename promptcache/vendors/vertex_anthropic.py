"""
Claude on Vertex AI (`anthropic.AnthropicVertex`, `rawPredict` / `streamRawPredict`): Anthropic's
Messages format and cache rules (4 breakpoints, 20-block lookback, 5m and 1h TTLs, a 1h marker
never after a 5m one, the top-level automatic marker), with the model in the URL
(`.../publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`) instead of the body,
and `anthropic_version` in the body: `"vertex-2023-10-16"` in Google's and Anthropic's docs,
`"2026-10-21"` (the SDK's `ANTHROPIC_API_VERSION`) as anthropic 2.x sends it. Minimums are the
Claude API's (Anthropic: "the Claude API values apply on Google Cloud"); prices from
genai-prices' `google` provider, which lists Claude on Vertex. Caches are per Google Cloud
project.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._platform import on_platform
from .anthropic import VENDOR as ANTHROPIC

__all__ = ["VENDOR", "model_of", "vertex_mark"]

# Documented body version; anthropic >= 2.0 sends its API version instead (checked on 2.15.0).
DOCUMENTED_VERSION = "vertex-2023-10-16"

_PUBLISHER_PATH = re.compile(r"(?:^|/)publishers/anthropic/models/([^/:]+)")
_DATED = re.compile(r"^(claude-[a-z0-9-]+?)@(\d{8})$")


def model_of(name: str) -> str:
    """
    The Claude model a Vertex name is for: the model segment of a publisher path or URL
    (`projects/p/locations/l/publishers/anthropic/models/claude-x@20250929:rawPredict`), its
    `@date` written as the Claude API's `-date` (`claude-x-20250929`).
    """
    found = _PUBLISHER_PATH.search(name)
    model = found.group(1) if found else name.strip()
    dated = _DATED.match(model)
    return f"{dated.group(1)}-{dated.group(2)}" if dated else model


def vertex_mark(request: Mapping[str, Any]) -> bool:
    """A Vertex body: the Vertex `anthropic_version`, or a model named the Vertex way."""
    version = request.get("anthropic_version")
    if isinstance(version, str) and version.startswith("vertex-"):
        return True
    model = request.get("model")
    return isinstance(model, str) and ("@" in model or "publishers/anthropic/" in model)


VENDOR = on_platform(
    ANTHROPIC,
    name="vertex-anthropic",
    title="Claude on Vertex AI (Anthropic Messages)",
    aliases=("anthropic-vertex", "vertex-claude", "claude-vertex", "anthropicvertex"),
    table_key="vertex-anthropic",
    detects=vertex_mark,
    model_of=model_of,
)
