"""
`promptcache report` on logs with more sessions in flight than the body budget holds: a body is
fingerprinted from the parsed request in hand when it is observed (`fingerprint_held`), not by
parsing its kept JSON again when it is dropped. The fingerprint must be the one the drop made.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache._report import ReportBuilder, build_report
from promptcache._tokens import DEFAULT_COUNTER
from promptcache.debug.fingerprint import Fingerprint, fingerprint, fingerprint_held
from promptcache.debug.memory import Serialised
from promptcache.vendors import get_vendor

_TEXT = st.text(alphabet=st.sampled_from('ab Zé東😀"\\\n'), max_size=40)
_MARKER = st.sampled_from(
    [
        None,
        {"type": "ephemeral"},
        {"type": "ephemeral", "ttl": "5m"},
        {"type": "ephemeral", "ttl": "1h"},
    ]
)


# The monitor weighs a body at 4 bytes a token of its input (10 or 15 tokens a line here):
# this budget holds one body, never two.
_ONE_BODY = 70


def _marked(value: dict[str, Any], marker: dict[str, Any] | None) -> dict[str, Any]:
    return value if marker is None else {**value, "cache_control": marker}


@st.composite
def _blocks(draw: st.DrawFn) -> list[dict[str, Any]]:
    return [
        _marked({"type": "text", "text": draw(_TEXT)}, draw(_MARKER))
        for _ in range(draw(st.integers(1, 3)))
    ]


@st.composite
def _message(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(["user", "assistant"]))
    content: Any = draw(st.one_of(_TEXT, _blocks()))
    message = _marked({"role": role, "content": content}, draw(_MARKER))
    if draw(st.booleans()):
        message["prompt_cache_breakpoint"] = {"mode": draw(_TEXT)}
    return message


@st.composite
def _tool(draw: st.DrawFn) -> dict[str, Any]:
    tool = {
        "name": draw(_TEXT),
        "description": draw(_TEXT),
        "input_schema": {"type": "object", "properties": {draw(_TEXT): {"type": "string"}}},
    }
    return _marked(tool, draw(_MARKER))


@st.composite
def anthropic_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """Anthropic requests with markers wherever callers put them and text that is not ASCII."""
    body: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": draw(st.integers(1, 9))}
    if draw(st.booleans()):
        body["tools"] = draw(st.lists(_tool(), max_size=3))
    if draw(st.booleans()):
        body["system"] = draw(st.one_of(_TEXT, _blocks()))
    body["messages"] = draw(st.lists(_message(), min_size=1, max_size=4))
    return body


def _fields(found: Fingerprint | None) -> tuple[Any, ...]:
    assert found is not None
    return (
        found.spans,
        found.digests.tolist(),
        found.sizes.tolist(),
        found.marks,
        found.counted.tolist(),
        found.tokens.tolist(),
        found.chars_per_token,
    )


def _fillers(count: int = 64) -> list[bytes]:
    """Lines of `count` keys, one after the other: each drops the body before it."""
    body = {"model": "claude-sonnet-4-6", "messages": []}
    return [_line(body, f"filler-{i}") for i in range(count)]


def _dropping_builder() -> ReportBuilder:
    """A builder whose Anthropic monitor drops a body at nearly every observation."""
    builder = ReportBuilder(body_budget=_ONE_BODY, strict=True)
    for number, line in enumerate(_fillers(), start=1):
        builder.add_line(line, number)
    assert builder._monitors["anthropic"]._keys.dropping
    return builder


def _line(request: dict[str, Any], key: str, read: int = 0) -> bytes:
    usage = {"input_tokens": 10, "cache_read_input_tokens": read, "cache_creation_input_tokens": 0}
    record = {"vendor": "anthropic", "key": key, "at": 1_764_000_000.0, "request": request}
    return orjson.dumps({**record, "usage": usage})


@settings(max_examples=150, deadline=None)
@given(anthropic_bodies())
def test_a_fingerprint_made_from_the_parsed_request_is_the_one_the_drop_made(
    body: dict[str, Any],
) -> None:
    # The old way: the drop parses the kept JSON back (`Serialised.load`) and fingerprints that.
    # The new way: the report fingerprints the tree it parsed from the log line, when observed.
    builder = _dropping_builder()
    builder.add_line(_line(body, "k", read=5), 3)
    monitor = builder._monitors["anthropic"]
    entry = monitor._keys.entries["k"]
    assert isinstance(entry.body, Serialised) and entry.fingerprint is not None
    old = fingerprint(get_vendor("anthropic"), entry.body.load(), DEFAULT_COUNTER)
    assert _fields(entry.fingerprint) == _fields(old)
    assert entry.fingerprint.records() == monitor._records_of(entry.vendor, entry.body.load())


def test_a_dropped_body_is_not_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # Failed first: every body dropped for the budget was parsed again from its JSON.
    builder = _dropping_builder()
    body = {"model": "claude-sonnet-4-6", "system": "s" * 5000, "messages": []}
    builder.add_line(_line(body, "k", read=5), 3)

    def refused(self: Serialised) -> dict[str, Any]:
        raise AssertionError("a dropped body was parsed again")

    monkeypatch.setattr(Serialised, "load", refused)
    builder.add_line(_line(body, "other", read=5), 4)  # drops k's body
    entry = builder._monitors["anthropic"]._keys.entries["k"]
    assert entry.body is None and entry.fingerprint is not None


@pytest.mark.parametrize("budget", [1 << 30, 600])
def test_nothing_is_fingerprinted_while_bodies_are_dropped_now_and_then(budget: int) -> None:
    # Within the budget (or past it once in a while: 600 bytes hold 15 of these bodies) a body
    # is mostly replaced by its key's next request, not dropped: fingerprinting it would be
    # work for nothing (on the 100,000-record full log, 1,030 drops: 14% slower).
    builder = ReportBuilder(body_budget=budget, strict=True)
    body = {"model": "claude-sonnet-4-6", "messages": []}
    lines = _fillers(15) * 8  # 15 keys in turn: the 600 bytes hold them all
    lines[20::8] = [_line(body, f"once-{i}") for i in range(len(lines[20::8]))]  # one drop each
    for number, line in enumerate(lines, start=1):
        builder.add_line(line, number)
    keys = builder._monitors["anthropic"]._keys
    assert not keys.dropping
    assert all(e.fingerprint is None for e in keys.entries.values() if e.body is not None)


def test_fingerprint_held_leaves_an_entry_that_is_not_the_observed_body_alone() -> None:
    builder = _dropping_builder()
    body = {"model": "claude-sonnet-4-6", "messages": []}
    builder.add_line(_line(body, "k", read=5), 3)
    monitor = builder._monitors["anthropic"]
    entry = monitor._keys.entries["k"]
    entry.fingerprint = None
    # Other bytes than the entry keeps: not this observation. (Bytes equal to the entry's are
    # its body, whichever object holds them: a kept body holds its start shared with others.)
    other = {**body, "max_tokens": 1}
    fingerprint_held(monitor._keys, "k", other, orjson.dumps(other), DEFAULT_COUNTER)
    assert entry.fingerprint is None


@settings(max_examples=25, deadline=None)
@given(st.lists(anthropic_bodies(), min_size=2, max_size=6))
def test_a_report_over_budget_says_what_it_said_before(bodies: list[dict[str, Any]]) -> None:
    # Conversations interleaved, the budget holding none of them: every miss is judged against
    # a fingerprint, made now from the parsed tree; the report must be the one the drop-time
    # fingerprint (the old way, `fingerprint_held` switched off) gives.
    turns = [_line(body, f"s{i % 3}", read=5 if i >= 3 else 0) for i, body in enumerate(bodies * 2)]
    lines = _fillers() + turns
    now = build_report(lines, body_budget=_ONE_BODY).to_json()
    with mock.patch("promptcache._report.fingerprint_held", lambda *args: None):
        before = build_report(lines, body_budget=_ONE_BODY).to_json()
    assert now == before
    assert now["records"] == len(lines)
