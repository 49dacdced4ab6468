"""
wrap() carries a Vertex AI client's location (`AnthropicVertex(region=)`, `genai.Client(
vertexai=True, location=)`) into each observation, so the recorder's log holds it (`location`,
docs/log-format.md) and `report` prices a Claude call at its location's tier without the user
repeating it. Checked on the real SDK clients: the cassettes of tests/debug/wire_platforms.py
(sync, streamed, async) and the offline emulators.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import promptcache
from promptcache._report import build_report
from promptcache.debug.recorder import Recorder
from promptcache.sim import VertexAnthropicEmulator, VertexGeminiEmulator

from .wire_platforms import VERTEX_MODEL, replay

LOCATIONS = {  # cassette session -> the location each of its calls is observed with
    "vertex_anthropic": "us-east5",
    "vertex_gemini": "us-central1",
    "azure": None,
    "foundry": None,
    "mantle": None,
}


@pytest.mark.parametrize("name", sorted(LOCATIONS))
def test_every_call_of_a_vertex_client_is_observed_with_its_location(name: str) -> None:
    _, seen = replay(name)
    assert seen and [o.get("location") for o in seen] == [LOCATIONS[name]] * len(seen)


def _ask(client: Any, question: str) -> None:
    system = [{"type": "text", "text": "Rules. " * 900, "cache_control": {"type": "ephemeral"}}]
    client.messages.create(
        model=VERTEX_MODEL,
        max_tokens=5,
        system=system,
        messages=[{"role": "user", "content": question}],
    )


def _recorded(tmp_path: Path, *regions: str) -> list[str]:
    """Two calls per region through one wrapped AnthropicVertex (a copy per further region, as
    `with_options(region=...)` makes it), recorded."""
    log = tmp_path / f"calls-{'-'.join(regions)}.jsonl"
    recorder = Recorder(log, background=True)  # the default: the snapshot carries it
    client = promptcache.wrap(
        VertexAnthropicEmulator().client(region=regions[0]), recorder=recorder
    )
    for number, region in enumerate(regions):
        here = client if number == 0 else client.with_options(region=region)
        _ask(here, "a")
        _ask(here, "b")
    recorder.close()
    return log.read_text().splitlines()


def test_the_log_carries_the_location_and_report_prices_its_tier(tmp_path: Path) -> None:
    regional = _recorded(tmp_path, "europe-west1")
    assert [json.loads(line).get("location") for line in regional] == ["europe-west1"] * 2
    world = _recorded(tmp_path, "global")
    priced, base = build_report(regional), build_report(world)
    assert priced.cost is not None and base.cost is not None
    assert priced.cost == pytest.approx(base.cost * 1.1)
    [note] = priced.pricing_notes
    assert note.records == 2 and "regional rate (europe-west1)" in note.note
    assert [n.note for n in base.pricing_notes] == [
        "priced at Vertex AI's global rate (location global)"
    ]


def test_a_copy_sending_elsewhere_records_its_own_location(tmp_path: Path) -> None:
    lines = _recorded(tmp_path, "us-east5", "global")
    found = [json.loads(line).get("location") for line in lines]
    assert found == ["us-east5", "us-east5", "global", "global"]


def test_a_vertex_gemini_client_records_its_location(tmp_path: Path) -> None:
    log = tmp_path / "gemini.jsonl"
    recorder = Recorder(log, background=False)
    client = promptcache.wrap(VertexGeminiEmulator().client(location="us"), recorder=recorder)
    client.models.generate_content(model="gemini-2.5-flash", contents="hello")
    recorder.close()
    [line] = log.read_text().splitlines()
    assert json.loads(line)["location"] == "us"


def test_a_client_of_no_location_records_none(tmp_path: Path) -> None:
    from promptcache.sim import emulator_for

    log = tmp_path / "anthropic.jsonl"
    recorder = Recorder(log, background=False)
    client = promptcache.wrap(emulator_for("anthropic").client(), recorder=recorder)
    _ask(client, "a")
    recorder.close()
    assert "location" not in json.loads(log.read_text())


def test_a_location_that_is_not_a_name_is_not_written(tmp_path: Path) -> None:
    log = tmp_path / "odd.jsonl"
    recorder = Recorder(log, background=False)
    request = {"model": "claude-sonnet-4-5", "max_tokens": 5, "messages": []}
    usage = promptcache.CacheUsage(uncached_input=5, cache_read=0, cache_write=0, output=1)
    recorder.record(request, usage, vendor="anthropic", location="Somewhere, Earth")
    recorder.close()
    assert "location" not in json.loads(log.read_text())


def test_a_vertex_gemini_log_says_its_location_is_not_priced_and_why(tmp_path: Path) -> None:
    log = tmp_path / "gemini.jsonl"
    recorder = Recorder(log, background=False)
    client = promptcache.wrap(VertexGeminiEmulator().client(location="us"), recorder=recorder)
    client.models.generate_content(model="gemini-2.5-flash", contents="hello")
    recorder.close()
    [note] = build_report(log.read_text().splitlines()).pricing_notes
    assert note.records == 1 and note.note.startswith("location 'us' not priced")
    assert "Gemini on Vertex AI" in note.note and "vertex-anthropic" not in note.note


def test_observe_refuses_a_location_that_is_not_a_name() -> None:
    from promptcache import InputError, Monitor

    monitor = Monitor("vertex-anthropic", metrics=False)
    request = {"model": VERTEX_MODEL, "max_tokens": 5, "messages": []}
    usage = promptcache.CacheUsage(uncached_input=5, cache_read=0, cache_write=0, output=1)
    with pytest.raises(InputError, match=r"location= must be a Vertex AI location.*'US East'"):
        monitor.observe(request, usage=usage, location="US East")
    monitor.observe(request, usage=usage, location="us-east5")  # a name: taken


def test_a_region_written_in_capitals_is_observed_and_recorded_as_its_name(
    tmp_path: Path,
) -> None:
    # DNS ignores case, so AnthropicVertex(region="US-East5") reaches us-east5: every call must
    # still be observed (a location the monitor refuses would leave every call unobserved) and
    # recorded under the location's name; a region that is no name at all is recorded as none.
    lines = _recorded(tmp_path, "US-East5", "Somewhere, Earth")
    found = [json.loads(line).get("location") for line in lines]
    assert found == ["us-east5", "us-east5", None, None]
