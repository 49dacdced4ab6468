"""
LiteLLM's `vertex_ai/` route names its Vertex AI location (`vertex_location=`): `MonitorLogger`
hands it to the monitor with each call, as `wrap()` does for a Vertex client, so the recorder's
log carries it and `report` prices Claude at its location's tier. Real LiteLLM against the stub
on 127.0.0.1 (a service-account token fetched from the stub).
"""

# the fixtures imported from test_litellm_logger are named as test parameters (F811)
# ruff: noqa: F811
from __future__ import annotations

from typing import Any

import pytest

from .._recording import LITELLM_OFFLINE, stub_server  # noqa: F401
from .test_litellm_logger import LITELLM_WARNINGS, SYSTEM, Watched, _conversation, claude_reply

litellm = pytest.importorskip("litellm")

from .test_litellm_logger import _own_event_loop, watched  # noqa: E402, F401
from .test_litellm_routes import _vertex_auth, service_account_key  # noqa: E402, F401

pytestmark = LITELLM_WARNINGS


def _spied(watched: Watched) -> list[Any]:
    """The `location` each observation was given."""
    seen: list[Any] = []
    real = watched.logger.monitor.observe

    def spy(request: Any, response: Any = None, **kw: Any) -> Any:
        seen.append(kw.get("location"))
        return real(request, response, **kw)

    watched.logger.monitor.observe = spy  # type: ignore[method-assign]
    return seen


def test_claude_on_vertex_is_observed_with_its_location(
    watched: Watched, service_account_key: str
) -> None:
    seen = _spied(watched)
    model = "claude-sonnet-4-5@20250929"
    with stub_server() as stub:
        stub.serve([claude_reply(1, 0, 1800), claude_reply(2, 1800, 0)])
        for _ in range(2):
            block = {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}
            litellm.completion(
                model=f"vertex_ai/{model}",
                api_base=stub.url,
                messages=[{"role": "system", "content": [block]}, *_conversation("")[1:]],
                max_tokens=64,
                **_vertex_auth(stub, service_account_key),
            )
        assert watched.settle(2) == 2
    assert seen == ["us-east5", "us-east5"]


def test_another_route_is_observed_with_no_location(watched: Watched) -> None:
    from .test_litellm_logger import chat_reply

    seen = _spied(watched)
    with stub_server() as stub:
        stub.serve([chat_reply(1, 0)])
        litellm.completion(
            model="openai/gpt-4o",
            api_base=stub.url,
            api_key="sk-FAKE-0000",
            messages=_conversation("hello"),
        )
        assert watched.settle(1) == 1
    assert seen == [None]


def test_a_location_in_capitals_is_passed_on_as_its_name_and_a_non_name_as_none() -> None:
    # the monitor refuses a location that is not a name, which would leave the call unobserved
    from promptcache.debug.litellm_logger import _vertex_location

    assert _vertex_location({"vertex_location": "US-Central1"}, "vertex_ai") == "us-central1"
    params = {"litellm_params": {"vertex_ai_location": "Somewhere, Earth"}}
    assert _vertex_location(params, "vertex_ai") is None
