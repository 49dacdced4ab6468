"""
LiteLLM's `azure_ai/` route (Azure AI Foundry), judged by the route, driven by real LiteLLM
against the stub on 127.0.0.1: a Claude model goes to Foundry's Anthropic endpoint
(`/anthropic/v1/messages`; LiteLLM's own rule is "claude" in the model name) and is judged under
Foundry's record, not Anthropic's first-party one; a model of another family on Foundry's model
inference (Llama, Mistral, DeepSeek, ...) has no caching rules here and is said not judged,
where its OpenAI-shaped body was judged by OpenAI's rules and prices.
"""

# the fixtures imported from test_litellm_logger are named as test parameters (F811)
# ruff: noqa: F811

from __future__ import annotations

import logging
from typing import Any

import pytest

from .._recording import LITELLM_OFFLINE, stub_server
from .test_litellm_logger import (
    LITELLM_WARNINGS,
    SYSTEM,
    Watched,
    _conversation,
    _no_prompt_text,
    _ours,
    chat_reply,
    claude_reply,
)

litellm = pytest.importorskip("litellm")

from .test_litellm_logger import _own_event_loop, watched  # noqa: E402, F401

pytestmark = LITELLM_WARNINGS
assert LITELLM_OFFLINE  # the suite's conftest sets these: no cost-map fetch leaves the machine


def _call(stub: Any, model: str) -> None:
    litellm.completion(
        model=f"azure_ai/{model}",
        api_base=stub.url,
        api_key="foundry-test-key",
        messages=_conversation(SYSTEM),
    )


def test_claude_on_azure_ai_is_judged_as_foundry(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with stub_server() as stub:
        stub.serve([claude_reply(1, 0, 1900), claude_reply(2, 0, 1900)])
        for _ in range(2):
            _call(stub, "claude-sonnet-4-5")
        assert watched.settle(2) == 2
        assert [path for _, path in stub.seen] == ["/anthropic/v1/messages"] * 2
    (event,) = watched.events  # the identical second call read nothing: a server-side miss
    assert (event.cause, event.vendor) == ("none", "foundry")
    assert event.key.startswith("foundry:")
    assert not watched.logger.unobserved
    _no_prompt_text(caplog, watched.events)


def test_another_family_on_foundrys_model_inference_is_said_not_judged(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with stub_server() as stub:
        stub.serve([chat_reply(1), chat_reply(2)])
        for _ in range(2):
            _call(stub, "Llama-3.3-70B-Instruct")
        assert watched.settle(2) == 2
    assert watched.observed == [] and watched.events == []
    assert watched.logger.unobserved == {"azure_ai_other": 2}
    (said,) = [m for m in _ours(caplog) if "not observed" in m]
    assert "azure_ai/" in said and "Foundry" in said
    _no_prompt_text(caplog, watched.events)
