from __future__ import annotations

import warnings
from datetime import datetime, timedelta, timezone

import pytest

from promptcache import (
    Doc,
    Prompt,
    Tool,
    VolatileContentError,
    VolatileContentWarning,
    find_volatile,
)

NOW = datetime(2026, 11, 29, 20, 20, 40, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("Current time: 2026-11-29T20:20:40Z.", "iso_timestamp", "2026-11-29T20:20:40Z"),
        ("now 2026-11-29 20:20:40.123+01:00", "iso_timestamp", "2026-11-29 20:20:40.123+01:00"),
        ("Date: Sun, 29 Nov 2026 20:20:40 +0000", "rfc2822", "Sun, 29 Nov 2026 20:20:40 +0000"),
        ("Today is 2026-11-29.", "date", "2026-11-29"),
        ("Today is 11/29/2026.", "date", "11/29/2026"),
        ("Today is November 29, 2026", "date_words", "November 29, 2026"),
        ("Heute ist 29.11.2026", "date", "29.11.2026"),
        ("Clock: 20:20:40", "clock_time", "20:20:40"),
        ("at 03:04 PM", "clock_time", "03:04 PM"),
        ("ts=1796070040 end", "epoch", "1796070040"),
        ("ts=1796070040123 end", "epoch", "1796070040123"),
        (
            "request 3f2504e0-4f89-11d3-9a0c-0305e82c3301",
            "uuid",
            "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
        ),
        (
            "nonce 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
            "hex_nonce",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
        ),
        ("token Xk29fLqP0zR7mNvB3wYt8sGh", "base64_nonce", "Xk29fLqP0zR7mNvB3wYt8sGh"),
    ],
)
def test_detects_volatile_values(text: str, kind: str, value: str) -> None:
    found = find_volatile(text, now=NOW)
    assert [(m.kind, m.value) for m in found] == [(kind, value)]
    assert text[found[0].offset :].startswith(value)


@pytest.mark.parametrize(
    "text",
    [
        "The treaty was signed on 1648-10-24 in Münster.",
        "Released November 3, 2019 with 3 fixes.",
        "get_weather_forecast_for_city_and_country",
        "Use HTTP/1.1 and port 8080; version 3.11.7.",
        "ThisIsAVeryLongCamelCaseIdentifierName",
        "Call 555-0100 between 9 and 5.",
        "",
    ],
)
def test_stable_text_is_not_flagged(text: str) -> None:
    assert find_volatile(text, now=NOW) == []


def test_dates_count_only_near_now() -> None:
    assert find_volatile("2026-11-20", now=NOW) == []
    assert find_volatile("2026-11-20", now=NOW, window=timedelta(days=10))


def test_guard_warns_by_default_naming_layer_block_value_and_fix() -> None:
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    with pytest.warns(VolatileContentWarning) as record:
        Prompt().add_system("Be brief.", f"Current time: {stamp}")
    message = str(record[0].message)
    assert "system[1]" in message and "layer system" in message and "block 1" in message
    assert stamp in message and "with_tail" in message
    assert record[0].filename == __file__


def test_guard_error_policy_raises() -> None:
    with pytest.raises(VolatileContentError, match=r"docs\[0\].*UUID"):
        Prompt(volatile="error").add_docs(Doc(text="session 3f2504e0-4f89-11d3-9a0c-0305e82c3301"))


def test_guard_checks_tools() -> None:
    tool = Tool(name="t", description="nonce 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b")
    with pytest.raises(VolatileContentError, match=r"tools\[0\]"):
        Prompt(volatile="error").add_tools(tool)


def test_guard_names_the_tool_whose_render_position_differs() -> None:
    # Added second, rendered first (tools sort by name): the index alone would mislead.
    stamped = Tool(name="a_lookup", description="nonce 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b")
    with pytest.raises(VolatileContentError, match=r"tools\[1\] \(layer tools, tool 'a_lookup'\)"):
        Prompt(volatile="error").add_tools(Tool(name="z_search"), stamped)


def test_guard_ignores_tail_and_history_and_can_be_off() -> None:
    stamp = datetime.now(timezone.utc).isoformat()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Prompt().with_tail(f"It is {stamp}")
        Prompt(volatile="ignore").add_system(f"It is {stamp}")


def test_guard_warns_once_per_part_not_on_every_add() -> None:
    stamp = datetime.now(timezone.utc).isoformat()
    with pytest.warns(VolatileContentWarning) as record:
        prompt = Prompt().add_system(f"It is {stamp}")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prompt.add_system("more").add_docs("doc")
    assert len(record) == 1


def test_guard_message_reads_naturally() -> None:
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    with pytest.warns(VolatileContentWarning, match="contains an ISO 8601 timestamp"):
        Prompt().add_system(f"Now: {stamp}")
    with pytest.raises(VolatileContentError, match="contains a UUID"):
        Prompt(volatile="error").add_docs("id 3f2504e0-4f89-11d3-9a0c-0305e82c3301")


def test_volatile_values_lists_paths_in_render_order_under_any_policy() -> None:
    prompt = (
        Prompt(volatile="ignore")
        .add_tools(
            Tool(name="zeta"),
            Tool(name="alpha", description="nonce 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"),
        )
        .add_system("Be brief.", "session 3f2504e0-4f89-11d3-9a0c-0305e82c3301")
        .with_tail("request 3f2504e0-4f89-11d3-9a0c-0305e82c3302")
    )
    assert [(path, match.kind) for path, match in prompt.volatile_values()] == [
        ("tools[0]", "hex_nonce"),
        ("system[1]", "uuid"),
    ]
