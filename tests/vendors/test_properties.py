"""
Properties that hold for every request format: the adapter's request reads back into the same
prompt (writer -> reader), and diff and the monitor agree on what a change costs.
"""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache import CacheUsage, Message, Monitor, Prompt, Tool, diff, get_adapter, plan
from promptcache._ingest import prompt_from_request
from promptcache.vendors import VENDOR_NAMES, get_vendor

MODELS = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-5.4",
    "openai-responses": "gpt-5.4",
    "gemini": "gemini-2.5-pro",
    "engine": "Qwen/Qwen3-8B",
    "bedrock-converse": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "bedrock-invoke": "global.anthropic.claude-opus-4-6-v1",
    "vertex-anthropic": "claude-sonnet-4-5@20250929",
    "vertex-gemini": "gemini-2.5-flash",
    "azure-openai": "my-gpt-deployment",
    "azure-openai-responses": "my-gpt-deployment",
    "foundry": "claude-opus-5",
    "bedrock-mantle": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
}
assert set(MODELS) == set(VENDOR_NAMES)  # a new format gets its row here

WORDS = st.text(alphabet=string.ascii_letters + " .,;é", min_size=1, max_size=60).filter(
    lambda s: s.strip() == s and s != ""
)
NAMES = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=12)
SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}


@st.composite
def prompts(draw: Any) -> Prompt:
    tools = draw(st.lists(st.tuples(NAMES, WORDS), max_size=3, unique_by=lambda t: t[0]))
    system = draw(st.lists(WORDS, min_size=1, max_size=3))
    turns = draw(st.lists(st.tuples(WORDS, WORDS), max_size=3))
    history = [m for q, a in turns for m in (Message.user(q), Message.assistant(a))]
    return (
        Prompt(volatile="ignore")
        .add_tools(*(Tool(name=n, description=d, input_schema=SCHEMA) for n, d in tools))
        .add_system(*system)
        .add_history(*history)
        .with_tail(draw(WORDS))
    )


def _request(prompt: Prompt, vendor: str, *, conversation: bool = True) -> dict[str, Any]:
    model = MODELS[vendor]
    # min_tokens=1: short generated prompts still get Anthropic's markers
    planned = plan(prompt, vendor=vendor, model=model, min_tokens=1, conversation=conversation)
    return get_adapter(vendor).to_request(prompt, model=model, plan=planned)


@pytest.mark.parametrize("vendor", VENDOR_NAMES)
@settings(max_examples=40, deadline=None)
@given(prompt=prompts())
def test_what_the_adapter_writes_reads_back(vendor: str, prompt: Prompt) -> None:
    request = _request(prompt, vendor)
    again = prompt_from_request(request, vendor)
    assert again.vendor == vendor
    assert [(b.role, b.data) for b in again.prompt.render()] == [
        (b.role, b.data) for b in prompt.render()
    ]
    # and the shape says which (a platform's only where its body carries the platform's mark)
    assert prompt_from_request(request).vendor == _detectable(vendor, request)


def _detectable(vendor: str, request: dict[str, Any]) -> str:
    """The format a request's shape alone says: a platform's, where its body is marked."""
    spec = get_vendor(vendor)
    return vendor if spec.serves is None or spec.detects(request) else spec.serves


@pytest.mark.parametrize("vendor", VENDOR_NAMES)
@settings(max_examples=30, deadline=None)
@given(prompt=prompts(), later=st.lists(WORDS, min_size=1, max_size=3), tail=WORDS)
def test_diff_properties(vendor: str, prompt: Prompt, later: list[str], tail: str) -> None:
    a = _request(prompt, vendor)
    # min_tokens=1 throughout, as planned: a short generated prompt counts as cached
    assert diff(a, _request(prompt, vendor), vendor, min_tokens=1).cause == "none"
    grown = prompt
    for text in later:  # the conversation goes on: the answer, then the next question
        grown = grown.commit_tail(f"Answer: {text}").with_tail(text)
    assert not diff(a, _request(grown, vendor), vendor, min_tokens=1).invalidated
    if prompt.tail[-1].text != tail:
        other = prompt.with_tail(tail)
        rules_only = _request(prompt, vendor, conversation=False)
        assert not diff(
            rules_only, _request(other, vendor, conversation=False), vendor, min_tokens=1
        ).invalidated
        # In a conversation the planner also caches the turn (the next request repeats it): a
        # different final turn then loses that write, found in the turn, and nothing before it.
        changed = diff(a, _request(other, vendor), vendor)
        assert not changed.invalidated or (changed.in_tail and changed.layer == "messages")
    edited = Prompt(volatile="ignore").add_tools(*prompt.tools).add_system("Changed. ")
    edited = edited.add_system(*(s.text for s in prompt.system)).add_history(*prompt.history)
    # min_tokens=1, as planned: a short generated prompt is cached, so its edit loses tokens
    result = diff(a, _request(edited.with_tail(*prompt.tail), vendor), vendor, min_tokens=1)
    assert result.invalidated and result.layer == "system" and result.cause != "none"


@pytest.mark.parametrize("vendor", VENDOR_NAMES)
@settings(max_examples=25, deadline=None)
@given(prompt=prompts())
def test_monitor_properties(vendor: str, prompt: Prompt) -> None:
    events: list[Any] = []
    monitor = Monitor(vendor, on_invalidation=events.append, metrics=False, min_tokens=0)
    request = _request(prompt, vendor)
    total = 2000
    first = CacheUsage(uncached_input=100, cache_read=0, cache_write=total - 100, output=1)
    again = CacheUsage(uncached_input=5, cache_read=total - 5, cache_write=0, output=1)
    assert monitor.observe(request, usage=first, key="k", at=0.0) is None
    assert monitor.observe(request, usage=again, key="k", at=10.0) is None
    edited = Prompt(volatile="ignore").add_tools(*prompt.tools).add_system("Changed. ")
    edited = edited.add_system(*(s.text for s in prompt.system)).add_history(*prompt.history)
    missed = CacheUsage(uncached_input=total, cache_read=0, cache_write=0, output=1)
    event = monitor.observe(
        _request(edited.with_tail(*prompt.tail), vendor), usage=missed, key="k", at=20.0
    )
    assert event is not None and event.vendor == vendor
    assert event.layer == "system" and not event.server_side and event.cause != "none"
    assert events == [event]
