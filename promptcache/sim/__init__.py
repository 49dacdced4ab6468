"""
Offline EMULATIONS of each vendor's prompt cache: Anthropic, OpenAI, Gemini and vLLM.

They answer the JSON the vendor SDKs send with vendor-shaped responses whose usage comes from
what earlier requests left in an in-process cache, so examples and tests run the real SDK code
path with no key and no network:

    from promptcache.sim import AnthropicEmulator, ManualClock

    clock = ManualClock()
    emulator = AnthropicEmulator(clock=clock)
    client = emulator.client()                  # a real anthropic.Anthropic, answered in process
    message = client.messages.create(**request)
    clock.advance(301)                          # past the 5-minute TTL

The emulators read each vendor's rules (TTLs, minimums, lookback, granularity, slots) from
`promptcache.vendors` and the dated minimum-token table, but match prefixes with their own deliberately simple code: they are the
oracle that the planner, `diff` and the monitor are tested against. Every answer says it is an
emulation (its text and an `x-promptcache-emulation` header); the numbers are not a vendor's.
Tokens are counted with the emulators' own ruler: one token per 4 bytes of the request's JSON.
"""

from __future__ import annotations

from ._base import Emulator, Reply
from ._calls import send
from ._core import EMULATION, ManualClock, Outcome
from .anthropic import AnthropicEmulator
from .bedrock import BedrockEmulator
from .gemini import GeminiEmulator
from .openai import OpenAIEmulator
from .platforms import (
    AzureOpenAIEmulator,
    BedrockMantleEmulator,
    FoundryEmulator,
    VertexAnthropicEmulator,
    VertexGeminiEmulator,
)
from .vllm import VLLMEmulator

__all__ = [
    "EMULATION",
    "AnthropicEmulator",
    "AzureOpenAIEmulator",
    "BedrockEmulator",
    "BedrockMantleEmulator",
    "Emulator",
    "FoundryEmulator",
    "GeminiEmulator",
    "ManualClock",
    "OpenAIEmulator",
    "Outcome",
    "Reply",
    "VLLMEmulator",
    "VertexAnthropicEmulator",
    "VertexGeminiEmulator",
    "emulator_for",
    "send",
]


def emulator_for(vendor: str, **kwargs: object) -> Emulator:
    """
    The emulator of a request format, by any name or alias `promptcache.vendors` knows
    ("anthropic", "openai", "openai-responses", "gemini", "engine", "vllm", ...).
    """
    from ..vendors import get_vendor

    table: dict[str, type[Emulator]] = {
        "anthropic": AnthropicEmulator,
        "openai": OpenAIEmulator,
        "openai-responses": OpenAIEmulator,
        "gemini": GeminiEmulator,
        "engine": VLLMEmulator,
        "bedrock-converse": BedrockEmulator,
        "bedrock-invoke": BedrockEmulator,  # InvokeModel: the same emulator, Anthropic's body
        # cloud platforms (`platforms.py`)
        "vertex-anthropic": VertexAnthropicEmulator,
        "vertex-gemini": VertexGeminiEmulator,
        "azure-openai": AzureOpenAIEmulator,
        "azure-openai-responses": AzureOpenAIEmulator,
        "foundry": FoundryEmulator,
        "bedrock-mantle": BedrockMantleEmulator,
    }
    return table[get_vendor(vendor).name](**kwargs)  # type: ignore[arg-type]
