"""
Private by default: a planted name and e-mail address in the prompt and in the cache key appear in
no log record, span, metric, event message or exception raised from the observing path.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

import pytest

from promptcache import CacheUsage, InputError, Invalidation, Monitor
from promptcache.debug.privacy import describe, export_key, looks_opaque, short_hash

from . import pairs
from .spans import memory_tracer

NAME = "Zebulon Quackenbush"
EMAIL = "zebulon.quackenbush@example.org"
PLANTED = (NAME, EMAIL, "Quackenbush", "zebulon.quackenbush")
_WRITE = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)


def _leaks(text: str) -> list[str]:
    return [p for p in PLANTED if p.lower() in text.lower()]


def _request(system_prefix: str) -> dict[str, Any]:
    request = pairs.anthropic(system=f"{system_prefix}Customer {NAME} <{EMAIL}>. " + pairs.GUIDE)
    request["metadata"] = {"user_id": EMAIL}
    request["messages"][0]["content"] = f"Hi, I am {NAME}, write to {EMAIL}."
    return request


def test_no_planted_text_in_logs_spans_metrics_or_messages(
    caplog: pytest.LogCaptureFixture,
) -> None:
    prometheus_client = pytest.importorskip("prometheus_client")
    registry = prometheus_client.CollectorRegistry()
    tracer, exporter = memory_tracer()
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, prometheus_registry=registry)
    caplog.set_level(logging.DEBUG)
    first, changed = _request(""), _request("Now: 2026-11-29T20:41:07Z. ")
    read = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)
    with tracer.start_as_current_span("turn-1"):
        monitor.observe(first, usage=_WRITE, at=0.0)
    with tracer.start_as_current_span("turn-2"):
        monitor.observe(changed, usage=read, at=10.0)
    assert [e.cause for e in events] == ["timestamp"]
    event = events[0]
    outputs = [
        caplog.text,
        event.message(),
        event.detail,
        str(event.before),
        str(event.after),
        prometheus_client.generate_latest(registry).decode(),
    ]
    for span in exporter.get_finished_spans():
        outputs.append(repr(dict(span.attributes or {})))
        outputs += [repr(dict(e.attributes or {})) for e in span.events]
    assert "system[0]" in event.message()  # the path is named
    assert export_key(EMAIL) in event.message()
    for text in outputs:
        assert _leaks(text) == [], text


def test_capture_content_opts_in_to_the_excerpts() -> None:
    events: list[Invalidation] = []
    monitor = Monitor(
        "anthropic", on_invalidation=events.append, metrics=False, capture_content=True
    )
    monitor.observe(_request(""), usage=_WRITE, at=0.0)
    monitor.observe(_request("Now: 2026-11-29T20:41:07Z. "), usage=_WRITE, at=10.0)
    assert events[0].after is not None and "2026-11-29" in events[0].after


@pytest.mark.parametrize(
    "bad",
    [
        lambda r: {**r, "messages": f"{NAME} {EMAIL}"},
        lambda r: {**r, "system": {f"{NAME}": EMAIL}},
        lambda r: {**r, "messages": [{"role": NAME, "content": EMAIL}]},
        lambda r: {**r, "model": 7, "messages": [[EMAIL]]},
    ],
)
def test_odd_requests_after_a_good_one_leak_nothing(
    bad: Any, caplog: pytest.LogCaptureFixture
) -> None:
    monitor = Monitor("anthropic", metrics=False)
    caplog.set_level(logging.DEBUG)
    monitor.observe(_request(""), usage=_WRITE, at=0.0, key="k1")
    miss = CacheUsage(uncached_input=2005, cache_read=0, cache_write=0, output=1)
    try:
        event = monitor.observe(bad(copy.deepcopy(_request(""))), usage=miss, at=1.0, key="k1")
    except InputError as exc:
        shown = str(exc)
    else:
        assert event is not None
        shown = f"{event.message()} {event.before} {event.after}"
    assert _leaks(shown) == [] and _leaks(caplog.text) == [], shown


def test_a_bad_time_is_named_by_type_not_quoted() -> None:
    monitor = Monitor("anthropic", metrics=False)
    with pytest.raises(InputError) as raised:
        monitor.observe(_request(""), usage=_WRITE, at=EMAIL)  # type: ignore[arg-type]
    assert _leaks(str(raised.value)) == [] and "str of" in str(raised.value)


@pytest.mark.parametrize(
    ("key", "opaque"),
    [
        ("session-42", True),
        ("tenant_7", True),
        ("550e8400-e29b-41d4-a716-446655440000", True),
        ("sess_8f3kQ2ab", True),
        ("anthropic:claude-sonnet-4-6", True),
        (EMAIL, False),
        (NAME, False),
        ("zebulon", False),
        ("+49 151 1234567", False),
        ("4915112345678", False),
        ("user_zebulon", False),
        ("zebulon1985", False),
    ],
)
def test_keys_that_may_be_personal_are_hashed(key: str, opaque: bool) -> None:
    assert looks_opaque(key) is opaque
    shown = export_key(key)
    assert (shown == key) is opaque
    if not opaque:
        assert shown.startswith("key:") and len(shown) == 16


def test_describe_names_type_length_and_hash() -> None:
    text = describe(EMAIL)
    assert text.startswith(f"str of {len(EMAIL)} chars, sha256 ") and _leaks(text) == []


@pytest.mark.parametrize(
    "usage",
    [
        {"input_tokens": EMAIL, "output_tokens": 1},
        {"input_tokens": 1, "output_tokens": [NAME]},
        {
            "input_tokens": 1,
            "output_tokens": 1,
            "cache_creation": {"ephemeral_5m_input_tokens": NAME},
        },
    ],
)
def test_a_usage_field_holding_text_is_refused_without_quoting_it(usage: dict[str, Any]) -> None:
    monitor = Monitor("anthropic", metrics=False)
    with pytest.raises(InputError) as raised:
        monitor.observe(_request(""), {"model": "claude-sonnet-4-6", "usage": usage})
    assert "should be an integer" in str(raised.value) and _leaks(str(raised.value)) == []


def test_every_message_names_a_value_by_the_hash_the_recorder_writes() -> None:
    from promptcache import _errors
    from promptcache.debug.recorder import redact

    placeholder = redact({"text": EMAIL})["text"]
    for text in (_errors.describe(EMAIL), describe(EMAIL), _errors.shown(EMAIL)):
        assert text == f"str of {len(EMAIL)} chars, sha256 {placeholder[1:13]}"


def test_an_object_key_holding_text_is_hashed_in_the_path_it_names(
    caplog: pytest.LogCaptureFixture,
) -> None:
    events: list[Invalidation] = []
    monitor = Monitor("anthropic", metrics=False, on_invalidation=events.append)
    caplog.set_level(logging.DEBUG)
    first = _request("")
    changed = copy.deepcopy(first)
    changed["tools"][0]["input_schema"]["properties"][f"{NAME} <{EMAIL}>"] = {"type": "string"}
    monitor.observe(first, usage=_WRITE, at=0.0, key="k-1")
    miss = CacheUsage(uncached_input=2005, cache_read=0, cache_write=0, output=1)
    monitor.observe(changed, usage=miss, at=1.0, key="k-1")
    (event,) = events
    assert event.path is not None and event.path.startswith("tools[0].input_schema.properties[")
    for text in (event.path, event.detail, event.message(), caplog.text):
        assert _leaks(text) == [], text
    assert short_hash(f"{NAME} <{EMAIL}>") in event.path
    plain = Monitor("anthropic", metrics=False, capture_content=True)
    plain.observe(first, usage=_WRITE, at=0.0, key="k-1")
    opted = plain.observe(changed, usage=miss, at=1.0, key="k-1")
    assert opted is not None and NAME in (opted.path or "")  # asked for: as it was


def _quoting(*args: Any, **kwargs: Any) -> Any:
    """A failure whose message quotes the prompt, as a library's exception may."""
    raise ValueError(f"could not read the request of {NAME} <{EMAIL}>")


def test_a_failure_in_the_background_is_named_by_type_not_quoted(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monitor = Monitor("anthropic", metrics=False, background=True)
    monkeypatch.setattr(monitor, "_judge", _quoting)
    caplog.set_level(logging.DEBUG)
    monitor.observe(_request(""), usage=_WRITE, at=0.0, key="k-1")
    assert monitor.flush(5.0)
    monitor.close()
    assert "could not be judged in the background (ValueError)" in caplog.text
    assert _leaks(caplog.text) == [], caplog.text


def test_a_recorder_failure_is_named_by_type_not_quoted(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    from promptcache.debug.recorder import Recorder

    recorder = Recorder(tmp_path / "calls.jsonl", background=False, metrics=False)
    monkeypatch.setattr(recorder, "line", _quoting)
    caplog.set_level(logging.DEBUG)
    recorder.record(_request(""), _WRITE, key=EMAIL, at=0.0)
    recorder.close()
    assert recorder.dropped == 1 and "could not write to" in caplog.text
    assert "(ValueError)" in caplog.text and _leaks(caplog.text) == [], caplog.text


@pytest.mark.parametrize(
    "setting",
    [{"cache_salt": f"salt-of-{EMAIL}"}, {"chat_template_kwargs": {"user_name": NAME}}],
)
def test_a_changed_setting_keeps_its_value_off_the_event(setting: dict[str, Any]) -> None:
    # A setting's value is request data (a vLLM cache_salt is a per-tenant secret, template
    # kwargs may carry a name): off the event unless the monitor was asked for content.
    first = pairs.engine()
    changed = {**copy.deepcopy(first), **setting}
    miss = CacheUsage(uncached_input=2005, cache_read=0, cache_write=0, output=1)
    for capture in (False, True):
        monitor = Monitor("vllm", metrics=False, capture_content=capture)
        monitor.observe(first, usage=_WRITE, at=0.0, key="session-1")
        event = monitor.observe(changed, usage=miss, at=1.0, key="session-1")
        assert event is not None and event.cause in ("cache_salt_changed", "thinking_changed")
        if capture:  # asked for: as it was
            assert _leaks(str(event.after)) != [], event
        else:
            assert (event.before, event.after) == (None, None), event
            assert _leaks(event.message()) == [], event.message()
            # nor where the two values part: how much of a secret salt they share
            assert event.offset is None and " byte " not in event.message(), event
