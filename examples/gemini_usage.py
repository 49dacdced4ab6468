"""
Gemini: an explicit CachedContent for the stable prefix (created only when it pays for its
storage), a request that leaves the cached parts out, and one usage record.

    python examples/gemini_usage.py      # offline: promptcache's emulation of the cache
    GEMINI_API_KEY=... python examples/gemini_usage.py   # live

Offline, the real google-genai client talks to `promptcache.sim.GeminiEmulator` in process: no
key, no network, nothing beyond `pip install 'promptcache-sdk[gemini]'`. The numbers are emulated.
"""

from __future__ import annotations

import os

from promptcache import Message, Prompt, Tool, cost
from promptcache.adapters import get_adapter
from promptcache.adapters.gemini import GeminiCacheManager
from promptcache.sim import GeminiEmulator

MODEL = "gemini-2.5-flash"
MANUAL = " ".join(
    f"Section {i}: the widget resets when the blue button is held for 5 s." for i in range(200)
)


def main() -> None:
    key = os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
    prompt = (
        Prompt()
        .add_tools(Tool(name="lookup_order", description="Find an order by id"))
        .add_system("You are the support agent of Acme.")
        .add_docs(MANUAL)
        .add_history(Message.user("My widget froze."), Message.assistant("Hold the blue button."))
        .with_tail("It froze again. What now?")
    )
    adapter = get_adapter("gemini")
    if key:
        client = adapter.client(api_key=key, http_options={"api_version": "v1"})
    else:
        client = GeminiEmulator().client()
    manager = GeminiCacheManager(client, ttl_seconds=3600)
    decision = manager.ensure(prompt, model=MODEL, expected_requests=50)
    print(f"cache {decision.action}: {decision.reason}")
    kwargs = adapter.to_request(prompt, model=MODEL, cached_content=decision.cache)
    usage = adapter.read_usage(client.models.generate_content(**kwargs))
    if decision.cache is not None:
        manager.delete(manager.refresh(decision.cache))
    print(
        f"uncached={usage.uncached_input} read={usage.cache_read} output={usage.output} "
        f"total_input={usage.total_input}"
    )
    price = cost(usage)
    if price.actual is None:  # the response did not report its output tokens
        print(f"this request: cost unknown ({'; '.join(price.notes)})")
    else:
        print(
            f"this request: {price.actual:.6f} {price.currency}, without caching "
            f"{price.without_cache:.6f} {price.currency}"
        )
    if decision.cache is not None:  # storage is paid once per hour, shared by every read
        storage = cost(usage, storage_token_hours=decision.cache.tokens * 1.0)
        print(f"one hour of cache storage: ${storage.breakdown['storage']:.6f}")


if __name__ == "__main__":
    main()
