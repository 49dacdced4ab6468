"""
`MonitorSpanProcessor` fed by a real instrumentation library: OpenInference's OpenAI
instrumentor traces the real OpenAI SDK client talking to a stub on 127.0.0.1, through a real
TracerProvider; the processor must turn those spans into the monitor's invalidations.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest

import promptcache
from promptcache import Invalidation
from promptcache.debug.otel import MonitorSpanProcessor, span_usage

from .._recording import Reply, chat_chunks, chat_completion, openai_client, stub_server

pytest.importorskip("openinference.instrumentation.openai")
from openinference.instrumentation import TraceConfig
from openinference.instrumentation.openai import OpenAIInstrumentor
from opentelemetry.sdk.trace import TracerProvider

NAME = "Zelda Quartermaine"
EMAIL = "zelda.q@example.org"
SYSTEM = f"You are the support agent for {NAME} ({EMAIL}). " + "Policy clause. " * 400
MODEL = "gpt-4o-2024-08-06"


def completion(number: int, prompt: int, cached: int) -> Reply:
    return chat_completion(number, MODEL, prompt, cached)


@pytest.fixture
def traced(request: Any) -> Iterator[TracerProvider]:
    provider = TracerProvider()
    instrumentor = OpenAIInstrumentor()
    hide = bool(getattr(request, "param", False))
    instrumentor.instrument(
        tracer_provider=provider, config=TraceConfig(hide_inputs=hide, hide_input_messages=hide)
    )
    try:
        yield provider
    finally:
        instrumentor.uninstrument()
        provider.shutdown()


def _session(provider: TracerProvider, systems: list[str]) -> tuple[list[Invalidation], Any]:
    events: list[Invalidation] = []
    monitor = promptcache.Monitor(on_invalidation=events.append, metrics=False)
    processor = MonitorSpanProcessor(monitor)
    provider.add_span_processor(processor)
    with stub_server() as stub:
        # the second call reads nothing back although the first one wrote the whole prefix
        stub.serve([completion(1, 2000, 0), completion(2, 2000, 0)])
        client = openai_client(stub.url)
        for system in systems:
            client.chat.completions.create(
                model=MODEL,
                messages=[
                    {"role": "system", "content": system},
                    {"role": "user", "content": f"Hi, I am {NAME}."},
                ],
                prompt_cache_key="tenant-7",
            )
    return events, processor


def test_openinference_spans_name_the_field_that_broke_the_cache(
    traced: TracerProvider, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    events, processor = _session(traced, [SYSTEM, SYSTEM.replace("Policy", "Polic y", 1)])
    assert len(events) == 1, events
    assert (events[0].cause, events[0].path) == ("whitespace", "messages[0].content"), events
    rates = processor.hit_rates()[("openai", MODEL)]
    assert rates.spans == 2 and rates.cache_read == 0
    assert NAME not in caplog.text and EMAIL not in caplog.text
    assert "hit rates only" not in caplog.text


def test_identical_requests_that_miss_are_not_blamed_on_content(traced: TracerProvider) -> None:
    events, _ = _session(traced, [SYSTEM, SYSTEM])
    assert [(event.cause, event.path) for event in events] == [("none", None)]


@pytest.mark.parametrize("traced", [True], indirect=True)
def test_spans_without_the_request_give_hit_rates_and_say_so_once(
    traced: TracerProvider, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    events, processor = _session(traced, [SYSTEM, SYSTEM.replace("Policy", "Polic y", 1)])
    assert events == []
    assert processor.hit_rates()[("openai", MODEL)].spans == 2
    assert caplog.text.count("hit rates only") == 1
    assert NAME not in caplog.text and EMAIL not in caplog.text


def test_usage_conventions_are_read_and_bad_totals_named() -> None:
    semconv = span_usage(
        {
            "gen_ai.system": "anthropic",
            "gen_ai.request.model": "claude-sonnet-4-5",
            "gen_ai.usage.input_tokens": 1500,
            "gen_ai.usage.output_tokens": 9,
            "gen_ai.usage.cache_read.input_tokens": 1000,
            "gen_ai.usage.cache_creation.input_tokens": 200,
        }
    )
    assert semconv is not None
    assert (semconv.uncached_input, semconv.cache_read, semconv.cache_write) == (300, 1000, 200)
    assert semconv.vendor == "anthropic" and not semconv.problems
    openinference = span_usage(
        {"llm.token_count.prompt": 10, "llm.token_count.prompt_details.cache_read": 40}
    )
    assert openinference is not None and openinference.problems
    assert openinference.uncached_input == 10
    assert span_usage({"gen_ai.system": "openai"}) is None


def test_a_span_without_output_tokens_reads_output_unknown_not_zero() -> None:
    attributes = {
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-5.4",
        "gen_ai.usage.input_tokens": 1500,
        "gen_ai.usage.cache_read.input_tokens": 1024,
    }
    usage = span_usage(attributes)
    assert usage is not None and usage.output is None
    counted = span_usage({**attributes, "llm.token_count.completion": 0})
    assert counted is not None and counted.output == 0


def test_pydantic_ai_spans_name_the_field_that_broke_the_cache(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """
    Pydantic AI's own instrumentation: usage in GenAI attributes (a zero cache count left out),
    the messages in the GenAI conventions' `gen_ai.input.messages`, from which the request is
    rebuilt; its agent-run spans repeat the chat spans' usage as sums and are not counted.
    """
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings, InstrumentedModel
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    caplog.set_level(logging.DEBUG, logger="promptcache")
    provider = TracerProvider()
    events: list[Invalidation] = []
    processor = MonitorSpanProcessor(
        promptcache.Monitor(on_invalidation=events.append, metrics=False)
    )
    provider.add_span_processor(processor)

    async def run(url: str) -> None:
        async with openai_client(url, is_async=True) as client:
            chat = OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=client))
            settings = InstrumentationSettings(tracer_provider=provider)
            for system in (SYSTEM, SYSTEM, SYSTEM.replace("Policy", "Polic y", 1)):
                agent = Agent(InstrumentedModel(chat, settings), system_prompt=system)
                await agent.run(f"Hi, I am {NAME}.")

    with stub_server() as stub:
        stub.serve([completion(1, 2000, 0), completion(2, 2000, 1920), completion(3, 2000, 0)])
        asyncio.run(run(stub.url))
    provider.shutdown()
    assert [(e.cause, e.path) for e in events] == [("whitespace", "messages[0].content")], events
    rates = processor.hit_rates()[("openai", MODEL)]
    assert (rates.spans, rates.unreported_spans) == (3, 0)
    assert (rates.cache_read, rates.uncached_input) == (1920, 6000 - 1920)
    assert processor.monitor.stats()["observations"] == 3
    assert "hit rates only" not in caplog.text
    said = caplog.text + "".join(e.message() for e in events)
    assert NAME not in said and EMAIL not in said


def test_a_streamed_call_without_usage_is_counted_as_unknown_and_said(
    traced: TracerProvider, caplog: pytest.LogCaptureFixture
) -> None:
    # a Chat Completions stream sent without stream_options={"include_usage": True}: the
    # provider reports no usage, so OpenInference's span carries no input token count
    caplog.set_level(logging.DEBUG)
    processor = MonitorSpanProcessor(promptcache.Monitor(metrics=False))
    traced.add_span_processor(processor)
    with stub_server() as stub:
        stub.serve([Reply(events=chat_chunks("chatcmpl-s", MODEL, ["o", "k"], None)[:-2])])
        client = openai_client(stub.url)
        stream = client.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": f"Hi, I am {NAME}."}],
            stream=True,
        )
        for _ in stream:
            pass
    rates = processor.hit_rates()[("openai", MODEL)]
    assert (rates.spans, rates.unreported_spans, rates.rate) == (1, 1, None)
    assert caplog.text.count("no input token count") == 1
    assert NAME not in caplog.text


@pytest.mark.parametrize(
    ("system", "model", "vendor"),
    [
        ("gcp.vertex_ai", "claude-sonnet-4-5@20250929", "vertex-anthropic"),  # AnthropicVertex's
        ("gcp.vertex_ai", "gemini-2.5-flash", "vertex-gemini"),
        ("azure.ai.openai", "gpt-4o-2024-11-20", "azure-openai"),
    ],
)
def test_cloud_platform_spans_are_counted_under_the_platform(
    system: str, model: str, vendor: str
) -> None:
    usage = span_usage(
        {
            "gen_ai.provider.name": system,
            "gen_ai.request.model": model,
            "gen_ai.usage.input_tokens": 1500,
            "gen_ai.usage.output_tokens": 9,
            "gen_ai.usage.cache_read.input_tokens": 1000,
        }
    )
    assert usage is not None and usage.vendor == vendor
    if vendor == "vertex-anthropic":  # it reports both counts, as Anthropic does: 0 omitted
        assert usage.cache_write == 0
