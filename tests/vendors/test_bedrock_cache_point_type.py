"""A cachePoint whose `type` is not Bedrock's one value ('default') is refused, not counted."""

from __future__ import annotations

from typing import Any

import pytest

from promptcache.vendors.bedrock_converse import cache_point_problems


def _request(point: Any) -> dict[str, Any]:
    return {
        "modelId": "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "system": [{"text": "You are helpful."}, {"cachePoint": point}],
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
    }


@pytest.mark.parametrize(
    "point", [{"type": "bogus"}, {"type": "ephemeral"}, {}, {"ttl": "5m"}, "default", None]
)
def test_a_cache_point_of_no_type_bedrock_takes_is_a_problem(point: Any) -> None:
    problems = cache_point_problems(_request(point))
    assert any("system[1]" in p and "'default'" in p and "Fix" in p for p in problems), problems


def test_a_default_cache_point_is_no_problem() -> None:
    assert cache_point_problems(_request({"type": "default"})) == []
    assert cache_point_problems(_request({"type": "default", "ttl": "1h"})) == []
