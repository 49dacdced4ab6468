"""
Anthropic: let promptcache place the cache breakpoints, call the SDK, read one usage record.

    python examples/anthropic_usage.py      # offline: promptcache's emulation of the cache
    ANTHROPIC_API_KEY=... python examples/anthropic_usage.py   # live

Offline, the real Anthropic SDK client talks to `promptcache.sim.AnthropicEmulator` in process:
no key, no network, nothing beyond `pip install 'promptcache-sdk[anthropic]'`. The numbers are
emulated, not billed.
"""

from __future__ import annotations

import os

from promptcache import Layer, Message, Prompt, Tool, cost, plan
from promptcache.adapters import get_adapter
from promptcache.sim import AnthropicEmulator

MODEL = "claude-sonnet-4-6"
POLICY = " ".join(f"Clause {i}: refunds within 30 days need a receipt." for i in range(150))


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
    client = adapter.client() if live else AnthropicEmulator().client()
    client.messages.create(**kwargs)  # the first request writes the prefix
    message = client.messages.create(**kwargs)  # the second reads it
    usage = adapter.read_usage(message)
    print(
        f"uncached={usage.uncached_input} write={usage.cache_write} {dict(usage.cache_write_by_ttl)} "
        f"read={usage.cache_read} output={usage.output} total_input={usage.total_input}"
    )

    # Streaming: message_start carries the cache counts, the last message_delta the output.
    if live:
        events = client.messages.create(
            **adapter.to_request(prompt, model=MODEL, max_tokens=256, stream=True)
        )
        streamed = adapter.usage_from_stream(events)
        print(f"stream: read={streamed.cache_read} hit rate={streamed.hit_rate:.0%}")
    else:
        print("stream: live only (the emulator does not stream)")
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
