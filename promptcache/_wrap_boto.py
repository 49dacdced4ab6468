"""
`wrap()` of a boto3 `bedrock-runtime` client. boto3 does not send through httpx, and its client
methods are generated per operation, so the hook is botocore's own event system, per operation:

- `provide-client-params.bedrock-runtime.<Operation>`: the caller's keyword arguments, read
  into the request the monitor judges (for InvokeModel, the JSON body with `modelId` as its
  `model`), kept in the call's own `context` dict;
- `after-call.bedrock-runtime.<Operation>`: the parsed reply. A Converse reply is observed at
  once; an InvokeModel reply's body (a one-shot stream) is read and handed back to the caller as
  a fresh stream of the same bytes; a streamed reply (`converse_stream`,
  `invoke_model_with_response_stream`) gets its EventStream wrapped, and the usage in its last
  event is observed when the caller has read it.

An aiobotocore `bedrock-runtime` client (the async path; boto3 has none) is hooked on the same
two events: its emitter (`AioHierarchicalEmitter`) awaits the handlers it is given, so the
`provide-client-params` handler is the same plain function and the `after-call` one is a
coroutine (`_AsyncHooks.after`). Its InvokeModel body is read with `await body.read()` and
handed back as aiobotocore's own body class of the same bytes (`AioStreamingBody`, or
`AioHttpxStreamingBody` on its httpx backend); its EventStreams
(`AioEventStream`, async iterables) are wrapped for `async for`, observed once the caller has
read them. Nothing blocks the event loop. An aiobotocore client whose emitter does not await
(it would drop the coroutine unrun, so nothing would be observed) is refused.

The client returned is the caller's own object (handlers registered on it), so it stays a
botocore client for every type check. Observing never changes a request; errors (HTTP >= 300)
reach the caller untouched and are not observed. Operations that send prompts but cannot be
observed are warned about once.
"""

from __future__ import annotations

import io
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import orjson

from ._errors import InputError

__all__ = ["OPERATIONS", "UNOBSERVABLE", "wrap_boto3"]

# operation -> (the client method, how it returns)
OPERATIONS: Mapping[str, tuple[str, str]] = {
    "Converse": ("converse", "call"),
    "ConverseStream": ("converse_stream", "iter"),
    "InvokeModel": ("invoke_model", "call"),
    "InvokeModelWithResponseStream": ("invoke_model_with_response_stream", "iter"),
}
UNOBSERVABLE: Mapping[str, str] = {
    "StartAsyncInvoke": "an asynchronous invocation: its result lands in S3, outside this call",
    "InvokeModelWithBidirectionalStream": "a bidirectional audio stream, which promptcache "
    "does not read",
}
_SERVICE = "bedrock-runtime"
_KEY = "promptcache.observed"


def wrap_boto3(
    client: Any, watcher: Any, call: Callable[..., Any], stream: Callable[[Any, Any], Any]
) -> Any:
    """
    Register the observing handlers on `client` (a boto3 bedrock-runtime client). `watcher`,
    `call` and `stream` are `_wrap`'s (its `_Watcher`, `_Call` and stream wrapper), passed in so
    that this module does not import `_wrap` back.
    """
    awaits = _awaits(client)
    meta: Any = getattr(client, "meta", None)
    service = getattr(getattr(meta, "service_model", None), "service_name", None)
    if service != _SERVICE:
        raise InputError(
            f"wrap() observes boto3 clients of {_SERVICE!r} (Bedrock Converse and InvokeModel), "
            f"got a {service!r} client; make it with boto3.client('bedrock-runtime')"
        )
    hooks = (_AsyncHooks if awaits else _Hooks)(watcher, call, stream)
    tag = f"promptcache-{id(watcher)}"
    meta.events.register(f"provide-client-params.{_SERVICE}", hooks.before, unique_id=f"{tag}-b")
    meta.events.register(f"after-call.{_SERVICE}", hooks.after, unique_id=f"{tag}-a")
    return client


def _awaits(client: Any) -> bool:
    """
    Whether `client` is an aiobotocore client (its replies awaited), refused if its emitter
    would not await the `after-call` coroutine: that one would never run, and no call would be
    observed.
    """
    if not _from_aiobotocore(client):
        return False
    events = _emitter(getattr(getattr(client, "meta", None), "events", None))
    if not _from_aiobotocore(events):
        raise InputError(
            f"wrap() cannot observe this aiobotocore client: its event emitter "
            f"({type(events).__module__}.{type(events).__qualname__}) is not aiobotocore's "
            "AioHierarchicalEmitter, so it would not await the observing hook; make the client "
            "with aiobotocore's session (session.create_client('bedrock-runtime')), or observe "
            "each call yourself: monitor.observe(kwargs, await client.converse(**kwargs))"
        )
    return True


def _emitter(events: Any) -> Any:
    """The emitter that runs the handlers, found under botocore's `EventAliaser` (which only
    renames events and hands on what its emitter returns, an awaiting one's coroutine too)."""
    for _ in range(4):  # an aliaser's own emitter, and so on: never a cycle
        inner = getattr(events, "_emitter", None)
        if inner is None:
            break
        events = inner
    return events


def _from_aiobotocore(value: Any) -> bool:
    module = type(value).__module__
    return module == "aiobotocore" or module.startswith("aiobotocore.")


class _Hooks:
    def __init__(
        self, watcher: Any, call: Callable[..., Any], stream: Callable[[Any, Any], Any]
    ) -> None:
        self.watcher = watcher
        self.call = call
        self.stream = stream

    def before(
        self, params: Mapping[str, Any], model: Any, context: dict[str, Any], **_: Any
    ) -> None:
        operation = getattr(model, "name", "")
        if operation in UNOBSERVABLE:
            self.watcher.once(
                logging.WARNING,
                ("unobservable", operation),
                "promptcache: wrap() cannot observe %s (%s); such calls work as before",
                operation,
                UNOBSERVABLE[operation],
            )
            return
        found = OPERATIONS.get(operation)
        if found is None:
            return
        name, kind = found
        try:
            sent = _sent(operation, params)
        except _Unread as unread:
            self.watcher._unreadable(name, "body", unread.why, unread.shape)
            return
        request, _ = self.watcher.prepare(name, sent)
        if request is not None:
            context[_KEY] = self.call(name, request, kind, self.watcher, self.watcher.now())

    def after(
        self, http_response: Any, parsed: dict[str, Any], context: Mapping[str, Any], **_: Any
    ) -> None:
        call = context.get(_KEY)
        if call is None or getattr(http_response, "status_code", 500) >= 300:
            return
        try:
            self._observe(call, parsed)
        except Exception as exc:  # observing must never break the caller's call
            self._not_observed(call, exc)

    def _not_observed(self, call: Any, exc: Exception) -> None:
        self.watcher.once(
            logging.WARNING,
            ("observe", call.name, type(exc).__name__),
            "promptcache: could not observe a call to %s (%s); its result is untouched",
            call.name,
            type(exc).__name__,
        )

    def _observe(self, call: Any, parsed: dict[str, Any]) -> None:
        if call.name == "converse":
            call.after(parsed)
        elif call.name == "converse_stream" and "stream" in parsed:
            parsed["stream"] = self.stream(parsed["stream"], call)
        elif call.name == "invoke_model_with_response_stream" and "body" in parsed:
            parsed["body"] = self.stream(parsed["body"], call)
        elif call.name == "invoke_model" and "body" in parsed:
            data = parsed["body"].read()
            parsed["body"] = _fresh_body(data)
            call.after(orjson.loads(data))


class _AsyncHooks(_Hooks):
    """An aiobotocore client's: its emitter awaits `after`; bodies are read with await."""

    async def after(  # type: ignore[override]
        self, http_response: Any, parsed: dict[str, Any], context: Mapping[str, Any], **_: Any
    ) -> None:
        call = context.get(_KEY)
        if call is None or getattr(http_response, "status_code", 500) >= 300:
            return
        data: bytes | None = None
        if call.name == "invoke_model" and "body" in parsed:
            # A failed read raises to the caller, as their own read would have: swallowing it
            # would hand them a drained body.
            body = parsed["body"]
            data = await body.read()
            parsed["body"] = _fresh_async_body(body, data)
        try:
            if data is not None:
                call.after(orjson.loads(data))
            elif call.name != "invoke_model":
                self._observe(call, parsed)
        except Exception as exc:  # observing must never break the caller's call
            self._not_observed(call, exc)


class _Unread(Exception):
    def __init__(self, why: str, shape: str) -> None:
        super().__init__(why)
        self.why = why
        self.shape = shape


def _sent(operation: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The request as the monitor reads it: Converse's kwargs, or InvokeModel's body + model."""
    if not operation.startswith("InvokeModel"):
        return dict(params)
    body = params.get("body")
    if isinstance(body, str):
        body = body.encode("utf-8")
    if not isinstance(body, (bytes, bytearray)):
        # a file object: reading it would take it from the SDK
        raise _Unread("a body given as a stream, which reading would consume", type(body).__name__)
    try:
        decoded = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise _Unread("a body that is not JSON", f"bytes of {len(body)}") from None
    if not isinstance(decoded, dict):
        raise _Unread("a body that is not a JSON object", type(decoded).__name__)
    return {**decoded, "model": params.get("modelId")}


def _fresh_body(data: bytes) -> Any:
    """The reply body handed back to the caller: botocore's own StreamingBody of the same bytes."""
    from botocore.response import StreamingBody

    return StreamingBody(io.BytesIO(data), len(data))


# aiobotocore's two body classes (aiohttp's and httpx's backend), both rebuilt on `_ReadBytes`
_AIO_BODIES = ("AioStreamingBody", "AioHttpxStreamingBody")


def _fresh_async_body(body: Any, data: bytes) -> Any:
    """
    The reply body handed back to an aiobotocore caller: aiobotocore's own body class (the one
    it gave, when it is one of its two) over the bytes already read, `await body.read()` and
    `async for` as before.
    """
    from aiobotocore import response

    kind = type(body)
    if not (kind.__module__ == response.__name__ and kind.__name__ in _AIO_BODIES):
        kind = response.AioStreamingBody
    return kind(_ReadBytes(data, getattr(body, "raw_stream", None)), len(data))


class _ReadBytes:
    """
    The raw response under a rebuilt aiobotocore body: what `AioStreamingBody` reads
    (`content.read(n)`, `content.at_eof()`) and what `AioHttpxStreamingBody` reads
    (`aiter_raw()`), over bytes in memory; `url` kept from the real response for its errors.
    """

    def __init__(self, data: bytes, raw: Any) -> None:
        self._data = io.BytesIO(data)
        self.url = getattr(raw, "url", None)
        self.content = self

    async def read(self, amount: int = -1) -> bytes:
        return self._data.read(amount)

    def at_eof(self) -> bool:
        return self._data.tell() >= len(self._data.getbuffer())

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        chunk = self._data.read()
        if chunk:
            yield chunk

    def close(self) -> None:
        """The bytes need no closing (the real response was read to its end)."""

    async def aclose(self) -> None:
        """As close()."""
