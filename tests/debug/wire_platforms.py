"""
Wrapped cloud-platform clients for the cassette tests: the real SDK classes (`AnthropicVertex`,
`AzureOpenAI`, `AnthropicFoundry`, `AnthropicBedrockMantle`, google-genai with `vertexai=True`),
sync and async, streamed and not, each given dummy credentials explicitly (no Google metadata
server, no AWS lookup, no key from the environment).

    python -m tests.debug.wire_platforms            # re-record every session into
                                                    # cassettes/platforms/ against a stub
    python -m tests.debug.wire_platforms azure_chat # just one

Each session takes the stub's base URL (None while replaying: the platform's real host) and
returns what each call to `Monitor.observe` was given, so the tests check which vendor record
read it and what it read.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import promptcache

from .._recording import (
    Reply,
    anthropic_events,
    anthropic_message,
    chat_chunks,
    chat_completion,
    recorder,
    replayer,
    stub_server,
)

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes" / "platforms"
PROJECT = "promptcache-test"
HOSTS = {
    "vertex_anthropic": "https://us-east5-aiplatform.googleapis.com",
    "vertex_gemini": "https://us-central1-aiplatform.googleapis.com",
    "azure": "https://promptcache-test.openai.azure.com",
    "foundry": "https://promptcache-test.services.ai.azure.com",
    "mantle": "https://bedrock-mantle.us-east-1.api.aws",
}
FAKE = "FAKE-0000"  # not key-shaped: tests/test_cassettes.py would flag a real-looking one

Observed = list[dict[str, Any]]
Session = Callable[[str | None], tuple[promptcache.Monitor, Observed]]


def _wrapped(client: Any) -> tuple[Any, promptcache.Monitor, Observed]:
    """`promptcache.wrap(client)` as a user calls it (the vendor from the client's class), its
    Monitor's `observe` also writing down what it was given."""
    wrapped = promptcache.wrap(client)
    monitor: promptcache.Monitor = object.__getattribute__(wrapped, "_watcher").monitor
    seen: Observed = []
    real = monitor.observe

    def observe(request: Any, response: Any = None, **kwargs: Any) -> Any:
        seen.append({"request": dict(request), "response": response, **kwargs})
        return real(request, response, **kwargs)

    monitor.observe = observe  # type: ignore[method-assign]
    return wrapped, monitor, seen


def _turn(system: str, question: str) -> dict[str, Any]:
    long_system = system + " Answer in one line." * 200
    return {
        "max_tokens": 16,
        "system": [{"type": "text", "text": long_system, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": question}],
    }


# -- Claude on Vertex AI ----------------------------------------------------------------------

VERTEX_MODEL = "claude-sonnet-4-5@20250929"


def _vertex_client(base_url: str | None, *, is_async: bool = False) -> Any:
    import anthropic

    cls = anthropic.AsyncAnthropicVertex if is_async else anthropic.AnthropicVertex
    return cls(
        region="us-east5",
        project_id=PROJECT,
        access_token=FAKE,  # given: the SDK asks google-auth for nothing
        base_url=f"{base_url or HOSTS['vertex_anthropic']}/v1",
        max_retries=0,
    )


def vertex_anthropic(base_url: str | None) -> tuple[promptcache.Monitor, Observed]:
    """create, then the same prefix streamed, then an async create: rawPredict and stream."""
    client, monitor, seen = _wrapped(_vertex_client(base_url))
    client.messages.create(model=VERTEX_MODEL, **_turn("You are the support agent.", "Hi"))
    with client.messages.create(
        model=VERTEX_MODEL, stream=True, **_turn("You are the support agent.", "Hi again")
    ) as stream:
        for _ in stream:
            pass

    async def later() -> None:
        aclient = promptcache.wrap(_vertex_client(base_url, is_async=True), monitor=monitor)
        await aclient.messages.create(
            model=VERTEX_MODEL, **_turn("You are the support agent.", "Still there?")
        )

    asyncio.run(later())
    return monitor, seen


def _claude(number: int, read: int, write: int, model: str = "claude-sonnet-4-5") -> Any:
    return anthropic_message(number, model, uncached=9, output=3, read=read, write=write)


VERTEX_ANTHROPIC = (
    Reply(_claude(1, 0, 1810)),
    Reply(events=anthropic_events(_claude(2, 1810, 0), "ok", {"output_tokens": 3})),
    Reply(_claude(3, 1810, 0)),
)


# -- Azure OpenAI -----------------------------------------------------------------------------

DEPLOYMENT = "support-gpt"
AZURE_MODEL = "gpt-4o-2024-11-20"  # what Azure answers in `model`


def _azure_client(base_url: str | None, *, is_async: bool = False) -> Any:
    import openai

    cls = openai.AsyncAzureOpenAI if is_async else openai.AzureOpenAI
    return cls(
        api_key=FAKE,
        api_version="2025-04-01-preview",
        azure_endpoint=base_url or HOSTS["azure"],
        max_retries=0,
    )


def _chat(question: str) -> dict[str, Any]:
    system = "You are the support agent." + " Answer in one line." * 300
    return {
        "model": DEPLOYMENT,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": question}],
        "prompt_cache_key": "support",
    }


def azure(base_url: str | None) -> tuple[promptcache.Monitor, Observed]:
    """Chat create, Chat stream (usage asked for), async Chat, then Responses create."""
    client, monitor, seen = _wrapped(_azure_client(base_url))
    client.chat.completions.create(**_chat("Hi"))
    stream = client.chat.completions.create(
        **_chat("Hi again"), stream=True, stream_options={"include_usage": True}
    )
    for _ in stream:
        pass

    async def later() -> None:
        aclient = promptcache.wrap(_azure_client(base_url, is_async=True), monitor=monitor)
        await aclient.chat.completions.create(**_chat("Still there?"))

    asyncio.run(later())
    system = "You are the support agent." + " Answer in one line." * 300
    client.responses.create(model=DEPLOYMENT, instructions=system, input="Bye")
    return monitor, seen


def _response(total: int, cached: int) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1_796_000_000,
        "status": "completed",
        "model": "gpt-4o",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": total,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": 2,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": total + 2,
        },
    }


AZURE = (
    chat_completion(1, AZURE_MODEL, 1520, 0),
    Reply(
        events=chat_chunks(
            "chatcmpl-2",
            AZURE_MODEL,
            ["o", "k"],
            {
                "prompt_tokens": 1522,
                "completion_tokens": 2,
                "total_tokens": 1524,
                "prompt_tokens_details": {"cached_tokens": 1408},
            },
        )
    ),
    chat_completion(3, AZURE_MODEL, 1524, 1408),
    Reply(_response(1519, 0)),
)


# -- Claude in Foundry and in Bedrock's Messages API ----------------------------------------


def foundry(base_url: str | None) -> tuple[promptcache.Monitor, Observed]:
    """AnthropicFoundry create, then AsyncAnthropicFoundry streamed."""
    import anthropic

    url = f"{base_url or HOSTS['foundry']}/anthropic/"
    client, monitor, seen = _wrapped(
        anthropic.AnthropicFoundry(api_key=FAKE, base_url=url, max_retries=0)
    )
    client.messages.create(model="claude-opus-5", **_turn("You are the support agent.", "Hi"))

    async def later() -> None:
        aclient = promptcache.wrap(
            anthropic.AsyncAnthropicFoundry(api_key=FAKE, base_url=url, max_retries=0),
            monitor=monitor,
        )
        async with aclient.messages.stream(
            model="claude-opus-5", **_turn("You are the support agent.", "Again")
        ) as stream:
            async for _ in stream:
                pass

    asyncio.run(later())
    return monitor, seen


FOUNDRY = (
    Reply(_claude(1, 0, 1810, "claude-opus-5")),
    Reply(
        events=anthropic_events(_claude(2, 1810, 0, "claude-opus-5"), "ok", {"output_tokens": 3})
    ),
)

MANTLE_MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"


def mantle(base_url: str | None) -> tuple[promptcache.Monitor, Observed]:
    """AnthropicBedrockMantle with an API key: create, then streamed."""
    import anthropic

    client, monitor, seen = _wrapped(
        anthropic.AnthropicBedrockMantle(
            api_key=FAKE,
            aws_region="us-east-1",
            base_url=f"{base_url or HOSTS['mantle']}/anthropic",
            max_retries=0,
        )
    )
    client.messages.create(model=MANTLE_MODEL, **_turn("You are the support agent.", "Hi"))
    with client.messages.stream(
        model=MANTLE_MODEL, **_turn("You are the support agent.", "Again")
    ) as stream:
        for _ in stream:
            pass
    return monitor, seen


MANTLE = (
    Reply(_claude(1, 0, 1810)),
    Reply(events=anthropic_events(_claude(2, 1810, 0), "ok", {"output_tokens": 3})),
)


# -- Gemini on Vertex AI ----------------------------------------------------------------------


def _genai_vertex(base_url: str | None) -> Any:
    import httpx2
    from google import genai
    from google.oauth2.credentials import Credentials

    options: dict[str, Any] = {
        "base_url": f"{base_url or HOSTS['vertex_gemini']}/",
        "async_client_args": {"transport": httpx2.AsyncHTTPTransport()},
    }
    return genai.Client(
        vertexai=True,
        project=PROJECT,
        location="us-central1",
        credentials=Credentials(token=FAKE),  # given: no metadata server, no ADC lookup
        http_options=options,
    )


def vertex_gemini(base_url: str | None) -> tuple[promptcache.Monitor, Observed]:
    """generate_content, generate_content_stream, then aio generate_content."""
    client, monitor, seen = _wrapped(_genai_vertex(base_url))
    system = "You are the support agent." + " Answer in one line." * 300
    config = {"system_instruction": system}
    client.models.generate_content(model="gemini-2.5-flash", contents="Hi", config=config)
    for _ in client.models.generate_content_stream(
        model="gemini-2.5-flash", contents="Hi again", config=config
    ):
        pass

    async def later() -> None:
        await client.aio.models.generate_content(
            model="gemini-2.5-flash", contents="Still there?", config=config
        )

    asyncio.run(later())
    return monitor, seen


def _gemini(prompt: int, cached: int) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": 2,
        "totalTokenCount": prompt + 2,
    }
    if cached:
        usage["cachedContentTokenCount"] = cached
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": usage,
        "modelVersion": "gemini-2.5-flash",
    }


VERTEX_GEMINI = (
    Reply(_gemini(1530, 0)),
    Reply(events=((None, _gemini(1532, 1400)),)),
    Reply(_gemini(1534, 1400)),
)

SESSIONS: dict[str, tuple[Session, tuple[Reply, ...]]] = {
    "vertex_anthropic": (vertex_anthropic, VERTEX_ANTHROPIC),
    "azure": (azure, AZURE),
    "foundry": (foundry, FOUNDRY),
    "mantle": (mantle, MANTLE),
    "vertex_gemini": (vertex_gemini, VERTEX_GEMINI),
}


def replay(name: str) -> tuple[promptcache.Monitor, Observed]:
    """Run one session against its cassette only (a request not in it fails)."""
    session, _ = SESSIONS[name]
    with replayer(CASSETTES).use_cassette(f"{name}.yaml", allow_playback_repeats=False) as tape:
        result = session(None)
        assert tape.all_played, f"{name}: not every recorded request was sent"
    return result


def main(names: list[str]) -> int:
    CASSETTES.mkdir(parents=True, exist_ok=True)
    with stub_server() as stub:
        for name, (session, replies) in SESSIONS.items():
            if names and name not in names:
                continue
            stub.serve(replies)
            (CASSETTES / f"{name}.yaml").unlink(missing_ok=True)
            with recorder(CASSETTES, stub.url, HOSTS[name]).use_cassette(f"{name}.yaml"):
                _, seen = session(stub.url)
            print(f"{name}: {len(stub.seen)} requests {stub.seen}, {len(seen)} observed")
            if stub.replies:
                raise RuntimeError(f"{name}: {len(stub.replies)} replies were not requested")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
