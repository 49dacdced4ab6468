"""
Wire scenarios: real SDK calls, the synthetic vendor answers they get, and the usage expected.

The recorder (`python -m tests.adapters.recorder`) serves each scenario's `responses` from a stub
HTTP server on 127.0.0.1 while vcrpy records the real SDK's traffic into `cassettes/`; the wire
tests replay the same calls from those cassettes with `record_mode="none"`. A scenario's `call`
takes the base URL to use (the stub's while recording, None for the vendor's default host while
replaying) and returns what the adapter read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from promptcache import Message, Prompt, Tool
from promptcache.adapters import get_adapter
from promptcache.adapters.gemini import GeminiCacheManager

from .._recording import (
    ANTHROPIC_HOST,
    GEMINI_HOST,
    OPENAI_HOST,
    Events,
    Reply,
    anthropic_client,
    anthropic_events,
    chat_chunks,
    gemini_client,
    openai_client,
)

ENGINE_HOST = "http://localhost:8000"

POLICY = " ".join(
    f"Clause {i}: refunds within 30 days need a receipt and the original card." for i in range(90)
)
MANUAL = " ".join(
    f"Section {i}: the widget resets when the blue button is held for 5 s." for i in range(150)
)


def support_prompt() -> Prompt:
    """A prompt with every stable layer, a short history and a tail (about 1.9k+ tokens)."""
    return (
        Prompt(volatile="ignore")
        .add_tools(
            Tool(
                name="lookup_order",
                description="Find an order by id",
                input_schema={"type": "object", "properties": {"id": {"type": "string"}}},
            ),
            Tool(
                name="refund",
                description="Refund an order",
                input_schema={"type": "object", "properties": {"id": {"type": "string"}}},
            ),
        )
        .add_system("You are the support agent of Acme. " + POLICY)
        .add_docs(MANUAL)
        .add_history(Message.user("My widget froze."), Message.assistant("Hold the blue button."))
        .with_tail("It froze again. What now?")
    )


@dataclass(frozen=True)
class Scenario:
    name: str
    vendor: str
    host: str
    call: Callable[[str | None], Any]
    replies: tuple[Reply, ...]
    expect: dict[str, Any] = field(default_factory=dict)

    @property
    def cassette(self) -> str:
        return f"{self.vendor}/{self.name}.yaml"


# -- Anthropic --------------------------------------------------------------------------------

ANTHROPIC_MODEL = "claude-sonnet-4-6"


def _a_message(usage: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "id": "msg_01PromptcacheWire",
        "type": "message",
        "role": "assistant",
        "model": ANTHROPIC_MODEL,
        "content": [{"type": "text", "text": "Hold it for 10 s."}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": usage,
        **extra,
    }


_A_WRITE = {
    "input_tokens": 14,
    "cache_creation_input_tokens": 2071,
    "cache_read_input_tokens": 0,
    "cache_creation": {"ephemeral_5m_input_tokens": 1063, "ephemeral_1h_input_tokens": 1008},
    "output_tokens": 9,
    "service_tier": "standard",
}
_A_READ = {
    "input_tokens": 14,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 2071,
    "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    "output_tokens": 1,
    "service_tier": "standard",
}


def _anthropic_sync(base_url: str | None) -> Any:
    adapter = get_adapter("anthropic")
    from promptcache import Layer

    kwargs = adapter.to_request(
        support_prompt(),
        model=ANTHROPIC_MODEL,
        max_tokens=64,
        layer_ttls={Layer.TOOLS: "1h", Layer.SYSTEM: "1h"},
    )
    return adapter.read_usage(anthropic_client(base_url).messages.create(**kwargs))


def _anthropic_stream(base_url: str | None) -> Any:
    adapter = get_adapter("anthropic")
    kwargs = adapter.to_request(support_prompt(), model=ANTHROPIC_MODEL, max_tokens=64, stream=True)
    return adapter.usage_from_stream(anthropic_client(base_url).messages.create(**kwargs))


def _anthropic_async(base_url: str | None) -> Any:
    adapter = get_adapter("anthropic")
    kwargs = adapter.to_request(
        support_prompt(), model=ANTHROPIC_MODEL, max_tokens=64, automatic=True
    )

    async def run() -> Any:
        client = anthropic_client(base_url, is_async=True)
        async with client:
            return adapter.read_usage(await client.messages.create(**kwargs))

    return asyncio.run(run())


def _anthropic_async_stream(base_url: str | None) -> Any:
    adapter = get_adapter("anthropic")
    kwargs = adapter.to_request(support_prompt(), model=ANTHROPIC_MODEL, max_tokens=64, stream=True)

    async def run() -> Any:
        client = anthropic_client(base_url, is_async=True)
        async with client:
            acc = adapter.accumulator()
            async for event in await client.messages.create(**kwargs):
                acc.feed(event)
            return acc.usage

    return asyncio.run(run())


def _anthropic_prewarm(base_url: str | None) -> Any:
    adapter = get_adapter("anthropic")
    base = support_prompt()
    prompt = (
        Prompt(volatile="ignore")
        .add_tools(*base.tools)
        .add_system(*base.system)
        .add_docs(*base.docs)
    )
    kwargs = adapter.prewarm_request(prompt, model=ANTHROPIC_MODEL)  # type: ignore[attr-defined]
    return adapter.read_usage(anthropic_client(base_url).messages.create(**kwargs))


def _anthropic_diagnostics(base_url: str | None) -> Any:
    adapter = get_adapter("anthropic")
    kwargs = adapter.to_request(
        support_prompt(), model=ANTHROPIC_MODEL, max_tokens=64, previous_message_id="msg_01Previous"
    )
    return adapter.read_usage(anthropic_client(base_url).messages.create(**kwargs))


def _a_events(start_usage: dict[str, Any], delta_usage: dict[str, Any]) -> Events:
    return anthropic_events(_a_message(start_usage), "Hold it.", delta_usage, ping=True)


# -- OpenAI -----------------------------------------------------------------------------------

OPENAI_MODEL = "gpt-5.6-terra"
_O_CHAT_USAGE = {
    "prompt_tokens": 2117,
    "completion_tokens": 6,
    "total_tokens": 2123,
    "prompt_tokens_details": {"cached_tokens": 1024, "cache_write_tokens": 1070, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0},
}


def _chat_completion(usage: dict[str, Any] | None, model: str = OPENAI_MODEL) -> dict[str, Any]:
    return {
        "id": "chatcmpl-wire",
        "object": "chat.completion",
        "created": 1796000000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "Hold it."},
            }
        ],
        "usage": usage,
    }


def _chat_chunks(usage: dict[str, Any], model: str = OPENAI_MODEL) -> Events:
    return chat_chunks("chatcmpl-wire", model, ("Hold", " it."), usage)


def _openai_chat_sync(base_url: str | None) -> Any:
    adapter = get_adapter("openai")
    kwargs = adapter.to_request(support_prompt(), model=OPENAI_MODEL, tenant="acme")
    return adapter.read_usage(openai_client(base_url).chat.completions.create(**kwargs))


def _openai_chat_stream(base_url: str | None) -> Any:
    adapter = get_adapter("openai")
    kwargs = adapter.to_request(
        support_prompt(), model=OPENAI_MODEL, stream=True, cache_mode="explicit"
    )
    return adapter.usage_from_stream(openai_client(base_url).chat.completions.create(**kwargs))


def _openai_chat_legacy_async(base_url: str | None) -> Any:
    adapter = get_adapter("openai")
    kwargs = adapter.to_request(support_prompt(), model="gpt-5.4-mini")

    async def run() -> Any:
        client = openai_client(base_url, is_async=True)
        async with client:
            return adapter.read_usage(await client.chat.completions.create(**kwargs))

    return asyncio.run(run())


_O_RESP_USAGE = {
    "input_tokens": 2117,
    "output_tokens": 6,
    "total_tokens": 2123,
    "input_tokens_details": {
        "cached_tokens": 1024,
        "cache_write_tokens": 1070,
        "cache_write_tokens_details": {"ttl_30m_tokens": 62, "ttl_12h_tokens": 1008},
    },
    "output_tokens_details": {"reasoning_tokens": 0},
}


def _response(
    usage: dict[str, Any] | None, status: str = "completed", **extra: Any
) -> dict[str, Any]:
    return {
        "id": "resp_wire",
        "object": "response",
        "created_at": 1796000000,
        "status": status,
        "model": OPENAI_MODEL,
        "output": [
            {
                "type": "message",
                "id": "msg_wire",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Hold it.", "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": usage,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "temperature": 1.0,
        "top_p": 1.0,
        **extra,
    }


def _openai_responses_sync(base_url: str | None) -> Any:
    from promptcache import Layer

    adapter = get_adapter("openai-responses")
    kwargs = adapter.to_request(
        support_prompt(),
        model=OPENAI_MODEL,
        cache_ttl="30m",
        layer_ttls={Layer.SYSTEM: "12h", Layer.DOCS: "12h"},
        comparison_response_id="resp_previous",
    )
    return adapter.read_usage(openai_client(base_url).responses.create(**kwargs))


def _openai_responses_async_stream(base_url: str | None) -> Any:
    adapter = get_adapter("openai-responses")
    kwargs = adapter.to_request(support_prompt(), model=OPENAI_MODEL, stream=True)

    async def run() -> Any:
        client = openai_client(base_url, is_async=True)
        async with client:
            acc = adapter.accumulator()
            async for event in await client.responses.create(**kwargs):
                acc.feed(event)
            return acc.usage

    return asyncio.run(run())


def _responses_events() -> tuple[Any, ...]:
    return (
        (
            "response.created",
            {
                "type": "response.created",
                "sequence_number": 0,
                "response": _response(None, status="in_progress"),
            },
        ),
        (
            "response.output_text.delta",
            {
                "type": "response.output_text.delta",
                "sequence_number": 1,
                "item_id": "msg_wire",
                "output_index": 0,
                "content_index": 0,
                "delta": "Hold it.",
                "logprobs": [],
            },
        ),
        (
            "response.completed",
            {
                "type": "response.completed",
                "sequence_number": 2,
                "response": _response(_O_RESP_USAGE),
            },
        ),
    )


# -- Gemini -----------------------------------------------------------------------------------

GEMINI_MODEL = "gemini-2.5-flash"
_CACHE = {
    "name": "cachedContents/pcwire001",
    "model": f"models/{GEMINI_MODEL}",
    "displayName": "promptcache-wire",
    "createTime": "2026-11-29T12:00:00Z",
    "updateTime": "2026-11-29T12:00:00Z",
    "expireTime": "2099-11-29T13:00:00Z",
    "usageMetadata": {"totalTokenCount": 1997},
}


def _g_response(usage: dict[str, Any], finish: str = "STOP", **candidate: Any) -> dict[str, Any]:
    ending = {"finishReason": finish} if finish else {}  # proto JSON omits an unset enum
    return {
        "candidates": [
            {
                "content": {"parts": [{"text": "Hold it."}], "role": "model"},
                "index": 0,
                **ending,
                **candidate,
            }
        ],
        "usageMetadata": usage,
        "modelVersion": GEMINI_MODEL,
        "responseId": "gwire",
    }


_G_USAGE = {
    "promptTokenCount": 2030,
    "cachedContentTokenCount": 1997,
    "candidatesTokenCount": 4,
    "thoughtsTokenCount": 10,
    "totalTokenCount": 2044,
    "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 2030}],
    "cacheTokensDetails": [{"modality": "TEXT", "tokenCount": 1997}],
}


def _gemini_cache_lifecycle(base_url: str | None) -> Any:
    adapter = get_adapter("gemini")
    client = gemini_client(base_url)
    manager = GeminiCacheManager(client, ttl_seconds=3600)
    decision = manager.ensure(support_prompt(), model=GEMINI_MODEL, expected_requests=50)
    kwargs = adapter.to_request(support_prompt(), model=GEMINI_MODEL, cached_content=decision.cache)
    usage = adapter.read_usage(client.models.generate_content(**kwargs))
    assert decision.cache is not None
    refreshed = manager.refresh(decision.cache)
    manager.delete(refreshed)
    return usage


def _gemini_stream(base_url: str | None) -> Any:
    adapter = get_adapter("gemini")
    kwargs = adapter.to_request(support_prompt(), model=GEMINI_MODEL)
    client = gemini_client(base_url)  # keep a reference: a collected Client closes its transport
    return adapter.usage_from_stream(client.models.generate_content_stream(**kwargs))


def _gemini_async(base_url: str | None) -> Any:
    adapter = get_adapter("gemini")
    kwargs = adapter.to_request(support_prompt(), model=GEMINI_MODEL)

    async def run() -> Any:
        client = gemini_client(base_url)
        return adapter.read_usage(await client.aio.models.generate_content(**kwargs))

    return asyncio.run(run())


def _gemini_continuation(base_url: str | None) -> Any:
    adapter = get_adapter("gemini")
    kwargs = adapter.to_request(support_prompt(), model=GEMINI_MODEL)
    client = gemini_client(base_url)
    return adapter.read_usage(client.models.generate_content(**kwargs))


_G_HOP1 = {
    "promptTokenCount": 2030,
    "cachedContentTokenCount": 1024,
    "candidatesTokenCount": 100,
    "totalTokenCount": 2130,
}
_G_HOP2 = {
    "promptTokenCount": 2140,
    "cachedContentTokenCount": 2048,
    "candidatesTokenCount": 20,
    "totalTokenCount": 2160,
}


# -- engines ----------------------------------------------------------------------------------


def _engine(engine: str, **options: Any) -> Callable[[str | None], Any]:
    def call(base_url: str | None) -> Any:
        adapter = get_adapter("engine")
        kwargs = adapter.to_request(support_prompt(), model="qwen3-8b", engine=engine, **options)
        client = openai_client(base_url, host=ENGINE_HOST)
        if options.get("stream"):
            return adapter.usage_from_stream(client.chat.completions.create(**kwargs))
        return adapter.read_usage(client.chat.completions.create(**kwargs))

    return call


_VLLM_USAGE = {
    "prompt_tokens": 2180,
    "completion_tokens": 6,
    "total_tokens": 2186,
    "prompt_tokens_details": {"cached_tokens": 2048, "created_cache_tokens": 128},
}
_LLAMA_USAGE = {
    "prompt_tokens": 2180,
    "completion_tokens": 6,
    "total_tokens": 2186,
    "prompt_tokens_details": {"cached_tokens": 2150},
}


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "messages_create",
        "anthropic",
        ANTHROPIC_HOST,
        _anthropic_sync,
        (Reply(_a_message(_A_WRITE)),),
        {
            "uncached_input": 14,
            "cache_write": 2071,
            "cache_read": 0,
            "output": 9,
            "cache_write_by_ttl": {"5m": 1063, "1h": 1008},
        },
    ),
    Scenario(
        "messages_stream",
        "anthropic",
        ANTHROPIC_HOST,
        _anthropic_stream,
        (Reply(events=_a_events(_A_READ, {"output_tokens": 12})),),
        {"uncached_input": 14, "cache_write": 0, "cache_read": 2071, "output": 12},
    ),
    Scenario(
        "messages_create_async_automatic",
        "anthropic",
        ANTHROPIC_HOST,
        _anthropic_async,
        (Reply(_a_message(_A_READ)),),
        {"uncached_input": 14, "cache_read": 2071, "cache_write": 0, "output": 1},
    ),
    Scenario(
        "messages_stream_async",
        "anthropic",
        ANTHROPIC_HOST,
        _anthropic_async_stream,
        (
            Reply(
                events=_a_events(
                    _A_READ,
                    {"output_tokens": 12, "input_tokens": 14, "cache_read_input_tokens": 2071},
                )
            ),
        ),
        {"uncached_input": 14, "cache_read": 2071, "output": 12},
    ),
    Scenario(
        "messages_prewarm",
        "anthropic",
        ANTHROPIC_HOST,
        _anthropic_prewarm,
        (
            Reply(
                {
                    **_a_message({**_A_WRITE, "output_tokens": 0}),
                    "content": [],
                    "stop_reason": "max_tokens",
                }
            ),
        ),
        {"cache_write": 2071, "output": 0},
    ),
    Scenario(
        "messages_diagnostics",
        "anthropic",
        ANTHROPIC_HOST,
        _anthropic_diagnostics,
        (
            Reply(
                _a_message(
                    _A_WRITE,
                    diagnostics={
                        "cache_miss_reason": {
                            "type": "system_changed",
                            "cache_missed_input_tokens": 1800,
                        }
                    },
                )
            ),
        ),
        {
            "cache_write": 2071,
            "diagnosis.reason": "system_changed",
            "diagnosis.missed_tokens": 1800,
        },
    ),
    Scenario(
        "chat_create",
        "openai",
        OPENAI_HOST,
        _openai_chat_sync,
        (Reply(_chat_completion(_O_CHAT_USAGE)),),
        {"uncached_input": 23, "cache_read": 1024, "cache_write": 1070, "output": 6},
    ),
    Scenario(
        "chat_stream",
        "openai",
        OPENAI_HOST,
        _openai_chat_stream,
        (Reply(events=_chat_chunks(_O_CHAT_USAGE)),),
        {"uncached_input": 23, "cache_read": 1024, "cache_write": 1070, "output": 6},
    ),
    Scenario(
        "chat_create_async_pre56",
        "openai",
        OPENAI_HOST,
        _openai_chat_legacy_async,
        (
            Reply(
                _chat_completion(
                    {
                        "prompt_tokens": 2117,
                        "completion_tokens": 6,
                        "total_tokens": 2123,
                        "prompt_tokens_details": {"cached_tokens": 1920},
                    },
                    model="gpt-5.4-mini",
                )
            ),
        ),
        {"uncached_input": 197, "cache_read": 1920, "cache_write": 0, "output": 6},
    ),
    Scenario(
        "responses_create",
        "openai",
        OPENAI_HOST,
        _openai_responses_sync,
        (
            Reply(
                _response(
                    _O_RESP_USAGE,
                    prompt_cache_diagnostics={
                        "type": "cache_miss",
                        "reason": "tools_changed",
                        "cache_missed_tokens": 1070,
                        "comparison_reusable_tokens": 2094,
                    },
                )
            ),
        ),
        {
            "uncached_input": 23,
            "cache_read": 1024,
            "cache_write": 1070,
            "cache_write_by_ttl": {"30m": 62, "12h": 1008},
            "diagnosis.reason": "tools_changed",
        },
    ),
    Scenario(
        "responses_stream_async",
        "openai",
        OPENAI_HOST,
        _openai_responses_async_stream,
        (Reply(events=_responses_events()),),
        {"uncached_input": 23, "cache_read": 1024, "cache_write": 1070, "output": 6},
    ),
    Scenario(
        "cache_lifecycle",
        "gemini",
        GEMINI_HOST,
        _gemini_cache_lifecycle,
        (Reply(_CACHE), Reply(_g_response(_G_USAGE)), Reply(_CACHE), Reply({})),
        {"uncached_input": 33, "cache_read": 1997, "cache_write": 0, "output": 14},
    ),
    Scenario(
        "generate_stream",
        "gemini",
        GEMINI_HOST,
        _gemini_stream,
        (
            Reply(
                events=(
                    (
                        None,
                        _g_response(
                            {
                                "promptTokenCount": 2030,
                                "candidatesTokenCount": 1,
                                "totalTokenCount": 2031,
                            },
                            finish="",
                        ),
                    ),
                    (None, _g_response({**_G_USAGE, "cachedContentTokenCount": 1536})),
                ),
            ),
        ),
        {"uncached_input": 494, "cache_read": 1536, "output": 14},
    ),
    Scenario(
        "generate_async",
        "gemini",
        GEMINI_HOST,
        _gemini_async,
        (
            Reply(
                _g_response(
                    {"promptTokenCount": 2030, "candidatesTokenCount": 4, "totalTokenCount": 2034}
                )
            ),
        ),
        {"uncached_input": 2030, "cache_read": 0, "output": 4},
    ),
    Scenario(
        "generate_continuation",
        "gemini",
        GEMINI_HOST,
        _gemini_continuation,
        (
            Reply(_g_response(_G_HOP1, finish="CONTINUATION", continuationToken="aG9wMQ==")),
            Reply(_g_response(_G_HOP2)),
        ),
        {"uncached_input": 4170 - 3072, "cache_read": 3072, "output": 120},
    ),
    Scenario(
        "vllm_chat",
        "engine",
        ENGINE_HOST,
        _engine("vllm", cache_salt="tenant-a-salt"),
        (Reply(_chat_completion(_VLLM_USAGE, model="qwen3-8b")),),
        {"uncached_input": 4, "cache_read": 2048, "cache_write": 128, "output": 6},
    ),
    Scenario(
        "sglang_chat_no_report",
        "engine",
        ENGINE_HOST,
        _engine("sglang"),
        (
            Reply(
                _chat_completion(
                    {
                        "prompt_tokens": 2180,
                        "completion_tokens": 6,
                        "total_tokens": 2186,
                        "prompt_tokens_details": None,
                    },
                    model="qwen3-8b",
                )
            ),
        ),
        {"uncached_input": 2180, "cache_read": None, "cache_write": None, "output": 6},
    ),
    Scenario(
        "llamacpp_chat_stream",
        "engine",
        ENGINE_HOST,
        _engine("llama.cpp", stream=True),
        (Reply(events=_chat_chunks(_LLAMA_USAGE, model="qwen3-8b")),),
        {"uncached_input": 30, "cache_read": 2150, "output": 6},
    ),
)
