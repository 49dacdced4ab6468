"""The frame every emulator shares: routing a request to a handler, vendor-shaped errors, labels."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from ._clocks import answering
from ._core import Clock, system_clock

if TYPE_CHECKING:
    from ._http import EmulatorServer

__all__ = ["Emulator", "Rejected", "Reply", "Responder", "chat_completion"]

# Builds the reply's content from the request body (the emulator itself generates nothing).
Responder = Callable[[Mapping[str, Any]], Any]


class Reply(NamedTuple):
    """An HTTP answer: status and JSON body."""

    status: int
    body: dict[str, Any]


class Rejected(Exception):
    """A request the vendor's server would refuse; becomes a vendor-shaped 4xx answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def chat_completion(
    number: int, created: float, model: str, text: str, usage: dict[str, Any]
) -> dict[str, Any]:
    """An OpenAI-shaped chat completion (OpenAI itself and the OpenAI-compatible engines)."""
    return {
        "id": f"chatcmpl-emulated-{number:06d}",
        "object": "chat.completion",
        "created": int(created),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": usage,
    }


class Emulator:
    """
    An in-process EMULATION of one vendor's prompt cache: requests in (the JSON the SDK sends),
    vendor-shaped responses out, usage computed from what earlier requests left in the cache.

    `clock` is any zero-argument callable returning seconds (a `ManualClock` in tests). Plug it
    into the real SDK with `client()`, or into any `httpx2` client with `transport()`.
    """

    vendor: ClassVar[str] = ""
    # module, pip name, extra, client class (its async twin is "Async" + class)
    sdk_client: ClassVar[tuple[str, str, str, str]] = ("", "", "", "")

    def __init__(self, *, clock: Clock | None = None, responder: Responder | None = None) -> None:
        self.clock: Clock = clock or system_clock
        self.responder = responder
        self.requests = 0

    # -- the one entry point ------------------------------------------------------------------

    def handle(self, method: str, path: str, body: Any) -> Reply:
        """Answer one HTTP request (`path` without the host, `body` parsed JSON or None)."""
        self.requests += 1
        try:
            payload = self.route(method.upper(), path.split("?", 1)[0], body)
        except Rejected as refused:
            return Reply(refused.status, self.error_body(refused))
        answering(self.clock, payload)  # so a monitor on another clock can tell (sim/_clocks.py)
        return Reply(200, payload)

    def route(self, method: str, path: str, body: Any) -> dict[str, Any]:
        raise NotImplementedError

    def error_body(self, refused: Rejected) -> dict[str, Any]:
        raise NotImplementedError

    # -- plugging into clients -----------------------------------------------------------------

    def transport(self, *, is_async: bool = False) -> Any:
        """An `httpx2` transport (`AsyncBaseTransport` with `is_async`) answering from here."""
        from ._transport import transport

        return transport(self, is_async=is_async)

    def http_client(self, *, is_async: bool = False) -> Any:
        """An `httpx2.Client` (or `AsyncClient`) that never leaves the process."""
        from ._transport import http_client

        return http_client(self, is_async=is_async)

    def http_server(self) -> EmulatorServer:
        """This emulator over HTTP on 127.0.0.1 (`.url`), for clients with their own HTTP stack."""
        from ._http import EmulatorServer

        return EmulatorServer(self)

    def client(self, *, is_async: bool = False, **kwargs: Any) -> Any:
        """The vendor's real SDK client, talking to this emulator; no key or network needed."""
        sdk = self._sdk()
        name = self.sdk_client[3]
        cls = getattr(sdk, f"Async{name}" if is_async else name)
        kwargs.setdefault("api_key", "emulated-no-key")
        kwargs.setdefault("max_retries", 0)
        return cls(http_client=self.http_client(is_async=is_async), **kwargs)

    def _sdk(self) -> Any:
        from ..adapters._base import import_sdk

        module, package, extra, _ = self.sdk_client
        return import_sdk(
            module, package=package, extra=extra, purpose=f"the {self.vendor} emulator's client"
        )

    def reply_content(self, body: Mapping[str, Any], default: Any) -> Any:
        return self.responder(body) if self.responder is not None else default

    def __repr__(self) -> str:
        return f"{type(self).__name__}(EMULATION, requests={self.requests})"


def need(value: Any, kind: type | tuple[type, ...], what: str) -> Any:
    """A request field of the right JSON type, else the 400 a server would send."""
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise Rejected(400, f"{what}: expected {_kind(kind)}, got {type(value).__name__}")
    return value


def _kind(kind: type | tuple[type, ...]) -> str:
    names = {dict: "an object", list: "an array", str: "a string", int: "an integer"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)
