"""
The cassettes' request matching is byte-exact: a provider's prompt cache is keyed on the bytes of
the prefix, so a body with the same JSON in another key order or other whitespace is a different
request and must not replay. vcrpy's own "body" matcher parses JSON first and would let it pass.
"""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
import vcr.errors
from vcr.request import Request

from ._recording import (
    MATCH_ON,
    Reply,
    exact_body,
    first_difference,
    recorder,
    replayer,
    stub_server,
    wire_bytes,
)
from .adapters import recorder as wire_recorder
from .debug import recorder as wrap_recorder

HOST = "https://api.example.test"
URL = f"{HOST}/v1/messages"
BODY = {"model": "m", "tools": [{"input_schema": {"type": "object", "properties": {}}}]}
SENT = json.dumps(BODY, separators=(",", ":")).encode()
REORDERED = b'{"model":"m","tools":[{"input_schema":{"properties":{},"type":"object"}}]}'
SPACED = json.dumps(BODY).encode()


def _request(body: Any, method: str = "POST") -> Request:
    return Request(method, URL, body, {"content-type": "application/json"})


def test_same_json_in_another_key_order_or_spacing_does_not_match() -> None:
    assert json.loads(REORDERED) == json.loads(SENT) == json.loads(SPACED)
    for other in (REORDERED, SPACED):
        with pytest.raises(AssertionError, match="bodies differ from byte"):
            exact_body(_request(other), _request(SENT))
    exact_body(_request(SENT), _request(SENT))


def test_only_transport_noise_is_normalised() -> None:
    """str or bytes, a file or an iterator of chunks, no body or an empty one: the same bytes."""
    made = (
        lambda: SENT.decode(),
        lambda: io.BytesIO(SENT),
        lambda: iter([SENT[:7], SENT[7:].decode()]),
    )
    for same in made:
        assert wire_bytes(_request(same())) == SENT
        exact_body(_request(same()), _request(SENT))
    exact_body(_request(None, "GET"), _request(b"", "GET"))
    with pytest.raises(AssertionError):
        exact_body(_request(SENT + b" "), _request(SENT))
    with pytest.raises(AssertionError):
        exact_body(_request(SENT.upper()), _request(SENT))


def test_a_mismatch_says_where_the_bodies_first_differ() -> None:
    offset = SENT.index(b'"type"') + 1  # both sides have the opening quote
    assert first_difference(REORDERED, SENT) == offset
    assert first_difference(SENT, SENT) is None
    assert first_difference(SENT + b"x", SENT) == len(SENT)
    with pytest.raises(AssertionError) as caught:
        exact_body(_request(REORDERED), _request(SENT))
    message = str(caught.value)
    assert f"differ from byte {offset} (lengths {len(REORDERED)} and {len(SENT)})" in message
    assert "this request: " in message and "recorded: " in message
    assert '"input_schema":{"properties' in message  # the sent side, around the offset
    assert '"input_schema":{"type' in message  # the recorded side


def test_every_cassette_replayer_and_recorder_matches_bytes_exactly(tmp_path: Path) -> None:
    assert "body" not in MATCH_ON and "exact_body" in MATCH_ON
    library = wire_recorder.replayer(), wrap_recorder.replayer(), replayer(tmp_path)
    for cassettes in (*library, recorder(tmp_path, "http://127.0.0.1:1", HOST)):
        assert cassettes.match_on == MATCH_ON
        assert cassettes.matchers["exact_body"] is exact_body


def _post_httpx(body: bytes) -> bytes:
    with httpx2.Client() as client:
        response = client.post(URL, content=body, headers={"content-type": "application/json"})
        return bytes(response.content)


def _post_aiohttp(body: bytes) -> bytes:
    aiohttp = pytest.importorskip("aiohttp", reason="aiohttp is not installed")

    async def post() -> bytes:
        # lower case, as google-genai hands it to aiohttp (tests/_recording.wire_method)
        async with (
            aiohttp.ClientSession() as session,
            session.request(
                "post", URL, data=body, headers={"content-type": "application/json"}
            ) as response,
        ):
            return bytes(await response.read())

    return asyncio.run(post())


@pytest.mark.parametrize("post", [_post_httpx, _post_aiohttp], ids=["httpx", "aiohttp"])
def test_a_recorded_cassette_replays_only_the_same_bytes(tmp_path: Path, post: Any) -> None:
    """Recorded against a 127.0.0.1 stub, then replayed over each transport the SDKs use."""
    with stub_server() as stub:
        stub.serve([Reply(body={"ok": True})])
        with (
            recorder(tmp_path, stub.url, HOST).use_cassette("c.yaml"),
            httpx2.Client() as client,
        ):
            client.post(
                f"{stub.url}/v1/messages",
                content=SENT,
                headers={"content-type": "application/json"},
            )
        assert stub.bodies == [SENT]
    for other in (REORDERED, SPACED):
        with (
            replayer(tmp_path).use_cassette("c.yaml"),
            pytest.raises(vcr.errors.CannotOverwriteExistingCassetteException) as caught,
        ):
            post(other)
        assert "bodies differ from byte" in str(caught.value)
    with replayer(tmp_path).use_cassette("c.yaml") as cassette:
        assert json.loads(post(SENT)) == {"ok": True}
        assert cassette.all_played
