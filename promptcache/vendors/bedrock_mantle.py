"""
Claude in Amazon Bedrock through the Messages API (`anthropic.AnthropicBedrockMantle`,
`https://bedrock-mantle.{region}.api.aws/anthropic/v1/messages`): Anthropic's first-party body
with `model` in it, named the Bedrock way (`anthropic.claude-opus-5`, `us.anthropic.claude-...`),
and Anthropic's cache rules, the top-level automatic marker included (Anthropic: automatic
caching works everywhere but the legacy Bedrock integration). Bedrock's minimums: AWS's where
they differ (Claude Sonnet 4.6 caches from 2,048 tokens in AWS's own samples), Anthropic's
elsewhere; caches are per AWS account (Anthropic: per organization).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._platform import on_platform
from .anthropic import VENDOR as ANTHROPIC

__all__ = ["VENDOR", "model_of"]

# `[arn:aws:bedrock:region:account:inference-profile/][geo.]anthropic.claude-x[-date][-v1[:0]]`
_BEDROCK_ID = re.compile(
    r"^(?:arn:aws[\w-]*:bedrock:[^:]*:\d*:(?:inference-profile|foundation-model)/)?"
    r"(?:(?:global|us|eu|jp|apac|au|us-gov|ca|sa)\.)?anthropic\.(?P<model>claude[\w.-]*?)"
    r"(?:-v\d+(?::\d+)?)?$"
)


def model_of(name: str) -> str:
    """
    The Claude model a Bedrock id names (`us.anthropic.claude-sonnet-4-5-20250929-v1:0` ->
    `claude-sonnet-4-5-20250929`); an application inference profile ARN hides its model, so it
    stays as named.
    """
    found = _BEDROCK_ID.match(name.strip())
    return found.group("model") if found else name.strip()


def same_model(a: str, b: str) -> bool | None:
    """Whether two Bedrock ids name one model; None when either hides its model (an ARN)."""
    ma, mb = model_of(a), model_of(b)
    if _BEDROCK_ID.match(a.strip()) is None or _BEDROCK_ID.match(b.strip()) is None:
        return None if a != b else True
    return ma == mb


def mantle_mark(request: Mapping[str, Any]) -> bool:
    """
    A Messages body whose model is named the Bedrock way. An InvokeModel body carries
    `anthropic_version` (and its model only in the URL, though a log may add it back); the
    Messages API takes the version as a header.
    """
    model = request.get("model")
    bedrock_id = isinstance(model, str) and _BEDROCK_ID.match(model.strip()) is not None
    return bedrock_id and "anthropic_version" not in request


VENDOR = on_platform(
    ANTHROPIC,
    name="bedrock-mantle",
    title="Claude in Amazon Bedrock (Messages API)",
    aliases=("anthropic-bedrock-mantle", "mantle", "bedrock-messages"),
    table_key="bedrock-mantle",
    detects=mantle_mark,
    same_model=same_model,
)
