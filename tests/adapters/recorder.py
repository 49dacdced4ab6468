"""
Record the wire cassettes: real SDK clients -> a stub vendor on 127.0.0.1 -> vcrpy.

    .venv/bin/python -m tests.adapters.recorder            # re-record every scenario
    .venv/bin/python -m tests.adapters.recorder chat_stream  # just one

The stub answers each request with the scenario's next synthetic reply (JSON or SSE). While
recording, each request's URI is rewritten from the stub's address to the vendor's real host, so
the replay tests run the SDK clients with their default base URL. Credentials are filtered out
of the recorded headers. See cassettes/README.md.
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

from .scenarios import SCENARIOS, Reply, Scenario

CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"
FILTERED_HEADERS = ["authorization", "x-api-key", "x-goog-api-key"]
MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "body")


class _Stub(BaseHTTPRequestHandler):
    replies: ClassVar[deque[Reply]] = deque()
    seen: ClassVar[list[tuple[str, str]]] = []

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        self.seen.append((self.command, self.path))
        if not self.replies:
            self.send_error(500, f"stub has no reply left for {self.command} {self.path}")
            return
        reply = self.replies.popleft()
        kind, body = reply.encode()
        self.send_response(reply.status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET = do_PATCH = do_DELETE = _answer

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


def recorder(stub: str, host: str) -> vcr.VCR:
    def to_vendor_host(request: Any) -> Any:
        request.uri = request.uri.replace(stub, host, 1)
        for name in [k for k in request.headers if k.lower() == "host"]:
            request.headers[name] = host.split("://", 1)[1]
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


def record(scenario: Scenario, stub: str) -> Any:
    _Stub.replies = deque(scenario.replies)
    _Stub.seen = []
    path = CASSETTES / scenario.cassette
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    with recorder(stub, scenario.host).use_cassette(scenario.cassette):
        result = scenario.call(stub)
    if _Stub.replies:
        raise RuntimeError(f"{scenario.name}: {len(_Stub.replies)} replies were not requested")
    return result


def main(names: list[str]) -> int:
    chosen = [s for s in SCENARIOS if not names or s.name in names]
    with stub_server() as stub:
        for scenario in chosen:
            usage = record(scenario, stub)
            print(f"{scenario.cassette}: {[m + ' ' + p for m, p in _Stub.seen]} -> {usage}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
