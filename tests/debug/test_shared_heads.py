"""
The report's kept bodies (`Serialised`) hold the start they share with other bodies once: each
must still read back as exactly its own JSON, and the heads must stay few.
"""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache.debug import memory
from promptcache.debug.memory import Serialised, _SharedHeads

SHARED = orjson.dumps({"tools": [{"name": "t", "description": "Looks things up. " * 200}]})[:-1]


def _body(session: int, turns: int) -> bytes:
    """A request's JSON: the shared tools, then the session's own turns."""
    own = [{"role": "user", "content": f"Question {t} of session {session}"} for t in range(turns)]
    return SHARED + b',"messages":' + orjson.dumps(own) + b"}"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([b"", SHARED, SHARED[:1500], b"{}"]), st.binary(max_size=600)),
        max_size=80,
    )
)
def test_a_body_reads_back_as_exactly_its_own_bytes(parts: list[tuple[bytes, bytes]]) -> None:
    kept = []
    for start, rest in parts:
        data = start + rest
        body = Serialised(data)
        kept.append((data, body))
    for data, body in kept:
        assert body.data == data
        assert body.holds(data)
        assert not body.holds(data + b" ")
        if data:  # the same length, one byte different (first, then last)
            assert not body.holds(bytes([data[0] ^ 1]) + data[1:])
            assert not body.holds(data[:-1] + bytes([data[-1] ^ 1]))
        assert (body.head + body.tail) == data


def test_a_body_loads_as_the_request_it_was() -> None:
    body = _body(7, 3)
    assert Serialised(body).load() == orjson.loads(body)


def test_bodies_of_many_sessions_hold_their_shared_start_once() -> None:
    heads = _SharedHeads()
    bodies = [_body(s, 1 + s % 5) for s in range(400)]
    kept = [heads.head_of(b) for b in bodies]
    shared = [h for h in kept if h]
    assert len(shared) > 300  # all but the bodies read before the head was learned
    assert len({id(h) for h in shared}) == 1  # one object, held once for all of them
    assert len(shared[0]) >= len(SHARED)


def test_the_heads_stay_few_whatever_the_bodies() -> None:
    heads = _SharedHeads()
    for n in range(5_000):  # a new shared start every 50 bodies
        heads.head_of(orjson.dumps({"system": f"app {n // 50} " * 300, "n": n}))
    assert 0 < len(heads._heads) <= memory._HEADS_KEPT


def test_bodies_that_share_nothing_learn_nothing() -> None:
    heads = _SharedHeads()
    for n in range(2_000):
        assert heads.head_of(orjson.dumps({"id": n, "text": f"{n} " * 700})) == b""
    assert heads._heads == []


def test_bodies_that_share_nothing_are_compared_only_now_and_then(monkeypatch: Any) -> None:
    """A try at learning a head costs a binary search of memcmps: not on every record."""
    calls = []
    real = memory._common_start

    def counted(a: bytes, b: bytes) -> int:
        calls.append(1)
        return real(a, b)

    monkeypatch.setattr(memory, "_common_start", counted)
    heads = _SharedHeads()
    for n in range(3_200):
        heads.head_of(orjson.dumps({"id": n, "text": f"{n} " * 700}))
    assert len(calls) == 3_200 // memory._LEARN_EVERY
