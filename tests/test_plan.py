"""The breakpoint planner: placement, budget, minimums, lookback, TTL order, unmarkable blocks."""

from __future__ import annotations

import pytest

from promptcache import (
    InputError,
    Layer,
    Message,
    Prompt,
    TextPart,
    ThinkingPart,
    Tool,
    ToolResult,
    ToolUse,
)
from promptcache._plan import plan

BIG = "Refunds need a receipt and the original card. " * 200  # ~2300 estimated tokens
MODEL = "claude-sonnet-4-6"


def base() -> Prompt:
    return (
        Prompt(volatile="ignore")
        .add_tools(Tool(name="t", description="tool " * 1200))
        .add_system(BIG)
        .add_docs(BIG)
    )


def test_breakpoint_at_end_of_shared_prefix_not_on_tail() -> None:
    prompt = base().add_history(Message.user("a"), Message.assistant("b")).with_tail("question")
    result = plan(prompt, vendor="anthropic", conversation=False, model=MODEL)
    paths = [b.path for b in result.breakpoints]
    assert paths[-1] == "history[1]"
    assert all(not p.startswith("tail") for p in paths)
    assert result.breakpoints[-1].reason == "end of the shared prefix"


def test_layer_boundaries_fill_spare_slots_in_priority_order() -> None:
    prompt = base().add_history(Message.user("a")).with_tail("q")
    paths = [
        b.path
        for b in plan(prompt, vendor="anthropic", conversation=False, model=MODEL).breakpoints
    ]
    assert paths == ["tools[0]", "system[0]", "docs[0]", "history[0]"]


def test_budget_counts_the_callers_markers_and_the_automatic_one() -> None:
    prompt = base().add_history(Message.user("a")).with_tail("q")
    result = plan(prompt, vendor="anthropic", model=MODEL, reserved=1, automatic=True)
    assert len(result.breakpoints) == 2
    assert [b.path for b in result.breakpoints] == ["docs[0]", "history[0]"]
    full = plan(prompt, vendor="anthropic", model=MODEL, reserved=4)
    assert full.breakpoints == ()
    assert "already used" in full.notes[0]


def test_no_breakpoint_below_the_models_minimum_and_the_plan_says_why() -> None:
    prompt = Prompt().add_system("short system prompt " * 40).with_tail("q")
    result = plan(prompt, vendor="anthropic", model=MODEL)
    assert result.breakpoints == ()
    assert result.notes[0].startswith("no breakpoint: prefix of ")
    assert f"below {MODEL}'s minimum of 1024" in result.notes[0]


def test_boundary_below_minimum_is_skipped_with_a_note() -> None:
    prompt = Prompt(volatile="ignore").add_tools(Tool(name="t")).add_system(BIG).with_tail("q")
    result = plan(prompt, vendor="anthropic", model=MODEL)
    assert [b.path for b in result.breakpoints] == ["system[0]"]
    assert any("tools[0]" in n and "below" in n for n in result.notes)


def test_model_minimum_comes_from_the_table() -> None:
    prompt = Prompt(volatile="ignore").add_system("x " * 6000).with_tail("q")  # ~3000 tokens
    assert plan(prompt, vendor="anthropic", model="claude-haiku-4-5").breakpoints == ()
    assert plan(prompt, vendor="anthropic", model="claude-opus-5").breakpoints != ()


def test_no_stable_prefix() -> None:
    result = plan(Prompt().with_tail("only a question"), vendor="anthropic", model=MODEL)
    assert result.breakpoints == () and "no stable prefix" in result.notes[0]


# -- TTL ordering (peers F5-F7) -----------------------------------------------------------------


def test_longer_ttl_on_earlier_layers_is_allowed() -> None:
    prompt = base().add_history(Message.user("a")).with_tail("q")
    result = plan(
        prompt,
        vendor="anthropic",
        conversation=False,
        model=MODEL,
        layer_ttls={Layer.TOOLS: "1h", Layer.SYSTEM: "1h"},
    )
    assert [b.ttl for b in result.breakpoints] == ["1h", "1h", "5m", "5m"]


def test_1h_after_5m_is_refused_before_the_api_does() -> None:
    prompt = base().add_history(Message.user("a")).with_tail("q")
    with pytest.raises(InputError, match="ttl '1h' after a '5m' marker at tools"):
        plan(
            prompt,
            vendor="anthropic",
            conversation=False,
            model=MODEL,
            layer_ttls={Layer.HISTORY: "1h"},
        )


def test_unknown_ttl_is_refused() -> None:
    prompt = base().with_tail("q")
    with pytest.raises(InputError, match="choose one of"):
        plan(prompt, vendor="anthropic", model=MODEL, ttl="30m")


# -- lookback (peers F8, F9) ------------------------------------------------------------------


def _fan_out(turns: int) -> tuple[Message, ...]:
    """One assistant turn with many tool calls' worth of content blocks."""
    blocks = [TextPart(text=f"step {i}") for i in range(turns)]
    return (Message.user("go"), Message.assistant(blocks))


def test_lookback_adds_a_breakpoint_at_the_previous_requests_end() -> None:
    previous = base().add_history(Message.user("first")).with_tail("q1")
    current = previous.commit_tail("reply").add_history(*_fan_out(30)).with_tail("q2")
    result = plan(current, vendor="anthropic", model=MODEL, previous=previous)
    reasons = {b.path: b.reason for b in result.breakpoints}
    assert "history[0]" in reasons
    assert "lookback" in reasons["history[0]"]
    assert "exceed the 20-block lookback" in reasons["history[0]"]


def test_no_lookback_breakpoint_for_a_small_turn() -> None:
    previous = base().add_history(Message.user("first")).with_tail("q1")
    current = previous.commit_tail("reply").add_history(*_fan_out(3)).with_tail("q2")
    result = plan(current, vendor="anthropic", model=MODEL, previous=previous)
    assert all("lookback" not in b.reason for b in result.breakpoints)


def test_a_previous_request_of_another_conversation_falls_back_to_the_lagging_breakpoint() -> None:
    history = tuple(Message.user(f"m{i}") for i in range(40))
    current = base().add_history(*history).with_tail("q")
    other = base().add_history(*(Message.user(f"x{i}") for i in range(10))).with_tail("q")
    with_other = plan(current, vendor="anthropic", model=MODEL, previous=other)
    assert with_other.breakpoints == plan(current, vendor="anthropic", model=MODEL).breakpoints
    assert all("previous request's breakpoint" not in b.reason for b in with_other.breakpoints)


def test_lagging_breakpoint_without_previous() -> None:
    history = tuple(Message.user(f"m{i}") for i in range(40))
    current = base().add_history(*history).with_tail("q")
    result = plan(current, vendor="anthropic", conversation=False, model=MODEL)
    lag = [b for b in result.breakpoints if "lagging" in b.reason]
    assert len(lag) == 1
    assert lag[0].path == "history[24]"  # 15 content blocks after it, within the lookback


def test_openai_has_no_lookback_limit() -> None:
    history = tuple(Message.user(f"m{i}") for i in range(40))
    current = base().add_history(*history).with_tail("q")
    result = plan(current, vendor="openai", model="gpt-5.6-terra")
    assert all("lookback" not in b.reason for b in result.breakpoints)


# -- markable blocks --------------------------------------------------------------------------


def test_breakpoint_never_lands_on_a_thinking_only_message() -> None:
    thinking = Message.assistant([ThinkingPart(thinking="hmm", signature="s")])
    prompt = base().add_history(Message.user("a"), thinking).with_tail("q")
    last = plan(prompt, vendor="anthropic", conversation=False, model=MODEL).breakpoints[-1]
    assert last.path == "history[0]"
    assert "cannot carry a marker" in last.reason


def test_openai_never_marks_tools() -> None:
    prompt = base().add_history(Message.user("a")).with_tail("q")
    result = plan(prompt, vendor="openai", model="gpt-5.6-terra")
    assert all(not b.path.startswith("tools") for b in result.breakpoints)
    assert len(result.breakpoints) == 3  # implicit mode: 1 implicit + 3 explicit writes
    assert result.notes == ()  # the tools layer is not even tried, so no slot note about it


def test_openai_explicit_mode_gets_four() -> None:
    prompt = base().add_history(Message.user("a"), Message.user("b")).with_tail("q")
    result = plan(
        prompt, vendor="openai", conversation=False, model="gpt-5.6-terra", automatic=False
    )
    assert len(result.breakpoints) == 3  # system, docs, end (tools unmarkable)
    assert [b.path for b in result.breakpoints] == ["system[0]", "docs[0]", "history[1]"]
    assert result.notes == ()  # a layer that can never carry a marker is skipped, not refused


def test_automatic_vendors_get_notes_not_breakpoints() -> None:
    prompt = base().with_tail("q")
    old = plan(prompt, vendor="openai", model="gpt-5.4")
    assert old.breakpoints == () and "128-token steps" in old.notes[0]
    gem = plan(prompt, vendor="gemini", model="gemini-2.5-pro")
    assert gem.breakpoints == () and "automatically" in gem.notes[0]


def test_unknown_vendor_lists_the_valid_ones() -> None:
    with pytest.raises(InputError, match="anthropic, openai, openai-responses, gemini, engine"):
        plan(base(), vendor="palm", model=MODEL)


def test_plan_accepts_a_rendered_prompt() -> None:
    prompt = base().with_tail("q")
    assert plan(prompt.render(), vendor="anthropic", model=MODEL) == plan(
        prompt, vendor="anthropic", model=MODEL
    )


# -- lookback inside a parallel tool fan-out (peers F8, F9, D6) --------------------------------


def _uses(count: int) -> list[ToolUse]:
    return [
        ToolUse(id=f"toolu_{i:02d}", name="lookup_order", input={"order": i}) for i in range(count)
    ]


def _results(count: int) -> list[ToolResult]:
    return [
        ToolResult(tool_use_id=f"toolu_{i:02d}", content=f"order {i}: shipped two days late")
        for i in range(count)
    ]


def _before_fan_out() -> Prompt:
    """A big system prompt, a short exchange, then the question that starts the fan-out."""
    return (
        Prompt(volatile="ignore")
        .add_system(BIG)
        .add_history(Message.user("hi"), Message.assistant("Hello, how can I help?"))
        .with_tail("Which of this week's orders shipped late?")
    )


def _after_fan_out(calls: int = 18) -> Prompt:
    """The next request: 18 parallel tool calls and their 18 results, then a new tail."""
    return (
        _before_fan_out()
        .commit_tail(Message.assistant(_uses(calls)))
        .add_history(Message.user(_results(calls)))
        .with_tail("Summarise them.")
    )


def test_lagging_breakpoint_goes_inside_a_fan_out_message() -> None:
    rendered = _after_fan_out().render()
    result = plan(rendered, vendor="anthropic", conversation=False, model=MODEL)
    end = result.breakpoints[-1]
    assert (end.path, end.part) == ("history[4]", None)
    lag = [b for b in result.breakpoints if "lagging" in b.reason]
    assert len(lag) == 1
    # on the third of the 18 results: 15 content blocks after it, within the 20-block lookback
    assert (lag[0].block_index, lag[0].part, lag[0].path) == (5, 2, "history[4].content[2]")
    assert lag[0].ttl == "5m" and rendered.blocks[5].parts == 18
    # the tokens up to a content block inside a message are an estimate between its two ends
    assert sum(b.tokens for b in rendered.blocks[:5]) < lag[0].tokens < end.tokens


def test_lagging_breakpoint_moves_off_a_thinking_block() -> None:
    # interleaved thinking: a thinking block in front of each tool call; the results are the tail
    turn = Message.assistant(
        [p for use in _uses(9) for p in (ThinkingPart(thinking="check", signature="s"), use)]
    )
    prompt = _before_fan_out().commit_tail(turn).with_tail(Message.user(_results(9)))
    lag = [
        b
        for b in plan(prompt, vendor="anthropic", conversation=False, model=MODEL).breakpoints
        if b.part
    ]
    assert [b.path for b in lag] == ["history[3].content[1]"]
    assert "moved from history[3].content[2], which cannot carry a marker" in lag[0].reason


def test_lagging_breakpoint_inside_a_message_respects_the_minimum() -> None:
    rendered = _after_fan_out().render()
    planned = plan(rendered, vendor="anthropic", conversation=False, model=MODEL).breakpoints
    lag = next(b for b in planned if b.part is not None)
    result = plan(
        rendered, vendor="anthropic", conversation=False, model=MODEL, min_tokens=lag.tokens + 1
    )
    assert all(b.part is None for b in result.breakpoints)
    assert any(
        n.startswith("no breakpoint at history[4].content[2] (lookback") and "below" in n
        for n in result.notes
    )


def test_short_messages_keep_the_lagging_breakpoint_on_a_message_end() -> None:
    pairs = [Message.user([TextPart(text=f"q{i}"), TextPart(text="context")]) for i in range(20)]
    result = plan(
        base().add_history(*pairs).with_tail("q"),
        vendor="anthropic",
        conversation=False,
        model=MODEL,
    )
    lag = [b for b in result.breakpoints if "lagging" in b.reason]
    assert [(b.path, b.part) for b in lag] == [("history[12]", None)]  # 14 blocks after it


def test_fan_out_with_previous_reads_the_previous_requests_end() -> None:
    result = plan(_after_fan_out(), vendor="anthropic", model=MODEL, previous=_before_fan_out())
    reasons = {b.path: b.reason for b in result.breakpoints}
    assert "37 content blocks since the previous request's breakpoint" in reasons["history[1]"]
    assert result.notes == ()


def test_no_slot_for_the_lookback_breakpoint_is_said_in_plain_words() -> None:
    result = plan(
        _after_fan_out(),
        vendor="anthropic",
        model=MODEL,
        previous=_before_fan_out(),
        reserved=3,
    )
    assert [b.path for b in result.breakpoints] == ["history[4]"]
    assert any(
        "cannot read the previous request's cache entry at history[1]" in n
        and "37 content blocks" in n
        and "no slot is left" in n
        for n in result.notes
    )


def test_no_slot_for_the_lagging_breakpoint_is_said_in_plain_words() -> None:
    result = plan(_after_fan_out(), vendor="anthropic", conversation=False, model=MODEL, reserved=3)
    assert [b.path for b in result.breakpoints] == ["history[4]"]
    assert any(
        "more than 20 content blocks" in n
        and "cannot read the previous request's cache entry" in n
        and "history[4].content[2]" in n
        for n in result.notes
    )


def test_breakpoints_on_one_message_keep_the_ttl_order() -> None:
    result = plan(
        _after_fan_out(),
        vendor="anthropic",
        conversation=False,
        model=MODEL,
        layer_ttls={Layer.SYSTEM: "1h"},
        ttl="5m",
    )
    assert [(b.path, b.ttl) for b in result.breakpoints] == [
        ("system[0]", "1h"),
        ("history[4].content[2]", "5m"),
        ("history[4]", "5m"),
    ]


# -- conversation=True: the placement policy of a chat or agent loop -----------------------------


def _loop(calls: int) -> Prompt:
    """An agent loop: the question, `calls` parallel calls, their results as the new turn."""
    return (
        _before_fan_out()
        .commit_tail(Message.assistant(_uses(calls)))
        .with_tail(Message.user(_results(calls)))
    )


def test_conversation_caches_the_turn_end() -> None:
    prompt = base().add_history(Message.user("a"), Message.assistant("b")).with_tail("question")
    result = plan(prompt, vendor="anthropic", model=MODEL)  # conversation=True is the default
    assert [b.path for b in result.breakpoints] == ["system[0]", "docs[0]", "history[1]", "tail[0]"]
    assert "end of the turn" in result.breakpoints[-1].reason
    rules_only = plan(prompt, vendor="anthropic", model=MODEL, conversation=False)
    assert rules_only.breakpoints[-1].path == "history[1]"


def test_no_turn_end_where_the_automatic_breakpoint_already_is() -> None:
    prompt = base().add_history(Message.user("a"), Message.assistant("b")).with_tail("question")
    anthropic = plan(prompt, vendor="anthropic", model=MODEL, automatic=True)
    openai = plan(prompt, vendor="openai", model="gpt-5.6-terra")  # implicit mode
    for result in (anthropic, openai):
        assert all(not b.path.startswith("tail") for b in result.breakpoints)


def test_no_turn_end_without_history() -> None:
    """One-shot questions over documents: the tail is never repeated, so it is not written."""
    result = plan(base().with_tail("q"), vendor="anthropic", model=MODEL, conversation=True)
    assert all(not b.path.startswith("tail") for b in result.breakpoints)


def test_conversation_lookback_only_past_the_window() -> None:
    small = plan(_loop(8), vendor="anthropic", model=MODEL, conversation=True)
    assert not any("lookback" in b.reason for b in small.breakpoints)  # 8 calls <= 20: reached
    wide = plan(_loop(24), vendor="anthropic", model=MODEL, conversation=True)
    lookback = [b for b in wide.breakpoints if "lookback" in b.reason]
    assert len(lookback) == 1
    blocks = _loop(24).render().blocks
    turn = max(i for i, b in enumerate(blocks) if b.role == "user" and b.layer == Layer.HISTORY)
    assert lookback[0].block_index == turn and "newest user turn" in lookback[0].reason


def test_conversation_plans_read_the_previous_turn_under_the_emulator() -> None:
    """The oracle check: under the Anthropic emulation each turn reads all of the one before."""
    from promptcache import get_adapter
    from promptcache.sim import AnthropicEmulator, ManualClock

    emulator, adapter = AnthropicEmulator(clock=ManualClock()), get_adapter("anthropic")
    prompt, reads = _before_fan_out(), []
    for calls in (24, 3, 30):
        for turn in (
            prompt,
            prompt.commit_tail(Message.assistant(_uses(calls))).with_tail(
                Message.user(_results(calls))
            ),
        ):
            chosen = plan(turn, vendor="anthropic", model=MODEL, conversation=True)
            body = adapter.to_request(turn, model=MODEL, plan=chosen)
            usage = emulator.handle("POST", "/v1/messages", body).body["usage"]
            reads.append((usage["cache_read_input_tokens"], usage["input_tokens"]))
            prompt = turn
        prompt = prompt.commit_tail("done").with_tail("next question")
    assert all(read > 0 and uncached == 0 for read, uncached in reads[1:])


def test_explain_lists_each_breakpoint_and_note() -> None:
    prompt = base().add_history(Message.user("a"), Message.assistant("b")).with_tail("question")
    text = plan(prompt, vendor="anthropic", model=MODEL, conversation=True).explain()
    assert text.splitlines()[0] == f"anthropic {MODEL}: 4 breakpoint(s)"
    assert "tail[0]" in text and "end of the turn" in text and "end of the shared prefix" in text
    below = plan(Prompt().with_tail("q"), vendor="anthropic", model=MODEL).explain()
    assert "note: no breakpoint" in below
