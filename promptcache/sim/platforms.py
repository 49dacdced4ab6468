"""
EMULATIONS of the cloud platforms that serve another vendor's format: the same emulated cache
as that vendor's emulator (its rules: slots, TTLs, lookback), with the platform's own minimums,
URL paths and SDK client.

    emulator = VertexAnthropicEmulator()
    client = emulator.client()      # a real anthropic.AnthropicVertex, answered in process
    client.messages.create(model="claude-sonnet-4-5@20250929", ...)   # POST ...:rawPredict
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from ._base import Rejected, need
from .anthropic import AnthropicEmulator
from .gemini import GeminiEmulator
from .openai import OpenAIEmulator

__all__ = [
    "AzureOpenAIEmulator",
    "BedrockMantleEmulator",
    "FoundryEmulator",
    "VertexAnthropicEmulator",
    "VertexGeminiEmulator",
]

_NO_KEY = "emulated-no-key"
_RAW_PREDICT = re.compile(r"/publishers/anthropic/models/([^/:]+):(rawPredict|streamRawPredict)$")
_VERTEX_GENERATE = re.compile(
    r"^/v1[a-z0-9]*/projects/[^/]+/locations/[^/]+/publishers/google(/models/[^/:]+:\w+)$"
)


class VertexAnthropicEmulator(AnthropicEmulator):
    """EMULATION of Claude on Vertex AI: `POST .../publishers/anthropic/models/{m}:rawPredict`,
    the model in the URL, `anthropic_version` in the body."""

    vendor: ClassVar[str] = "vertex-anthropic"

    def route(self, method: str, path: str, body: Any) -> dict[str, Any]:
        found = _RAW_PREDICT.search(path)
        if method != "POST" or found is None:
            raise Rejected(404, f"the Vertex AI Claude emulator serves :rawPredict, not {path}")
        request = dict(need(body, dict, "request body"))
        if "model" in request:  # the SDK moves it into the URL; Vertex refuses it in the body
            raise Rejected(400, "model: the model goes in the URL on Vertex AI, not the body")
        need(request.get("anthropic_version"), str, "anthropic_version")
        return self.messages({**request, "model": found.group(1)})

    def client(self, *, is_async: bool = False, **kwargs: Any) -> Any:
        sdk = self._sdk()
        cls = sdk.AsyncAnthropicVertex if is_async else sdk.AnthropicVertex
        kwargs.setdefault("region", "us-east5")
        kwargs.setdefault("project_id", "emulated-project")
        kwargs.setdefault("access_token", _NO_KEY)  # no google-auth lookup
        kwargs.setdefault("max_retries", 0)
        return cls(http_client=self.http_client(is_async=is_async), **kwargs)


class FoundryEmulator(AnthropicEmulator):
    """EMULATION of Claude in Microsoft Foundry (`/anthropic/v1/messages`, deployment names)."""

    vendor: ClassVar[str] = "foundry"
    sdk_client = ("anthropic", "anthropic", "anthropic", "AnthropicFoundry")

    def client(self, *, is_async: bool = False, **kwargs: Any) -> Any:
        kwargs.setdefault("base_url", "https://emulated.services.ai.azure.com/anthropic/")
        return super().client(is_async=is_async, **kwargs)


class BedrockMantleEmulator(AnthropicEmulator):
    """EMULATION of Claude in Amazon Bedrock's Messages API (`bedrock-mantle`)."""

    vendor: ClassVar[str] = "bedrock-mantle"
    sdk_client = ("anthropic", "anthropic", "anthropic", "AnthropicBedrockMantle")

    def client(self, *, is_async: bool = False, **kwargs: Any) -> Any:
        kwargs.setdefault("aws_region", "us-east-1")
        return super().client(is_async=is_async, **kwargs)


class AzureOpenAIEmulator(OpenAIEmulator):
    """EMULATION of Azure OpenAI: `/openai/deployments/{d}/chat/completions` and
    `/openai/responses`, `api-version` in the query."""

    vendor: ClassVar[str] = "azure-openai"
    sdk_client = ("openai", "openai", "openai", "AzureOpenAI")

    def client(self, *, is_async: bool = False, **kwargs: Any) -> Any:
        kwargs.setdefault("azure_endpoint", "https://emulated.openai.azure.com")
        kwargs.setdefault("api_version", "2025-04-01-preview")
        return super().client(is_async=is_async, **kwargs)


class VertexGeminiEmulator(GeminiEmulator):
    """EMULATION of Gemini on Vertex AI: `.../projects/{p}/locations/{l}/publishers/google/
    models/{m}:generateContent`."""

    vendor: ClassVar[str] = "vertex-gemini"

    def route(self, method: str, path: str, body: Any) -> dict[str, Any]:
        found = _VERTEX_GENERATE.match(path)
        if found is None:
            raise Rejected(404, f"the Vertex AI Gemini emulator does not serve {method} {path}")
        return super().route(method, f"/v1beta1{found.group(1)}", body)

    def client(self, *, is_async: bool = False, **kwargs: Any) -> Any:
        from google.oauth2.credentials import Credentials

        sdk = self._sdk()
        options = {
            "base_url": "https://us-central1-aiplatform.googleapis.com/",
            "httpx_client": self.http_client(),
            "httpx_async_client": self.http_client(is_async=True),
        }
        kwargs.setdefault("project", "emulated-project")
        kwargs.setdefault("location", "us-central1")
        no_lookup = Credentials(token=_NO_KEY)  # type: ignore[no-untyped-call]
        kwargs.setdefault("credentials", no_lookup)  # given: no metadata server, no ADC
        client = sdk.Client(vertexai=True, http_options=options, **kwargs)
        return client.aio if is_async else client
