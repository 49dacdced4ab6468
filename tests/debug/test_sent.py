"""`_sent`: wrap() reads a call's arguments exactly as the SDK serialises them."""

from __future__ import annotations

import collections
import datetime
import enum
import json
import types
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache._sent import Unreadable, _converted, read_call, sent_form, settle

TRANSPORT = frozenset({"extra_headers", "extra_query", "timeout"})

leaves = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
documents = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=30,
)


def _disguise(data: st.DataObject, value: Any, iterators: bool) -> Any:
    """`value` with its containers swapped for others the SDK sends the same way."""
    if isinstance(value, list):
        items = [_disguise(data, item, iterators) for item in value]
        kinds = ["list", "tuple", "deque", "values"] + (["generator"] if iterators else [])
        kind = data.draw(st.sampled_from(kinds))
        if kind == "tuple":
            return tuple(items)
        if kind == "deque":
            return collections.deque(items)
        if kind == "values":
            return {str(i): item for i, item in enumerate(items)}.values()
        if kind == "generator":
            return (item for item in items)
        return items
    if isinstance(value, dict):
        inner = {k: _disguise(data, v, iterators) for k, v in value.items()}
        kind = data.draw(st.sampled_from(["dict", "proxy", "ordered"]))
        if kind == "proxy":
            return types.MappingProxyType(inner)
        return collections.OrderedDict(inner) if kind == "ordered" else inner
    return value


def _sdk_sends(kwargs: dict[str, Any]) -> Any:
    """The JSON body the Anthropic SDK sends for these arguments (its own serialiser)."""
    from anthropic._utils._json import openapi_dumps
    from anthropic._utils._prepare import prepare_request_data

    return json.loads(openapi_dumps(prepare_request_data(kwargs, location="body")))


def _as_json(value: Any) -> Any:
    return json.loads(orjson.dumps(value))


@settings(max_examples=150, deadline=None)
@given(document=documents, data=st.data())
def test_the_request_read_is_the_body_the_sdk_sends(document: Any, data: st.DataObject) -> None:
    pytest.importorskip("anthropic")
    disguised = _disguise(data, document, iterators=True)
    request, handed = read_call({"model": "m", "messages": disguised}, TRANSPORT, "anthropic")
    assert _as_json(request) == {"model": "m", "messages": _as_json(document)}
    # what the SDK is handed (iterators drained into lists) serialises to that same body
    assert _sdk_sends(handed) == _as_json(request)


@settings(max_examples=150, deadline=None)
@given(document=documents, data=st.data())
def test_orjsons_pass_and_the_walk_agree(document: Any, data: st.DataObject) -> None:
    disguised = {"messages": _disguise(data, document, iterators=False)}
    walked = sent_form(disguised, "anthropic")
    converted = _converted(disguised, "anthropic")
    assert converted is not None and converted == walked == {"messages": _as_json(document)}


class Colour(enum.Enum):
    RED = "red"


@pytest.mark.parametrize(
    ("value", "sent"),
    [
        (b"\x00\x01", "AAE="),
        (datetime.date(2026, 11, 29), "2026-11-29"),
        (Colour.RED, "red"),
        (collections.UserString("hi"), "hi"),
        ({2: "a", None: "b", 1.5: "c"}, {"2": "a", "null": "b", "1.5": "c"}),
        (frozenset({"only"}), ["only"]),
    ],
)
def test_values_the_sdk_converts(value: Any, sent: Any) -> None:
    assert sent_form({"x": value}, "anthropic") == {"x": sent}
    converted = _converted({"x": value}, "anthropic")
    assert converted is None or converted == {"x": sent}


def test_pydantic_models_are_dumped_as_the_sdk_sends_them() -> None:
    anthropic = pytest.importorskip("anthropic")
    block = anthropic.types.TextBlockParam(type="text", text="hi")  # a TypedDict: a dict
    message = anthropic.types.Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [{"type": "text", "text": "Ok."}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    kwargs = {"messages": [{"role": "user", "content": [block]}, message]}
    request, _ = read_call(kwargs, TRANSPORT, "anthropic")
    assert request == _sdk_sends(kwargs)


@pytest.mark.parametrize(
    ("value", "path", "why"),
    [
        ({"messages": [{"content": object()}]}, "messages[0].content", "does not send as JSON"),
        ({"system": float("nan")}, "system", "JSON cannot hold"),
        ({"tools": {("a", "b"): 1}}, "tools", "key JSON cannot hold"),
        ({"metadata": {"jane.roe@example.com": object()}}, "metadata.<key>", "as JSON"),
    ],
)
def test_what_cannot_be_read_is_named_by_path_type_length_and_hash(
    value: dict[str, Any], path: str, why: str
) -> None:
    with pytest.raises(Unreadable) as caught:
        sent_form(value, "anthropic")
    assert caught.value.path == path and why in caught.value.why
    assert "sha256 " in caught.value.shape or caught.value.shape == "float nan"


def test_nesting_deeper_than_json_allows_is_unreadable_not_a_crash() -> None:
    deep: Any = "leaf"
    for _ in range(300):
        deep = [deep]
    with pytest.raises(Unreadable, match="deeper"):
        sent_form({"messages": deep}, "anthropic")


def test_settle_copies_only_around_iterators() -> None:
    plain = [{"role": "user", "content": "hi"}]
    kwargs = {"messages": plain, "tools": ({"n": i} for i in range(2))}
    settled = settle(kwargs)
    assert settled["messages"] is plain and settled["tools"] == [{"n": 0}, {"n": 1}]
