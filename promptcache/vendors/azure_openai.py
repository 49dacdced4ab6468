"""
Azure OpenAI Chat Completions (`openai.AzureOpenAI` / `AsyncAzureOpenAI`, `api-version` in the
query): OpenAI's Chat Completions format, where `model` is a **deployment name** the user chose
(`/openai/deployments/{deployment}/chat/completions`; the SDK keeps it in the body too). A
deployment name says nothing about its model: it resolves to one only when the user says so
(`with_deployments({"my-gpt": "gpt-5.1"})`); otherwise it is kept as named, never guessed
(the response's own `model` field, which Azure fills with the model, is what usage records
carry).

Caching (Microsoft's prompt-caching page): automatic for GPT-4o and later, no opt-out, from
1,024 tokens with the first 1,024 identical, hits in 128-token steps; `prompt_cache_key` is
combined with the prefix hash for routing; in-memory retention of 5-10 minutes idle (at most
an hour), extended retention with `prompt_cache_retention`. Explicit breakpoints
(`prompt_cache_options`, GPT-5.6) are not documented for Azure, so none is planned here.
Caches are not shared between subscriptions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from ._openai import AUTOMATIC
from ._platform import named_models, on_platform
from ._vendor import Vendor
from .openai_chat import VENDOR as OPENAI_CHAT

__all__ = [
    "AZURE_RULES",
    "VENDOR",
    "azure_answer",
    "no_breakpoints",
    "openai_only_settings",
    "unmarked",
    "with_deployments",
]


def unmarked(request: Mapping[str, Any]) -> bool:
    return False  # an Azure body is OpenAI's: only naming the vendor says Azure


def azure_answer(response: Any) -> bool:
    """An Azure OpenAI answer: its content filter's `prompt_filter_results`, which OpenAI's API
    does not send (a body alone does not tell them apart; an answer does)."""
    return isinstance(response, Mapping) and "prompt_filter_results" in response


# OpenAI's own cache settings that Azure OpenAI does not document: sent there, their effect is
# unknown (refused or ignored), so a request carrying one is not one promptcache can judge.
OPENAI_ONLY_SETTINGS = ("prompt_cache_options",)


def openai_only_settings(
    request: Mapping[str, Any],
) -> tuple[list[tuple[str, str | None]], list[str]]:
    """`Vendor.check_markers`: no markers (Azure caches automatically), and each OpenAI-only
    cache setting the request carries, named with what is known and the fix."""
    return [], [
        f"{name} is OpenAI's setting (explicit mode, its TTL) and is not documented on Azure "
        "OpenAI, which caches automatically: Azure may refuse it or ignore it. Fix: leave it "
        "out, and set retention with prompt_cache_retention"
        for name in OPENAI_ONLY_SETTINGS
        if request.get(name) is not None
    ]


def no_breakpoints(model: str) -> bool:
    return False  # explicit breakpoints on Azure: not documented


# The platform's changes to OpenAI's rules (shared with Azure's Responses format): automatic
# only (OpenAI's explicit mode, `prompt_cache_options`, is not documented on Azure), retention
# chosen with `prompt_cache_retention` alone.
AZURE_RULES: Mapping[str, Any] = MappingProxyType(
    {
        "capabilities": replace(AUTOMATIC, vendor="azure-openai"),
        "automatic_capabilities": None,
        "explicit_switch": None,
        "default_ttl_seconds": 300.0,  # "cleared within 5-10 minutes of inactivity": the short end
        "ttl_settings": ("prompt_cache_retention",),
        "setting_ttls": {},
        "billed_write_ttl": None,  # no write fee documented on Azure
    }
)


def with_deployments(mapping: Mapping[str, str], vendor: Vendor | None = None) -> Vendor:
    """
    The Azure format (`VENDOR`, or the Responses one) with the user's deployment names resolved
    to their models, e.g. `{"my-gpt": "gpt-5.1"}`: `model_changed` then compares models; a
    name not in the mapping stays as named.
    """
    return named_models(vendor or VENDOR, mapping)


VENDOR = on_platform(
    OPENAI_CHAT,
    name="azure-openai",
    title="Azure OpenAI Chat Completions",
    aliases=("azure", "azure-chat", "azureopenai", "azure-openai-chat"),
    table_key="azure-openai",
    detects=unmarked,
    supports_breakpoints=no_breakpoints,
    answers=azure_answer,
    **AZURE_RULES,
)
VENDOR = replace(VENDOR, check_markers=openai_only_settings)
