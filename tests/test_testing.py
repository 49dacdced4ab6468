from __future__ import annotations

import pytest

from promptcache import Layer, Prompt, Tool
from promptcache.testing import assert_no_volatile, assert_prefix_stable


def build(user: str, clock: str = "") -> Prompt:
    return (
        Prompt(volatile="ignore")
        .add_tools(Tool(name="search"))
        .add_system(f"You are helpful.{clock}")
        .with_tail(f"{user} asks: where is my order?")
    )


def test_prefix_stable_passes_when_only_the_tail_differs() -> None:
    assert_prefix_stable(build("ann"), build("bob"))
    assert_prefix_stable(build("ann").render(), build("bob").render())


def test_prefix_stable_names_the_block_and_shows_the_bytes() -> None:
    with pytest.raises(AssertionError) as info:
        assert_prefix_stable(build("ann", " Now: 20:01:02"), build("ann", " Now: 20:01:07"))
    message = str(info.value)
    assert "system[0] at byte" in message
    assert "20:01:02" in message and "20:01:07" in message


def test_prefix_stable_reports_an_extra_block() -> None:
    with pytest.raises(AssertionError, match=r"second prompt has an extra block system\[1\]"):
        assert_prefix_stable(build("a"), build("a").add_system("more"))
    assert_prefix_stable(build("a"), build("a").add_system("more"), through=Layer.TOOLS)


def test_no_volatile() -> None:
    assert_no_volatile(build("ann"))
    with pytest.raises(AssertionError, match=r"system\[0\] offset \d+: clock time '20:01:02'"):
        assert_no_volatile(build("ann", " Now: 20:01:02"))
