"""
Feed a `Monitor` from LiteLLM: `MonitorLogger` is a LiteLLM `CustomLogger` callback.

    litellm.callbacks = [MonitorLogger(Monitor())]

LiteLLM hands each callback the call's kwargs (model, messages, the optional parameters) and
its OpenAI-shaped response, so the monitor judges every request in OpenAI Chat format with the
usage LiteLLM reports, with no change at the call sites. Nothing of the prompt is logged.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from .._errors import InputError, MissingDependencyError
from .._usage import CacheUsage
from .counted import counted_usage
from .monitor import Monitor

try:
    from litellm.integrations.custom_logger import CustomLogger
except ImportError as error:  # pragma: no cover - depends on what the user installed
    raise MissingDependencyError(
        "litellm", "litellm", "promptcache.debug.litellm_logger"
    ) from error

LOGGER = logging.getLogger("promptcache.monitor")
# request fields LiteLLM keeps among its optional parameters that belong to the cached prefix
PREFIX_PARAMETERS = ("tools", "tool_choice", "response_format", "prompt_cache_key")


def _field(value: Any, name: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def litellm_usage(kwargs: Mapping[str, Any], response: Any) -> CacheUsage | None:
    """The usage of a LiteLLM response, or None when it reports no prompt tokens."""
    usage = _field(response, "usage")
    total = _int(_field(usage, "prompt_tokens"))
    if usage is None or total is None:
        return None
    read = _int(_field(usage, "cache_read_input_tokens"))
    if read is None:
        read = _int(_field(_field(usage, "prompt_tokens_details"), "cached_tokens"))
    model = _field(response, "model") or kwargs.get("model")
    return counted_usage(
        total=total,
        read=read,
        write=_int(_field(usage, "cache_creation_input_tokens")),
        output=_int(_field(usage, "completion_tokens")) or 0,
        vendor=str(kwargs.get("custom_llm_provider") or ""),
        model=model if isinstance(model, str) else None,
    )


def litellm_request(kwargs: Mapping[str, Any]) -> dict[str, Any] | None:
    """The request in OpenAI Chat format, or None when the kwargs hold no messages."""
    messages = kwargs.get("messages")
    model = kwargs.get("model")
    if not isinstance(messages, list) or not isinstance(model, str):
        return None
    request: dict[str, Any] = {"model": model, "messages": messages}
    optional = kwargs.get("optional_params")
    if isinstance(optional, Mapping):
        extra = optional.get("extra_body")
        for source in (extra if isinstance(extra, Mapping) else {}, optional):
            request.update({name: source[name] for name in PREFIX_PARAMETERS if name in source})
    return request


class MonitorLogger(CustomLogger):
    """A LiteLLM callback that observes every successful completion on `monitor`."""

    def __init__(self, monitor: Monitor, *, logger: logging.Logger | None = None) -> None:
        if not isinstance(monitor, Monitor):
            raise InputError(f"MonitorLogger needs a Monitor, got {type(monitor).__name__}")
        super().__init__()
        self.monitor = monitor
        self.logger = logger or LOGGER
        self._said_unread = False

    def observe(self, kwargs: Mapping[str, Any], response: Any) -> None:
        usage = litellm_usage(kwargs, response)
        request = litellm_request(kwargs)
        if usage is None or request is None:
            self._say_unread("usage" if usage is None else "messages")
            return
        try:
            self.monitor.observe(request, usage=usage)
        except InputError as error:
            # the message names paths and types, never prompt text
            self.logger.warning("promptcache: LiteLLM call not observed: %s", error)

    def _say_unread(self, missing: str) -> None:
        if not self._said_unread:
            self._said_unread = True
            self.logger.warning(
                "promptcache: a LiteLLM call came without its %s: not observed", missing
            )

    def log_success_event(
        self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        self.observe(kwargs, response_obj)

    async def async_log_success_event(
        self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        self.observe(kwargs, response_obj)
