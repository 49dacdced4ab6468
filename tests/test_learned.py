"""SharedPrefixes: learning where requests under one key share a prefix and then fork."""

from __future__ import annotations

import pytest

from promptcache import InputError, Prompt, SharedPrefixes, Tool, plan

POLICY = "Refunds need a receipt and the original card. " * 200  # ~2300 estimated tokens
MODEL = "claude-sonnet-4-6"


def tenant(name: str) -> Prompt:
    return (
        Prompt(volatile="ignore")
        .add_tools(Tool(name="lookup", description="Find an order."))
        .add_system(POLICY, f"You serve {name}. " + "Their catalogue is large. " * 60)
    )


def test_a_fork_is_where_an_earlier_request_went_another_way() -> None:
    seen = SharedPrefixes()
    assert seen.fork("k", tenant("ann").with_tail("q")) is None  # nothing seen yet
    seen.record("k", tenant("ann").with_tail("q"))
    assert seen.fork("k", tenant("bob").with_tail("q")) == 1  # tools[0], system[0]: then differ
    assert seen.fork("other key", tenant("bob").with_tail("q")) is None


def test_a_request_that_only_extends_an_earlier_one_is_no_fork() -> None:
    seen, first = SharedPrefixes(), tenant("ann").with_tail("q1")
    seen.record("k", first)
    assert seen.fork("k", first.commit_tail("a1").with_tail("q2")) is None  # the chat goes on


def test_plan_learns_the_fork_and_says_so() -> None:
    seen = SharedPrefixes()
    first = plan(tenant("ann").with_tail("q"), vendor="anthropic", model=MODEL, seen=seen)
    assert all("learned" not in b.reason for b in first.breakpoints)
    assert len(seen) == 1  # plan records what it planned
    second = plan(tenant("bob").with_tail("q"), vendor="anthropic", model=MODEL, seen=seen)
    learned = [b for b in second.breakpoints if "learned shared prefix" in b.reason]
    assert [b.path for b in learned] == ["system[0]"]  # the policy block both tenants send
    assert "learned shared prefix" in second.explain()


def test_keys_are_forgotten_least_recently_used_first() -> None:
    seen = SharedPrefixes(per_key=2, max_keys=2)
    for key in ("a", "b", "c"):
        seen.record(key, tenant(key).with_tail("q"))
    assert seen.fork("a", tenant("z").with_tail("q")) is None  # "a" was dropped
    assert seen.fork("c", tenant("z").with_tail("q")) == 1
    with pytest.raises(InputError, match="per_key and max_keys"):
        SharedPrefixes(per_key=0)
