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

The client returned is the caller's own object (handlers registered on it), so it stays a
botocore client for every type check. Observing never changes a request; errors (HTTP >= 300)
reach the caller untouched and are not observed. Operations that send prompts but cannot be
observed are warned about once.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Mapping
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
    _refuse_async(client)
    meta: Any = getattr(client, "meta", None)
    service = getattr(getattr(meta, "service_model", None), "service_name", None)
    if service != _SERVICE:
        raise InputError(
            f"wrap() observes boto3 clients of {_SERVICE!r} (Bedrock Converse and InvokeModel), "
            f"got a {service!r} client; make it with boto3.client('bedrock-runtime')"
        )
    hooks = _Hooks(watcher, call, stream)
    tag = f"promptcache-{id(watcher)}"
    meta.events.register(f"provide-client-params.{_SERVICE}", hooks.before, unique_id=f"{tag}-b")
    meta.events.register(f"after-call.{_SERVICE}", hooks.after, unique_id=f"{tag}-a")
    return client


def _refuse_async(client: Any) -> None:
    """
    An aiobotocore client shares botocore's events but awaits its replies: these hooks would
    hand its `async for` a blocking stream and read its invoke body without awaiting it. It is
    refused rather than half observed. (Not hooked: aiobotocore 3.10.0, the newest, pins
    botocore < 1.43.118, so it cannot be installed beside the botocore 1.44 promptcache is
    tested with.)
    """
    module = type(client).__module__
    if module == "aiobotocore" or module.startswith("aiobotocore."):
        raise InputError(
            "wrap() does not observe aiobotocore clients (their streams and bodies are read "
            "with await, which these hooks do not do); observe each call yourself: "
            "monitor.observe(kwargs, await client.converse(**kwargs)), or use boto3's client"
        )


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
