"""Gemini: implicit ordering, the explicit CachedContent lifecycle, and usage accounting."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from promptcache import InputError, Message, Prompt, Tool, ToolResult, ToolUse
from promptcache.adapters import get_adapter
from promptcache.adapters.gemini import CachedPrefix, GeminiCacheManager, static_hash

MANUAL = "Section: hold the blue button for five seconds to reset. " * 300  # ~4000 tokens
MODEL = "gemini-2.5-pro"


def prompt(manual: str = MANUAL) -> Prompt:
    return (
        Prompt(volatile="ignore")
        .add_tools(Tool(name="lookup", description="find"))
        .add_system("You are support.")
        .add_docs(manual)
        .add_history(Message.user("hi"), Message.assistant("hello"))
        .with_tail("q")
    )


class FakeCaches:
    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.expire = "2099-01-01T00:00:00Z"

    def create(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("create", kwargs))
        return {"name": f"cachedContents/c{len(self.calls)}", "expireTime": self.expire}

    def update(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("update", kwargs))
        return {"name": kwargs["name"], "expireTime": "2099-06-01T00:00:00Z"}

    def delete(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("delete", kwargs))
        return {}


class AsyncCaches(FakeCaches):
    """`client.aio.caches`: the same calls, awaited."""

    async def create(self, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return super().create(**kwargs)

    async def delete(self, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return super().delete(**kwargs)

    async def update(self, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return super().update(**kwargs)


class FakeClient:
    def __init__(self, caches: FakeCaches | None = None) -> None:
        self.caches = caches or FakeCaches()


def test_implicit_request_orders_the_prefix_first() -> None:
    kwargs = get_adapter("gemini").to_request(prompt(), model=MODEL)
    assert kwargs["config"]["system_instruction"] == {"parts": [{"text": "You are support."}]}
    assert kwargs["config"]["tools"][0]["function_declarations"][0]["name"] == "lookup"
    roles = [c["role"] for c in kwargs["contents"]]
    assert roles == ["user", "user", "model", "user"]
    assert kwargs["contents"][0]["parts"][0]["text"] == MANUAL


def test_cached_request_omits_system_tools_tool_config_and_docs() -> None:
    kwargs = get_adapter("gemini").to_request(
        prompt(), model=MODEL, cached_content="cachedContents/x"
    )
    assert kwargs["config"] == {"cached_content": "cachedContents/x"}
    assert [c["parts"][0]["text"] for c in kwargs["contents"]] == ["hi", "hello", "q"]


@pytest.mark.parametrize("config", [{"system_instruction": "x"}, {"tools": []}, {"toolConfig": {}}])
def test_cached_request_refuses_cache_bound_fields(config: dict[str, Any]) -> None:
    # peers K3: instructor/langchain-google repeated them -> 400 from the API.
    with pytest.raises(InputError, match="must not set"):
        get_adapter("gemini").to_request(prompt(), model=MODEL, cached_content="c", config=config)


def test_cached_request_refuses_a_stale_cache() -> None:
    stale = CachedPrefix(name="cachedContents/old", model=MODEL, prefix_hash="00" * 32, tokens=5000)
    with pytest.raises(InputError, match="ensure"):
        get_adapter("gemini").to_request(prompt(), model=MODEL, cached_content=stale)


def test_function_calls_keep_their_names_in_responses() -> None:
    turns = (
        Message.assistant([ToolUse(id="c1", name="lookup", input={"id": 7})]),
        Message.user([ToolResult(tool_use_id="c1", content="shipped")]),
    )
    kwargs = get_adapter("gemini").to_request(prompt().add_history(*turns), model=MODEL)
    response = kwargs["contents"][4]["parts"][0]["function_response"]
    assert response == {"id": "c1", "name": "lookup", "response": {"output": "shipped"}}


# -- lifecycle ------------------------------------------------------------------------------


def test_create_then_reuse_by_prefix_hash() -> None:
    client = FakeClient()
    manager = GeminiCacheManager(client, ttl_seconds=600)
    first = manager.ensure(prompt(), model=MODEL, expected_requests=20)
    assert first.action == "created" and first.cache is not None
    name, config = client.caches.calls[0][1]["model"], client.caches.calls[0][1]["config"]
    assert name == MODEL
    assert config["ttl"] == "600s"
    assert {"system_instruction", "tools", "contents"} <= set(config)
    assert config["display_name"] == f"promptcache-{static_hash(prompt().render())[:16]}"
    again = manager.ensure(
        prompt().commit_tail("a").with_tail("next"), model=MODEL, expected_requests=20
    )
    assert again.action == "reused" and again.cache == first.cache
    assert len(client.caches.calls) == 1


def test_prefix_change_recreates_and_deletes_the_old_cache() -> None:
    client = FakeClient()
    manager = GeminiCacheManager(client)
    manager.ensure(prompt(), model=MODEL, expected_requests=20)
    changed = manager.ensure(prompt(MANUAL + " v2"), model=MODEL, expected_requests=20)
    assert changed.action == "recreated"
    assert [c[0] for c in client.caches.calls] == ["create", "delete", "create"]


def test_refresh_extends_the_ttl_near_expiry() -> None:
    client = FakeClient()
    soon = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=30)
    client.caches.expire = soon.isoformat()
    manager = GeminiCacheManager(client, ttl_seconds=900, refresh_within_seconds=300)
    manager.ensure(prompt(), model=MODEL, expected_requests=20)
    refreshed = manager.ensure(prompt(), model=MODEL, expected_requests=20)
    assert refreshed.action == "refreshed"
    assert client.caches.calls[-1] == (
        "update",
        {"name": "cachedContents/c1", "config": {"ttl": "900s"}},
    )
    assert refreshed.cache is not None and refreshed.cache.expire_time is not None
    assert refreshed.cache.expire_time.year == 2099


def test_find_adopts_a_cache_made_by_another_process() -> None:
    key = static_hash(prompt().render())
    listed = [
        {
            "name": "cachedContents/other",
            "displayName": "promptcache-0000",
            "model": f"models/{MODEL}",
        },
        {
            "name": "cachedContents/mine",
            "displayName": f"promptcache-{key[:16]}",
            "model": f"models/{MODEL}",
            "expireTime": "2099-01-01T00:00:00Z",
        },
    ]
    client = FakeClient()
    client.caches.list = lambda: iter(listed)  # type: ignore[attr-defined]
    manager = GeminiCacheManager(client)
    found = manager.find(prompt(), model=MODEL)
    assert found is not None and found.name == "cachedContents/mine"
    assert manager.ensure(prompt(), model=MODEL, expected_requests=20).action == "reused"
    assert manager.find(prompt(), model="gemini-2.5-flash") is None


def test_delete_all() -> None:
    client = FakeClient()
    manager = GeminiCacheManager(client)
    manager.ensure(prompt(), model=MODEL, expected_requests=20, slot="a")
    manager.ensure(prompt(), model="gemini-2.5-flash", expected_requests=20, slot="b")
    manager.delete_all()
    assert [c[0] for c in client.caches.calls].count("delete") == 2


def test_below_minimum_says_so_instead_of_a_400() -> None:
    # peers K1/K2: "Cached content is too small. total_token_count=896, min_total_token_count=1024"
    client = FakeClient()
    decision = GeminiCacheManager(client).ensure(
        prompt("tiny manual"), model=MODEL, expected_requests=99
    )
    assert decision.cache is None and decision.action == "skipped"
    assert "below gemini-2.5-pro's minimum of 2048" in decision.reason
    assert "Cached content is too small" in decision.reason
    assert client.caches.calls == []


def test_no_cache_when_storage_costs_more_than_the_reuse_saves() -> None:
    client = FakeClient()
    manager = GeminiCacheManager(client, ttl_seconds=24 * 3600)
    decision = manager.ensure(prompt(), model=MODEL, expected_requests=2)
    assert decision.cache is None and "storage costs" in decision.reason
    worth, _ = manager.worth_creating(4000, MODEL, expected_requests=200)
    assert worth


def test_the_creation_verdict_names_the_price_tables_currency(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prices = tmp_path / "prices.json"
    row = {"input": 1.2, "read": 0.12, "output": 9.0, "storage_per_hour": 4.0}
    prices.write_text(json.dumps({"currency": "EUR", "vendors": {"gemini": {MODEL: row}}}))
    monkeypatch.setenv("PROMPTCACHE_PRICES", str(prices))
    _, reason = GeminiCacheManager(FakeClient()).worth_creating(4000, MODEL, expected_requests=200)
    assert " EUR" in reason and "$" not in reason, reason


def test_async_lifecycle() -> None:
    client = FakeClient(AsyncCaches())
    manager = GeminiCacheManager(client)

    async def run() -> list[str]:
        first = await manager.aensure(prompt(), model=MODEL, expected_requests=20)
        second = await manager.aensure(prompt(MANUAL + "!"), model=MODEL, expected_requests=20)
        third = await manager.aensure(prompt(MANUAL + "!"), model=MODEL, expected_requests=20)
        tiny = await manager.aensure(prompt("tiny"), model=MODEL, expected_requests=20, slot="t")
        return [first.action, second.action, third.action, tiny.action]

    assert asyncio.run(run()) == ["created", "recreated", "reused", "skipped"]
    assert [c[0] for c in client.caches.calls] == ["create", "delete", "create"]


def test_async_refresh_extends_the_ttl_near_expiry() -> None:
    client = FakeClient(AsyncCaches())
    client.caches.expire = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=30)).isoformat()
    manager = GeminiCacheManager(client, ttl_seconds=900, refresh_within_seconds=300)

    async def run() -> Any:
        await manager.aensure(prompt(), model=MODEL, expected_requests=20)
        return await manager.aensure(prompt(), model=MODEL, expected_requests=20)

    refreshed = asyncio.run(run())
    assert refreshed.action == "refreshed"
    assert client.caches.calls[-1] == (
        "update",
        {"name": "cachedContents/c1", "config": {"ttl": "900s"}},
    )
    assert refreshed.cache is not None and refreshed.cache.expire_time is not None
    assert refreshed.cache.expire_time.year == 2099


# -- streams ----------------------------------------------------------------------------------


def test_stream_last_chunk_wins_within_a_hop() -> None:
    acc = get_adapter("gemini").accumulator()
    acc.feed(
        {
            "candidates": [{"content": {"parts": [{"text": "a"}]}}],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 1},
        }
    )
    acc.feed(
        {
            "candidates": [{"finishReason": "STOP"}],
            "usageMetadata": {
                "promptTokenCount": 100,
                "cachedContentTokenCount": 64,
                "candidatesTokenCount": 9,
            },
        }
    )
    usage = acc.usage
    assert (usage.uncached_input, usage.cache_read, usage.output) == (36, 64, 9)


def test_raw_continuation_hops_are_summed_like_the_sdk() -> None:
    acc = get_adapter("gemini").accumulator()
    acc.feed(
        {
            "candidates": [{"finishReason": "CONTINUATION"}],
            "usageMetadata": {
                "promptTokenCount": 100,
                "cachedContentTokenCount": 0,
                "candidatesTokenCount": 50,
            },
        }
    )
    acc.feed(
        {
            "candidates": [{"finishReason": "STOP"}],
            "usageMetadata": {
                "promptTokenCount": 160,
                "cachedContentTokenCount": 128,
                "candidatesTokenCount": 5,
            },
        }
    )
    usage = acc.usage
    assert (usage.total_input, usage.cache_read, usage.output) == (260, 128, 55)


def test_stream_without_usage_is_an_error() -> None:
    acc = get_adapter("gemini").accumulator()
    acc.feed({"candidates": []})
    with pytest.raises(InputError, match="usageMetadata"):
        _ = acc.usage


# -- Vertex AI: caches live under a project and a location ----------------------------------


class _VertexApi:
    vertexai = True
    project = "proj-a"
    location = "us-central1"


class VertexClient(FakeClient):
    """A google-genai client as `vertexai=True` makes it: its API client names the scope."""

    def __init__(self, listed: list[dict[str, Any]]) -> None:
        super().__init__()
        self._api_client = _VertexApi()
        self.caches.list = lambda: iter(listed)  # type: ignore[attr-defined]


def _listed(name: str, model: str) -> dict[str, Any]:
    key = static_hash(prompt().render())
    return {
        "name": name,
        "displayName": f"promptcache-{key[:16]}",
        "model": model,
        "expireTime": "2099-01-01T00:00:00Z",
    }


def test_on_vertex_a_cache_is_adopted_only_from_the_clients_project_and_location() -> None:
    resource = f"projects/proj-a/locations/us-central1/publishers/google/models/{MODEL}"
    elsewhere = _listed("projects/proj-a/locations/europe-west4/cachedContents/1", resource)
    here = _listed("projects/123456/locations/us-central1/cachedContents/2", resource)
    manager = GeminiCacheManager(VertexClient([elsewhere, here]))
    assert manager.scope == ("proj-a", "us-central1")
    found = manager.find(prompt(), model=MODEL)  # Vertex lists the model by its resource name
    assert found is not None and found.name.endswith("cachedContents/2")
    assert GeminiCacheManager(VertexClient([elsewhere])).find(prompt(), model=MODEL) is None


def test_on_vertex_the_manager_plans_with_vertex_minimums_and_prices() -> None:
    manager = GeminiCacheManager(VertexClient([]))
    assert manager.adapter.vendor == "vertex-gemini"
    assert manager.adapter.min_cacheable_tokens("gemini-3.5-flash") == 2048  # Vertex's figure
    assert GeminiCacheManager(FakeClient()).adapter.min_cacheable_tokens("gemini-3.5-flash") == (
        4096
    )
