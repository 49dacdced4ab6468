"""
`diff` on the four classes of issue #23 and their look-alikes, in Anthropic, OpenAI and Gemini
shapes: ids glued into paths and URLs, clock readings that are not dates, and entries reordered
inside one system string.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from promptcache import diff

from . import pairs

Shape = Callable[..., dict[str, Any]]
SHAPES: dict[str, tuple[str, Shape]] = {
    "anthropic": ("anthropic", pairs.anthropic),
    "openai": ("openai", pairs.openai),
    "gemini": ("gemini", lambda **kw: {**pairs.gemini(**kw), "model": "gemini-3-flash"}),
}
SYSTEM_PATH = {
    "anthropic": "system[0].text",
    "openai": "messages[0].content",
    "gemini": "config.system_instruction",
}
ALL = pytest.mark.parametrize("shape", sorted(SHAPES))


def _diff(shape: str, first: str, second: str) -> Any:
    vendor, build = SHAPES[shape]
    a, b = build(system=pairs.with_header(first)), build(system=pairs.with_header(second))
    return diff(a, b, vendor)


# -- ids inside paths, URLs and file names ---------------------------------------------------


@ALL
@pytest.mark.parametrize(
    ("first", "second"),
    [
        (  # a per-session settings file (an agent CLI writes one per run)
            "Settings are in /tmp/app-settings-3f2504e0-4f89-11d3-9a0c-0305e82c3301.json.",
            "Settings are in /tmp/app-settings-7c9e6679-7425-40de-944b-e07fc1f90ae7.json.",
        ),
        (
            "Open https://docs.example.com/view?session=9f86d081884c7d65&lang=en for details.",
            "Open https://docs.example.com/view?session=a1b2c3d4e5f60718&lang=en for details.",
        ),
        (
            "Scratch directory: /var/tmp/run_4e1f9a3b7c2d/work",
            "Scratch directory: /var/tmp/run_0b8d2e6f5a91/work",
        ),
    ],
    ids=["uuid-in-file-name", "hex-in-query", "hex-in-directory"],
)
def test_an_id_inside_a_path_is_a_random_id(shape: str, first: str, second: str) -> None:
    result = _diff(shape, first, second)
    assert (result.cause, result.layer, result.path) == ("random_id", "system", SYSTEM_PATH[shape])
    assert result.offset == next(
        i for i, (x, y) in enumerate(zip(first, second, strict=False)) if x != y
    )


@ALL
def test_the_same_id_in_a_path_beside_an_edit_is_content(shape: str) -> None:
    path = "/tmp/app-settings-3f2504e0-4f89-11d3-9a0c-0305e82c3301.json"
    result = _diff(shape, f"Read {path} first.", f"Read {path} last.")
    assert result.cause == "content_changed"


# -- clock readings that are not dates -------------------------------------------------------


@ALL
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Repository snapshot 4m old.", "Repository snapshot 5m old."),
        ("Index updated 3 hours ago.", "Index updated 4 hours ago."),
        ("Session elapsed: 00:04:12", "Session elapsed: 00:05:40"),
        ("Maintenance window ends in 14 minutes.", "Maintenance window ends in 13 minutes."),
        ("Worker uptime: 2h 15m", "Worker uptime: 2h 16m"),
    ],
    ids=["age", "ago", "elapsed", "countdown", "uptime"],
)
def test_a_clock_derived_value_is_a_timestamp(shape: str, first: str, second: str) -> None:
    result = _diff(shape, first, second)
    assert (result.cause, result.layer, result.path) == ("timestamp", "system", SYSTEM_PATH[shape])


@ALL
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Context built 20261201T194211Z.", "Context built 20261201T194530Z."),
        ("Snapshot: backup-20261201T194211.tar", "Snapshot: backup-20261201T201502.tar"),
        (
            "Run 20261201T194211+0100 of the nightly job.",
            "Run 20261202T010003+0100 of the nightly job.",
        ),
    ],
    ids=["compact", "compact-in-name", "compact-offset"],
)
def test_a_compact_iso_timestamp_is_a_timestamp(shape: str, first: str, second: str) -> None:
    result = _diff(shape, first, second)
    assert (result.cause, result.layer, result.path) == ("timestamp", "system", SYSTEM_PATH[shape])


@ALL
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Agent build 20261201194211 deployed.", "Agent build 20261201194977 deployed."),
        ("Agent version 2026.12.1 deployed.", "Agent version 2026.12.2 deployed."),
        ("Ticket 20261301T194211 is open.", "Ticket 20261301T194212 is open."),
    ],
    ids=["build-number", "version", "not-a-date"],
)
def test_a_compact_timestamp_look_alike_is_content(shape: str, first: str, second: str) -> None:
    assert _diff(shape, first, second).cause == "content_changed"


@ALL
@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Retry for 3 hours before giving up.", "Retry for 4 hours before giving up."),
        ("Keep answers under 3 minutes of reading.", "Keep answers under 2 minutes of reading."),
    ],
)
def test_a_duration_that_is_a_setting_is_content(shape: str, first: str, second: str) -> None:
    assert _diff(shape, first, second).cause == "content_changed"


@ALL
def test_a_date_in_a_file_name_of_other_documents_is_content(shape: str) -> None:
    # Retrieval returned other documents; each name carries its own date.
    result = _diff(
        shape,
        "Retrieved: minutes-2026-11-14.md, roadmap.md",
        "Retrieved: pricing-2026-10-02.md, roadmap.md",
    )
    assert result.cause == "content_changed"


@ALL
def test_a_dated_file_added_to_the_sources_is_content(shape: str) -> None:
    result = _diff(shape, "Retrieved: roadmap.md", "Retrieved: pricing-2026-10-02.md, roadmap.md")
    assert result.cause == "content_changed"


@ALL
def test_todays_date_in_a_daily_file_name_is_a_timestamp(shape: str) -> None:
    result = _diff(
        shape, "Log: /var/log/agent-2026-11-30.log", "Log: /var/log/agent-2026-12-01.log"
    )
    assert result.cause == "timestamp"


# -- entries reordered inside one string ------------------------------------------------------

SKILLS = [
    "- pdf: extract text and tables from PDF files",
    "- xlsx: read and write spreadsheets with formulas",
    "- docx: edit Word documents keeping tracked changes",
    "- pptx: build slide decks from an outline",
]


def _skill_lines(order: list[int]) -> str:
    return "Available skills:\n" + "\n".join(SKILLS[i] for i in order)


def _skill_tags(order: list[int]) -> str:
    body = "".join(f"<skill>{SKILLS[i][2:]}</skill>" for i in order)
    return f"<skills>{body}</skills>"


@ALL
@pytest.mark.parametrize("render", [_skill_lines, _skill_tags], ids=["lines", "tags"])
def test_entries_reordered_inside_one_string_are_block_order(
    shape: str, render: Callable[[list[int]], str]
) -> None:
    result = _diff(shape, render([0, 1, 2, 3]), render([0, 2, 1, 3]))
    assert (result.cause, result.layer, result.path) == (
        "block_order",
        "system",
        SYSTEM_PATH[shape],
    )
    assert result.before is not None and "xlsx" in result.before
    assert result.after is not None and "docx" in result.after
    assert "in a different order" in result.detail


@ALL
@pytest.mark.parametrize("render", [_skill_lines, _skill_tags], ids=["lines", "tags"])
def test_entries_reordered_and_one_edited_is_content(
    shape: str, render: Callable[[list[int]], str]
) -> None:
    first, second = render([0, 1, 2, 3]), render([0, 2, 1, 3]).replace("outline", "brief")
    assert _diff(shape, first, second).cause == "content_changed"


@ALL
def test_tags_reordered_with_the_text_around_them_edited_is_content(shape: str) -> None:
    first = "Use these: " + _skill_tags([0, 1, 2, 3])
    second = "Prefer these: " + _skill_tags([1, 0, 2, 3])
    assert _diff(shape, first, second).cause == "content_changed"


# -- the monitor names the same classes ----------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "cause"),
    [
        ("Repository snapshot 4m old.", "Repository snapshot 5m old.", "timestamp"),
        (
            "Settings: /tmp/app-settings-3f2504e0-4f89-11d3-9a0c-0305e82c3301.json",
            "Settings: /tmp/app-settings-7c9e6679-7425-40de-944b-e07fc1f90ae7.json",
            "random_id",
        ),
        (_skill_lines([0, 1, 2, 3]), _skill_lines([2, 0, 1, 3]), "block_order"),
    ],
    ids=["age", "id-in-path", "lines"],
)
def test_the_monitor_names_the_class(first: str, second: str, cause: str) -> None:
    from promptcache import Monitor

    from .sim import AnthropicSim

    events: list[Any] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    sim = AnthropicSim()
    a = pairs.anthropic(system=pairs.with_header(first))
    b = pairs.next_turn(pairs.anthropic(system=pairs.with_header(second)), 1)
    monitor.observe(a, sim.respond(a, 1_000.0), at=1_000.0, key="s")
    monitor.observe(b, sim.respond(b, 1_020.0), at=1_020.0, key="s")
    assert [(e.cause, e.layer) for e in events] == [(cause, "system")]
