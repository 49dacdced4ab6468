"""OpenAI Chat Completions and Responses: regimes, breakpoints, cache key, usage, streams."""

from __future__ import annotations

import json
from typing import Any

import pytest

from promptcache import (
    Doc,
    ImagePart,
    InputError,
    Message,
    Prompt,
    TextPart,
    Tool,
    ToolResult,
    ToolUse,
)
from promptcache.adapters import get_adapter
from promptcache.adapters.openai import cache_key, supports_breakpoints

BIG = "Refunds need a receipt and the original card. " * 200


def prompt(*history: Message) -> Prompt:
    return (
        Prompt(volatile="ignore")
        .add_tools(Tool(name="lookup", description="find " * 300))
        .add_system(BIG)
        .add_docs(Doc(text=BIG, title="Manual"))
        .add_history(*history)
        .with_tail("q")
    )


def breakpoints(kwargs: dict[str, Any]) -> list[str]:
    text = json.dumps(kwargs)
    return [part for part in text.split('"prompt_cache_breakpoint"')[1:]]


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-5.6-terra", True),
        ("gpt-5.6", True),
        ("gpt-6", True),
        ("gpt-5.10-mini", True),
        ("gpt-5.5", False),
        ("gpt-5.4-mini", False),
        ("gpt-4o", False),
        ("o3", False),
    ],
)
def test_regime_by_model(model: str, expected: bool) -> None:
    assert supports_breakpoints(model) is expected


def test_pre56_sends_only_the_cache_key() -> None:
    kwargs = get_adapter("openai").to_request(prompt(), model="gpt-5.4")
    assert "prompt_cache_options" not in kwargs
    assert breakpoints(kwargs) == []
    assert kwargs["prompt_cache_key"].startswith("pc1-")


def test_pre56_refuses_gpt56_options() -> None:
    with pytest.raises(InputError, match=r"gpt-5\.6 and later"):
        get_adapter("openai").to_request(prompt(), model="gpt-5.4", cache_mode="explicit")


def test_56_breakpoints_on_content_parts_never_on_tools() -> None:
    kwargs = get_adapter("openai").to_request(prompt(Message.user("a")), model="gpt-5.6-terra")
    assert all("prompt_cache_breakpoint" not in json.dumps(t) for t in kwargs["tools"])
    system = kwargs["messages"][0]
    assert system["role"] == "system"
    assert [p.get("prompt_cache_breakpoint") for p in system["content"]] == [
        {"mode": "explicit"},
        {"mode": "explicit"},
    ]
    assert kwargs["messages"][1]["content"][0]["prompt_cache_breakpoint"] == {"mode": "explicit"}
    assert "prompt_cache_breakpoint" not in json.dumps(kwargs["messages"][-1])  # not on the tail
    assert kwargs["prompt_cache_options"] == {"mode": "implicit"}


def test_implicit_mode_leaves_room_for_the_implicit_breakpoint() -> None:
    history = [Message.user(f"m{i}") for i in range(3)]
    implicit = get_adapter("openai").to_request(prompt(*history), model="gpt-5.6")
    explicit = get_adapter("openai").to_request(
        prompt(*history), model="gpt-5.6", cache_mode="explicit"
    )
    assert len(breakpoints(implicit)) == 3
    assert len(breakpoints(explicit)) == 3  # system, docs, end: tools cannot be marked
    assert explicit["prompt_cache_options"] == {"mode": "explicit"}


def test_request_ttl_choices_per_endpoint() -> None:
    with pytest.raises(InputError, match=r"not offered by chat\.completions"):
        get_adapter("openai").to_request(prompt(), model="gpt-5.6", cache_ttl="12h")
    kwargs = get_adapter("openai-responses").to_request(prompt(), model="gpt-5.6", cache_ttl="12h")
    assert kwargs["prompt_cache_options"] == {"mode": "implicit", "ttl": "12h"}


def test_responses_puts_system_in_a_developer_message_not_instructions() -> None:
    kwargs = get_adapter("openai-responses").to_request(
        prompt(Message.user("a")), model="gpt-5.6-luna"
    )
    assert "instructions" not in kwargs
    assert kwargs["input"][0]["role"] == "developer"
    assert kwargs["input"][0]["content"][1]["text"].startswith("# Manual")
    assert (
        kwargs["tools"][0]["type"] == "function"
        and "prompt_cache_breakpoint" not in kwargs["tools"][0]
    )


def test_responses_never_marks_assistant_output() -> None:
    kwargs = get_adapter("openai-responses").to_request(
        prompt(Message.user("a"), Message.assistant("b")), model="gpt-5.6"
    )
    assistant = kwargs["input"][2]
    assert assistant == {"role": "assistant", "content": "b"}
    assert kwargs["input"][1]["content"][0]["prompt_cache_breakpoint"] == {"mode": "explicit"}


def test_tool_calls_and_results_render_per_endpoint() -> None:
    turns = (
        Message.user("find 7"),
        Message.assistant([ToolUse(id="c1", name="lookup", input={"id": "7"})]),
        Message.user([ToolResult(tool_use_id="c1", content="shipped")]),
    )
    chat = get_adapter("openai").to_request(prompt(*turns), model="gpt-5.6")
    assert chat["messages"][2]["tool_calls"][0]["function"] == {
        "name": "lookup",
        "arguments": '{"id": "7"}',
    }
    tool_message = chat["messages"][3]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "c1"
    assert tool_message["content"][0]["prompt_cache_breakpoint"] == {"mode": "explicit"}
    responses = get_adapter("openai-responses").to_request(prompt(*turns), model="gpt-5.6")
    kinds = [item.get("type", item.get("role")) for item in responses["input"]]
    assert kinds == ["developer", "user", "function_call", "function_call_output", "user"]
    assert responses["input"][3]["output"][0]["prompt_cache_breakpoint"] == {"mode": "explicit"}


def test_images_render_as_data_urls() -> None:
    message = Message.user([ImagePart(media_type="image/png", data="aGk="), TextPart(text="what?")])
    chat = get_adapter("openai").to_request(prompt(message), model="gpt-5.4")
    assert chat["messages"][1]["content"][0] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,aGk="},
    }


# -- prompt_cache_key (peers I1-I4) ---------------------------------------------------------


def test_cache_key_is_stable_across_turns_and_never_holds_text() -> None:
    one = prompt(Message.user("a"))
    two = one.commit_tail("answer").with_tail("next")
    assert cache_key(one, "gpt-5.6") == cache_key(two, "gpt-5.6")
    assert "Refunds" not in cache_key(one, "gpt-5.6") and len(cache_key(one, "gpt-5.6")) == 36


def test_cache_key_changes_with_model_tenant_and_static_prefix() -> None:
    keys = {
        cache_key(prompt(), "gpt-5.6"),
        cache_key(prompt(), "gpt-5.6-luna"),
        cache_key(prompt(), "gpt-5.6", tenant="acme"),
        cache_key(prompt().add_system("more"), "gpt-5.6"),
    }
    assert len(keys) == 4


def test_explicit_cache_key_wins() -> None:
    kwargs = get_adapter("openai").to_request(prompt(), model="gpt-5.6", prompt_cache_key="mine")
    assert kwargs["prompt_cache_key"] == "mine"


# -- usage and streams --------------------------------------------------------------------


def test_chat_sdk_object() -> None:
    from openai.types.chat import ChatCompletion

    completion = ChatCompletion.model_validate(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-5.6",
            "choices": [],
            "usage": {
                "prompt_tokens": 6156,
                "completion_tokens": 5,
                "total_tokens": 6161,
                "prompt_tokens_details": {"cached_tokens": 4096, "cache_write_tokens": 2048},
            },
        }
    )
    usage = get_adapter("openai").read_usage(completion)
    assert (usage.uncached_input, usage.cache_read, usage.cache_write, usage.output) == (
        12,
        4096,
        2048,
        5,
    )
    assert usage.model == "gpt-5.6"


def test_chat_stream_needs_the_usage_chunk() -> None:
    acc = get_adapter("openai").accumulator()
    acc.feed({"choices": [{"delta": {"content": "x"}}], "usage": None})
    with pytest.raises(InputError, match="include_usage"):
        _ = acc.usage
    acc.feed(
        {
            "choices": [],
            "usage": {
                "prompt_tokens": 10,
                "completion_tokens": 2,
                "prompt_tokens_details": {"cached_tokens": 8},
            },
        }
    )
    assert acc.usage.cache_read == 8


def test_stream_true_asks_for_usage() -> None:
    kwargs = get_adapter("openai").to_request(prompt(), model="gpt-5.4", stream=True)
    assert kwargs["stream_options"] == {"include_usage": True}
    mine = get_adapter("openai").to_request(
        prompt(), model="gpt-5.4", stream=True, stream_options={"include_usage": False}
    )
    assert mine["stream_options"] == {"include_usage": False}


def test_responses_stream_reads_response_completed() -> None:
    acc = get_adapter("openai-responses").accumulator()
    acc.feed({"type": "response.created", "response": {"usage": None}})
    with pytest.raises(InputError, match=r"response\.completed"):
        _ = acc.usage
    acc.feed(
        {
            "type": "response.completed",
            "response": {
                "model": "gpt-5.6",
                "usage": {
                    "input_tokens": 100,
                    "output_tokens": 3,
                    "total_tokens": 103,
                    "input_tokens_details": {
                        "cached_tokens": 64,
                        "cache_write_tokens": 30,
                        "cache_write_tokens_details": {"ttl_30m_tokens": 30, "ttl_12h_tokens": 0},
                    },
                },
            },
        }
    )
    usage = acc.usage
    assert (usage.uncached_input, usage.cache_read, usage.cache_write) == (6, 64, 30)
    assert usage.cache_write_by_ttl == {"30m": 30}


def test_responses_diagnostics_kinds() -> None:
    adapter = get_adapter("openai-responses")
    base = {
        "usage": {
            "input_tokens": 1,
            "output_tokens": 1,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        }
    }
    hit = adapter.read_usage({**base, "prompt_cache_diagnostics": {"type": "cache_hit"}})
    assert hit.diagnosis is not None and hit.diagnosis.reason == "cache_hit"
    assert adapter.read_usage(base).diagnosis is None


def test_responses_only_options_are_refused_on_chat() -> None:
    with pytest.raises(InputError, match="Responses-only"):
        get_adapter("openai").to_request(prompt(), model="gpt-5.6", prewarm=True)
    kwargs = get_adapter("openai-responses").prewarm_request(prompt(), model="gpt-5.6")  # type: ignore[attr-defined]
    assert kwargs["prompt_cache_options"] == {"mode": "implicit", "prewarm": True}


def test_responses_keeps_text_before_the_call_it_precedes() -> None:
    from promptcache import TextPart, ToolUse

    turn = Message.assistant([TextPart(text="Looking."), ToolUse(id="c1", name="lookup", input={})])
    kwargs = get_adapter("openai-responses").to_request(
        Prompt().add_history(Message.user("where?"), turn).with_tail("thanks"), model="gpt-5.4"
    )
    kinds = [item.get("type", item.get("role")) for item in kwargs["input"]]
    assert kinds == ["user", "assistant", "function_call", "user"]
