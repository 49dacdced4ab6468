"""
The cloud platforms as vendors: detection by the body's platform mark, model names resolved per
platform, a switch between two names of one model said as a *possible* `model_changed`, and the
platform's own minimums and prices.
"""

from __future__ import annotations

from typing import Any

import pytest

from promptcache import InputError, Monitor, diff, get_adapter, load_min_tokens, load_prices
from promptcache._usage import CacheUsage
from promptcache.vendors import (
    bedrock_mantle,
    detect_response_vendor,
    detect_vendor,
    get_vendor,
    resolve_vendor,
    vertex_anthropic,
    vertex_gemini,
)
from promptcache.vendors._platform import named_models
from promptcache.vendors.azure_openai import with_deployments

SYSTEM = "You are the support agent. " + "Answer in one line. " * 400


def _claude(**extra: Any) -> dict[str, Any]:
    return {
        "max_tokens": 16,
        "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "Where is my order?"}],
        **extra,
    }


# -- detection ------------------------------------------------------------------------------


def test_a_vertex_claude_body_is_told_by_its_version_string_or_its_model_name() -> None:
    assert detect_vendor(_claude(anthropic_version="vertex-2023-10-16")).name == (
        "vertex-anthropic"
    )
    assert detect_vendor(_claude(model="claude-sonnet-4-5@20250929")).name == "vertex-anthropic"
    # anthropic >= 2.0 writes its API version instead, into Bedrock InvokeModel bodies too: the
    # body alone does not say Vertex, so it is not taken for Vertex's (pass the vendor)
    assert detect_vendor(_claude(anthropic_version="2026-10-21")).name != "vertex-anthropic"
    assert detect_vendor(_claude(model="claude-sonnet-4-5")).name == "anthropic"


def test_a_vertex_gemini_body_is_told_by_its_resource_names() -> None:
    named = "projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash"
    assert detect_vendor({"model": named, "contents": "hi"}).name == "vertex-gemini"
    cached = {"cachedContent": "projects/p/locations/europe-west4/cachedContents/123"}
    assert detect_vendor({"contents": "hi", **cached}).name == "vertex-gemini"
    assert detect_vendor({"model": "gemini-2.5-flash", "contents": "hi"}).name == "gemini"


def test_a_bedrock_model_id_in_a_messages_body_is_the_mantle_endpoint() -> None:
    body = _claude(model="us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    assert detect_vendor(body).name == "bedrock-mantle"
    # an InvokeModel body (its version in the body, the model added back from the URL) is not
    invoke = {**body, "anthropic_version": "bedrock-2023-05-31"}
    assert detect_vendor(invoke).name != "bedrock-mantle"


def test_azure_and_foundry_bodies_are_never_guessed_only_named() -> None:
    chat = {"model": "support-gpt", "messages": [{"role": "system", "content": "s"}]}
    assert detect_vendor(chat).name == "openai"
    assert resolve_vendor(chat, "azure").name == "azure-openai"
    assert resolve_vendor({"model": "support-gpt", "input": "hi"}, "azure").name == (
        "azure-openai-responses"
    )
    assert detect_vendor(_claude(model="my-claude")).name == "anthropic"
    assert resolve_vendor(_claude(model="my-claude"), "foundry").name == "foundry"


def test_a_platform_answers_in_the_format_it_serves() -> None:
    message = {"type": "message", "model": "claude-sonnet-4-5", "usage": {"input_tokens": 3}}
    assert detect_response_vendor(message).name == "anthropic"


# -- model names ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5-20250929"),
        ("claude-opus-5", "claude-opus-5"),
        (
            "projects/p/locations/global/publishers/anthropic/models/claude-opus-4-5@20251101"
            ":streamRawPredict",
            "claude-opus-4-5-20251101",
        ),
    ],
)
def test_vertex_claude_names(name: str, model: str) -> None:
    assert vertex_anthropic.model_of(name) == model


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("anthropic.claude-opus-5", "claude-opus-5"),
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5-20250929"),
        ("apac.anthropic.claude-opus-4-6-v1", "claude-opus-4-6"),
        (
            "arn:aws:bedrock:us-east-1:123456789012:inference-profile/"
            "global.anthropic.claude-haiku-4-5-20251001-v1:0",
            "claude-haiku-4-5-20251001",
        ),
        # an application inference profile hides its model: kept as named, not guessed
        (
            "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3",
            "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3",
        ),
    ],
)
def test_bedrock_model_ids(name: str, model: str) -> None:
    assert bedrock_mantle.model_of(name) == model


def test_vertex_gemini_names_and_their_project_and_region() -> None:
    name = "projects/p1/locations/us-central1/publishers/google/models/gemini-2.5-pro"
    assert vertex_gemini.model_of(name) == "gemini-2.5-pro"
    assert vertex_gemini.cache_scope(name) == ("p1", "us-central1")
    assert vertex_gemini.cache_scope("gemini-2.5-pro") is None


def test_a_deployment_name_resolves_only_through_the_users_mapping() -> None:
    azure = get_vendor("azure-openai")
    assert azure.same_model is None  # deployment names say nothing of their model
    mapped = with_deployments({"gpt-east": "gpt-5.1", "gpt-west": "gpt-5.1", "mini": "gpt-5-mini"})
    assert mapped.same_model is not None
    assert mapped.same_model("gpt-east", "gpt-west") is True
    assert mapped.same_model("gpt-east", "mini") is False
    assert mapped.same_model("gpt-east", "unknown") is False  # compared as named, not guessed
    with pytest.raises(InputError, match="deployment-name"):
        named_models(azure, {"support-gpt": ""})


def test_an_application_profile_hides_its_model_so_sameness_is_unknown() -> None:
    same = get_vendor("bedrock-mantle").same_model
    assert same is not None
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3"
    assert same(arn, "us.anthropic.claude-sonnet-4-5-20250929-v1:0") is None


# -- a switch between two names of one model ------------------------------------------------


def test_diff_says_a_switch_between_two_names_of_one_model_is_only_possibly_a_miss() -> None:
    a = _claude(model="us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    b = _claude(model="global.anthropic.claude-sonnet-4-5-20250929-v1:0")
    found = diff(a, b)
    assert found.vendor == "bedrock-mantle" and found.cause == "model_changed"
    assert "possibly model_changed" in found.detail and "two names of one model" in found.detail
    assert "does not document" in found.detail
    other = diff(a, _claude(model="us.anthropic.claude-opus-4-5-20251101-v1:0"))
    assert other.cause == "model_changed" and "possibly" not in other.detail


def test_two_azure_deployments_of_one_model_are_a_possible_model_change() -> None:
    chat = {"messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "q"}]}
    a, b = {**chat, "model": "gpt-east"}, {**chat, "model": "gpt-west"}
    assert "possibly" not in diff(a, b, "azure").detail  # unknown deployments: per model
    mapped = with_deployments({"gpt-east": "gpt-5.1", "gpt-west": "gpt-5.1"})
    found = diff(a, b, mapped)
    assert found.cause == "model_changed" and "two names of one model" in found.detail


def _usage(read: int, write: int) -> CacheUsage:
    return CacheUsage(
        uncached_input=9, cache_read=read, cache_write=write, output=3, vendor="bedrock-mantle"
    )


def test_the_monitor_says_a_switch_between_two_names_of_one_model_is_possible() -> None:
    monitor = Monitor("bedrock-mantle", metrics=False)
    first = _claude(model="us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    monitor.observe(first, usage=_usage(0, 2200), at=0.0)
    event = monitor.observe(
        {**first, "model": "global.anthropic.claude-sonnet-4-5-20250929-v1:0"},
        usage=_usage(0, 2200),
        at=10.0,
    )
    assert event is not None and event.cause == "model_changed"
    assert "possibly model_changed" in str(event.detail)
    assert "does not document" in str(event.detail)


# -- the platform's tables ------------------------------------------------------------------


def test_minimums_are_the_platforms_own_or_inherited_from_the_vendor_it_serves() -> None:
    table = load_min_tokens()
    assert table.minimum("vertex-anthropic", "claude-opus-4-5@20251101") == 4096
    assert table.minimum("vertex-anthropic", "claude-opus-5") == 512
    assert table.minimum("foundry", "claude-haiku-4-5") == 4096
    assert table.minimum("bedrock-mantle", "us.anthropic.claude-sonnet-4-6") == 2048  # AWS's
    assert table.minimum("anthropic", "claude-sonnet-4-6") == 1024
    assert table.minimum("vertex-gemini", "gemini-3.5-flash") == 2048  # Vertex's one figure
    assert table.minimum("azure-openai", "any-deployment") == 1024


def test_prices_come_from_the_platforms_provider() -> None:
    prices = load_prices()
    assert "google/" in prices.rates("vertex-anthropic", "claude-sonnet-4-5@20250929").source
    assert "google/" in prices.rates("vertex-gemini", "gemini-2.5-flash").source
    assert "azure/" in prices.rates("azure-openai", "gpt-4o").source
    assert "anthropic/" in prices.rates("foundry", "claude-opus-5").source


def test_automatic_caching_is_written_for_vertex_and_refused_on_legacy_bedrock() -> None:
    from promptcache import Prompt

    prompt = Prompt().add_system(SYSTEM).with_tail("q")
    kwargs = get_adapter("vertex-anthropic").to_request(
        prompt, model="claude-sonnet-4-5@20250929", automatic=True
    )
    assert kwargs["cache_control"] == {"type": "ephemeral"}
    with pytest.raises(InputError, match="not available on bedrock"):
        get_adapter("anthropic").to_request(
            prompt, model="claude-sonnet-4-5", automatic=True, platform="bedrock"
        )
    with pytest.raises(InputError, match="first-party beta"):
        get_adapter("vertex-anthropic").to_request(prompt, model="m", diagnostics=True)


def test_wrap_takes_the_users_deployment_mapping() -> None:
    import promptcache
    from promptcache.sim import emulator_for

    mapped = with_deployments({"gpt-east": "gpt-5.1"})
    client = promptcache.wrap(emulator_for("azure").client(), vendor=mapped)
    monitor = object.__getattribute__(client, "_watcher").monitor
    assert monitor.vendor == "azure-openai" and monitor._named.same_model is mapped.same_model


def test_azure_requests_carry_no_openai_only_cache_options() -> None:
    from promptcache import Prompt

    prompt = Prompt().add_system(SYSTEM).with_tail("q")
    kwargs = get_adapter("azure").to_request(prompt, model="gpt-5.6")  # a deployment's name
    assert "prompt_cache_options" not in kwargs and kwargs["prompt_cache_key"]
    assert "prompt_cache_options" in get_adapter("openai").to_request(prompt, model="gpt-5.6")
    with pytest.raises(InputError, match="not documented on Azure OpenAI"):
        get_adapter("azure-responses").to_request(prompt, model="gpt-5.6", cache_mode="explicit")
