"""
EMULATION of AWS Bedrock's prompt cache for Claude, behind the real boto3 `bedrock-runtime`
client: Converse (`converse`, `converse_stream`) and InvokeModel with Anthropic's body
(`invoke_model`, `invoke_model_with_response_stream`).

The cache is the Anthropic emulator's (the same rules: explicit markers, 4 of them, 1h never
after 5m, a 20-block lookback, entries expiring after their TTL), with Bedrock's differences:
a `cachePoint` block marks the block before it; the minimum is Bedrock's (`aws` in the table,
for the model the id resolves to), counted per cache point since the one before it; one cache per `modelId` as sent (whether two names of one
model share a cache is not documented, so they do not share one here); a cache point right after
a reasoning block is refused as Bedrock refuses it. Streams are real AWS event-stream frames.

The client is boto3's own: `client()` registers a botocore `before-send` handler that answers
each request from here, so nothing leaves the process and no AWS credentials are needed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from itertools import accumulate
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit

import orjson

from ..vendors._bedrock_models import resolve_model
from ..vendors.bedrock_converse import CACHE_POINT, cache_points, caches_tools
from ._base import Rejected, need
from ._core import EMULATION, Outcome, canonical, chain, tokens_of
from ._eventstream import CONTENT_TYPE, chunk_event, event
from ._rules import minimum
from .anthropic import AnthropicEmulator, Change, Prepared, _pieces, _segments

__all__ = ["BedrockEmulator"]

_HOST = "https://bedrock-runtime.us-east-1.amazonaws.com"


class BedrockEmulator(AnthropicEmulator):
    """EMULATION of Bedrock's prompt cache behind `POST /model/{modelId}/converse` and `/invoke`."""

    vendor: ClassVar[str] = "bedrock-converse"
    sdk_client = ("boto3", "boto3", "bedrock", "client")

    def fork(self) -> BedrockEmulator:
        other = BedrockEmulator(clock=self.clock, responder=self.responder)
        other.store = self.store.copy()
        return other

    # -- HTTP -----------------------------------------------------------------------------------

    def route(self, method: str, path: str, body: Any) -> dict[str, Any]:
        model_id, action = _model_path(method, path)
        if action == "converse":
            return self.converse(model_id, need(body, dict, "request body"))
        if action == "invoke":
            return self.invoke(model_id, need(body, dict, "request body"))
        raise Rejected(404, f"stream with {action}: use answer(), which frames the events")

    def error_body(self, refused: Rejected) -> dict[str, Any]:
        return {"message": refused.message}

    def answer(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
        """One HTTP exchange as bytes: status, headers, body (event-stream frames for streams)."""
        self.requests += 1
        try:
            model_id, action = _model_path(method, path.split("?", 1)[0])
            parsed = need(_json(body), dict, "request body")
            if action == "converse":
                return 200, _JSON, orjson.dumps(self.converse(model_id, parsed))
            if action == "invoke":
                return 200, _JSON, orjson.dumps(self.invoke(model_id, parsed))
            if action == "converse-stream":
                frames = self.converse_stream(model_id, parsed)
            else:
                frames = self.invoke_stream(model_id, parsed)
            return 200, {"content-type": CONTENT_TYPE}, b"".join(frames)
        except Rejected as refused:
            kind = "ResourceNotFoundException" if refused.status == 404 else "ValidationException"
            headers = {**_JSON, "x-amzn-errortype": kind}
            return refused.status, headers, orjson.dumps(self.error_body(refused))

    # -- Converse -------------------------------------------------------------------------------

    def converse(self, model_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        outcome, text = self._serve_converse(model_id, body)
        return {
            "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
            "stopReason": "end_turn",
            "usage": _converse_usage(outcome, tokens_of(text.encode())),
            "metrics": {"latencyMs": 0},
        }

    def converse_stream(self, model_id: str, body: Mapping[str, Any]) -> list[bytes]:
        outcome, text = self._serve_converse(model_id, body)
        return [
            event("messageStart", {"role": "assistant"}),
            event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": text}}),
            event("contentBlockStop", {"contentBlockIndex": 0}),
            event("messageStop", {"stopReason": "end_turn"}),
            event(
                "metadata",
                {
                    "usage": _converse_usage(outcome, tokens_of(text.encode())),
                    "metrics": {"latencyMs": 0},
                },
            ),
        ]

    def _serve_converse(self, model_id: str, body: Mapping[str, Any]) -> tuple[Outcome, str]:
        for path, _, before in cache_points(body):
            if before == "reasoningContent":
                raise Rejected(
                    400, f"{path}: Cache point cannot be inserted after reasoning block."
                )
        messages = need(body.get("messages"), list, "messages")
        if not messages:
            raise Rejected(400, "messages: at least one message is required")
        text = str(self.reply_content(body, EMULATION))
        base = resolve_model(model_id).base
        tools = base is None or caches_tools(base) is not False  # Amazon Nova caches no tools
        return self.serve({**_as_messages(body, tools=tools), "model": model_id}), text

    # -- InvokeModel (Anthropic's body) ----------------------------------------------------------

    def invoke(self, model_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        if "model" in body:
            raise Rejected(400, "model: Extra inputs are not permitted (the model is in the URL)")
        need(body.get("anthropic_version"), str, "anthropic_version")
        answer = self.messages({**body, "model": model_id})
        answer.pop("model", None)
        return answer

    def invoke_stream(self, model_id: str, body: Mapping[str, Any]) -> list[bytes]:
        reply = self.invoke(model_id, body)
        usage = reply["usage"]
        start = {**reply, "content": [], "usage": {**usage, "output_tokens": 1}}
        text = "".join(str(b.get("text", "")) for b in reply["content"])
        metrics = {
            "inputTokenCount": usage["input_tokens"],
            "outputTokenCount": usage["output_tokens"],
            "invocationLatency": 0,
            "firstByteLatency": 0,
            "cacheReadInputTokenCount": usage["cache_read_input_tokens"],
            "cacheWriteInputTokenCount": usage["cache_creation_input_tokens"],
        }
        return [
            chunk_event({"type": "message_start", "message": start}),
            chunk_event(
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                }
            ),
            chunk_event(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": text},
                }
            ),
            chunk_event({"type": "content_block_stop", "index": 0}),
            chunk_event(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": usage["output_tokens"]},
                }
            ),
            chunk_event({"type": "message_stop", "amazon-bedrock-invocationMetrics": metrics}),
        ]

    # -- the cache: Bedrock's minimum, one cache per modelId ------------------------------------

    def what_if(self, prepared: Prepared, points: Sequence[tuple[int, str]], now: float) -> Change:
        """
        Anthropic's cache, where a cache point counts only with the minimum's tokens since the
        one before it (AWS counts the minimum per cache point): one short of it writes nothing.
        """
        return super().what_if(prepared, _counted(points, prepared), now)

    def prepare(self, body: Mapping[str, Any]) -> Prepared:
        model_id = need(body.get("model"), str, "modelId")
        base = resolve_model(model_id).base
        if base is None:
            raise Rejected(
                400, f"the emulator cannot tell which model {model_id} serves (an opaque ARN)"
            )
        segments = _segments(body, self.rules.unmarkable)
        return Prepared(
            model=model_id,
            segments=tuple(segments),
            hashes=tuple(chain(canonical(["bedrock", model_id]), _pieces(body, segments))),
            totals=tuple(accumulate(s.tokens for s in segments)),
            floor=minimum("bedrock-converse", base),
        )

    # -- the real boto3 client ------------------------------------------------------------------

    def client(self, *, is_async: bool = False, **kwargs: Any) -> Any:
        """boto3's `bedrock-runtime` client, answered from here (boto3 has no async client)."""
        if is_async:
            raise ValueError("boto3 has no async client; use client()")
        boto3 = self._sdk()
        from botocore.config import Config

        kwargs.setdefault("region_name", "us-east-1")
        kwargs.setdefault("endpoint_url", _HOST)
        kwargs.setdefault("aws_access_key_id", "emulated-no-key")
        kwargs.setdefault("aws_secret_access_key", "emulated-no-key")
        kwargs.setdefault("config", Config(retries={"max_attempts": 1, "mode": "standard"}))
        client = boto3.client("bedrock-runtime", **kwargs)
        client.meta.events.register(
            "before-send.bedrock-runtime",
            self._before_send,
            unique_id=f"promptcache-sim-{id(self)}",
        )
        return client

    def _before_send(self, request: Any, **_: Any) -> Any:
        from botocore.awsrequest import AWSResponse

        body = request.body if isinstance(request.body, bytes) else (request.body or b"")
        if not isinstance(body, bytes):
            body = body.read() if hasattr(body, "read") else str(body).encode()
        status, headers, data = self.answer(request.method, urlsplit(request.url).path, body)
        headers = {**headers, "x-promptcache-emulation": "true"}
        return AWSResponse(request.url, status, headers, _Raw(data))


_JSON = {"content-type": "application/json"}


class _Raw:
    """The raw body botocore reads a reply from (`stream()` for event streams)."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def stream(self, amt: int = 1024, decode_content: bool = False) -> Iterator[bytes]:
        for start in range(0, len(self._data), amt):
            yield self._data[start : start + amt]

    def read(self, amt: int | None = None) -> bytes:
        data, self._data = (
            (self._data, b"") if amt is None else (self._data[:amt], self._data[amt:])
        )
        return data

    def close(self) -> None:
        self._data = b""


def _counted(points: Sequence[tuple[int, str]], prepared: Prepared) -> list[tuple[int, str]]:
    """The cache points (content block, TTL) with at least the minimum's tokens since the one
    before them in the request (the first: since the start)."""
    kept, since = [], 0
    for index, ttl in points:
        tokens = prepared.totals[index]
        if tokens - since >= prepared.floor:
            kept.append((index, ttl))
        since = tokens
    return kept


def _model_path(method: str, path: str) -> tuple[str, str]:
    parts = path.strip("/").split("/")
    actions = ("converse", "converse-stream", "invoke", "invoke-with-response-stream")
    if (
        method.upper() != "POST"
        or len(parts) != 3
        or parts[0] != "model"
        or parts[2] not in actions
    ):
        raise Rejected(
            404,
            f"the Bedrock emulator serves POST /model/{{modelId}}/converse and /invoke, not {path}",
        )
    return unquote(parts[1]), parts[2]


def _json(body: bytes) -> Any:
    try:
        return json.loads(body or b"null")
    except ValueError:
        raise Rejected(400, "the request body is not JSON") from None


def _as_messages(body: Mapping[str, Any], *, tools: bool = True) -> dict[str, Any]:
    """The Converse body in the Messages shape the Anthropic emulator compares; `tools=False`:
    the model caches no tools, so their cache points mark nothing."""
    config = body.get("toolConfig") or {}
    additional = body.get("additionalModelRequestFields") or {}
    listed = _marked(config.get("tools") or [])
    if not tools:
        listed = [{k: v for k, v in t.items() if k != "cache_control"} for t in listed]
    return {
        "tools": listed,
        "system": _marked(body.get("system") or []),
        "messages": [
            {"role": m.get("role"), "content": _marked(m.get("content") or [])}
            for m in need(body.get("messages"), list, "messages")
        ],
        "tool_choice": config.get("toolChoice"),
        "thinking": additional.get("thinking") if isinstance(additional, Mapping) else None,
        "max_tokens": 1,
    }


def _marked(blocks: list[Any]) -> list[dict[str, Any]]:
    """Blocks with each cache point folded onto the one before it (as `cache_control`)."""
    out: list[dict[str, Any]] = []
    for block in blocks:
        block = need(block, dict, "content block")
        if CACHE_POINT in block:
            inner = block[CACHE_POINT] or {}
            ttl = inner.get("ttl") if isinstance(inner, Mapping) else None
            if out:
                marker = {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}
                out[-1] = {**out[-1], "cache_control": marker}
            continue
        kind = "thinking" if "reasoningContent" in block else None
        out.append({**block, **({"type": kind} if kind else {})})
    return out


def _converse_usage(outcome: Outcome, output: int) -> dict[str, Any]:
    details = [
        {"ttl": ttl, "inputTokens": outcome.write_by_ttl[ttl]}
        for ttl in ("1h", "5m")
        if outcome.write_by_ttl.get(ttl)
    ]
    usage: dict[str, Any] = {
        "inputTokens": outcome.uncached,
        "outputTokens": output,
        "totalTokens": outcome.uncached + outcome.read + outcome.write + output,
        "cacheReadInputTokens": outcome.read,
        "cacheWriteInputTokens": outcome.write,
    }
    if details:
        usage["cacheDetails"] = details
    return usage
