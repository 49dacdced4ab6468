"""A Converse body is never read as Anthropic's: diffed against one, it is refused, not 'model_changed'."""

from __future__ import annotations

from typing import Any

import pytest

from promptcache._errors import InputError
from promptcache.debug.diff import diff
from promptcache.vendors import resolve_vendor

_TEXT = "Policy text. " * 400


def _anthropic() -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "system": [{"type": "text", "text": _TEXT, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "hi"}],
    }


def _converse() -> dict[str, Any]:
    return {
        "modelId": "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "system": [{"text": _TEXT}, {"cachePoint": {"type": "default"}}],
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
    }


def test_diff_of_anthropic_then_converse_names_both_formats() -> None:
    with pytest.raises(InputError, match="Bedrock Converse"):
        diff(_anthropic(), _converse())


def test_converse_body_forced_as_anthropic_says_it_looks_like_converse() -> None:
    with pytest.raises(InputError, match=r"modelId.*looks like AWS Bedrock Converse"):
        resolve_vendor(_converse(), "anthropic")
