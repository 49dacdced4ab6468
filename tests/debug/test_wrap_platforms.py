"""
wrap() on the cloud platforms' own SDK clients, replayed from cassettes/platforms/ (recorded from
the real SDKs against a stub on 127.0.0.1: `python -m tests.debug.wire_platforms`): each client
class is observed under its platform's record (minimums, prices, model names), on every call
path it has here, sync and async, streamed or not.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from promptcache import cost, load_prices
from promptcache._wrap import _vendor_of
from promptcache.debug.monitor import adapter_for

from .wire_platforms import CASSETTES, DEPLOYMENT, MANTLE_MODEL, PROJECT, VERTEX_MODEL, replay

# session -> (the vendor record wrap() picks from the client class, calls made)
EXPECTED = {
    "vertex_anthropic": ("vertex-anthropic", 3),
    "azure": ("azure-openai", 4),
    "foundry": ("foundry", 2),
    "mantle": ("bedrock-mantle", 2),
    "vertex_gemini": ("vertex-gemini", 3),
}


def _usage(vendor: str, seen: dict[str, Any]) -> Any:
    if seen.get("usage") is not None:  # a stream: what the accumulator read
        return seen["usage"]
    return adapter_for(vendor, seen["request"]).read_usage(seen["response"])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_call_is_observed_under_the_platforms_record(name: str) -> None:
    vendor, calls = EXPECTED[name]
    monitor, seen = replay(name)
    assert monitor.vendor == vendor
    assert len(seen) == calls and monitor.stats()["observations"] == calls
    for observed in seen:
        usage = _usage(vendor, observed)
        assert usage.vendor.split("-responses")[0] == vendor.split("-responses")[0]
        assert usage.caching_reported and usage.output is not None


def _requests(name: str) -> list[tuple[str, Any]]:
    data = yaml.safe_load((CASSETTES / f"{name}.yaml").read_text())
    out = []
    for interaction in data["interactions"]:
        body = interaction["request"]["body"]
        text = body if isinstance(body, str) else (body or {}).get("string", "")
        out.append((interaction["request"]["uri"], json.loads(text)))
    return out


def test_vertex_claude_goes_by_the_model_in_its_url() -> None:
    """The SDK moves `model` into the URL (rawPredict, streamRawPredict) and puts its API
    version in the body; the monitor keys the calls by that model."""
    sent = _requests("vertex_anthropic")
    suffix = f"/projects/{PROJECT}/locations/us-east5/publishers/anthropic/models/{VERTEX_MODEL}"
    assert [uri.rsplit(":", 1)[-1] for uri, _ in sent] == [
        "rawPredict",
        "streamRawPredict",
        "rawPredict",
    ]
    assert all(suffix in uri for uri, _ in sent)
    assert all("model" not in body and body["anthropic_version"] for _, body in sent)
    monitor, seen = replay("vertex_anthropic")
    assert {o["request"]["model"] for o in seen} == {VERTEX_MODEL}
    assert monitor._default_key(monitor._named, VERTEX_MODEL) == f"vertex-anthropic:{VERTEX_MODEL}"
    # the second call read what the first wrote: no invalidation
    assert monitor.stats()["events"] == 0


def test_azure_deployment_names_are_kept_and_the_response_model_is_read() -> None:
    sent = _requests("azure")
    assert [uri.split("?")[0].rsplit("/openai/", 1)[1] for uri, _ in sent] == [
        f"deployments/{DEPLOYMENT}/chat/completions",
        f"deployments/{DEPLOYMENT}/chat/completions",
        f"deployments/{DEPLOYMENT}/chat/completions",
        "responses",
    ]
    assert all(body["model"] == DEPLOYMENT for _, body in sent)
    _, seen = replay("azure")
    usages = [_usage("azure-openai", o) for o in seen]
    assert [u.model for u in usages] == ["gpt-4o-2024-11-20"] * 3 + ["gpt-4o"]
    assert [u.cache_read for u in usages] == [0, 1408, 1408, 0]
    priced = cost(usages[1])  # by the platform's record: genai-prices' azure rows
    assert (priced.vendor, priced.model) == ("azure-openai", "gpt-4o-2024-11-20")
    assert "azure/" in load_prices().rates("azure-openai", "gpt-4o-2024-11-20").source


def test_mantle_names_the_bedrock_model_and_prices_it_as_bedrock() -> None:
    _, seen = replay("mantle")
    assert seen[0]["request"]["model"] == MANTLE_MODEL
    usage = _usage("bedrock-mantle", seen[0])
    assert cost(usage, model=MANTLE_MODEL).vendor == "bedrock-mantle"
    assert "aws/" in load_prices().rates("bedrock-mantle", MANTLE_MODEL).source


@pytest.mark.parametrize(
    ("module", "cls", "vendor"),
    [
        ("anthropic", "AnthropicVertex", "vertex-anthropic"),
        ("anthropic", "AsyncAnthropicVertex", "vertex-anthropic"),
        ("anthropic", "AnthropicFoundry", "foundry"),
        ("anthropic", "AsyncAnthropicFoundry", "foundry"),
        ("anthropic", "AnthropicBedrockMantle", "bedrock-mantle"),
        ("anthropic", "AsyncAnthropicBedrockMantle", "bedrock-mantle"),
        ("openai", "AzureOpenAI", "azure-openai"),
        ("openai", "AsyncAzureOpenAI", "azure-openai"),
        ("anthropic", "Anthropic", "anthropic"),
        ("openai", "OpenAI", "openai"),
    ],
)
def test_the_client_class_names_the_platform(module: str, cls: str, vendor: str) -> None:
    import importlib

    klass = getattr(importlib.import_module(module), cls)
    assert _vendor_of(klass.__new__(klass)) == vendor


def test_a_genai_client_is_vertex_only_when_made_so() -> None:
    from google import genai
    from google.oauth2.credentials import Credentials

    vertex = genai.Client(
        vertexai=True, project=PROJECT, location="us-central1", credentials=Credentials("x")
    )
    assert _vendor_of(vertex) == "vertex-gemini"
    assert _vendor_of(genai.Client(api_key="x")) == "gemini"


def test_the_recorder_and_report_keep_the_platform(tmp_path: Any) -> None:
    """A wrapped platform client's log names the platform; `report` prices it by its rows."""
    import promptcache
    from promptcache._report import build_report
    from promptcache.debug.recorder import Recorder
    from promptcache.sim import emulator_for

    log = tmp_path / "calls.jsonl"
    recorder = Recorder(log, background=False)  # written on the caller's thread: no race
    client = promptcache.wrap(emulator_for("vertex-anthropic").client(), recorder=recorder)
    system = [{"type": "text", "text": "Rules. " * 900, "cache_control": {"type": "ephemeral"}}]
    for question in ("a", "b"):
        client.messages.create(
            model=VERTEX_MODEL,
            max_tokens=5,
            system=system,
            messages=[{"role": "user", "content": question}],
        )
    recorder.close()
    lines = log.read_text().splitlines()
    assert [json.loads(line)["vendor"] for line in lines] == ["vertex-anthropic"] * 2
    report = build_report(lines)
    assert report.records == 2 and report.to_json()["cost"]["unpriced_records"] == 0


def test_a_vendor_named_for_another_sdk_is_warned_not_silently_unobserved(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`vendor="vertex"` is Gemini on Vertex: on an AnthropicVertex client its calls are read as
    the client's SDK sends them, and said unreadable as Gemini, not passed by unseen."""
    import promptcache
    from promptcache.sim import emulator_for

    client = promptcache.wrap(emulator_for("vertex-anthropic").client(), vendor="vertex")
    client.messages.create(
        model=VERTEX_MODEL, max_tokens=5, messages=[{"role": "user", "content": "hi"}]
    )
    assert "not a request promptcache reads as vertex-gemini" in caplog.text
