"""
`wrap()` of boto3's `bedrock-runtime` client (botocore's event system) and of the anthropic SDK's
`AnthropicBedrock` (the proxy), replayed from cassettes of the real SDKs against a stub on
127.0.0.1 (tests/debug/bedrock_cassettes.py records them; see cassettes/README.md).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

pytest.importorskip("boto3")

import promptcache
from promptcache import CacheUsage, Monitor, wrap
from promptcache.sim import BedrockEmulator, ManualClock

from .bedrock_cassettes import (
    ANTHROPIC_BEDROCK_REPLIES,
    BOTO3_REPLIES,
    anthropic_bedrock_calls,
    anthropic_bedrock_client,
    bedrock_replayer,
    boto3_calls,
    boto3_client,
)


@pytest.fixture
def observed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[dict[str, Any], Any, Any]]:
    calls: list[tuple[dict[str, Any], Any, Any]] = []
    real = promptcache.Monitor.observe

    def spy(self: Monitor, request: Any, response: Any = None, **kw: Any) -> Any:
        calls.append((request, response, kw.get("usage")))
        return real(self, request, response, **kw)

    monkeypatch.setattr(promptcache.Monitor, "observe", spy)
    return calls


def test_every_boto3_call_path_is_observed(
    observed: list[tuple[dict[str, Any], Any, Any]],
) -> None:
    monitor = Monitor("bedrock", metrics=False)
    with bedrock_replayer().use_cassette(
        "bedrock/boto3.yaml", allow_playback_repeats=False
    ) as tape:
        client = wrap(boto3_client(None), monitor=monitor)
        results = boto3_calls(client)
        assert tape.all_played and len(tape) == len(BOTO3_REPLIES)
    assert type(client).__name__ == "BedrockRuntime"  # the caller's own botocore client
    assert len(observed) == 5
    kinds = [("modelId" in r, "anthropic_version" in r) for r, _, _ in observed]
    assert kinds == [(True, False)] * 3 + [(False, True)] * 2
    read = [u.cache_read if isinstance(u, CacheUsage) else None for _, _, u in observed]
    assert read[2] == 1830 and read[4] == 1829  # the streams' usage, observed at their end
    first, second = observed[0][1], observed[1][1]
    assert first["usage"]["cacheWriteInputTokens"] == 1830
    assert second["usage"]["cacheReadInputTokens"] == 1830
    # what the caller got: the SDK's own results, streams unchanged and the invoke body readable
    assert [next(iter(e)) for e in results[2]][-1] == "metadata"
    assert results[3]["usage"]["cache_creation_input_tokens"] == 1829
    assert results[4][0]["type"] == "message_start"
    stats = monitor.stats()
    assert stats["observations"] == 5


def test_the_invoke_body_reads_for_the_caller_after_observing() -> None:
    monitor = Monitor("bedrock", metrics=False)
    client = wrap(BedrockEmulator(clock=ManualClock()).client(), monitor=monitor)
    body = {
        "anthropic_version": "bedrock-2023-05-31",
        "max_tokens": 8,
        "messages": [{"role": "user", "content": "hi"}],
    }
    reply = client.invoke_model(
        modelId="anthropic.claude-sonnet-4-5-20250929-v1:0", body=json.dumps(body)
    )
    assert json.loads(reply["body"].read())["type"] == "message"
    assert monitor.stats()["observations"] == 1


def test_a_changed_system_is_caught_through_boto3() -> None:
    clock = ManualClock()
    events: list[Any] = []
    monitor = Monitor("bedrock", on_invalidation=events.append, clock=clock, metrics=False)
    client = wrap(BedrockEmulator(clock=clock).client(), monitor=monitor)
    from promptcache import Prompt, get_adapter

    adapter = get_adapter("bedrock")
    model = "global.anthropic.claude-sonnet-4-5-20250929-v1:0"
    long = "Policy line for the agent. " * 600
    client.converse(**adapter.to_request(Prompt().add_system(long).with_tail("a"), model=model))
    clock.advance(10)
    changed = Prompt().add_system("Today is Tuesday. " + long).with_tail("b")
    stream = client.converse_stream(**adapter.to_request(changed, model=model))
    assert events == []  # not yet read: the usage comes in the stream's last event
    for _ in stream["stream"]:
        pass
    assert [e.cause for e in events] == ["content_changed"] and events[0].layer == "system"


def test_errors_reach_the_caller_untouched_and_are_not_observed(
    observed: list[tuple[dict[str, Any], Any, Any]],
) -> None:
    from botocore.exceptions import ClientError

    client = wrap(BedrockEmulator(clock=ManualClock()).client(), vendor="bedrock")
    point = {"cachePoint": {"type": "default"}}
    with pytest.raises(ClientError, match="A maximum of 4"):
        client.converse(
            modelId="anthropic.claude-sonnet-4-5-20250929-v1:0",
            system=[b for _ in range(5) for b in ({"text": "x"}, point)],
            messages=[{"role": "user", "content": [{"text": "hi"}]}],
        )
    assert observed == []


def test_unobservable_and_unreadable_calls_are_warned_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import io

    client = wrap(BedrockEmulator(clock=ManualClock()).client())
    body = json.dumps({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 8, "messages": []})
    with caplog.at_level(logging.WARNING, logger="promptcache.wrap"):
        for _ in range(2):
            reply = client.invoke_model(
                modelId="anthropic.claude-sonnet-4-5-20250929-v1:0",
                body=io.BytesIO(body.encode()),
            )
            assert json.loads(reply["body"].read())["type"] == "message"
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "cannot read body of invoke_model" in said[0]
    assert "stream" in said[0] and "Policy" not in said[0]


def test_a_client_of_another_service_is_refused() -> None:
    import boto3

    s3 = boto3.client(
        "s3", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
    )
    with pytest.raises(promptcache.InputError, match="bedrock-runtime"):
        wrap(s3)


def test_anthropic_bedrock_is_observed_as_bedrock_invoke(
    observed: list[tuple[dict[str, Any], Any, Any]],
) -> None:
    pytest.importorskip("anthropic")
    with bedrock_replayer().use_cassette(
        "bedrock/anthropic_bedrock.yaml", allow_playback_repeats=False
    ) as tape:
        client = wrap(anthropic_bedrock_client(None))
        message, events = anthropic_bedrock_calls(client)
        assert tape.all_played and len(tape) == len(ANTHROPIC_BEDROCK_REPLIES)
    from anthropic import AnthropicBedrock

    assert isinstance(client, AnthropicBedrock)
    assert len(observed) == 2 and message.usage.cache_creation_input_tokens == 1829
    streamed = observed[1][2]
    assert isinstance(streamed, CacheUsage) and streamed.cache_read == 1829
    assert events[0].type == "message_start"


def test_async_anthropic_bedrock_is_observed(
    observed: list[tuple[dict[str, Any], Any, Any]],
) -> None:
    import asyncio

    anthropic = pytest.importorskip("anthropic")
    from promptcache import Prompt, get_adapter

    emulator = BedrockEmulator(clock=ManualClock())
    client = wrap(
        anthropic.AsyncAnthropicBedrock(
            aws_access_key="AKIDPROMPTCACHEFAKE",
            aws_secret_key="fake-secret-0000",
            aws_region="us-east-1",
            base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
            http_client=emulator.http_client(is_async=True),
            max_retries=0,
        )
    )
    prompt = Prompt().add_system("Policy line for the agent. " * 600).with_tail("q")
    kwargs = get_adapter("bedrock-invoke").to_request(
        prompt, model="us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    )

    async def twice() -> list[Any]:
        return [await client.messages.create(**kwargs) for _ in range(2)]

    first, second = asyncio.run(twice())
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens > 0
    assert len(observed) == 2
    # the requests judged are the bodies sent: extra_body merged, Bedrock's version string in it
    from promptcache.vendors import detect_vendor

    assert all(r["anthropic_version"] == "bedrock-2023-05-31" for r, _, _ in observed)
    assert {detect_vendor(r).name for r, _, _ in observed} == {"bedrock-invoke"}


def test_recorded_converse_calls_are_priced_by_report(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from promptcache import Prompt, Recorder, get_adapter
    from promptcache.cli import main

    log = tmp_path / "bedrock.jsonl"
    clock = ManualClock()
    recorder = Recorder(str(log))
    client = wrap(BedrockEmulator(clock=clock).client(), recorder=recorder)
    adapter = get_adapter("bedrock")
    model = "global.anthropic.claude-sonnet-4-5-20250929-v1:0"
    prompt = Prompt().add_system("Policy line for the agent. " * 600)
    client.converse(**adapter.to_request(prompt.with_tail("a"), model=model))
    clock.advance(5)
    streamed = client.converse_stream(**adapter.to_request(prompt.with_tail("b"), model=model))
    list(streamed["stream"])
    recorder.close()
    text = log.read_text()
    assert model in text and "Policy line" not in text  # the model id kept, the prompt hashed
    assert main(["report", str(log), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["records"] == 2 and report["cost"]["unpriced_records"] == 0
    assert report["tokens"]["cache_read"] > 0


def test_converse_and_invoke_through_one_client_are_kept_apart() -> None:
    from promptcache import Prompt, get_adapter
    from promptcache.adapters.bedrock import invoke_kwargs

    clock = ManualClock()
    events: list[Any] = []
    monitor = Monitor("bedrock", on_invalidation=events.append, clock=clock, metrics=False)
    client = wrap(BedrockEmulator(clock=clock).client(), monitor=monitor)
    model = "global.anthropic.claude-sonnet-4-5-20250929-v1:0"
    prompt = Prompt().add_system("Policy line for the agent. " * 600).with_tail("q")
    for _ in range(2):
        client.converse(**get_adapter("bedrock").to_request(prompt, model=model))
        clock.advance(5)
        body = get_adapter("bedrock-invoke").to_request(prompt, model=model)
        client.invoke_model(**invoke_kwargs(body))["body"].read()
        clock.advance(5)
    assert events == []  # an invoke call after a Converse one was a "model_changed" before
    assert monitor.stats()["observations"] == 4
