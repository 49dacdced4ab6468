"""
`MonitorSpanProcessor` under each instrumentation users run, each the real library tracing the
real vendor SDK client against a stub on 127.0.0.1 through a real TracerProvider:

- OpenInference's Anthropic instrumentor (the whole request in `input.value`);
- OpenLLMetry (Traceloop's `opentelemetry-instrumentation-openai` / `-anthropic`) and Logfire,
  which carry the GenAI conventions' `gen_ai.input.messages` and `gen_ai.system_instructions`:
  the request is rebuilt from them, without its cache markers, cache key or settings;
- the official `opentelemetry-instrumentation-openai-v2`, whose chat spans carry no cache token
  counts, and carry the messages only in its span content modes.

Each session sends three requests: the second reads back what the first wrote, the third has a
space inserted in the system prompt and reads nothing. A planted name and e-mail address in the
prompt must appear in nothing promptcache logs or reports.
"""

from __future__ import annotations

import importlib
import logging
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import promptcache
from promptcache import Invalidation
from promptcache.debug.otel import MonitorSpanProcessor

from .._recording import (
    Reply,
    anthropic_client,
    anthropic_message,
    chat_chunks,
    chat_completion,
    openai_client,
    stub_server,
)

pytest.importorskip("opentelemetry.sdk")
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

NAME = "Zebulon Quackenbush"
EMAIL = "zebulon.q@example.org"
SYSTEM = f"You are the support agent for {NAME} ({EMAIL}). " + "Policy clause. " * 400
CHANGED = SYSTEM.replace("Policy", "Polic y", 1)
GPT = "gpt-4o-2024-08-06"
CLAUDE = "claude-sonnet-4-6"


def _completion(number: int, prompt: int, cached: int) -> Reply:
    return chat_completion(number, GPT, prompt, cached)


def _message(number: int, read: int, write: int, uncached: int = 50) -> Reply:
    message = anthropic_message(number, CLAUDE, uncached=uncached, output=2, read=read, write=write)
    return Reply(message)


# the second request reads the whole prefix back, the third (system changed) reads nothing
OPENAI_REPLIES = [_completion(1, 2000, 0), _completion(2, 2000, 1920), _completion(3, 2000, 0)]
ANTHROPIC_REPLIES = [_message(1, 0, 1800), _message(2, 1800, 0), _message(3, 0, 1800)]
SYSTEMS = [SYSTEM, SYSTEM, CHANGED]


def _call_openai(client: Any, system: str) -> None:
    client.chat.completions.create(
        model=GPT,
        messages=[
            {"role": "system", "content": system},
            {"role": "user", "content": f"Hi, I am {NAME}, write to {EMAIL}."},
        ],
    )


def _call_anthropic(client: Any, system: str) -> None:
    client.messages.create(
        model=CLAUDE,
        max_tokens=64,
        system=[{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
        messages=[{"role": "user", "content": f"Hi, I am {NAME}, write to {EMAIL}."}],
    )


@contextmanager
def _watching(
    add: Callable[[MonitorSpanProcessor], None],
) -> Iterator[tuple[list[Invalidation], MonitorSpanProcessor]]:
    """A monitor's processor, added by `add` (a provider's `add_span_processor`)."""
    events: list[Invalidation] = []
    processor = MonitorSpanProcessor(
        promptcache.Monitor(on_invalidation=events.append, metrics=False)
    )
    add(processor)
    yield events, processor


def _run(
    make_client: Callable[[str], Any], call: Callable[[Any, str], None], replies: list[Reply]
) -> None:
    with stub_server() as stub:
        stub.serve(replies)
        client = make_client(stub.url)
        for system in SYSTEMS:
            call(client, system)
        assert not stub.replies, "every request reached the stub"


def _ours(caplog: pytest.LogCaptureFixture) -> str:
    """What promptcache logged (the SDKs' own debug logs quote the request: not ours)."""
    return "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("promptcache"))


def _private(caplog: pytest.LogCaptureFixture, events: list[Invalidation]) -> None:
    said = _ours(caplog) + "".join(e.message() + e.detail + repr(e.key) for e in events)
    for planted in (NAME, EMAIL, "Quackenbush", "Policy clause"):
        assert planted not in said


def _assert_openai_named(
    events: list[Invalidation], processor: MonitorSpanProcessor, caplog: pytest.LogCaptureFixture
) -> None:
    assert [(e.cause, e.path) for e in events] == [("whitespace", "messages[0].content")], events
    rates = processor.hit_rates()[("openai", GPT)]
    assert (rates.spans, rates.cache_read, rates.cache_write) == (3, 1920, 0)
    assert rates.uncached_input == 6000 - 1920 and rates.unreported_spans == 0
    assert rates.rate == pytest.approx(1920 / 6000)
    assert "hit rates only" not in _ours(caplog)
    _private(caplog, events)


def _assert_anthropic_named(
    events: list[Invalidation], processor: MonitorSpanProcessor, caplog: pytest.LogCaptureFixture
) -> None:
    assert [(e.cause, e.path) for e in events] == [("whitespace", "system[0].text")], events
    assert events[0].expected_read == 1800 and events[0].actual_read == 0
    rates = processor.hit_rates()[("anthropic", CLAUDE)]
    assert (rates.spans, rates.cache_read, rates.cache_write) == (3, 1800, 3600)
    assert rates.uncached_input == 150
    assert rates.rate == pytest.approx(1800 / 5550)
    assert "hit rates only" not in _ours(caplog)
    _private(caplog, events)


# -- OpenInference: Anthropic ---------------------------------------------------------------


def test_openinference_anthropic_names_the_changed_system_prompt(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pytest.importorskip("openinference.instrumentation.anthropic")
    from openinference.instrumentation.anthropic import AnthropicInstrumentor

    caplog.set_level(logging.DEBUG)
    provider = TracerProvider()
    instrumentor = AnthropicInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with _watching(provider.add_span_processor) as (events, processor):
            _run(anthropic_client, _call_anthropic, ANTHROPIC_REPLIES)
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
    _assert_anthropic_named(events, processor, caplog)


# -- OpenLLMetry (Traceloop) ----------------------------------------------------------------


class _Relay(SpanProcessor):
    """Hands each finished span to the current test's processor, if any."""

    def __init__(self) -> None:
        self.target: SpanProcessor | None = None

    def on_end(self, span: Any) -> None:
        if self.target is not None:
            self.target.on_end(span)


@pytest.fixture(scope="module")
def _traceloop_relays() -> Iterator[dict[str, _Relay]]:
    """
    OpenLLMetry instrumented once per module: its `uninstrument()` leaves its wrappers in place
    (instrumented again, each call is traced twice, once to the old provider), so each test gets
    the spans through a relay on one provider rather than instrumenting again.
    """
    relays: dict[str, _Relay] = {}
    instrumentors = []
    providers = []
    for vendor, name in (("openai", "OpenAIInstrumentor"), ("anthropic", "AnthropicInstrumentor")):
        try:
            module = importlib.import_module(f"opentelemetry.instrumentation.{vendor}")
        except ImportError:
            continue
        if not hasattr(module, name):
            continue  # a package of that name that is not Traceloop's
        relays[vendor] = _Relay()
        provider = TracerProvider()
        provider.add_span_processor(relays[vendor])
        instrumentor = getattr(module, name)()
        with warnings.catch_warnings():
            # its Responses wrappers declare a pydantic model the pydantic-1 way (its own warning)
            warnings.filterwarnings("ignore", "Support for class-based `config`")
            instrumentor.instrument(tracer_provider=provider)
        instrumentors.append(instrumentor)
        providers.append(provider)
    yield relays
    for instrumentor, provider in zip(instrumentors, providers, strict=True):
        instrumentor.uninstrument()
        provider.shutdown()
    _unwrap_left("opentelemetry.instrumentation.openai")
    _unwrap_left("opentelemetry.instrumentation.anthropic")


def _unwrap_left(package: str) -> None:
    """
    Put back the SDK methods `package`'s instrumentation wrapped. OpenLLMetry 0.62's
    `uninstrument()` leaves them wrapped (it passes `unwrap` a "module", "Class.method" pair,
    which opentelemetry-instrumentation's `unwrap` no longer resolves), and a wrapper left on
    the OpenAI client changes what later tests see (its sync stream has `__aiter__` too).
    """
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(("openai.", "anthropic.")):
            continue
        for owner in list(vars(module).values()):
            if not isinstance(owner, type) or not owner.__module__.startswith(name):
                continue
            for attribute, value in list(vars(owner).items()):
                while _wrapped_by(value, package):
                    value = value.__wrapped__
                    setattr(owner, attribute, value)


def _wrapped_by(value: Any, package: str) -> bool:
    wrapper = getattr(value, "_self_wrapper", None)
    module = getattr(wrapper, "__module__", None) or ""
    return hasattr(value, "__wrapped__") and (module == package or module.startswith(package + "."))


@pytest.fixture
def traceloop(
    request: pytest.FixtureRequest, _traceloop_relays: dict[str, _Relay]
) -> Iterator[Callable[[MonitorSpanProcessor], None]]:
    relay = _traceloop_relays.get(request.param)
    if relay is None:
        pytest.skip(f"Traceloop's opentelemetry-instrumentation-{request.param} is not installed")

    def add(processor: MonitorSpanProcessor) -> None:
        relay.target = processor

    yield add
    relay.target = None


@pytest.mark.parametrize("traceloop", ["openai"], indirect=True)
def test_openllmetry_openai_names_the_changed_system_prompt(
    traceloop: Callable[[MonitorSpanProcessor], None], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with _watching(traceloop) as (events, processor):
        _run(openai_client, _call_openai, OPENAI_REPLIES)
    _assert_openai_named(events, processor, caplog)


@pytest.mark.parametrize("traceloop", ["anthropic"], indirect=True)
def test_openllmetry_anthropic_names_the_changed_system_prompt(
    traceloop: Callable[[MonitorSpanProcessor], None], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with _watching(traceloop) as (events, processor):
        _run(anthropic_client, _call_anthropic, ANTHROPIC_REPLIES)
    _assert_anthropic_named(events, processor, caplog)


@pytest.mark.parametrize("traceloop", ["openai"], indirect=True)
def test_openllmetry_without_content_gives_hit_rates_only(
    traceloop: Callable[[MonitorSpanProcessor], None],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TRACELOOP_TRACE_CONTENT", "false")
    caplog.set_level(logging.DEBUG)
    with _watching(traceloop) as (events, processor):
        _run(openai_client, _call_openai, OPENAI_REPLIES)
    assert events == []
    rates = processor.hit_rates()[("openai", GPT)]
    assert (rates.spans, rates.cache_read, rates.uncached_input) == (3, 1920, 6000 - 1920)
    assert _ours(caplog).count("hit rates only") == 1
    _private(caplog, events)


# -- Logfire ----------------------------------------------------------------------------------


@pytest.fixture
def logfire_adding() -> Iterator[Callable[[MonitorSpanProcessor], None]]:
    """
    Adds the processor as its users would: `logfire.configure(additional_span_processors=[...])`,
    spans kept local (`send_to_logfire=False`). Logfire's configuration is process-wide: put
    back without the processor afterwards.
    """
    logfire = pytest.importorskip("logfire")

    def add(processor: MonitorSpanProcessor) -> None:
        logfire.configure(
            send_to_logfire=False, console=False, additional_span_processors=[processor]
        )

    yield add
    logfire.configure(send_to_logfire=False, console=False, additional_span_processors=[])


def _logfire_traced(make: Callable[[str], Any]) -> Callable[[str], Any]:
    """`make`'s clients (`openai_client` or `anthropic_client`), each instrumented by Logfire."""

    def client(url: str) -> Any:
        import logfire

        made = make(url)
        if make is anthropic_client:
            logfire.instrument_anthropic(made)
        else:
            logfire.instrument_openai(made)
        return made

    return client


def test_logfire_openai_names_the_changed_system_prompt(
    logfire_adding: Callable[[MonitorSpanProcessor], None], caplog: pytest.LogCaptureFixture
) -> None:
    client = _logfire_traced(openai_client)

    caplog.set_level(logging.DEBUG)
    with _watching(logfire_adding) as (events, processor):
        _run(client, _call_openai, OPENAI_REPLIES)
    _assert_openai_named(events, processor, caplog)


def test_logfire_anthropic_names_the_changed_system_prompt(
    logfire_adding: Callable[[MonitorSpanProcessor], None], caplog: pytest.LogCaptureFixture
) -> None:
    client = _logfire_traced(anthropic_client)

    caplog.set_level(logging.DEBUG)
    with _watching(logfire_adding) as (events, processor):
        _run(client, _call_anthropic, ANTHROPIC_REPLIES)
    _assert_anthropic_named(events, processor, caplog)


def test_logfire_names_a_changed_tool(
    logfire_adding: Callable[[MonitorSpanProcessor], None], caplog: pytest.LogCaptureFixture
) -> None:
    """Logfire records the tools (`gen_ai.tool.definitions`): a changed description is named."""
    client = _logfire_traced(openai_client)

    def call(client: Any, description: str) -> None:
        client.chat.completions.create(
            model=GPT,
            messages=[
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"Hi, I am {NAME}, write to {EMAIL}."},
            ],
            tools=[
                {
                    "type": "function",
                    "function": {
                        "name": "lookup_order",
                        "description": description,
                        "parameters": {"type": "object", "properties": {}},
                    },
                }
            ],
        )

    caplog.set_level(logging.DEBUG, logger="promptcache")
    with _watching(logfire_adding) as (events, _), stub_server() as stub:
        stub.serve(OPENAI_REPLIES)
        made = client(stub.url)
        for description in ("Find an order.", "Find an order.", "Find an order by id."):
            call(made, description)
    assert [(e.cause, e.path) for e in events] == [
        ("tools_changed", "tools[0].function.description")
    ], events
    _private(caplog, events)


def test_logfire_streamed_chat_is_read_from_its_streaming_span(
    logfire_adding: Callable[[MonitorSpanProcessor], None], caplog: pytest.LogCaptureFixture
) -> None:
    """A stream: Logfire records the usage on a second span, when the stream is consumed."""
    client = _logfire_traced(openai_client)

    def call(client: Any, system: str) -> None:
        stream = client.chat.completions.create(
            model=GPT,
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": f"Hi, I am {NAME}, write to {EMAIL}."},
            ],
            stream=True,
            stream_options={"include_usage": True},
        )
        for _ in stream:
            pass

    def streamed(number: int, cached: int) -> Reply:
        usage = {
            "prompt_tokens": 2000,
            "completion_tokens": 2,
            "total_tokens": 2002,
            "prompt_tokens_details": {"cached_tokens": cached},
        }
        return Reply(events=chat_chunks(f"chatcmpl-{number}", GPT, ["o", "k"], usage))

    caplog.set_level(logging.DEBUG, logger="promptcache")
    with _watching(logfire_adding) as (events, processor):
        _run(client, call, [streamed(1, 0), streamed(2, 1920), streamed(3, 0)])
    _assert_openai_named(events, processor, caplog)


# -- the official OpenTelemetry OpenAI instrumentation ---------------------------------------


@pytest.fixture
def openai_v2(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """`opentelemetry-instrumentation-openai-v2`, content captured in the mode given (or not)."""
    pytest.importorskip("opentelemetry.instrumentation.openai_v2")
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    mode = request.param
    if mode is None:
        monkeypatch.delenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", raising=False)
    else:
        monkeypatch.setenv("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
        monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", mode)
    provider = TracerProvider()
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield provider
    finally:
        instrumentor.uninstrument()
        provider.shutdown()


@pytest.mark.parametrize("openai_v2", ["SPAN_ONLY", "SPAN_AND_EVENT"], indirect=True)
def test_openai_v2_spans_carry_the_messages_but_no_cache_counts(
    openai_v2: TracerProvider, caplog: pytest.LogCaptureFixture
) -> None:
    """
    Its chat spans carry `gen_ai.usage.input_tokens` and no cache read count: the hit rate is
    unknown (not 0), the monitor has nothing to judge, and the processor says so once.
    """
    caplog.set_level(logging.DEBUG)
    with _watching(openai_v2.add_span_processor) as (events, processor):
        _run(openai_client, _call_openai, OPENAI_REPLIES)
    assert events == []
    rates = processor.hit_rates()[("openai", GPT)]
    assert (rates.spans, rates.unreported_spans, rates.cache_read) == (3, 3, 0)
    assert rates.rate is None
    assert _ours(caplog).count("no cache token counts") == 1
    assert "hit rates only" not in _ours(caplog)
    assert processor.monitor.stats()["observations"] == 3
    _private(caplog, events)


@pytest.mark.parametrize("openai_v2", [None, "EVENT_ONLY"], indirect=True)
def test_openai_v2_without_span_content_says_so_once(
    openai_v2: TracerProvider, caplog: pytest.LogCaptureFixture
) -> None:
    """No content, or content in log events only: a span processor sees no request."""
    caplog.set_level(logging.DEBUG)
    with _watching(openai_v2.add_span_processor) as (events, processor):
        _run(openai_client, _call_openai, OPENAI_REPLIES)
    assert events == []
    rates = processor.hit_rates()[("openai", GPT)]
    assert (rates.spans, rates.unreported_spans) == (3, 3) and rates.rate is None
    assert _ours(caplog).count("hit rates only") == 1
    assert _ours(caplog).count("no cache token counts") == 1
    assert processor.monitor.stats()["observations"] == 0
    _private(caplog, events)


# -- what a rebuilt request cannot tell ------------------------------------------------------


@pytest.mark.parametrize("traceloop", ["anthropic"], indirect=True)
def test_a_miss_with_nothing_changed_in_a_rebuilt_request_claims_no_cause(
    traceloop: Callable[[MonitorSpanProcessor], None], caplog: pytest.LogCaptureFixture
) -> None:
    """
    The spans keep no markers or settings: a miss with the messages unchanged may come from a
    change there, so it is cause "none" and not blamed on the server; with the whole request
    (OpenInference) the same miss is the server's.
    """
    caplog.set_level(logging.DEBUG, logger="promptcache")
    replies = [_message(1, 0, 1800), _message(2, 1800, 0), _message(3, 0, 1800)]
    with _watching(traceloop) as (events, _), stub_server() as stub:
        stub.serve(replies)
        client = anthropic_client(stub.url)
        for _ in range(3):
            _call_anthropic(client, SYSTEM)
    assert [(e.cause, e.path, e.server_side) for e in events] == [("none", None, False)]
    assert "cannot be told apart" in events[0].detail
    _private(caplog, events)


@pytest.mark.parametrize("traceloop", ["anthropic"], indirect=True)
def test_a_rebuilt_request_without_markers_is_not_called_unmarked(
    traceloop: Callable[[MonitorSpanProcessor], None], caplog: pytest.LogCaptureFixture
) -> None:
    """Nothing read or written: the markers the request had are unknown, so none is claimed."""
    replies = [_message(n, 0, 0, uncached=1850) for n in (1, 2, 3)]
    with _watching(traceloop) as (events, processor), stub_server() as stub:
        stub.serve(replies)
        client = anthropic_client(stub.url)
        for _ in range(3):
            _call_anthropic(client, SYSTEM)
    assert events == []
    assert processor.hit_rates()[("anthropic", CLAUDE)].rate == 0.0


def test_key_names_sessions_a_rebuilt_request_lost(caplog: pytest.LogCaptureFixture) -> None:
    """
    Two Pydantic AI agents with their own system prompts, interleaved: the rebuilt requests keep
    no cache key, so under the monitor's default key (vendor and model) each one's first request
    reads as the other's broken cache; keyed by the span's agent name, nothing is wrong.
    """
    pytest.importorskip("pydantic_ai")
    import asyncio

    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings, InstrumentedModel
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    def session(key: Any) -> list[Invalidation]:
        provider = TracerProvider()
        events: list[Invalidation] = []
        monitor = promptcache.Monitor(on_invalidation=events.append, metrics=False)
        provider.add_span_processor(MonitorSpanProcessor(monitor, key=key))

        async def run(url: str) -> None:
            async with openai_client(url, is_async=True) as client:
                chat = OpenAIChatModel(GPT, provider=OpenAIProvider(openai_client=client))
                model = InstrumentedModel(chat, InstrumentationSettings(tracer_provider=provider))
                agents = [
                    Agent(model, name=name, system_prompt=f"Agent {name}. " + SYSTEM)
                    for name in ("billing", "support")
                ]
                for agent in agents * 2:
                    await agent.run(f"Hi, I am {NAME}.")

        with stub_server() as stub:
            stub.serve(
                [
                    _completion(1, 2000, 0),
                    _completion(2, 2000, 0),
                    _completion(3, 2000, 1920),
                    _completion(4, 2000, 1920),
                ]
            )
            asyncio.run(run(stub.url))
        provider.shutdown()
        return events

    assert [e.cause for e in session(None)] == ["content_changed"]
    assert session(lambda attributes: attributes.get("gen_ai.agent.name")) == []

    def broken(attributes: Any) -> str:
        raise ValueError(f"no tenant in {attributes}")

    caplog.set_level(logging.DEBUG, logger="promptcache")
    assert session(broken) == []  # the agent's calls all returned
    assert _ours(caplog).count("ValueError raised while reading it") == 4
    _private(caplog, [])
    with pytest.raises(promptcache.InputError, match="function of the span's attributes"):
        MonitorSpanProcessor(promptcache.Monitor(metrics=False), key="tenant")  # type: ignore[arg-type]


@pytest.mark.parametrize("traceloop", ["openai"], indirect=True)
def test_a_call_traced_by_two_instrumentations_counts_once(
    traceloop: Callable[[MonitorSpanProcessor], None],
    logfire_adding: Callable[[MonitorSpanProcessor], None],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Logfire and OpenLLMetry on one client: two spans per call, one response id; one call."""
    client = _logfire_traced(openai_client)

    def both(processor: MonitorSpanProcessor) -> None:
        traceloop(processor)
        logfire_adding(processor)

    caplog.set_level(logging.DEBUG, logger="promptcache")
    with _watching(both) as (events, processor):
        _run(client, _call_openai, OPENAI_REPLIES)
    _assert_openai_named(events, processor, caplog)
    assert processor.monitor.stats()["observations"] == 3
    assert _ours(caplog).count("counted once") == 1
