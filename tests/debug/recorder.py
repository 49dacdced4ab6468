"""
Record the wrapper cassettes: wrapped real SDK clients -> a stub vendor on 127.0.0.1 -> vcrpy.

    .venv/bin/python -m tests.debug.recorder                  # every session in wire.SESSIONS
    .venv/bin/python -m tests.debug.recorder openai_chat      # just one

The stub answers each request with the session's next synthetic reply (JSON or SSE). Recorded
URIs are rewritten from the stub's address to the vendor's real host, so the replay tests run
the SDK clients with their default base URLs; credentials are filtered out of the headers.
See cassettes/wrap/README.md.
"""

from __future__ import annotations

import sys
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import vcr

from .wire import HOSTS, SESSIONS, Reply

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes" / "wrap"
FILTERED_HEADERS = ["authorization", "x-api-key", "x-goog-api-key"]
MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "body")


class _Stub(BaseHTTPRequestHandler):
    replies: ClassVar[deque[Reply]] = deque()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if not self.replies:
            self.send_error(500, f"stub has no reply left for {self.path}")
            return
        kind, body = self.replies.popleft().encode()
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@contextmanager
def stub_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def host_of(name: str) -> str:
    return HOSTS[name.split("_", 1)[0]]


def recorder(stub: str, host: str) -> vcr.VCR:
    def to_vendor_host(request: Any) -> Any:
        request.uri = request.uri.replace(stub, host, 1)
        for header in [k for k in request.headers if k.lower() == "host"]:
            request.headers[header] = host.split("://", 1)[1]
        return request

    return vcr.VCR(
        cassette_library_dir=str(CASSETTES),
        record_mode="all",
        match_on=MATCH_ON,
        filter_headers=FILTERED_HEADERS,
        before_record_request=to_vendor_host,
        decode_compressed_response=True,
    )


def replayer() -> vcr.VCR:
    return vcr.VCR(
        cassette_library_dir=str(CASSETTES),
        record_mode="none",
        match_on=MATCH_ON,
        filter_headers=FILTERED_HEADERS,
        decode_compressed_response=True,
    )


def main(names: list[str]) -> int:
    with stub_server() as stub:
        for name, (session, replies) in SESSIONS.items():
            if names and name not in names:
                continue
            _Stub.replies = deque(replies)
            (CASSETTES / f"{name}.yaml").unlink(missing_ok=True)
            with recorder(stub, host_of(name)).use_cassette(f"{name}.yaml"):
                _, events = session(stub)
            left = len(_Stub.replies)
            print(f"{name}: {len(replies) - left} requests, events {[e.cause for e in events]}")
            if left:
                raise RuntimeError(f"{name}: {left} replies were not requested")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
