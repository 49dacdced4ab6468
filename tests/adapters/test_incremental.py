"""
Incremental requests: a prompt grown from one already turned into a request reuses the request
pieces of its unchanged blocks. What it returns must be exactly what a prompt built afresh
returns, and no later request may change one returned earlier (requests are values).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptcache import (
    Doc,
    ImagePart,
    Message,
    Prompt,
    TextPart,
    ThinkingPart,
    Tool,
    ToolResult,
    ToolUse,
    plan,
)
from promptcache.adapters import get_adapter

MODELS = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-5.6",
    "openai-responses": "gpt-5.6",
    "gemini": "gemini-2.5-pro",
    "engine": "qwen3",
}
VENDORS = sorted(MODELS)


def request(prompt: Prompt, vendor: str) -> dict[str, Any]:
    """The request as a user makes it, with every breakpoint the planner can place."""
    model = MODELS[vendor]
    if vendor in ("gemini", "engine"):
        return get_adapter(vendor).to_request(prompt, model=model)
    chosen = plan(prompt, vendor=vendor, model=model, min_tokens=1)
    return get_adapter(vendor).to_request(prompt, model=model, plan=chosen)


def afresh(prompt: Prompt, vendor: str) -> dict[str, Any]:
    """The same request from a prompt rebuilt from JSON: new parts, nothing remembered."""
    rebuilt = Prompt.from_json(prompt.to_json(), volatile="ignore")
    return request(rebuilt.pinned(prompt.pin_tool_order), vendor)


def exact(value: Any) -> str:
    """Equality that also sees key order and types (the SDKs send dicts in insertion order)."""
    return repr(value)


_text = st.text(alphabet="abcdefgh xyz", min_size=1, max_size=30)


@st.composite
def messages(draw: st.DrawFn, index: int) -> list[Message]:
    kind = draw(st.sampled_from(["text", "tool", "fan-out", "thinking", "image", "parts"]))
    if kind == "text":
        return [Message.user(draw(_text)), Message.assistant(draw(_text))]
    if kind == "thinking":
        return [
            Message.user(draw(_text)),
            Message.assistant([ThinkingPart(thinking=draw(_text), signature="s")]),
        ]
    if kind == "image":
        return [Message.user([TextPart(text=draw(_text)), ImagePart(url="https://x/i.png")])]
    if kind == "parts":
        return [Message.user([TextPart(text=draw(_text)) for _ in range(draw(st.integers(1, 6)))])]
    calls = draw(st.integers(1, 12 if kind == "fan-out" else 1))
    ids = [f"call_{index}_{n}" for n in range(calls)]
    return [
        Message.assistant(
            [TextPart(text=draw(_text))]
            + [ToolUse(id=i, name=f"tool_{n % 3}", input={"n": n}) for n, i in enumerate(ids)]
        ),
        Message.user(
            [ToolResult(tool_use_id=i, content=draw(_text)) for i in ids]
            if draw(st.booleans())
            else [ToolResult(tool_use_id=i, content=(TextPart(text="r"),)) for i in ids]
        ),
    ]


def _tool(name: str) -> Tool:
    return Tool(name=name, description="d", input_schema={"type": "object", "properties": {}})


@st.composite
def steps(draw: st.DrawFn) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for index in range(draw(st.integers(1, 14))):
        op = draw(
            st.sampled_from(
                ["turn", "turn", "turn", "tail", "history", "tool", "system", "doc", "branch"]
            )
        )
        if op in ("turn", "history"):
            out.append((op, draw(messages(index))))
        elif op == "tail":
            out.append((op, draw(_text)))
        elif op == "tool":
            out.append((op, _tool(draw(st.sampled_from(["a", "m", "z"])) + str(index))))
        else:
            out.append((op, draw(_text)))
    return out


def grow(prompt: Prompt, op: str, value: Any) -> Prompt:
    if op == "turn":
        return prompt.commit_tail(*value).with_tail(f"question {len(prompt.history)}")
    if op == "history":
        return prompt.add_history(*value)
    if op == "tail":
        return prompt.with_tail(value)
    if op == "tool":
        return prompt.add_tools(value)
    if op == "system":
        return prompt.add_system(value)
    if op == "doc":
        return prompt.add_docs(Doc(text=value, title="t"))
    return prompt


def build(vendor: str, ops: list[tuple[str, Any]], pinned: bool) -> None:
    prompt = (
        Prompt(volatile="ignore", pin_tool_order=pinned)
        .add_tools(_tool("k"), _tool("b"))
        .add_system("You are terse.")
        .add_docs("A manual.")
        .with_tail("first question")
    )
    sent: list[tuple[dict[str, Any], str]] = []
    for op, value in ops:
        previous = prompt
        prompt = grow(prompt, op, value)
        try:
            kwargs = request(prompt, vendor)
        except Exception as exc:  # the same refusal as from scratch (a marker on thinking)
            with pytest.raises(type(exc), match="thinking"):
                afresh(prompt, vendor)
            continue
        assert exact(kwargs) == exact(afresh(prompt, vendor)), (op, vendor)
        sent.append((kwargs, exact(copy.deepcopy(kwargs))))
        if op == "branch":  # a second request grown from the same parent
            sibling = previous.with_tail("another question")
            assert exact(request(sibling, vendor)) == exact(afresh(sibling, vendor))
    for kwargs, snapshot in sent:
        assert exact(kwargs) == snapshot, "a later request changed one returned earlier"


@pytest.mark.parametrize("vendor", VENDORS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=steps(), pinned=st.booleans())
def test_incremental_request_is_the_request_from_scratch(
    vendor: str, ops: list[tuple[str, Any]], pinned: bool
) -> None:
    build(vendor, ops, pinned)


@pytest.mark.parametrize("vendor", VENDORS)
def test_moving_markers_leave_earlier_requests_as_they_were(vendor: str) -> None:
    """A breakpoint that moves on (the end of the prefix, every turn) is never written into a
    piece an earlier request holds: each turn's kwargs deep-compare equal after 30 more turns."""
    prompt = (
        Prompt(volatile="ignore")
        .add_tools(_tool("lookup"))
        .add_system("You are terse.")
        .add_docs("A manual.")
        .with_tail("q0")
    )
    kept: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for turn in range(30):
        prompt = prompt.commit_tail(
            Message.assistant(
                [TextPart(text=f"a{turn}"), ToolUse(id=f"c{turn}", name="lookup", input={})]
            ),
            Message.user([ToolResult(tool_use_id=f"c{turn}", content="found")]),
            Message.assistant(f"done {turn}"),
        ).with_tail(f"q{turn + 1}")
        kwargs = request(prompt, vendor)
        kept.append((kwargs, copy.deepcopy(kwargs)))
    for turn, (kwargs, snapshot) in enumerate(kept):
        assert kwargs == snapshot, f"turn {turn}'s request changed after later turns"
        assert exact(kwargs) == exact(snapshot)
    assert exact(kept[-1][0]) == exact(afresh(prompt, vendor))


def test_a_marker_never_lands_in_a_shared_piece() -> None:
    """The planned marker is on the request's own copy: the next turn's request has the same
    message without it, and the marked one keeps it."""
    prompt = Prompt(volatile="ignore").add_system("s").add_history(Message.user("u0"))
    prompt = prompt.with_tail("q")
    first = request(prompt, "anthropic")
    second = request(prompt.commit_tail("a").with_tail("q2"), "anthropic")
    assert "cache_control" in first["messages"][0]["content"][-1]
    assert "cache_control" not in second["messages"][0]["content"][-1]
    assert "cache_control" in first["messages"][0]["content"][-1]


def test_gemini_irregular_call_ids_are_written_afresh() -> None:
    """A function response names its function from the call with its id anywhere in the
    conversation; a call that comes later (or a reused id) changes an earlier block's piece."""
    early = Message.user([ToolResult(tool_use_id="late", content="r")])
    prompt = Prompt(volatile="ignore").add_history(early).with_tail("q")
    assert exact(request(prompt, "gemini")) == exact(afresh(prompt, "gemini"))
    grown = prompt.commit_tail(Message.assistant([ToolUse(id="late", name="search", input={})]))
    grown = grown.with_tail("q2")
    kwargs = request(grown, "gemini")
    assert exact(kwargs) == exact(afresh(grown, "gemini"))
    response = kwargs["contents"][0]["parts"][0]["function_response"]
    assert response["name"] == "search"


@pytest.mark.parametrize("vendor", VENDORS)
def test_threads_growing_one_base_get_their_own_requests(vendor: str) -> None:
    """One base prompt shared by threads: each grows it its own way and gets its own request."""
    from concurrent.futures import ThreadPoolExecutor

    base = Prompt(volatile="ignore").add_tools(_tool("t")).add_system("s").with_tail("q")
    for turn in range(40):
        base = base.commit_tail(f"a{turn}").with_tail(f"q{turn}")
    request(base, vendor)

    def grow_and_send(worker: int) -> list[tuple[Prompt, dict[str, Any]]]:
        prompt, out = base, []
        for turn in range(20):
            prompt = prompt.commit_tail(f"w{worker} a{turn}").with_tail(f"w{worker} q{turn}")
            out.append((prompt, request(prompt, vendor)))
        return out

    with ThreadPoolExecutor(8) as pool:
        results = [r for batch in pool.map(grow_and_send, range(8)) for r in batch]
    for prompt, kwargs in results:
        assert exact(kwargs) == exact(afresh(prompt, vendor))


_HISTORY_KEY = {
    "anthropic": "messages",
    "openai": "messages",
    "engine": "messages",
    "openai-responses": "input",
    "gemini": "contents",
}


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_grown_prompt_reuses_the_pieces_of_unchanged_blocks(vendor: str) -> None:
    """The next turn's request holds the very same (unmarked) message objects as the one
    before: a turn writes its new blocks, not the history."""
    prompt = Prompt(volatile="ignore").add_system("s").add_docs("d").with_tail("q")
    for turn in range(30):
        prompt = prompt.commit_tail(f"a{turn}").with_tail(f"q{turn}")
    first = request(prompt, vendor)[_HISTORY_KEY[vendor]]
    second = request(prompt.commit_tail("a").with_tail("q"), vendor)[_HISTORY_KEY[vendor]]
    shared = sum(1 for a, b in zip(first, second, strict=False) if a is b)
    # Everything but the system message, the marked ones and the old tail is shared.
    assert shared >= len(first) - 6, (shared, len(first))


@pytest.mark.parametrize("vendor", ["openai", "openai-responses", "engine", "gemini"])
def test_a_long_tail_replaced_and_a_marker_far_back(vendor: str) -> None:
    """More blocks dropped than the layout remembers counts for (a 70-message tail replaced),
    and a breakpoint far back in the history: both as from scratch."""
    import dataclasses

    prompt = Prompt(volatile="ignore").add_system("s").with_tail("q")
    for turn in range(50):
        prompt = prompt.commit_tail(f"a{turn}").with_tail(f"q{turn}")
    long_tail = prompt.with_tail(*[f"t{n}" for n in range(70)])
    request(long_tail, vendor)
    short = long_tail.with_tail("done?")
    assert exact(request(short, vendor)) == exact(afresh(short, vendor))
    if vendor in ("engine", "gemini"):
        return
    chosen = plan(short, vendor=vendor, model=MODELS[vendor], min_tokens=1)
    far = dataclasses.replace(chosen.breakpoints[-1], block_index=3, path="history[2]")
    moved = dataclasses.replace(chosen, breakpoints=(far,))
    adapter = get_adapter(vendor)
    rebuilt = Prompt.from_json(short.to_json(), volatile="ignore")
    assert exact(adapter.to_request(short, model=MODELS[vendor], plan=moved)) == exact(
        adapter.to_request(rebuilt, model=MODELS[vendor], plan=moved)
    )
