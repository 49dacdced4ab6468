"""
`report` reads the usage of each plain JSON record by a shortcut (plain dict lookups); whatever
the record holds, the shortcut must give the general reader's answer exactly, or its error.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache._errors import InputError
from promptcache.adapters import get_adapter


class _Message(dict):  # type: ignore[type-arg]
    """A JSON message that is not a plain dict: the readers take the general path for it."""


counts = st.one_of(
    st.integers(min_value=-3, max_value=50_000),
    st.sampled_from([0, 0, 1]),
    st.none(),
    st.just(True),
    st.just(2.0),
)


def _optional(fields: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Each field present or absent."""
    return st.fixed_dictionaries({}, optional=fields)


creations = st.one_of(
    st.none(),
    _optional(
        {
            "ephemeral_5m_input_tokens": counts,
            "ephemeral_1h_input_tokens": counts,
            "ephemeral_24h_input_tokens": counts,  # a key the reader does not know: ignored
        }
    ),
    st.just("5m"),
)
usages = _optional(
    {
        "input_tokens": counts,
        "output_tokens": counts,
        "cache_creation_input_tokens": counts,
        "cache_read_input_tokens": counts,
        "cache_creation": creations,
        "service_tier": st.just("standard"),
        "server_tool_use": st.sampled_from([None, {}, {"web_search_requests": 1}]),
        "iterations": st.sampled_from([None, []]),
    }
)
# The common form, the shortcut's: counts that add up, with and without a TTL split.
common = st.builds(
    lambda read, five, hour, split: {
        "input_tokens": 12,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": five + hour,
        **(
            {
                "cache_creation": {
                    "ephemeral_5m_input_tokens": five,
                    "ephemeral_1h_input_tokens": hour,
                }
            }
            if split
            else {}
        ),
        "output_tokens": 90,
    },
    st.integers(0, 9_000),
    st.one_of(st.just(0), st.integers(1, 9_000)),  # a zero in the split is left out of it
    st.one_of(st.just(0), st.integers(1, 9_000)),
    st.booleans(),
)
messages = st.builds(
    lambda usage, model, diagnostics: {
        "usage": usage,
        **({} if model is None else {"model": model}),
        **({} if diagnostics is None else {"diagnostics": diagnostics}),
    },
    st.one_of(usages, common),
    st.sampled_from([None, "claude-sonnet-4-6", 7]),
    st.sampled_from([None, None, None, {"cache_miss_reason": None}]),
)


def _read(message: Any, vendor: str = "anthropic") -> Any:
    try:
        return get_adapter(vendor).read_usage(message)
    except InputError as exc:
        return ("InputError", str(exc))


@settings(max_examples=400, deadline=None)
@given(messages)
def test_anthropic_json_reads_as_the_general_reader_does(message: dict[str, Any]) -> None:
    general = _Message(message)
    if isinstance(message.get("usage"), dict):
        general["usage"] = _Message(message["usage"])
    assert _read(message) == _read(general)


def test_a_ttl_split_that_adds_up_is_read_by_the_shortcut() -> None:
    """The full-content log's usage (a `cache_creation` split) no longer takes the slow path."""
    from promptcache.vendors.anthropic import _plain_usage

    usage = {
        "input_tokens": 12,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 900,
        "cache_creation": {"ephemeral_5m_input_tokens": 900, "ephemeral_1h_input_tokens": 0},
        "output_tokens": 90,
    }
    plain = _plain_usage({"usage": usage})
    assert plain is not None
    assert dict(plain.cache_write_by_ttl) == {"5m": 900}
    # a split that does not add up is the general reader's: it words the problem
    assert _plain_usage({"usage": {**usage, "cache_creation_input_tokens": 901}}) is None


counts_ok = st.one_of(st.just(0), st.integers(1, 9_000))
chat_details = st.one_of(
    st.none(),
    _optional(
        {"cached_tokens": counts, "cache_write_tokens": counts, "created_cache_tokens": counts}
    ),
    st.just("cached"),
)
chat_usages = st.one_of(
    _optional(
        {
            "prompt_tokens": counts,
            "completion_tokens": counts,
            "total_tokens": counts,
            "prompt_tokens_details": chat_details,
        }
    ),
    # the common form: counts that add up, as a gateway's log of OpenAI calls holds them
    st.builds(
        lambda prompt, read, output, written: {
            "prompt_tokens": prompt + read + (written[1] if written else 0),
            "completion_tokens": output,
            "total_tokens": prompt + read + (written[1] if written else 0) + output,
            **(
                {}
                if written == ("absent", 0)
                else {
                    "prompt_tokens_details": {
                        "cached_tokens": read,
                        "audio_tokens": 0,
                        **({written[0]: written[1]} if written else {}),
                    }
                }
            ),
        },
        st.integers(0, 9_000),
        st.one_of(st.just(0), st.integers(1, 9_000)),
        st.integers(0, 500),
        # GPT-5.6's and vLLM's names for the tokens written, or no details at all
        st.one_of(
            st.none(),
            st.tuples(st.sampled_from(["cache_write_tokens", "created_cache_tokens"]), counts_ok),
            st.just(("absent", 0)),
        ),
    ),
)
chat_responses = st.builds(
    lambda usage, model, timings, bare: {
        **(usage if bare else {"usage": usage}),
        **({} if model is None else {"model": model}),
        **({} if timings is None else {"timings": timings}),
    },
    chat_usages,
    st.sampled_from([None, "gpt-4.1-2025-04-14", 7]),
    st.sampled_from([None, None, {"cache_n": 12}]),
    st.booleans(),
)


@settings(max_examples=400, deadline=None)
@given(chat_responses, st.sampled_from(["openai", "engine"]))
def test_chat_completions_json_reads_as_the_general_reader_does(
    response: dict[str, Any], vendor: str
) -> None:
    general = _Message(response)
    if isinstance(response.get("usage"), dict):
        general["usage"] = _Message(response["usage"])
    assert _read(response, vendor) == _read(general, vendor)


def test_a_chat_usage_in_its_common_form_is_read_by_the_shortcut() -> None:
    from promptcache.vendors._openai import _plain_chat_usage

    usage = {
        "prompt_tokens": 1_000,
        "completion_tokens": 90,
        "total_tokens": 1_090,
        "prompt_tokens_details": {"cached_tokens": 800, "audio_tokens": 0},
    }
    plain = _plain_chat_usage({"usage": usage}, "openai", "chat.completions")
    assert plain is not None and (plain.uncached_input, plain.cache_read) == (200, 800)
    wrong = {**usage, "total_tokens": 5}  # the general reader words the problem
    assert _plain_chat_usage({"usage": wrong}, "openai", "chat.completions") is None
