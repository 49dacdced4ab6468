"""
What every vendor adapter shares: the capability record, the small Protocol, field access that
works on SDK objects and plain JSON alike, and the lazy SDK import.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import replace
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from .._errors import MissingDependencyError
from .._pricing import MinTokenTable, load_min_tokens
from .._usage import CacheUsage
from ..vendors import Capabilities, Vendor, get_vendor
from ..vendors._fields import get_field, get_int

if TYPE_CHECKING:
    from .._plan import Plan
    from .._prompt import Prompt

__all__ = [
    "Adapter",
    "BaseAdapter",
    "Capabilities",
    "PlatformStream",
    "UsageAccumulator",
    "get_field",
    "get_int",
    "import_sdk",
]


@runtime_checkable
class UsageAccumulator(Protocol):
    """Reads a stream event by event; `usage` is the record once the stream has ended."""

    def feed(self, event: Any) -> None: ...

    @property
    def usage(self) -> CacheUsage: ...


@runtime_checkable
class Adapter(Protocol):
    """One vendor API: render a prompt into SDK keyword arguments, read usage back."""

    name: str
    capabilities: Capabilities

    def capabilities_for(self, model: str) -> Capabilities: ...

    def min_cacheable_tokens(self, model: str) -> int: ...

    def to_request(
        self, prompt: Prompt, *, model: str, plan: Plan | None = None, **options: Any
    ) -> dict[str, Any]: ...

    def read_usage(self, response: Any) -> CacheUsage: ...

    def accumulator(self) -> UsageAccumulator: ...

    def usage_from_stream(self, events: Iterable[Any]) -> CacheUsage: ...


class BaseAdapter:
    """Shared behaviour: capabilities per model, minimums from the table, stream draining."""

    name: str = ""
    vendor: str = ""  # the key in the minimum-token and price tables
    capabilities: ClassVar[Capabilities]
    # (import name, pip package, promptcache extra, sync client class, async client class)
    sdk: tuple[str, str, str, str, str] = ("", "", "", "", "")

    def __init__(self, *, min_tokens: MinTokenTable | None = None) -> None:
        self._min_tokens = min_tokens

    @property
    def spec(self) -> Vendor:
        """The request format this adapter writes: its rules live in `promptcache.vendors`."""
        return get_vendor(self.name)

    def capabilities_for(self, model: str) -> Capabilities:
        return self.spec.capabilities_for(model)

    def min_cacheable_tokens(self, model: str) -> int:
        """The smallest prefix this vendor caches for `model`, from the editable table."""
        table = self._min_tokens or load_min_tokens()
        return table.minimum(self.vendor, model)

    def accumulator(self) -> UsageAccumulator:
        raise NotImplementedError

    def client(self, **kwargs: Any) -> Any:
        """The vendor SDK's client, imported on first use (`pip install 'promptcache-sdk[...]'`)."""
        return self._sdk_class(3)(**kwargs)

    def async_client(self, **kwargs: Any) -> Any:
        """The vendor SDK's async client (for Gemini: `Client(...).aio`)."""
        made = self._sdk_class(4)(**kwargs)
        return made.aio if self.sdk[4] == self.sdk[3] else made

    def _sdk_class(self, which: int) -> Any:
        module, package, extra = self.sdk[:3]
        sdk = import_sdk(
            module, package=package, extra=extra, purpose=f"the {self.name} adapter's client"
        )
        return getattr(sdk, self.sdk[which])

    def usage_from_stream(self, events: Iterable[Any]) -> CacheUsage:
        """Read a whole stream (SDK events or JSON dicts) into one usage record."""
        return drain(self.accumulator(), events)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class PlatformStream:
    """A format's stream reader whose record names the cloud platform that answered."""

    def __init__(self, inner: UsageAccumulator, vendor: str) -> None:
        self._inner = inner
        self._vendor = vendor

    def feed(self, event: Any) -> None:
        self._inner.feed(event)

    @property
    def usage(self) -> CacheUsage:
        return replace(self._inner.usage, vendor=self._vendor)


def import_sdk(module: str, *, package: str, extra: str, purpose: str) -> ModuleType:
    """Import a vendor SDK on first use; a missing one names the pip command that adds it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(package, extra, purpose) from exc


def drain(accumulator: UsageAccumulator, events: Iterable[Any]) -> CacheUsage:
    for event in events:
        accumulator.feed(event)
    return accumulator.usage
