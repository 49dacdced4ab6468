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

__all__ = [
    "LOCATION_PREMIUM",
    "VENDOR",
    "location_of",
    "location_premium",
    "location_tier",
    "model_of",
    "vertex_answer",
    "vertex_mark",
]

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


# Anthropic's Vertex page (2026-08-21): from Claude Sonnet 4.5 on, the regional and the
# multi-region (`us`, `eu`) endpoints cost 10% more than the global one; earlier models have one
# price everywhere. The +10% figures are derived, not read from a Google price page.
LOCATION_PREMIUM = 0.10
MULTI_REGIONS = frozenset({"us", "eu"})
PREMIUM_MODELS = (
    "claude-sonnet-4-5",
    "claude-sonnet-4-6",
    "claude-sonnet-5",
    "claude-haiku-4-5",
    "claude-opus-4-5",
    "claude-opus-4-6",
    "claude-opus-4-7",
    "claude-opus-4-8",
    "claude-opus-5",
    "claude-fable-5",
    "claude-mythos",
)
_REGION = re.compile(r"^[a-z]+(?:-[a-z]+)+\d+$")  # us-east5, europe-west1, asia-southeast1
_LOCATION_PATH = re.compile(r"/?locations/([a-z0-9-]+)(?:/|$)")
_HOST = re.compile(r"^https?://(?:([a-z0-9-]+)-aiplatform|aiplatform(?:\.([a-z]+)\.rep)?)\.")


def location_tier(location: str | None) -> str | None:
    """ "global", "multi-region" (`us`, `eu`), "regional" (`us-east5`), or None: not known."""
    if location == "global":
        return "global"
    if location in MULTI_REGIONS:
        return "multi-region"
    if isinstance(location, str) and _REGION.match(location):
        return "regional"
    return None


def location_of(source: Any) -> str | None:
    """
    The Vertex location a call goes to: from an endpoint URL or resource name (the
    `/locations/{l}/` segment, else the host), an `AnthropicVertex` client (`region`), or a
    `genai.Client(vertexai=True)` (its `location`); None when it does not say.
    """
    if isinstance(source, str):
        found = _LOCATION_PATH.search(source)
        if found:
            return found.group(1)
        host = _HOST.match(source)
        if host:
            return host.group(1) or host.group(2) or "global"
        return None
    region = getattr(source, "region", None)
    if isinstance(region, str) and region:
        return region
    api = getattr(source, "_api_client", None)  # google-genai's Client keeps it there
    location = getattr(api, "location", None) if getattr(api, "vertexai", False) else None
    return location if isinstance(location, str) and location else None


def location_premium(model: str) -> bool:
    """Whether `model` costs more off the global endpoint (Sonnet 4.5 and later)."""
    name = model_of(model).lower()
    return any(name == key or name.startswith(f"{key}-") for key in PREMIUM_MODELS)


# Claude's message ids name the platform that answered: `msg_vrtx_` Vertex AI, `msg_bdrk_`
# Bedrock, a plain `msg_` Anthropic's API (public reports, e.g. Claude-on-Vertex gateway logs).
MESSAGE_ID_PREFIX = "msg_vrtx_"


def vertex_answer(response: Any) -> bool:
    """A Claude response from Vertex AI: its message id says so."""
    found = response.get("id") if isinstance(response, Mapping) else None
    return isinstance(found, str) and found.startswith(MESSAGE_ID_PREFIX)


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
    answers=vertex_answer,
)
