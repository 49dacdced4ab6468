"""
Anthropic: let promptcache place the cache breakpoints, call the SDK, read one usage record.

    python examples/anthropic_usage.py      # offline: replays cassettes/anthropic/*.yaml
    ANTHROPIC_API_KEY=... python examples/anthropic_usage.py   # live

Offline mode needs vcrpy (`pip install 'promptcache-sdk[dev]'`); the replayed answers are the
synthetic ones described in cassettes/README.md.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from promptcache import Layer, Message, Prompt, Tool, cost, plan
from promptcache.adapters import get_adapter

MODEL = "claude-sonnet-4-6"
CASSETTES = Path(__file__).resolve().parents[1] / "cassettes"
POLICY = " ".join(f"Clause {i}: refunds within 30 days need a receipt." for i in range(150))


def replay(cassette: str) -> AbstractContextManager[Any]:
    """Serve the SDK's HTTP calls from a recorded cassette instead of the network."""
    import vcr

    recorder = vcr.VCR(
        cassette_library_dir=str(CASSETTES), record_mode="none", match_on=("method", "host", "path")
    )
    return recorder.use_cassette(cassette)


def main() -> None:
    live = bool(os.environ.get("ANTHROPIC_API_KEY"))
    prompt = (
        Prompt()
        .add_tools(
            Tool(
                name="lookup_order",
                description="Find an order by id",
                input_schema={"type": "object", "properties": {"id": {"type": "string"}}},
            )
        )
        .add_system("You are the support agent of Acme. " + POLICY)
        .add_history(Message.user("My widget froze."), Message.assistant("Hold the blue button."))
        .with_tail("It froze again. What now?")
    )
    ttls = {Layer.TOOLS: "1h", Layer.SYSTEM: "1h"}  # longer TTLs first: Anthropic's ordering rule
    for point in plan(prompt, vendor="anthropic", model=MODEL, layer_ttls=ttls).breakpoints:
        print(f"breakpoint at {point.path} ttl={point.ttl}: {point.reason}")

    adapter = get_adapter("anthropic")
    kwargs = adapter.to_request(prompt, model=MODEL, max_tokens=256, layer_ttls=ttls)
    client = adapter.client() if live else adapter.client(api_key="offline")
    with nullcontext() if live else replay("anthropic/messages_create.yaml"):
        message = client.messages.create(**kwargs)
    usage = adapter.read_usage(message)
    print(
        f"uncached={usage.uncached_input} write={usage.cache_write} {dict(usage.cache_write_by_ttl)} "
        f"read={usage.cache_read} output={usage.output} total_input={usage.total_input}"
    )

    # Streaming: message_start carries the cache counts, the last message_delta the output.
    with nullcontext() if live else replay("anthropic/messages_stream.yaml"):
        events = client.messages.create(
            **adapter.to_request(prompt, model=MODEL, max_tokens=256, stream=True)
        )
        streamed = adapter.usage_from_stream(events)
    print(f"stream: read={streamed.cache_read} hit rate={streamed.hit_rate:.0%}")
    price = cost(usage)
    if price.actual is None:  # the response did not report its output tokens
        print(f"cost unknown ({'; '.join(price.notes)}); prices as of {price.as_of}")
    else:
        print(
            f"cost {price.actual:.5f} {price.currency}, without caching "
            f"{price.without_cache:.5f} {price.currency} (prices as of {price.as_of})"
        )


if __name__ == "__main__":
    main()
