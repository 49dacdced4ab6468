"""
Vendor adapters: render a `Prompt` (and the planner's breakpoints) into the keyword arguments of
the official SDK call, and read a response or a stream back into one `CacheUsage`.

    from promptcache.adapters import get_adapter

    adapter = get_adapter("anthropic")
    kwargs = adapter.to_request(prompt, model="claude-sonnet-4-6", max_tokens=1024)
    message = anthropic.Anthropic().messages.create(**kwargs)
    usage = adapter.read_usage(message)

Names: "anthropic", "openai" (Chat Completions), "openai-responses", "gemini", and "engine"
(the OpenAI-compatible servers of vLLM, SGLang and llama.cpp). Vendor SDKs are imported only
when an adapter needs one; reading usage from plain JSON needs none.
"""

from __future__ import annotations

import importlib

from .._errors import InputError
from ..vendors import Capabilities, get_vendor
from ._base import Adapter, BaseAdapter, UsageAccumulator

__all__ = [
    "ADAPTER_NAMES",
    "Adapter",
    "BaseAdapter",
    "Capabilities",
    "UsageAccumulator",
    "get_adapter",
]

# name -> (module, class); modules load on first use so a missing SDK costs nothing until then.
_REGISTRY = {
    "anthropic": ("anthropic", "AnthropicAdapter"),
    "openai": ("openai", "OpenAIChatAdapter"),
    "openai-responses": ("openai", "OpenAIResponsesAdapter"),
    "gemini": ("gemini", "GeminiAdapter"),
    "engine": ("engines", "EngineAdapter"),
    "bedrock-converse": ("bedrock", "BedrockConverseAdapter"),
    "bedrock-invoke": ("bedrock", "BedrockInvokeAdapter"),
    # cloud platforms serving those formats
    "vertex-anthropic": ("platforms", "VertexAnthropicAdapter"),
    "vertex-gemini": ("gemini", "VertexGeminiAdapter"),
    "azure-openai": ("platforms", "AzureOpenAIChatAdapter"),
    "azure-openai-responses": ("platforms", "AzureOpenAIResponsesAdapter"),
    "foundry": ("platforms", "FoundryAdapter"),
    "bedrock-mantle": ("platforms", "BedrockMantleAdapter"),
}
ADAPTER_NAMES = tuple(_REGISTRY)


def get_adapter(name: str) -> Adapter:
    """
    The adapter for `name`, any name or alias of the vendor registry (`promptcache vendors`), in
    any case; an unknown name lists the valid ones.
    """
    try:
        module_name, class_name = _REGISTRY[get_vendor(name).name]
    except (KeyError, TypeError):
        raise InputError(
            f"unknown adapter {name!r}; choose one of: {', '.join(ADAPTER_NAMES)}"
        ) from None
    module = importlib.import_module(f"{__name__}.{module_name}")
    adapter: Adapter = getattr(module, class_name)()
    return adapter
