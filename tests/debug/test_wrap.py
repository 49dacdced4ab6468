"""`wrap(client)`: replayed from cassettes of the real SDK clients (see cassettes/README.md)."""

from __future__ import annotations

import importlib.util
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

import promptcache
from promptcache import InputError

from .._recording import GEMINI_ASYNC_TRANSPORTS, gemini_async_transport, google_genai
from . import pairs
from .recorder import CASSETTES, replayer
from .wire import MONITORS
from .wire_paths import PLANTED, SESSIONS

EXPECTED = {
    "anthropic_sync": ["timestamp"],
    "anthropic_stream": ["none"],
    "anthropic_async": ["tool_order"],
    "openai_chat": ["key_order"],
    "openai_parse": ["timestamp", "below_minimum"],
    "openai_responses_async": ["random_id"],
    "gemini_session": ["content_changed"],
    "gemini_chat": ["timestamp"],
    "openai_chat_stream": ["tool_order"],
    "openai_responses_stream": ["whitespace"],
    "openai_stream_abandoned": [],
    "anthropic_paths": ["timestamp"],
    "anthropic_paths_async": ["tool_order"],
    "openai_paths": ["tool_order"],
    "gemini_chat_stream": ["timestamp"],
    "anthropic_shapes": ["timestamp"],
    "openai_shapes": ["timestamp"],
    "anthropic_pydantic_ai": ["timestamp"],
    "openai_pydantic_ai": ["timestamp"],
    "openai_responses_pydantic_ai": ["timestamp"],
}
# default: one observation per recorded request
OBSERVED = {"openai_stream_abandoned": 1, "anthropic_shapes": 3}


def _needs(name: str) -> None:
    if name.endswith("_pydantic_ai"):
        pytest.importorskip("pydantic_ai", reason="pydantic-ai-slim needs Python 3.11+")


def _over_each_transport(names: Any) -> list[Any]:
    """The sessions, the Gemini ones once over each async transport google-genai may use."""
    return [
        pytest.param(name, transport, id=f"{name}-{transport}" if transport != "-" else name)
        for name in sorted(names)
        for transport in (GEMINI_ASYNC_TRANSPORTS if name.startswith("gemini") else ("-",))
    ]


def _replay(
    name: str, transport: str = "httpx"
) -> tuple[list[Any], list[promptcache.Invalidation], Any]:
    _needs(name)
    session, replies = SESSIONS[name]
    with (
        gemini_async_transport(transport if name.startswith("gemini") else "httpx"),
        replayer().use_cassette(f"{name}.yaml", allow_playback_repeats=False) as cassette,
    ):
        results, events = session(None)
        assert cassette.all_played, f"{name}: not every recorded request was made"
        assert len(cassette) == len(replies)
    return results, events, cassette


@pytest.mark.parametrize(("name", "transport"), _over_each_transport(EXPECTED))
def test_every_call_is_observed(name: str, transport: str) -> None:
    _, events, _ = _replay(name, transport)
    assert [e.cause for e in events] == EXPECTED[name]
    expected = OBSERVED.get(name, len(SESSIONS[name][1]))
    assert MONITORS[-1].stats()["observations"] == expected


@pytest.fixture
def observed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[dict[str, Any], Any]]:
    """Every (request, usage) the monitors were handed, in order."""
    calls: list[tuple[dict[str, Any], Any]] = []
    original = promptcache.Monitor.observe

    def spy(self: promptcache.Monitor, request: Any, response: Any = None, **kw: Any) -> Any:
        calls.append((dict(request), kw.get("usage")))
        return original(self, request, response, **kw)

    monkeypatch.setattr(promptcache.Monitor, "observe", spy)
    return calls


def _usages(calls: list[tuple[dict[str, Any], Any]]) -> list[tuple[int, int, int, str | None]]:
    return [(u.uncached_input, u.cache_read, u.output, u.endpoint) for _, u in calls]


def test_structured_output_parse_is_observed_and_returns_the_parsed_value() -> None:
    results, events, _ = _replay("openai_parse")
    assert [type(r).__name__ for r in results] == ["Verdict"] * 4
    assert all(r.answer == "Ok." for r in results)
    timestamp, small = events
    assert (timestamp.path, timestamp.actual_read) == ("messages[0].content", 0)
    assert small.key == "parse"  # responses.parse(), observed under its prompt_cache_key


@pytest.mark.parametrize("transport", GEMINI_ASYNC_TRANSPORTS)
def test_gemini_chat_sessions_are_observed_turn_by_turn(
    transport: str,
    observed: list[tuple[dict[str, Any], Any]],
) -> None:
    results, events, _ = _replay("gemini_chat", transport)
    assert results == ["Ok."] * 4
    # each turn is observed with the whole conversation the session sends
    assert [len(request["contents"]) for request, _ in observed] == [1, 3, 5, 1]
    assert (events[0].path, events[0].cause) == ("config.system_instruction", "timestamp")


def test_anthropic_results_are_the_sdks_own() -> None:
    import anthropic

    results, events, _ = _replay("anthropic_sync")
    assert all(isinstance(r, anthropic.types.Message) for r in results)
    assert results[1].usage.cache_read_input_tokens == 2100
    event = events[0]
    assert (event.path, event.layer, event.expected_read, event.actual_read) == (
        "system[0].text",
        "system",
        2140,
        0,
    )


def test_streams_are_passed_through_unchanged() -> None:
    results, events, _ = _replay("anthropic_stream")
    assert results[0] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert results[2] == "Check /ready."  # messages.stream() helper, final text
    assert events[0].server_side and events[0].expected_read == 2000


def test_async_and_openai_streams() -> None:
    results, events, _ = _replay("anthropic_async")
    assert results[1][0] == "message_start" and results[2] == "Check /ready."
    assert len(events) == 1  # the async stream() helper's turn read what was expected
    results, events, _ = _replay("openai_chat")
    assert results[2] == ["Ok.", None]
    assert events[0].path == "tools[0].function.parameters"


@pytest.mark.parametrize("transport", GEMINI_ASYNC_TRANSPORTS)
def test_gemini_sync_stream_and_aio(transport: str) -> None:
    types = google_genai().types

    results, events, _ = _replay("gemini_session", transport)
    assert isinstance(results[0], types.GenerateContentResponse)
    assert results[1] == ["Ok."] and results[2].text == "Ok." and results[3] == ["Ok."]
    assert events[0].path is not None and events[0].path.startswith("contents[1]")


def test_cassettes_hold_no_credentials() -> None:
    for path in Path(CASSETTES).glob("*.yaml"):
        text = path.read_text()
        assert "FAKE" not in text, path
        for header in ("authorization:", "x-api-key:", "x-goog-api-key:"):
            assert header not in text.lower(), (path, header)


def test_unknown_client_is_refused() -> None:
    with pytest.raises(InputError, match="wrap\\(\\) supports Anthropic, OpenAI and Gemini"):
        promptcache.wrap(object())


def test_monitor_failure_never_reaches_the_caller(caplog: pytest.LogCaptureFixture) -> None:
    class Messages:
        def create(self, **kwargs: Any) -> dict[str, Any]:
            return {"usage": {"input_tokens": "many"}}  # the adapter cannot read this

    class Client:
        messages = Messages()

    client = promptcache.wrap(Client(), vendor="anthropic")
    assert client.messages.create(model="m", messages=[]) == {"usage": {"input_tokens": "many"}}
    assert "could not observe" in caplog.text


def test_vendor_errors_propagate() -> None:
    class Boom(Exception):
        pass

    class Messages:
        def create(self, **kwargs: Any) -> Any:
            raise Boom("429")

    class Client:
        messages = Messages()

    with pytest.raises(Boom):
        promptcache.wrap(Client(), vendor="anthropic").messages.create(model="m", messages=[])


def test_other_attributes_pass_through() -> None:
    import anthropic

    client = anthropic.Anthropic(api_key="sk-ant-test", base_url="http://127.0.0.1:9")
    wrapped = promptcache.wrap(client)
    assert wrapped.api_key == "sk-ant-test"
    assert wrapped.messages.count_tokens == client.messages.count_tokens
    assert wrapped.messages.create.__wrapped__ == client.messages.create


# -- OpenAI's streaming helpers: chat.completions.stream() and responses.stream() -------------


def test_openai_chat_stream_helper(observed: list[tuple[dict[str, Any], Any]]) -> None:
    from openai.lib.streaming.chat import AsyncChatCompletionStream, ChatCompletionStream
    from openai.types.chat import ParsedChatCompletion

    results, events, _ = _replay("openai_chat_stream")
    (one, kinds, final), (two, _, final_two), (three, akinds, final_three) = results
    assert type(one) is ChatCompletionStream and type(two) is ChatCompletionStream
    assert type(three) is AsyncChatCompletionStream
    assert kinds == akinds == ["chunk", "content.delta", "content.done", "chunk"]
    assert all(isinstance(f, ParsedChatCompletion) for f in (final, final_two, final_three))
    assert final.choices[0].message.content == "Ok." and final_two.usage is not None
    assert final_two.usage.prompt_tokens_details.cached_tokens == 2176
    # once per stream, the final usage chunk's figures, whichever way the stream was read
    assert _usages(observed) == [
        (2200, 0, 2, "chat.completions.stream"),
        (2230 - 2176, 2176, 2, "chat.completions.stream"),
        (2260, 0, 2, "chat.completions.stream"),
    ]
    assert [len(request["messages"]) for request, _ in observed] == [6, 8, 10]
    assert (events[0].path, events[0].expected_read, events[0].actual_read) == ("tools[0]", 2230, 0)


def test_openai_responses_stream_helper(observed: list[tuple[dict[str, Any], Any]]) -> None:
    from openai.lib.streaming.responses import AsyncResponseStream, ResponseStream
    from openai.types.responses import ParsedResponse

    results, events, _ = _replay("openai_responses_stream")
    (one, kinds, final), (two, _, final_two), (three, akinds, final_three) = results
    assert type(one) is ResponseStream and type(two) is ResponseStream
    assert type(three) is AsyncResponseStream
    assert kinds == akinds and kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert all(isinstance(f, ParsedResponse) for f in (final, final_two, final_three))
    assert final.output_text == "Ok." and final_two.usage is not None
    assert final_two.usage.input_tokens_details.cached_tokens == 2048
    assert _usages(observed) == [
        (2100, 0, 2, "responses.stream"),
        (2140 - 2048, 2048, 2, "responses.stream"),
        (2170, 0, 2, "responses.stream"),
    ]
    assert events[0].path == "instructions" and events[0].expected_read == 2140


def test_abandoned_helper_streams_observe_nothing_and_never_raise(
    observed: list[tuple[dict[str, Any], Any]], caplog: pytest.LogCaptureFixture
) -> None:
    from openai.lib.streaming.chat import ChatCompletionStream
    from openai.lib.streaming.responses import AsyncResponseStream

    with caplog.at_level(logging.INFO, logger="promptcache.wrap"):
        results, events, _ = _replay("openai_stream_abandoned")
    left_chat, left_responses, no_usage, complete = results
    assert type(left_chat[0]) is ChatCompletionStream and left_chat[1] == "chunk"
    assert type(left_responses[0]) is AsyncResponseStream
    assert left_responses[1] == "response.created"
    assert no_usage[1] == ["chunk", "content.delta", "content.done"]
    assert complete[1].usage.prompt_tokens == 2260
    # only the stream read to its usage chunk was observed, once
    assert _usages(observed) == [(2260 - 2176, 2176, 2, "chat.completions.stream")]
    assert events == []
    assert caplog.text.count("the stream ended before its usage arrived") == 1  # responses
    assert caplog.text.count("stream carried no usage") == 2  # chat: left early; no include_usage
    assert "Traceback" not in caplog.text and "ERROR" not in caplog.text


def test_a_stream_sent_without_asking_for_usage_is_warned_once_with_the_fix(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="promptcache.wrap"):
        _replay("openai_stream_abandoned")
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    # the stream that never asked for usage is named with the fix; the one the caller left
    # before its usage chunk (it did ask) is the caller's choice, not a setting to fix
    assert [m for m in warned if "streams without usage" in m] == [
        "promptcache: chat.completions.stream streams without usage, so wrap() cannot observe "
        "them; pass stream_options={'include_usage': True}"
    ]


class _FakeManager:
    """A streaming helper's manager whose stream is whatever the test gives."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.exits = 0

    def __enter__(self) -> Any:
        return self.stream

    def __exit__(self, *exc: Any) -> None:
        self.exits += 1

    async def __aenter__(self) -> Any:
        return self.stream

    async def __aexit__(self, *exc: Any) -> None:
        self.exits += 1


def _fake_openai(stream: Any) -> Any:
    class Completions:
        def stream(self, **kwargs: Any) -> _FakeManager:
            self.manager = _FakeManager(stream)
            return self.manager

    class Chat:
        completions = Completions()

    class Responses:
        def stream(self, **kwargs: Any) -> _FakeManager:
            self.manager = _FakeManager(stream)
            return self.manager

    class Client:
        chat = Chat()
        responses = Responses()

    return Client()


def test_helper_stream_internals_that_moved_are_logged_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Moved:
        @property
        def current_completion_snapshot(self) -> Any:
            raise RuntimeError("renamed in a later SDK")

    client = _fake_openai(Moved())
    monitor = promptcache.Monitor("openai", metrics=False)
    wrapped = promptcache.wrap(client, vendor="openai", monitor=monitor)
    with wrapped.chat.completions.stream(model="gpt-5.4", messages=[]) as stream:
        assert type(stream) is Moved
    with wrapped.responses.stream(model="gpt-5.4", input="hi") as stream:  # no `_state` at all
        assert type(stream) is Moved
    assert client.chat.completions.manager.exits == 1 and client.responses.manager.exits == 1
    assert monitor.stats()["observations"] == 0
    assert "could not read the openai stream" in caplog.text


def test_an_anthropic_stream_left_before_its_message_delta_logs_output_unknown(
    tmp_path: Path,
) -> None:
    """Until message_delta, the SDK's snapshot holds message_start's provisional output (1)."""
    usage = {"input_tokens": 12, "cache_read_input_tokens": 4096, "output_tokens": 1}
    left = {"model": "claude-sonnet-4-6", "stop_reason": None, "usage": usage}
    done = {**left, "stop_reason": "end_turn", "usage": {**usage, "output_tokens": 57}}

    streams = [type("Stream", (), {"current_message_snapshot": s})() for s in (left, done)]

    class Messages:
        def stream(self, **kwargs: Any) -> _FakeManager:
            return _FakeManager(streams.pop(0))

    class Client:
        messages = Messages()

    log = tmp_path / "calls.jsonl"
    with promptcache.Recorder(log) as recorder:
        monitor = promptcache.Monitor("anthropic", metrics=False, recorder=recorder)
        wrapped = promptcache.wrap(Client(), vendor="anthropic", monitor=monitor)
        for _ in range(2):
            with wrapped.messages.stream(model="claude-sonnet-4-6", max_tokens=9, messages=[]):
                pass
    first, second = (json.loads(line) for line in log.read_text().splitlines())
    assert first["usage"]["output"] is None and first["usage"]["cache_read"] == 4096
    assert second["response"]["usage"]["output_tokens"] == 57


def test_helper_streams_for_an_engine_and_resumed_responses() -> None:
    import asyncio

    class Done:
        current_completion_snapshot: ClassVar[dict[str, Any]] = {
            "usage": {"prompt_tokens": 1500, "prompt_tokens_details": {"cached_tokens": 1024}}
        }

    client = _fake_openai(Done())
    monitor = promptcache.Monitor("engine", metrics=False)
    wrapped = promptcache.wrap(client, vendor="engine", monitor=monitor)

    async def run() -> None:
        async with wrapped.chat.completions.stream(model="qwen3", messages=[]) as stream:
            assert type(stream) is Done

    asyncio.run(run())
    assert monitor.stats()["observations"] == 1
    # responses.stream(response_id=...) resumes a stored response: nothing sent, nothing wrapped
    manager = wrapped.responses.stream(response_id="resp_1", starting_after=3)
    assert manager is client.responses.manager
    assert wrapped.chat.completions.stream.__wrapped__ == client.chat.completions.stream


# -- every call path of the SDKs (issue 9 item 5) ---------------------------------------------


def test_every_anthropic_path_returns_the_sdks_own_objects(
    observed: list[tuple[dict[str, Any], Any]],
) -> None:
    import anthropic
    from anthropic.types import Message, ParsedMessage

    results, events, _ = _replay("anthropic_paths")
    beta, options, helper, (raw, parsed), (response, streamed), raw_events, verdict = results
    assert type(beta).__name__ == "BetaMessage" and isinstance(options, Message)
    assert helper == "Check /ready."
    assert type(raw) is anthropic.APIResponse and raw.parse() is parsed  # the SDK's cached parse
    assert isinstance(parsed, Message) and isinstance(streamed, Message)
    assert type(response) is not anthropic.APIResponse and isinstance(
        response, anthropic.APIResponse
    )
    assert raw_events[0] == "message_start" and raw_events[-1] == "message_stop"
    assert isinstance(verdict, ParsedMessage) and verdict.parsed_output.answer == "Ok."
    assert [len(request["messages"]) for request, _ in observed] == [5, 7, 9, 11, 13, 15, 17]
    assert (events[0].path, events[0].expected_read, events[0].actual_read) == (
        "system[0].text",
        2200,
        0,
    )


def test_every_openai_path_returns_the_sdks_own_objects(
    observed: list[tuple[dict[str, Any], Any]],
) -> None:
    from openai.types.chat import ChatCompletion
    from openai.types.responses import ParsedResponse, Response

    results, events, _ = _replay("openai_paths")
    options, (raw, parsed), chunks, verdict, one, two, three = results
    assert isinstance(options, ChatCompletion) and raw.parse() is parsed
    assert chunks == ["Ok.", None]
    assert verdict.choices[0].message.parsed.answer == "Ok."
    assert isinstance(one, Response) and two[-1] == "response.completed"
    assert isinstance(three, ParsedResponse) and three.output_parsed.answer == "Ok."
    keys = [request.get("prompt_cache_key") for request, _ in observed]
    assert keys == [None, None, None, "verdict", "responses", "responses", "responses"]
    assert events[0].path == "tools[0]"


@pytest.mark.parametrize("transport", GEMINI_ASYNC_TRANSPORTS)
def test_gemini_streamed_chat_sessions_are_observed(
    transport: str,
    observed: list[tuple[dict[str, Any], Any]],
) -> None:
    results, events, _ = _replay("gemini_chat_stream", transport)
    assert results == [["Ok."], ["Ok."], ["Ok."]]
    assert [len(request["contents"]) for request, _ in observed] == [1, 3, 5]
    assert events[0].path == "config.system_instruction"


@pytest.mark.parametrize("vendor", ["anthropic", "openai", "openai_responses"])
def test_pydantic_ai_agents_on_wrapped_clients_report_the_miss(
    vendor: str, observed: list[tuple[dict[str, Any], Any]]
) -> None:
    """An agent whose instructions gained the clock: the second run's miss is an event."""
    results, events, _ = _replay(f"{vendor}_pydantic_ai")
    assert len(results) == 3 and all(isinstance(r, str) and r for r in results)
    assert len(observed) == 3  # both runs and the streamed third
    (event,) = events
    assert event.cause == "timestamp" and event.actual_read == 0 and event.expected_read > 2000


def test_paths_wrap_cannot_observe_warn_once_each(caplog: pytest.LogCaptureFixture) -> None:
    import anthropic
    import openai

    from .._recording import anthropic_client, gemini_client, openai_client

    claude = anthropic_client(None)
    wrapped = promptcache.wrap(claude)
    with caplog.at_level(logging.WARNING, logger="promptcache.wrap"):
        for _ in range(3):
            assert wrapped.messages.batches.create == claude.messages.batches.create
            assert wrapped.with_options(timeout=3).beta.messages.tool_runner is not None
        gpt = promptcache.wrap(openai_client(None))
        for _ in range(2):
            assert callable(gpt.batches.create) and callable(gpt.completions.create)
        paths = ["messages.batches.create", "beta.messages.tool_runner"]
        paths += ["batches.create", "completions.create"]
        if importlib.util.find_spec("google.genai") is not None:  # Python 3.11+
            gem = promptcache.wrap(gemini_client(None))
            assert callable(gem.aio.live.connect) and callable(gem.aio.live.connect)
            paths.append("aio.live.connect")
    said = [r.getMessage() for r in caplog.records]
    for path in paths:
        assert sum(f"cannot observe {path} (" in m for m in said) == 1, (path, said)
    assert len(said) == len(paths)
    # and the paths it does observe are hooked on copies of the client too
    assert isinstance(wrapped, anthropic.Anthropic)
    assert isinstance(wrapped.with_options(timeout=3), anthropic.Anthropic)
    assert isinstance(gpt.copy(), openai.OpenAI)
    hooked = wrapped.with_options(timeout=3).beta.messages.with_raw_response.create
    assert hooked.__qualname__ == "_hook.<locals>.observed" and hooked.__wrapped__ is not None


def test_wrap_returns_the_clients_type_to_mypy(tmp_path: Path) -> None:
    """`wrap(client)` is the client's own type: a typo in an attribute fails `mypy --strict`."""
    mypy_api = pytest.importorskip("mypy.api")
    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        "from typing_extensions import assert_type\n"
        "import promptcache\n\n"
        "class Messages:\n"
        "    def create(self, *, model: str) -> int:\n"
        "        return 1\n\n"
        "class Client:\n"
        "    messages = Messages()\n\n"
        "client = promptcache.wrap(Client(), vendor='anthropic')\n"
        "assert_type(client, Client)\n"
        "assert_type(client.messages.create(model='m'), int)\n"
        "client.mesages.create(model='m')\n"
        "import anthropic\n"
        "claude = promptcache.wrap(anthropic.Anthropic())\n"
        "assert_type(claude, anthropic.Anthropic)\n"
        "claude.mesages.create(model='claude-sonnet-4-6', max_tokens=1, messages=[])\n"
    )
    out, err, status = mypy_api.run(
        ["--strict", "--no-incremental", "--follow-imports=silent", str(snippet)]
    )
    assert status == 1, out + err
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 2, out
    assert '"Client" has no attribute "mesages"' in errors[0]
    assert '"Anthropic" has no attribute "mesages"' in errors[1]


# -- what the SDKs accept, read as they send it; never a traceback, never prompt text ----------


def _recorded_bodies(cassette: Any) -> list[dict[str, Any]]:
    import json

    return [json.loads(request.body) for request in cassette.requests]


@pytest.mark.parametrize("name", ["anthropic_shapes", "openai_shapes"])
def test_arguments_the_sdk_accepts_are_read_as_it_sends_them(
    name: str, observed: list[tuple[dict[str, Any], Any]], caplog: pytest.LogCaptureFixture
) -> None:
    """deques, generators, dict views, tuples, the SDK's `omit`: the monitor reads exactly the
    body the SDK sent (the cassette holds it); a generator still reaches the SDK whole."""
    with caplog.at_level(logging.DEBUG):
        results, events, cassette = _replay(name)
    bodies = _recorded_bodies(cassette)
    seen = [request for request, _ in observed]
    assert seen == bodies[: len(seen)]
    assert len(bodies[1]["messages"]) > len(bodies[0]["messages"])  # the generator, drained once
    assert all(type(r).__name__ in ("Message", "ChatCompletion") for r in results)
    assert [e.cause for e in events] == ["timestamp"]


def test_unreadable_arguments_are_said_once_with_no_prompt_text(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`tools` as a dict: the SDK sends it as a JSON object, which is not a tools list. Said
    once (path, type, length, hash), not observed, the SDK's result untouched. No promptcache
    log record is an error or carries a traceback."""
    with caplog.at_level(logging.DEBUG):
        results, _, _ = _replay("anthropic_shapes")
    assert [type(r).__name__ for r in results] == ["Message"] * 5
    ours = [r for r in caplog.records if r.name.startswith("promptcache")]
    said = [r.getMessage() for r in ours]
    unreadable = [m for m in said if "cannot read" in m]
    assert len(unreadable) == 1, said
    assert re.search(
        r"cannot read tools of messages\.create \(.*: dict of 3 items, sha256 [0-9a-f]{12}\)",
        unreadable[0],
    )
    assert all(r.exc_info is None and r.levelno < logging.ERROR for r in ours)


@pytest.mark.parametrize(
    "name",
    [
        "anthropic_shapes",
        "openai_shapes",
        "anthropic_pydantic_ai",
        "openai_pydantic_ai",
        "openai_responses_pydantic_ai",
    ],
)
def test_no_log_record_or_event_carries_the_planted_personal_data(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Every prompt in these sessions holds a planted name and e-mail address."""
    import json

    with caplog.at_level(logging.DEBUG):
        _, events, cassette = _replay(name)
    assert all(PLANTED[0] in r.body.decode() for r in cassette.requests)  # they were sent
    ours = [r for r in caplog.records if r.name.startswith("promptcache")]
    assert any(r.name == "promptcache.monitor" for r in ours)  # the miss was logged
    for record in ours:
        assert record.exc_info is None, record.getMessage()
        assert not [p for p in PLANTED if p in record.getMessage()], record.getMessage()
    assert events
    for event in events:
        text = json.dumps(event.to_json()) + event.message()
        assert not [p for p in PLANTED if p in text], text


class _Fake:
    """A client whose `messages.create` returns a fixed Anthropic reply (a dict)."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        fake = self

        class Messages:
            def create(self, **kwargs: Any) -> dict[str, Any]:
                fake.sent.append(kwargs)
                return {"usage": {"input_tokens": 3000, "output_tokens": 5}, "model": "m"}

        self.messages = Messages()


def test_a_value_the_sdk_would_not_send_is_named_not_quoted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Person:
        def __repr__(self) -> str:
            return "Person(Jane Roe, jane.roe@example.com)"

    fake = _Fake()
    monitor = promptcache.Monitor("anthropic", metrics=False)
    client = promptcache.wrap(fake, vendor="anthropic", monitor=monitor)
    with caplog.at_level(logging.DEBUG):
        for _ in range(3):
            reply = client.messages.create(
                model="m", max_tokens=5, messages=[{"role": "user", "content": Person()}]
            )
            assert reply["model"] == "m"
    assert monitor.stats()["observations"] == 0
    (record,) = [r for r in caplog.records if r.name.startswith("promptcache")]
    message = record.getMessage()
    assert "messages[0].content" in message and "Person" in message and "sha256" in message
    assert "Jane" not in message and "jane.roe" not in message and record.exc_info is None


def test_a_generator_reaches_the_sdk_whole_and_is_observed() -> None:
    fake = _Fake()
    monitor = promptcache.Monitor("anthropic", metrics=False)
    client = promptcache.wrap(fake, vendor="anthropic", monitor=monitor)
    turns = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    client.messages.create(model="m", max_tokens=5, messages=(t for t in turns))
    assert fake.sent[0]["messages"] == turns
    assert monitor.stats()["observations"] == 1


def test_a_key_function_that_raises_is_said_once_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def key(request: Any) -> str:
        raise KeyError("jane.roe@example.com")

    client = promptcache.wrap(_Fake(), vendor="anthropic", key=key)
    with caplog.at_level(logging.DEBUG):
        for _ in range(2):
            client.messages.create(model="m", max_tokens=5, messages=[])
    (record,) = [r for r in caplog.records if r.name.startswith("promptcache")]
    assert "could not observe" in record.getMessage() and "KeyError" in record.getMessage()
    assert "jane.roe" not in record.getMessage() and record.exc_info is None


@pytest.mark.parametrize(("name", "transport"), _over_each_transport(SESSIONS))
def test_wrapping_changes_nothing_the_sdk_sends(
    name: str, transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every session replays with the bare SDK clients too: the recorded bodies (made through
    wrap(), generators and deques included) are exactly what the SDKs send unwrapped."""
    monkeypatch.setattr(promptcache, "wrap", lambda client, **kw: client)
    _replay(name, transport)


def test_a_streamed_response_read_as_bytes_is_said_once(caplog: pytest.LogCaptureFixture) -> None:
    """`with_streaming_response` read through iter_lines(), never parse(): nothing to observe,
    and wrap() says so once instead of staying silent."""

    class Response:
        def parse(self) -> dict[str, Any]:
            return {"usage": {"input_tokens": 3000, "output_tokens": 5}, "model": "m"}

        def iter_lines(self) -> Iterator[str]:
            yield '{"usage": {}}'

    class Manager:
        def __enter__(self) -> Response:
            return Response()

        def __exit__(self, *exc: Any) -> None:
            return None

    class Streaming:
        def create(self, **kwargs: Any) -> Manager:
            return Manager()

    class Messages:
        with_streaming_response = Streaming()

    class Client:
        messages = Messages()

    monitor = promptcache.Monitor("anthropic", metrics=False)
    client = promptcache.wrap(Client(), vendor="anthropic", monitor=monitor)
    with caplog.at_level(logging.DEBUG):
        for _ in range(2):
            with client.messages.with_streaming_response.create(model="m", messages=[]) as r:
                assert isinstance(r, Response) and list(r.iter_lines()) == ['{"usage": {}}']
        with client.messages.with_streaming_response.create(model="m", messages=[]) as r:
            assert r.parse()["model"] == "m"
    assert monitor.stats()["observations"] == 1
    said = [r.getMessage() for r in caplog.records if r.name == "promptcache.wrap"]
    assert said == [
        "promptcache: messages.create (with_streaming_response) was read without parse(); "
        "such calls are not observed"
    ]


def test_a_method_the_table_does_not_know_is_said_once_when_it_sends_a_prompt(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A newer SDK's method beside the hooked ones, called with a prompt: one warning."""

    class Messages:
        def create(self, **kwargs: Any) -> dict[str, Any]:
            return {"usage": {"input_tokens": 3000, "output_tokens": 5}, "model": "m"}

        def create_later(self, **kwargs: Any) -> str:
            return "queued"

        def count_tokens(self, **kwargs: Any) -> int:
            return 7

        def retrieve(self, message_id: str) -> str:
            return message_id

    class Client:
        messages = Messages()

    client = promptcache.wrap(Client(), vendor="anthropic")
    with caplog.at_level(logging.DEBUG):
        for _ in range(3):
            assert client.messages.create_later(model="m", messages=[]) == "queued"
            assert client.messages.count_tokens(model="m", messages=[]) == 7
            assert client.messages.retrieve("msg_1") == "msg_1"
    said = [r.getMessage() for r in caplog.records if r.name == "promptcache.wrap"]
    assert said == [
        "promptcache: wrap() cannot observe messages.create_later (a method this promptcache "
        "does not know); calls through it are not checked"
    ]


def test_gemini_arguments_the_sdk_accepts_are_read(
    caplog: pytest.LogCaptureFixture, observed: list[tuple[dict[str, Any], Any]]
) -> None:
    """One `Content` where a list goes, inline bytes, a Python function as a tool, per-call
    `http_options`: google-genai sends all of these; wrap() reads them and says nothing."""
    types = google_genai().types

    def get_status(service: str) -> str:
        """Current status of a service."""
        return "up"

    seen: list[dict[str, Any]] = []

    class Models:
        def generate_content(self, **kwargs: Any) -> dict[str, Any]:
            seen.append(kwargs)
            usage = {"promptTokenCount": 3000, "candidatesTokenCount": 3}
            return {"usageMetadata": usage, "modelVersion": "gemini-2.5-flash"}

    class Client:
        models = Models()

    monitor = promptcache.Monitor("gemini", metrics=False)
    client = promptcache.wrap(Client(), vendor="gemini", monitor=monitor)
    image = types.Part.from_bytes(data=b"\x89PNG", mime_type="image/png")
    config = types.GenerateContentConfig(
        system_instruction=pairs.GUIDE,
        tools=[get_status],
        http_options=types.HttpOptions(timeout=3000),
    )
    content = types.Content(role="user", parts=[types.Part(text="Is it up?"), image])
    with caplog.at_level(logging.DEBUG):
        client.models.generate_content(model="gemini-2.5-flash", contents=content, config=config)
    assert seen[0]["contents"] is content and seen[0]["config"] is config  # the caller's own
    assert not [r for r in caplog.records if r.name.startswith("promptcache")]
    ((request, _),) = observed
    assert request["contents"][0]["parts"][1]["inline_data"]["data"] == "iVBORw=="
    declaration = request["config"]["tools"][0]["function_declarations"][0]
    assert declaration["name"] == "get_status" and "http_options" not in request["config"]
    plain = {"system_instruction": pairs.GUIDE, "http_options": {"timeout": 3000}}
    client.models.generate_content(model="gemini-2.5-flash", contents="Up?", config=plain)
    assert observed[1][0]["config"] == {"system_instruction": pairs.GUIDE}
    assert seen[1]["config"] is plain


def test_a_callers_iterator_that_raises_raises_as_in_the_sdk() -> None:
    """The caller's own error, from the caller's generator, is the caller's: it propagates as
    it would from the SDK, and the SDK is never handed a half-drained generator."""
    fake = _Fake()

    def turns() -> Iterator[dict[str, Any]]:
        yield {"role": "user", "content": "hi"}
        raise LookupError("the history store is down")

    client = promptcache.wrap(fake, vendor="anthropic")
    with pytest.raises(LookupError, match="history store"):
        client.messages.create(model="m", max_tokens=5, messages=turns())
    assert fake.sent == []


@pytest.mark.parametrize("name", ["anthropic_sync", "anthropic_stream", "anthropic_paths_async"])
def test_every_call_is_observed_with_the_time_it_was_sent(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fleet orders a key's requests by when they were sent, so wrap() says when."""
    import time

    seen: list[tuple[Any, float]] = []
    original = promptcache.Monitor.observe

    def spy(self: promptcache.Monitor, request: Any, response: Any = None, **kw: Any) -> Any:
        seen.append((kw.get("sent_at"), time.time()))
        return original(self, request, response, **kw)

    monkeypatch.setattr(promptcache.Monitor, "observe", spy)
    started = time.time()
    _replay(name)
    assert seen and all(isinstance(sent, float) for sent, _ in seen)
    assert all(started <= sent <= done for sent, done in seen)
