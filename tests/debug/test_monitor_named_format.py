"""`Monitor.observe(vendor=...)`: one request's format named by the caller (LiteLLM's `azure/`
route), checked against the body, its sibling format taken by the body's shape."""

from __future__ import annotations

from typing import Any

import pytest

from promptcache import CacheUsage, InputError, Invalidation, Monitor

CHAT = {"model": "support-gpt", "messages": [{"role": "user", "content": "Where is my order?"}]}
RESPONSES = {"model": "support-gpt", "input": "Where is my order?"}
MISSED = CacheUsage(uncached_input=2000, cache_read=0, cache_write=None, output=5)


def _judged_as(request: dict[str, Any], vendor: str) -> str:
    """The format the event of a full miss on a repeated request names."""
    events: list[Invalidation] = []
    monitor = Monitor(metrics=False, on_invalidation=events.append)
    for at in (0.0, 10.0):
        monitor.observe(request, usage=MISSED, vendor=vendor, at=at)
    (event,) = events
    return event.vendor


def test_a_named_format_is_the_requests_and_its_sibling_is_taken_by_shape() -> None:
    assert _judged_as(CHAT, "azure-openai") == "azure-openai"
    assert _judged_as(RESPONSES, "azure") == "azure-openai-responses"
    assert _judged_as(CHAT, "openai") == "openai"


def test_a_named_format_the_body_does_not_fit_is_refused() -> None:
    anthropic = {**CHAT, "system": [{"type": "text", "text": "x"}], "max_tokens": 5}
    with pytest.raises(InputError, match="does not read as"):
        Monitor(metrics=False).observe(anthropic, usage=MISSED, vendor="gemini")


def test_the_monitors_own_record_of_that_format_is_kept() -> None:
    # Monitor(with_deployments(...)): a LiteLLM azure/ call names "azure-openai"; the monitor's
    # own record, which knows the two deployments serve one model, still judges it
    from promptcache.vendors.azure_openai import with_deployments

    system = {"role": "system", "content": "You are the support agent. " * 300}
    east = {"model": "gpt-east", "messages": [system, {"role": "user", "content": "Hi"}]}
    west = {**east, "model": "gpt-west"}
    details = []
    for vendor in (
        "azure-openai",
        with_deployments({"gpt-east": "gpt-5.1", "gpt-west": "gpt-5.1"}),
    ):
        events: list[Invalidation] = []
        monitor = Monitor(vendor, metrics=False, on_invalidation=events.append)
        monitor.observe(east, usage=MISSED, vendor="azure-openai", at=0.0)
        monitor.observe(west, usage=MISSED, vendor="azure-openai", at=10.0)
        (event,) = events
        details.append(event.detail)
    assert "possibly" not in details[0] and "possibly" in details[1]
