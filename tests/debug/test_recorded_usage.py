"""
Usages as recorded traffic shows them (issue #23): Anthropic compaction, server-side tool loops
(Anthropic web search and code execution, Responses built-in tools) and a gateway's
contradictory counts are read right, and never inflate what the monitor expects next.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from promptcache import Monitor
from promptcache.vendors import get_vendor
from promptcache.vendors.anthropic import AnthropicStream

from . import pairs

# -- Anthropic compaction -----------------------------------------------------------------

# A compaction turn: the summarising pass wrote the new context's cache; the top-level usage
# leaves that pass out ("A compaction entry's tokens are not included in the top-level usage").
COMPACTED = {
    "type": "message",
    "model": "claude-sonnet-4-6",
    "usage": {
        "input_tokens": 229,
        "output_tokens": 412,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "iterations": [
            {
                "type": "compaction",
                "input_tokens": 100,
                "output_tokens": 1850,
                "cache_creation_input_tokens": 55096,
                "cache_read_input_tokens": 0,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": 55096,
                    "ephemeral_1h_input_tokens": 0,
                },
            },
            {
                "type": "message",
                "input_tokens": 229,
                "output_tokens": 412,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        ],
    },
}


def test_compaction_usage_sums_the_iterations() -> None:
    usage = get_vendor("anthropic").read_usage(COMPACTED)
    assert (usage.uncached_input, usage.cache_write, usage.cache_read) == (329, 55096, 0)
    assert usage.output == 412 + 1850
    assert usage.passes == 1 and not usage.problems
    assert usage.cache_write_by_ttl == {"5m": 55096}  # the split of the iterations, not the top's 0


def test_a_stream_delta_zero_does_not_erase_the_start_read() -> None:
    stream = AnthropicStream()
    stream.feed(
        {
            "type": "message_start",
            "message": {
                "model": "claude-sonnet-4-6",
                "usage": {
                    "input_tokens": 12,
                    "output_tokens": 1,
                    "cache_creation_input_tokens": 1204,
                    "cache_read_input_tokens": 55096,
                },
            },
        }
    )
    stream.feed(
        {
            "type": "message_delta",
            "usage": {
                "input_tokens": 12,
                "output_tokens": 318,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
    )
    usage = stream.usage
    assert (usage.cache_read, usage.cache_write, usage.output) == (55096, 1204, 318)


# -- server-side tool loops -----------------------------------------------------------------


def _observe(monitor: Monitor, request: dict[str, Any], usage: dict[str, Any], at: float) -> None:
    response = {"type": "message", "model": request["model"], "usage": usage}
    monitor.observe(request, response, at=at, key="session")


def _first_turn() -> tuple[dict[str, Any], dict[str, Any]]:
    request = pairs.anthropic(tools=[*copy.deepcopy(pairs.TOOLS), WEB_SEARCH])
    return request, pairs.next_turn(request, 1)


WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}

# Two passes of one web-search turn: the first wrote the prefix, the second read it and wrote
# the search results after it. The top-level fields sum the passes.
LOOP = {
    "input_tokens": 40,
    "output_tokens": 380,
    "cache_creation_input_tokens": 1790 + 420,
    "cache_read_input_tokens": 1790,
    "server_tool_use": {"web_search_requests": 1},
    "iterations": [
        {
            "type": "message",
            "input_tokens": 20,
            "output_tokens": 60,
            "cache_creation_input_tokens": 1790,
            "cache_read_input_tokens": 0,
        },
        {
            "type": "message",
            "input_tokens": 20,
            "output_tokens": 320,
            "cache_creation_input_tokens": 420,
            "cache_read_input_tokens": 1790,
        },
    ],
}


def test_a_tool_loop_usage_is_read_as_several_passes() -> None:
    usage = get_vendor("anthropic").read_usage({"type": "message", "usage": LOOP})
    assert usage.passes == 2 and usage.last_pass_cached == 1790 + 420
    assert usage.cache_read == 1790 and usage.cache_write == 2210  # the bill is the sum


def test_a_tool_loop_does_not_inflate_the_next_expected_read() -> None:
    events: list[Any] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    first, second = _first_turn()
    _observe(monitor, first, LOOP, 1_000.0)
    # The next turn reads what the last pass held, not the 4,000 the passes sum to.
    reads_all = {
        "input_tokens": 30,
        "output_tokens": 90,
        "cache_read_input_tokens": 2210,
        "cache_creation_input_tokens": 25,
    }
    _observe(monitor, second, reads_all, 1_020.0)
    assert events == []


def test_a_miss_after_a_tool_loop_is_still_seen() -> None:
    events: list[Any] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    first, second = _first_turn()
    _observe(monitor, first, LOOP, 1_000.0)
    missed = {
        "input_tokens": 30,
        "output_tokens": 90,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 2235,
    }
    _observe(monitor, second, missed, 1_020.0)
    assert len(events) == 1 and events[0].expected_read == 2210


def test_an_unitemised_tool_loop_expects_the_prefix_not_the_sum() -> None:
    events: list[Any] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    first, second = _first_turn()
    summed = {k: v for k, v in LOOP.items() if k != "iterations"}
    _observe(monitor, first, summed, 1_000.0)
    reads = {
        "input_tokens": 30,
        "output_tokens": 90,
        "cache_read_input_tokens": 1795,
        "cache_creation_input_tokens": 440,
    }
    _observe(monitor, second, reads, 1_020.0)
    assert events == []
    _observe(monitor, pairs.next_turn(second, 2), {**summed, "cache_read_input_tokens": 0}, 1_040.0)
    missed = {
        "input_tokens": 30,
        "output_tokens": 90,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 2235,
    }
    _observe(monitor, pairs.next_turn(pairs.next_turn(second, 2), 3), missed, 1_060.0)
    assert [e.cause for e in events] and all(e.expected_read < 3000 for e in events)


def _responses_request(question: str) -> dict[str, Any]:
    return {
        "model": "gpt-5.4",
        "instructions": pairs.GUIDE,
        "tools": [{"type": "web_search"}],
        "input": [{"role": "user", "content": question}],
    }


def test_responses_builtin_tool_calls_are_passes_and_do_not_inflate_expectations() -> None:
    events: list[Any] = []
    monitor = Monitor("openai-responses", on_invalidation=events.append, metrics=False)
    first = _responses_request("What changed in the 502 runbook this week?")
    searched = {
        "model": "gpt-5.4",
        "output": [
            {"type": "web_search_call", "id": "ws_1", "status": "completed"},
            {"type": "web_search_call", "id": "ws_2", "status": "completed"},
            {"type": "message", "role": "assistant", "content": []},
        ],
        # three passes over a ~1,800-token prompt plus the search results
        "usage": {
            "input_tokens": 9703,
            "input_tokens_details": {"cached_tokens": 3584},
            "output_tokens": 500,
            "total_tokens": 10203,
        },
    }
    assert get_vendor("openai-responses").read_usage(searched).passes == 3
    monitor.observe(first, searched, at=1_000.0, key="s")
    second = copy.deepcopy(first)
    second["input"].append({"role": "user", "content": "And last week?"})
    answer = {
        "model": "gpt-5.4",
        "output": [{"type": "message", "role": "assistant", "content": []}],
        "usage": {
            "input_tokens": 1850,
            "input_tokens_details": {"cached_tokens": 1792},
            "output_tokens": 80,
            "total_tokens": 1930,
        },
    }
    monitor.observe(second, answer, at=1_010.0, key="s")
    assert events == []


# -- a usage the reader flagged as contradictory ----------------------------------------------


def test_a_contradictory_usage_is_not_an_expectation() -> None:
    # A gateway reported 2,161 cached and 2,161 written of a 2,168-token prompt.
    events: list[Any] = []
    monitor = Monitor("openai", on_invalidation=events.append, metrics=False)
    first = pairs.openai()
    bad = {
        "model": "gpt-5.4",
        "usage": {
            "prompt_tokens": 2168,
            "completion_tokens": 20,
            "total_tokens": 2188,
            "prompt_tokens_details": {"cached_tokens": 2161, "cache_write_tokens": 2161},
        },
    }
    assert get_vendor("openai").read_usage(bad).problems
    monitor.observe(first, bad, at=1_000.0, key="s")
    second = copy.deepcopy(first)
    second["messages"].append({"role": "user", "content": "Thanks, and the health check?"})
    good = {
        "model": "gpt-5.4",
        "usage": {
            "prompt_tokens": 2190,
            "completion_tokens": 20,
            "total_tokens": 2210,
            "prompt_tokens_details": {"cached_tokens": 2048},
        },
    }
    monitor.observe(second, good, at=1_010.0, key="s")
    assert events == []


# -- minimums as documented; observed reads win ------------------------------------------------


def _gemini_response(prompt: int, cached: int) -> dict[str, Any]:
    return {
        "model_version": "gemini-2.5-flash",
        "usage_metadata": {
            "prompt_token_count": prompt,
            "cached_content_token_count": cached,
            "candidates_token_count": 20,
            "total_token_count": prompt + 20,
        },
    }


def _short_gemini(question: str) -> dict[str, Any]:
    request = pairs.gemini(system="You answer questions about Acme Cloud deployments. " * 12)
    request["contents"][-1]["parts"][0]["text"] = question
    return request


def test_a_read_under_the_documented_minimum_wins_over_caches_nothing() -> None:
    # gemini-2.5-flash documents 2,048 tokens; the vendor read 594 of an 859-token prompt. A
    # new session of the same model is then not told that the vendor caches nothing.
    events: list[Any] = []
    monitor = Monitor("gemini", on_invalidation=events.append, metrics=False)
    monitor.observe(_short_gemini("Why 502s?"), _gemini_response(859, 594), at=1_000.0, key="a")
    monitor.observe(_short_gemini("And now?"), _gemini_response(861, 0), at=1_005.0, key="b")
    assert [e.cause for e in events] == []


# A later read taking back a key's below_minimum: test_below_minimum_withdrawn.py.


def test_a_read_on_a_key_never_told_below_minimum_contradicts_nothing() -> None:
    monitor = Monitor("gemini", metrics=False)
    monitor.observe(_short_gemini("Why 502s?"), _gemini_response(859, 594), at=1_000.0, key="g")
    assert "below_minimum_contradicted" not in monitor.stats()


def test_the_minimum_is_stated_as_documented() -> None:
    events: list[Any] = []
    monitor = Monitor("gemini", on_invalidation=events.append, metrics=False)
    monitor.observe(_short_gemini("Why 502s?"), _gemini_response(859, 0), at=1_000.0, key="g")
    [event] = [e for e in events if e.cause == "below_minimum"]
    assert "documents" in event.detail and "caches nothing" not in event.detail
    assert "2048" in event.detail and "estimate" in event.detail


def test_an_estimate_near_the_minimum_is_said_to_be_near() -> None:
    events: list[Any] = []
    monitor = Monitor("gemini", on_invalidation=events.append, metrics=False, min_tokens=900)
    monitor.observe(_short_gemini("Why 502s?"), _gemini_response(859, 0), at=1_000.0, key="g")
    [event] = [e for e in events if e.cause == "below_minimum"]
    assert "near" in event.detail


def test_the_sdk_objects_read_as_their_json() -> None:
    beta = pytest.importorskip("anthropic.types.beta")
    head = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    head |= {"model": "claude-sonnet-4-6", "stop_reason": "end_turn", "stop_sequence": None}
    reader = get_vendor("anthropic").read_usage
    compacted = reader(beta.BetaMessage.model_validate({**head, "usage": COMPACTED["usage"]}))
    assert (compacted.uncached_input, compacted.cache_write) == (329, 55096)
    loop = dict(LOOP, server_tool_use={"web_search_requests": 1, "web_fetch_requests": 0})
    looped = reader(beta.BetaMessage.model_validate({**head, "usage": loop}))
    assert (looped.passes, looped.last_pass_cached) == (2, 2210)
    summed = {k: v for k, v in loop.items() if k != "iterations"}
    unitemised = reader(beta.BetaMessage.model_validate({**head, "usage": summed}))
    assert unitemised.passes == 2 and unitemised.prefix_measure is None


def test_a_shared_state_keeps_what_a_tool_loop_measured() -> None:
    # Another process judging the next turn from the Redis state expects what this one would:
    # the last pass's cache (itemised), or the prefix's own count (not itemised), never the sum.
    from promptcache.debug.store import decode_entry, encode_entry

    monitor = Monitor("anthropic", metrics=False)
    request, _ = _first_turn()
    vendor = monitor._vendor_of(request, None)
    summed = {k: v for k, v in LOOP.items() if k != "iterations"}
    for usage, measured, unmeasured in ((LOOP, 2210, False), (summed, None, True)):
        read = vendor.read_usage({"type": "message", "model": request["model"], "usage": usage})
        entry = monitor._entry(request, vendor, read, 1.0)
        assert (entry.measured, entry.unmeasured) == (measured, unmeasured)
        stored = decode_entry(encode_entry(entry, monitor._chain(entry), body_limit=None))
        assert (stored.measured, stored.unmeasured) == (measured, unmeasured)
