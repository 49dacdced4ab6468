"""
Gemini on Vertex AI (`google.genai.Client(vertexai=True, project=..., location=...)`): the
Gemini `generateContent` format and implicit cache, sent to
`{location}-aiplatform.googleapis.com/v1beta1/projects/{p}/locations/{l}/publishers/google/
models/{model}:generateContent`. Explicit caches live under a project and a location
(`projects/{p}/locations/{l}/cachedContents/{id}`, created with the full model resource name),
so one cache name means nothing in another project or region. Vertex's context-cache page
states one minimum, 2,048 tokens, for implicit and explicit caching alike (the Gemini API's is
per model); prices from genai-prices' `google` provider (Vertex and the Gemini API share it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._elements import plain
from ._platform import on_platform
from .gemini import VENDOR as GEMINI

__all__ = ["VENDOR", "cache_scope", "model_of"]

_RESOURCE = re.compile(
    r"^projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)/"
    r"(?:publishers/google/models/(?P<model>[^/:]+)|cachedContents/[^/]+)"
)


def model_of(name: str) -> str:
    """The Gemini model of a Vertex model resource name (`projects/.../models/gemini-x`)."""
    found = _RESOURCE.match(name.strip())
    model = found.group("model") if found else None
    return model or name.strip().removeprefix("publishers/google/models/")


def cache_scope(name: str) -> tuple[str, str] | None:
    """The (project, location) a Vertex resource name lives under; None for a bare name."""
    found = _RESOURCE.match(name.strip())
    return None if found is None else (found.group("project"), found.group("location"))


def vertex_mark(request: Mapping[str, Any]) -> bool:
    """A Vertex body: a model or cached content named by its project and location."""
    config = plain(request.get("config")) or {}
    named = [request.get("model"), request.get("cachedContent"), request.get("cached_content")]
    if isinstance(config, Mapping):
        named += [config.get("cached_content"), config.get("cachedContent")]
    return any(isinstance(n, str) and cache_scope(n) is not None for n in named)


VENDOR = on_platform(
    GEMINI,
    name="vertex-gemini",
    title="Gemini on Vertex AI (generateContent)",
    aliases=("vertex", "vertex-ai", "gemini-vertex", "google-vertex"),
    table_key="vertex-gemini",
    detects=vertex_mark,
    model_of=model_of,
)
