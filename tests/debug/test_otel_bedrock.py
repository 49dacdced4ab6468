"""
The official botocore instrumentation's Bedrock GenAI spans (opentelemetry-instrumentation-botocore)
read by `MonitorSpanProcessor`: it copies Bedrock's `inputTokens`, which excludes the cache, into
`gen_ai.usage.input_tokens`, and leaves a cache count out when it is 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.instrumentation.botocore")

from opentelemetry.instrumentation.botocore import BotocoreInstrumentor
from opentelemetry.sdk.trace import TracerProvider

from promptcache import Monitor, Prompt, get_adapter
from promptcache.debug.otel import MonitorSpanProcessor, span_usage
from promptcache.sim import BedrockEmulator, ManualClock

MODEL = "global.anthropic.claude-sonnet-4-5-20250929-v1:0"


@pytest.fixture
def processor() -> Iterator[MonitorSpanProcessor]:
    provider = TracerProvider()
    spans = MonitorSpanProcessor(Monitor(metrics=False))
    provider.add_span_processor(spans)
    instrumentor = BotocoreInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield spans
    finally:
        instrumentor.uninstrument()


def test_bedrock_spans_count_the_cache_outside_input_tokens(
    processor: MonitorSpanProcessor,
) -> None:
    client = BedrockEmulator(clock=ManualClock()).client()
    adapter = get_adapter("bedrock")
    prompt = Prompt().add_system("Policy line for the agent. " * 600)
    for tail in ("q1", "q2", "q3 " * 8000):  # the last one: an uncached tail longer than the read
        kwargs = adapter.to_request(prompt.with_tail(tail), model=MODEL)
        if tail.startswith("q3"):
            kwargs["system"] = [*kwargs["system"][:1], {"cachePoint": {"type": "default"}}]
        client.converse(**kwargs)
    rates = processor.hit_rates()
    rate = rates[("bedrock-converse", MODEL)]
    assert rate.spans == 3 and rate.unreported_spans == 0
    # spans 2 and 3 read the system prompt; span 3's tail is uncached, not a negative remainder
    assert rate.cache_read == 2 * rate.cache_write
    assert rate.uncached_input > 5000


def test_a_span_without_cache_counts_reads_zero_for_this_instrumentation() -> None:
    attributes: dict[str, Any] = {
        "rpc.system": "aws-api",
        "rpc.method": "InvokeModel",
        "gen_ai.system": "aws.bedrock",
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": MODEL,
        "gen_ai.usage.input_tokens": 40,
        "gen_ai.usage.output_tokens": 2,
    }
    usage = span_usage(attributes)
    assert usage is not None and usage.vendor == "bedrock-invoke"
    assert (usage.uncached_input, usage.cache_read, usage.cache_write) == (40, 0, 0)
    read = span_usage({**attributes, "gen_ai.usage.cache_read.input_tokens": 3000})
    assert read is not None and (read.uncached_input, read.cache_read) == (40, 3000)
    assert not read.problems
