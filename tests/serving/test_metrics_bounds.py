"""
`engine-stats` reads an engine's /metrics within bounds: `--timeout` bounds the whole request
(a server that trickles a byte a second), `--max-bytes` the answer (a server that streams
without end); a counter that is NaN, infinite or negative is named as unusable, with a non-zero
exit, not printed as `nan%`; an answer that is not metrics is described, never echoed.
Each server here runs on 127.0.0.1 in a thread and stops itself: its loops are bounded.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from promptcache import cli

_SECRET = "Zebulon Quackenbush <zebulon@example.com>"


def _serve(answer: Callable[[BaseHTTPRequestHandler], None]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with contextlib.suppress(OSError):  # the client went away, as it should
                answer(self)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _trickle(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.end_headers()
    for _ in range(60):  # a minute at most, a byte a second
        handler.wfile.write(b"#")
        handler.wfile.flush()
        time.sleep(1)


def _endless(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.end_headers()
    line = b"# HELP filler a comment line, repeated without end\n" * 1000
    for _ in range(4_000):  # ~200 MB at most: far past the bound the test sets
        handler.wfile.write(line)


def _slow_headers(handler: BaseHTTPRequestHandler) -> None:
    handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
    for n in range(60):
        handler.wfile.write(f"X-Slow-{n}: 1\r\n".encode())
        handler.wfile.flush()
        time.sleep(1)


def _page(body: bytes, content_type: str = "text/plain; version=0.0.4") -> Callable[..., None]:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return answer


@pytest.fixture(params=["trickle", "slow headers"])
def slow_url(request: pytest.FixtureRequest) -> Iterator[str]:
    yield from _serve(_trickle if request.param == "trickle" else _slow_headers)


def test_the_timeout_bounds_the_whole_request(
    slow_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    assert cli.main(["engine-stats", slow_url, "--timeout", "2"]) == 2
    took = time.monotonic() - started
    err = capsys.readouterr().err
    assert took < 10, took
    assert "did not answer within 2 s (the whole request)" in err and "--timeout" in err


@pytest.fixture
def endless_url() -> Iterator[str]:
    yield from _serve(_endless)


def test_an_endless_answer_stops_at_the_byte_bound(
    endless_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["engine-stats", endless_url, "--max-bytes", "1000000", "--timeout", "30"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "answered more than 1,000,000 bytes" in err and "--max-bytes" in err


_VLLM = """\
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{{engine="0"}} {queries}
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{{engine="0"}} {hits}
"""


@pytest.mark.parametrize(
    ("queries", "hits", "named"),
    [
        ("1000", "NaN", "vllm:prefix_cache_hits_total is unusable: it reads nan"),
        ("NaN", "10", "vllm:prefix_cache_queries_total is unusable: it reads nan"),
        ("+Inf", "10", "vllm:prefix_cache_queries_total is unusable: it reads inf"),
        ("1000", "-2000", "vllm:prefix_cache_hits_total is unusable: it reads -2000"),
        ("-500", "1000", "vllm:prefix_cache_queries_total is unusable: it reads -500"),
        ("1000", "3000", "vllm:prefix_cache_hits_total is unusable: it reads 3000, more than"),
    ],
)
def test_an_unusable_counter_is_named_with_a_non_zero_exit(
    queries: str, hits: str, named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    body = _VLLM.format(queries=queries, hits=hits).encode()
    for url in _serve(_page(body)):
        assert cli.main(["engine-stats", url, "--format", "json"]) == 2
    out, err = capsys.readouterr()
    assert "counter " + named in err, err
    assert "nan%" not in out + err and "%" not in out


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (f"<html><body>Hello {_SECRET}</body></html>".encode(), "text/html"),
        (f"vllm:prefix_cache_hits_total{{engine= {_SECRET}\n".encode(), "text/plain"),
        (b"\xff\xfe" + _SECRET.encode("utf-16-le"), "application/octet-stream"),
    ],
)
def test_a_junk_answer_is_described_not_echoed(
    body: bytes, content_type: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for url in _serve(_page(body, content_type)):
        assert cli.main(["engine-stats", url]) == 2
    err = capsys.readouterr().err
    assert f"answered {len(body):,} bytes of {content_type}" in err, err
    assert "Zebulon" not in err and "zebulon" not in err and "internal error" not in err


def test_a_server_that_does_not_speak_http_is_described_not_echoed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def raw(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(f"{_SECRET}\r\n\r\n".encode())

    for url in _serve(raw):
        assert cli.main(["engine-stats", url]) == 2
    err = capsys.readouterr().err
    assert "did not answer in HTTP" in err and "Zebulon" not in err, err
