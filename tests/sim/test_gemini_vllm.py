"""The Gemini (implicit and explicit) and vLLM cache emulations."""

from __future__ import annotations

from typing import Any

import pytest

from promptcache.sim import GeminiEmulator, ManualClock, VLLMEmulator
from promptcache.sim._base import Reply

BIG = "policy text " * 1200  # about 3,600 tokens: over gemini-2.5-pro's 2,048
GENERATE = "/v1/models/gemini-2.5-pro:generateContent"


def contents(question: str) -> dict[str, Any]:
    return {
        "contents": [
            {"role": "user", "parts": [{"text": BIG}]},
            {"role": "user", "parts": [{"text": question}]},
        ]
    }


def create_cache(emulator: GeminiEmulator, ttl: str | None = None) -> Reply:
    """An explicit cache of BIG as the system instruction (`ttl` left out: the default)."""
    body: dict[str, Any] = {
        "model": "models/gemini-2.5-pro",
        "systemInstruction": {"parts": [{"text": BIG}]},
    }
    if ttl is not None:
        body["ttl"] = ttl
    return emulator.handle("POST", "/v1/cachedContents", body)


def test_gemini_implicit_reads_the_shared_prefix(clock: ManualClock) -> None:
    emulator = GeminiEmulator(clock=clock)
    status, first = emulator.handle("POST", GENERATE, contents("q1"))
    assert (
        status == 200 and "cachedContentTokenCount" not in first["usageMetadata"]
    )  # 0 is left out
    _, second = emulator.handle("POST", GENERATE, contents("q2"))
    usage = second["usageMetadata"]
    assert 0 < usage["cachedContentTokenCount"] < usage["promptTokenCount"]
    clock.advance(emulator.implicit_ttl + 1)
    _, later = emulator.handle("POST", GENERATE, contents("q3"))
    assert "cachedContentTokenCount" not in later["usageMetadata"]


def test_gemini_explicit_cache_is_read_whole_and_stored_by_the_hour(clock: ManualClock) -> None:
    emulator = GeminiEmulator(clock=clock)
    status, cache = create_cache(emulator, "600s")
    assert status == 200 and cache["name"].startswith("cachedContents/")
    tokens = cache["usageMetadata"]["totalTokenCount"]
    body = {
        "contents": [{"role": "user", "parts": [{"text": "q"}]}],
        "cachedContent": cache["name"],
    }
    _, answer = emulator.handle("POST", GENERATE, body)
    assert answer["usageMetadata"]["cachedContentTokenCount"] == tokens
    clock.advance(3600)  # the cache expired after 600 s: 600 s of storage counted, no more
    assert emulator.storage_token_hours() == pytest.approx(tokens * 600 / 3600)
    status, expired = emulator.handle("POST", GENERATE, body)
    assert status == 404 and "expired" in expired["error"]["message"]


def test_gemini_explicit_refusals(clock: ManualClock) -> None:
    emulator = GeminiEmulator(clock=clock)
    status, small = emulator.handle(
        "POST",
        "/v1/cachedContents",
        {
            "model": "models/gemini-2.5-pro",
            "contents": [{"role": "user", "parts": [{"text": "tiny"}]}],
        },
    )
    assert status == 400 and "too small" in small["error"]["message"]
    _, cache = create_cache(emulator)
    body = {
        "contents": [{"role": "user", "parts": [{"text": "q"}]}],
        "cachedContent": cache["name"],
        "systemInstruction": {"parts": [{"text": "again"}]},
    }
    status, both = emulator.handle("POST", GENERATE, body)
    assert status == 400 and "system_instruction" in both["error"]["message"]


def test_gemini_update_and_delete(clock: ManualClock) -> None:
    emulator = GeminiEmulator(clock=clock)
    _, cache = create_cache(emulator, "60s")
    name = cache["name"].split("/")[1]
    status, _ = emulator.handle(
        "PATCH", f"/v1/cachedContents/{name}?updateMask=ttl", {"ttl": "3600s"}
    )
    assert status == 200
    clock.advance(120)
    assert emulator.handle("GET", f"/v1/cachedContents/{name}", None).status == 200
    assert emulator.handle("DELETE", f"/v1/cachedContents/{name}", None).status == 200
    assert emulator.handle("GET", f"/v1/cachedContents/{name}", None).status == 404


def chat(text: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": "qwen3-8b",
        "messages": [{"role": "system", "content": BIG}, {"role": "user", "content": text}],
        **extra,
    }


def test_vllm_reads_full_blocks_only() -> None:
    emulator = VLLMEmulator(clock=ManualClock())
    first = emulator.handle("POST", "/v1/chat/completions", chat("q1")).body["usage"]
    assert first["prompt_tokens_details"]["cached_tokens"] == 0
    assert first["prompt_tokens_details"]["created_cache_tokens"] % 16 == 0
    second = emulator.handle("POST", "/v1/chat/completions", chat("q2")).body["usage"]
    cached = second["prompt_tokens_details"]["cached_tokens"]
    assert cached % 16 == 0 and second["prompt_tokens"] - 40 < cached < second["prompt_tokens"]
    # Only the full blocks past what was read are new: created is never the whole prompt again.
    created = second["prompt_tokens_details"]["created_cache_tokens"]
    assert created == (second["prompt_tokens"] // 16) * 16 - cached
    assert first["prompt_tokens_details"]["created_cache_tokens"] == (
        first["prompt_tokens"] // 16 * 16
    )


def test_vllm_cache_salt_isolates_tenants() -> None:
    emulator = VLLMEmulator(clock=ManualClock())
    emulator.handle("POST", "/v1/chat/completions", chat("q", cache_salt="tenant-a"))
    other = emulator.handle("POST", "/v1/chat/completions", chat("q", cache_salt="tenant-b")).body
    assert other["usage"]["prompt_tokens_details"]["cached_tokens"] == 0
    same = emulator.handle("POST", "/v1/chat/completions", chat("q", cache_salt="tenant-a")).body
    assert same["usage"]["prompt_tokens_details"]["cached_tokens"] > 0


def test_vllm_evicts_the_least_recently_used_blocks() -> None:
    emulator = VLLMEmulator(clock=ManualClock(), capacity_blocks=300)  # one prompt is ~225 blocks
    emulator.handle("POST", "/v1/chat/completions", chat("q"))
    emulator.handle(
        "POST",
        "/v1/chat/completions",
        {**chat("q"), "messages": [{"role": "system", "content": "other " * 2000}]},
    )
    again = emulator.handle("POST", "/v1/chat/completions", chat("q")).body
    assert emulator.evicted > 0 and again["usage"]["prompt_tokens_details"]["cached_tokens"] == 0


def test_vllm_without_prompt_tokens_details_reports_nothing() -> None:
    emulator = VLLMEmulator(clock=ManualClock(), prompt_tokens_details=False)
    usage = emulator.handle("POST", "/v1/chat/completions", chat("q")).body["usage"]
    assert "prompt_tokens_details" not in usage
