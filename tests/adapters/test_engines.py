"""vLLM, SGLang and llama.cpp through the OpenAI-compatible adapter."""

from __future__ import annotations

import pytest

from promptcache import InputError, Prompt
from promptcache.adapters import get_adapter


def prompt() -> Prompt:
    return Prompt().add_system("You are terse.").with_tail("q")


def test_no_markers_and_no_cache_key_by_default() -> None:
    kwargs = get_adapter("engine").to_request(prompt(), model="qwen3-8b")
    assert set(kwargs) == {"model", "messages"}
    assert "prompt_cache_breakpoint" not in str(kwargs)


def test_cache_salt_goes_in_extra_body() -> None:
    kwargs = get_adapter("engine").to_request(
        prompt(), model="m", engine="sglang", cache_salt="t1", extra_body={"top_k": 5}
    )
    assert kwargs["extra_body"] == {"top_k": 5, "cache_salt": "t1"}


@pytest.mark.parametrize("salt", ["", "a/b", "a@b", "x" * 129, "a\\b"])
def test_bad_salt_is_refused(salt: str) -> None:
    with pytest.raises(InputError, match="cache_salt"):
        get_adapter("engine").to_request(prompt(), model="m", cache_salt=salt)


def test_llamacpp_options() -> None:
    kwargs = get_adapter("engine").to_request(
        prompt(), model="m", engine="llama.cpp", cache_prompt=True
    )
    assert kwargs["extra_body"] == {"cache_prompt": True}
    with pytest.raises(InputError, match="no cache_salt"):
        get_adapter("engine").to_request(prompt(), model="m", engine="llama.cpp", cache_salt="x")
    with pytest.raises(InputError, match=r"llama\.cpp option"):
        get_adapter("engine").to_request(prompt(), model="m", engine="vllm", cache_prompt=False)


def test_vllm_created_cache_tokens_are_writes() -> None:
    usage = get_adapter("engine").read_usage(
        {
            "usage": {
                "prompt_tokens": 300,
                "completion_tokens": 2,
                "prompt_tokens_details": {"cached_tokens": 160, "created_cache_tokens": 128},
            }
        }
    )
    assert (usage.uncached_input, usage.cache_read, usage.cache_write) == (12, 160, 128)


def test_vllm_without_prompt_tokens_details_is_unknown_not_zero() -> None:
    # peers J7: Prometheus shows hits but responses show none without the server flag.
    usage = get_adapter("engine").read_usage(
        {"usage": {"prompt_tokens": 300, "completion_tokens": 2}}
    )
    assert usage.cache_read is None and usage.hit_rate is None
    assert usage.uncached_input == 300


def test_llamacpp_timings_fill_in() -> None:
    usage = get_adapter("engine").read_usage(
        {
            "usage": {"prompt_tokens": 300, "completion_tokens": 2},
            "timings": {"cache_n": 256, "prompt_n": 44},
        }
    )
    assert (usage.cache_read, usage.uncached_input) == (256, 44)


def test_unreported_caching_names_the_server_flags() -> None:
    usage = get_adapter("engine").read_usage(
        {"usage": {"prompt_tokens": 300, "completion_tokens": 2}}
    )
    assert usage.cache_read is None
    assert any(
        "--enable-prompt-tokens-details" in p and "--enable-cache-report" in p
        for p in usage.problems
    )


def test_llamacpp_native_completion_reads_timings() -> None:
    # llama.cpp's /completion has no usage block; tokens_cached is the slot size, not a hit.
    answer = {
        "model": "smollm2",
        "tokens_cached": 1894,
        "tokens_evaluated": 1887,
        "timings": {"cache_n": 1881, "prompt_n": 6, "predicted_n": 8},
    }
    usage = get_adapter("engine").read_usage(answer)
    assert (usage.cache_read, usage.uncached_input, usage.output) == (1881, 6, 8)
    assert usage.total_input == 1887 and not usage.problems
