"""The cloud platforms' emulators: the real SDK clients (AnthropicVertex, AnthropicFoundry,
AnthropicBedrockMantle, AzureOpenAI, google-genai with vertexai=True) answered in process, with
the platform's paths and minimums."""

from __future__ import annotations

from typing import Any

import pytest

from promptcache.sim import AnthropicEmulator, emulator_for
from promptcache.sim.platforms import VertexAnthropicEmulator
from promptcache.vendors import VENDOR_NAMES, get_vendor


def _system(words: int) -> list[dict[str, Any]]:
    text = "You are support. " + "Answer briefly. " * words
    return [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]


def test_every_platform_has_an_emulator() -> None:
    platforms = [name for name in VENDOR_NAMES if get_vendor(name).serves is not None]
    assert len(platforms) == 6
    for name in platforms:
        assert emulator_for(name).vendor == get_vendor(name).family


@pytest.mark.parametrize(
    ("vendor", "model"),
    [
        ("vertex-anthropic", "claude-sonnet-4-5@20250929"),
        ("foundry", "claude-opus-5"),
        ("bedrock-mantle", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
    ],
)
def test_claude_platforms_cache_through_their_own_sdk_clients(vendor: str, model: str) -> None:
    client = emulator_for(vendor).client()
    usages = [
        client.messages.create(
            model=model,
            max_tokens=5,
            system=_system(600),
            messages=[{"role": "user", "content": q}],
        ).usage
        for q in ("a", "b")
    ]
    assert usages[0].cache_creation_input_tokens > 0 and usages[0].cache_read_input_tokens == 0
    assert usages[1].cache_read_input_tokens == usages[0].cache_creation_input_tokens


def test_the_platforms_minimum_applies() -> None:
    # ~1,500 tokens: over the Claude API's 1,024 for Sonnet 4.6, under Bedrock's 2,048 (AWS)
    kwargs: dict[str, Any] = {
        "max_tokens": 5,
        "system": _system(350),
        "messages": [{"role": "user", "content": "q"}],
    }
    first_party = AnthropicEmulator().client()
    mantle = emulator_for("bedrock-mantle").client()
    wrote = first_party.messages.create(model="claude-sonnet-4-6", **kwargs).usage
    assert wrote.cache_creation_input_tokens > 0
    skipped = mantle.messages.create(model="us.anthropic.claude-sonnet-4-6", **kwargs).usage
    assert skipped.cache_creation_input_tokens == 0


def test_vertex_takes_the_model_from_the_url_and_refuses_it_in_the_body() -> None:
    emulator = VertexAnthropicEmulator()
    body = {"max_tokens": 5, "messages": [{"role": "user", "content": "q"}]}
    path = "/v1/projects/p/locations/global/publishers/anthropic/models/claude-opus-5:rawPredict"
    ok = emulator.handle("POST", path, {**body, "anthropic_version": "vertex-2023-10-16"})
    assert ok.status == 200 and ok.body["model"] == "claude-opus-5"
    refused = emulator.handle("POST", path, {**body, "model": "x", "anthropic_version": "v"})
    assert refused.status == 400


def test_azure_and_vertex_gemini_through_their_own_sdk_clients() -> None:
    system = "You are support. " + "Answer briefly. " * 600
    azure = emulator_for("azure").client()
    chats = [
        azure.chat.completions.create(
            model="support-gpt",
            messages=[{"role": "system", "content": system}, {"role": "user", "content": q}],
        ).usage
        for q in ("a", "b")
    ]
    assert chats[0].prompt_tokens_details.cached_tokens == 0
    assert chats[1].prompt_tokens_details.cached_tokens > 1024
    pytest.importorskip("google.genai")
    vertex = emulator_for("vertex").client()
    answers = [
        vertex.models.generate_content(
            model="gemini-2.5-flash", contents=q, config={"system_instruction": system}
        ).usage_metadata
        for q in ("a", "b")
    ]
    assert not answers[0].cached_content_token_count
    assert answers[1].cached_content_token_count > 2048


def test_every_vendor_has_an_emulator() -> None:
    # every request format `promptcache vendors` lists can be emulated, by its name and aliases
    from promptcache.sim import Emulator

    for name in VENDOR_NAMES:
        for alias in (name, *get_vendor(name).aliases):
            assert isinstance(emulator_for(alias), Emulator), alias
