from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache import (
    Doc,
    ImagePart,
    InputError,
    Layer,
    Message,
    Prompt,
    SystemBlock,
    TextPart,
    ThinkingPart,
    Tool,
    ToolResult,
    ToolUse,
    VolatileContentError,
)

SEARCH = Tool(name="search", description="Search the web", input_schema={"type": "object"})
FETCH = Tool(name="fetch", description="Fetch a page", input_schema={"type": "object"})


def layers(prompt: Prompt) -> list[str]:
    return [str(block.layer) for block in prompt.render()]


def test_parts_land_in_their_layer_whatever_the_call_order() -> None:
    a = (
        Prompt()
        .with_tail("question")
        .add_history(Message.user("hi"))
        .add_docs("manual")
        .add_system("system")
        .add_tools(SEARCH)
    )
    b = (
        Prompt()
        .add_tools(SEARCH)
        .add_system("system")
        .add_docs("manual")
        .add_history(Message.user("hi"))
        .with_tail("question")
    )
    assert layers(a) == ["tools", "system", "docs", "history", "tail"]
    assert [x.hash for x in a.render()] == [x.hash for x in b.render()]


def test_builder_never_mutates_the_base() -> None:
    base = Prompt().add_system("You are terse.")
    one = base.with_tail("first")
    two = base.with_tail("second")
    assert base.tail == ()
    assert one.tail[0].text == "first"
    assert two.tail[0].text == "second"
    assert (
        base.render().blocks[0].hash == one.render().blocks[0].hash == two.render().blocks[0].hash
    )


def test_tools_sorted_by_name_unless_pinned() -> None:
    assert [p.name for p in Prompt().add_tools(SEARCH, FETCH).layer(Layer.TOOLS)] == [
        "fetch",
        "search",
    ]
    pinned = Prompt(pin_tool_order=True).add_tools(SEARCH, FETCH)
    assert [p.name for p in pinned.layer(Layer.TOOLS)] == ["search", "fetch"]
    assert [p.name for p in Prompt().add_tools(SEARCH, FETCH).pinned().layer(Layer.TOOLS)] == [
        "search",
        "fetch",
    ]


def test_tool_dicts_are_accepted_and_duplicates_refused() -> None:
    prompt = Prompt().add_tools(
        {"name": "calc", "description": "d", "input_schema": {"type": "object"}}
    )
    assert prompt.tools[0] == Tool(name="calc", description="d", input_schema={"type": "object"})
    with pytest.raises(InputError, match="two tools are named 'calc'"):
        prompt.add_tools(Tool(name="calc"))
    with pytest.raises(InputError, match="unknown tool keys"):
        Prompt().add_tools({"name": "x", "schema": {}})


def test_parts_equal_by_canonical_bytes_and_hashable() -> None:
    a = Tool(name="t", input_schema={"b": 1, "a": 2})
    b = Tool(name="t", input_schema={"a": 2, "b": 1})
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1
    assert Message.user("x") != Message.assistant("x")


def test_parts_are_frozen() -> None:
    with pytest.raises(AttributeError):
        SEARCH.name = "other"  # type: ignore[misc]


def test_part_snapshot_ignores_later_mutation_of_caller_dict() -> None:
    schema: dict[str, Any] = {"type": "object"}
    prompt = Prompt().add_tools(Tool(name="t", input_schema=schema))
    before = prompt.render().blocks[0].data
    schema["type"] = "array"
    assert prompt.render().blocks[0].data == before


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Message(role="system", content="x"), "must be 'user' or 'assistant'"),  # type: ignore[arg-type]
        (lambda: Message.user([{"type": "text"}]), "must be a content part"),  # type: ignore[list-item]
        (lambda: SystemBlock(text=3), "SystemBlock.text must be str"),  # type: ignore[arg-type]
        (lambda: Tool(name=""), "must not be empty"),
        (lambda: Tool(name="t", input_schema=[1]), "must be a dict"),  # type: ignore[arg-type]
        (lambda: ImagePart(), "exactly one of data="),
        (lambda: Prompt(volatile="loud"), "volatile must be"),  # type: ignore[arg-type]
        (lambda: Prompt().with_tail(42), "expected a Message or str"),  # type: ignore[arg-type]
    ],
)
def test_bad_parts_get_clear_errors(build: Any, message: str) -> None:
    with pytest.raises(InputError, match=message):
        build()


def test_commit_tail_keeps_the_prefix_hashes() -> None:
    turn1 = Prompt().add_system("sys").with_tail("What is 2+2?")
    turn2 = turn1.commit_tail("4").with_tail("And 3+3?")
    one, two = turn1.render(), turn2.render()
    assert [b.hash for b in one] == [b.hash for b in two][: len(one)]
    assert [str(b.layer) for b in two] == ["system", "history", "history", "tail"]
    assert two.blocks[2].role == "assistant"


def test_rendered_prefix_and_tokens() -> None:
    rendered = Prompt().add_system("a" * 400).with_tail("b" * 40).render()
    assert rendered.layer_tokens(Layer.SYSTEM) > rendered.layer_tokens(Layer.TAIL) > 0
    assert rendered.prefix_hash == rendered.blocks[0].hash
    assert rendered.static == rendered.blocks[:1]  # the system block; the tail is not static
    grown = Prompt().add_tools(SEARCH).add_docs("d").add_history(Message.user("h")).render()
    assert [b.path for b in grown.static] == ["tools[0]", "docs[0]"]
    assert rendered.tokens == sum(b.tokens for b in rendered)
    assert Prompt().render().prefix_hash == b""


def test_block_paths_and_parts() -> None:
    msg = Message.assistant(
        [TextPart(text="calling"), ToolUse(id="t1", name="search", input={"q": "x"})]
    )
    rendered = (
        Prompt()
        .add_history(msg, Message.user([ToolResult(tool_use_id="t1", content="ok")]))
        .render()
    )
    assert [b.path for b in rendered] == ["history[0]", "history[1]"]
    assert rendered.blocks[0].parts == 2
    assert len(rendered.blocks[0].digest) == 12


messages = st.builds(
    lambda role, text: Message(role=role, content=text),
    st.sampled_from(["user", "assistant"]),
    st.text(max_size=30),
)


@given(
    system=st.lists(st.text(max_size=40), max_size=3),
    first=st.lists(messages, max_size=5),
    later=st.lists(messages, min_size=1, max_size=5),
    tail=st.text(max_size=20),
)
@settings(max_examples=80)
def test_incremental_render_equals_render_from_scratch(
    system: list[str], first: list[Message], later: list[Message], tail: str
) -> None:
    base = Prompt(volatile="ignore").add_system(*system).add_history(*first).with_tail(tail)
    base.render()  # memoise, so the next prompt reuses these blocks
    grown = base.commit_tail("ok").add_history(*later).with_tail(tail)
    scratch = (
        Prompt(volatile="ignore")
        .add_system(*system)
        .add_history(*first, Message.user(tail), Message.assistant("ok"), *later)
        .with_tail(tail)
    )
    assert grown.render().blocks == scratch.render().blocks


_steps = st.lists(
    st.tuples(
        st.sampled_from(
            ["tool", "system", "doc", "history", "tail", "commit", "pin", "unpin", "render"]
        ),
        st.text(alphabet="abc", max_size=3),
    ),
    max_size=25,
)


@given(steps=_steps)
@settings(max_examples=150)
def test_any_sequence_of_builder_calls_renders_as_from_scratch(steps: list[Any]) -> None:
    """Whatever was rendered on the way, the blocks carried forward are exactly the valid ones."""
    prompt = Prompt(volatile="ignore")
    for number, (step, text) in enumerate(steps):
        if step == "tool":  # a new name sorts in anywhere among the others
            prompt = prompt.add_tools(Tool(name=f"{text}{number:02}", description=text))
        elif step == "system":
            prompt = prompt.add_system(text)
        elif step == "doc":
            prompt = prompt.add_docs(text)
        elif step == "history":
            prompt = prompt.add_history(Message.user(text))
        elif step == "tail":
            prompt = prompt.with_tail(text)
        elif step == "commit":
            prompt = prompt.commit_tail(text)
        elif step in ("pin", "unpin"):
            prompt = prompt.pinned(step == "pin")
        else:
            prompt.render()
    scratch = Prompt(
        tools=prompt.tools,
        system=prompt.system,
        docs=prompt.docs,
        history=prompt.history,
        tail=prompt.tail,
        pin_tool_order=prompt.pin_tool_order,
        volatile="ignore",
    )
    assert prompt.render().blocks == scratch.render().blocks


def test_a_prompt_cannot_be_changed_in_place() -> None:
    prompt = Prompt().add_system("s")
    with pytest.raises(AttributeError, match="immutable"):
        prompt.volatile = "error"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        del prompt.pin_tool_order  # type: ignore[misc]
    assert repr(prompt) == (
        "<Prompt tools=0, system=1, docs=0, history=0, tail=0, pin_tool_order=False, "
        "volatile='warn'>"
    )


def test_the_layer_keywords_are_checked_and_guarded_like_the_builder() -> None:
    built = Prompt(tools=[{"name": "t"}], system=["s"], docs=["d"], tail=["q"])
    assert layers(built) == ["tools", "system", "docs", "tail"]
    with pytest.raises(VolatileContentError, match=r"system\[0\]"):
        # the guard flags a timestamp near the current moment: take it from the clock, not a
        # calendar date (a fixed date falls out of the three-day window and the test fails)
        Prompt(system=[f"It is {datetime.now(UTC):%Y-%m-%dT%H:%M:%SZ}"], volatile="error")
    with pytest.raises(InputError, match="expected a Message or str"):
        Prompt(history=[{"role": "user", "content": "hi"}])  # type: ignore[list-item]
    with pytest.raises(InputError, match="expected a Message or str"):
        Prompt().commit_tail(42)  # type: ignore[arg-type]


def test_incremental_render_reuses_unchanged_blocks() -> None:
    base = Prompt().add_system("s").add_history(Message.user("a"), Message.assistant("b"))
    first = base.render()
    grown = base.add_history(Message.user("c")).render()
    assert all(x is y for x, y in zip(first.blocks, grown.blocks[:3], strict=False))


def test_one_base_prompt_shared_by_threads() -> None:
    base = Prompt().add_tools(SEARCH, FETCH).add_system("shared")
    results: dict[int, list[bytes]] = {}

    def work(i: int) -> None:
        results[i] = [b.hash for b in base.with_tail(f"q{i}").render()][:3]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({tuple(v) for v in results.values()}) == 1


def test_json_round_trip() -> None:
    prompt = (
        Prompt()
        .add_tools(SEARCH)
        .add_system("sys")
        .add_docs(Doc(text="d", title="T", source="s.md"))
        .add_history(
            Message.assistant(
                [ThinkingPart(thinking="hmm", signature="sig"), ToolUse(id="1", name="search")]
            ),
            Message.user(
                [ToolResult(tool_use_id="1", content=(TextPart(text="r"),), is_error=True)]
            ),
        )
        .with_tail(
            Message.user([ImagePart(url="https://example.invalid/a.png"), TextPart(text="?")])
        )
    )
    again = Prompt.from_json(prompt.to_json())
    assert [b.hash for b in again.render()] == [b.hash for b in prompt.render()]
    with pytest.raises(InputError, match="not a dumped Prompt"):
        Prompt.from_json({"format": "other"})


def test_a_part_shared_by_different_prefixes_hashes_right_in_each() -> None:
    shared = Message.user("the same turn")
    a = Prompt().add_system("alpha").add_history(shared)
    b = Prompt().add_system("beta").add_history(shared)
    for _ in range(2):  # the second round hits each part's memo of its last predecessor
        for prompt, system in ((a, "alpha"), (b, "beta"), (a, "alpha")):
            fresh = Prompt().add_system(system).add_history(Message.user("the same turn"))
            assert [x.hash for x in prompt.pinned(False).render()] == [
                x.hash for x in fresh.render()
            ]


def test_chain_hash_definition() -> None:
    import hashlib

    rendered = Prompt().add_system("s").with_tail("q").render()
    first, second = rendered.blocks
    system_digest = hashlib.sha256(first.data).digest()
    assert first.hash == hashlib.sha256(b"" + b"system\0" + system_digest).digest()
    tail_digest = hashlib.sha256(second.data).digest()
    assert second.hash == hashlib.sha256(first.hash + b"user\0" + tail_digest).digest()


_EVERY_KIND = [
    Tool(name="t", input_schema={"b": 1, "a": 2}),
    SystemBlock(text="s"),
    Doc(text="d", title="manual"),
    Message.assistant([TextPart(text="a"), ToolUse(id="1", name="n", input={"q": [1]})]),
    Message.user([ToolResult(tool_use_id="1", content=(TextPart(text="r"),))]),
    ImagePart(url="https://example.invalid/a.png"),
    ThinkingPart(thinking="hm", signature="sig"),
]


@pytest.mark.parametrize("part", _EVERY_KIND, ids=lambda p: type(p).__name__)
def test_parts_are_plain_dataclasses_to_copy_pickle_and_inspect(part: Any) -> None:
    import copy
    import dataclasses
    import pickle

    part.canonical()  # fill the memo first: copies must not share it, fields must not show it
    assert "_memo" not in dataclasses.asdict(part)
    assert "_memo" not in {f.name for f in dataclasses.fields(part)}
    for twin in (pickle.loads(pickle.dumps(part)), copy.deepcopy(part), copy.copy(part)):
        assert twin == part and twin.canonical() == part.canonical()
        assert twin._memo is not part._memo
