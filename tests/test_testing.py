from __future__ import annotations

from datetime import datetime, timezone

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


# -- SDK keyword arguments, inputs, hash seeds, emulated sessions, the pytest plugin ------------

LONG = "You answer questions about orders and refunds. " * 200


def sdk_kwargs(user: str, clock: str = "") -> dict[str, object]:
    from promptcache import get_adapter

    prompt = Prompt(volatile="ignore").add_system(LONG + clock).with_tail(f"{user} asks")
    return get_adapter("anthropic").to_request(prompt, model="claude-sonnet-4-6")


def test_prefix_stable_takes_sdk_keyword_arguments() -> None:
    """It raised AttributeError on a dict before: `'dict' object has no attribute 'render'`."""
    assert_prefix_stable(sdk_kwargs("ann"), sdk_kwargs("bob"))
    assert_prefix_stable(build("ann"), build("bob"), vendor="anthropic")
    with pytest.raises(AssertionError, match=r"system\[0\]"):
        assert_prefix_stable(sdk_kwargs("ann"), sdk_kwargs("ann", " Now 2026-11-30T06:12Z."))


def test_no_volatile_takes_sdk_keyword_arguments() -> None:
    assert_no_volatile(sdk_kwargs("ann"))
    with pytest.raises(AssertionError, match="timestamp"):
        # A timestamp counts as volatile near the current moment: take it from the clock, so
        # that the test does not expire (a fixed one stopped being "now" three days later).
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        assert_no_volatile(sdk_kwargs("ann", f" Now {stamp}."))


def test_a_clear_error_for_what_is_not_a_prompt() -> None:
    from promptcache import InputError

    with pytest.raises(InputError, match="Prompt or the keyword arguments"):
        assert_prefix_stable("system prompt", build("ann"))  # type: ignore[arg-type]


def test_stable_across_inputs() -> None:
    from promptcache.testing import assert_stable_across_inputs

    assert_stable_across_inputs(build, ["ann", "bob", "cy"])
    with pytest.raises(AssertionError, match="'ann' and 'bob'"):
        assert_stable_across_inputs(lambda user: build(user, clock=f" {user}"), ["ann", "bob"])


MODULE = """
from promptcache import Prompt

def good(user):
    return Prompt().add_system("Rules: " + ", ".join(sorted({"refunds", "returns", "orders"})))

def bad(user):
    return Prompt().add_system("Rules: " + ", ".join({"refunds", "returns", "orders", "tax"}))
"""


def test_stable_across_hash_seeds(tmp_path: pytest.TempPathFactory) -> None:
    from pathlib import Path

    from promptcache.testing import assert_stable_across_hashseeds

    folder = Path(str(tmp_path))
    (folder / "prompts_under_test.py").write_text(MODULE)
    assert_stable_across_hashseeds("prompts_under_test:good", args=["ann"], cwd=str(folder))
    with pytest.raises(AssertionError, match="iterates a set"):
        assert_stable_across_hashseeds(
            "prompts_under_test:bad", args=["ann"], seeds=range(8), cwd=str(folder)
        )


def test_cache_hits_from_the_second_request() -> None:
    pytest.importorskip("anthropic")
    from promptcache.testing import assert_cache_hits

    first = Prompt().add_system(LONG).with_tail("Where is order 1?")
    second = first.commit_tail("It shipped.").with_tail("And order 2?")
    usages = assert_cache_hits([first, second], model="claude-sonnet-4-6")
    assert usages[1].cache_read and usages[1].cache_read > 1024
    assert_cache_hits([sdk_kwargs("ann"), sdk_kwargs("bob")])  # plain keyword arguments too
    with pytest.raises(AssertionError, match="request 2 of 2 read nothing"):
        assert_cache_hits([sdk_kwargs("ann"), sdk_kwargs("bob", " Now 2026-11-30T06:12:09Z.")])


PLUGIN_TEST = """
from promptcache import Prompt, get_adapter
from promptcache.sim import AnthropicEmulator, ManualClock

def test_emulated_session(cache_emulator, manual_clock):
    emulator = cache_emulator("anthropic")
    assert isinstance(emulator, AnthropicEmulator) and isinstance(manual_clock, ManualClock)
    client = emulator.client()
    prompt = Prompt().add_system("Rules. " * 1000).with_tail("hi")
    request = get_adapter("anthropic").to_request(prompt, model="claude-sonnet-4-6")
    client.messages.create(**request)
    manual_clock.advance(301)
    again = client.messages.create(**request)
    assert again.usage.cache_read_input_tokens == 0  # the 5-minute entry expired
"""


def test_the_pytest_plugin_is_registered_and_its_fixtures_work(pytester: pytest.Pytester) -> None:
    pytest.importorskip("anthropic")
    pytester.makepyfile(test_plugin_user=PLUGIN_TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
