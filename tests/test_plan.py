"""The breakpoint planner: placement, budget, minimums, lookback, TTL order, unmarkable blocks."""

from __future__ import annotations

import pytest

from promptcache import InputError, Layer, Message, Prompt, TextPart, ThinkingPart, Tool
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
    result = plan(prompt, vendor="anthropic", model=MODEL)
    paths = [b.path for b in result.breakpoints]
    assert paths[-1] == "history[1]"
    assert all(not p.startswith("tail") for p in paths)
    assert result.breakpoints[-1].reason == "end of the shared prefix"


def test_layer_boundaries_fill_spare_slots_in_priority_order() -> None:
    prompt = base().add_history(Message.user("a")).with_tail("q")
    paths = [b.path for b in plan(prompt, vendor="anthropic", model=MODEL).breakpoints]
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
        prompt, vendor="anthropic", model=MODEL, layer_ttls={Layer.TOOLS: "1h", Layer.SYSTEM: "1h"}
    )
    assert [b.ttl for b in result.breakpoints] == ["1h", "1h", "5m", "5m"]


def test_1h_after_5m_is_refused_before_the_api_does() -> None:
    prompt = base().add_history(Message.user("a")).with_tail("q")
    with pytest.raises(InputError, match="ttl '1h' after a '5m' marker at tools"):
        plan(prompt, vendor="anthropic", model=MODEL, layer_ttls={Layer.HISTORY: "1h"})


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


def test_lagging_breakpoint_without_previous() -> None:
    history = tuple(Message.user(f"m{i}") for i in range(40))
    current = base().add_history(*history).with_tail("q")
    result = plan(current, vendor="anthropic", model=MODEL)
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
    last = plan(prompt, vendor="anthropic", model=MODEL).breakpoints[-1]
    assert last.path == "history[0]"
    assert "cannot carry a marker" in last.reason


def test_openai_never_marks_tools() -> None:
    prompt = base().add_history(Message.user("a")).with_tail("q")
    result = plan(prompt, vendor="openai", model="gpt-5.6-terra")
    assert all(not b.path.startswith("tools") for b in result.breakpoints)
    assert len(result.breakpoints) == 3  # implicit mode: 1 implicit + 3 explicit writes


def test_openai_explicit_mode_gets_four() -> None:
    prompt = base().add_history(Message.user("a"), Message.user("b")).with_tail("q")
    result = plan(prompt, vendor="openai", model="gpt-5.6-terra", automatic=False)
    assert len(result.breakpoints) == 3  # system, docs, end (tools unmarkable)


def test_automatic_vendors_get_notes_not_breakpoints() -> None:
    prompt = base().with_tail("q")
    old = plan(prompt, vendor="openai", model="gpt-5.4")
    assert old.breakpoints == () and "128-token steps" in old.notes[0]
    gem = plan(prompt, vendor="gemini", model="gemini-2.5-pro")
    assert gem.breakpoints == () and "automatically" in gem.notes[0]


def test_unknown_vendor_lists_the_valid_ones() -> None:
    with pytest.raises(InputError, match="anthropic, openai, openai-responses, gemini, engine"):
        plan(base(), vendor="bedrock", model=MODEL)


def test_plan_accepts_a_rendered_prompt() -> None:
    prompt = base().with_tail("q")
    assert plan(prompt.render(), vendor="anthropic", model=MODEL) == plan(
        prompt, vendor="anthropic", model=MODEL
    )
