"""
CacheUsage and the per-vendor arithmetic, with regressions for the known accounting bugs
(peers.md §4 J): Anthropic's input_tokens EXCLUDE cache reads and writes; OpenAI's and Gemini's
prompt counts INCLUDE them.
"""

from __future__ import annotations

from typing import Any

import pytest

from promptcache import CacheUsage, InputError
from promptcache.adapters import get_adapter
from promptcache.vendors import get_vendor

from ._recording import google_genai


def test_total_input_is_uncached_plus_write_plus_read() -> None:
    usage = CacheUsage(uncached_input=10, cache_read=100, cache_write=1000, output=5)
    assert usage.total_input == 1110
    assert usage.hit_rate == pytest.approx(100 / 1110)


def test_unknown_caching_is_not_zero() -> None:
    usage = CacheUsage(uncached_input=500, cache_read=None, cache_write=None, output=5)
    assert not usage.caching_reported
    assert usage.hit_rate is None
    assert usage.total_input == 500


# -- J1/J4: Anthropic input_tokens exclude the cache ------------------------------------------


def test_anthropic_input_tokens_are_not_double_counted() -> None:
    # litellm#9812 charged cache_creation_input_tokens both as prompt and as creation.
    usage = get_adapter("anthropic").read_usage(
        {
            "usage": {
                "input_tokens": 21,
                "cache_creation_input_tokens": 188086,
                "cache_read_input_tokens": 0,
                "output_tokens": 393,
            }
        }
    )
    assert usage.uncached_input == 21
    assert usage.cache_write == 188086
    assert usage.total_input == 21 + 188086


def test_anthropic_read_is_added_not_subtracted() -> None:
    usage = get_adapter("anthropic").read_usage(
        {
            "usage": {
                "input_tokens": 3,
                "cache_read_input_tokens": 4096,
                "cache_creation_input_tokens": 0,
                "output_tokens": 1,
            }
        }
    )
    assert (usage.uncached_input, usage.cache_read, usage.total_input) == (3, 4096, 4099)
    assert usage.hit_rate == pytest.approx(4096 / 4099)


# -- J3/J5/J6: OpenAI prompt_tokens include the cache -----------------------------------------


def test_openai_cached_tokens_are_inside_prompt_tokens() -> None:
    # litellm#40016 re-added cache tokens to an already inclusive prompt_tokens (1.9x).
    usage = get_adapter("openai").read_usage(
        {
            "usage": {
                "prompt_tokens": 2006,
                "completion_tokens": 300,
                "total_tokens": 2306,
                "prompt_tokens_details": {"cached_tokens": 1920},
            }
        }
    )
    assert usage.uncached_input == 86
    assert usage.total_input == 2006


def test_openai_reads_and_writes_are_separate_partitions() -> None:
    # laravel/ai#846 (gpt-5.6-luna): write turn, then read turn; antirez/ds4#29 summed them.
    adapter = get_adapter("openai-responses")
    write = adapter.read_usage(
        {
            "usage": {
                "input_tokens": 18014,
                "output_tokens": 1,
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 18011},
            }
        }
    )
    read = adapter.read_usage(
        {
            "usage": {
                "input_tokens": 18014,
                "output_tokens": 1,
                "input_tokens_details": {"cached_tokens": 18011, "cache_write_tokens": 0},
            }
        }
    )
    assert (write.uncached_input, write.cache_write, write.cache_read) == (3, 18011, 0)
    assert (read.uncached_input, read.cache_write, read.cache_read) == (3, 0, 18011)
    assert write.total_input == read.total_input == 18014


def test_openai_missing_details_on_old_models_count_as_zero_write() -> None:
    usage = get_adapter("openai").read_usage(
        {
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 1,
                "prompt_tokens_details": {
                    "cached_tokens": None,
                    "cache_write_tokens": None,
                    "audio_tokens": 0,
                },
            }
        }
    )
    # Details present but counts null: the SDK's construct() gives None for absent fields.
    assert usage.cache_read is None and usage.cache_write is None
    usage = get_adapter("openai").read_usage(
        {
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 1,
                "prompt_tokens_details": {"cached_tokens": 0},
            }
        }
    )
    assert (usage.cache_read, usage.cache_write, usage.uncached_input) == (0, 0, 100)


# -- Gemini prompt_token_count includes cached_content_token_count ---------------------------


def test_gemini_cached_content_is_inside_prompt_count() -> None:
    usage = get_adapter("gemini").read_usage(
        {
            "usageMetadata": {
                "promptTokenCount": 6156,
                "cachedContentTokenCount": 4096,
                "candidatesTokenCount": 5,
                "thoughtsTokenCount": 10,
                "totalTokenCount": 6171,
            }
        }
    )
    assert (usage.uncached_input, usage.cache_read, usage.output) == (2060, 4096, 15)
    assert usage.total_input == 6156
    assert usage.problems == ()


def test_gemini_sdk_object_reads_like_json() -> None:
    types = google_genai().types

    response = types.GenerateContentResponse(
        usage_metadata=types.GenerateContentResponseUsageMetadata(
            prompt_token_count=3000,
            cached_content_token_count=2048,
            candidates_token_count=7,
            tool_use_prompt_token_count=11,
            total_token_count=3018,
        )
    )
    usage = get_adapter("gemini").read_usage(response)
    assert (usage.uncached_input, usage.cache_read, usage.output) == (952 + 11, 2048, 7)


# -- totals that do not add up are reported --------------------------------------------------


def test_anthropic_ttl_split_mismatch_is_reported() -> None:
    usage = get_adapter("anthropic").read_usage(
        {
            "usage": {
                "input_tokens": 1,
                "cache_creation_input_tokens": 100,
                "cache_read_input_tokens": 0,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": 40,
                    "ephemeral_1h_input_tokens": 50,
                },
                "output_tokens": 1,
            }
        }
    )
    assert usage.cache_write == 100  # the vendor's number is kept, not "fixed"
    assert "sums to 90" in usage.problems[0]


def test_openai_cached_above_prompt_is_reported() -> None:
    usage = get_adapter("openai").read_usage(
        {
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 1,
                "total_tokens": 999,
                "prompt_tokens_details": {"cached_tokens": 128},
            }
        }
    )
    assert any("less than cached" in p for p in usage.problems)
    assert any("total_tokens (999)" in p for p in usage.problems)


def test_gemini_total_mismatch_is_reported() -> None:
    usage = get_adapter("gemini").read_usage(
        {
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 99,
            }
        }
    )
    assert "totalTokenCount (99)" in usage.problems[0]


def test_non_integer_usage_field_is_an_error_not_zero() -> None:
    with pytest.raises(InputError, match="input_tokens should be an integer"):
        get_adapter("anthropic").read_usage({"usage": {"input_tokens": "12", "output_tokens": 1}})


class _Message(dict):  # type: ignore[type-arg]
    """A JSON message that is not a plain dict: the readers take the general path for it."""


_ANTHROPIC_JSON = [
    {"model": "claude-sonnet-4-6", "usage": {"input_tokens": 12, "output_tokens": 40}},
    {"usage": {"input_tokens": 0, "cache_read_input_tokens": 5, "output_tokens": 1}},
    {"input_tokens": 3, "cache_creation_input_tokens": 9},
    {"model": 7, "usage": {"input_tokens": 3, "cache_creation_input_tokens": None}},
    {"usage": {"input_tokens": -1, "cache_read_input_tokens": 2, "output_tokens": 0}},
    {"usage": {"input_tokens": 1, "cache_read_input_tokens": -2}},
    {"usage": {"input_tokens": 1, "output_tokens": -3}},
    {"usage": {"input_tokens": 1, "cache_creation_input_tokens": -4}},
    {
        "usage": {
            "input_tokens": 1,
            "cache_creation_input_tokens": 10,
            "cache_creation": {"ephemeral_5m_input_tokens": 4, "ephemeral_1h_input_tokens": 5},
        }
    },
    {"usage": {"input_tokens": 1}, "diagnostics": {"cache_miss_reason": {"type": "x"}}},
    {"usage": None, "input_tokens": 4},
]


@pytest.mark.parametrize("message", _ANTHROPIC_JSON)
def test_anthropic_json_reads_as_the_general_reader_does(message: dict[str, object]) -> None:
    """`report` reads plain JSON dicts by a shortcut; it must give exactly the general answer."""
    reader = get_adapter("anthropic").read_usage
    general = _Message(message)
    if isinstance(message.get("usage"), dict):
        general["usage"] = _Message(message["usage"])  # type: ignore[arg-type]
    assert _outcome(reader, message) == _outcome(reader, general)


def _outcome(reader: Any, message: object) -> object:
    """The usage read, or the refusal's words (a negative count is refused by both paths)."""
    try:
        return reader(message)
    except InputError as error:
        return str(error)


@pytest.mark.parametrize(
    "usage",
    [{"input_tokens": True}, {"input_tokens": 1.0}, {"input_tokens": 1, "output_tokens": "2"}],
)
def test_anthropic_json_with_a_non_integer_count_is_still_an_error(
    usage: dict[str, object],
) -> None:
    with pytest.raises(InputError, match="should be an integer"):
        get_adapter("anthropic").read_usage({"usage": usage})


# -- output tokens not reported are unknown, not 0 -----------------------------------------------
# A stream read without its usage event, a proxy that strips the count: `output` is None, so
# nothing priced or printed from the record states an output of 0.


@pytest.mark.parametrize(
    "message",
    [
        {"usage": {"input_tokens": 12, "cache_read_input_tokens": 3}},  # the plain-dict path
        {
            "usage": {
                "input_tokens": 12,
                "cache_creation_input_tokens": 4,
                "cache_creation": {"ephemeral_5m_input_tokens": 4},
            }
        },  # the general path
    ],
)
def test_anthropic_output_not_reported_is_unknown(message: dict[str, object]) -> None:
    reader = get_adapter("anthropic").read_usage
    general = _Message(message)
    general["usage"] = _Message(message["usage"])  # type: ignore[arg-type]
    assert reader(message).output is None
    assert reader(general).output is None
    assert not reader(message).output_reported
    # a reported 0 stays 0: the two are told apart
    reported = {"usage": {**message["usage"], "output_tokens": 0}}  # type: ignore[dict-item]
    assert reader(reported).output == 0


def test_openai_chat_output_not_reported_is_unknown_and_the_total_is_not_checked() -> None:
    usage = get_adapter("openai").read_usage(
        {
            "usage": {
                "prompt_tokens": 100,
                "total_tokens": 130,
                "prompt_tokens_details": {"cached_tokens": 64},
            }
        }
    )
    assert usage.output is None
    assert usage.problems == ()  # no "total_tokens != input + 0": the output is not known to be 0


def test_openai_responses_output_not_reported_is_unknown() -> None:
    usage = get_vendor("openai-responses").read_usage(
        {"usage": {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 64}}}
    )
    assert (usage.cache_read, usage.output) == (64, None)


def test_engine_output_not_reported_is_unknown() -> None:
    engine = get_vendor("engine")
    chat = engine.read_usage({"model": "Qwen/Qwen3-8B", "usage": {"prompt_tokens": 40}})
    native = engine.read_usage({"timings": {"cache_n": 30, "prompt_n": 10}})
    assert (chat.output, native.output) == (None, None)
    counted = engine.read_usage({"timings": {"cache_n": 30, "prompt_n": 10, "predicted_n": 0}})
    assert counted.output == 0


@pytest.mark.parametrize(
    ("metadata", "output"),
    [
        ({"promptTokenCount": 100}, None),  # no output count and no total: unknown
        ({"promptTokenCount": 100, "totalTokenCount": 100}, 0),  # Gemini leaves zeros out
        ({"promptTokenCount": 100, "toolUsePromptTokenCount": 5, "totalTokenCount": 125}, 20),
        ({"promptTokenCount": 100, "thoughtsTokenCount": 7, "totalTokenCount": 107}, 7),
    ],
)
def test_gemini_output_is_unknown_only_when_nothing_says_it(
    metadata: dict[str, int], output: int | None
) -> None:
    usage = get_adapter("gemini").read_usage({"usageMetadata": metadata})
    assert usage.output == output
    assert usage.problems == ()


def test_gemini_a_total_below_the_prompt_leaves_the_output_unknown_and_says_so() -> None:
    usage = get_adapter("gemini").read_usage(
        {"usageMetadata": {"promptTokenCount": 100, "totalTokenCount": 90}}
    )
    assert usage.output is None
    assert "totalTokenCount (90)" in usage.problems[0]


def test_gemini_stream_hops_without_output_counts_stay_unknown() -> None:
    from promptcache.vendors.gemini import GeminiStream

    stream = GeminiStream()
    hop = {"candidates": [{"finishReason": "CONTINUATION"}], "usageMetadata": {}}
    stream.feed({**hop, "usageMetadata": {"promptTokenCount": 50}})
    stream.feed({"candidates": [{}], "usageMetadata": {"promptTokenCount": 60}})
    assert stream.usage.output is None
    assert stream.usage.uncached_input == 110


def test_anthropic_stream_output_is_the_message_deltas_not_the_provisional_start() -> None:
    from promptcache.vendors.anthropic import AnthropicStream

    start = {
        "type": "message_start",
        "message": {
            "model": "claude-sonnet-4-6",
            "usage": {"input_tokens": 12, "cache_read_input_tokens": 4096, "output_tokens": 1},
        },
    }
    cut = AnthropicStream()
    cut.feed(start)  # the connection dropped here: the output was never reported
    assert (cut.usage.cache_read, cut.usage.output) == (4096, None)
    whole = AnthropicStream()
    whole.feed(start)
    whole.feed({"type": "message_delta", "usage": {"output_tokens": 57}})
    assert whole.usage.output == 57
