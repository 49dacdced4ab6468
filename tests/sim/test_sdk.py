"""The emulators behind the real SDK clients (sync and async): the same usage, no network."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest

from promptcache import Prompt, Tool, get_adapter
from promptcache.sim import EMULATION, ManualClock, emulator_for
from promptcache.sim._transport import HEADER

BIG = "You answer questions about orders. " * 300


def conversation() -> list[Prompt]:
    base = (
        Prompt()
        .add_tools(
            Tool(name="lookup", description="Find an order", input_schema={"type": "object"})
        )
        .add_system(BIG)
        .with_tail("Where is order 1?")
    )
    second = base.commit_tail("It shipped.").with_tail("And order 2?")
    return [base, second]


CASES = [
    ("anthropic", "anthropic", "claude-sonnet-4-6", lambda c, r: c.messages.create(**r)),
    ("openai", "openai", "gpt-5.4", lambda c, r: c.chat.completions.create(**r)),
    ("openai", "openai-responses", "gpt-5.6-terra", lambda c, r: c.responses.create(**r)),
    ("engine", "engine", "qwen3-8b", lambda c, r: c.chat.completions.create(**r)),
    ("gemini", "gemini", "gemini-2.5-pro", lambda c, r: c.models.generate_content(**r)),
]


def _sdk_or_skip(vendor: str) -> None:
    module = {"anthropic": "anthropic", "gemini": "google.genai"}.get(vendor, "openai")
    pytest.importorskip(module, reason=f"{module} is not installed (or needs a newer Python)")


@pytest.mark.parametrize(("emulated", "adapter_name", "model", "call"), CASES)
def test_second_request_reads_the_cache_through_the_sdk(
    emulated: str, adapter_name: str, model: str, call: Any
) -> None:
    _sdk_or_skip(emulated)
    emulator = emulator_for(emulated, clock=ManualClock())
    client, adapter = emulator.client(), get_adapter(adapter_name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        usages = [
            adapter.read_usage(call(client, adapter.to_request(p, model=model)))
            for p in conversation()
        ]
    assert usages[0].cache_read == 0
    assert usages[1].cache_read and usages[1].cache_read > 1024
    assert emulator.requests == 2


@pytest.mark.parametrize(
    ("emulated", "adapter_name", "model"),
    [("anthropic", "anthropic", "claude-sonnet-4-6"), ("openai", "openai", "gpt-5.4")],
)
def test_async_clients_work_too(emulated: str, adapter_name: str, model: str) -> None:
    _sdk_or_skip(emulated)
    emulator = emulator_for(emulated, clock=ManualClock())
    client, adapter = emulator.client(is_async=True), get_adapter(adapter_name)

    async def run() -> list[Any]:
        out = []
        for prompt in conversation():
            request = adapter.to_request(prompt, model=model)
            if adapter_name == "anthropic":
                out.append(await client.messages.create(**request))
            else:
                out.append(await client.chat.completions.create(**request))
        return out

    responses = asyncio.run(run())
    assert adapter.read_usage(responses[1]).cache_read


def test_answers_are_labelled_as_emulated() -> None:
    _sdk_or_skip("anthropic")
    emulator = emulator_for("anthropic", clock=ManualClock())
    request = get_adapter("anthropic").to_request(conversation()[0], model="claude-sonnet-4-6")
    raw = emulator.client().messages.with_raw_response.create(**request)
    assert raw.headers[HEADER] == "anthropic (emulated)"
    assert raw.parse().content[0].text == EMULATION


def test_a_refused_request_raises_the_sdks_own_error() -> None:
    anthropic = pytest.importorskip("anthropic")
    emulator = emulator_for("anthropic", clock=ManualClock())
    with pytest.raises(anthropic.BadRequestError, match="A maximum of 4 blocks"):
        emulator.client().messages.create(
            model="claude-sonnet-4-6",
            max_tokens=8,
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": str(i), "cache_control": {"type": "ephemeral"}}
                        for i in range(5)
                    ],
                }
            ],
        )


def test_gemini_explicit_cache_through_the_cache_manager() -> None:
    _sdk_or_skip("gemini")
    from promptcache.adapters.gemini import GeminiCacheManager

    clock = ManualClock()
    emulator = emulator_for("gemini", clock=clock)
    client = emulator.client()
    manager = GeminiCacheManager(client, ttl_seconds=600)
    prompt = Prompt().add_system(BIG * 2).with_tail("q")
    decision = manager.ensure(prompt, model="gemini-2.5-pro", expected_requests=50)
    assert decision.action == "created"
    request = get_adapter("gemini").to_request(
        prompt, model="gemini-2.5-pro", cached_content=decision.cache
    )
    usage = get_adapter("gemini").read_usage(client.models.generate_content(**request))
    assert usage.cache_read and usage.cache_read > 2048
    clock.advance(3600)
    assert emulator.storage_token_hours() > 0  # type: ignore[attr-defined]


def test_emulator_for_names_the_choices() -> None:
    from promptcache import InputError

    with pytest.raises(InputError, match="unknown vendor 'palm'"):
        emulator_for("palm")
    assert type(emulator_for("vLLM")).__name__ == "VLLMEmulator"  # aliases, in any case
