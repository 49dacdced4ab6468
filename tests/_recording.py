"""
The recording kit shared by the wire cassettes (tests/adapters) and the wrapper cassettes
(tests/debug): a stub vendor on 127.0.0.1 that serves synthetic replies, and vcrpy set up to
record the real SDK clients' traffic against it and replay it offline.

While recording, each request's URI is rewritten from the stub's address to the vendor's real
host, so replays run the SDK clients with their default base URLs. Credentials are filtered out
of the recorded headers (tests/test_cassettes.py checks every cassette). Replay matches a
request's body byte for byte (`exact_body`; tests/test_wire_matching.py keeps it so).
"""

from __future__ import annotations

import base64
import importlib.util
import json
import struct
import threading
import zlib
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import vcr

FILTERED_HEADERS = ["authorization", "x-api-key", "x-goog-api-key", "api-key"]  # api-key: Azure
# LiteLLM's switches to the data files it ships instead of fetching them (tests/conftest.py
# sets them; tests/debug/test_litellm_logger.py checks that nothing else leaves loopback)
LITELLM_OFFLINE = {
    "LITELLM_OFFLINE_MODE": "true",  # the switch for all of them in recent releases
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_LOCAL_BLOG_POSTS": "True",
}
# "exact_body" (below), not vcrpy's "body": that one parses a JSON body before comparing, so a
# request whose keys moved or whose whitespace changed would still match, and the prefix bytes
# a provider's prompt cache is keyed on are exactly what the wire tests must pin.
MATCH_ON = ("method", "scheme", "host", "port", "path", "query", "exact_body")
EXCERPT = 40  # bytes of each body shown either side of the first difference


@dataclass(frozen=True)
class Reply:
    """One stub answer: a JSON body, SSE events (each (event name or None, JSON or raw str)), or
    `raw` bytes with their content type."""

    body: Any = None
    events: tuple[tuple[str | None, Any], ...] = ()
    status: int = 200
    raw: tuple[str, bytes] | None = None  # (content type, bytes) sent as they are

    def encode(self) -> tuple[str, bytes]:
        if self.raw is not None:
            return self.raw
        if not self.events:
            return "application/json", json.dumps(self.body).encode()
        chunks = []
        for name, data in self.events:
            text = data if isinstance(data, str) else json.dumps(data)
            chunks.append((f"event: {name}\n" if name else "") + f"data: {text}\n\n")
        return "text/event-stream", "".join(chunks).encode()


@dataclass
class Stub:
    """The running stub: its URL, the replies still to serve, the requests it saw and their
    bodies (in the same order)."""

    url: str
    replies: deque[Reply] = field(default_factory=deque)
    seen: list[tuple[str, str]] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    # path -> the reply to every request for it (an OAuth token endpoint, asked once per
    # credential): served apart from `replies`, and kept out of `seen` and `bodies`
    routes: dict[str, Reply] = field(default_factory=dict)

    def serve(self, replies: Any) -> None:
        self.replies.clear()
        self.replies.extend(replies)
        self.seen.clear()
        self.bodies.clear()


@contextmanager
def stub_server() -> Iterator[Stub]:
    stub = Stub(url="")

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            fixed = stub.routes.get(self.path)
            if fixed is not None:
                self._send(fixed)
                return
            stub.seen.append((self.command, self.path))
            stub.bodies.append(body)
            if not stub.replies:
                self.send_error(500, f"stub has no reply left for {self.command} {self.path}")
                return
            self._send(stub.replies.popleft())

        def _send(self, reply: Reply) -> None:
            kind, body = reply.encode()
            self.send_response(reply.status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = do_GET = do_PATCH = do_DELETE = _answer

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()


def wire_bytes(request: Any) -> bytes:
    """
    A request's body as the bytes that went on the wire. Only transport noise is undone: vcrpy
    keeps a body as str, bytes, a file or an iterator of chunks depending on the client and on
    whether it came from a cassette, and no body at all (None) sends the same as an empty one.
    """
    body = request.body
    if hasattr(body, "read"):
        body = body.read()
    elif body is not None and not isinstance(body, (bytes, bytearray, str)):
        body = b"".join(c.encode() if isinstance(c, str) else bytes(c) for c in body)
    if body is None:
        return b""
    return body.encode("utf-8") if isinstance(body, str) else bytes(body)


def first_difference(sent: bytes, recorded: bytes) -> int | None:
    """The offset of the first byte where two bodies differ (the shorter one's length if one is a
    prefix of the other), None when they are equal."""
    if sent == recorded:
        return None
    for offset, (a, b) in enumerate(zip(sent, recorded, strict=False)):
        if a != b:
            return offset
    return min(len(sent), len(recorded))


def _excerpt(body: bytes, offset: int) -> str:
    start = max(0, offset - EXCERPT)
    text = repr(body[start : offset + EXCERPT])
    return ("..." if start else "") + text + ("..." if offset + EXCERPT < len(body) else "")


def exact_body(r1: Any, r2: Any) -> None:
    """
    vcrpy matcher: the two request bodies are the same bytes. On a mismatch it says where they
    first differ, with a short excerpt of each side (the cassettes' bodies are synthetic).
    """
    b1, b2 = wire_bytes(r1), wire_bytes(r2)
    offset = first_difference(b1, b2)
    if offset is None:
        return
    raise AssertionError(
        f"bodies differ from byte {offset} (lengths {len(b1)} and {len(b2)}):\n"
        f"  this request: {_excerpt(b1, offset)}\n"
        f"  recorded:     {_excerpt(b2, offset)}"
    )


def _vcr(library: Path, **options: Any) -> vcr.VCR:
    """A VCR that matches on MATCH_ON, its body matcher byte-exact, with credentials filtered."""
    cassettes = vcr.VCR(
        cassette_library_dir=str(library),
        match_on=MATCH_ON,
        filter_headers=FILTERED_HEADERS,
        decode_compressed_response=True,
        **options,
    )
    cassettes.register_matcher("exact_body", exact_body)
    return cassettes


def recorder(library: Path, stub: str, host: str) -> vcr.VCR:
    """A VCR that records into `library`, rewriting the stub's address to the vendor `host`."""

    def to_vendor_host(request: Any) -> Any:
        request.uri = request.uri.replace(stub, host, 1)
        for name in [k for k in request.headers if k.lower() == "host"]:
            request.headers[name] = host.split("://", 1)[1]
        return request

    return _vcr(
        library,
        record_mode="all",
        before_record_request=lambda request: to_vendor_host(wire_method(request)),
    )


def wire_method(request: Any) -> Any:
    """
    The method as it goes on the wire. google-genai passes aiohttp a lower-case method
    ("post"), which aiohttp upper-cases before sending, but vcrpy's aiohttp patch records it as
    passed: normalised, one cassette matches the same request over httpx and over aiohttp.
    """
    request.method = request.method.upper()
    return request


def replayer(library: Path) -> vcr.VCR:
    """A VCR that only replays (`record_mode="none"`): a request not in the cassette fails."""
    return _vcr(library, record_mode="none", before_record_request=wire_method)


# -- streamed replies ---------------------------------------------------------------------------

Events = tuple[tuple[str | None, Any], ...]


def anthropic_events(
    message: dict[str, Any], text: str, delta_usage: dict[str, Any], *, ping: bool = False
) -> Events:
    """
    A Messages stream of one text block: `message_start` carrying `message` (its usage is the
    start usage), the block's events (a `ping` after its start when asked), then a
    `message_delta` carrying `delta_usage`.
    """
    start = {**message, "content": [], "stop_reason": None}
    block = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    delta = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": text},
    }
    ending = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": delta_usage,
    }
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": start}),
        ("content_block_start", block),
    ]
    if ping:
        events.append(("ping", {"type": "ping"}))
    events += [
        ("content_block_delta", delta),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", ending),
        ("message_stop", {"type": "message_stop"}),
    ]
    return tuple(events)


def chat_completion(number: int, model: str, prompt: int, cached: int) -> Reply:
    """A Chat Completions answer "ok" (id `chatcmpl-<number>`): `prompt` input tokens, `cached`
    of them read from the cache, 2 output tokens."""
    return Reply(
        {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": 1_700_000_000 + number,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "ok"},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": 2,
                "total_tokens": prompt + 2,
                "prompt_tokens_details": {"cached_tokens": cached},
            },
        }
    )


def anthropic_message(
    number: int, model: str, *, uncached: int, output: int, read: int, write: int
) -> dict[str, Any]:
    """A Messages answer "ok" (id `msg_<number>`): `uncached` input tokens, `read` of them read
    from the cache and `write` written to it, `output` output tokens."""
    return {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": "ok"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": uncached,
            "output_tokens": output,
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": write,
        },
    }


def chat_chunks(completion_id: str, model: str, texts: Sequence[str], usage: Any) -> Events:
    """
    A Chat Completions stream: one chunk per text (the first carries the role, the last the
    finish reason), the extra final chunk with `usage` and no choices, then `[DONE]`.
    """
    base = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": 1796000000,
        "model": model,
    }
    chunks: list[tuple[str | None, Any]] = []
    for n, text in enumerate(texts):
        delta = {"role": "assistant", "content": text} if n == 0 else {"content": text}
        finish = "stop" if n == len(texts) - 1 else None
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        chunks.append((None, {**base, "choices": [choice], "usage": None}))
    chunks.append((None, {**base, "choices": [], "usage": usage}))
    chunks.append((None, "[DONE]"))
    return tuple(chunks)


def aws_event_stream(events: Sequence[tuple[str, Any]]) -> Reply:
    """
    Bedrock's streamed answer in AWS's binary event-stream framing: per event, a prelude (total
    and header lengths, their CRC32), string headers (`:event-type` and the rest), the JSON
    payload, and the message's CRC32. `events` are (event type, payload); an InvokeModel stream
    sends each provider event as a `chunk` whose payload is `{"bytes": base64(event JSON)}`
    (`bedrock_chunks`), Converse its own event types with plain JSON.
    """
    out = bytearray()
    for kind, data in events:
        headers = {
            ":event-type": kind,
            ":content-type": "application/json",
            ":message-type": "event",
        }
        packed = b"".join(
            bytes([len(name)])
            + name.encode()
            + b"\x07"
            + struct.pack(">H", len(value))
            + value.encode()
            for name, value in headers.items()
        )
        payload = json.dumps(data).encode()
        prelude = struct.pack(">II", 12 + len(packed) + len(payload) + 4, len(packed))
        message = prelude + struct.pack(">I", zlib.crc32(prelude)) + packed + payload
        out += message + struct.pack(">I", zlib.crc32(message))
    return Reply(raw=("application/vnd.amazon.eventstream", bytes(out)))


def bedrock_chunks(events: Events) -> list[tuple[str, Any]]:
    """A provider's SSE events (as `anthropic_events` makes them) as InvokeModel stream chunks."""
    return [
        ("chunk", {"bytes": base64.b64encode(json.dumps(data).encode()).decode()})
        for _, data in events
    ]


# -- the SDK clients the cassettes were recorded with -------------------------------------------

ANTHROPIC_HOST = "https://api.anthropic.com"
OPENAI_HOST = "https://api.openai.com"
GEMINI_HOST = "https://generativelanguage.googleapis.com"

# Fake keys: the cassettes must never hold them (tests/test_cassettes.py checks).
FAKE_KEYS = {"anthropic": "sk-ant-FAKE-0000", "openai": "sk-FAKE-0000", "gemini": "AIza-FAKE-0000"}


def anthropic_client(base_url: str | None, *, is_async: bool = False) -> Any:
    import anthropic

    cls = anthropic.AsyncAnthropic if is_async else anthropic.Anthropic
    return cls(api_key=FAKE_KEYS["anthropic"], base_url=base_url or ANTHROPIC_HOST, max_retries=0)


def openai_client(base_url: str | None, *, is_async: bool = False, host: str = OPENAI_HOST) -> Any:
    import openai

    cls = openai.AsyncOpenAI if is_async else openai.OpenAI
    return cls(api_key=FAKE_KEYS["openai"], base_url=f"{base_url or host}/v1", max_retries=0)


def google_genai() -> Any:
    """
    The `google.genai` module, or a skip: google-genai 3 needs Python >= 3.11, so on 3.10 the
    `gemini` extra installs without it and the tests that drive the real client skip.
    """
    return pytest.importorskip(
        "google.genai", reason="google-genai is not installed (its 3.x releases need Python 3.11+)"
    )


# google-genai sends its async calls over aiohttp when aiohttp is installed (LiteLLM brings it
# in), else over httpx2. The tests replay each Gemini async session over both, chosen here.
GEMINI_ASYNC_TRANSPORTS = ("httpx", "aiohttp")
_gemini_async_transport = ["httpx"]


@contextmanager
def gemini_async_transport(name: str) -> Iterator[None]:
    """Build the Gemini clients made inside the block with `name`'s async transport."""
    if name not in GEMINI_ASYNC_TRANSPORTS:
        raise ValueError(f"unknown Gemini async transport {name!r}: {GEMINI_ASYNC_TRANSPORTS}")
    if name == "aiohttp" and importlib.util.find_spec("aiohttp") is None:
        pytest.skip("aiohttp is not installed: google-genai sends its async calls over httpx")
    _gemini_async_transport.append(name)
    try:
        yield
    finally:
        _gemini_async_transport.pop()


def gemini_client(base_url: str | None) -> Any:
    """
    A google-genai client. Its async calls go over httpx2 (a transport passed in
    `async_client_args`, google-genai's documented switch away from aiohttp) unless the
    enclosing `gemini_async_transport` says aiohttp, which google-genai then picks itself.
    """
    options: dict[str, Any] = {"base_url": base_url or f"{GEMINI_HOST}/", "api_version": "v1"}
    if _gemini_async_transport[-1] == "httpx":
        import httpx2

        options["async_client_args"] = {"transport": httpx2.AsyncHTTPTransport()}
    client = google_genai().Client(api_key=FAKE_KEYS["gemini"], http_options=options)
    # fail here, not in a replay, if google-genai stops honouring the choice
    assert client._api_client._use_aiohttp() == (_gemini_async_transport[-1] == "aiohttp")
    return client
