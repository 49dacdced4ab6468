"""
What the observing path raises and logs carries no prompt text, and no control character: a
request no JSON can carry (a key that is not a str) is an InputError naming the path, never the
value (the key itself may be a name or an e-mail address); excerpts a user opted in to are
escaped in log lines.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

import pytest

from promptcache import (
    CacheUsage,
    CanonicalError,
    InputError,
    Invalidation,
    Monitor,
    Prompt,
    Tool,
    canonical_bytes,
    diff,
)
from promptcache.debug.privacy import short_hash

from . import pairs
from .test_privacy import EMAIL, NAME, PLANTED

_USAGE = {
    "model": "claude-sonnet-4-5",
    "usage": {
        "input_tokens": 10,
        "output_tokens": 1,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
    },
}
_PERSON = (NAME, EMAIL)
_WRITE = CacheUsage(uncached_input=5, cache_read=0, cache_write=2000, output=1)


class _Person:
    def __repr__(self) -> str:
        return f"Person({NAME!r}, {EMAIL!r})"


def _with(extra: dict[Any, Any]) -> dict[str, Any]:
    request = pairs.anthropic()
    request["messages"][0] = {**request["messages"][0], "metadata": extra}
    return request


def _private(message: str) -> None:
    assert [p for p in PLANTED if p.lower() in message.lower()] == []


@pytest.mark.parametrize(
    ("extra", "path", "shows"),
    [
        ({1: "x"}, 'request.messages[0].metadata["1"]', "key 1 is a int"),
        (
            {_PERSON: "x"},
            f'request.messages[0].metadata["#{short_hash(str(_PERSON))}#"]',
            f"tuple of 2 items, sha256 {short_hash(repr(_PERSON))}",
        ),
        (
            {f"{NAME} <{EMAIL}>": {_PERSON: 1}},
            f'request.messages[0].metadata["#{short_hash(f"{NAME} <{EMAIL}>")}#"]',
            "is a tuple",
        ),
        (
            {"owner": _Person()},
            "request.messages[0].metadata.owner",
            f"_Person, sha256 {short_hash(repr(_Person()))} is not JSON-serialisable",
        ),
    ],
)
def test_observe_names_an_unsendable_key_by_path_type_and_hash(
    extra: dict[Any, Any], path: str, shows: str
) -> None:
    monitor = Monitor("anthropic", metrics=False)
    with pytest.raises(InputError) as info:
        monitor.observe(_with(extra), _USAGE)
    message = str(info.value)
    assert message.startswith(path) and shows in message
    _private(message)


def test_diff_names_an_unsendable_key_without_its_text() -> None:
    with pytest.raises(InputError) as info:
        diff(pairs.anthropic(), _with({_PERSON: "x"}))
    assert str(info.value).startswith("request b.messages[0].metadata[")
    _private(str(info.value))


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"x": {"default": {_PERSON: 1}}}},
        {"type": "object", "properties": {"x": {"default": _Person()}}},
        {"type": "object", "properties": {f"{NAME} <{EMAIL}>": {"default": {1.5}}}},
    ],
)
def test_the_builder_and_canonical_bytes_name_no_value_either(schema: dict[str, Any]) -> None:
    # The developer's own data, but it may hold a user's: errors never quote it (the path still
    # names every key that reads as a field name, and `.path` keeps them all for the program).
    with pytest.raises(CanonicalError) as info:
        Prompt().add_tools(Tool(name="lookup", input_schema=schema))
    _private(str(info.value))
    assert str(info.value).startswith("tools[0].input_schema.properties")
    with pytest.raises(CanonicalError) as info:
        canonical_bytes(schema)
    _private(str(info.value))


def test_captured_text_is_escaped_in_log_records(caplog: pytest.LogCaptureFixture) -> None:
    # With capture_content=True the detail quotes what changed (here the edited tool's name: tool
    # definitions may come from an MCP server, i.e. from anyone), and such text may hold a newline
    # (a forged log line) or a terminal escape: the log gets them escaped, the event as they were.
    events: list[Invalidation] = []
    monitor = Monitor(
        "anthropic", metrics=False, capture_content=True, on_invalidation=events.append
    )
    forged = "lookup\nCRITICAL promptcache forged entry \x1b[2J\x1b[31mred\r\x07"
    first = pairs.anthropic()
    first["tools"][0]["name"] = forged
    changed = copy.deepcopy(first)
    changed["tools"][0]["strict"] = True
    miss = CacheUsage(uncached_input=2005, cache_read=0, cache_write=0, output=1)
    with caplog.at_level(logging.WARNING, logger="promptcache"):
        monitor.observe(first, usage=_WRITE, at=0.0, key="k-1")
        monitor.observe(changed, usage=miss, at=1.0, key="k-1")
    [event] = events
    assert forged in event.detail  # the event keeps the text for the program
    logged = [r.getMessage() for r in caplog.records if "prompt cache miss" in r.getMessage()]
    assert len(logged) == 1 and logged[0] == event.message()
    assert logged[0].isprintable()  # no newline, escape, carriage return or bell
    assert "lookup\\nCRITICAL" in logged[0] and "\\x1b[2J" in logged[0]
