"""
AWS event-stream framing (`application/vnd.amazon.eventstream`), the binary format of Bedrock's
`converse_stream` and `invoke_model_with_response_stream` replies, written so that botocore's own
decoder (`botocore.eventstream.EventStreamBuffer`) reads it back.

One message: a 12-byte prelude (total length, headers length, CRC32 of those 8 bytes, all
big-endian), the headers (name length: 1 byte, name, value type 7 = string, value length:
2 bytes, value), the payload, and a CRC32 of everything before it. botocore ships an encoder only
in its tests, so this is ours.
"""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

__all__ = ["CONTENT_TYPE", "chunk_event", "event", "frame"]

CONTENT_TYPE = "application/vnd.amazon.eventstream"
_STRING = 7


def _header(name: str, value: str) -> bytes:
    key, text = name.encode("utf-8"), value.encode("utf-8")
    return struct.pack("!B", len(key)) + key + struct.pack("!BH", _STRING, len(text)) + text


def frame(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One event-stream message with string headers and CRCs."""
    head = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(head) + len(payload) + 4
    lengths = struct.pack("!II", total, len(head))
    prelude = lengths + struct.pack("!I", zlib.crc32(lengths) & 0xFFFFFFFF)
    body = prelude + head + payload
    return body + struct.pack("!I", zlib.crc32(body) & 0xFFFFFFFF)


def event(kind: str, body: Any) -> bytes:
    """An event of type `kind` (`metadata`, `messageStart`, ...) with a JSON body."""
    headers = {":event-type": kind, ":content-type": "application/json", ":message-type": "event"}
    return frame(headers, orjson.dumps(body))


def chunk_event(inner: Any) -> bytes:
    """An InvokeModel stream `chunk`: the model's own JSON event, base64 in `bytes`."""
    return event("chunk", {"bytes": base64.b64encode(orjson.dumps(inner)).decode("ascii")})


def stream(events: Iterable[bytes]) -> bytes:
    return b"".join(events)
