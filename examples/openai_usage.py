"""
OpenAI: GPT-5.6 breakpoints and a prefix-derived `prompt_cache_key`, for Chat Completions and
Responses, read into one usage record.

    python examples/openai_usage.py      # offline: promptcache's emulation of the cache
    OPENAI_API_KEY=... python examples/openai_usage.py   # live

Offline, the real OpenAI SDK client talks to `promptcache.sim.OpenAIEmulator` in process: no key,
no network, nothing beyond `pip install 'promptcache-sdk[openai]'`. The numbers are emulated.
"""

from __future__ import annotations

import os

from promptcache import Message, Prompt, Tool, cost
from promptcache.adapters import get_adapter
from promptcache.sim import OpenAIEmulator

MODEL = "gpt-5.6-terra"
POLICY = " ".join(f"Clause {i}: refunds within 30 days need a receipt." for i in range(150))


def main() -> None:
    live = bool(os.environ.get("OPENAI_API_KEY"))
    prompt = (
        Prompt()
        .add_tools(Tool(name="lookup_order", description="Find an order by id"))
        .add_system("You are the support agent of Acme. " + POLICY)
        .add_history(Message.user("My widget froze."), Message.assistant("Hold the blue button."))
        .with_tail("It froze again. What now?")
    )
    chat = get_adapter("openai")
    client = chat.client() if live else OpenAIEmulator().client()

    kwargs = chat.to_request(prompt, model=MODEL, tenant="acme")
    print("prompt_cache_key:", kwargs["prompt_cache_key"], kwargs.get("prompt_cache_options"))
    client.chat.completions.create(**kwargs)  # the first request writes the prefix
    usage = chat.read_usage(client.chat.completions.create(**kwargs))  # the second reads it
    print(
        f"chat: uncached={usage.uncached_input} write={usage.cache_write} "
        f"read={usage.cache_read} output={usage.output} total_input={usage.total_input}"
    )

    responses = get_adapter("openai-responses")
    kwargs = responses.to_request(prompt, model=MODEL, cache_ttl="30m")
    client.responses.create(**kwargs)
    result = responses.read_usage(client.responses.create(**kwargs))
    print(f"responses: write by ttl={dict(result.cache_write_by_ttl)} read={result.cache_read}")
    if result.diagnosis is not None:
        print(f"diagnosis: {result.diagnosis.reason} ({result.diagnosis.missed_tokens} tokens)")
    price = cost(usage)
    if price.actual is None:  # the response did not report its output tokens
        print(
            f"cost unknown ({'; '.join(price.notes)}); saved {price.savings:.5f} {price.currency}"
        )
    else:
        print(
            f"cost {price.actual:.5f} {price.currency}, without caching "
            f"{price.without_cache:.5f} {price.currency}, saved {price.savings:.5f} {price.currency}"
        )


if __name__ == "__main__":
    main()
