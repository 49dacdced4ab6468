"""The monitor at scale: O(1) work per observation however many keys, bounded memory, threads."""

from __future__ import annotations

import asyncio
import copy
import threading
from typing import Any

import orjson
import pytest

from promptcache import CacheUsage, Monitor
from promptcache._tokens import DEFAULT_COUNTER
from promptcache.debug import memory

from . import pairs

_USAGE = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)


def _counting_has_body(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count every look at an entry's `has_body`: what a walk over the kept entries would do."""
    seen = [0]
    original = memory.Entry.has_body

    def counted(entry: memory.Entry) -> bool:
        seen[0] += 1
        return bool(original.fget(entry))  # type: ignore[attr-defined]

    monkeypatch.setattr(memory.Entry, "has_body", property(counted))
    return seen


def test_over_budget_observation_does_not_walk_the_bodiless_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Budget for about one body: every key before the last has dropped its body already. The
    # over-budget path must drop the one body it needs to, not look at 3,000 bodiless entries.
    request = pairs.anthropic()
    monitor = Monitor("anthropic", metrics=False, body_budget=8_500, max_keys=5_000)
    for n in range(3_000):
        monitor.observe(request, usage=_USAGE, key=f"k{n}", at=float(n))
    seen = _counting_has_body(monkeypatch)
    for n in range(3_000, 3_010):
        monitor.observe(request, usage=_USAGE, key=f"k{n}", at=float(n))
    assert seen[0] <= 20, f"{seen[0]} entries looked at for 10 observations"
    held = monitor.memory()
    assert held["body_bytes"] <= held["body_budget"] and held["keys"] == 3_010


def test_body_budget_and_key_limit_hold_and_accounting_matches() -> None:
    request = pairs.anthropic()
    monitor = Monitor("anthropic", metrics=False, body_budget=50_000, max_keys=100)
    for n in range(1_000):
        monitor.observe(request, usage=_USAGE, key=f"k{n % 300}", at=float(n))
        held = monitor.memory()
        assert held["body_bytes"] <= 50_000 and held["keys"] <= 100
    state = monitor._keys
    bodies = [e for e in state.entries.values() if e.body is not None]
    assert sum(e.size for e in bodies) == state.body_bytes
    assert set(state.bodies) == {k for k, e in state.entries.items() if e.body is not None}
    monitor.forget("k999")
    assert sum(e.size for e in state.entries.values() if e.body is not None) == state.body_bytes


def test_a_key_over_budget_is_still_judged_from_its_hashes() -> None:
    events: list[Any] = []
    monitor = Monitor(
        "anthropic", metrics=False, body_budget=1, on_invalidation=events.append, max_keys=10
    )
    request = pairs.anthropic()
    changed = copy.deepcopy(request)
    changed["system"][0]["text"] = "something else entirely " * 200
    monitor.observe(request, usage=_USAGE, key="a", at=0.0)
    monitor.observe(request, usage=_USAGE, key="b", at=1.0)
    monitor.observe(
        changed,
        usage=CacheUsage(uncached_input=2005, cache_read=0, cache_write=0, output=1),
        key="a",
        at=2.0,
    )
    assert [e.cause for e in events] == ["content_changed"]


def test_threads_and_asyncio_share_one_monitor() -> None:
    request = pairs.anthropic()
    monitor = Monitor("anthropic", metrics=False, body_budget=40_000, max_keys=200)

    def worker(t: int) -> None:
        for n in range(300):
            monitor.observe(request, usage=_USAGE, key=f"t{t}-{n % 50}", at=float(n))

    async def tasks() -> None:
        async def one(k: int) -> None:
            for n in range(100):
                monitor.observe(request, usage=_USAGE, key=f"a{k}", at=float(n))
                await asyncio.sleep(0)

        await asyncio.gather(*(one(k) for k in range(20)))

    pool = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for thread in pool:
        thread.start()
    asyncio.run(tasks())
    for thread in pool:
        thread.join()
    assert monitor.stats()["observations"] == 8 * 300 + 20 * 100
    state = monitor._keys
    assert len(state) <= 200 and state.body_bytes <= 40_000
    assert sum(e.size for e in state.entries.values() if e.body is not None) == state.body_bytes


def test_memory_reports_an_estimate_in_bytes_that_tracks_the_hashes() -> None:
    monitor = Monitor("anthropic", metrics=False, body_budget=0, max_keys=50)
    for n in range(80):
        monitor.observe(pairs.anthropic(), usage=_USAGE, key=f"k{n}", at=float(n))
    held = monitor.memory()
    state = monitor._keys
    records = sum(len(e.records or ()) for e in state.entries.values())
    elements = sum(len(e.fingerprint or ()) for e in state.entries.values())
    assert held["hashes"] == records + elements and elements > 0
    assert held["estimated_bytes"] == (
        held["body_bytes"]
        + memory.ENTRY_BYTES * held["keys"]
        + memory.RECORD_BYTES * records
        + memory.FINGERPRINT_BYTES * sum(e.fingerprint is not None for e in state.entries.values())
        + memory.ELEMENT_BYTES * elements
    )


def test_memory_counts_the_non_ascii_token_counts_and_takes_them_back() -> None:
    # A fingerprint keeps a token count for each element that is not ASCII (COUNT_BYTES each):
    # the estimate includes them, and forgetting the keys takes every one of them back.
    monitor = Monitor("anthropic", metrics=False, body_budget=0, max_keys=50)
    for n in range(20):
        monitor.observe(
            pairs.anthropic(system=f"Règles {n}: répondez en français."),
            usage=_USAGE,
            key=f"k{n}",
            at=float(n),
        )
    state = monitor._keys
    kept = [e.fingerprint for e in state.entries.values() if e.fingerprint is not None]
    counts = sum(len(f.tokens) for f in kept)
    assert len(kept) == 20 and counts >= 20 and state.counts == counts
    held = monitor.memory()
    assert held["estimated_bytes"] == (
        memory.ENTRY_BYTES * held["keys"]
        + memory.FINGERPRINT_BYTES * len(kept)
        + memory.ELEMENT_BYTES * sum(len(f) for f in kept)
        + memory.COUNT_BYTES * counts
    )
    for n in range(20):
        state.forget(f"k{n}")
    assert (state.counts, state.elements, state.fingerprints) == (0, 0, 0)
    assert monitor.memory()["estimated_bytes"] == 0


def _cold_records(vendor: str, request: dict[str, Any]) -> tuple[memory.Record, ...]:
    """Each element hashed from scratch, through nothing but `Element` and the digest."""
    from promptcache.debug.fingerprint import digest
    from promptcache.vendors import get_vendor

    out = []
    for element in get_vendor(vendor).elements(request):
        stripped, ttl, marked = memory.without_markers(element)
        data = orjson.dumps(stripped)
        tokens = DEFAULT_COUNTER.count(data.decode())
        out.append(memory.Record(element.layer, element.path, digest(data), tokens, ttl, marked))
    return tuple(out)


# A request of each vendor format: (vendor, a function that builds it).
_REQUESTS: list[tuple[str, Any]] = [
    ("anthropic", pairs.anthropic),
    ("openai", pairs.openai),
    ("openai-responses", pairs.openai_responses),
    ("gemini", pairs.gemini),
]


@pytest.mark.parametrize(("vendor", "request_of"), _REQUESTS)
def test_element_records_through_the_memo_equal_records_hashed_from_scratch(
    vendor: str, request_of: Any
) -> None:
    # The drop path takes records from a memo keyed by each element's JSON: a record found there
    # must be exactly the one hashing from scratch gives (path, layer, digest, tokens, markers),
    # for the same element sent again, the same bytes at another path, and an element edited in
    # place after it was seen.
    from promptcache.vendors import get_vendor

    monitor = Monitor(vendor, metrics=False)
    spec = get_vendor(vendor)
    request = request_of()
    first = monitor._records_of(spec, request)
    assert first == _cold_records(vendor, request)
    assert monitor._records_of(spec, request) == first  # every element from the memo now
    items = request.get("tools") or request.get("config", {}).get("tools")
    at = next(i for i, r in enumerate(first) if r.layer == "tools")
    items.append(copy.deepcopy(items[0]))  # the same bytes at a new path
    again = monitor._records_of(spec, request)
    assert again == _cold_records(vendor, request)
    copies = [r for r in again if r.digest == first[at].digest]
    assert len({r.path for r in copies}) == len(copies) >= 2
    target = items[0].get("function", items[0])
    target[next(iter(target))] = "edited in place after it was sent"
    edited = monitor._records_of(spec, request)
    assert edited == _cold_records(vendor, request)
    assert edited[at].digest != first[at].digest


def _marker_variants() -> list[dict[str, Any]]:
    """Anthropic requests with markers wherever callers put them, and text that is not ASCII."""
    base = pairs.anthropic()
    variants = []
    for ttl in (None, "5m", "1h"):
        marker: dict[str, Any] = {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}
        request = copy.deepcopy(base)
        request["tools"][-1]["cache_control"] = marker  # the last key: cut from the bytes
        request["system"] = [{"cache_control": marker, "type": "text", "text": "first key"}]
        request["messages"] = [
            {
                "role": "user",
                "content": [{"type": "text", "text": "Grüße, 東京", "cache_control": marker}],
            },
            {"role": "assistant", "content": "plain", "cache_control": marker},
            {"role": "user", "content": [{"type": "text", "text": "q"}], "cache_control": marker},
            {
                "role": "user",
                "content": "both",
                "prompt_cache_breakpoint": {"mode": "x"},
                "cache_control": marker,
            },
        ]
        variants.append(request)
    return variants


@pytest.mark.parametrize(
    ("vendor", "request_of"),
    [*_REQUESTS, *(("anthropic", (lambda r=r: r)) for r in _marker_variants())],
)
def test_a_dropped_body_fingerprint_gives_the_records_hashing_from_scratch_gives(
    vendor: str, request_of: Any
) -> None:
    # What stays of a body dropped for the budget is its fingerprint: the records made from it
    # must be exactly the records hashed element by element (digest, tokens, path, markers, TTL).
    from promptcache.debug.fingerprint import fingerprint
    from promptcache.vendors import get_vendor

    request = request_of()
    found = fingerprint(get_vendor(vendor), request, DEFAULT_COUNTER)
    assert found is not None
    assert found.records() == _cold_records(vendor, request)
    assert len(found) == len(_cold_records(vendor, request))


def test_a_body_the_fingerprint_cannot_take_keeps_its_records() -> None:
    # An SDK object among the elements (orjson cannot serialise it) or a counter other than the
    # estimate: the drop computes the records element by element, as before.
    from promptcache._tokens import EstimateCounter
    from promptcache.debug.fingerprint import fingerprint
    from promptcache.vendors import get_vendor

    class Sdk:
        def model_dump(self, **_: Any) -> dict[str, Any]:
            return {"role": "user", "content": "from an SDK object"}

    spec = get_vendor("anthropic")
    request = pairs.anthropic()
    request["messages"] = [*request["messages"], Sdk()]
    assert fingerprint(spec, request, DEFAULT_COUNTER) is None

    class Exact(EstimateCounter):
        name = "exact"

    assert fingerprint(spec, pairs.anthropic(), Exact()) is None
    monitor = Monitor("anthropic", metrics=False, body_budget=0)
    monitor.observe(request, usage=_USAGE, key="k", at=1.0)
    entry = monitor._keys.entries["k"]
    assert entry.body is None and entry.fingerprint is None and entry.records
    assert monitor.memory()["hashes"] == len(entry.records)


def test_judging_against_a_fingerprint_names_what_judging_against_the_body_names() -> None:
    # The same sessions judged with every body kept and with every body dropped at once: a moved
    # rolling marker is no change, an edited earlier turn is named at its element, and the TTL
    # the dropped body's marker asked for (1h) still decides whether a gap expired it.
    def session(budget: int) -> list[tuple[str, str | None]]:
        events: list[Any] = []
        monitor = Monitor(
            "anthropic", metrics=False, body_budget=budget, on_invalidation=events.append
        )
        request = pairs.anthropic()
        request["system"][0]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
        turns = [{"role": "user", "content": f"question {n}"} for n in range(6)]

        def sent(history: list[dict[str, Any]]) -> dict[str, Any]:
            blocks = [
                {"role": m["role"], "content": [{"type": "text", "text": m["content"]}]}
                for m in history
            ]
            blocks[-1]["content"][0]["cache_control"] = {"type": "ephemeral"}
            return dict(request, messages=blocks)

        hit = CacheUsage(uncached_input=5, cache_read=2000, cache_write=10, output=1)
        miss = CacheUsage(uncached_input=2000, cache_read=0, cache_write=2000, output=1)
        monitor.observe(sent(turns[:1]), usage=miss, key="k", at=0.0)
        monitor.observe(sent(turns[:2]), usage=hit, key="k", at=10.0)  # the marker moved
        monitor.observe(sent(turns[:3]), usage=miss, key="k", at=20.0)  # server side
        edited = copy.deepcopy(turns[:4])
        edited[1]["content"] = "question 1, edited"
        monitor.observe(sent(edited), usage=miss, key="k", at=30.0)
        monitor.observe(sent(edited + turns[4:5]), usage=miss, key="k", at=30.0 + 1800)
        monitor.observe(sent(edited + turns[4:6]), usage=miss, key="k", at=1830.0 + 3700)
        assert monitor.memory()["bodies"] == (0 if budget == 0 else 1)
        return [(e.cause, e.path) for e in events]

    kept, dropped = session(32 * 1024 * 1024), session(0)
    assert [cause for cause, _ in dropped] == ["none", "content_changed", "none", "ttl_expired"]
    assert dropped[1][1] == "messages[1]"
    assert [cause for cause, _ in kept] == [cause for cause, _ in dropped]
    assert kept[1][1] is not None and kept[1][1].startswith("messages[1]")


def test_records_judging_sets_while_the_body_is_dropped_do_not_unbalance_the_counts() -> None:
    # Judging computes the current entry's records outside the monitor's lock; another thread's
    # observation may drop that entry's body meanwhile, and the drop keeps a fingerprint (it saw
    # no records). The entry then holds both: forgetting it must take back what was counted (the
    # fingerprint), not the records set after the count (hashes went to -9, elements stayed 9).
    nothing = CacheUsage(uncached_input=3_000, cache_read=0, cache_write=0, output=1)
    monitor = Monitor("anthropic", metrics=False, body_budget=12_100)  # one body of each size
    monitor.observe(pairs.anthropic(), usage=_USAGE, key="b", at=1.0)
    state = monitor._keys
    judged = monitor._records_of
    raced: list[memory.Entry] = []

    def racing(vendor: Any, body: Any) -> tuple[memory.Record, ...]:
        records = judged(vendor, body)
        entry = state.entries.get("a")
        if not raced and entry is not None and body is entry.body:
            raced.append(entry)  # another thread's observation, before the records are set
            monitor.observe(pairs.anthropic(), usage=_USAGE, key="b", at=3.0)
        return records

    monitor._records_of = racing  # type: ignore[method-assign]
    monitor.observe(pairs.anthropic(), usage=nothing, key="a", at=2.0)  # nothing cached: judged
    entry = raced[0]
    assert entry.body is None and entry.fingerprint is not None and entry.records is not None
    assert monitor.memory()["hashes"] == len(entry.fingerprint)
    state.forget("a")
    state.forget("b")
    assert (state.hashes, state.elements, state.fingerprints, state.body_bytes) == (0, 0, 0, 0)
    assert monitor.memory()["estimated_bytes"] == 0


def test_a_fingerprint_looks_for_markers_in_content_held_in_a_list_subclass() -> None:
    # `without_markers` takes any list (isinstance) as a message's blocks: a marker on a block of
    # content held in a list subclass is the element's marker, and the fingerprint must say so
    # (it read the message's own keys: marked False, the marker hashed in).
    from promptcache.debug.fingerprint import fingerprint
    from promptcache.vendors import get_vendor

    class Blocks(list[Any]):
        pass

    request = pairs.anthropic()
    block = {"type": "text", "text": "q", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    request["messages"] = [{"role": "user", "content": Blocks([block])}]
    found = fingerprint(get_vendor("anthropic"), request, DEFAULT_COUNTER)
    assert found is not None
    assert found.records() == _cold_records("anthropic", request)
    assert found.records()[-1].marked and found.records()[-1].ttl == "1h"


@pytest.mark.parametrize("text", ["plain words", "東京の天気, Grüße"])
def test_a_fingerprint_holds_about_what_memory_counts_for_it(text: str) -> None:
    # memory() counts a fingerprint at FINGERPRINT_BYTES, ELEMENT_BYTES an element and
    # COUNT_BYTES a token count kept. A body that is not ASCII kept its counts in a dict of
    # about 70 B an element that nothing counted: 3,376 B traced against 1,240 B estimated.
    import gc
    import tracemalloc

    from promptcache.debug.fingerprint import fingerprint
    from promptcache.vendors import get_vendor

    spec = get_vendor("anthropic")

    def body(n: int) -> dict[str, Any]:
        turns = [
            {"role": "user", "content": [{"type": "text", "text": f"{text} {n} {i}"}]}
            for i in range(50)
        ]
        return {"model": "claude-sonnet-4-6", "max_tokens": 9, "system": text, "messages": turns}

    bodies = [body(n) for n in range(300)]
    fingerprint(spec, bodies[0], DEFAULT_COUNTER)  # the container layout, shared by the rest
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [fingerprint(spec, b, DEFAULT_COUNTER) for b in bodies]
    del bodies  # and the UTF-8 copies of their strings CPython cached on them while dumping
    gc.collect()
    traced = (tracemalloc.get_traced_memory()[0] - before) / len(kept)
    tracemalloc.stop()
    found = kept[0]
    assert found is not None and len(found) == 51
    counted = (
        memory.FINGERPRINT_BYTES
        + memory.ELEMENT_BYTES * len(found)
        + memory.COUNT_BYTES * len(found.tokens)
    )
    assert traced <= 1.25 * counted, (traced, counted)
