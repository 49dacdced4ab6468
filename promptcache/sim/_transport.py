"""
Plug an emulator into any `httpx2` client, and so into the real Anthropic, OpenAI and google-genai
SDKs (all three send their HTTP through `httpx2`): requests are answered in process, nothing
reaches the network.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from ._base import Emulator

__all__ = ["EmulatorTransport", "http_client", "transport"]

HEADER = "x-promptcache-emulation"


def _httpx2() -> Any:
    from ..adapters._base import import_sdk

    # httpx2 comes with every vendor SDK; on its own it is the `anthropic` extra's dependency.
    return import_sdk(
        "httpx2", package="httpx2", extra="anthropic", purpose="the emulators' HTTP transport"
    )


def _answer(emulator: Emulator, request: Any) -> Any:
    httpx2 = _httpx2()
    raw = request.read()
    try:
        body = orjson.loads(raw) if raw else None
    except orjson.JSONDecodeError:
        body = raw  # the emulator answers 400 to a body that is not a JSON object
    status, payload = emulator.handle(request.method, request.url.raw_path.decode(), body)
    return httpx2.Response(
        status,
        content=orjson.dumps(payload),
        headers={"content-type": "application/json", HEADER: f"{emulator.vendor} (emulated)"},
        request=request,
    )


class EmulatorTransport:
    """An `httpx2` transport, sync and async, answering from an emulator."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator

    def handle_request(self, request: Any) -> Any:
        return _answer(self.emulator, request)

    async def handle_async_request(self, request: Any) -> Any:
        await request.aread()
        return _answer(self.emulator, request)

    def close(self) -> None:
        pass

    async def aclose(self) -> None:
        pass


def transport(emulator: Emulator, *, is_async: bool = False) -> Any:
    return _transport_class(_httpx2(), is_async)(emulator)


def http_client(emulator: Emulator, *, is_async: bool = False) -> Any:
    httpx2 = _httpx2()
    made = transport(emulator, is_async=is_async)
    return (httpx2.AsyncClient if is_async else httpx2.Client)(transport=made)


def _transport_class(httpx2: Any, is_async: bool) -> Any:
    base = httpx2.AsyncBaseTransport if is_async else httpx2.BaseTransport
    return type("EmulatorTransport", (EmulatorTransport, base), {})
