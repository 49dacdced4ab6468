"""
How errors show a name they refuse: an API identifier (`tool_use`, `inlineData`, `bedrock`) is
quoted, so the message reads naturally; a word that may be a person's name or a word of a prompt
(one word, capitalised: "Zebulon") is named by type, length and hash, like any other value.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from promptcache import InputError, Prompt
from promptcache._errors import short_hash, shown_keys, shown_name
from promptcache._ingest import prompt_from_request
from promptcache.debug.span_requests import span_request
from promptcache.vendors import detect_vendor, get_vendor

WORD = "Zebulon"  # one word of a prompt or a person's name: an identifier by shape alone


@pytest.mark.parametrize(
    "name", ["bedrock", "tool_use", "inlineData", "gen_ai.system", "gpt-4o", "input_audio", "_x"]
)
def test_an_api_identifier_is_quoted(name: str) -> None:
    assert shown_name(name) == repr(name)
    assert shown_keys({name: 1}) == repr(name)


@pytest.mark.parametrize("word", [WORD, "USER", "Hello", "Assistant"])
def test_a_capitalised_word_is_named_by_type_length_and_hash(word: str) -> None:
    assert shown_name(word) == f"str of {len(word)} chars, sha256 {short_hash(word)}"
    assert shown_keys({word: 1, "model": 2}) == "'model', 1 other"


def _message(request: dict[str, Any], vendor: str | None = None) -> str:
    with pytest.raises(InputError) as caught:
        prompt_from_request(request, vendor)
    return str(caught.value)


@pytest.mark.parametrize(
    ("request_", "vendor", "said"),
    [
        (
            {"model": "claude-x", "max_tokens": 1, "messages": [{"role": WORD, "content": "x"}]},
            "anthropic",
            "role must be 'user' or 'assistant', got str of 7 chars",
        ),
        (
            {"model": "gpt-4o", "messages": [{"role": WORD, "content": "x"}]},
            "openai",
            "got str of 7 chars",
        ),
        (
            {
                "model": "claude-x",
                "max_tokens": 1,
                "messages": [{"role": "user", "content": [{"type": WORD}]}],
            },
            "anthropic",
            "unsupported content block type str of 7 chars",
        ),
        (
            {"model": "gemini-2.5-flash", "contents": [{"role": "user", "parts": [{WORD: "x"}]}]},
            "gemini",
            "unsupported Gemini part with keys 1 other",
        ),
        ({"messages": [{"role": "user", "content": "x"}]}, WORD, "unknown vendor str of 7 chars"),
    ],
    ids=["anthropic-role", "openai-role", "block-type", "gemini-part", "vendor"],
)
def test_a_one_word_name_in_a_request_is_not_quoted(
    request_: dict[str, Any], vendor: str, said: str
) -> None:
    message = _message(request_, vendor)
    assert said in message and WORD not in message, message


def test_detecting_the_vendor_names_a_one_word_key_by_count() -> None:
    with pytest.raises(InputError) as caught:
        detect_vendor({WORD: 1, "model": "m"})
    assert "keys: 'model', 1 other" in str(caught.value) and WORD not in str(caught.value)


def test_a_span_part_of_a_one_word_type_is_not_quoted() -> None:
    part = {"role": "user", "parts": [{"type": WORD}]}
    attributes = {"gen_ai.request.model": "m", "gen_ai.input.messages": json.dumps([part])}
    reason = span_request(attributes, "anthropic").reason
    assert "is a str of 7 chars" in reason and WORD not in reason, reason


def test_a_dumped_prompt_with_a_one_word_part_type_is_not_quoted() -> None:
    data = {"format": "promptcache.prompt/1", "history": [{"role": "user", "content": [{}]}]}
    data["history"][0]["content"][0]["type"] = WORD  # type: ignore[index]
    with pytest.raises(InputError) as caught:
        Prompt.from_json(data)
    assert "unknown content part type str of 7 chars" in str(caught.value)
    assert WORD not in str(caught.value)


def test_the_names_users_type_still_read_naturally() -> None:
    with pytest.raises(InputError, match="unknown vendor 'palm'"):
        get_vendor("palm")
    message = _message(
        {
            "model": "claude-x",
            "max_tokens": 1,
            "messages": [{"role": "user", "content": [{"type": "video"}]}],
        }
    )
    assert "unsupported content block type 'video'" in message


def test_a_path_hides_an_object_key_that_is_a_capitalised_word_quoted_or_not() -> None:
    # `properties.Alice` (an identifier key, written after a dot) and `["Zebulon.Smith"]` read as
    # names by the old rule, which looked only at quoted keys and took any word for a field name.
    from promptcache._errors import private_path, short_hash

    shown = private_path('tools[0].input_schema.properties.Alice.items["Zebulon.Smith"].type')
    assert "Alice" not in shown and "Zebulon" not in shown
    assert shown == (
        f'tools[0].input_schema.properties["#{short_hash("Alice")}#"].items'
        f'["#{short_hash("Zebulon.Smith")}#"].type'
    )
    assert private_path("config.systemInstruction.parts[0].inlineData") == (
        "config.systemInstruction.parts[0].inlineData"
    )
