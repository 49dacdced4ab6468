"""
aiobotocore clients share botocore's event system but await their replies: the boto3 hooks
would hand an `async for` a blocking stream and read an InvokeModel body without awaiting it.
wrap() refuses such a client with what to do instead, before registering anything. (aiobotocore
itself is not installed: its newest release, 3.10.0, pins botocore < 1.43.118, and the venv's
botocore is 1.44.8; the client here is shaped as aiobotocore makes one: a class built in
`aiobotocore.client`, a bedrock-runtime service model, botocore's `meta.events`.)
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from promptcache import InputError, wrap


def _aiobotocore_client(registered: list[str]) -> Any:
    def register(event: str, handler: Any, unique_id: str | None = None) -> None:
        registered.append(event)

    meta = SimpleNamespace(
        service_model=SimpleNamespace(service_name="bedrock-runtime"),
        events=SimpleNamespace(register=register),
    )
    cls = type("BedrockRuntime", (), {"__module__": "aiobotocore.client", "meta": meta})
    return cls()


def test_an_aiobotocore_client_is_refused_not_half_observed() -> None:
    registered: list[str] = []
    client = _aiobotocore_client(registered)
    with pytest.raises(InputError, match=r"aiobotocore clients .* monitor\.observe"):
        wrap(client, vendor="bedrock")
    assert registered == []  # nothing hooked


def test_without_a_vendor_it_is_not_taken_for_a_known_sdk() -> None:
    with pytest.raises(InputError, match=r"aiobotocore\.client"):
        wrap(_aiobotocore_client([]))


def test_a_botocore_client_shaped_the_same_is_still_hooked() -> None:
    registered: list[str] = []
    client = _aiobotocore_client(registered)
    type(client).__module__ = "botocore.client"
    assert wrap(client, vendor="bedrock") is client
    assert registered == [
        "provide-client-params.bedrock-runtime",
        "after-call.bedrock-runtime",
    ]
