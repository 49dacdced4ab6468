"""The runtime monitor on multi-turn sessions: a planted invalidator, a TTL gap, a server miss."""

from __future__ import annotations

import asyncio
import copy
import logging
import threading
from typing import Any

import pytest

from promptcache import CacheUsage, InputError, Invalidation, Monitor
from promptcache._usage import CacheDiagnosis

from . import pairs
from .sim import AnthropicSim
from .spans import memory_tracer


def _session(
    turns: int,
    *,
    plant: dict[int, Any] | None = None,
    gaps: dict[int, float] | None = None,
    evict_at: int | None = None,
    monitor: Monitor | None = None,
) -> tuple[list[Invalidation], Monitor]:
    events: list[Invalidation] = []
    monitor = monitor or Monitor("anthropic", on_invalidation=events.append, metrics=False)
    sim, request, at = AnthropicSim(), pairs.anthropic(), 1_000.0
    for n in range(turns):
        if plant and n in plant:
            request = plant[n](request)
        at += (gaps or {}).get(n, 20.0)
        if evict_at == n:
            sim.evict()
        monitor.observe(request, sim.respond(request, at), at=at, key="session-1")
        request = pairs.next_turn(request, n)
    return events, monitor


def test_healthy_session_has_no_events() -> None:
    events, monitor = _session(8)
    assert events == [] and monitor.stats()["observations"] == 8


def test_planted_timestamp_is_named() -> None:
    def clock(request: dict[str, Any]) -> dict[str, Any]:
        changed = copy.deepcopy(request)
        changed["system"][0]["text"] = pairs.with_header("Now: 2026-11-29T20:41:07Z")
        return changed

    events, _ = _session(6, plant={3: clock})
    assert len(events) == 1
    event = events[0]
    assert (event.cause, event.layer, event.path, event.server_side) == (
        "timestamp",
        "system",
        "system[0].text",
        False,
    )
    assert event.actual_read == 0 and event.expected_read > 1500
    assert event.tokens_lost == event.expected_read


def test_planted_tool_reorder_mid_session() -> None:
    def shuffle(request: dict[str, Any]) -> dict[str, Any]:
        return dict(request, tools=[request["tools"][1], request["tools"][0], request["tools"][2]])

    events, _ = _session(5, plant={2: shuffle})
    assert [e.cause for e in events] == ["tool_order"]


def test_ttl_gap() -> None:
    events, _ = _session(5, gaps={3: 900.0})
    assert [e.cause for e in events] == ["ttl_expired"]
    assert events[0].gap_seconds == 900.0 and not events[0].server_side


def test_one_hour_ttl_survives_a_ten_minute_gap() -> None:
    monitor = Monitor("anthropic", metrics=False)
    request = pairs.anthropic()
    request["system"][0]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    request["messages"][-1]["content"][0].pop("cache_control")
    written = CacheUsage(uncached_input=10, cache_read=0, cache_write=2000, output=5)
    missed = CacheUsage(uncached_input=10, cache_read=0, cache_write=2000, output=5)
    monitor.observe(request, usage=written, at=0.0)
    event = monitor.observe(request, usage=missed, at=600.0)
    assert event is not None and event.cause == "none" and event.server_side


def test_server_side_miss_on_identical_prefix() -> None:
    events, _ = _session(6, evict_at=4)
    assert len(events) == 1
    assert (events[0].cause, events[0].server_side, events[0].path) == ("none", True, None)


def test_vendor_diagnosis_is_attached_and_fills_the_cause() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    request = pairs.anthropic()
    monitor.observe(
        request,
        usage=CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1),
        at=0.0,
    )
    diagnosed = CacheUsage(
        uncached_input=5,
        cache_read=0,
        cache_write=2000,
        output=1,
        diagnosis=CacheDiagnosis(reason="system_changed", missed_tokens=2000),
    )
    monitor.observe(request, usage=diagnosed, at=5.0)
    assert events[0].vendor_reason == "system_changed"
    assert events[0].cause == "content_changed" and not events[0].server_side


def test_vendor_diagnosis_from_a_response_dict() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    request = pairs.anthropic()
    usage = {
        "input_tokens": 5,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 2000,
        "output_tokens": 1,
    }
    monitor.observe(request, {"model": "claude-sonnet-4-6", "usage": usage}, at=0.0)
    response = {
        "model": "claude-sonnet-4-6",
        "usage": usage,
        "diagnostics": {
            "cache_miss_reason": {"type": "tools_changed", "cache_missed_input_tokens": 2000}
        },
    }
    monitor.observe(request, response, at=1.0)
    assert events and events[0].vendor_reason == "tools_changed"
    assert events[0].cause == "tools_changed"


def test_below_minimum_once_per_key() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    small = pairs.anthropic(system="You are terse.", tools=[])
    nothing = CacheUsage(uncached_input=60, cache_read=0, cache_write=0, output=3)
    for at in (0.0, 10.0, 20.0):
        monitor.observe(small, usage=nothing, at=at, key="k")
    assert [e.cause for e in events] == ["below_minimum"]
    assert "minimum" in events[0].detail


def test_openai_automatic_caching_expects_the_whole_previous_prompt() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("openai", on_invalidation=events.append, metrics=False)
    first = pairs.openai()
    second = dict(
        first,
        messages=[
            *first["messages"],
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "and?"},
        ],
    )
    monitor.observe(
        first,
        usage=CacheUsage(uncached_input=2200, cache_read=0, cache_write=None, output=2),
        at=0.0,
    )
    ok = monitor.observe(
        second,
        usage=CacheUsage(uncached_input=54, cache_read=2176, cache_write=None, output=2),
        at=5.0,
    )
    assert ok is None  # 128-token increments: 2176 of 2200 is a full read
    monitor.observe(
        second,
        usage=CacheUsage(uncached_input=2230, cache_read=0, cache_write=None, output=2),
        at=10.0,
    )
    assert [e.cause for e in events] == ["none"]


def test_unknown_caching_is_not_judged() -> None:
    monitor = Monitor("engine", metrics=False)
    request = pairs.openai()
    unknown = CacheUsage(uncached_input=2000, cache_read=None, cache_write=None, output=1)
    assert monitor.observe(request, usage=unknown, at=0.0) is None
    assert monitor.observe(request, usage=unknown, at=1.0) is None


def test_body_budget_falls_back_to_hashes() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False, body_budget=0)
    _session(
        5,
        plant={
            3: lambda r: dict(
                r,
                system=[
                    {"type": "text", "text": "other " * 900, "cache_control": {"type": "ephemeral"}}
                ],
            )
        },
        monitor=monitor,
    )
    assert monitor.memory()["body_bytes"] == 0
    assert [(e.cause, e.path) for e in events] == [("content_changed", "system[0]")]
    assert "byte budget" in events[0].detail


def test_max_keys_evicts_least_recently_used() -> None:
    monitor = Monitor("anthropic", metrics=False, max_keys=3)
    usage = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
    for key in "abcde":
        monitor.observe(pairs.anthropic(), usage=usage, key=key, at=0.0)
    assert monitor.memory()["keys"] == 3


def test_events_reach_logging(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="promptcache.monitor"):
        _session(5, evict_at=3)
    assert "prompt cache miss for key 'session-1'" in caplog.text


def test_broken_callback_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    def broken(event: Invalidation) -> None:
        raise RuntimeError("pager down")

    monitor = Monitor("anthropic", on_invalidation=broken, metrics=False)
    _session(5, evict_at=3, monitor=monitor)
    assert "on_invalidation callback raised" in caplog.text
    assert monitor.stats()["events"] == 1


def test_prometheus_counters() -> None:
    prometheus_client = pytest.importorskip("prometheus_client")
    registry = prometheus_client.CollectorRegistry()
    monitor = Monitor("anthropic", prometheus_registry=registry)
    _session(5, evict_at=3, monitor=monitor)
    value = registry.get_sample_value
    assert value("promptcache_invalidations_total", {"vendor": "anthropic", "cause": "none"}) == 1
    assert (value("promptcache_cache_read_tokens_total", {"vendor": "anthropic"}) or 0) > 1000


def test_opentelemetry_span_attributes() -> None:
    tracer, exporter = memory_tracer()
    monitor = Monitor("anthropic")
    request = pairs.anthropic()
    with tracer.start_as_current_span("turn-1"):
        monitor.observe(
            request,
            usage=CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1),
            at=0.0,
        )
    with tracer.start_as_current_span("turn-2"):
        monitor.observe(
            request,
            usage=CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1),
            at=1.0,
        )
    first, second = exporter.get_finished_spans()
    assert first.attributes["gen_ai.usage.cache_creation.input_tokens"] == 2000
    assert first.attributes["gen_ai.usage.cache_read.input_tokens"] == 0
    assert second.attributes["promptcache.invalidation.cause"] == "none"
    assert second.events[0].name == "promptcache.cache_invalidation"


def test_threads_lose_no_event() -> None:
    events: list[Invalidation] = []
    lock = threading.Lock()

    def sink(event: Invalidation) -> None:
        with lock:
            events.append(event)

    monitor = Monitor("anthropic", on_invalidation=sink, metrics=False, max_keys=100)
    request = pairs.anthropic()
    hit = CacheUsage(uncached_input=5, cache_read=2000, cache_write=0, output=1)
    miss = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)

    def worker(thread: int) -> None:
        for i in range(200):  # each thread owns its keys; every 10th observation misses
            monitor.observe(
                request, usage=miss if i % 10 == 9 else hit, key=f"t{thread}-{i % 5}", at=float(i)
            )

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert monitor.stats()["observations"] == 1600
    assert len(events) == 8 * 20 == monitor.stats()["events"]


def test_asyncio_tasks_share_one_monitor() -> None:
    monitor = Monitor("anthropic", metrics=False)
    request = pairs.anthropic()
    usage = CacheUsage(uncached_input=5, cache_read=2000, cache_write=0, output=1)

    async def session(key: str) -> None:
        for i in range(20):
            monitor.observe(request, usage=usage, key=key, at=float(i))
            await asyncio.sleep(0)

    async def main() -> None:
        await asyncio.gather(*(session(f"s{i}") for i in range(10)))

    asyncio.run(main())
    assert monitor.stats() == {"observations": 200, "events": 0, "by_cause": {}, "tokens_lost": {}}


def test_bad_arguments() -> None:
    with pytest.raises(InputError, match="unknown vendor"):
        Monitor("watsonx")  # ("azure" is Azure OpenAI's platform record now)
    monitor = Monitor("anthropic", metrics=False)
    with pytest.raises(InputError, match="needs the response or usage"):
        monitor.observe(pairs.anthropic())
    with pytest.raises(InputError, match="at must be epoch seconds"):
        monitor.observe(
            pairs.anthropic(),
            usage=CacheUsage(uncached_input=1, cache_read=0, cache_write=0, output=0),
            at="noon",
        )  # type: ignore[arg-type]


def test_markers_moved_in_place_still_explain_the_miss() -> None:
    # Hand-written rolling breakpoints: the caller deletes the old marker in place and appends to
    # the same list. The previous request's markers are gone by the next call; the planted
    # edit of an earlier turn must still be named.
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    messages: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "Hi, deploy fails.",
                    "cache_control": {"type": "ephemeral"},
                }
            ],
        },
    ]
    request = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 100,
        "system": pairs.GUIDE,
        "messages": messages,
    }
    monitor.observe(
        request,
        usage=CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1),
        at=0.0,
    )
    del messages[0]["content"][0]["cache_control"]
    messages[0] = {"role": "user", "content": [{"type": "text", "text": "Hello, deploy fails."}]}
    messages += [
        {"role": "assistant", "content": "Check it."},
        {
            "role": "user",
            "content": [{"type": "text", "text": "Done.", "cache_control": {"type": "ephemeral"}}],
        },
    ]
    monitor.observe(
        request,
        usage=CacheUsage(uncached_input=5, cache_read=0, cache_write=2100, output=1),
        at=5.0,
    )
    assert [(e.cause, e.path) for e in events] == [
        ("content_changed", "messages[0].content[0].text")
    ]


# -- markers sent, nothing cached -----------------------------------------------------------


def _markers_stripped(request: dict[str, Any]) -> dict[str, Any]:
    """What a gateway that strips `cache_control` forwards: the request minus its markers."""
    stripped = copy.deepcopy(request)
    for block in stripped["system"]:
        block.pop("cache_control", None)
    for message in stripped["messages"]:
        if isinstance(message["content"], list):
            for block in message["content"]:
                block.pop("cache_control", None)
    return stripped


def test_markers_stripped_on_the_way_is_reported_once() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    sim, request, seen = AnthropicSim(), pairs.anthropic(), []
    for n in range(5):
        response = sim.respond(_markers_stripped(request), at=10.0 * n)
        assert response["usage"]["cache_creation_input_tokens"] == 0
        seen.append(monitor.observe(request, response, at=10.0 * n, key="k"))
        request = pairs.next_turn(request, n)
    assert [e is not None for e in seen] == [False, True, False, False, False]
    event = events[0]
    assert (event.cause, event.server_side, event.actual_read) == ("not_cached", False, 0)
    assert event.expected_read > 1500 and event.tokens_lost == event.expected_read
    assert "nothing was written or read" in event.detail
    for reason in ("strips", "dialect", "minimum"):
        assert reason in event.detail
    assert monitor.stats()["by_cause"] == {"not_cached": 1}


def test_a_single_uncached_turn_is_not_reported() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    request = pairs.anthropic()
    nothing = CacheUsage(uncached_input=2000, cache_read=0, cache_write=0, output=3)
    written = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=3)
    read = CacheUsage(uncached_input=5, cache_read=2000, cache_write=0, output=3)
    for usage, at in ((nothing, 0.0), (written, 10.0), (read, 20.0), (nothing, 30.0)):
        monitor.observe(request, usage=usage, at=at, key="k")
    # the last turn is a plain miss (it should have read 2000), not a dry run of turns
    assert [e.cause for e in events] == ["none"]


def test_not_cached_after_below_minimum_once_the_prefix_grows() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    nothing = CacheUsage(uncached_input=60, cache_read=0, cache_write=0, output=3)
    small = pairs.anthropic(system="You are terse.", tools=[])
    large = pairs.anthropic()
    for at, request in enumerate((small, small, large, large, large)):
        monitor.observe(request, usage=nothing, at=float(at), key="k")
    assert [e.cause for e in events] == ["below_minimum", "not_cached"]


def test_not_cached_is_not_judged_where_writes_go_unreported() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("openai", on_invalidation=events.append, metrics=False)
    request = pairs.openai()
    first = CacheUsage(uncached_input=2200, cache_read=0, cache_write=None, output=2)
    monitor.observe(request, usage=first, at=0.0, key="k")
    monitor.observe(request, usage=first, at=5.0, key="k")
    assert [e.cause for e in events] == ["none"]  # automatic caching: a plain miss


# -- a model switch under the default key ---------------------------------------------------


def _switch_session(key: str | None) -> list[Invalidation]:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    sim, request = AnthropicSim(), pairs.anthropic()
    for n in range(5):
        if n == 3:  # the fallback to a cheaper model, mid-conversation
            request = dict(request, model="claude-sonnet-4-5")
        monitor.observe(request, sim.respond(request, 20.0 * n), at=20.0 * n, key=key)
        request = pairs.next_turn(request, n)
    return events


def test_model_switch_under_the_default_key_is_named() -> None:
    events = _switch_session(None)
    assert len(events) == 1
    event = events[0]
    assert (event.cause, event.layer, event.path, event.server_side) == (
        "model_changed",
        "model",
        "model",
        False,
    )
    assert (event.before, event.after) == ("claude-sonnet-4-6", "claude-sonnet-4-5")
    assert event.key == "anthropic:claude-sonnet-4-5" and event.gap_seconds == 20.0
    assert event.actual_read == 0 and event.expected_read > 1500
    assert "claude-sonnet-4-6" in event.detail and "claude-sonnet-4-5" in event.detail


def test_model_switch_under_an_explicit_key_is_named_once() -> None:
    events = _switch_session("session-1")
    assert [(e.cause, e.key) for e in events] == [("model_changed", "session-1")]


def test_router_and_main_model_side_by_side_raise_nothing() -> None:
    # A router (its own system prompt, the same tools) and the main model, alternating. Each
    # model's first request is a full miss under a fresh default key; the prefixes differ.
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    sim, main = AnthropicSim(), pairs.anthropic()
    router = pairs.anthropic(system="Route the ticket to one queue. " * 200)
    router["model"] = "claude-sonnet-4-5"
    for n in range(4):
        for request in (main, router):
            monitor.observe(request, sim.respond(request, 10.0 * n), at=10.0 * n)
        main = pairs.next_turn(main, n)
    assert events == [] and monitor.memory()["keys"] == 2


def test_model_switch_after_the_cache_lapsed_is_not_blamed() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    request = pairs.anthropic()
    written = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
    monitor.observe(request, usage=written, at=0.0)
    monitor.observe(dict(request, model="claude-sonnet-4-5"), usage=written, at=3600.0)
    assert events == []


# -- a TTL downgraded on the way ------------------------------------------------------------


def _one_hour_request() -> dict[str, Any]:
    request = pairs.anthropic()
    request["system"][0]["cache_control"] = {"type": "ephemeral", "ttl": "1h"}
    request["messages"][-1]["content"][0].pop("cache_control")
    return request


def _written(split: dict[str, int], read: int = 0) -> dict[str, Any]:
    creation = {f"ephemeral_{ttl}_input_tokens": n for ttl, n in split.items()}
    usage = {
        "input_tokens": 10,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": sum(split.values()),
        "cache_creation": creation,
        "output_tokens": 5,
    }
    return {"model": "claude-sonnet-4-6", "usage": usage}


def test_one_hour_ttl_downgraded_to_five_minutes_is_named() -> None:
    monitor = Monitor("anthropic", metrics=False)
    request = _one_hour_request()
    monitor.observe(request, _written({"5m": 2000, "1h": 0}), at=0.0)
    event = monitor.observe(request, _written({"5m": 2000, "1h": 0}), at=600.0)
    assert event is not None
    assert (event.cause, event.server_side, event.gap_seconds) == ("ttl_expired", False, 600.0)
    assert "over the 300 s TTL" in event.detail
    assert "written with a 5m TTL although 1h was requested" in event.detail


def test_one_hour_ttl_honoured_is_not_blamed() -> None:
    monitor = Monitor("anthropic", metrics=False)
    request = _one_hour_request()
    monitor.observe(request, _written({"5m": 0, "1h": 2000}), at=0.0)
    event = monitor.observe(request, _written({"5m": 0, "1h": 2000}), at=600.0)
    assert event is not None and (event.cause, event.server_side) == ("none", True)


def test_plain_ttl_expiry_mentions_no_downgrade() -> None:
    monitor = Monitor("anthropic", metrics=False)
    request = pairs.anthropic()
    monitor.observe(request, _written({"5m": 2000}), at=0.0)
    event = monitor.observe(request, _written({"5m": 2000}), at=600.0)
    assert event is not None and event.cause == "ttl_expired"
    assert "although" not in event.detail


# -- a wide tool fan-out past Anthropic's 20-block lookback (peers F8, D6) -------------------


def _fan_out_turn(request: dict[str, Any], calls: int = 18) -> dict[str, Any]:
    """18 parallel tool calls and their results in one step, the rolling marker moved onto them."""
    following = copy.deepcopy(request)
    following["messages"][-1]["content"][0].pop("cache_control", None)
    uses = [
        {"type": "tool_use", "id": f"toolu_{i:02d}", "name": "service_status", "input": {"n": i}}
        for i in range(calls)
    ]
    results = [
        {"type": "tool_result", "tool_use_id": f"toolu_{i:02d}", "content": f"region {i}: ok"}
        for i in range(calls)
    ]
    results[-1]["cache_control"] = {"type": "ephemeral"}
    following["messages"] += [
        {"role": "assistant", "content": [{"type": "text", "text": "Checking."}, *uses]},
        {"role": "user", "content": results},
    ]
    return following


def _fan_out_session(
    turn: Any = _fan_out_turn, **options: Any
) -> tuple[Invalidation | None, dict[str, Any]]:
    monitor = Monitor("anthropic", metrics=False, **options)
    sim, request = AnthropicSim(), pairs.anthropic()
    monitor.observe(request, sim.respond(request, 0.0), at=0.0, key="k")
    following = turn(request)
    response = sim.respond(following, 20.0)
    return monitor.observe(following, response, at=20.0, key="k"), response


def test_a_fan_out_past_the_lookback_is_named_not_blamed_on_the_server() -> None:
    event, response = _fan_out_session()
    assert event is not None
    assert 0 < response["usage"]["cache_read_input_tokens"] < event.expected_read
    assert (event.cause, event.server_side) == ("lookback", False)
    assert "messages[4].content[0]" in event.detail  # the previous request's last breakpoint
    assert "37 content blocks" in event.detail and "20" in event.detail
    assert "intermediate breakpoint" in event.detail and "promptcache" in event.detail


def test_an_intermediate_breakpoint_keeps_the_previous_entry_in_reach() -> None:
    def with_intermediate(request: dict[str, Any]) -> dict[str, Any]:
        following = _fan_out_turn(request)
        following["messages"][-2]["content"][-1]["cache_control"] = {"type": "ephemeral"}
        return following

    event, response = _fan_out_session(with_intermediate)
    assert event is None and response["usage"]["cache_read_input_tokens"] > 1500


def test_a_miss_within_the_lookback_is_still_the_servers() -> None:
    def evicted(request: dict[str, Any]) -> dict[str, Any]:
        return pairs.next_turn(request, 0)

    monitor = Monitor("anthropic", metrics=False)
    sim, request = AnthropicSim(), pairs.anthropic()
    monitor.observe(request, sim.respond(request, 0.0), at=0.0, key="k")
    sim.evict()
    following = evicted(request)
    event = monitor.observe(following, sim.respond(following, 20.0), at=20.0, key="k")
    assert event is not None and (event.cause, event.server_side) == ("none", True)


def test_lookback_is_not_judged_once_the_body_is_dropped() -> None:
    event, _ = _fan_out_session(body_budget=0)
    assert event is not None and event.cause != "lookback"


# -- issue 9: vendor detection, no silent answers, one source per vendor fact ---------------


def _usage(read: int, write: int | None = 0, uncached: int = 3000) -> CacheUsage:
    return CacheUsage(uncached_input=uncached, cache_read=read, cache_write=write, output=1)


def test_without_a_vendor_each_request_format_is_detected() -> None:
    events: list[Invalidation] = []
    monitor = Monitor(on_invalidation=events.append, metrics=False)
    for build in (pairs.anthropic, pairs.openai, pairs.gemini, pairs.openai_responses):
        monitor.observe(build(), usage=_usage(0, 3000), key=build.__name__, at=0.0)
    changed = pairs.openai(system=pairs.with_header("Today is 2026-06-09 15:04:21."))
    event = monitor.observe(changed, usage=_usage(0, 0), key="openai", at=10.0)
    assert event is not None and (event.vendor, event.cause) == ("openai", "timestamp")


def test_a_request_that_does_not_fit_the_named_vendor_is_an_error() -> None:
    monitor = Monitor("gemini", metrics=False)
    with pytest.raises(InputError, match="does not read as Gemini"):
        monitor.observe(pairs.anthropic(), usage=_usage(0))


def test_no_markers_on_an_explicit_vendor_is_said_once() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    request = pairs.anthropic()
    request["system"][0].pop("cache_control")
    request["messages"][-1]["content"][0].pop("cache_control")
    for at in (0.0, 10.0, 20.0):
        monitor.observe(request, usage=_usage(0, 0), key="k", at=at)
    assert [e.cause for e in events] == ["not_cached"]
    assert "no cache marker" in events[0].detail and "caches only at markers" in events[0].detail


def test_a_malformed_minimum_override_raises_as_plan_does(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from promptcache import Prompt, plan

    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    monkeypatch.setenv("PROMPTCACHE_MIN_TOKENS", str(bad))
    with pytest.raises(InputError, match="not valid JSON"):
        plan(Prompt().add_system("x"), vendor="gemini", model="gemini-2.5-pro")
    monitor = Monitor("gemini", metrics=False)  # it used to fall back to 1,024 tokens quietly
    with pytest.raises(InputError, match="not valid JSON"):
        monitor.observe(pairs.gemini(), usage=_usage(0, None), at=0.0)


@pytest.mark.parametrize(
    ("vendor", "model"),
    [
        ("anthropic", "claude-haiku-4-5"),
        ("openai", "gpt-5.4"),
        ("gemini", "gemini-3.5-flash"),
        ("gemini", "gemini-2.5-pro"),
        ("engine", "qwen3-8b"),
    ],
)
def test_monitor_and_planner_read_one_minimum(vendor: str, model: str) -> None:
    from promptcache import Prompt, plan
    from promptcache.debug.memory import Entry
    from promptcache.vendors import get_vendor

    planned = plan(Prompt().add_system("x"), vendor=vendor, model=model).min_tokens
    entry = Entry(
        at=0.0,
        vendor=get_vendor(vendor),
        read=0,
        write=0,
        total=0,
        model=model,
        body=None,
        params={},
        records=(),
        size=0,
        written={},
    )
    assert Monitor(vendor, metrics=False)._minimum(entry) == planned


def test_a_24h_retention_is_the_ttl_on_every_openai_format() -> None:
    for build in (pairs.openai, pairs.openai_responses):
        events: list[Invalidation] = []
        monitor = Monitor("openai", on_invalidation=events.append, metrics=False)
        request = {**build(), "prompt_cache_retention": "24h"}
        monitor.observe(request, usage=_usage(0, None), key="k", at=0.0)
        monitor.observe(request, usage=_usage(0, None), key="k", at=3 * 3600.0)
        assert [e.cause for e in events] == ["none"], build.__name__  # 3 h < 24 h: not expired


@pytest.mark.parametrize("key", [7, ("tenant", 7), b"session-1"])
def test_a_key_that_is_not_a_str_is_refused_at_the_call(key: Any) -> None:
    # Accepted silently before, it failed one observation later with a bare TypeError from deep
    # inside the monitor, far from the call that passed it.
    monitor = Monitor("anthropic", metrics=False)
    sim, request = AnthropicSim(), pairs.anthropic()
    with pytest.raises(InputError, match=r"key=.* must be a str") as raised:
        monitor.observe(request, sim.respond(request, 1.0), at=1.0, key=key)
    assert type(key).__name__ in str(raised.value)
    assert monitor.stats()["observations"] == 0


def test_a_response_that_reports_no_caching_is_said_once_and_counted_not_judged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A vLLM started without --enable-prompt-tokens-details: its reads are unknown, so no call
    # can be judged. Observing them in silence would read as "nothing broke".
    monitor = Monitor("engine", metrics=False, background=False)
    request = {
        "model": "qwen3",
        "messages": [
            {"role": "system", "content": "Policy. " * 300},
            {"role": "user", "content": "hi"},
        ],
    }
    response = {"model": "qwen3", "usage": {"prompt_tokens": 700, "completion_tokens": 3}}
    with caplog.at_level(logging.WARNING, "promptcache.monitor"):
        for n in range(3):
            assert monitor.observe(request, response, key="k", at=float(n)) is None
    said = [r.getMessage() for r in caplog.records if "do not report caching" in r.getMessage()]
    assert len(said) == 1 and "--enable-prompt-tokens-details" in said[0]
    assert "Policy" not in said[0]
    assert monitor.stats()["unjudged"] == 3 and monitor.stats()["events"] == 0


def test_a_gateway_model_served_in_two_formats_is_read_in_each_requests_own() -> None:
    # Detecting (no vendor named), the monitor remembers each request shape's format; through a
    # gateway one model name may come as Anthropic Messages and as Chat Completions with the same
    # top-level keys, and the second format was read as the first.
    anthropic = {
        "model": "gateway-model",
        "max_tokens": 10,
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}],
            }
        ],
    }
    chat = {
        "model": "gateway-model",
        "max_tokens": 10,
        "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
    }
    monitor = Monitor(metrics=False)
    assert monitor._vendor_of(anthropic, None).name == "anthropic"
    assert monitor._vendor_of(chat, None).name == "openai"
    assert monitor._vendor_of(anthropic, None).name == "anthropic"
