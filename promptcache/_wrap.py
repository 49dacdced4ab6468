"""
`wrap(client)`: observe every call of an Anthropic, OpenAI or Gemini SDK client with a `Monitor`.

    client = promptcache.wrap(anthropic.Anthropic(), on_invalidation=alert)
    client.messages.create(**kwargs)          # same call, same result, now observed

The wrapper is a thin proxy: attribute access passes through to the real client, except for the
few methods that send prompts, which call the real method, hand the request and the response (or,
for a stream, the usage gathered as the caller iterates) to the monitor, and return the SDK's own
object. Streams are returned wrapped so they can be read to the end; everything else about them
(context manager, `close()`, attributes) is the SDK's. The streaming helpers (Anthropic's
`messages.stream()`, OpenAI's `chat.completions.stream()` and `responses.stream()`) hand the
caller the SDK's own stream and are observed once, when their block exits, from what that stream
already accumulated. A Gemini chat session (`chats.create()`) is handed the observed models, so
each `send_message` is observed with the whole conversation it sends. Observing never raises into
the caller: a monitor failure is logged, a vendor error propagates untouched.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from typing import Any

from ._errors import InputError
from .debug.monitor import Invalidation, Monitor, adapter_for

__all__ = ["wrap"]

LOGGER = logging.getLogger("promptcache.wrap")

# What to hook per vendor: attribute path -> how the method returns ("call": a response, or a
# stream when stream=True; "iter": always a stream; "*-manager": a streaming helper's context
# manager, observed when its block exits: Anthropic's messages.stream(), OpenAI's
# chat.completions.stream() and responses.stream()).
_HOOKS: dict[str, dict[tuple[str, ...], str]] = {
    "anthropic": {
        ("messages", "create"): "call",
        ("messages", "stream"): "anthropic-manager",
    },
    "openai": {
        ("chat", "completions", "create"): "call",
        ("chat", "completions", "parse"): "call",  # structured outputs: a parsed ChatCompletion
        ("beta", "chat", "completions", "parse"): "call",  # the same, where older code calls it
        ("chat", "completions", "stream"): "chat-manager",
        ("responses", "create"): "call",
        ("responses", "parse"): "call",
        ("responses", "stream"): "responses-manager",
    },
    "gemini": {
        ("models", "generate_content"): "call",
        ("models", "generate_content_stream"): "iter",
        ("aio", "models", "generate_content"): "call",
        ("aio", "models", "generate_content_stream"): "iter",
        # A chat session sends through the models it was made with: hand it the observed ones.
        ("chats", "create"): "chat-session",
        ("aio", "chats", "create"): "chat-session",
    },
}
_TRANSPORT = frozenset({"extra_headers", "extra_query", "extra_body", "timeout"})


def wrap(
    client: Any,
    *,
    monitor: Monitor | None = None,
    vendor: str | None = None,
    key: str | Callable[[Mapping[str, Any]], str] | None = None,
    on_invalidation: Callable[[Invalidation], Any] | None = None,
) -> Any:
    """
    Return `client` with its prompt-sending methods observed.

    `vendor` defaults from the client's package; pass "engine" for an OpenAI client pointed at
    vLLM, SGLang or llama.cpp. `key` (a string, or a function of the request) names the cache key
    per call; by default the monitor derives it from the request.
    """
    name = vendor or _vendor_of(client)
    hooks = _HOOKS["openai" if name == "engine" else name] if name in (*_HOOKS, "engine") else None
    if hooks is None:
        raise InputError(
            f"wrap() does not know vendor {name!r}; use anthropic, openai, gemini or engine"
        )
    watcher = _Watcher(monitor or Monitor(name, on_invalidation=on_invalidation), key)
    return _Proxy(client, (), hooks, watcher)


def _vendor_of(client: Any) -> str:
    module = type(client).__module__
    for package, name in (
        ("anthropic", "anthropic"),
        ("openai", "openai"),
        ("google.genai", "gemini"),
    ):
        if module == package or module.startswith(package + "."):
            return name
    raise InputError(
        f"wrap() supports Anthropic, OpenAI and Gemini SDK clients, got {type(client).__qualname__} "
        f"from {module!r}; pass vendor=... if it is one of those behind another class"
    )


class _Watcher:
    """The monitor plus the key rule; never lets a monitoring failure reach the caller."""

    def __init__(self, monitor: Monitor, key: str | Callable[[Mapping[str, Any]], str] | None):
        self.monitor = monitor
        self.key = key

    def request(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        body = {k: v for k, v in kwargs.items() if k not in _TRANSPORT}
        extra = kwargs.get("extra_body")
        if isinstance(extra, Mapping):
            body.update(extra)
        return body

    def observe(self, request: Mapping[str, Any], response: Any = None, usage: Any = None) -> None:
        try:
            key = self.key(request) if callable(self.key) else self.key
            self.monitor.observe(request, response, usage=usage, key=key)
        except Exception:
            LOGGER.exception("promptcache: could not observe a %s call", self.monitor.vendor)

    def accumulator(self, request: Mapping[str, Any]) -> Any:
        try:
            return adapter_for(self.monitor.vendor, request).accumulator()
        except Exception:
            LOGGER.exception("promptcache: no stream accumulator for %s", self.monitor.vendor)
            return None


class _Proxy:
    """Passes attributes through; wraps the hooked methods and the objects on the way to them."""

    __slots__ = ("_hooks", "_path", "_target", "_watcher")

    def __init__(
        self,
        target: Any,
        path: tuple[str, ...],
        hooks: dict[tuple[str, ...], str],
        watcher: _Watcher,
    ) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_hooks", hooks)
        object.__setattr__(self, "_watcher", watcher)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        path = (*self._path, name)
        kind = self._hooks.get(path)
        if kind == "chat-session":
            models = (*path[:-2], "models")
            return _chat_session_hook(value, lambda real: _Proxy(real, models, *self._peers))
        if kind is not None:
            return _hook(value, kind, self._watcher)
        if any(hook[: len(path)] == path for hook in self._hooks):
            return _Proxy(value, path, self._hooks, self._watcher)
        return value

    @property
    def _peers(self) -> tuple[dict[tuple[str, ...], str], _Watcher]:
        """What a proxy made elsewhere for the same client needs: the hooks and the watcher."""
        return self._hooks, self._watcher

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._target, name, value)

    def __dir__(self) -> list[str]:
        return dir(self._target)

    def __repr__(self) -> str:
        return f"promptcache.wrap({self._target!r})"

    def __enter__(self) -> Any:
        self._target.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self._target.__exit__(*exc)

    async def __aenter__(self) -> Any:
        await self._target.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._target.__aexit__(*exc)


def _chat_session_hook(
    create: Callable[..., Any], observe: Callable[[Any], _Proxy]
) -> Callable[..., Any]:
    """
    Gemini's `chats.create()`: the session it returns sends every turn through the `models` it
    was made with, so it gets the observed ones; each `send_message` (streamed or not, sync or
    async) is then observed with the whole conversation it sends.
    """

    def observed(*args: Any, **kwargs: Any) -> Any:
        chat = create(*args, **kwargs)
        real = getattr(chat, "_modules", None)
        if real is None:  # an SDK whose chat internals moved: say so, never raise
            LOGGER.warning("promptcache: cannot observe this Gemini chat session (SDK changed?)")
            return chat
        chat._modules = observe(real)
        return chat

    observed.__wrapped__ = create  # type: ignore[attr-defined]
    return observed


def _hook(method: Callable[..., Any], kind: str, watcher: _Watcher) -> Callable[..., Any]:
    if kind.endswith("-manager"):
        return _manager_hook(method, kind, watcher)

    def observed(*args: Any, **kwargs: Any) -> Any:
        result = method(*args, **kwargs)
        request = watcher.request(kwargs)
        # Async clients return a coroutine (the SDKs' decorators hide `async def` from inspect).
        if inspect.isawaitable(result):
            return _after_await(result, request, kind, watcher)
        return _after(result, request, kind, watcher)

    observed.__wrapped__ = method  # type: ignore[attr-defined]
    return observed


async def _after_await(
    pending: Awaitable[Any], request: Mapping[str, Any], kind: str, watcher: _Watcher
) -> Any:
    return _after(await pending, request, kind, watcher)


def _after(result: Any, request: Mapping[str, Any], kind: str, watcher: _Watcher) -> Any:
    if kind == "iter" or request.get("stream"):
        return _stream(result, request, watcher)
    watcher.observe(request, result)
    return result


def _stream(stream: Any, request: Mapping[str, Any], watcher: _Watcher) -> Any:
    if hasattr(stream, "__aiter__"):
        return _ObservedAsyncStream(stream, request, watcher)
    return _ObservedStream(stream, request, watcher)


class _StreamBase:
    """Feeds each event to the vendor's usage accumulator; observes once, at the end."""

    def __init__(self, stream: Any, request: Mapping[str, Any], watcher: _Watcher) -> None:
        self._stream = stream
        self._request = request
        self._watcher = watcher
        self._accumulator = watcher.accumulator(request)
        self._done = False

    def _feed(self, event: Any) -> None:
        if self._accumulator is not None:
            try:
                self._accumulator.feed(event)
            except Exception:
                LOGGER.exception("promptcache: could not read a stream event")
                self._accumulator = None

    def _finish(self) -> None:
        if self._done or self._accumulator is None:
            return
        self._done = True
        try:
            usage = self._accumulator.usage
        except InputError as exc:  # no usage in the stream (OpenAI without include_usage)
            LOGGER.info("promptcache: stream carried no usage: %s", exc)
            return
        self._watcher.observe(self._request, usage=usage)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _ObservedStream(_StreamBase):
    def __iter__(self) -> Iterator[Any]:
        for event in self._stream:
            self._feed(event)
            yield event
        self._finish()

    def __next__(self) -> Any:
        try:
            event = next(self._stream)
        except StopIteration:
            self._finish()
            raise
        self._feed(event)
        return event

    def __enter__(self) -> _ObservedStream:
        enter = getattr(self._stream, "__enter__", None)
        if enter is not None:
            enter()
        return self

    def __exit__(self, *exc: Any) -> Any:
        exit_ = getattr(self._stream, "__exit__", None)
        return exit_(*exc) if exit_ is not None else None


class _ObservedAsyncStream(_StreamBase):
    async def _events(self) -> AsyncIterator[Any]:
        async for event in self._stream:
            self._feed(event)
            yield event
        self._finish()

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._events()

    async def __aenter__(self) -> _ObservedAsyncStream:
        enter = getattr(self._stream, "__aenter__", None)
        if enter is not None:
            await enter()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        exit_ = getattr(self._stream, "__aexit__", None)
        return await exit_(*exc) if exit_ is not None else None


def _manager_hook(method: Callable[..., Any], kind: str, watcher: _Watcher) -> Callable[..., Any]:
    """A streaming helper (`with client.messages.stream(...) as stream:`, OpenAI's
    `chat.completions.stream()` / `responses.stream()`, sync or async): the caller gets the SDK's
    own stream; the final usage is observed once, when the block exits."""

    def observed(*args: Any, **kwargs: Any) -> Any:
        manager = method(*args, **kwargs)
        if kind == "responses-manager" and "response_id" in kwargs:
            return manager  # resumes a stored response: no prompt is sent
        return _ObservedManager(manager, kind, watcher.request(kwargs), watcher)

    observed.__wrapped__ = method  # type: ignore[attr-defined]
    return observed


class _ObservedManager:
    """Wraps only the context manager; what `with` / `async with` yields is the SDK's stream."""

    def __init__(
        self, manager: Any, kind: str, request: Mapping[str, Any], watcher: _Watcher
    ) -> None:
        self._manager = manager
        self._kind = kind
        self._request = request
        self._watcher = watcher
        self._stream: Any = None
        self._done = False

    def __enter__(self) -> Any:
        self._stream = self._manager.__enter__()
        return self._stream

    def __exit__(self, *exc: Any) -> Any:
        self._observe()
        return self._manager.__exit__(*exc)

    async def __aenter__(self) -> Any:
        self._stream = await self._manager.__aenter__()
        return self._stream

    async def __aexit__(self, *exc: Any) -> Any:
        self._observe()
        return await self._manager.__aexit__(*exc)

    def _observe(self) -> None:
        """Reads what the stream has accumulated from the events the caller consumed (never
        reads further); observes nothing when the block left before the usage arrived."""
        if self._done or self._stream is None:
            return
        self._done = True
        try:
            if self._kind == "anthropic-manager":
                snapshot = _anthropic_snapshot(self._stream)
                if snapshot is not None:
                    self._watcher.observe(self._request, snapshot)
                return
            final = _openai_final(self._stream, self._kind)
        except Exception:  # an SDK whose stream internals moved: say so, never raise
            LOGGER.exception(
                "promptcache: could not read the %s stream", self._watcher.monitor.vendor
            )
            return
        if final is None:
            LOGGER.info("promptcache: the stream ended before its usage arrived; not observed")
            return
        accumulator = self._watcher.accumulator(self._request)
        if accumulator is None:
            return
        try:
            accumulator.feed(final)
            usage = accumulator.usage
        except InputError as exc:  # a chat stream without stream_options={"include_usage": True}
            LOGGER.info("promptcache: stream carried no usage: %s", exc)
            return
        except Exception:
            LOGGER.exception("promptcache: could not read the stream's usage")
            return
        self._watcher.observe(self._request, usage=usage)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._manager, name)


def _anthropic_snapshot(stream: Any) -> Any:
    current = getattr(stream, "_current_snapshot_or_none", None)
    try:
        return current() if callable(current) else stream.current_message_snapshot
    except Exception:  # the block exited before the stream started
        return None


def _openai_final(stream: Any, kind: str) -> Any:
    """
    What the SDK stream accumulated, as an event the adapter's accumulator reads, or None.

    Chat: `current_completion_snapshot` carries the `usage` of the last chunk read, which is the
    final `include_usage` chunk once the stream has been read to the end (None before, or
    without `include_usage`). Responses: the SDK keeps the `response.completed` response in its
    stream state; a stream that ended `response.incomplete` / `.failed` keeps no usage there.
    """
    if kind == "chat-manager":
        try:
            return stream.current_completion_snapshot
        except AssertionError:  # the SDK asserts when no chunk was read yet
            return None
    state = getattr(stream, "_state", None)
    response = getattr(state, "_completed_response", None)
    if response is None:
        return None
    return {"type": "response.completed", "response": response}
