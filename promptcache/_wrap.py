"""
`wrap(client)`: observe every call of an Anthropic, OpenAI or Gemini SDK client with a `Monitor`.

    client = promptcache.wrap(anthropic.Anthropic(), on_invalidation=alert)
    client.messages.create(**kwargs)          # same call, same result, now observed

The wrapper is a thin proxy: attribute access passes through to the real client, except on the
way to the methods that send prompts (each request format's `call_paths` in `vendors/`, plus
`SDK_PATHS`, what each SDK package adds around them: all plain tables of attribute paths). Those
call the real method, hand the request and the response (or, for a stream, the usage gathered as
the caller iterates) to the monitor, and return the SDK's own object. Around them:

- `with_options()` / `copy()` return the SDK's new client, wrapped the same way (same monitor);
- `with_raw_response` / `with_streaming_response` anywhere on a path: the caller gets the SDK's
  raw response; its `parse()` is observed (a raw non-streamed reply is parsed at once; the SDK
  caches that parse, so the caller's own `parse()` returns the same object);
- the streaming helpers (`messages.stream()`, `chat.completions.stream()`, `responses.stream()`)
  hand the caller the SDK's own stream and are observed once, when their block exits;
- a Gemini chat session (`chats.create()`) is handed the observed models;
- a path that sends prompts wrap() cannot observe (batches, WebSocket sessions, runners that send
  through the unwrapped client) logs one warning per path, and works as before.

Observing never changes or breaks the caller's call: each request is read the way the SDK
serialises it (`_sent`: any iterable, mapping, model or view the SDK accepts; one-shot iterators
are drained into a list the SDK is then given); what cannot be read is reported once per path
with its type, length and a short hash (never prompt text, never a traceback), and not observed.
Vendor errors propagate untouched.
"""

from __future__ import annotations

import copy
import functools
import inspect
import logging
import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar, cast

from ._errors import InputError, describe
from ._sent import IteratorFailed, Unreadable, read_call
from .debug.monitor import Invalidation, Monitor, adapter_for
from .debug.recorder import Recorder, as_location_name
from .sim._clocks import ClockMismatchError
from .vendors import VENDORS, Vendor, get_vendor, resolve_vendor
from .vendors._fields import get_field
from .vendors.vertex_anthropic import location_of

__all__ = ["PROMPT_ARGUMENTS", "SDK_PATHS", "SdkPaths", "wrap"]

LOGGER = logging.getLogger("promptcache.wrap")

ClientT = TypeVar("ClientT")


@dataclass(frozen=True, slots=True, kw_only=True)
class SdkPaths:
    """
    What one SDK package adds around the methods that send prompts, as dotted attribute paths
    from the client. The sending methods themselves are each request format's `call_paths` in
    `promptcache.vendors` (path -> how the method returns: "call", a response or a stream when
    `stream=True`; "iter", always a stream; "*-manager", a streaming helper's context manager,
    observed when its block exits; "chat-session", Gemini's `chats.create()`).

    `copies`: client methods that return a configured copy of the client.
    `modes`: attributes that change what the calls below them return (a raw HTTP response).
    `unobservable`: paths that send prompts wrap() cannot see, with the reason (warned once).
    `quiet`: methods beside those that take a prompt but cache nothing (token counting).
    `transport`: call arguments that are not part of the request body.

    Any other method on the resources along these paths that is called with a prompt argument
    (`PROMPT_ARGUMENTS`) is one these tables do not know yet: warned once, never silent.
    """

    copies: frozenset[str] = frozenset()
    modes: frozenset[str] = frozenset()
    unobservable: Mapping[str, str] = field(default_factory=dict)
    quiet: frozenset[str] = frozenset()
    transport: frozenset[str] = frozenset({"extra_headers", "extra_query", "timeout"})


PROMPT_ARGUMENTS = frozenset({"messages", "input", "contents", "system", "instructions"})


_BATCH = "a batch: its results arrive later, outside this call"
_SOCKET = "a realtime WebSocket session"
_STAINLESS = frozenset({"with_raw_response", "with_streaming_response"})

SDK_PATHS: dict[str, SdkPaths] = {
    # anthropic 2.14 (`Anthropic`, `AsyncAnthropic`)
    "anthropic": SdkPaths(
        copies=frozenset({"copy", "with_options", "with_middleware"}),
        modes=_STAINLESS,
        unobservable={
            "messages.batches.create": _BATCH,
            "beta.messages.batches.create": _BATCH,
            "beta.messages.tool_runner": "the runner sends each turn through the unwrapped client",
            "beta.messages.thread": "a thread sends each turn through the unwrapped client",
        },
        quiet=frozenset({"messages.count_tokens", "beta.messages.count_tokens"}),
        transport=frozenset({"extra_headers", "extra_query", "timeout", "betas"}),
    ),
    # openai 3.57 (`OpenAI`, `AsyncOpenAI`, and engines behind an OpenAI client)
    "openai": SdkPaths(
        copies=frozenset({"copy", "with_options"}),
        modes=_STAINLESS,
        unobservable={
            "batches.create": _BATCH,
            "completions.create": "legacy text completions, a request format promptcache does "
            "not read",
            "responses.compact": "compaction, whose usage promptcache does not read",
            "responses.connect": _SOCKET,
            "realtime.connect": _SOCKET,
            "beta.realtime.connect": _SOCKET,
        },
    ),
    # google-genai 3.6 (`genai.Client`, and its `aio`)
    "google-genai": SdkPaths(
        unobservable={
            "batches.create": _BATCH,
            "aio.batches.create": _BATCH,
            "live.connect": "a Live API WebSocket session",
            "aio.live.connect": "a Live API WebSocket session",
            "interactions.create": "the Interactions API, a request format promptcache does "
            "not read",
            "aio.interactions.create": "the Interactions API, a request format promptcache "
            "does not read",
        },
        quiet=frozenset(
            f"{side}models.{name}"
            for side in ("", "aio.")
            for name in ("count_tokens", "compute_tokens", "embed_content")
        ),
    ),
    # boto3 / botocore 1.44 (`bedrock-runtime`): hooked through botocore's events (_wrap_boto)
    "boto3": SdkPaths(
        unobservable={
            "start_async_invoke": "an asynchronous invocation: its result lands in S3",
            "invoke_model_with_bidirectional_stream": "a bidirectional audio stream",
        },
        quiet=frozenset({"count_tokens", "apply_guardrail"}),
        transport=frozenset(),
    ),
}


def wrap(
    client: ClientT,
    *,
    monitor: Monitor | None = None,
    vendor: str | Vendor | None = None,
    key: str | Callable[[Mapping[str, Any]], str] | None = None,
    on_invalidation: Callable[[Invalidation], Any] | None = None,
    recorder: Recorder | None = None,
) -> ClientT:
    """
    Return `client` with its prompt-sending methods observed; to a type checker (and to
    `isinstance`) it is still the client's own type.

    `recorder` appends each observed call to the log `promptcache report` reads (hashes and token
    counts only unless the Recorder was made with content="full"); with `monitor=`, give the
    recorder to that Monitor instead.

    `vendor` defaults from the client's package; pass "engine" for an OpenAI client pointed at
    vLLM, SGLang or llama.cpp. `key` (a string, or a function of the request) names the cache key
    per call; by default the monitor derives it from the request.
    """
    name = vendor or _vendor_of(client)
    sdk = _sdk_of(client) or get_vendor(name).sdk
    if monitor is not None and recorder is not None:
        raise InputError("pass recorder= to the Monitor you give wrap(), or no monitor")
    watcher = _Watcher(
        monitor or Monitor(name, on_invalidation=on_invalidation, recorder=recorder),
        key,
        sdk,
        SDK_PATHS[sdk],
        location=_location_of(client, name),
    )
    if sdk == "boto3":  # not httpx-based: botocore's event system instead of a proxy
        from ._wrap_boto import wrap_boto3

        return cast(ClientT, wrap_boto3(client, watcher, _Call, _stream))
    return cast(ClientT, _Proxy(client, (), None, _Routes.of(sdk), watcher))


_SDK_PACKAGES = (
    ("anthropic", "anthropic"),
    ("openai", "openai"),
    ("google.genai", "google-genai"),
    ("botocore", "boto3"),
    ("aiobotocore", "boto3"),  # its async client: the same events, awaited (_wrap_boto)
)


def _sdk_of(client: Any) -> str | None:
    """The SDK package a client is from (its call paths), whatever format it is told to send."""
    module = client.__class__.__module__
    return next(
        (
            sdk
            for package, sdk in _SDK_PACKAGES
            if module == package or module.startswith(package + ".")
        ),
        None,
    )


# Clients of one SDK package that send another request format than the package's own: the
# cloud platforms' classes, whose record applies (its minimums, prices and model names), not
# the first-party one (anthropic 2.15, openai 3.57).
_CLIENT_FORMATS = {
    "AnthropicBedrock": "bedrock-invoke",
    "AsyncAnthropicBedrock": "bedrock-invoke",
    "AnthropicVertex": "vertex-anthropic",
    "AsyncAnthropicVertex": "vertex-anthropic",
    "AnthropicFoundry": "foundry",
    "AsyncAnthropicFoundry": "foundry",
    "AnthropicBedrockMantle": "bedrock-mantle",
    "AsyncAnthropicBedrockMantle": "bedrock-mantle",
    "AzureOpenAI": "azure-openai",
    "AsyncAzureOpenAI": "azure-openai",
}


def _vendor_of(client: Any) -> str:
    own = _CLIENT_FORMATS.get(client.__class__.__name__)
    if own is not None:
        return own
    if _vertex_genai(client):
        return "vertex-gemini"
    module = client.__class__.__module__  # a wrapped client's too: wrap() twice nests
    for package, name in (
        ("anthropic", "anthropic"),
        ("openai", "openai"),
        ("google.genai", "gemini"),
        ("botocore", "bedrock-converse"),
        ("aiobotocore", "bedrock-converse"),
    ):
        if module == package or module.startswith(package + "."):
            return name
    raise InputError(
        f"wrap() supports Anthropic, OpenAI and Gemini SDK clients (their Bedrock, Vertex AI, "
        f"Azure and Foundry classes too) and boto3 'bedrock-runtime' clients, got "
        f"{client.__class__.__qualname__} from {module!r}; pass vendor=... if it is one of those "
        "behind another class"
    )


def _location_of(client: Any, vendor: str | Vendor) -> str | None:
    """Where a Vertex AI client's calls go (`AnthropicVertex(region=)`, `genai.Client(location=)`):
    recorded with each call, so `report` prices Claude at its location's tier; None elsewhere
    (a Bedrock price follows its model id's inference profile, not a location)."""
    if get_vendor(vendor).name not in _VERTEX:
        return None
    try:
        return _client_location(client)
    except Exception:  # a client whose internals moved: not a reason to fail wrap()
        return None


def _client_location(client: Any) -> str | None:
    """The client's location, as a location name or None (`as_location_name`)."""
    return as_location_name(location_of(client))


_VERTEX = frozenset({"vertex-anthropic", "vertex-gemini"})


def _vertex_genai(client: Any) -> bool:
    """A google-genai client made with `vertexai=True` (its `aio` side too)."""
    if not client.__class__.__module__.startswith("google.genai"):
        return False
    api = getattr(client, "_api_client", None)
    return getattr(api, "vertexai", None) is True


@dataclass(frozen=True, slots=True)
class _Routes:
    """A `CallPaths` as the proxy walks it: tuples of attribute names, and every prefix."""

    sends: dict[tuple[str, ...], str]
    unobservable: dict[tuple[str, ...], str]
    prefixes: frozenset[tuple[str, ...]]
    quiet: frozenset[tuple[str, ...]]
    copies: frozenset[str]
    modes: frozenset[str]

    @classmethod
    def of(cls, sdk: str) -> _Routes:
        """The routes of one SDK: the call paths of every request format it sends, and its own."""
        paths = SDK_PATHS[sdk]
        sends = {path: kind for v in VENDORS if v.sdk == sdk for path, kind in v.call_paths.items()}
        unobservable = {tuple(p.split(".")): why for p, why in paths.unobservable.items()}
        prefixes = {path[:n] for path in (*sends, *unobservable) for n in range(1, len(path))}
        quiet = frozenset(tuple(p.split(".")) for p in paths.quiet)
        return cls(sends, unobservable, frozenset(prefixes), quiet, paths.copies, paths.modes)


class _Watcher:
    """The monitor, the key rule and the warnings already given; never raises to the caller."""

    def __init__(
        self,
        monitor: Monitor,
        key: str | Callable[[Mapping[str, Any]], str] | None,
        sdk: str,
        paths: SdkPaths,
        *,
        location: str | None = None,
    ) -> None:
        self.monitor = monitor
        self.key = key
        self.sdk = sdk
        self.transport = paths.transport
        self.location = location  # a Vertex AI client's location, recorded with each call
        self._said: set[tuple[str, ...]] = set()
        self._lock = threading.Lock()

    def relocated(self, location: str | None) -> _Watcher:
        """This watcher for a copy of the client sending to another location (`with_options(
        region=...)`): the same monitor, key rule and warnings said."""
        if location == self.location:
            return self
        moved = copy.copy(self)
        moved.location = location
        return moved

    def once(self, level: int, what: tuple[str, ...], message: str, *args: Any) -> None:
        """Log `message` the first time `what` happens for this wrapped client, never again."""
        with self._lock:
            if what in self._said:
                return
            self._said.add(what)
        LOGGER.log(level, message, *args)

    def prepare(self, call: str, kwargs: dict[str, Any]) -> tuple[dict[str, Any] | None, Any]:
        """
        The request `call` sends, as the SDK serialises it (None when it cannot be read, said
        once), and the kwargs to hand the SDK: the caller's own, with any one-shot iterator
        drained into a list (the SDK sends either as the same JSON array).
        """
        request: dict[str, Any] = {}
        try:
            request, kwargs = read_call(kwargs, self.transport, self.sdk)
        except IteratorFailed as failed:  # the caller's iterator: the SDK would raise it too
            raise failed.original from None
        except Unreadable as exc:
            self._unreadable(call, exc.path, exc.why, exc.shape)
            return None, kwargs if exc.settled is None else exc.settled
        except Exception as exc:  # promptcache's own failure: never the caller's problem
            self._unreadable(call, "request", f"{type(exc).__name__} while reading", "")
            return None, kwargs
        try:  # a request of the monitor's vendor (or, with none named, of any)?
            fits = resolve_vendor(request, self.monitor.vendor)
        except InputError:  # its message may quote the prompt: name the shape only
            named = self.monitor.vendor or "any vendor"
            why = f"not a request promptcache reads as {named}"
            self._unreadable(call, "request", why, describe(request))
            return None, kwargs
        try:
            fits.spans(request)  # its containers have the format's shapes?
        except InputError as exc:  # its message may quote the prompt: name the field only
            where = _field_of(exc, request)
            shape = describe(kwargs.get(where, request.get(where)))
            self._unreadable(call, where, "not a shape of this vendor's request", shape)
            return None, kwargs
        except Exception as exc:
            self._unreadable(call, "request", f"{type(exc).__name__} while reading", "")
            return None, kwargs
        return request, kwargs

    def _unreadable(self, call: str, where: str, why: str, shape: str) -> None:
        self.once(
            logging.WARNING,
            ("unreadable", call, where, shape.split(",", 1)[0]),
            "promptcache: wrap() cannot read %s of %s (%s: %s); such calls are not observed",
            where,
            call,
            why,
            shape,
        )

    def now(self) -> float:
        """The monitor's clock: when a call is sent (a fleet orders a key's calls by it)."""
        return self.monitor.now()

    def observe(
        self,
        call: str,
        request: Mapping[str, Any],
        response: Any = None,
        usage: Any = None,
        *,
        sent_at: float | None = None,
    ) -> None:
        try:
            key = self.key(request) if callable(self.key) else self.key
            self.monitor.observe(
                request, response, usage=usage, key=key, sent_at=sent_at, location=self.location
            )
        except ClockMismatchError as exc:  # no prompt in it, and its fix is the point
            self.once(logging.WARNING, ("clock", call), "promptcache: %s", exc)
        except Exception as exc:  # its message may quote the prompt: name the type only
            self.once(
                logging.WARNING,
                ("observe", call, type(exc).__name__),
                "promptcache: could not observe a %s call to %s (%s); its result is untouched",
                self.monitor.vendor,
                call,
                type(exc).__name__,
            )

    def accumulator(self, call: str, request: Mapping[str, Any]) -> Any:
        try:
            adapter = adapter_for(self.monitor.vendor, request)
            # a reader that needs the request (Bedrock's stream: its model) takes it
            for_request = getattr(adapter, "accumulator_for", None)
            return adapter.accumulator() if for_request is None else for_request(request)
        except Exception as exc:
            self.once(
                logging.WARNING,
                ("accumulator", call),
                "promptcache: no %s stream reader for %s (%s); its streams are not observed",
                self.monitor.vendor,
                call,
                type(exc).__name__,
            )
            return None


_FIELD = re.compile(r"([A-Za-z_]\w*)")


def _field_of(exc: Exception, request: Mapping[str, Any]) -> str:
    """The top-level field a reader error names (its message starts with the path)."""
    match = _FIELD.match(str(exc))
    name = match.group(1) if match else ""
    return name if name in request else "request"


class _Proxy:
    """Passes attributes through; wraps the hooked methods and the objects on the way to them."""

    __slots__ = ("_mode", "_path", "_routes", "_target", "_watcher")

    def __init__(
        self,
        target: Any,
        path: tuple[str, ...],
        mode: str | None,
        routes: _Routes,
        watcher: _Watcher,
    ) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_mode", mode)
        object.__setattr__(self, "_routes", routes)
        object.__setattr__(self, "_watcher", watcher)

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # isinstance(wrapped, anthropic.Anthropic) holds
        return type(self._target)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        routes = self._routes
        if name in routes.modes:
            return _Proxy(value, self._path, name, routes, self._watcher)
        if not self._path and self._mode is None and name in routes.copies and callable(value):
            return _copy_hook(value, routes, self._watcher)
        path = (*self._path, name)
        kind = routes.sends.get(path)
        if kind is not None:
            return self._hook(value, path, kind)
        why = routes.unobservable.get(path)
        if why is not None:
            _say_unobservable(self._watcher, _dotted(path, self._mode), why)
            return value
        if path in routes.prefixes:
            return _Proxy(value, path, self._mode, routes, self._watcher)
        if self._path and callable(value) and not name.startswith("_") and path not in routes.quiet:
            return _unknown_hook(value, _dotted(path, self._mode), self._watcher)
        return value

    def _hook(self, method: Any, path: tuple[str, ...], kind: str) -> Any:
        call = _dotted(path, self._mode)
        if kind == "chat-session":
            models = (*path[:-2], "models")
            return _chat_session_hook(
                method,
                lambda real: _Proxy(real, models, None, self._routes, self._watcher),
                self._watcher,
            )
        if kind.endswith("-manager"):
            if self._mode is not None:  # no SDK offers this; say so rather than guess
                _say_unobservable(self._watcher, call, "a streaming helper behind " + self._mode)
                return method
            return _manager_hook(method, kind, call, self._watcher)
        return _hook(method, kind, call, self._mode, self._watcher)

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


def _dotted(path: tuple[str, ...], mode: str | None) -> str:
    return ".".join(path) + (f" ({mode})" if mode else "")


def _say_unobservable(watcher: _Watcher, call: str, why: str) -> None:
    watcher.once(
        logging.WARNING,
        ("unobservable", call),
        "promptcache: wrap() cannot observe %s (%s); calls through it are not checked",
        call,
        why,
    )


def _unknown_hook(method: Callable[..., Any], call: str, watcher: _Watcher) -> Any:
    """A method the table does not know on a prompt-sending resource: said once when it is
    called with a prompt, so a path a newer SDK adds is never silently unobserved."""

    @functools.wraps(method)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if PROMPT_ARGUMENTS.intersection(kwargs):
            _say_unobservable(watcher, call, "a method this promptcache does not know")
        return method(*args, **kwargs)

    return checked


def _copy_hook(method: Callable[..., Any], routes: _Routes, watcher: _Watcher) -> Any:
    """`with_options()` / `copy()`: the SDK's new client, observed by the same monitor."""

    def observed(*args: Any, **kwargs: Any) -> Any:
        new = method(*args, **kwargs)
        moved = watcher if watcher.location is None else watcher.relocated(_client_location(new))
        return _Proxy(new, (), None, routes, moved)

    observed.__wrapped__ = method  # type: ignore[attr-defined]
    return observed


def _chat_session_hook(
    create: Callable[..., Any], observe: Callable[[Any], _Proxy], watcher: _Watcher
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
            _say_unobservable(watcher, "chats.create", "this SDK's chat session internals moved")
            return chat
        chat._modules = observe(real)
        return chat

    observed.__wrapped__ = create  # type: ignore[attr-defined]
    return observed


def _hook(
    method: Callable[..., Any], kind: str, call: str, mode: str | None, watcher: _Watcher
) -> Callable[..., Any]:
    def observed(*args: Any, **kwargs: Any) -> Any:
        request, kwargs = watcher.prepare(call, kwargs)
        sent = watcher.now()
        result = method(*args, **kwargs)
        if request is None:
            return result
        if mode == "with_streaming_response":  # a context manager, sync or async
            return _ObservedResponseManager(result, _Call(call, request, kind, watcher, sent))
        here = _Call(call, request, kind, watcher, sent)
        # Async clients return a coroutine (the SDKs' decorators hide `async def` from inspect).
        if inspect.isawaitable(result):
            return _after_await(result, here, mode)
        if mode == "with_raw_response":
            return here.raw(result)
        return here.after(result)

    observed.__wrapped__ = method  # type: ignore[attr-defined]
    return observed


@dataclass(frozen=True, slots=True)
class _Call:
    """
    One observed call: its path, the request it sent, how it returns, who watches it, and when
    it was sent.
    """

    name: str
    request: Mapping[str, Any]
    kind: str
    watcher: _Watcher
    sent: float

    @property
    def streams(self) -> bool:
        return self.kind == "iter" or bool(self.request.get("stream"))

    def after(self, result: Any) -> Any:
        """The SDK's result, observed (a stream is returned wrapped, observed at its end)."""
        if self.streams:
            return _stream(result, self)
        self.watcher.observe(self.name, self.request, result, sent_at=self.sent)
        return result

    def raw(self, response: Any) -> Any:
        """A raw response: a reply is parsed now (the SDK caches it for the caller's parse())."""
        if self.streams:
            return _ObservedRaw(response, self)
        try:
            parsed = response.parse()
        except Exception as exc:
            self._unparseable(exc)
            return response
        self.after(parsed)
        return response

    async def araw(self, response: Any) -> Any:
        if self.streams:
            return _ObservedRaw(response, self)
        try:  # an async client's raw response parses async, except OpenAI's legacy one
            parsed = response.parse()
            if inspect.isawaitable(parsed):
                parsed = await parsed
        except Exception as exc:
            self._unparseable(exc)
            return response
        self.after(parsed)
        return response

    def unparsed(self) -> None:
        self.watcher.once(
            logging.WARNING,
            ("unparsed", self.name),
            "promptcache: %s was read without parse(); such calls are not observed",
            self.name,
        )

    def _unparseable(self, exc: Exception) -> None:
        self.watcher.once(
            logging.WARNING,
            ("unparsed", self.name),
            "promptcache: could not parse the raw response of %s (%s); not observed",
            self.name,
            type(exc).__name__,
        )


async def _after_await(pending: Awaitable[Any], call: _Call, mode: str | None) -> Any:
    result = await pending
    if mode == "with_raw_response":
        return await call.araw(result)
    return call.after(result)


class _ObservedRaw:
    """
    A raw response whose body is still to be read (a stream, or `with_streaming_response`):
    `parse()` returns what the SDK's does, observed (a stream wrapped, a reply observed once).
    """

    def __init__(self, response: Any, call: _Call) -> None:
        self._response = response
        self._call = call
        self._parsed: list[Any] = []  # the caller's parse() result, once taken

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return type(self._response)

    @property
    def observed(self) -> bool:
        return bool(self._parsed)

    def parse(self, *args: Any, **kwargs: Any) -> Any:
        result = self._response.parse(*args, **kwargs)
        if args or kwargs:  # parsed into the caller's own type: nothing this can read
            return result
        if inspect.isawaitable(result):
            return self._take_later(result)
        return self._take(result)

    async def _take_later(self, pending: Awaitable[Any]) -> Any:
        return self._take(await pending)

    def _take(self, parsed: Any) -> Any:
        if not self._parsed:
            self._parsed.append(self._call.after(parsed))
        return self._parsed[0]

    def __getattr__(self, name: str) -> Any:
        if name in _BODY_READERS and not self._parsed:
            self._call.unparsed()
        return getattr(self._response, name)


# What reads a raw response's body past parse(): a body read this way is not observed.
_BODY_READERS = frozenset(
    {"iter_bytes", "iter_text", "iter_lines", "iter_raw", "iter_events", "text", "json", "content"}
)


class _ObservedResponseManager:
    """`with_streaming_response`'s context manager: yields the raw response, parse() observed."""

    def __init__(self, manager: Any, call: _Call) -> None:
        self._manager = manager
        self._call = call
        self._response: _ObservedRaw | None = None

    def __enter__(self) -> Any:
        self._response = _ObservedRaw(self._manager.__enter__(), self._call)
        return self._response

    def __exit__(self, *exc: Any) -> Any:
        self._check()
        return self._manager.__exit__(*exc)

    async def __aenter__(self) -> Any:
        self._response = _ObservedRaw(await self._manager.__aenter__(), self._call)
        return self._response

    async def __aexit__(self, *exc: Any) -> Any:
        self._check()
        return await self._manager.__aexit__(*exc)

    def _check(self) -> None:
        if self._response is not None and not self._response.observed:
            self._call.unparsed()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._manager, name)


def _stream(stream: Any, call: _Call) -> Any:
    if hasattr(stream, "__aiter__"):
        return _ObservedAsyncStream(stream, call)
    return _ObservedStream(stream, call)


class _StreamBase:
    """Feeds each event to the vendor's usage accumulator; observes once, at the end."""

    def __init__(self, stream: Any, call: _Call) -> None:
        self._stream = stream
        self._call = call
        self._accumulator = call.watcher.accumulator(call.name, call.request)
        self._done = False

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        return type(self._stream)

    def _feed(self, event: Any) -> None:
        if self._accumulator is not None:
            try:
                self._accumulator.feed(event)
            except Exception as exc:
                self._call.watcher.once(
                    logging.WARNING,
                    ("event", self._call.name),
                    "promptcache: could not read a stream event of %s (%s); not observed",
                    self._call.name,
                    type(exc).__name__,
                )
                self._accumulator = None

    def _finish(self) -> None:
        if self._done or self._accumulator is None:
            return
        self._done = True
        try:
            usage = self._accumulator.usage
        except InputError:  # no usage in the stream (OpenAI without include_usage)
            _no_usage(self._call.watcher, self._call.name, self._call.request)
            return
        self._call.watcher.observe(
            self._call.name, self._call.request, usage=usage, sent_at=self._call.sent
        )

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

    async def __anext__(self) -> Any:
        try:
            event = await self._stream.__anext__()
        except StopAsyncIteration:
            self._finish()
            raise
        self._feed(event)
        return event

    async def __aenter__(self) -> _ObservedAsyncStream:
        enter = getattr(self._stream, "__aenter__", None)
        if enter is not None:
            await enter()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        exit_ = getattr(self._stream, "__aexit__", None)
        return await exit_(*exc) if exit_ is not None else None


def _manager_hook(
    method: Callable[..., Any], kind: str, call: str, watcher: _Watcher
) -> Callable[..., Any]:
    """A streaming helper (`with client.messages.stream(...) as stream:`, OpenAI's
    `chat.completions.stream()` / `responses.stream()`, sync or async): the caller gets the SDK's
    own stream; the final usage is observed once, when the block exits."""

    def observed(*args: Any, **kwargs: Any) -> Any:
        if kind == "responses-manager" and "response_id" in kwargs:
            return method(*args, **kwargs)  # resumes a stored response: no prompt is sent
        request, kwargs = watcher.prepare(call, kwargs)
        sent = watcher.now()
        manager = method(*args, **kwargs)
        if request is None:
            return manager
        return _ObservedManager(manager, _Call(call, request, kind, watcher, sent))

    observed.__wrapped__ = method  # type: ignore[attr-defined]
    return observed


class _ObservedManager:
    """Wraps only the context manager; what `with` / `async with` yields is the SDK's stream."""

    def __init__(self, manager: Any, call: _Call) -> None:
        self._manager = manager
        self._call = call
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
        call, watcher = self._call, self._call.watcher
        try:
            if call.kind == "anthropic-manager":
                snapshot = _anthropic_snapshot(self._stream)
                if snapshot is not None:
                    _observe_snapshot(watcher, call, snapshot)
                return
            final = _openai_final(self._stream, call.kind)
        except Exception as exc:  # an SDK whose stream internals moved: say so, never raise
            watcher.once(
                logging.WARNING,
                ("stream", call.name),
                "promptcache: could not read the %s stream of %s (%s); not observed",
                watcher.monitor.vendor,
                call.name,
                type(exc).__name__,
            )
            return
        if final is None:
            LOGGER.info("promptcache: the stream ended before its usage arrived; not observed")
            return
        accumulator = watcher.accumulator(call.name, call.request)
        if accumulator is None:
            return
        try:
            accumulator.feed(final)
            usage = accumulator.usage
        except InputError:  # a chat stream without stream_options={"include_usage": True}
            _no_usage(watcher, call.name, call.request)
            return
        except Exception as exc:
            watcher.once(
                logging.WARNING,
                ("usage", call.name),
                "promptcache: could not read the stream usage of %s (%s); not observed",
                call.name,
                type(exc).__name__,
            )
            return
        watcher.observe(call.name, call.request, usage=usage, sent_at=call.sent)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._manager, name)


def _observe_snapshot(watcher: _Watcher, call: _Call, snapshot: Any) -> None:
    """
    The Anthropic SDK's message so far. Its output count is message_start's provisional one
    until a message_delta arrives (which also sets `stop_reason`): a block left before then is
    observed with its output unknown, not that first token or so.
    """
    if get_field(snapshot, "stop_reason") is not None:
        watcher.observe(call.name, call.request, snapshot, sent_at=call.sent)
        return
    usage = replace(get_vendor("anthropic").read_usage(snapshot), output=None)
    watcher.observe(call.name, call.request, usage=usage, sent_at=call.sent)


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


def _no_usage(watcher: _Watcher, name: str, request: Mapping[str, Any]) -> None:
    """
    A stream ended without usage, so this call was not observed: said each time at INFO, and
    once per path as a warning with the fix when the request never asked for usage (a stream
    left before its usage chunk is the caller's choice, not a setting to fix).
    """
    LOGGER.info("promptcache: stream carried no usage: %s not observed", name)
    options = request.get("stream_options")
    if not (isinstance(options, Mapping) and options.get("include_usage")):
        watcher.once(
            logging.WARNING,
            ("no-usage", name),
            "promptcache: %s streams without usage, so wrap() cannot observe them; pass "
            "stream_options={'include_usage': True}",
            name,
        )
