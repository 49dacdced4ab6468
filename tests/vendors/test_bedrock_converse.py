"""
Bedrock Converse: cachePoint blocks read as markers, usage arithmetic, the stream's metadata
event, detection against Anthropic's format, and the requests Bedrock refuses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptcache import InputError, Message, Prompt, Tool, diff, get_adapter
from promptcache.cli import main
from promptcache.vendors import detect_response_vendor, detect_vendor, get_vendor
from promptcache.vendors.bedrock_converse import (
    ConverseStream,
    cache_point_problems,
    check_cache_points,
    one_hour_ttl,
    read_usage,
)

MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
LONG = "You are the support agent for Shipwell. Answer from the policy below. " * 200


def _request(question: str, *, history: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A Converse request as a caller (or Strands, or pydantic-ai) writes it for boto3."""
    return {
        "modelId": MODEL,
        "system": [{"text": LONG}, {"cachePoint": {"type": "default"}}],
        "messages": [
            *(history or []),
            {"role": "user", "content": [{"text": question}]},
        ],
        "inferenceConfig": {"maxTokens": 256},
    }


def test_a_converse_body_is_detected_as_converse_not_anthropic() -> None:
    request = _request("Where is my order?")
    assert detect_vendor(request).name == "bedrock-converse"
    # the HTTP body (the model is in the URL, not the body) reads the same
    body = {k: v for k, v in request.items() if k != "modelId"}
    assert detect_vendor(body).name == "bedrock-converse"
    # and Anthropic's own shape is not taken for Converse
    anthropic = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 10,
        "system": [{"type": "text", "text": "x"}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    }
    assert detect_vendor(anthropic).name == "anthropic"
    assert get_vendor("bedrock-converse").misfit(anthropic) is not None


def test_a_converse_response_is_detected() -> None:
    response = {"usage": {"inputTokens": 3, "outputTokens": 1, "totalTokens": 4}}
    assert detect_response_vendor(response).name == "bedrock-converse"


def test_diff_of_two_converse_turns_reads_the_cache_point() -> None:
    # The failure: diff read such a body as Anthropic's and said "nothing cached".
    a = _request("Where is my order?")
    b = _request("Where is my order?", history=[])
    b["messages"] = [
        {"role": "user", "content": [{"text": "Where is my order?"}]},
        {"role": "assistant", "content": [{"text": "It shipped."}]},
        {"role": "user", "content": [{"text": "And the refund?"}]},
    ]
    result = diff(a, b)
    assert result.vendor == "bedrock-converse"
    assert result.cause == "none" and not result.invalidated
    changed = _request("Where is my order?")
    changed["system"] = [{"text": "Today is 2026-12-01. " + LONG}, {"cachePoint": {}}]
    broke = diff(a, changed)
    assert broke.invalidated and broke.layer == "system" and broke.path == "system[0].text"
    assert broke.cause == "timestamp"


def test_a_cache_point_is_not_content_moving_it_loses_nothing() -> None:
    # pydantic-ai and Strands put the last cache point after the newest message: it moves
    # every turn, and the prefix before it is unchanged
    a = _request("Q1")
    a["messages"][0]["content"].append({"cachePoint": {"type": "default"}})
    b = _request("Q1")
    b["messages"] += [
        {"role": "assistant", "content": [{"text": "A1"}]},
        {"role": "user", "content": [{"text": "Q2"}, {"cachePoint": {"type": "default"}}]},
    ]
    assert not diff(a, b).invalidated


def test_pydantic_ai_4121_a_transient_message_moves_the_cache_point() -> None:
    # pydantic-ai#4121: when the last message had no text, a workaround appended an empty user
    # message that was never persisted; the cache point sat after it, so every turn's entry
    # ended on content the next request did not repeat.
    turn1 = _request("Q1")
    turn1["messages"] += [
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}],
        },
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": "t1", "content": [{"json": {}}]}}],
        },
        {"role": "user", "content": [{"text": " "}, {"cachePoint": {"type": "default"}}]},
    ]
    turn2 = _request("Q1")
    turn2["messages"] += [
        turn1["messages"][1],
        turn1["messages"][2],  # the transient message is gone
        {"role": "assistant", "content": [{"text": "done"}]},
        {"role": "user", "content": [{"text": "Q2"}, {"cachePoint": {"type": "default"}}]},
    ]
    result = diff(turn1, turn2)
    assert (
        result.invalidated and result.layer == "messages" and result.path.startswith("messages[3]")
    )
    assert result.tokens_lost > 0, result.detail


def test_usage_input_excludes_cache_and_ttl_split() -> None:
    usage = read_usage(
        {
            "usage": {
                "inputTokens": 18,
                "outputTokens": 386,
                "totalTokens": 7906,
                "cacheReadInputTokens": 0,
                "cacheWriteInputTokens": 7502,
                "cacheDetails": [
                    {"ttl": "1h", "inputTokens": 7000},
                    {"ttl": "5m", "inputTokens": 502},
                ],
            }
        }
    )
    assert (usage.uncached_input, usage.cache_write, usage.cache_read) == (18, 7502, 0)
    assert usage.total_input == 7520 and usage.output == 386
    assert usage.cache_write_by_ttl == {"1h": 7000, "5m": 502}
    assert usage.vendor == "bedrock-converse" and not usage.problems


def test_usage_without_cache_fields_is_unknown_not_zero() -> None:
    usage = read_usage({"usage": {"inputTokens": 900, "outputTokens": 3, "totalTokens": 903}})
    assert usage.cache_read is None and usage.cache_write is None


def test_a_ttl_split_that_disagrees_is_a_problem() -> None:
    usage = read_usage(
        {
            "inputTokens": 1,
            "outputTokens": 1,
            "cacheWriteInputTokens": 10,
            "cacheDetails": [{"ttl": "5m", "inputTokens": 4}],
        }
    )
    assert usage.problems and "cacheDetails" in usage.problems[0]


def test_stream_usage_comes_from_the_metadata_event() -> None:
    stream = ConverseStream()
    for event in (
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"delta": {"text": "hi"}, "contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
        {
            "metadata": {
                "usage": {"inputTokens": 4, "outputTokens": 2, "cacheReadInputTokens": 1300},
                "metrics": {"latencyMs": 10},
            }
        },
    ):
        stream.feed(event)
    assert (stream.usage.cache_read, stream.usage.uncached_input) == (1300, 4)
    assert stream.usage.endpoint == "converse_stream"
    cut = ConverseStream()
    cut.feed({"messageStart": {"role": "assistant"}})
    with pytest.raises(InputError, match="before its metadata event"):
        _ = cut.usage


def _points(*ttls: str | None) -> dict[str, Any]:
    def point(ttl: str | None) -> dict[str, Any]:
        return {"cachePoint": {"type": "default", **({"ttl": ttl} if ttl else {})}}

    request = _request("Q")
    request["system"] = [b for t in ttls for b in ({"text": "x"}, point(t))]
    return request


def test_more_than_four_cache_points_are_refused_with_the_fix() -> None:
    problems = cache_point_problems(_points(None, None, None, None, None))
    assert len(problems) == 1 and "5 cache points" in problems[0] and "Fix" in problems[0]
    assert cache_point_problems(_points(None, None, None, None)) == []


def test_a_one_hour_point_after_a_five_minute_one_is_refused() -> None:
    assert cache_point_problems(_points("1h", "1h", None)) == []
    problems = cache_point_problems(_points(None, "1h"))
    assert len(problems) == 1 and "system[3]" in problems[0] and "system[1]" in problems[0]
    assert "ValidationException" in problems[0]
    # the order runs over the whole walk: a 5m tools point before a 1h system point
    # (strands-agents#3758)
    request = _points("1h")
    request["toolConfig"] = {
        "tools": [
            {"toolSpec": {"name": "f", "inputSchema": {"json": {}}}},
            {"cachePoint": {"type": "default"}},
        ]
    }
    assert "toolConfig.tools[1]" in cache_point_problems(request)[0]


def test_placements_bedrock_refuses() -> None:
    request = _request("Q")
    request["messages"] = [
        {"role": "user", "content": [{"cachePoint": {"type": "default"}}, {"text": "Q"}]},
        {
            "role": "assistant",
            "content": [
                {"reasoningContent": {"reasoningText": {"text": "t", "signature": "s"}}},
                {"cachePoint": {"type": "default"}},
            ],
        },
    ]
    problems = cache_point_problems(request)
    assert any("messages[0].content[0]" in p and "no block before" in p for p in problems)
    assert any("after a reasoningContent block" in p for p in problems)
    bad_ttl = _points("24h")
    assert "not one Bedrock takes" in cache_point_problems(bad_ttl)[0]
    with pytest.raises(InputError, match="exceed Bedrock's 4"):
        check_cache_points(_points(None, None, None, None, None))


def test_one_hour_ttl_by_model() -> None:
    assert one_hour_ttl("anthropic.claude-sonnet-4-5-20250929-v1:0") is True
    assert one_hour_ttl("global.anthropic.claude-opus-4-6-v1") is True
    assert one_hour_ttl("anthropic.claude-sonnet-4-20250514-v1:0") is False
    assert one_hour_ttl("us.amazon.nova-pro-v1:0") is False
    assert one_hour_ttl("meta.llama4-maverick-17b-instruct-v1:0") is None
    assert "only 5 minutes" in cache_point_problems(_points("1h"), one_hour=False)[0]


def test_inspect_says_what_bedrock_would_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "converse.json"
    path.write_text(json.dumps(_points(None, "1h")))
    assert main(["inspect", str(path), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["vendor"] == "bedrock-converse"
    assert [p["path"] for p in report["markers"]["present"]] == ["system[1]", "system[3]"]
    assert any("ValidationException" in p for p in report["markers"]["problems"])
    path.write_text(json.dumps(_points("1h", None)))
    assert main(["inspect", str(path), "--format", "json"]) == 0


def test_two_names_of_one_model_are_a_possible_model_change() -> None:
    a = _request("Q")
    b = {**_request("Q"), "modelId": "global.anthropic.claude-sonnet-4-5-20250929-v1:0"}
    result = diff(a, b)
    assert result.cause == "model_changed" and result.path == "modelId"
    assert result.detail.startswith("possibly model_changed") and "not document" in result.detail
    other = {**_request("Q"), "modelId": "us.anthropic.claude-haiku-4-5-20251001-v1:0"}
    assert diff(a, other).detail.startswith("the model changed")


# -- the adapter ----------------------------------------------------------------------------


def _prompt() -> Prompt:
    return (
        Prompt()
        .add_tools(
            Tool(name="lookup", description="Find an order", input_schema={"type": "object"})
        )
        .add_system(LONG)
        .add_history(Message.user("Where is SH-1?"), Message.assistant("It shipped."))
        .with_tail("And the refund?")
    )


def test_the_adapter_writes_cache_points_after_the_blocks_it_marks() -> None:
    kwargs = get_adapter("bedrock").to_request(_prompt(), model=MODEL)
    assert kwargs["modelId"] == MODEL and kwargs["inferenceConfig"] == {"maxTokens": 1024}
    # one cache point, at the end of the shared prefix: the system end and the turn end lie
    # fewer than the minimum's tokens from it, and Bedrock counts the minimum per cache point
    assert kwargs["system"][-1] == {"text": LONG}
    assert kwargs["messages"][1]["content"][-1] == {"cachePoint": {"type": "default"}}  # no ttl
    assert "cachePoint" not in kwargs["messages"][-1]["content"][-1]
    assert kwargs["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"] == {
        "json": {"type": "object"}
    }
    check_cache_points(kwargs)  # what it writes Bedrock takes
    long = get_adapter("bedrock").to_request(_prompt(), model=MODEL, ttl="1h")
    assert long["messages"][1]["content"][-1] == {"cachePoint": {"type": "default", "ttl": "1h"}}


def test_the_adapter_refuses_a_one_hour_ttl_the_model_does_not_have() -> None:
    with pytest.raises(InputError, match=r"1-hour cache .* not anthropic\.claude-sonnet-4-2025"):
        get_adapter("bedrock").to_request(
            _prompt(), model="us.anthropic.claude-sonnet-4-20250514-v1:0", ttl="1h"
        )


def test_an_application_profile_arn_is_said_not_guessed() -> None:
    # pydantic-ai#4381: caching never took effect with an inference-profile ARN as the model
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"
    adapter = get_adapter("bedrock")
    with pytest.raises(InputError, match=r"cannot tell which model .* base_model="):
        adapter.to_request(_prompt(), model=arn)
    with pytest.raises(InputError, match="cannot tell which model"):
        adapter.min_cacheable_tokens(arn)
    kwargs = adapter.to_request(_prompt(), model=arn, base_model="anthropic.claude-sonnet-4-6")
    points = [b for m in kwargs["messages"] for b in m["content"] if "cachePoint" in b]
    assert kwargs["modelId"] == arn and points  # planned with Sonnet 4.6's minimum


def test_bedrock_minimums_differ_from_anthropics() -> None:
    adapter = get_adapter("bedrock")
    # AWS samples: Sonnet 4.6 caches from 2,048 tokens on Bedrock (1,024 on Anthropic's API)
    assert adapter.min_cacheable_tokens("us.anthropic.claude-sonnet-4-6") == 2048
    assert get_adapter("anthropic").min_cacheable_tokens("claude-sonnet-4-6") == 1024
    assert adapter.min_cacheable_tokens("apac.anthropic.claude-haiku-4-5-20251001-v1:0") == 4096


def test_the_planner_refuses_a_ttl_order_bedrock_refuses() -> None:
    from promptcache import Layer

    prompt = (
        Prompt()
        .add_system(LONG)
        # a history past the minimum: Bedrock counts it per cache point, since the system's
        .add_history(Message.user("a " * 1500), Message.assistant("b " * 1500))
        .with_tail("q")
    )
    with pytest.raises(InputError, match=r"'1h' after a '5m' marker at system\[0\]"):
        get_adapter("bedrock").to_request(
            prompt, model=MODEL, layer_ttls={Layer.SYSTEM: "5m", Layer.HISTORY: "1h"}
        )
    ordered = get_adapter("bedrock").to_request(
        prompt, model=MODEL, layer_ttls={Layer.SYSTEM: "1h", Layer.HISTORY: "5m"}
    )
    check_cache_points(ordered)
    assert ordered["system"][-1] == {"cachePoint": {"type": "default", "ttl": "1h"}}


def test_diff_says_the_minimum_of_an_opaque_arn_is_unknown() -> None:
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"
    a = {**_request("Q"), "modelId": arn}
    result = diff(a, a)
    assert "minimum cacheable prefix is unknown" in result.detail and "min_tokens=" in result.detail
    assert "123456789012" not in result.detail  # the account id is not repeated
    assert "unknown" not in diff(_request("Q"), _request("Q")).detail
    assert "unknown" not in diff(a, a, min_tokens=1024).detail


def test_a_block_after_a_cache_point_in_a_message_is_named_by_its_own_index() -> None:
    # pydantic-ai's cache_messages with a document (a real recorded exchange has this shape):
    # text, document, text, cachePoint, question, cachePoint
    def request(question: str) -> dict[str, Any]:
        document = {"document": {"name": "D", "format": "txt", "source": {"text": LONG}}}
        point = {"cachePoint": {"type": "default"}}
        content = [
            {"text": "Read this."},
            document,
            {"text": "\n"},
            point,
            {"text": question},
            point,
        ]
        return {**_request("x"), "messages": [{"role": "user", "content": content}]}

    result = diff(request("What is 10 + 11?"), request("What is 10 + 12?"))
    assert result.path == "messages[0].content[4].text"
    assert not result.invalidated or result.layer == "messages"


def test_the_planner_and_inspect_say_an_opaque_arns_minimum_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from promptcache import plan

    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"
    with pytest.raises(InputError, match="minimum cacheable prefix is unknown"):
        plan(_prompt(), vendor="bedrock", model=arn)
    assert plan(_prompt(), vendor="bedrock", model=arn, min_tokens=1024).breakpoints
    path = tmp_path / "arn.json"
    path.write_text(json.dumps({**_request("Q"), "modelId": arn}))
    assert main(["inspect", str(path), "--format", "json"]) == 0
    notes = json.loads(capsys.readouterr().out)["breakpoints"]["notes"]
    assert any("minimum cacheable prefix is unknown" in n for n in notes)
