"""`wrap(client)`: replayed from cassettes of the real SDK clients (see cassettes/README.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import promptcache
from promptcache import InputError

from .recorder import CASSETTES, replayer
from .wire import MONITORS, SESSIONS

EXPECTED = {
    "anthropic_sync": ["timestamp"],
    "anthropic_stream": ["none"],
    "anthropic_async": ["tool_order"],
    "openai_chat": ["key_order"],
    "openai_responses_async": ["random_id"],
    "gemini_session": ["content_changed"],
}


def _replay(name: str) -> tuple[list[Any], list[promptcache.Invalidation], Any]:
    session, replies = SESSIONS[name]
    with replayer().use_cassette(f"{name}.yaml", allow_playback_repeats=False) as cassette:
        results, events = session(None)
        assert cassette.all_played, f"{name}: not every recorded request was made"
        assert len(cassette) == len(replies)
    return results, events, cassette


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_call_is_observed(name: str) -> None:
    _, events, _ = _replay(name)
    assert [e.cause for e in events] == EXPECTED[name]
    assert MONITORS[-1].stats()["observations"] == len(SESSIONS[name][1])


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


def test_gemini_sync_stream_and_aio() -> None:
    from google.genai import types

    results, events, _ = _replay("gemini_session")
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
