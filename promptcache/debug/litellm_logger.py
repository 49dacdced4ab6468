"""
Feed a `Monitor` from LiteLLM: `MonitorLogger` is a LiteLLM `CustomLogger` callback.

    litellm.callbacks = [MonitorLogger(Monitor())]

The monitor judges the request LiteLLM sent to the provider, after its translation (for an
Anthropic model, the Anthropic Messages body with its `system` blocks and `cache_control`; for
OpenAI, the Chat Completions body), so a cause names the field as the provider saw it. LiteLLM
hands that body to callbacks before the call (`log_pre_api_call`); it is copied there, on the
caller's thread, because the success callbacks run later (sync ones on LiteLLM's thread pool),
when the caller may already have appended the next turn to its messages. Providers that name the
model in the URL, not the body (Vertex AI, AI Studio, Bedrock), get the model LiteLLM called
added to the copy as `model` (as `wrap()` sees a Gemini SDK call, `model=` and all), so the
monitor's default key is per model there too and a switch of model is named as one. The usage is
the one LiteLLM reports, cache read and creation tokens included; a Gemini body's omitted cache
read is a read of 0.

Bedrock's Converse route (LiteLLM's default for `bedrock/` models) is judged in the Converse
format, its `cachePoint` blocks read as the markers they are. The `azure/` route's OpenAI body
(Chat Completions or Responses) is judged as Azure OpenAI's, under Azure's record. The
`azure_ai/` route (Azure AI Foundry) is judged by the route LiteLLM takes for the model: Claude
as Foundry's, an OpenAI model as Azure OpenAI's; another family served by Foundry's model
inference is not judged (no caching rules for it here), and said.

Not judged, and said: a response LiteLLM served from its own cache (`litellm.cache`; no provider
was asked, so there is no provider cache read or miss), and a Bedrock InvokeModel body other
than Anthropic's (Amazon Nova's is Converse-shaped, but its InvokeModel rules are not Converse's).

Nothing here raises into LiteLLM's call or logs prompt text: a call that cannot be observed is
counted in `unobserved` and said once per reason on the logger, by name only.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from .._errors import InputError, MissingDependencyError
from .._usage import CacheUsage
from ..vendors import resolve_vendor
from ..vendors._fields import get_field
from ..vendors._openai import OpenAIChatStream, openai_model
from .counted import counted_usage, token_count
from .monitor import Monitor, adapter_for
from .recorder import as_location_name

try:
    from litellm.integrations.custom_logger import CustomLogger
except ImportError as error:  # pragma: no cover - depends on what the user installed
    raise MissingDependencyError(
        "litellm", "litellm", "promptcache.debug.litellm_logger"
    ) from error

__all__ = ["METADATA_KEY", "MonitorLogger", "litellm_usage"]

LOGGER = logging.getLogger("promptcache.monitor")
# the LiteLLM metadata entry that names the cache key: litellm.completion(..., metadata={...})
# or, through the proxy, the request body's "metadata"
METADATA_KEY = "promptcache_key"
# what LiteLLM puts in place of the messages when message logging is off for a callback
REDACTED = "redacted-by-litellm"
# LiteLLM's call types judged: chat completions (litellm.completion/acompletion, the proxy's
# /chat/completions), the Responses API (litellm.responses/aresponses, the proxy's /responses)
# and Anthropic's Messages API (litellm.anthropic.messages, the proxy's /v1/messages), whatever
# the provider; embeddings and the rest are counted only
JUDGED_CALLS = frozenset(
    {"completion", "acompletion", "responses", "aresponses", "anthropic_messages"}
)
# the paths of Bedrock's Converse API, whose body (`system: [{"text"}, {"cachePoint"}]`,
# `inferenceConfig`) is read in the Converse format (`vendors.bedrock_converse`)
CONVERSE_PATHS = ("/converse", "/converse-stream")
# how many answered call ids are kept to tell LiteLLM's second report of a call
ANSWERED_KEPT = 4096
# how a LiteLLM model name asks for Bedrock's InvokeModel API (its Anthropic body, judged)
BEDROCK_INVOKE = "invoke/"
BEDROCK_CONVERSE = "converse/"
# what tells Anthropic's Messages body on Bedrock from the other model families' bodies
BEDROCK_ANTHROPIC = "anthropic_version"
# LiteLLM providers that send a first-party body to a cloud platform whose record applies (its
# rules, minimums, prices), the body alone not saying so: `azure/` sends OpenAI's Chat or
# Responses body to an Azure OpenAI deployment (the Responses sibling is taken by its shape).
# Not `azure_ai/`: Azure AI Foundry's model inference, which serves many model families, is
# judged by its route (`_azure_ai_vendor`).
PLATFORM_PROVIDERS = {"azure": "azure-openai"}
# LiteLLM's Azure AI Foundry provider: a Claude model goes to Foundry's Anthropic endpoint
# (`/anthropic/v1/messages`; LiteLLM's rule: "claude" in the model name), an OpenAI model is an
# Azure OpenAI deployment, and the other families served by Foundry's model inference (Llama,
# Mistral, DeepSeek, Phi, ...) have no documented caching rules here
AZURE_AI = "azure_ai"

Key = str | Callable[[Mapping[str, Any]], str | None] | None

WHY = {
    "not_chat": "only chat completions, Responses and Anthropic Messages calls are judged "
    "(litellm.completion, acompletion, responses, aresponses, anthropic.messages; the proxy's "
    "/chat/completions, /responses and /v1/messages); this call was:",
    "litellm_cache": "LiteLLM answered from its own response cache (litellm.cache): no provider "
    "was asked, so there is no provider cache read or miss to judge",
    "bedrock_not_anthropic": "a Bedrock InvokeModel body not in Anthropic's format (no "
    "anthropic_version: Amazon Nova's, Meta's, ...), which promptcache does not read; on Bedrock "
    "only Anthropic models are judged, called as bedrock/invoke/<model id>",
    "azure_ai_other": "an azure_ai/ call to a model served by Azure AI Foundry's model "
    "inference that is neither Claude (judged as Foundry's) nor OpenAI's (judged as Azure "
    "OpenAI's): promptcache has no prompt-caching rules for its family, so it is not judged "
    "by OpenAI's",
    "no_request": "LiteLLM did not hand over the request it sent (no log_pre_api_call for it)",
    "not_json": "the request LiteLLM sent is not plain JSON data",
    "redacted": "LiteLLM withheld the messages from callbacks (message logging is off), and "
    "promptcache keeps to that: nothing to compare",
    "no_usage": "the response carries no prompt token count",
    "estimated_usage": "a Chat Completions stream sent without "
    "stream_options={'include_usage': True}: the provider reported no usage and LiteLLM's "
    "count is an estimate without cache reads; pass stream_options={'include_usage': True}",
    "too_many_in_flight": "more calls in flight than max_in_flight (or their requests over "
    "max_in_flight_bytes): the oldest was dropped; a stream stays in flight until it is "
    "read to its end",
    "unreadable": "the monitor could not read the request",
    "failed": "observing failed",
}


def litellm_usage(response: Any, provider: str | None) -> CacheUsage | None:
    """
    The usage of a LiteLLM response, or None when it reports no prompt token count.

    LiteLLM counts cached tokens inside `prompt_tokens` for every provider (for Anthropic it adds
    the cache read and creation tokens to `input_tokens`), so they are split out of it.
    """
    usage = get_field(response, "usage")
    total = token_count(get_field(usage, "prompt_tokens"))
    if usage is None or total is None:
        return None
    details = get_field(usage, "prompt_tokens_details")
    read = token_count(get_field(usage, "cache_read_input_tokens"))
    if read is None:
        read = token_count(get_field(details, "cached_tokens"))
    write = token_count(get_field(usage, "cache_creation_input_tokens"))
    if write is None:
        write = token_count(get_field(details, "cache_creation_tokens"))
    model = get_field(response, "model")
    return counted_usage(
        total=total,
        read=read,
        write=write,
        output=token_count(get_field(usage, "completion_tokens")),  # absent: unknown, not 0
        vendor=provider or "",
        model=model if isinstance(model, str) else None,
    )


def _sent_copy(sent: Any, model: Any) -> tuple[dict[str, Any], int] | None:
    """
    A deep copy of the body LiteLLM sends (a dict, or its JSON text) and its JSON size; `model`,
    the model LiteLLM called, is added where the body names none (the provider takes it from
    the URL).
    """
    text = sent if isinstance(sent, (str, bytes)) else orjson.dumps(sent)
    data = orjson.loads(text)
    if not isinstance(data, dict):
        return None
    if "model" not in data and isinstance(model, str) and model:
        data["model"] = model
    return data, len(text)


def _called_model(model: Any, provider: Any) -> Any:
    """The model LiteLLM called, less the route it was told to take (`bedrock/invoke/`, ...)."""
    if provider == "bedrock" and isinstance(model, str):
        for route in (BEDROCK_INVOKE, BEDROCK_CONVERSE):
            if model.startswith(route):
                return model[len(route) :]
    return model


def _converse(extra: Mapping[str, Any], kwargs: Mapping[str, Any]) -> bool:
    """A call to Bedrock's Converse API, told by the URL LiteLLM sent it to."""
    url = extra.get("api_base")
    if kwargs.get("custom_llm_provider") != "bedrock" or not isinstance(url, str):
        return False
    return url.split("?", 1)[0].rstrip("/").endswith(CONVERSE_PATHS)


def _bedrock_other(copy: tuple[dict[str, Any], int] | str, kwargs: Mapping[str, Any]) -> bool:
    """
    A Bedrock body that is not Anthropic's: LiteLLM writes `anthropic_version` into theirs, but
    for the Mantle endpoint, which sends it as a header and names the `anthropic.` model.
    """
    if kwargs.get("custom_llm_provider") != "bedrock" or not isinstance(copy, tuple):
        return False
    model = copy[0].get("model")
    anthropic = isinstance(model, str) and "anthropic." in model
    return BEDROCK_ANTHROPIC not in copy[0] and not anthropic


# LiteLLM's Vertex AI providers, and the parameters that name the location a call went to
_VERTEX_PROVIDERS = frozenset({"vertex_ai", "vertex_ai_beta"})
_VERTEX_LOCATION_PARAMS = ("vertex_location", "vertex_ai_location")


def _vertex_location(kwargs: Mapping[str, Any], provider: Any) -> str | None:
    """Where a `vertex_ai/` call went (`vertex_location=`), for the recorder's log: `report`
    prices Claude on Vertex AI at its location's tier; None for other routes or when unnamed."""
    if provider not in _VERTEX_PROVIDERS:
        return None
    params = kwargs.get("litellm_params")
    for source in (params if isinstance(params, Mapping) else {}, kwargs):
        for name in _VERTEX_LOCATION_PARAMS:
            value = source.get(name)
            if isinstance(value, str) and value:
                return as_location_name(value)  # `US-Central1` is us-central1; not a name: None
    return None


def _azure_ai_vendor(sent: Mapping[str, Any]) -> str | None:
    """The record an `azure_ai/` call is judged under, by the route LiteLLM took for its model:
    Foundry's for Claude, Azure OpenAI's for an OpenAI model; None for another family."""
    model = sent.get("model")
    if isinstance(model, str) and "claude" in model.lower():
        return "foundry"
    return "azure-openai" if openai_model(model) else None


def _reported_read(usage: CacheUsage, sent: Mapping[str, Any]) -> CacheUsage:
    """
    Gemini's usage, written as proto3 JSON, leaves `cachedContentTokenCount` out when it is 0,
    and LiteLLM passes the absence on as no count: for a request in Gemini's format that is a
    read of 0 (as promptcache's Gemini reader takes it), not "caching unreported".
    """
    if usage.cache_read is not None or resolve_vendor(sent, None).name != "gemini":
        return usage
    return dataclasses.replace(usage, cache_read=0)


def _asks_for_usage(request: Mapping[str, Any]) -> bool:
    options = request.get("stream_options")
    extra = request.get("extra_body")
    if not isinstance(options, Mapping) and isinstance(extra, Mapping):
        options = extra.get("stream_options")
    return isinstance(options, Mapping) and options.get("include_usage") is True


def _chat_stream_without_usage(request: Mapping[str, Any]) -> bool:
    """A Chat Completions stream (read like one by the request's format) that asked no usage."""
    chat = isinstance(adapter_for(None, request).accumulator(), OpenAIChatStream)
    return chat and not _asks_for_usage(request)


def _metadata_key(kwargs: Mapping[str, Any]) -> str | None:
    params = kwargs.get("litellm_params")
    if not isinstance(params, Mapping):
        return None
    for name in ("metadata", "litellm_metadata"):
        metadata = params.get(name)
        if isinstance(metadata, Mapping):
            value = metadata.get(METADATA_KEY)
            if isinstance(value, str) and value:
                return value
    return None


class MonitorLogger(CustomLogger):
    """
    A LiteLLM callback that observes every successful completion, Responses and Anthropic
    Messages call on `monitor`.

    `key` names the cache key of every call: a string, or a function of the request sent
    (returning None keeps the default). Without it, a call's LiteLLM metadata entry
    `promptcache_key` names it, else the monitor's default key of the request sent
    (`prompt_cache_key`, Anthropic's `metadata.user_id`, else vendor and model).
    `max_in_flight` and `max_in_flight_bytes` (their JSON size) bound the requests held between
    LiteLLM's pre-call and success hooks: a call is in flight until its response, or a stream
    until it was read to its end.
    """

    def __init__(
        self,
        monitor: Monitor,
        *,
        key: Key = None,
        logger: logging.Logger | None = None,
        max_in_flight: int = 10_000,
        max_in_flight_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        if not isinstance(monitor, Monitor):
            raise InputError(f"MonitorLogger needs a Monitor, got {type(monitor).__name__}")
        if not (key is None or isinstance(key, str) or callable(key)):
            raise InputError(
                f"key must be a string or a function of the request, got {type(key).__name__}"
            )
        if max_in_flight < 1 or max_in_flight_bytes < 1:
            raise InputError(
                "max_in_flight and max_in_flight_bytes must be >= 1, got "
                f"{max_in_flight} and {max_in_flight_bytes}"
            )
        super().__init__()
        # LiteLLM registers one callback per class and public str/int/bool attributes, so a
        # second logger would be dropped in silence: this one's differ by monitor (two loggers
        # on one monitor are one callback, which observes each call once)
        self.feeds = f"promptcache-monitor-{id(monitor):x}"
        self.monitor = monitor
        self.key = key
        self.logger = logger or LOGGER
        self.max_in_flight = max_in_flight
        self.max_in_flight_bytes = max_in_flight_bytes
        self._in_flight_bytes = 0
        self.unobserved: Counter[str] = Counter()
        # call id -> (the request sent and its JSON size) or why it cannot be read
        self._sent: OrderedDict[str, tuple[dict[str, Any], int] | str] = OrderedDict()
        self._lock = threading.Lock()
        self._said: set[str] = set()
        # the ids of the latest calls answered (ANSWERED_KEPT): LiteLLM reports a sync
        # Responses stream to both its sync and its async success hooks, and the second report
        # is no new call
        self._answered: OrderedDict[str, None] = OrderedDict()

    # -- LiteLLM's hooks: none of them raises ----------------------------------------------

    def log_pre_api_call(self, model: Any, messages: Any, kwargs: Any) -> None:
        try:
            self._remember(model, kwargs)
        except Exception as error:  # never into LiteLLM's call
            self._unobserved("failed", error)

    def log_success_event(
        self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        self._success(kwargs, response_obj, end_time)

    async def async_log_success_event(
        self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        self._success(kwargs, response_obj, end_time)

    def log_failure_event(
        self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        self._forget(kwargs)

    async def async_log_failure_event(
        self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        self._forget(kwargs)

    # -- the work ---------------------------------------------------------------------------

    def _remember(self, model: Any, kwargs: Mapping[str, Any]) -> None:
        call = kwargs.get("litellm_call_id")
        kind = kwargs.get("call_type")
        if not isinstance(call, str) or (kind is not None and kind not in JUDGED_CALLS):
            return
        extra = kwargs.get("additional_args")
        extra = extra if isinstance(extra, Mapping) else {}
        copy: tuple[dict[str, Any], int] | str
        try:
            called = _called_model(model, kwargs.get("custom_llm_provider"))
            copy = _sent_copy(extra.get("complete_input_dict"), called) or "no_request"
            # a Converse body is read as Converse (its cachePoint blocks are markers); an
            # InvokeModel body must be Anthropic's
            if not _converse(extra, kwargs) and _bedrock_other(copy, kwargs):
                copy = "bedrock_not_anthropic"
        except (TypeError, orjson.JSONDecodeError):
            copy = "not_json"
        dropped = 0
        with self._lock:
            self._take(call)  # a retry's body replaces the failed attempt's
            self._sent[call] = copy
            self._in_flight_bytes += copy[1] if isinstance(copy, tuple) else 0
            while len(self._sent) > 1 and (
                len(self._sent) > self.max_in_flight
                or self._in_flight_bytes > self.max_in_flight_bytes
            ):
                self._take(next(iter(self._sent)))
                dropped += 1
        for _ in range(dropped):
            self._unobserved("too_many_in_flight")

    def _take(self, call: str) -> tuple[dict[str, Any], int] | str | None:
        """Remove and return what is held for `call` (the caller holds the lock)."""
        held = self._sent.pop(call, None)
        if isinstance(held, tuple):
            self._in_flight_bytes -= held[1]
        return held

    def _forget(self, kwargs: Any) -> None:
        call = kwargs.get("litellm_call_id") if isinstance(kwargs, Mapping) else None
        if isinstance(call, str):
            with self._lock:
                self._take(call)

    def _success(self, kwargs: Any, response: Any, end_time: Any) -> None:
        try:
            self._observe(kwargs, response, end_time)
        except Exception as error:  # never into LiteLLM's call
            self._unobserved("failed", error)

    def _observe(self, kwargs: Mapping[str, Any], response: Any, end_time: Any) -> None:
        kind = kwargs.get("call_type")
        if kind is not None and kind not in JUDGED_CALLS:
            return self._unobserved("not_chat", note=str(kind), level=logging.INFO)
        call = kwargs.get("litellm_call_id")
        cached = kwargs.get("cache_hit") is True  # LiteLLM's own cache: no provider was asked
        with self._lock:
            held = self._take(call) if isinstance(call, str) else None
            if isinstance(call, str) and held is None and call in self._answered:
                return None  # LiteLLM's second report of a call already handled
            if isinstance(call, str):
                self._answered[call] = None
                if len(self._answered) > ANSWERED_KEPT:
                    self._answered.popitem(last=False)
        if cached:
            return self._unobserved("litellm_cache", level=logging.INFO)
        if not isinstance(held, tuple):
            return self._unobserved(held or "no_request")
        sent = held[0]
        if kwargs.get("messages") == [{"role": "user", "content": REDACTED}]:
            return self._unobserved("redacted")
        provider = kwargs.get("custom_llm_provider")
        named = PLATFORM_PROVIDERS.get(provider) if isinstance(provider, str) else None
        if provider == AZURE_AI:
            named = _azure_ai_vendor(sent)
            if named is None:
                return self._unobserved("azure_ai_other")
        usage = litellm_usage(response, provider if isinstance(provider, str) else None)
        if usage is None:
            return self._unobserved("no_usage")
        sent_at = kwargs.get("current_attempt_api_call_start_time") or kwargs.get(
            "api_call_start_time"
        )
        try:
            streamed = kwargs.get("stream") is True or sent.get("stream") is True
            if streamed and _chat_stream_without_usage(sent):
                return self._unobserved("estimated_usage")
            self.monitor.observe(
                sent,
                usage=_reported_read(usage, sent),
                key=self._key_of(kwargs, sent),
                at=end_time,
                sent_at=sent_at,
                vendor=named,
                location=_vertex_location(kwargs, provider),
            )
        except InputError as error:  # its message names paths and types, never prompt text
            self._unobserved("unreadable", error)
        return None

    def _key_of(self, kwargs: Mapping[str, Any], sent: Mapping[str, Any]) -> str | None:
        if isinstance(self.key, str):
            return self.key
        if self.key is not None:
            named = self.key(sent)
            if named is not None:
                if not isinstance(named, str):
                    raise InputError(
                        f"the key function returned {type(named).__name__}, not a string"
                    )
                return named
        return _metadata_key(kwargs)

    def _unobserved(
        self,
        reason: str,
        error: BaseException | None = None,
        *,
        note: str = "",
        level: int = logging.WARNING,
    ) -> None:
        with self._lock:
            self.unobserved[reason] += 1
            first = reason not in self._said
            self._said.add(reason)
        if not first:
            return
        # an InputError's message is ours and names paths, types and hashes; any other
        # exception is named by its type only, as its message may quote the prompt
        detail = f" {note}" if note else ""
        if isinstance(error, InputError):
            detail = f": {error}"
        elif error is not None:
            detail = f": {type(error).__name__}"
        self.logger.log(
            level,
            "promptcache: a LiteLLM call was not observed (%s%s); said once, counted in "
            "MonitorLogger.unobserved[%r]",
            WHY[reason],
            detail,
            reason,
        )
