"""
One detection rule everywhere (issue #23): a body's format is decided by the request alone, so
inspect, diff, report and `Monitor()` give the same answer for it, whatever response came back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptcache import InputError, Monitor, diff
from promptcache.cli import main

from . import pairs

# An OpenRouter Chat Completions body and response: a vendor-prefixed model, OpenRouter's
# `provider` and `gen-` id in the answer.
OPENROUTER = {
    "model": "anthropic/claude-3.5-sonnet",
    "messages": [{"role": "user", "content": "Summarise the runbook: " + pairs.GUIDE}],
}
ANSWER = {
    "id": "gen-1764620000-Qm1x",
    "provider": "Anthropic",
    "model": "anthropic/claude-3.5-sonnet",
    "object": "chat.completion",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Ok."}}],
    "usage": {
        "prompt_tokens": 1790,
        "completion_tokens": 3,
        "total_tokens": 1793,
        "prompt_tokens_details": {"cached_tokens": 0},
    },
}


def test_an_ambiguous_body_is_ambiguous_for_the_monitor_too(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="could be") as from_diff:
        diff(OPENROUTER, OPENROUTER)
    path = tmp_path / "request.json"
    path.write_text(json.dumps(OPENROUTER))
    assert main(["inspect", str(path)]) == 2
    with pytest.raises(InputError, match="could be") as from_monitor:
        Monitor(metrics=False).observe(OPENROUTER, ANSWER, at=1_000.0)
    assert str(from_monitor.value) == str(from_diff.value)


def test_a_response_does_not_change_the_format_the_request_has() -> None:
    # Plain Chat Completions: inspect and diff read it as openai; the gateway's answer (a
    # vendor-prefixed model) must not turn it into something else for the monitor.
    body = {"model": "gpt-4o-mini", "messages": OPENROUTER["messages"]}
    assert diff(body, body).vendor == "openai"
    events: list[Any] = []
    monitor = Monitor(metrics=False, on_invalidation=events.append)
    answer = dict(ANSWER, model="openai/gpt-4o-mini", provider="OpenAI")
    monitor.observe(body, answer, at=1_000.0)
    monitor.observe(body, answer, at=1_010.0)  # same prompt, nothing read: a server-side miss
    assert [e.vendor for e in events] == ["openai"]
