"""
Serve an emulator over HTTP on 127.0.0.1, for clients that bring their own HTTP stack (LiteLLM,
LangChain's chat models, a curl in a shell): `base_url=server.url` and the request is answered
by the same in-process emulation `client()` uses. Loopback only; one thread per request.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import orjson

from ._transport import HEADER

if TYPE_CHECKING:
    from types import TracebackType

    from ._base import Emulator

__all__ = ["EmulatorServer"]


class EmulatorServer:
    """An emulator answering HTTP on `url` (http://127.0.0.1:PORT) until `close()`."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(emulator))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="promptcache-emulator", daemon=True
        )
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_port}"

    def close(self) -> None:
        """Stop answering and free the port."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> EmulatorServer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"EmulatorServer({self.emulator!r}, url={self.url!r})"


def _handler(emulator: Emulator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body: Any
            try:
                body = orjson.loads(raw) if raw else None
            except orjson.JSONDecodeError:
                body = raw  # the emulator answers 400 to a body that is not a JSON object
            status, payload = emulator.handle(self.command, self.path, body)
            data = orjson.dumps(payload)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header(HEADER, f"{emulator.vendor} (emulated)")
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_DELETE = _answer

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the emulator's answers are not server logs worth printing."""

    return Handler
