"""Prompts and small HTTP helpers shared by the real-engine tests (llama.cpp and vLLM)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import promptcache
from promptcache import Prompt
from promptcache.adapters import get_adapter

MODEL = "smollm2"


def manual(name: str, sections: int = 16) -> str:
    """A deterministic operations manual of roughly 16 tokens per section."""
    return "\n".join(
        f"{name} section {i}: every pallet in aisle {i} is scanned twice before it ships."
        for i in range(sections)
    )


def ordered(
    system: str, question: str, *, engine: str = "llama.cpp", **options: Any
) -> dict[str, Any]:
    """A request promptcache laid out: the manual first, the time and question in the tail."""
    prompt = Prompt().add_system(system).with_tail(question)
    return get_adapter("engine").to_request(
        prompt, model=MODEL, engine=engine, max_tokens=2, temperature=0, **options
    )


def wrapped(url: str) -> tuple[Any, list[promptcache.Invalidation]]:
    """A wrap()ped OpenAI client for the engine at `url`, and the invalidations it reports."""
    import openai

    events: list[promptcache.Invalidation] = []
    client = promptcache.wrap(
        openai.OpenAI(base_url=f"{url}/v1", api_key="local", max_retries=0),
        vendor="engine",
        on_invalidation=events.append,
    )
    return client, events


def timestamp_first(system: str, question: str, stamp: str) -> dict[str, Any]:
    """The naive layout: the current time at the top of the system prompt."""
    return {
        "model": MODEL,
        "messages": [
            {"role": "system", "content": f"Current time: {stamp}\n{system}"},
            {"role": "user", "content": question},
        ],
        "max_tokens": 2,
        "temperature": 0,
    }


def post(url: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{url}{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=300) as response:
        data: dict[str, Any] = json.loads(response.read())
        return data


def chat(url: str, request: dict[str, Any]) -> dict[str, Any]:
    """POST SDK-style kwargs (extra_body merged in) to an OpenAI-compatible server."""
    body = {k: v for k, v in request.items() if k != "extra_body"}
    body.update(request.get("extra_body") or {})
    return post(url, "/v1/chat/completions", body)


def cached(response: dict[str, Any]) -> int:
    return int(response["usage"]["prompt_tokens_details"]["cached_tokens"])


def token_count(url: str, text: str) -> int:
    """Tokens of `text` by the server's own tokenizer (llama.cpp `/tokenize`)."""
    return len(post(url, "/tokenize", {"content": text})["tokens"])
