"""
`MonitorLogger` on LiteLLM's other routes, each driven by real LiteLLM against the stub on
127.0.0.1: Gemini on Vertex AI (a service-account token fetched from the stub) and on AI
Studio, Anthropic models on Bedrock (SigV4-signed with made-up AWS keys; InvokeModel judged,
Converse said not to be), `litellm.Router`, `litellm.responses()` and LiteLLM's own response
cache, whose answers never reached a provider.
"""

# the fixtures imported from test_litellm_logger are named as test parameters (F811)
# ruff: noqa: F811

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import promptcache

from .._recording import (
    LITELLM_OFFLINE,
    Reply,
    anthropic_events,
    aws_event_stream,
    bedrock_chunks,
    chat_chunks,
    stub_server,
)
from .test_litellm_logger import (
    CLAUDE,
    EMAIL,
    GPT,
    LITELLM_WARNINGS,
    NAME,
    SYSTEM,
    Watched,
    _conversation,
    _no_prompt_text,
    _ours,
    chat_reply,
    claude_message,
    claude_reply,
    claude_stream,
)

litellm = pytest.importorskip("litellm")

# the fixtures of test_litellm_logger, used here by name
from .test_litellm_logger import _own_event_loop, keyed_watch, watched  # noqa: E402, F401

pytestmark = LITELLM_WARNINGS

GEMINI = "gemini-2.5-flash"
BEDROCK_SONNET = "anthropic.claude-3-5-sonnet-20241022-v2:0"
BEDROCK_HAIKU = "anthropic.claude-3-5-haiku-20241022-v1:0"
BEDROCK_OPUS = "anthropic.claude-3-opus-20240229-v1:0"
# made up: SigV4 signs with them offline, and the stub never checks the signature
AWS = {
    "aws_access_key_id": "AKIAPROMPTCACHETEST0",
    "aws_secret_access_key": "promptcache-test-secret",
    "aws_region_name": "us-east-1",
}
DATED = "Today is 2026-11-30. " + SYSTEM


# -- Gemini: Vertex AI and AI Studio ------------------------------------------------------------


def gemini_reply(prompt: int, cached: int | None) -> Reply:
    """A generateContent answer; `cached` None leaves cachedContentTokenCount out, as Gemini
    does (proto3 JSON omits a zero)."""
    usage: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": 2,
        "totalTokenCount": prompt + 2,
    }
    if cached is not None:
        usage["cachedContentTokenCount"] = cached
    candidate = {
        "content": {"role": "model", "parts": [{"text": "ok"}]},
        "finishReason": "STOP",
        "index": 0,
    }
    return Reply({"candidates": [candidate], "usageMetadata": usage, "modelVersion": GEMINI})


def gemini_stream(prompt: int, cached: int | None) -> Reply:
    """streamGenerateContent?alt=sse: each chunk carries the running usage."""
    chunks = []
    for text in ("o", "k"):
        body = gemini_reply(prompt, cached).body
        body["candidates"][0]["content"]["parts"] = [{"text": text}]
        if text == "o":
            del body["candidates"][0]["finishReason"]
        chunks.append((None, body))
    return Reply(events=tuple(chunks))


@pytest.fixture(scope="module")
def service_account_key() -> str:
    """A fresh RSA key: google-auth signs the service account's token request with it."""
    pytest.importorskip("google.auth", reason="google-auth comes with google-genai (3.11+)")
    serialization = pytest.importorskip("cryptography.hazmat.primitives.serialization")
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return pem.decode()


def _vertex_auth(stub: Any, key_pem: str) -> dict[str, str]:
    """A service account whose token endpoint is the stub: LiteLLM's google-auth signs a token
    request with `key_pem` and posts it there."""
    stub.routes["/token"] = Reply(
        {"access_token": "ya29.promptcache-test", "expires_in": 3600, "token_type": "Bearer"}
    )
    account = {
        "type": "service_account",
        "project_id": "promptcache-test",
        "private_key_id": "test-key",
        "private_key": key_pem,
        "client_email": "tester@promptcache-test.iam.gserviceaccount.com",
        "client_id": "1",
        "token_uri": f"{stub.url}/token",
    }
    return {
        "vertex_project": "promptcache-test",
        "vertex_location": "us-east5",
        "vertex_credentials": json.dumps(account),
    }


def _gemini_call(provider: str, stub: Any, key_pem: str, **kw: Any) -> Any:
    """litellm.completion on Vertex AI or on AI Studio (an API key)."""
    if provider == "vertex_ai":
        auth = _vertex_auth(stub, key_pem)
    else:
        auth = {"api_key": "AIza-promptcache-test"}
    return litellm.completion(model=f"{provider}/{GEMINI}", api_base=stub.url, **auth, **kw)


@pytest.mark.parametrize("provider", ["vertex_ai", "gemini"])
def test_gemini_calls_are_judged_as_sent_and_an_omitted_read_is_a_miss(
    provider: str,
    watched: Watched,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """LiteLLM sends Gemini's format (`system_instruction`, `contents`) with the model in the
    URL; Gemini leaves `cachedContentTokenCount` out when it read nothing, and LiteLLM passes
    that on as no count. Taken as "caching unreported", the third call's miss went unjudged."""
    caplog.set_level(logging.DEBUG)
    key = request.getfixturevalue("service_account_key") if provider == "vertex_ai" else ""
    with stub_server() as stub:
        stub.serve([gemini_reply(4000, None), gemini_reply(4000, 3900), gemini_reply(4000, None)])
        for system in (SYSTEM, SYSTEM, DATED):
            _gemini_call(provider, stub, key, messages=_conversation(system))
        assert watched.settle(3) == 3
        wire = [json.loads(body) for body in stub.bodies]
        paths = [path for _, path in stub.seen]
    assert all(f"/models/{GEMINI}:generateContent" in path for path in paths), paths
    sent = [request for request, _, _ in watched.observed]
    assert sent == [{**body, "model": GEMINI} for body in wire]  # the model from the URL
    assert [u.cache_read for _, u, _ in watched.observed] == [0, 3900, 0]
    (event,) = watched.events
    assert (event.cause, event.path) == ("timestamp", "system_instruction.parts[0].text")
    assert event.key == f"gemini:{GEMINI}"
    assert not watched.logger.unobserved
    _no_prompt_text(caplog, watched.events)


def test_a_vertex_gemini_stream_is_observed_with_its_last_usage(
    watched: Watched, service_account_key: str
) -> None:
    with stub_server() as stub:
        stub.serve([gemini_stream(4000, None), gemini_stream(4000, 3900)])
        for n in (1, 2):
            chunks = _gemini_call(
                "vertex_ai", stub, service_account_key, messages=_conversation(SYSTEM), stream=True
            )
            for _ in chunks:
                pass
            assert watched.settle(n) == n  # a stream's success hook runs on LiteLLM's pool
        assert all("streamGenerateContent" in path for _, path in stub.seen)
    usages = [(u.uncached_input, u.cache_read) for _, u, _ in watched.observed]
    assert usages == [(4000, 0), (100, 3900)]
    assert watched.events == [] and not watched.logger.unobserved


def test_an_omitted_read_stays_unknown_for_a_body_not_in_geminis_format(
    watched: Watched,
) -> None:
    """Only Gemini omits a cache read of 0. A Chat Completions body whose answer carries no
    cached-token count (an OpenAI-compatible server that reports none) is "caching unreported":
    read as 0, each call would be judged a miss the provider never reported."""
    usage = {"prompt_tokens": 2000, "completion_tokens": 2, "total_tokens": 2002}
    replies = []
    for number in (1, 2):
        answer = chat_reply(number).body
        replies.append(Reply({**answer, "usage": usage}))
    with stub_server() as stub:
        stub.serve(replies)
        for system in (SYSTEM, DATED):
            litellm.completion(
                model=f"openai/{GPT}",
                api_base=f"{stub.url}/v1",
                api_key="sk-test",
                messages=_conversation(system),
            )
        assert watched.settle(2) == 2
    reads = [(u.cache_read, u.caching_reported) for _, u, _ in watched.observed]
    assert reads == [(None, False), (None, False)]
    assert watched.events == []


def test_claude_on_vertex_is_judged_in_the_anthropic_format_it_sends(
    watched: Watched, service_account_key: str, caplog: pytest.LogCaptureFixture
) -> None:
    """vertex_ai/claude-*: Anthropic's Messages body posted to :rawPredict, the model in the
    URL."""
    caplog.set_level(logging.DEBUG)
    model = "claude-sonnet-4-5@20250929"
    with stub_server() as stub:
        stub.serve([claude_reply(1, 0, 1800), claude_reply(2, 1800, 0), claude_reply(3, 0, 1800)])
        for system in (SYSTEM, SYSTEM, DATED):
            block = {"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}
            messages = [{"role": "system", "content": [block]}, *_conversation("")[1:]]
            litellm.completion(
                model=f"vertex_ai/{model}",
                api_base=stub.url,
                messages=messages,
                max_tokens=64,
                **_vertex_auth(stub, service_account_key),
            )
        assert watched.settle(3) == 3
        wire = [json.loads(body) for body in stub.bodies]
        assert all(path.endswith(f"/models/{model}:rawPredict") for _, path in stub.seen)
    assert [request for request, _, _ in watched.observed] == [{**b, "model": model} for b in wire]
    (event,) = watched.events
    # LiteLLM writes the Vertex `anthropic_version`: judged under Vertex's record (its minimums
    # and prices), keyed by the model from the URL
    assert (event.cause, event.path, event.key) == (
        "timestamp",
        "system[0].text",
        f"vertex-anthropic:{model}",
    )
    _no_prompt_text(caplog, watched.events)


# -- Azure OpenAI: an OpenAI body sent to Azure, judged under Azure's record ---------------------

AZURE_DEPLOYMENT = "support-gpt"  # a deployment name: Azure's URL names it, not the model
AZURE = {"api_key": "azure-test-key", "api_version": "2024-10-21"}


def test_azure_chat_calls_are_judged_as_azure_openai(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    """azure/<deployment>: LiteLLM sends OpenAI's Chat Completions body to Azure's deployment
    URL; it is judged under Azure OpenAI's record (its rules, minimums and prices), not
    OpenAI's."""
    caplog.set_level(logging.DEBUG)
    with stub_server() as stub:
        stub.serve([chat_reply(1), chat_reply(2, cached=1920), chat_reply(3)])
        for system in (SYSTEM, SYSTEM, DATED):
            litellm.completion(
                model=f"azure/{AZURE_DEPLOYMENT}",
                api_base=stub.url,
                messages=_conversation(system),
                **AZURE,
            )
        assert watched.settle(3) == 3
        paths = {path.split("?", 1)[0] for _, path in stub.seen}
    assert paths == {f"/openai/deployments/{AZURE_DEPLOYMENT}/chat/completions"}
    (event,) = watched.events
    assert (event.cause, event.path, event.vendor) == (
        "timestamp",
        "messages[0].content",
        "azure-openai",
    )
    assert event.key.startswith("azure-openai:")
    assert not watched.logger.unobserved
    _no_prompt_text(caplog, watched.events)


def test_azure_responses_calls_are_judged_as_azure_openai_responses(watched: Watched) -> None:
    with stub_server() as stub:
        stub.serve([responses_reply(1, 0), responses_reply(2, 1920), responses_reply(3, 0)])
        for instructions in (SYSTEM, SYSTEM, DATED):
            litellm.responses(
                model=f"azure/{AZURE_DEPLOYMENT}",
                api_base=stub.url,
                instructions=instructions,
                input="Where is my order?",
                **AZURE,
            )
        assert watched.settle(3) == 3
    (event,) = watched.events
    assert (event.cause, event.path, event.vendor) == (
        "timestamp",
        "instructions",
        "azure-openai-responses",
    )
    assert not watched.logger.unobserved


# -- Bedrock: InvokeModel (Anthropic's body) judged, Converse said ------------------------------


def _bedrock(stub: Any, model: str, messages: list[dict[str, Any]], **kw: Any) -> Any:
    return litellm.completion(
        model=f"bedrock/{model}", api_base=stub.url, messages=messages, max_tokens=64, **AWS, **kw
    )


def _marked(system: str) -> list[dict[str, Any]]:
    block = {"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}
    return [{"role": "system", "content": [block]}, *_conversation("")[1:]]


def bedrock_reply(model: str, read: int, write: int) -> Reply:
    return Reply({**claude_message(1, read, write), "model": model})


def test_bedrock_invoke_is_judged_in_the_anthropic_format_it_sends(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with stub_server() as stub:
        replies = [(0, 1800), (1800, 0), (0, 1800)]
        stub.serve([bedrock_reply(BEDROCK_SONNET, r, w) for r, w in replies])
        for system in (SYSTEM, SYSTEM, DATED):
            _bedrock(stub, f"invoke/{BEDROCK_SONNET}", _marked(system), user="session-41")
        assert watched.settle(3) == 3
        wire = [json.loads(body) for body in stub.bodies]
        assert {path for _, path in stub.seen} == {f"/model/{BEDROCK_SONNET}/invoke"}
    assert wire[0]["anthropic_version"] == "bedrock-2023-05-31" and "model" not in wire[0]
    sent = [request for request, _, _ in watched.observed]
    assert sent == [{**body, "model": BEDROCK_SONNET} for body in wire]
    usages = [(u.cache_read, u.cache_write) for _, u, _ in watched.observed]
    assert usages == [(0, 1800), (1800, 0), (0, 1800)]
    (event,) = watched.events
    assert (event.cause, event.path, event.key) == ("timestamp", "system[0].text", "session-41")
    _no_prompt_text(caplog, watched.events)


def test_bedrock_models_get_a_default_key_each(watched: Watched) -> None:
    """The model is in Bedrock's URL, not the body: without it every Bedrock model shared one
    default key ("anthropic:None"), so two models used side by side blamed each other's
    prompts, and a switch of model was not named as one."""
    other = "You are the billing agent. " * 300
    turns = [
        (BEDROCK_SONNET, SYSTEM, 0),
        (BEDROCK_HAIKU, other, 0),
        (BEDROCK_SONNET, SYSTEM, 1800),
        (BEDROCK_HAIKU, other, 1800),
        (BEDROCK_OPUS, SYSTEM, 0),  # the Sonnet session falls back to Opus
    ]
    with stub_server() as stub:
        stub.serve([bedrock_reply(model, read, 1800 - read) for model, _, read in turns])
        for n, (model, system, _) in enumerate(turns):
            _bedrock(stub, f"invoke/{model}", _marked(system))
            assert watched.settle(n + 1) == n + 1
    assert [key for _, _, key in watched.observed] == [None] * 5  # the monitor's default
    assert [request["model"] for request, _, _ in watched.observed] == [m for m, _, _ in turns]
    (event,) = watched.events
    assert (event.cause, event.key) == ("model_changed", f"bedrock-invoke:{BEDROCK_OPUS}")
    assert BEDROCK_SONNET in event.message()


def test_a_bedrock_invoke_stream_is_observed_with_its_cache_reads(watched: Watched) -> None:
    """InvokeModel's stream: Anthropic's events in AWS's binary event-stream framing."""
    message = {**claude_message(1, 1500, 300), "model": BEDROCK_SONNET}
    events = bedrock_chunks(anthropic_events(message, "ok", {"output_tokens": 3}))
    with stub_server() as stub:
        stub.serve([aws_event_stream(events)])
        chunks = _bedrock(stub, f"invoke/{BEDROCK_SONNET}", _marked(SYSTEM), stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in chunks) == "ok"
        assert watched.settle(1) == 1
        assert stub.seen == [("POST", f"/model/{BEDROCK_SONNET}/invoke-with-response-stream")]
    ((request, usage, _),) = watched.observed
    assert request["model"] == BEDROCK_SONNET and request["system"][0]["cache_control"]
    assert (usage.uncached_input, usage.cache_read, usage.cache_write) == (12, 1500, 300)
    assert not watched.logger.unobserved


def _converse_usage(read: int, write: int) -> dict[str, int]:
    return {
        "inputTokens": 12,
        "outputTokens": 3,
        "totalTokens": 15 + read + write,
        "cacheReadInputTokens": read,
        "cacheWriteInputTokens": write,
    }


def test_bedrock_converse_is_judged_in_the_converse_format(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    """LiteLLM's default route for bedrock/ models is Converse: `{"text"}` blocks and a
    `cachePoint` block for the cache_control asked for. It was refused ("not judged"); it is now
    read as Converse, the cache point as the marker it is, and a changed system prompt named."""
    caplog.set_level(logging.DEBUG)
    message = {"role": "assistant", "content": [{"text": "ok"}]}

    def reply(read: int, write: int) -> Reply:
        usage = _converse_usage(read, write)
        return Reply({"output": {"message": message}, "stopReason": "end_turn", "usage": usage})

    streamed = aws_event_stream(
        [
            ("messageStart", {"role": "assistant"}),
            ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "ok"}}),
            ("contentBlockStop", {"contentBlockIndex": 0}),
            ("messageStop", {"stopReason": "end_turn"}),
            ("metadata", {"usage": _converse_usage(0, 1800), "metrics": {"latencyMs": 10}}),
        ]
    )
    with stub_server() as stub:
        stub.serve([reply(0, 1800), reply(1800, 0), streamed])
        for model in (BEDROCK_SONNET, f"converse/{BEDROCK_SONNET}"):
            _bedrock(stub, model, _marked(SYSTEM))
        chunks = _bedrock(stub, BEDROCK_SONNET, _marked(DATED), stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in chunks) == "ok"
        assert watched.settle(3) == 3
        bodies = [json.loads(body) for body in stub.bodies]
        paths = [path.rsplit("/", 1)[1] for _, path in stub.seen]
    assert paths == ["converse", "converse", "converse-stream"]
    assert bodies[0]["system"][1] == {"cachePoint": {"type": "default"}}
    assert [request for request, _, _ in watched.observed] == [
        {**body, "model": BEDROCK_SONNET} for body in bodies
    ]
    assert not watched.logger.unobserved
    (event,) = watched.events
    assert (event.cause, event.layer, event.vendor) == ("timestamp", "system", "bedrock-converse")
    _no_prompt_text(caplog, watched.events)


def test_a_bedrock_invoke_body_other_than_anthropics_is_not_judged(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    """Amazon Nova's InvokeModel body is Converse-shaped (`{"text"}` and `cachePoint` blocks, no
    anthropic_version): read as Anthropic's, its marker was unseen and every call was judged
    `not_cached`, "the request carries no cache marker"."""
    caplog.set_level(logging.DEBUG)
    usage = {"inputTokens": 5000, "outputTokens": 3, "totalTokens": 5003}
    message = {"role": "assistant", "content": [{"text": "ok"}]}
    reply = Reply({"output": {"message": message}, "stopReason": "end_turn", "usage": usage})
    nova = "amazon.nova-lite-v1:0"
    with stub_server() as stub:
        stub.serve([reply, reply])
        for _ in range(2):
            _bedrock(stub, f"invoke/{nova}", _marked(SYSTEM))
        assert watched.settle(2) == 2
        body = json.loads(stub.bodies[0])
        assert stub.seen == [("POST", f"/model/{nova}/invoke")] * 2
    assert "anthropic_version" not in body and "cachePoint" in json.dumps(body["system"])
    assert watched.observed == [] and watched.events == []
    assert watched.logger.unobserved == {"bedrock_not_anthropic": 2}
    (said,) = [m for m in _ours(caplog) if "not observed" in m]
    assert "anthropic_version" in said
    _no_prompt_text(caplog, watched.events)


def test_an_anthropic_body_named_by_its_model_is_judged_on_bedrock(watched: Watched) -> None:
    """Bedrock's Mantle endpoint takes Anthropic's body with the `anthropic.` model in it and
    anthropic_version as a header: judged, not taken for another family's body."""
    body = {
        "model": "anthropic.claude-mythos-preview",
        "max_tokens": 64,
        "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "Hi."}],
    }
    kwargs = {
        "litellm_call_id": "call-1",
        "call_type": "anthropic_messages",
        "custom_llm_provider": "bedrock",
        "additional_args": {"complete_input_dict": body, "api_base": "https://x.test/v1/messages"},
    }
    watched.logger.log_pre_api_call(body["model"], body["messages"], kwargs)
    usage = {"prompt_tokens": 1812, "completion_tokens": 3, "cache_creation_input_tokens": 1800}
    watched.logger.log_success_event(kwargs, {"model": body["model"], "usage": usage}, None, None)
    assert [request for request, _, _ in watched.observed] == [body]
    assert not watched.logger.unobserved


# -- litellm.Router ------------------------------------------------------------------------------


def test_router_calls_fallbacks_included_are_judged_and_nothing_stays_in_flight(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    """The Router calls litellm.completion per deployment: each attempt's request is held
    from its pre-call hook; a failed attempt's is dropped, the fallback's is judged."""
    caplog.set_level(logging.DEBUG)
    with stub_server() as stub:
        primary = {"model": f"openai/{GPT}", "api_base": f"{stub.url}/v1", "api_key": "sk-test"}
        backup = {"model": f"anthropic/{CLAUDE}", "api_base": stub.url, "api_key": "sk-ant-test"}
        router = litellm.Router(
            model_list=[
                {"model_name": "main", "litellm_params": primary},
                {"model_name": "backup", "litellm_params": backup},
            ],
            fallbacks=[{"main": ["backup"]}],
            num_retries=0,
        )
        failed = Reply({"error": {"message": "overloaded", "type": "server_error"}}, status=503)
        stub.serve([chat_reply(1), chat_reply(2), failed, claude_reply(3, 0, 1800)])
        metadata = {"promptcache_key": "tenant-7"}
        changed = SYSTEM.replace("Refund policy", "Refund  policy", 1)
        for system in (SYSTEM, changed, changed):
            router.completion(model="main", messages=_conversation(system), metadata=metadata)
        assert watched.settle(3) == 3
        assert [path for _, path in stub.seen] == ["/v1/chat/completions"] * 3 + ["/v1/messages"]
    assert [key for _, _, key in watched.observed] == ["tenant-7"] * 3
    assert "system" in watched.observed[2][0]  # the fallback's Anthropic body
    causes = [(e.cause, e.path) for e in watched.events]
    assert causes == [("whitespace", "messages[0].content"), ("model_changed", "model")]
    assert not watched.logger.unobserved
    assert len(watched.logger._sent) == 0  # nothing left held
    _no_prompt_text(caplog, watched.events)


def test_the_ids_kept_to_tell_a_second_report_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """LiteLLM reports some calls twice (a sync Responses stream to its sync and async hooks):
    the second is dropped by call id, and only the latest ANSWERED_KEPT ids are kept."""
    from promptcache.debug import litellm_logger

    monkeypatch.setattr(litellm_logger, "ANSWERED_KEPT", 8)
    logger = litellm_logger.MonitorLogger(promptcache.Monitor(metrics=False))
    body = {"model": GPT, "messages": _conversation(SYSTEM)}
    response = chat_reply(1).body
    for n in range(20):
        kwargs = {
            "litellm_call_id": f"call-{n}",
            "call_type": "completion",
            "custom_llm_provider": "openai",
            "additional_args": {"complete_input_dict": body},
        }
        logger.log_pre_api_call(GPT, body["messages"], kwargs)
        logger.log_success_event(kwargs, response, None, None)
        logger.log_success_event(kwargs, response, None, None)  # LiteLLM's second report
    assert logger.monitor.stats()["observations"] == 20 and not logger.unobserved
    assert list(logger._answered) == [f"call-{n}" for n in range(12, 20)]


# -- litellm.responses -------------------------------------------------------------------------


def responses_reply(number: int, cached: int) -> Reply:
    output = {
        "type": "message",
        "id": f"msg_{number}",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "ok", "annotations": []}],
    }
    usage = {
        "input_tokens": 2000,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": 2,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2002,
    }
    return Reply(
        {
            "id": f"resp_{number}",
            "object": "response",
            "created_at": 1_796_000_000 + number,
            "status": "completed",
            "model": GPT,
            "output": [output],
            "usage": usage,
        }
    )


def test_responses_calls_are_judged_in_the_format_sent(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    """litellm.responses() sends the Responses API body to OpenAI, and for Anthropic models
    LiteLLM's bridge sends a Messages body: each judged as sent, with the usage reported."""
    caplog.set_level(logging.DEBUG)
    with stub_server() as stub:
        stub.serve([responses_reply(1, 0), responses_reply(2, 1920), responses_reply(3, 0)])
        for instructions in (SYSTEM, SYSTEM, DATED):
            litellm.responses(
                model=f"openai/{GPT}",
                api_base=f"{stub.url}/v1",
                api_key="sk-test",
                instructions=instructions,
                input=f"Hi, I am {NAME}, {EMAIL}.",
                prompt_cache_key="tenant-7",
            )
        assert watched.settle(3) == 3
        wire = [json.loads(body) for body in stub.bodies]
        assert {path for _, path in stub.seen} == {"/v1/responses"}

        async def bridged() -> None:
            stub.serve([claude_reply(4, 0, 1800)])
            await litellm.aresponses(
                model=f"anthropic/{CLAUDE}",
                api_base=stub.url,
                api_key="sk-ant-test",
                instructions=SYSTEM,
                input="Hi.",
                max_output_tokens=64,
            )
            await asyncio.sleep(0.2)

        asyncio.run(bridged())
        assert watched.settle(4) == 4
    sent = [request for request, _, _ in watched.observed]
    assert sent[:3] == wire
    assert "system" in sent[3] and "instructions" not in sent[3]
    usages = [(u.cache_read, u.cache_write) for _, u, _ in watched.observed]
    assert usages == [(0, None), (1920, None), (0, None), (0, 1800)]
    (event,) = watched.events
    assert (event.cause, event.path, event.key) == ("timestamp", "instructions", "tenant-7")
    assert not watched.logger.unobserved
    _no_prompt_text(caplog, watched.events)


def test_a_responses_stream_is_judged_when_read_to_its_end(watched: Watched) -> None:
    response = responses_reply(1, 1536).body
    started = {**response, "status": "in_progress", "output": [], "usage": None}
    events = (
        ("response.created", {"type": "response.created", "response": started}),
        (
            "response.output_text.delta",
            {
                "type": "response.output_text.delta",
                "item_id": "msg_1",
                "output_index": 0,
                "content_index": 0,
                "delta": "ok",
            },
        ),
        ("response.completed", {"type": "response.completed", "response": response}),
    )
    with stub_server() as stub:
        stub.serve([Reply(events=events)])
        stream = litellm.responses(
            model=f"openai/{GPT}",
            api_base=f"{stub.url}/v1",
            api_key="sk-test",
            instructions=SYSTEM,
            input="Hi.",
            stream=True,
        )
        for _ in stream:
            pass
        assert watched.settle(1) == 1
    ((request, usage, _),) = watched.observed
    assert request["stream"] is True and request["instructions"] == SYSTEM
    assert (usage.uncached_input, usage.cache_read) == (464, 1536)


def test_anthropic_messages_calls_are_judged(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    """litellm.anthropic.messages (the proxy's /v1/messages, Claude Code's route) sends the
    Messages body as given. LiteLLM 1.110 has it async only, and its streams import the
    proxy's modules (backoff and more), so only whole answers are tested."""
    caplog.set_level(logging.DEBUG)

    async def calls(stub: Any) -> None:
        for system in (SYSTEM, SYSTEM, DATED):
            await litellm.anthropic.messages.acreate(
                model=f"anthropic/{CLAUDE}",
                api_base=stub.url,
                api_key="sk-ant-test",
                max_tokens=64,
                system=[{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
                messages=[{"role": "user", "content": f"Hi, I am {NAME}, {EMAIL}."}],
                metadata={"user_id": "session-41"},
            )
        await asyncio.sleep(0.2)

    with stub_server() as stub:
        stub.serve([claude_reply(1, 0, 1800), claude_reply(2, 1800, 0), claude_reply(3, 0, 1800)])
        asyncio.run(calls(stub))
        assert watched.settle(3) == 3
        wire = [json.loads(body) for body in stub.bodies]
    assert [request for request, _, _ in watched.observed] == wire
    usages = [(u.cache_read, u.cache_write) for _, u, _ in watched.observed]
    assert usages == [(0, 1800), (1800, 0), (0, 1800)]
    (event,) = watched.events
    assert (event.cause, event.path, event.key) == ("timestamp", "system[0].text", "session-41")
    assert not watched.logger.unobserved
    _no_prompt_text(caplog, watched.events)


# -- LiteLLM's own response cache ---------------------------------------------------------------

# LiteLLM 1.110 imports its proxy's pass-through handlers on every cache hit (to tell a replayed
# stream), which need fastapi and soundfile: without them the user's cached call itself fails
_CACHE_HIT_NEEDS = ("fastapi", "soundfile")


@pytest.fixture
def litellm_cache() -> Iterator[None]:
    missing = [name for name in _CACHE_HIT_NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(
            f"LiteLLM 1.110 answers a cache hit only with {', '.join(missing)} installed (its "
            "cache-hit path imports the proxy's pass-through handlers)"
        )
    from litellm.caching.caching import Cache

    saved = litellm.cache
    litellm.cache = Cache(type="local")
    try:
        yield
    finally:
        litellm.cache = saved


def test_an_answer_from_litellms_cache_is_not_judged_as_a_provider_read_or_miss(
    watched: Watched, litellm_cache: None, caplog: pytest.LogCaptureFixture
) -> None:
    """A response LiteLLM served from `litellm.cache` never reached the provider: its usage is
    the first call's, replayed. Counted and said (at INFO, once) for what it is."""
    caplog.set_level(logging.DEBUG)
    with stub_server() as stub:
        stub.serve([chat_reply(1), claude_stream(2, 0, 1800)])
        replies = [_cached_openai(stub) for _ in range(3)]
        streams = []
        for _ in range(2):
            chunks = litellm.completion(
                model=f"anthropic/{CLAUDE}",
                api_base=stub.url,
                api_key="sk-ant-test",
                messages=_conversation(SYSTEM),
                max_tokens=64,
                stream=True,
                caching=True,
            )
            streams.append("".join(c.choices[0].delta.content or "" for c in chunks))

        async def cached() -> Any:
            reply = await litellm.acompletion(
                model=f"openai/{GPT}",
                api_base=f"{stub.url}/v1",
                api_key="sk-test",
                messages=_conversation(SYSTEM),
                caching=True,
            )
            await asyncio.sleep(0.2)
            return reply

        replies.append(asyncio.run(cached()))
        assert watched.settle(6) == 6
        assert len(stub.seen) == 2  # the provider was asked twice; the rest came from the cache
    assert [r.choices[0].message.content for r in replies] == ["ok"] * 4 and streams == ["ok"] * 2
    assert len(watched.observed) == 2 and watched.events == []
    assert watched.logger.unobserved == {"litellm_cache": 4}
    said = [r for r in caplog.records if r.name.startswith("promptcache") and "not obs" in r.msg]
    assert [r.levelno for r in said] == [logging.INFO]
    assert "own response cache" in said[0].getMessage()
    assert len(watched.logger._sent) == 0
    _no_prompt_text(caplog, watched.events)


def _cached_openai(stub: Any) -> Any:
    return litellm.completion(
        model=f"openai/{GPT}",
        api_base=f"{stub.url}/v1",
        api_key="sk-test",
        messages=_conversation(SYSTEM),
        caching=True,
    )


def test_the_stubs_fixed_routes_leave_its_queue_alone() -> None:
    """The stub's fixed routes leave the queued replies alone."""
    with stub_server() as stub:
        stub.routes["/token"] = Reply({"access_token": "t"})
        stub.serve([Reply(events=chat_chunks("c1", GPT, ["ok"], None))])
        import urllib.request

        token = urllib.request.urlopen(urllib.request.Request(f"{stub.url}/token", b"{}"))
        assert json.loads(token.read()) == {"access_token": "t"}
        answer = urllib.request.urlopen(urllib.request.Request(f"{stub.url}/v1/x", b"{}"))
        assert b"[DONE]" in answer.read()
        assert stub.seen == [("POST", "/v1/x")]


# -- these routes stay on loopback too -----------------------------------------------------------

_CALLS = """
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from tests._recording import stub_server
from tests.debug import test_litellm_routes as routes
from tests.debug.test_litellm_logger import chat_reply, claude_reply
key = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
).decode()
messages = [{"role": "user", "content": "hi"}]
with stub_server() as stub:
    stub.serve([routes.gemini_reply(4000, None), routes.gemini_reply(4000, None),
                routes.bedrock_reply(routes.BEDROCK_SONNET, 0, 1800), chat_reply(1),
                routes.responses_reply(2, 0)])
    routes._gemini_call("vertex_ai", stub, key, messages=messages)
    routes._gemini_call("gemini", stub, key, messages=messages)
    routes._bedrock(stub, "invoke/" + routes.BEDROCK_SONNET, messages)
    params = {"model": "openai/gpt-4o", "api_base": stub.url + "/v1", "api_key": "sk-test"}
    litellm.Router(model_list=[{"model_name": "m", "litellm_params": params}]).completion(
        model="m", messages=messages)
    litellm.responses(input="hi", **params)
print(json.dumps(seen))
"""


def test_these_routes_reach_nothing_but_the_stub(service_account_key: str) -> None:
    """Vertex's token request, SigV4 signing, the Router and responses() open no socket and
    resolve no name off loopback (the audit hook of test_litellm_logger, a fresh interpreter,
    no AWS or Google settings from the environment)."""
    from .test_litellm_logger import _AUDIT

    hook, marker, _ = _AUDIT.partition("\nimport litellm\n")
    assert marker, "test_litellm_logger's audit script no longer imports litellm after its hook"
    root = Path(__file__).resolve().parents[2]
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LITELLM_", "AWS_", "GOOGLE_", "GEMINI_", "VERTEX"))
    }
    env.update(LITELLM_OFFLINE)
    out = subprocess.run(
        [sys.executable, "-c", hook + marker + _CALLS, str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
