"""Anthropic rendering rules, marker checks, pre-warm, diagnostics and stream accounting."""

from __future__ import annotations

from typing import Any

import pytest

from promptcache import (
    Breakpoint,
    InputError,
    Layer,
    Message,
    Plan,
    Prompt,
    TextPart,
    ThinkingPart,
    Tool,
    ToolResult,
    ToolUse,
    plan,
)
from promptcache.adapters import get_adapter
from promptcache.adapters.anthropic import DIAGNOSTICS_BETA, check_markers, platform_of

from ..debug.sim import AnthropicSim

BIG = "Refunds need a receipt and the original card. " * 200
MODEL = "claude-sonnet-4-6"


def prompt(*history: Message) -> Prompt:
    return (
        Prompt(volatile="ignore")
        .add_tools(Tool(name="lookup", description="find"))
        .add_system(BIG)
        .add_history(*history)
        .with_tail("q")
    )


def markers(kwargs: dict[str, Any]) -> list[str]:
    found = [f"tools[{i}]" for i, t in enumerate(kwargs.get("tools", [])) if "cache_control" in t]
    found += [
        f"system[{i}]" for i, b in enumerate(kwargs.get("system", [])) if "cache_control" in b
    ]
    for m, msg in enumerate(kwargs["messages"]):
        found += [
            f"messages[{m}].content[{c}]"
            for c, b in enumerate(msg["content"])
            if "cache_control" in b
        ]
    return found


def test_system_is_always_a_list_of_text_blocks_with_the_marker_on_a_block() -> None:
    kwargs = get_adapter("anthropic").to_request(prompt(), model=MODEL)
    assert isinstance(kwargs["system"], list)
    assert kwargs["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
    assert kwargs["messages"][-1]["content"][0] == {"type": "text", "text": "q"}


def test_no_marker_on_a_thinking_block() -> None:
    turn = Message.assistant(
        [TextPart(text="let me see"), ThinkingPart(thinking="t", signature="s")]
    )
    kwargs = get_adapter("anthropic").to_request(prompt(Message.user("a"), turn), model=MODEL)
    blocks = kwargs["messages"][1]["content"]
    assert "cache_control" not in blocks[1] and blocks[1]["type"] == "thinking"
    assert blocks[0]["cache_control"]["type"] == "ephemeral"


def test_thinking_block_with_a_marker_is_refused() -> None:
    kwargs = {
        "messages": [
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "thinking",
                        "thinking": "t",
                        "signature": "s",
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            }
        ]
    }
    with pytest.raises(InputError, match="thinking"):
        check_markers(kwargs)


def test_no_marker_below_the_minimum() -> None:
    small = Prompt().add_system("be brief").with_tail("q")
    kwargs = get_adapter("anthropic").to_request(small, model=MODEL)
    assert markers(kwargs) == []


def test_callers_markers_count_against_the_four_slots() -> None:
    # peers F2/F3: client markers plus injected ones made 5 -> 400 "Found 5".
    server_tool = {
        "type": "web_search_20250305",
        "name": "web_search",
        "cache_control": {"type": "ephemeral"},
    }
    docs = Prompt(volatile="ignore").add_system(BIG).add_docs(BIG, BIG)
    kwargs = get_adapter("anthropic").to_request(
        docs.add_history(Message.user("a")).with_tail("q"),
        model=MODEL,
        extra_tools=[server_tool],
        automatic=True,
    )
    total = len(markers(kwargs)) + 1  # + the automatic top-level marker
    assert total == 4
    assert kwargs["tools"][-1] is not server_tool and kwargs["tools"][-1]["cache_control"]


def test_five_markers_are_refused_with_the_fix() -> None:
    tools = [
        {"name": f"t{i}", "input_schema": {}, "cache_control": {"type": "ephemeral"}}
        for i in range(5)
    ]
    with pytest.raises(InputError, match=r"5 cache markers .* exceed Anthropic's 4"):
        check_markers({"tools": tools, "messages": []})


def test_1h_after_5m_is_refused_across_sections() -> None:
    # peers F6: a 1h marker replayed into messages after a 5m system marker.
    kwargs = {
        "system": [{"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "x",
                        "cache_control": {"type": "ephemeral", "ttl": "1h"},
                    }
                ],
            }
        ],
    }
    with pytest.raises(InputError, match="ttl '1h' after a '5m' marker at system"):
        check_markers(kwargs)


def test_automatic_ttl_must_not_exceed_the_explicit_ones() -> None:
    with pytest.raises(InputError, match="automatic"):
        get_adapter("anthropic").to_request(
            prompt(Message.user("a")), model=MODEL, automatic=True, automatic_ttl="1h"
        )


def test_layer_ttls_render_on_the_wire() -> None:
    kwargs = get_adapter("anthropic").to_request(
        prompt(Message.user("a")), model=MODEL, layer_ttls={Layer.SYSTEM: "1h"}
    )
    assert kwargs["system"][0]["cache_control"]["ttl"] == "1h"
    assert kwargs["messages"][0]["content"][0]["cache_control"]["ttl"] == "5m"


# Vertex AI has automatic caching since 2026 (Anthropic's prompt-caching page, 2026-08-22):
# tests/vendors/test_platforms.py writes it there.
@pytest.mark.parametrize("platform", ["bedrock"])
def test_automatic_mode_is_refused_on_legacy_bedrock(platform: str) -> None:
    with pytest.raises(InputError, match=f"not available on {platform}"):
        get_adapter("anthropic").to_request(
            prompt(), model=MODEL, automatic=True, platform=platform
        )


def test_platform_of_reads_the_client_class() -> None:
    class AnthropicBedrock:
        pass

    assert platform_of(AnthropicBedrock()) == "bedrock"
    assert platform_of(object()) == "anthropic"


def test_prewarm_sets_max_tokens_zero_and_adds_a_message_after_the_prefix() -> None:
    adapter = get_adapter("anthropic")
    kwargs = adapter.prewarm_request(Prompt(volatile="ignore").add_system(BIG), model=MODEL)  # type: ignore[attr-defined]
    assert kwargs["max_tokens"] == 0
    assert kwargs["system"][0]["cache_control"]
    assert kwargs["messages"] == [{"role": "user", "content": [{"type": "text", "text": "."}]}]


@pytest.mark.parametrize(
    "option",
    [
        {"stream": True},
        {"thinking": {"type": "enabled", "budget_tokens": 1024}},
        {"tool_choice": {"type": "any"}},
        {"output_config": {"format": {"type": "json_schema"}}},
    ],
)
def test_prewarm_refuses_what_the_api_rejects(option: dict[str, Any]) -> None:
    with pytest.raises(InputError, match="pre-warm"):
        get_adapter("anthropic").prewarm_request(prompt(), model=MODEL, **option)  # type: ignore[attr-defined]


def test_diagnostics_opt_in_adds_the_body_field_and_the_beta_header() -> None:
    kwargs = get_adapter("anthropic").to_request(
        prompt(), model=MODEL, diagnostics=True, extra_headers={"anthropic-beta": "other-beta"}
    )
    assert kwargs["diagnostics"] == {"previous_message_id": None}
    assert kwargs["extra_headers"]["anthropic-beta"] == f"other-beta,{DIAGNOSTICS_BETA}"
    plain = get_adapter("anthropic").to_request(prompt(), model=MODEL)
    assert "diagnostics" not in plain and "extra_headers" not in plain


def test_diagnosis_is_read_from_the_sdk_message() -> None:
    from anthropic.types import Message as SDKMessage

    message = SDKMessage.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": 5,
                "output_tokens": 1,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 2000,
            },
            "diagnostics": {
                "cache_miss_reason": {"type": "tools_changed", "cache_missed_input_tokens": 1990}
            },
        }
    )
    usage = get_adapter("anthropic").read_usage(message)
    assert usage.diagnosis is not None
    assert (usage.diagnosis.reason, usage.diagnosis.missed_tokens) == ("tools_changed", 1990)
    pending = get_adapter("anthropic").read_usage(
        {**message.model_dump(), "diagnostics": {"cache_miss_reason": None}}
    )
    assert pending.diagnosis is not None and pending.diagnosis.pending


def test_prompt_fields_cannot_be_passed_twice() -> None:
    with pytest.raises(InputError, match="come from the Prompt"):
        get_adapter("anthropic").to_request(prompt(), model=MODEL, system="plain string")


# -- streaming (peers J2: streamed cache reads counted as normal input) ------------------------


def test_stream_keeps_cache_counts_from_message_start_and_output_from_the_last_delta() -> None:
    acc = get_adapter("anthropic").accumulator()
    acc.feed(
        {
            "type": "message_start",
            "message": {
                "model": MODEL,
                "usage": {
                    "input_tokens": 3,
                    "cache_read_input_tokens": 4096,
                    "cache_creation_input_tokens": 10,
                    "cache_creation": {
                        "ephemeral_5m_input_tokens": 10,
                        "ephemeral_1h_input_tokens": 0,
                    },
                    "output_tokens": 1,
                },
            },
        }
    )
    acc.feed(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}
    )
    acc.feed({"type": "message_delta", "usage": {"output_tokens": 40}})
    acc.feed(
        {"type": "message_delta", "usage": {"output_tokens": 77, "cache_read_input_tokens": None}}
    )
    usage = acc.usage
    assert (usage.uncached_input, usage.cache_read, usage.cache_write, usage.output) == (
        3,
        4096,
        10,
        77,
    )
    assert usage.cache_write_by_ttl == {"5m": 10}
    assert usage.model == MODEL


def test_stream_without_message_start_is_an_error() -> None:
    acc = get_adapter("anthropic").accumulator()
    acc.feed({"type": "message_delta", "usage": {"output_tokens": 4}})
    with pytest.raises(InputError, match="message_start"):
        _ = acc.usage


def test_proxy_without_cache_fields_reports_unknown() -> None:
    usage = get_adapter("anthropic").read_usage(
        {"usage": {"input_tokens": 900, "output_tokens": 2}}
    )
    assert usage.cache_read is None and usage.cache_write is None
    llama = get_adapter("anthropic").read_usage(
        {"usage": {"input_tokens": 30, "output_tokens": 2, "cache_read_input_tokens": 900}}
    )
    assert (llama.cache_read, llama.cache_write) == (900, 0)


def test_a_plan_for_another_vendor_is_refused() -> None:
    from promptcache import plan

    other = plan(prompt(), vendor="openai", model="gpt-5.6")
    with pytest.raises(InputError, match="made for 'openai'"):
        get_adapter("anthropic").to_request(prompt(), model=MODEL, plan=other)


def test_a_given_plan_is_used_as_is() -> None:
    from promptcache import plan

    chosen = plan(prompt(Message.user("a")), vendor="anthropic", model=MODEL, ttl="1h")
    kwargs = get_adapter("anthropic").to_request(
        prompt(Message.user("a")), model=MODEL, plan=chosen
    )
    assert {b["cache_control"]["ttl"] for b in kwargs["system"] if "cache_control" in b} == {"1h"}


# -- parallel tool fan-outs and the 20-block lookback (peers F8, F9, D6) -----------------------


def _fan_out(calls: int) -> tuple[Message, Message]:
    """One assistant turn of `calls` parallel tool calls (after a line of text), and the results."""
    uses = [
        ToolUse(id=f"toolu_{i:02d}", name="lookup", input={"order": 1000 + i}) for i in range(calls)
    ]
    results = [
        ToolResult(tool_use_id=f"toolu_{i:02d}", content=f"order {1000 + i}: shipped late")
        for i in range(calls)
    ]
    return Message.assistant([TextPart(text="Checking each order."), *uses]), Message.user(results)


def test_lagging_marker_goes_on_a_content_block_inside_the_fan_out() -> None:
    calls, results = _fan_out(17)
    made = prompt(Message.user("hi"), Message.assistant("hello"), calls, results)
    rules_only = plan(made, vendor="anthropic", model=MODEL, conversation=False)
    kwargs = get_adapter("anthropic").to_request(made, model=MODEL, plan=rules_only)
    assert markers(kwargs) == ["system[0]", "messages[3].content[1]", "messages[3].content[16]"]
    assert kwargs["messages"][3]["content"][1]["cache_control"] == {
        "type": "ephemeral",
        "ttl": "5m",
    }
    assert kwargs["messages"][4] == {"role": "user", "content": [{"type": "text", "text": "q"}]}


def test_an_agent_loop_with_a_wide_fan_out_still_reads_the_previous_turn() -> None:
    # peers F8: the tool calls and their results go into history in one step; a single marker
    # at the end would look back 20 content blocks and miss the previous request's entry.
    adapter, sim = get_adapter("anthropic"), AnthropicSim()
    log = "\n".join(f"order {1000 + i}: carrier UPS, promised Monday" for i in range(120))
    first = (
        Prompt(volatile="ignore")
        .add_tools(Tool(name="lookup", description="Look an order up."))
        .add_system(BIG)
        .add_history(
            Message.user("Pull this week's shipping log."),
            Message.assistant([ToolUse(id="toolu_log", name="lookup", input={"log": "week"})]),
            Message.user([ToolResult(tool_use_id="toolu_log", content=log)]),
            Message.assistant("I have the log."),
        )
        .with_tail("Which of these orders shipped late? Check each one.")
    )
    written = sim.respond(adapter.to_request(first, model=MODEL), at=0.0)["usage"]
    calls, results = _fan_out(16)
    second = first.commit_tail(calls).add_history(results)
    request = adapter.to_request(second, model=MODEL)
    read = sim.respond(request, at=30.0)["usage"]["cache_read_input_tokens"]
    expected = written["cache_read_input_tokens"] + written["cache_creation_input_tokens"]
    assert expected > 3000 and read >= expected
    check_markers(request)


def test_a_plan_marking_a_thinking_block_is_refused() -> None:
    turn = Message.assistant([ThinkingPart(thinking="t", signature="s"), TextPart(text="ok")])
    given = Plan(
        vendor="anthropic",
        model=MODEL,
        breakpoints=(
            Breakpoint(
                block_index=3,
                part=0,
                path="history[1].content[0]",
                ttl="5m",
                reason="by hand",
                tokens=2400,
            ),
        ),
        notes=(),
        prefix_tokens=2400,
        min_tokens=1024,
        budget=4,
    )
    with pytest.raises(InputError, match=r"messages\[1\]\.content\[0\] is a thinking block"):
        get_adapter("anthropic").to_request(
            prompt(Message.user("a"), turn), model=MODEL, plan=given
        )


def test_a_plan_for_a_longer_prompt_is_refused() -> None:
    longer = prompt(Message.user("a"), Message.assistant("b"), Message.user("c"))
    from promptcache import plan

    stale = plan(longer, vendor="anthropic", model=MODEL)
    assert max(b.block_index for b in stale.breakpoints) >= 3
    with pytest.raises(InputError, match=r"marks block \d+ of a prompt with 3; plan this prompt"):
        get_adapter("anthropic").to_request(prompt(), model=MODEL, plan=stale)
