"""
Wire tests: the real SDK clients (sync and async, streaming and not) replay `cassettes/`.

Replay matches on method, URL and the request body byte for byte (tests/_recording.exact_body),
so a change in what the adapters render (a marker moved, a field renamed, keys in another order,
other whitespace) fails here until the cassettes are re-recorded with
`python -m tests.adapters.recorder`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from promptcache.vendors.engine import NOT_REPORTED

from .._recording import GEMINI_ASYNC_TRANSPORTS, gemini_async_transport
from .recorder import CASSETTES, replayer
from .scenarios import SCENARIOS, Scenario


def _value(usage: Any, dotted: str) -> Any:
    for name in dotted.split("."):
        usage = getattr(usage, name)
    return usage


def _over_each_transport() -> list[Any]:
    """The scenarios, the Gemini ones once over each async transport google-genai may use."""
    return [
        pytest.param(scenario, transport, id=f"{scenario.cassette}-{transport}")
        for scenario in SCENARIOS
        for transport in (GEMINI_ASYNC_TRANSPORTS if scenario.vendor == "gemini" else ("httpx",))
    ]


@pytest.mark.parametrize(("scenario", "transport"), _over_each_transport())
def test_replay_reads_the_expected_usage(scenario: Scenario, transport: str) -> None:
    with (
        gemini_async_transport(transport),
        replayer().use_cassette(scenario.cassette, allow_playback_repeats=False) as cassette,
    ):
        usage = scenario.call(None)
        assert cassette.all_played, f"{scenario.cassette}: not every recorded request was sent"
    for dotted, expected in scenario.expect.items():
        assert _value(usage, dotted) == expected, dotted
    # An engine without its cache-report flag says so, naming the flag; nothing else is a problem.
    assert usage.problems == (() if usage.caching_reported else (NOT_REPORTED,))
    if usage.caching_reported:
        assert usage.total_input == usage.uncached_input + usage.cache_read + usage.cache_write


def _requests(cassette: str) -> list[dict[str, Any]]:
    data = yaml.safe_load((CASSETTES / cassette).read_text())
    out = []
    for interaction in data["interactions"]:
        body = interaction["request"]["body"]
        text = body if isinstance(body, str) else (body or {}).get("string", "")
        out.append(
            {
                "uri": interaction["request"]["uri"],
                "headers": interaction["request"]["headers"],
                "json": json.loads(text) if text else None,
            }
        )
    return out


def test_anthropic_wire_carries_markers_ttl_order_and_beta_header() -> None:
    body = _requests("anthropic/messages_create.yaml")[0]["json"]
    assert body["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert body["system"][1]["cache_control"] == {"type": "ephemeral", "ttl": "5m"}
    assert "cache_control" not in body  # explicit only
    auto = _requests("anthropic/messages_create_async_automatic.yaml")[0]["json"]
    assert auto["cache_control"] == {"type": "ephemeral"}
    assert sum("cache_control" in b for b in auto["system"]) + 1 + 1 <= 4
    diag = _requests("anthropic/messages_diagnostics.yaml")[0]
    assert diag["json"]["diagnostics"] == {"previous_message_id": "msg_01Previous"}
    assert diag["headers"]["anthropic-beta"] == ["cache-diagnosis-2026-04-07"]
    assert _requests("anthropic/messages_prewarm.yaml")[0]["json"]["max_tokens"] == 0


def test_openai_wire_breakpoints_only_on_content_parts() -> None:
    chat = _requests("openai/chat_create.yaml")[0]["json"]
    assert all("prompt_cache_breakpoint" not in json.dumps(t) for t in chat["tools"])
    assert chat["prompt_cache_key"].startswith("pc1-")
    assert "refunds" not in chat["prompt_cache_key"]
    stream = _requests("openai/chat_stream.yaml")[0]["json"]
    assert stream["stream_options"] == {"include_usage": True}
    legacy = _requests("openai/chat_create_async_pre56.yaml")[0]["json"]
    assert "prompt_cache_options" not in legacy
    assert "prompt_cache_breakpoint" not in json.dumps(legacy)
    responses = _requests("openai/responses_create.yaml")[0]["json"]
    assert "instructions" not in responses
    assert responses["input"][0]["role"] == "developer"
    assert responses["prompt_cache_options"]["comparison_response_id"] == "resp_previous"


def test_gemini_wire_cache_holds_the_prefix_and_the_request_omits_it() -> None:
    create, generate, update, delete = _requests("gemini/cache_lifecycle.yaml")
    assert create["uri"].endswith("/v1/cachedContents")
    assert {"systemInstruction", "tools", "contents", "ttl", "displayName"} <= set(create["json"])
    assert generate["json"]["cachedContent"] == "cachedContents/pcwire001"
    assert not {"systemInstruction", "tools", "toolConfig"} & set(generate["json"])
    assert not {"systemInstruction", "tools"} & set(generate["json"].get("generationConfig", {}))
    assert "Section 0" not in json.dumps(generate["json"])  # the docs live in the cache
    assert update["json"] == {"ttl": "3600s"}
    assert delete["uri"].endswith("/v1/cachedContents/pcwire001")


def test_engine_wire_salt_goes_in_the_body() -> None:
    assert _requests("engine/vllm_chat.yaml")[0]["json"]["cache_salt"] == "tenant-a-salt"


def test_every_cassette_is_replayed_by_a_scenario() -> None:
    # wrap/ belongs to the client-wrapper sessions of tests/debug/test_wrap.py, bedrock/ to
    # tests/debug/test_wrap_bedrock.py (recorded by tests/debug/bedrock_cassettes.py), platforms/
    # to tests/debug/test_wrap_platforms.py.
    on_disk = {
        str(p.relative_to(CASSETTES))
        for p in Path(CASSETTES).glob("*/*.yaml")
        if p.parent.name not in ("wrap", "bedrock", "platforms")
    }
    assert on_disk == {s.cassette for s in SCENARIOS}
