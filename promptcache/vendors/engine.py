"""
Self-hosted engines (vLLM, SGLang, llama.cpp) through their OpenAI-compatible Chat Completions
API: automatic prefix caching of full KV blocks (vLLM: 16 tokens), evicted least recently used
(no TTL), no markers. Tools render through the chat template into the system turn after its
text. `cache_salt` (vLLM, SGLang) keeps each salt's cache apart; chat template kwargs and
reasoning effort change what the template renders from the top.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .._errors import InputError
from .._usage import CacheUsage
from ._elements import setting
from ._fields import get_field, get_int
from ._openai import openai_model, read_chat_usage, response_signs
from ._rules import CacheRules, Capabilities, Setting
from ._vendor import Vendor
from .openai_chat import CALL_PATHS, chat_layers, chat_misfit, chat_signs, read_chat_prompt

__all__ = ["NOT_REPORTED", "RULES", "VENDOR", "read_engine_usage"]

NOT_REPORTED = (
    "caching not reported, so cache reads are unknown (not 0): start vLLM with "
    "--enable-prompt-tokens-details, SGLang with --enable-cache-report (llama.cpp always reports)"
)

RULES = CacheRules(
    marking="automatic",
    capabilities=Capabilities(
        vendor="engine",
        marking="automatic",
        max_breakpoints=0,
        increment_tokens=16,
    ),
    default_ttl_seconds=None,  # LRU eviction, not time
    # Blocks of 16 tokens plus what the chat template appends after the last message.
    granularity_tokens=64,
    min_tokens_key="engine",
    render_order=("system", "tools", "messages"),
    invalidating=(
        Setting(path="cache_salt", cause="cache_salt_changed"),
        Setting(path="chat_template_kwargs", cause="thinking_changed"),
        Setting(path="reasoning_effort", cause="thinking_changed"),
    ),
)

_ENGINE_FIELDS = ("cache_salt", "chat_template_kwargs", "top_k", "min_p", "repetition_penalty")


def signs(request: Mapping[str, Any]) -> int:
    found = sum(setting(request, name)[1] is not None for name in _ENGINE_FIELDS)
    model = request.get("model")
    local = isinstance(model, str) and ("/" in model or model.endswith(".gguf"))
    return found + local + (chat_signs(request) if found or local else 0) - openai_model(model)


def _response_signs(response: Any) -> int:
    found = response_signs(response, "chat.completion", "prompt_tokens")
    model = response.get("model") if isinstance(response, Mapping) else None
    local = isinstance(model, str) and ("/" in model or model.endswith(".gguf"))
    return found + local - 2 * openai_model(model)


def read_engine_usage(response: Any) -> CacheUsage:
    """
    An engine's chat completion (SDK object or JSON dict), or llama.cpp's native `/completion`
    answer, which has no `usage` block, only `timings`. When the server reported no caching the
    reads stay unknown and `problems` names the flag that turns reporting on.
    """
    timings = get_field(response, "timings")
    if get_field(response, "usage") is None and timings is not None:
        return _native_usage(response, timings)
    usage = read_chat_usage(response, vendor="engine", endpoint="chat.completions")
    if usage.caching_reported:
        return usage
    return replace(usage, problems=(*usage.problems, NOT_REPORTED))


def _native_usage(response: Any, timings: Any) -> CacheUsage:
    """llama.cpp `/completion`: `timings.cache_n` reused, `timings.prompt_n` evaluated."""
    cached, evaluated = get_int(timings, "cache_n"), get_int(timings, "prompt_n")
    if cached is None or evaluated is None:
        raise InputError(
            "a llama.cpp /completion answer needs timings.cache_n and timings.prompt_n; got "
            f"timings keys {sorted(timings) if isinstance(timings, dict) else type(timings)}"
        )
    output = get_int(timings, "predicted_n")
    if output is None:  # neither said: unknown, not 0
        output = get_int(response, "tokens_predicted")
    model = get_field(response, "model")
    return CacheUsage(
        uncached_input=evaluated,
        cache_read=cached,
        cache_write=0,
        output=output,
        vendor="engine",
        endpoint="completion",
        model=model if isinstance(model, str) else None,
    )


VENDOR = Vendor(
    name="engine",
    title="OpenAI-compatible engine (vLLM, SGLang, llama.cpp)",
    aliases=("vllm", "sglang", "llama.cpp", "llamacpp", "llama-cpp", "llama-server"),
    rules=RULES,
    layers=chat_layers,
    read_prompt=read_chat_prompt,
    read_usage=read_engine_usage,
    misfit=chat_misfit,
    signs=signs,
    response_signs=_response_signs,
    call_paths=CALL_PATHS,
    sdk="openai",
)
