"""
A `below_minimum` a later read disproves is withdrawn where the user saw it (issue #23): the
monitor emits a `below_minimum_withdrawn` follow-up to the same outlets, the model's learned
minimum drops to the read observed, and `report` folds the withdrawn claims out of its figures.
A read over the documented minimum (the prompt grew past it) disproves nothing.
"""

from __future__ import annotations

import copy
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from promptcache import Monitor
from promptcache.debug.events import Invalidation

from . import pairs

# -- real-shaped responses ----------------------------------------------------------------


def _gemini(prompt: int, cached: int) -> dict[str, Any]:
    return {
        "model_version": "gemini-2.5-flash",
        "usage_metadata": {
            "prompt_token_count": prompt,
            "cached_content_token_count": cached,
            "candidates_token_count": 20,
            "total_token_count": prompt + 20,
        },
    }


def _openai(prompt: int, cached: int) -> dict[str, Any]:
    return {
        "model": "gpt-5.4",
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": 20,
            "total_tokens": prompt + 20,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


def _anthropic(uncached: int, read: int, written: int = 0) -> dict[str, Any]:
    return {
        "type": "message",
        "model": "claude-opus-4-5",
        "usage": {
            "input_tokens": uncached,
            "output_tokens": 20,
            "cache_creation_input_tokens": written,
            "cache_read_input_tokens": read,
        },
    }


def _gemini_request(question: str) -> dict[str, Any]:
    request = pairs.gemini(system="You answer questions about Acme Cloud deployments. " * 12)
    request["contents"][-1]["parts"][0]["text"] = question
    return request


def _openai_request(question: str) -> dict[str, Any]:
    request = pairs.openai(system="You answer questions about Acme Cloud deployments. " * 12)
    request["messages"][-1] = {"role": "user", "content": question}
    return request


def _anthropic_request(question: str) -> dict[str, Any]:
    # claude-opus-4-5: 4,096 tokens documented; this marked prefix is about 1,800
    request = pairs.anthropic(model="claude-opus-4-5")
    request["messages"][-1]["content"][0]["text"] = question
    return request


def _session(monitor: Monitor, turns: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    for n, (request, response) in enumerate(turns):
        monitor.observe(request, response, at=1_000.0 + 5 * n, key="s")


# -- the follow-up event, for an implicit and an explicit vendor of each kind ------------------


CONTRADICTED = {
    "gemini": [
        (_gemini_request("Why 502s?"), _gemini(859, 0)),
        (_gemini_request("And now?"), _gemini(861, 594)),
        (_gemini_request("More?"), _gemini(866, 594)),
    ],
    "openai": [
        (_openai_request("Why 502s?"), _openai(900, 0)),
        (_openai_request("And now?"), _openai(905, 640)),
        (_openai_request("More?"), _openai(911, 640)),
    ],
    "anthropic": [
        (_anthropic_request("Why 502s?"), _anthropic(1_800, 0)),
        (_anthropic_request("And now?"), _anthropic(12, 1_790)),
        (_anthropic_request("More?"), _anthropic(12, 1_790)),
    ],
}


@pytest.mark.parametrize("vendor", sorted(CONTRADICTED))
def test_a_read_under_the_minimum_withdraws_the_keys_below_minimum(
    vendor: str, caplog: Any
) -> None:
    events: list[Invalidation] = []
    monitor = Monitor(vendor, on_invalidation=events.append, metrics=False)
    with caplog.at_level(logging.WARNING, logger="promptcache"):
        _session(monitor, CONTRADICTED[vendor])
    assert [e.cause for e in events] == ["below_minimum", "below_minimum_withdrawn"]
    claim, withdrawal = events
    assert withdrawal.key == claim.key and withdrawal.model == claim.model
    assert withdrawal.withdrawal and not claim.withdrawal
    assert withdrawal.actual_read == {"gemini": 594, "openai": 640, "anthropic": 1_790}[vendor]
    assert withdrawal.tokens_lost == 0 and not withdrawal.server_side
    assert f"{withdrawal.actual_read} tokens" in withdrawal.detail
    assert "withdrawn" in withdrawal.detail and "minimum" in withdrawal.detail
    said = [r.getMessage() for r in caplog.records if "withdrawn" in r.getMessage()]
    assert len(said) == 1 and "cache miss" not in said[0]  # a correction, not another miss
    assert "502" not in said[0] and "502" not in withdrawal.detail  # no prompt text
    assert monitor.stats()["below_minimum_contradicted"] == 1


def test_a_read_over_the_minimum_after_the_prompt_grew_withdraws_nothing() -> None:
    # 900 tokens: under OpenAI's 1,024, rightly nothing cached. The conversation then grows past
    # the minimum and reads 1,408: that is the minimum holding, not a contradiction.
    events: list[Invalidation] = []
    monitor = Monitor("openai", on_invalidation=events.append, metrics=False)
    longer = _openai_request("And now?")
    longer["messages"].extend(copy.deepcopy(longer["messages"][1:]))
    _session(
        monitor,
        [
            (_openai_request("Why 502s?"), _openai(900, 0)),
            (longer, _openai(1_500, 0)),
            (longer, _openai(1_510, 1_408)),
        ],
    )
    assert [e.cause for e in events] == ["below_minimum"]
    assert "below_minimum_contradicted" not in monitor.stats()


def test_a_read_longer_than_the_claimed_prefix_withdraws_nothing() -> None:
    # A recorded Gemini session: a 38-token prompt read nothing; the next, of 373 tokens, read
    # 204 (cached by other traffic). The model caches 204-token prefixes, under its documented
    # 2,048, but that says nothing of the 38-token one: the claim stands.
    events: list[Invalidation] = []
    monitor = Monitor("gemini", on_invalidation=events.append, metrics=False)
    _session(
        monitor,
        [(_gemini_request("Hi"), _gemini(38, 0)), (_gemini_request("And?"), _gemini(373, 204))],
    )
    assert [e.cause for e in events] == ["below_minimum"]
    # the learned minimum is lowered all the same: a 300-token prompt of another session is
    # not said to be one the vendor caches nothing of
    monitor.observe(_gemini_request("x"), _gemini(300, 0), at=2_000.0, key="other")
    assert [e.cause for e in events] == ["below_minimum"]


def test_an_explicit_prefix_read_over_the_minimum_withdraws_nothing() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    _session(
        monitor,
        [
            (_anthropic_request("Why 502s?"), _anthropic(1_800, 0)),
            (
                pairs.anthropic(model="claude-opus-4-5", system=pairs.GUIDE * 3),
                _anthropic(9, 0, 5_000),
            ),
            (
                pairs.anthropic(model="claude-opus-4-5", system=pairs.GUIDE * 3),
                _anthropic(9, 5_000),
            ),
        ],
    )
    assert [e.cause for e in events] == ["below_minimum"]


# -- the learned minimum ----------------------------------------------------------------------


def test_the_learned_minimum_is_the_shortest_read_seen_under_the_documented_one() -> None:
    # Two sessions of gemini-2.5-flash read 1,500 and 594 tokens (both under its 2,048): the
    # model caches prefixes of 594 tokens, so a 1,000-token prompt of a third session is not
    # said to be one the vendor caches nothing of.
    events: list[Invalidation] = []
    monitor = Monitor("gemini", on_invalidation=events.append, metrics=False)
    monitor.observe(_gemini_request("a"), _gemini(1_600, 1_500), at=1_000.0, key="a")
    monitor.observe(_gemini_request("b"), _gemini(700, 594), at=1_001.0, key="b")
    monitor.observe(_gemini_request("c"), _gemini(1_000, 0), at=1_002.0, key="c")
    assert events == []


def test_the_withdrawal_names_the_learned_minimum() -> None:
    events: list[Invalidation] = []
    monitor = Monitor("gemini", on_invalidation=events.append, metrics=False)
    _session(monitor, CONTRADICTED["gemini"])
    assert "594" in events[-1].detail and "gemini-2.5-flash" in events[-1].detail
    # another session of the model, with a prompt at least as long: no claim made
    monitor.observe(_gemini_request("x"), _gemini(700, 0), at=2_000.0, key="other")
    assert [e.cause for e in events] == ["below_minimum", "below_minimum_withdrawn"]


# -- the outlets: Prometheus, the span --------------------------------------------------------


def test_the_withdrawal_is_counted_in_its_own_prometheus_counter() -> None:
    prometheus_client = pytest.importorskip("prometheus_client")
    registry = prometheus_client.CollectorRegistry()
    monitor = Monitor("gemini", prometheus_registry=registry)
    _session(monitor, CONTRADICTED["gemini"])
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in registry.collect()
        for s in family.samples
        if s.name.endswith("_total")
    }
    withdrawn = (
        "promptcache_withdrawn_invalidations_total",
        (("cause", "below_minimum"), ("vendor", "gemini")),
    )
    assert samples[withdrawn] == 1.0
    # the miss counter is what was emitted; the withdrawal is no miss
    emitted = (
        "promptcache_invalidations_total",
        (("cause", "below_minimum"), ("vendor", "gemini")),
    )
    assert samples[emitted] == 1.0
    assert not any("withdrawn" in dict(labels).get("cause", "") for _, labels in samples)


def test_the_withdrawal_is_an_event_on_the_current_span() -> None:
    from .spans import memory_tracer

    tracer, exported = memory_tracer()
    monitor = Monitor("gemini")
    for n, (request, response) in enumerate(CONTRADICTED["gemini"][:2]):
        with tracer.start_as_current_span(f"turn-{n}"):
            monitor.observe(request, response, at=1_000.0 + 5 * n, key="s")
    claim, withdrawal = exported.get_finished_spans()
    assert [e.name for e in claim.events] == ["promptcache.cache_invalidation"]
    [event] = withdrawal.events
    assert event.name == "promptcache.cache_invalidation_withdrawn"
    assert (event.attributes or {})["promptcache.cause"] == "below_minimum"


# -- report folds the withdrawn claims out ----------------------------------------------------


def _log(turns: list[tuple[dict[str, Any], dict[str, Any]]], vendor: str) -> list[str]:
    return [
        json.dumps(
            {"vendor": vendor, "key": "s", "at": 1_000.0 + 5 * n, "request": q, "response": r}
        )
        for n, (q, r) in enumerate(turns)
    ]


@pytest.mark.parametrize("vendor", sorted(CONTRADICTED))
def test_the_report_folds_withdrawn_below_minimum_claims_out(vendor: str) -> None:
    from promptcache._report import build_report

    report = build_report(_log(CONTRADICTED[vendor], vendor), by="key")
    assert [c.cause for c in report.invalidations] == []
    assert report.events == 0
    assert [g.invalidations for g in report.groups] == [0]
    assert report.below_minimum_contradicted == 1
    assert report.to_json()["below_minimum_contradicted"] == 1


def test_the_report_keeps_a_claim_no_read_disproved() -> None:
    from promptcache._report import build_report

    turns = [CONTRADICTED["gemini"][0], (_gemini_request("x"), _gemini(861, 0))]
    report = build_report(_log(turns, "gemini"))
    assert [(c.cause, c.events) for c in report.invalidations] == [("below_minimum", 1)]
    assert report.below_minimum_contradicted == 0


def test_the_report_says_what_it_left_out(tmp_path: Path, capsys: Any) -> None:
    from promptcache.cli import main

    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(_log(CONTRADICTED["gemini"], "gemini")) + "\n")
    assert main(["report", str(log)]) == 0
    out = capsys.readouterr().out
    assert "invalidations  none" in out
    assert "1 below_minimum verdict(s) withdrawn" in out and "left out" in out
