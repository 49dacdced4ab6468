from __future__ import annotations

import datetime
import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache import CanonicalError, Message, Prompt, Tool, canonical_bytes

json_scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8)
json_values = st.recursive(
    json_scalars | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


def _reinsert(value: Any, rng: Any) -> Any:
    """The same value with every dict rebuilt in a shuffled insertion order."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: _reinsert(v, rng) for k, v in items}
    if isinstance(value, list):
        return [_reinsert(v, rng) for v in value]
    return value


@given(value=json_values, seed=st.integers(0, 2**32))
def test_dict_insertion_order_never_changes_bytes(value: Any, seed: int) -> None:
    import random

    shuffled = _reinsert(value, random.Random(seed))
    assert canonical_bytes(shuffled) == canonical_bytes(value)


@given(
    schemas=st.lists(
        st.dictionaries(st.text(max_size=5), json_values, max_size=4), min_size=1, max_size=6
    ),
    seed=st.integers(0, 2**32),
)
@settings(max_examples=60)
def test_tool_order_never_changes_render_when_not_pinned(
    schemas: list[dict[str, Any]], seed: int
) -> None:
    import random

    tools = [Tool(name=f"tool_{i}", input_schema=schema) for i, schema in enumerate(schemas)]
    shuffled = tools[:]
    random.Random(seed).shuffle(shuffled)
    # Random schemas can hold a value that looks volatile ("0:00:00"); that is not this test's subject.
    a = Prompt(volatile="ignore").add_tools(*tools).render()
    b = Prompt(volatile="ignore").add_tools(*shuffled).render()
    assert [blk.data for blk in a] == [blk.data for blk in b]
    assert [blk.hash for blk in a] == [blk.hash for blk in b]


@pytest.mark.parametrize(
    ("value", "path", "problem"),
    [
        (
            {"properties": {"when": {"default": float("nan")}}},
            ".properties.when.default",
            "nan is not valid JSON",
        ),
        ({"x": [1, float("inf")]}, ".x[1]", "inf is not valid JSON"),
        ({"x": {"a", "b"}}, ".x", "a set has no stable order"),
        ({"x": frozenset({1})}, ".x", "a frozenset has no stable order"),
        ({"x": {1: "one"}}, '.x["1"]', "key 1 is a int"),
        ({"x": datetime.datetime(2026, 1, 1)}, ".x", "is not JSON-serialisable"),
        ({"x": object()}, ".x", "is not JSON-serialisable"),
        ({"x": 2**70}, ".x", "does not fit in 64 bits"),
        ({"a b": {"c": {1.5}}}, '["a b"].c', "a set"),
    ],
)
def test_bad_values_name_their_path_and_fix(value: Any, path: str, problem: str) -> None:
    with pytest.raises(CanonicalError) as info:
        canonical_bytes(value, "tools[3].input_schema")
    assert info.value.path == "tools[3].input_schema" + path
    assert problem in str(info.value)
    assert "Fix:" in str(info.value)


def test_tool_schema_error_names_tool_index() -> None:
    good = Tool(name="a", input_schema={"type": "object"})
    bad = Tool(name="b", input_schema={"properties": {"when": {"default": float("nan")}}})
    with pytest.raises(
        CanonicalError, match=r"tools\[1\]\.input_schema\.properties\.when\.default"
    ):
        Prompt().add_tools(good, bad)


def test_null_is_still_allowed() -> None:
    assert canonical_bytes({"default": None, "b": [None]}) == b'{"b":[null],"default":null}'


def test_a_null_does_not_send_the_value_down_the_slow_walk(monkeypatch: Any) -> None:
    """A schema property with `"default": null` is everyday input: its bytes are checked in C,
    not by walking every value in Python (which cost 8x the serialisation)."""
    import promptcache._canonical as canonical

    def walk(value: Any, path: str) -> None:
        raise AssertionError(f"slow walk for {path}")

    monkeypatch.setattr(canonical, "_explain", walk)
    schema = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "default": None} for i in range(20)},
    }
    assert canonical_bytes(schema).count(b"null") == 20


@settings(max_examples=200, deadline=None)
@given(
    value=json_values,
    bad=st.sampled_from([float("nan"), float("inf"), float("-inf")]),
    seed=st.integers(0, 10_000),
)
def test_nan_and_infinity_are_refused_wherever_they_sit_among_nulls(
    value: Any, bad: float, seed: int
) -> None:
    """orjson writes NaN and Infinity as null: they must still be refused, beside real nulls."""
    import random

    rng = random.Random(seed)
    holder: Any = {"null": None, "value": value}
    target = holder
    while True:  # descend to a random dict or list inside the value, and put the bad float there
        children = [
            v
            for v in (target.values() if isinstance(target, dict) else target)
            if isinstance(v, dict | list)
        ]
        if not children or rng.random() < 0.4:
            break
        target = rng.choice(children)
    if isinstance(target, dict):
        target["bad"] = bad
    else:
        target.append(bad)
    with pytest.raises(CanonicalError, match="not valid JSON"):
        canonical_bytes(holder)


def test_non_ascii_is_kept_verbatim() -> None:
    assert canonical_bytes({"t": "héllo 日本"}) == '{"t":"héllo 日本"}'.encode()


_SCRIPT = textwrap.dedent(
    """
    import sys
    from promptcache import Doc, Message, Prompt, Tool
    tools = [Tool(name=n, input_schema={"properties": {k: {"type": "string"} for k in set("zyxwv")}, "type": "object"})
             for n in {"search", "fetch", "summarise", "translate", "calc"}]
    p = (Prompt().add_tools(*tools).add_system("Be brief.").add_docs(Doc(text="manual", title="m"))
         .add_history(Message.user("hi"), Message.assistant("hello")).with_tail("q"))
    sys.stdout.write("\\n".join(b.hash.hex() for b in p.render()))
    """
)


def test_equal_prompts_give_equal_bytes_under_any_hash_seed() -> None:
    outputs = set()
    for seed in ("0", "1", "42", "12345", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run(
            [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(result.stdout)
    assert len(outputs) == 1
    assert len(next(iter(outputs)).split()) == 10


@given(text=st.text(), role=st.sampled_from(["user", "assistant"]))
def test_a_text_message_is_assembled_to_the_same_bytes_as_serialising_it(
    text: str, role: Any
) -> None:
    message = Message(role=role, content=text)
    assert message.canonical() == canonical_bytes(message.to_json())


def test_a_text_message_orjson_refuses_is_named_when_used() -> None:
    message = Message.user("lone \ud800 surrogate")
    with pytest.raises(CanonicalError, match=r"tail\[0\]"):
        Prompt().with_tail(message)
