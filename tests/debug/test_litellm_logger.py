"""
`MonitorLogger` under real LiteLLM: `litellm.completion` and `acompletion` drive LiteLLM's
OpenAI and Anthropic providers (their real SDK clients and HTTP code) against a stub on
127.0.0.1, and the callback must hand each call to the monitor as it was sent.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import promptcache
from promptcache import Invalidation

from .._recording import (
    LITELLM_OFFLINE,
    Reply,
    anthropic_events,
    anthropic_message,
    chat_chunks,
    stub_server,
)

litellm = pytest.importorskip("litellm")
from promptcache.debug.litellm_logger import MonitorLogger  # noqa: E402

# LiteLLM's own pydantic use warns (ReadOnly TypedDict items; instance model_computed_fields):
# theirs, not ours, and raised as errors here they would fail LiteLLM's calls (every LiteLLM
# test module marks itself with these)
LITELLM_WARNINGS = [
    pytest.mark.filterwarnings("ignore:Items? .* (is|are) using the `ReadOnly` qualifier"),
    pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince211"),
]
pytestmark = LITELLM_WARNINGS

NAME = "Quintessa Marlowe-Dubois"
EMAIL = "q.marlowe@example.net"
SYSTEM = f"You answer for {NAME} ({EMAIL}). " + "Refund policy clause. " * 300
GPT = "gpt-4o-2024-08-06"
CLAUDE = "claude-sonnet-4-5"
CHAT_USAGE = {
    "prompt_tokens": 2000,
    "completion_tokens": 2,
    "total_tokens": 2002,
    "prompt_tokens_details": {"cached_tokens": 0},
}


def chat_reply(number: int, cached: int = 0) -> Reply:
    usage = {**CHAT_USAGE, "prompt_tokens_details": {"cached_tokens": cached}}
    message = {"role": "assistant", "content": "ok"}
    return Reply(
        {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": 1_796_000_000 + number,
            "model": GPT,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": usage,
        }
    )


def chat_stream(number: int, cached: int = 0) -> Reply:
    usage = {**CHAT_USAGE, "prompt_tokens_details": {"cached_tokens": cached}}
    return Reply(events=chat_chunks(f"chatcmpl-{number}", GPT, ["o", "k"], usage))


def claude_message(number: int, read: int, write: int) -> dict[str, Any]:
    return anthropic_message(number, CLAUDE, uncached=12, output=3, read=read, write=write)


def claude_reply(number: int, read: int, write: int) -> Reply:
    return Reply(claude_message(number, read, write))


def claude_stream(number: int, read: int, write: int) -> Reply:
    return Reply(
        events=anthropic_events(claude_message(number, read, write), "ok", {"output_tokens": 3})
    )


# LiteLLM copies litellm.callbacks into these lists when a call starts; each test gets its own
_CALLBACK_LISTS = (
    "callbacks",
    "input_callback",
    "success_callback",
    "failure_callback",
    "_async_success_callback",
    "_async_failure_callback",
)


@pytest.fixture(autouse=True)
def _own_event_loop() -> Iterator[None]:
    """LiteLLM's sync calls run its service hooks on `asyncio.get_event_loop()`, which makes
    and sets a loop of its own on the main thread; a later `asyncio.run` drops it unclosed.
    Here the current loop is one this test owns and closes."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        yield
    finally:
        asyncio.set_event_loop(None)
        loop.close()


class Watched:
    def __init__(self, logger: MonitorLogger, events: list[Invalidation]) -> None:
        self.logger = logger
        self.events = events
        self.observed: list[tuple[dict[str, Any], Any, str | None]] = []
        real = logger.monitor.observe

        def spy(request: Any, response: Any = None, **kw: Any) -> Any:
            seen = (json.loads(json.dumps(request)), kw.get("usage"), kw.get("key"))
            result = real(request, response, **kw)
            # Counted once the monitor is done with it (and has fired its events), so that
            # `settle` never returns between the two on a loaded machine.
            self.observed.append(seen)
            return result

        logger.monitor.observe = spy  # type: ignore[method-assign]

    def settle(self, count: int) -> int:
        """
        LiteLLM runs sync success callbacks on its thread pool: wait (10 s at most) for them.

        A test that judges one call against the one before settles after each call: under load
        the pool can run the second call's callback first, and the monitor then rightly judges
        nothing (a later request of the key was observed first; see `_order_in_process`).
        """
        deadline = time.monotonic() + 10
        while self._handled() < count and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.05)  # and nothing more comes
        return self._handled()

    def _handled(self) -> int:
        return len(self.observed) + sum(self.logger.unobserved.values())


def _watch(**options: Any) -> tuple[Watched, list[tuple[str, Any]]]:
    events: list[Invalidation] = []
    monitor = promptcache.Monitor(on_invalidation=events.append, metrics=False)
    logger = MonitorLogger(monitor, **options)
    saved = [(name, getattr(litellm, name)) for name in _CALLBACK_LISTS]
    for name in _CALLBACK_LISTS:
        setattr(litellm, name, [])
    litellm.callbacks = [logger]
    return Watched(logger, events), saved


@pytest.fixture
def watched() -> Iterator[Watched]:
    watched, saved = _watch()
    try:
        yield watched
    finally:
        for name, value in saved:
            setattr(litellm, name, value)


@pytest.fixture
def keyed_watch() -> Iterator[Any]:
    """A factory: a watched logger built with the given options."""
    saved_all: list[list[tuple[str, Any]]] = []

    def make(**options: Any) -> Watched:
        watched, saved = _watch(**options)
        saved_all.append(saved)
        return watched

    try:
        yield make
    finally:
        for name, value in saved_all[0] if saved_all else []:
            setattr(litellm, name, value)


def _openai(stub: Any, messages: list[dict[str, Any]], **kw: Any) -> Any:
    return litellm.completion(
        model=f"openai/{GPT}", api_base=f"{stub.url}/v1", api_key="sk-test", messages=messages, **kw
    )


def _anthropic(stub: Any, messages: list[dict[str, Any]], **kw: Any) -> Any:
    return litellm.completion(
        model=f"anthropic/{CLAUDE}",
        api_base=stub.url,
        api_key="sk-ant-test",
        messages=messages,
        max_tokens=64,
        **kw,
    )


def _conversation(system: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": f"Hi, I am {NAME}, {EMAIL}."},
    ]


def _ours(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name.startswith("promptcache")]


def _no_prompt_text(caplog: pytest.LogCaptureFixture, events: list[Invalidation]) -> None:
    texts = _ours(caplog) + [json.dumps(e.to_json()) + e.message() for e in events]
    leaked = [t for t in texts if NAME in t or EMAIL in t or "Refund policy" in t]
    assert not leaked, leaked


# -- what is observed: the request as sent, the usage as reported ---------------------------


def test_openai_calls_are_judged_as_sent_and_name_the_field(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with stub_server() as stub:
        stub.serve([chat_reply(1), chat_reply(2)])
        for n, system in enumerate((SYSTEM, SYSTEM.replace("Refund policy", "Refund  policy", 1))):
            messages = _conversation(system)
            _openai(stub, messages, prompt_cache_key="tenant-7")
            messages.append({"role": "assistant", "content": "ok"})  # the next turn, at once
            assert watched.settle(n + 1) == n + 1  # see `Watched.settle`
        wire = [json.loads(body) for body in stub.bodies]
    sent = [request for request, _, _ in watched.observed]
    assert [{k: v for k, v in r.items() if k != "extra_body"} for r in sent] == wire
    assert wire[0]["prompt_cache_key"] == "tenant-7"  # LiteLLM passes it on to OpenAI
    assert [(e.cause, e.path, e.key) for e in watched.events] == [
        ("whitespace", "messages[0].content", "tenant-7")
    ]
    _no_prompt_text(caplog, watched.events)


def test_anthropic_calls_are_judged_in_the_anthropic_format_litellm_sent(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    """LiteLLM turns the OpenAI-shaped system message into Anthropic `system` blocks with their
    cache_control: the cause names that field, and cache reads and writes come through."""
    caplog.set_level(logging.DEBUG)
    with stub_server() as stub:
        stub.serve([claude_reply(1, 0, 1800), claude_reply(2, 0, 1800)])
        for n, system in enumerate((SYSTEM, "Today is 2026-11-30. " + SYSTEM)):
            block = {"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}
            messages = [{"role": "system", "content": [block]}, *_conversation("")[1:]]
            _anthropic(stub, messages, user="session-41")
            assert watched.settle(n + 1) == n + 1
        wire = [json.loads(body) for body in stub.bodies]
    sent = [request for request, _, _ in watched.observed]
    assert sent == wire
    assert sent[0]["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert sent[0]["metadata"] == {"user_id": "session-41"}  # LiteLLM's translation of `user`
    usages = [
        (u.uncached_input, u.cache_read, u.cache_write, u.output) for _, u, _ in watched.observed
    ]
    assert usages == [(12, 0, 1800, 3), (12, 0, 1800, 3)]
    (event,) = watched.events
    assert (event.cause, event.path, event.key) == ("timestamp", "system[0].text", "session-41")
    _no_prompt_text(caplog, watched.events)


def test_tools_are_named_as_litellm_sent_them_to_anthropic(watched: Watched) -> None:
    """OpenAI-shaped tools become Anthropic tools (`input_schema`, no `function` wrapper)."""

    def tool(description: str) -> dict[str, Any]:
        parameters = {"type": "object", "properties": {"id": {"type": "string"}}}
        function = {"name": "lookup_order", "description": description, "parameters": parameters}
        return {"type": "function", "function": function}

    with stub_server() as stub:
        stub.serve([claude_reply(1, 0, 1800), claude_reply(2, 0, 1800)])
        for n, description in enumerate(("Find an order by id.", "Find an order by its id.")):
            _anthropic(stub, _conversation(SYSTEM), tools=[tool(description)], user="session-41")
            assert watched.settle(n + 1) == n + 1
    assert "input_schema" in watched.observed[0][0]["tools"][0]
    assert [e.path for e in watched.events] == ["tools[0].description"]


def test_litellm_keeps_prompt_cache_key_from_anthropic(watched: Watched) -> None:
    """What the README says of LiteLLM 1.110: refused for Anthropic, or dropped with
    drop_params, so it never reaches the request the monitor judges."""
    with stub_server() as stub:
        stub.serve([claude_reply(1, 0, 1800)])
        with pytest.raises(litellm.UnsupportedParamsError, match="prompt_cache_key"):
            _anthropic(stub, _conversation(SYSTEM), prompt_cache_key="tenant-7")
        _anthropic(stub, _conversation(SYSTEM), prompt_cache_key="tenant-7", drop_params=True)
        assert watched.settle(1) == 1
        assert "tenant-7" not in stub.bodies[0].decode()
    assert "tenant-7" not in json.dumps(watched.observed[0][0])
    assert watched.observed[0][2] is None  # no key given: the monitor's default applies


def test_streams_and_async_calls_are_observed_with_their_cache_reads(watched: Watched) -> None:
    with stub_server() as stub:
        stub.serve([claude_stream(1, 1500, 300)])
        for _ in _anthropic(stub, _conversation(SYSTEM), stream=True):
            pass
        stub.serve([chat_stream(2, cached=1024)])
        chunks = _openai(
            stub, _conversation(SYSTEM), stream=True, stream_options={"include_usage": True}
        )
        for _ in chunks:
            pass
        assert watched.settle(2) == 2

        async def calls() -> None:
            stub.serve([chat_reply(3, cached=1536)])
            await litellm.acompletion(
                model=f"openai/{GPT}",
                api_base=f"{stub.url}/v1",
                api_key="sk-test",
                messages=_conversation(SYSTEM),
            )
            stub.serve([claude_stream(4, 1800, 0)])
            stream = await litellm.acompletion(
                model=f"anthropic/{CLAUDE}",
                api_base=stub.url,
                api_key="sk-ant-test",
                messages=_conversation(SYSTEM),
                max_tokens=64,
                stream=True,
            )
            async for _ in stream:
                pass
            await asyncio.sleep(0.2)  # async success callbacks run as tasks on this loop

        asyncio.run(calls())
        assert watched.settle(4) == 4
    reads = [
        (u.vendor, u.uncached_input, u.cache_read, u.cache_write) for _, u, _ in watched.observed
    ]
    assert reads == [
        ("anthropic", 12, 1500, 300),
        ("openai", 976, 1024, None),
        ("openai", 464, 1536, None),
        ("anthropic", 12, 1800, 0),
    ]
    assert all("system" in r for r, _, _ in watched.observed[::3])  # the Anthropic bodies
    assert not watched.logger.unobserved


def test_a_chat_stream_without_include_usage_is_not_judged_on_an_estimate(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    """The provider sends no usage then; LiteLLM counts the prompt itself, with no cache reads,
    which would read as a miss every time. Not observed, said once with the fix."""
    with stub_server() as stub:
        for number in (1, 2):
            stub.serve(
                [
                    Reply(
                        events=(
                            *chat_chunks(f"c{number}", GPT, ["ok"], None)[:-2],
                            (None, "[DONE]"),
                        )
                    )
                ]
            )
            for _ in _openai(stub, _conversation(SYSTEM), stream=True):
                pass
        assert watched.settle(2) == 2
    assert watched.observed == [] and watched.events == []
    assert watched.logger.unobserved == {"estimated_usage": 2}
    said = [m for m in _ours(caplog) if "not observed" in m]
    assert len(said) == 1 and "stream_options={'include_usage': True}" in said[0]


def test_calls_other_than_chat_completions_are_counted_not_judged(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    """An embedding's request has `input` like a Responses request and its usage
    `prompt_tokens`: judged as one, every new text would read as a cache miss."""
    caplog.set_level(logging.DEBUG)
    vector = {"object": "embedding", "index": 0, "embedding": [0.25, 0.5]}
    usage = {"prompt_tokens": 1500, "total_tokens": 1500}
    reply = {"object": "list", "data": [vector], "model": "text-embedding-3-small", "usage": usage}
    with stub_server() as stub:
        stub.serve([Reply(reply), Reply(reply)])
        for text in (SYSTEM, SYSTEM + " More."):
            litellm.embedding(
                model="openai/text-embedding-3-small",
                api_base=f"{stub.url}/v1",
                api_key="sk-test",
                input=[text],
            )
        assert watched.settle(2) == 2
    assert watched.observed == [] and watched.events == []
    assert watched.logger.unobserved == {"not_chat": 2}
    assert len([m for m in _ours(caplog) if "embedding" in m]) == 1


# -- keys ------------------------------------------------------------------------------------


def test_sessions_are_told_apart_by_the_metadata_key_or_key_function(keyed_watch: Any) -> None:
    """Anthropic has no prompt_cache_key (LiteLLM refuses it, or drops it with drop_params): two
    interleaved sessions with different prompts share the default key and blame each other,
    unless metadata={"promptcache_key": ...} or key= tells them apart."""
    other = "You are the billing agent. " * 300

    def run(watched: Watched, **per_session: Any) -> list[str]:
        with stub_server() as stub:
            # each session's second turn reads what its first wrote
            stub.serve(
                [claude_reply(n, 1800 if n > 1 else 0, 0 if n > 1 else 1800) for n in range(4)]
            )
            for n, system in enumerate((SYSTEM, other, SYSTEM, other)):
                extra = {k: v[n % 2] for k, v in per_session.items()}
                _anthropic(stub, _conversation(system), **extra)
                watched.settle(n + 1)
        return [e.cause for e in watched.events]

    assert run(keyed_watch()) != []  # one default key: every turn blames the other session
    by_metadata = keyed_watch()
    metadata = ({"promptcache_key": "sess-1"}, {"promptcache_key": "sess-2"})
    assert run(by_metadata, metadata=metadata) == []
    assert {key for _, _, key in by_metadata.observed} == {"sess-1", "sess-2"}
    by_function = keyed_watch(key=lambda sent: str(len(sent["system"][0]["text"])))
    assert run(by_function) == []


# -- never in the way, never quoting the prompt ------------------------------------------------


def test_a_failing_key_function_never_reaches_the_call_or_the_log(
    keyed_watch: Any, caplog: pytest.LogCaptureFixture
) -> None:
    def key(sent: Any) -> str:
        raise KeyError(EMAIL)

    watched = keyed_watch(key=key)
    caplog.set_level(logging.DEBUG)
    with stub_server() as stub:
        stub.serve([chat_reply(1), chat_reply(2)])
        replies = [_openai(stub, _conversation(SYSTEM)) for _ in range(2)]
        assert watched.settle(2) == 2
    assert [r.choices[0].message.content for r in replies] == ["ok", "ok"]
    assert watched.logger.unobserved == {"failed": 2}
    said = [m for m in _ours(caplog) if "not observed" in m]
    assert len(said) == 1 and "KeyError" in said[0]
    assert not [m for m in _ours(caplog) if EMAIL in m or NAME in m]


def test_messages_litellm_withholds_are_not_read_from_elsewhere(
    watched: Watched, caplog: pytest.LogCaptureFixture
) -> None:
    """turn_off_message_logging: LiteLLM still passes its raw request to callbacks, but the
    user asked that callbacks not see prompts, so the call is not observed, and that is said."""
    with stub_server() as stub:
        stub.serve([chat_reply(1)])
        _openai(stub, _conversation(SYSTEM), turn_off_message_logging=True)
        assert watched.settle(1) == 1
    assert watched.observed == [] and watched.logger.unobserved == {"redacted": 1}
    assert any("message logging is off" in m for m in _ours(caplog))


def test_a_second_logger_on_another_monitor_is_registered_too(watched: Watched) -> None:
    """LiteLLM drops a callback equal to one it has (same class and public attributes)."""
    second, _ = _watch()  # the fixture restores LiteLLM's lists
    litellm.callbacks = [watched.logger, second.logger]
    with stub_server() as stub:
        stub.serve([chat_reply(1)])
        _openai(stub, _conversation(SYSTEM))
        assert watched.settle(1) == 1 and second.settle(1) == 1


def test_requests_held_in_flight_are_bounded(keyed_watch: Any) -> None:
    """A stream never read to its end never reaches the success hook: what was held for it is
    dropped when newer calls need the room, counted and said."""
    watched = keyed_watch(max_in_flight=1)
    with stub_server() as stub:
        stub.serve([chat_stream(1), chat_reply(2)])
        abandoned = _openai(
            stub, _conversation(SYSTEM), stream=True, stream_options={"include_usage": True}
        )
        _openai(stub, _conversation(SYSTEM))
        assert watched.settle(2) == 2
        abandoned.close()
    assert len(watched.observed) == 1 and watched.logger.unobserved == {"too_many_in_flight": 1}


def test_bad_arguments_are_refused_by_name() -> None:
    with pytest.raises(promptcache.InputError, match="needs a Monitor, got dict"):
        MonitorLogger({})  # type: ignore[arg-type]
    with pytest.raises(promptcache.InputError, match="key must be a string or a function"):
        MonitorLogger(promptcache.Monitor(metrics=False), key=7)  # type: ignore[arg-type]
    with pytest.raises(
        promptcache.InputError, match="max_in_flight_bytes must be >= 1, got 10000 and 0"
    ):
        MonitorLogger(promptcache.Monitor(metrics=False), max_in_flight_bytes=0)


def test_without_litellm_the_import_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['litellm'] = None\n"
        "try:\n    import promptcache.debug.litellm_logger\n"
        "except ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'promptcache-sdk[litellm]'" in out.stdout, out.stdout + out.stderr


# -- LiteLLM stays on loopback ----------------------------------------------------------------

_AUDIT = """
import json, sys
seen = []
def hook(event, args):
    if event == "socket.connect":
        address = args[1]
        host = address[0] if isinstance(address, tuple) else str(address)
        if not (host.startswith("127.") or host in ("::1", "localhost")):
            seen.append([event, host])
    elif event == "socket.getaddrinfo" and args[0] not in ("127.0.0.1", "localhost", "::1"):
        seen.append([event, str(args[0])])
sys.addaudithook(hook)
sys.path.insert(0, sys.argv[1])
import litellm
from tests._recording import stub_server
from tests.debug.test_litellm_logger import claude_reply, chat_reply
with stub_server() as stub:
    stub.serve([chat_reply(1), claude_reply(2, 0, 1800)])
    messages = [{"role": "user", "content": "hi"}]
    litellm.completion(model="openai/gpt-4o", api_base=stub.url + "/v1", api_key="sk-test",
                       messages=messages)
    litellm.completion(model="anthropic/claude-sonnet-4-5", api_base=stub.url,
                       api_key="sk-ant-test", messages=messages, max_tokens=8)
print(json.dumps(seen))
"""


def test_litellm_reaches_nothing_but_the_stub() -> None:
    """Imported and called with the switches tests/conftest.py sets, LiteLLM opens no socket
    and resolves no name off loopback (an audit hook watches, in a fresh interpreter)."""
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    env.update(LITELLM_OFFLINE)
    out = subprocess.run(
        [sys.executable, "-c", _AUDIT, str(root)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_a_litellm_usage_without_completion_tokens_reads_output_unknown_not_zero() -> None:
    from promptcache.debug.litellm_logger import litellm_usage

    response = {
        "model": "gpt-5.4",
        "usage": {"prompt_tokens": 900, "prompt_tokens_details": {"cached_tokens": 512}},
    }
    usage = litellm_usage(response, "openai")
    assert usage is not None and (usage.cache_read, usage.output) == (512, None)
    response["usage"]["completion_tokens"] = 0  # type: ignore[index]
    counted = litellm_usage(response, "openai")
    assert counted is not None and counted.output == 0
