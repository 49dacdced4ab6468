"""
The cloud platforms' adapters: each writes its format's request exactly as the first-party
adapter does (Anthropic's, OpenAI's, Gemini's), and reads usage into records that name the
platform, so its minimums and prices (`promptcache.vendors` platform records) apply.

    adapter = get_adapter("vertex-anthropic")
    kwargs = adapter.to_request(prompt, model="claude-sonnet-4-5@20250929")
    AnthropicVertex(region="global", project_id="my-project").messages.create(**kwargs)
"""

from __future__ import annotations

from typing import Any, ClassVar

from .._errors import InputError
from .._plan import Plan
from .._prompt import Prompt
from .._usage import CacheUsage
from ..vendors import Capabilities, get_vendor
from ._base import PlatformStream
from .anthropic import AnthropicAdapter
from .gemini import VertexGeminiAdapter
from .openai import OpenAIChatAdapter, OpenAIResponsesAdapter

__all__ = [
    "AzureOpenAIChatAdapter",
    "AzureOpenAIResponsesAdapter",
    "BedrockMantleAdapter",
    "FoundryAdapter",
    "VertexAnthropicAdapter",
    "VertexGeminiAdapter",
]


class _OnPlatform:
    """Mixed in before a first-party adapter: usage and streams are the platform's."""

    name: str
    spec: Any

    def read_usage(self, response: Any) -> CacheUsage:
        read: CacheUsage = self.spec.read_usage(response)
        return read

    def accumulator(self) -> Any:
        return PlatformStream(super().accumulator(), self.name)  # type: ignore[misc]


class _AnthropicOn(_OnPlatform, AnthropicAdapter):
    platform: ClassVar[str] = "anthropic"

    def to_request(
        self, prompt: Prompt, *, model: str, plan: Plan | None = None, **options: Any
    ) -> dict[str, Any]:
        options.setdefault("platform", self.platform)  # what the platform refuses, refused
        return super().to_request(prompt, model=model, plan=plan, **options)


class VertexAnthropicAdapter(_AnthropicOn):
    """Claude on Vertex AI: `AnthropicVertex(...).messages.create(**to_request(...))`."""

    name = "vertex-anthropic"
    vendor = "vertex-anthropic"
    platform = "vertex"
    sdk = ("anthropic", "anthropic", "vertex", "AnthropicVertex", "AsyncAnthropicVertex")
    capabilities: ClassVar[Capabilities] = get_vendor("vertex-anthropic").rules.capabilities


class FoundryAdapter(_AnthropicOn):
    """Claude in Microsoft Foundry: `AnthropicFoundry(...)`; `model` is the deployment name."""

    name = "foundry"
    vendor = "foundry"
    platform = "foundry"
    sdk = ("anthropic", "anthropic", "anthropic", "AnthropicFoundry", "AsyncAnthropicFoundry")
    capabilities: ClassVar[Capabilities] = get_vendor("foundry").rules.capabilities


class BedrockMantleAdapter(_AnthropicOn):
    """Claude in Amazon Bedrock's Messages API: `AnthropicBedrockMantle(...)`."""

    name = "bedrock-mantle"
    vendor = "bedrock-mantle"
    platform = "aws"  # the Messages API: automatic caching works (not the legacy integration)
    sdk = (
        "anthropic",
        "anthropic",
        "anthropic",
        "AnthropicBedrockMantle",
        "AsyncAnthropicBedrockMantle",
    )
    capabilities: ClassVar[Capabilities] = get_vendor("bedrock-mantle").rules.capabilities


class _AzureOptions:
    """Azure caches automatically; OpenAI's `prompt_cache_options` are not documented there."""

    def _cache_options(
        self, model: str, explicit: bool, mode: str | None, ttl: str | None, options: dict[str, Any]
    ) -> dict[str, Any]:
        asked = [k for k in ("prewarm", "comparison_response_id") if k in options]
        if mode or ttl or asked:
            raise InputError(
                "prompt_cache_options (cache_mode, cache_ttl, prewarm) are not documented on "
                f"Azure OpenAI, which caches {model!r}'s prompts automatically "
                "(prompt_cache_key still routes them); drop them, or send them yourself in "
                "extra_body if your deployment takes them"
            )
        return {}


class AzureOpenAIChatAdapter(_AzureOptions, _OnPlatform, OpenAIChatAdapter):
    """Azure OpenAI Chat Completions: `AzureOpenAI(...)`; `model` is the deployment name."""

    name = "azure-openai"
    vendor = "azure-openai"
    sdk = ("openai", "openai", "openai", "AzureOpenAI", "AsyncAzureOpenAI")
    capabilities: ClassVar[Capabilities] = get_vendor("azure-openai").rules.capabilities


class AzureOpenAIResponsesAdapter(_AzureOptions, _OnPlatform, OpenAIResponsesAdapter):
    """Azure OpenAI Responses: `AzureOpenAI(...).responses.create(**to_request(...))`."""

    name = "azure-openai-responses"
    vendor = "azure-openai"
    sdk = ("openai", "openai", "openai", "AzureOpenAI", "AsyncAzureOpenAI")
    capabilities: ClassVar[Capabilities] = get_vendor("azure-openai-responses").rules.capabilities
