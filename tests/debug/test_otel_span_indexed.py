"""
Rebuilding a request from OpenLLMetry's indexed span attributes (`gen_ai.prompt.N.*`,
`llm.request.functions.N.*`): what each vendor's request becomes, and every shape the rebuild
cannot read refused by attribute name and type, never by content, never by raising.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache.debug.span_requests import span_request
from promptcache.vendors import detect_vendor

SECRET = "Zebulon Quackenbush <zebulon.q@example.org>"


def _openai_turns() -> dict[str, Any]:
    return {
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.prompt.0.role": "system",
        "gen_ai.prompt.0.content": "Be brief.",
        "gen_ai.prompt.1.role": "user",
        "gen_ai.prompt.1.content": json.dumps([{"type": "text", "text": SECRET}]),
        "gen_ai.prompt.2.role": "assistant",
        "gen_ai.prompt.2.tool_calls.0.id": "call_1",
        "gen_ai.prompt.2.tool_calls.0.name": "weather",
        "gen_ai.prompt.2.tool_calls.0.arguments": '{"city": "Oslo"}',
        "gen_ai.prompt.3.role": "tool",
        "gen_ai.prompt.3.content": "3 degrees",
        "gen_ai.prompt.3.tool_call_id": "call_1",
        "llm.request.functions.0.name": "weather",
        "llm.request.functions.0.description": "The weather.",
        "llm.request.functions.0.parameters": '{"type": "object"}',
        "llm.request.functions.1.name": "clock",
        "llm.request.functions.1.parameters": "null",  # json.dumps(None): no parameters
        "gen_ai.completion.0.content": SECRET,  # the answer: no part of the request
        "gen_ai.prompt.prompt_filter_results": "[]",  # Azure's, under the prompt prefix
    }


def test_openai_messages_tool_calls_and_tools_are_rebuilt() -> None:
    request = span_request(_openai_turns(), "openai")
    assert request.partial and request.body is not None
    assert request.body == {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": SECRET}]},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
                    }
                ],
            },
            {"role": "tool", "content": "3 degrees", "tool_call_id": "call_1"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "weather",
                    "description": "The weather.",
                    "parameters": {"type": "object"},
                },
            },
            {"type": "function", "function": {"name": "clock"}},
        ],
    }
    assert detect_vendor(request.body).name == "openai"


def test_anthropic_strings_blocks_and_tools_are_rebuilt_without_markers() -> None:
    blocks = [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
    ]
    result = [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "3", "cache_control": {}}
    ]
    attributes = {
        "gen_ai.request.model": "claude-sonnet-4-6",
        "gen_ai.request.max_tokens": 64,
        "gen_ai.prompt.0.role": "system",
        "gen_ai.prompt.0.content": "Be brief.",
        "gen_ai.prompt.1.role": "user",
        "gen_ai.prompt.1.content": SECRET,
        "gen_ai.prompt.2.role": "assistant",
        "gen_ai.prompt.2.content": json.dumps(blocks),
        "gen_ai.prompt.2.tool_calls.0.id": "toolu_1",  # repeats the block
        "gen_ai.prompt.2.tool_calls.0.name": "weather",
        "gen_ai.prompt.2.tool_calls.0.arguments": '{"city": "Oslo"}',
        "gen_ai.prompt.3.role": "user",
        "gen_ai.prompt.3.content": json.dumps(result),
        "llm.request.functions.0.name": "weather",
        "llm.request.functions.0.input_schema": '{"type": "object"}',
    }
    request = span_request(attributes, "anthropic")
    assert request.partial and request.body == {
        "model": "claude-sonnet-4-6",
        "max_tokens": 64,
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": SECRET},
            {"role": "assistant", "content": blocks},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "3"}],
            },
        ],
        "tools": [{"name": "weather", "input_schema": {"type": "object"}}],
    }
    assert detect_vendor(request.body).name == "anthropic"


def test_text_that_only_looks_like_parts_is_kept_as_text() -> None:
    for text in ("[not json", "[1, 2]", "[]", '[{"no": "type"}]'):
        attributes = {
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.prompt.0.role": "user",
            "gen_ai.prompt.0.content": text,
        }
        body = span_request(attributes, "openai").body
        assert body is not None and body["messages"] == [{"role": "user", "content": text}]


def test_the_conventions_attributes_win_over_the_indexed_ones() -> None:
    attributes = {
        **_openai_turns(),
        "gen_ai.input.messages": json.dumps(
            [{"role": "user", "parts": [{"type": "text", "content": "from the conventions"}]}]
        ),
    }
    body = span_request(attributes, "openai").body
    assert body is not None
    assert body["messages"] == [{"role": "user", "content": "from the conventions"}]


def _user(**more: Any) -> dict[str, Any]:
    return {
        "gen_ai.request.model": "claude-sonnet-4-6",
        "gen_ai.prompt.0.role": "user",
        "gen_ai.prompt.0.content": SECRET,
        **more,
    }


@pytest.mark.parametrize(
    ("attributes", "vendor", "named"),
    [
        (_user(**{"gen_ai.prompt.0.content": 7}), "openai", "gen_ai.prompt.0.content is a int"),
        (  # an OTel sequence attribute
            _user(**{"gen_ai.prompt.0.content": (SECRET, SECRET)}),
            "anthropic",
            "gen_ai.prompt.0.content is a tuple, not a string",
        ),
        (
            _user(**{"gen_ai.prompt.1.content": SECRET}),
            "openai",
            "gen_ai.prompt.1.role is missing",
        ),
        (
            _user(**{"gen_ai.prompt.2.role": "user", "gen_ai.prompt.2.content": SECRET}),
            "anthropic",
            "have no gen_ai.prompt.1.*",
        ),
        (
            _user(**{"gen_ai.prompt.first.role": "user"}),
            "openai",
            "'gen_ai.prompt.first.role' is not gen_ai.prompt.N.<field>",
        ),
        (_user(**{"gen_ai.prompt.01.role": "user"}), "openai", "is not gen_ai.prompt.N.<field>"),
        (  # a word of a prompt in the name after the prefix: named by its hash
            _user(**{"gen_ai.prompt.Zebulon.role": "user"}),
            "openai",
            "its attribute gen_ai.prompt.str of 12 chars",
        ),
        (
            _user(**{"gen_ai.prompt.0.first.Zebulon": "x"}),
            "openai",
            "its gen_ai.prompt.0.str of 13 chars",
        ),
        (
            _user(**{"gen_ai.prompt.99999999999999.role": "user"}),
            "openai",
            "is not gen_ai.prompt.N.<field>",
        ),
        (_user(**{"gen_ai.prompt.1": SECRET}), "openai", "is not gen_ai.prompt.N.<field>"),
        (  # Anthropic's legacy Text Completions prompt
            {"gen_ai.request.model": "claude-2", "gen_ai.prompt.0.user": SECRET},
            "anthropic",
            "gen_ai.prompt.0.'user' is not an attribute it reads",
        ),
        (  # a misplaced value where a field's name should be: named by its hash
            _user(**{f"gen_ai.prompt.0.{SECRET}": "x"}),
            "openai",
            "gen_ai.prompt.0.str of",
        ),
        (
            _user(**{"gen_ai.prompt.0.role": SECRET}),
            "anthropic",
            "gen_ai.prompt.0.role is str of",
        ),
        (
            _user(**{"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": None}),
            "anthropic",
            "gen_ai.prompt.0.content is missing",
        ),
        (
            _user(**{"gen_ai.prompt.0.tool_calls.0.name": "weather"}),
            "anthropic",
            "gen_ai.prompt.0 has tool calls but no content blocks",
        ),
        (
            _user(**{"gen_ai.prompt.0.tool_calls.1.name": "weather"}),
            "openai",
            "have no tool_calls.0.*",
        ),
        (  # as OpenLLMetry's OpenAI 0.54 records a base64 image: role only, nothing after
            {**_user(), "gen_ai.prompt.1.role": "user"},
            "openai",
            "gen_ai.prompt.1.content is missing",
        ),
        (  # a base64 image as OpenLLMetry's Anthropic 0.53 records it with an image uploader
            _user(
                **{
                    "gen_ai.prompt.0.content": json.dumps(
                        [
                            {"type": "text", "text": SECRET},
                            {
                                "type": "image_url",
                                "image_url": {"url": "https://x.test/t/1f/s/2e/message_0.png"},
                            },
                        ]
                    )
                }
            ),
            "anthropic",
            "gen_ai.prompt.0.content holds an image the instrumentation uploaded",
        ),
        (
            _user(**{"gen_ai.prompt.0.tool_calls.0.id": "call_1"}),
            "openai",
            "gen_ai.prompt.0.tool_calls.0.name is missing",
        ),
        (
            _user(**{"llm.request.functions.0.description": SECRET}),
            "openai",
            "llm.request.functions.0.name is missing",
        ),
        (
            _user(
                **{
                    "llm.request.functions.0.name": "weather",
                    "llm.request.functions.0.parameters": SECRET,
                }
            ),
            "openai",
            "llm.request.functions.0.parameters is not valid JSON",
        ),
        (
            _user(
                **{
                    "llm.request.functions.0.name": "weather",
                    "llm.request.functions.0.parameters": "{}",
                    "llm.request.functions.0.input_schema": "{}",
                }
            ),
            "anthropic",
            "both .parameters and .input_schema",
        ),
        (
            _user(**{"llm.request.functions.0.tool_calls.0.name": "weather"}),
            "openai",
            "llm.request.functions.0.'tool_calls.0.name' is not an attribute it reads",
        ),
        (
            {"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": SECRET},
            "openai",
            "it carries gen_ai.prompt.N but no gen_ai.request.model",
        ),
        (  # Azure's filter results alone: no message to rebuild
            {"gen_ai.request.model": "gpt-4o", "gen_ai.prompt.prompt_filter_results": "[]"},
            "openai",
            "it carries no gen_ai.prompt.N message attributes",
        ),
        (_user(), "gemini", "does not rebuild from spans"),
        (_user(), "", "an unnamed vendor"),
    ],
)
def test_what_cannot_be_rebuilt_is_named_without_content(
    attributes: dict[str, Any], vendor: str, named: str
) -> None:
    request = span_request(attributes, vendor)
    assert request.body is None and named in request.reason, request.reason
    assert "Quackenbush" not in request.reason and "zebulon" not in request.reason
    assert "Zebulon" not in request.reason


_KEYS = st.sampled_from(
    [
        "gen_ai.prompt.0.role",
        "gen_ai.prompt.0.content",
        "gen_ai.prompt.1.role",
        "gen_ai.prompt.1.content",
        "gen_ai.prompt.1.tool_call_id",
        "gen_ai.prompt.1.tool_calls.0.name",
        "gen_ai.prompt.1.tool_calls.0.arguments",
        "gen_ai.prompt.x",
        "llm.request.functions.0.name",
        "llm.request.functions.0.parameters",
        "llm.request.functions.0.input_schema",
        "gen_ai.request.model",
        "gen_ai.request.max_tokens",
    ]
)
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.sampled_from(["user", "assistant", "system", "tool", "m", "null", "{}", "[]", "[{}]"]),
    st.just(SECRET),
    st.just(json.dumps([{"type": "text", "text": SECRET}])),
    st.just(json.dumps([{"type": SECRET}, 3])),
    st.lists(st.sampled_from([SECRET, "a", 1]), max_size=3).map(tuple),
)


@settings(max_examples=300, deadline=None)
@given(
    attributes=st.dictionaries(_KEYS, _VALUES, max_size=10),
    vendor=st.sampled_from(["openai", "anthropic"]),
)
def test_any_shape_gives_a_request_or_a_reason_without_content(
    attributes: dict[str, Any], vendor: str
) -> None:
    attributes["gen_ai.prompt.0.role"] = attributes.get("gen_ai.prompt.0.role", "user")
    request = span_request(attributes, vendor)
    if request.body is None:
        assert request.reason and "Quackenbush" not in request.reason
    else:
        assert request.partial and isinstance(request.body["messages"], list)
        json.dumps(request.body)  # a request of JSON values, as the monitor reads


def _processed(spans: list[dict[str, Any]]) -> tuple[Any, list[Any]]:
    """A MonitorSpanProcessor that has seen an Anthropic span with usage for each of `spans`,
    and the invalidations its monitor raised."""
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider

    import promptcache
    from promptcache.debug.otel import MonitorSpanProcessor

    provider = TracerProvider()
    events: list[Any] = []
    processor = MonitorSpanProcessor(
        promptcache.Monitor(on_invalidation=events.append, metrics=False)
    )
    provider.add_span_processor(processor)
    usage = {
        "gen_ai.system": "Anthropic",
        "llm.request.type": "completion",
        "gen_ai.usage.input_tokens": 1850,
        "gen_ai.usage.cache_read_input_tokens": 0,
        "gen_ai.usage.cache_creation_input_tokens": 1800,
    }
    for attributes in spans:
        span = provider.get_tracer("t").start_span("anthropic.chat", attributes=usage | attributes)
        span.end()
    return processor, events


def test_an_odd_shape_is_said_once_and_counted_whatever_its_index(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Three spans, each with a gap at another index: hit rates only, said once, counted 3 times."""
    caplog.set_level(logging.DEBUG, logger="promptcache")
    spans = []
    for gap in (1, 2, 3):
        attributes = _user(**{f"gen_ai.prompt.{gap + 1}.role": "user"})
        attributes[f"gen_ai.prompt.{gap + 1}.content"] = SECRET
        for n in range(1, gap):
            attributes |= {f"gen_ai.prompt.{n}.role": "user", f"gen_ai.prompt.{n}.content": "a"}
        spans.append(attributes)
    processor, events = _processed(spans)
    said = [r.getMessage() for r in caplog.records if r.name.startswith("promptcache")]
    assert sum("hit rates only" in s for s in said) == 1
    assert processor.unjudged == {
        "its gen_ai.prompt.N attributes have no gen_ai.prompt.*.*: an item the span does not "
        "carry": 3
    }
    assert events == [] and processor.monitor.stats()["observations"] == 0
    assert processor.hit_rates()[("anthropic", "claude-sonnet-4-6")].spans == 3
    assert "Quackenbush" not in "".join(said)


def test_a_reason_ending_at_an_index_is_said_once_and_counted_whatever_the_index(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A reason naming `gen_ai.prompt.N` itself (not one of its fields) is one reason too: said
    once, counted under one key, whatever N is."""
    caplog.set_level(logging.DEBUG, logger="promptcache")
    spans = []
    for index in (0, 1, 2):
        attributes = _user()
        for n in range(1, index + 1):
            attributes |= {f"gen_ai.prompt.{n}.role": "user", f"gen_ai.prompt.{n}.content": "a"}
        attributes[f"gen_ai.prompt.{index}.tool_calls.0.name"] = "weather"
        spans.append(attributes)
    processor, events = _processed(spans)
    said = [r.getMessage() for r in caplog.records if r.name.startswith("promptcache")]
    assert sum("hit rates only" in s for s in said) == 1
    assert processor.unjudged == {
        "its gen_ai.prompt.* has tool calls but no content blocks to hold them": 3
    }
    assert events == []


def test_a_reason_naming_a_value_by_its_hash_is_said_once_and_counted_whatever_the_value(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A reason naming a refused value by its type, length and hash is one reason whatever the
    value: a different misplaced text in every span was said and counted anew at each span (a
    warning per span and a count that grows without bound in a long-running service)."""
    caplog.set_level(logging.DEBUG, logger="promptcache")
    spans = [_user(**{"gen_ai.prompt.0.role": f"{SECRET} {n}" * (n + 1)}) for n in range(3)]
    processor, events = _processed(spans)
    said = [r.getMessage() for r in caplog.records if r.name.startswith("promptcache")]
    assert sum("hit rates only" in s for s in said) == 1
    assert processor.unjudged == {
        "its gen_ai.prompt.*.role is str of * chars, sha256 *, not an Anthropic role": 3
    }
    assert "Quackenbush" not in "".join(said) and events == []


def test_an_embeddings_span_of_the_indexed_releases_is_no_model_call(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """OpenLLMetry's OpenAI 0.54 marks an embeddings span by `llm.request.type` only (no
    gen_ai.operation.name) and records its input as gen_ai.prompt.0.content: it was counted in
    the hit rates as a call and warned about as a prompt missing its role."""
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider

    import promptcache
    from promptcache.debug.otel import MonitorSpanProcessor, span_usage

    caplog.set_level(logging.DEBUG, logger="promptcache")
    attributes = {  # as the 0.54 instrumentation wrote them for embeddings.create
        "llm.request.type": "embedding",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "text-embedding-3-small",
        "llm.is_streaming": False,
        "gen_ai.prompt.0.content": SECRET,
        "gen_ai.response.model": "text-embedding-3-small",
        "llm.usage.total_tokens": 5,
        "gen_ai.usage.input_tokens": 5,
        "gen_ai.usage.cache_read_input_tokens": 0,
    }
    assert span_usage(attributes) is None
    provider = TracerProvider()
    processor = MonitorSpanProcessor(promptcache.Monitor(metrics=False))
    provider.add_span_processor(processor)
    provider.get_tracer("t").start_span("openai.embeddings", attributes=attributes).end()
    assert processor.hit_rates() == {} and not processor.unjudged
    assert not [r for r in caplog.records if r.name.startswith("promptcache")]
