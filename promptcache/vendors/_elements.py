"""
A request cut into the pieces every vendor's cache sees, whatever the vendor: elements (a tool,
a system block, a message) in render order, and units (a message's head and each content block).

Vendor modules say where a request keeps its layers (`Span`s); everything here is neutral.
Cache markers (`cache_control`, `prompt_cache_breakpoint`) are stripped from units: they say
where an entry is written, they are not part of the cached bytes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import orjson

from .._canonical import canonical_bytes, json_path
from .._errors import InputError, json_kind, shown

__all__ = [
    "MARKERS",
    "Element",
    "Placed",
    "Span",
    "Unit",
    "check_list",
    "checked_item",
    "dumps",
    "element_units",
    "get_path",
    "has_marker",
    "list_span",
    "messages_span",
    "model_of_request",
    "pick",
    "plain",
    "plain_request",
    "required_list",
    "same_place",
    "scalar_span",
    "setting",
    "strip_markers",
    "system_spans",
    "unit_count",
]

MARKERS = ("cache_control", "prompt_cache_breakpoint")


@dataclass(frozen=True, slots=True)
class Unit:
    """One piece of a request in render order, markers stripped, serialised as sent."""

    layer: str
    path: str
    value: Any
    data: bytes
    marker: bool
    ttl: str | None = None


@dataclass(frozen=True, slots=True)
class Element:
    """A top-level item in render order: a tool, a system block, a message (markers kept)."""

    layer: str
    path: str
    value: Any
    content_key: str | None = None


class Span(NamedTuple):
    """
    A run of elements from one container: `messages[2:]`, `tools`, the scalar `system`. A named
    tuple rather than a frozen dataclass: every judging, diff and drop cuts a request into spans,
    and a tuple is built in a third of the time.
    """

    layer: str
    path: str
    items: Sequence[Any]
    start: int = 0
    listed: bool = True
    content_key: str | None = None
    # Whether each item may be something other than an object (Gemini `contents`: bare strings).
    loose: bool = False

    def path_of(self, index: int) -> str:
        return f"{self.path}[{self.start + index}]" if self.listed else self.path


class Placed(list[Any]):
    """
    A message's content as a format's reader rewrote it, each item remembering its index in the
    request as sent (`positions`): Bedrock's cache points are blocks of their own, folded onto
    the block before them, and the blocks after one keep the paths they have in the request.
    """

    __slots__ = ("positions",)

    def __init__(self, items: Sequence[Any], positions: Sequence[int]) -> None:
        super().__init__(items)
        self.positions = tuple(positions)


# -- spans: where a vendor module says a layer is ---------------------------------------------


_FIRST_INDEX = re.compile(r"\[\d+\]")


def same_place(a: str, b: str) -> bool:
    """
    Whether two element or unit paths stand at the same place in what the vendor renders: equal,
    or in the same container at another index. A vendor that leaves items out of the prompt
    (Anthropic's deferred tools) renders `tools[3]` where another request renders `tools[1]`.
    """
    return a == b or _FIRST_INDEX.sub("[]", a, 1) == _FIRST_INDEX.sub("[]", b, 1)


def check_list(path: str, items: Any) -> None:
    if items is not None and not isinstance(items, (list, tuple)):
        raise InputError(f"{path}: expected a list, got {shown(items)}")


def scalar_span(layer: str, path: str, value: Any) -> Span:
    return Span(layer, path, (value,), 0, False)


def list_span(layer: str, path: str, items: Any) -> list[Span]:
    check_list(path, items)
    return [Span(layer, path, items)] if items else []


def system_spans(path: str, system: Any) -> list[Span]:
    if system is None:
        return []
    if isinstance(system, (list, tuple)):
        return list_span("system", path, system)
    return [scalar_span("system", path, system)]


def messages_span(messages: Any, path: str, content_key: str, *, loose: bool = False) -> list[Span]:
    if messages is not None and not isinstance(messages, (list, tuple)):
        raise InputError(f"{path}: expected a list of messages, got {type(messages).__name__}")
    return [Span("messages", path, messages, 0, True, content_key, loose)] if messages else []


def required_list(request: Mapping[str, Any], key: str) -> Any:
    """
    The conversation list at `key`, which the API requires: absent is the shape check's business
    (`misfit`), but a `null` there is a request the API refuses, never an empty conversation.
    """
    value = request.get(key)
    if value is None and key in request:
        raise InputError(
            f"{key}: null, which the API refuses: send a list of messages (an empty list if none)"
        )
    return value


def checked_item(span: Span, index: int, item: Any) -> Any:
    """
    `item` as sent (`plain`), refused where the API refuses it: a null anywhere in a list, or a
    message that is not an object. Named by its path and `shown`, never by its text.
    """
    value = plain(item)
    if value is None or (
        span.content_key is not None and not span.loose and not isinstance(value, Mapping)
    ):
        what = "a message object" if span.content_key is not None else "an object"
        raise InputError(
            f"{span.path_of(index)}: expected {what}, got {shown(value)}, which the API refuses: "
            f"send {what} there or remove the entry"
        )
    return value


# -- units ---------------------------------------------------------------------------------


def element_units(element: Element) -> list[Unit]:
    value, key = element.value, element.content_key
    if key is not None and isinstance(value, Mapping):
        return _one_message(value, element.path, key, element.layer)
    return [_unit(element.layer, element.path, value)]


def unit_count(element: Element) -> int:
    value, key = element.value, element.content_key
    if key is None or not isinstance(value, Mapping):
        return 1
    content = value.get(key)
    if isinstance(content, (list, tuple)):
        return 1 + len(content)
    return 2 if key in value else 1


def _one_message(message: Mapping[str, Any], where: str, key: str, layer: str) -> list[Unit]:
    head = {k: v for k, v in message.items() if k != key}
    units = [_unit(layer, where, head)]
    content = message.get(key)
    if isinstance(content, (list, tuple)):
        at = content.positions if type(content) is Placed else range(len(content))
        units += [
            _unit(layer, json_path(json_path(where, key), j), c)
            for j, c in zip(at, content, strict=True)
        ]
    elif key in message:
        units.append(_unit(layer, json_path(where, key), content))
    return units


def _unit(layer: str, path: str, value: Any) -> Unit:
    value, ttl, marked = strip_markers(plain(value))
    return Unit(layer, path, value, dumps(value, path), marked, ttl)


def has_marker(value: Any) -> bool:
    return isinstance(value, Mapping) and any(m in value for m in MARKERS)


def strip_markers(value: Any) -> tuple[Any, str | None, bool]:
    """`value` without its cache markers, the first marker's TTL, and whether it had one."""
    if not has_marker(value):
        return value, None, False
    marker = next(value[m] for m in MARKERS if m in value)
    ttl = marker.get("ttl") if isinstance(marker, Mapping) else None
    stripped = {k: v for k, v in value.items() if k not in MARKERS}
    return stripped, ttl if isinstance(ttl, str) else None, True


def dumps(value: Any, path: str) -> bytes:
    """The bytes as the SDK sends them: keys in insertion order, which is what the vendor hashes."""
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        canonical_bytes(value, path)  # names the offending path and the fix
        raise InputError(f"{path}: cannot serialise {type(value).__name__}") from None


# -- values --------------------------------------------------------------------------------


def plain(value: Any) -> Any:
    """SDK objects (pydantic models) become the JSON they are sent as; everything else as is."""
    if type(value) in (dict, list, str):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, Mapping):
        return dump(mode="json", exclude_none=True, by_alias=False)
    return value


def plain_request(request: Any, name: str) -> Mapping[str, Any]:
    request = plain(request)
    if not isinstance(request, Mapping):
        which = "the request" if name == "request" else f"request {name}"  # not "request request"
        raise InputError(
            f"{which} must be a dict of SDK keyword arguments, got {json_kind(request)}"
        )
    return request


def model_of_request(request: Mapping[str, Any]) -> Any:
    """The model a request names: `model`, or `modelId` (boto3's Bedrock keyword)."""
    model = request.get("model")
    return request.get("modelId") if model is None else model


def pick(mapping: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if mapping.get(name) is not None:
            return plain(mapping[name])
    return None


def get_path(request: Mapping[str, Any], dotted: str) -> Any:
    value: Any = request
    for name in dotted.split("."):
        # a plain dict (a request read from JSON: every record of a log, each judged) is its own
        # `plain`, and a Mapping: the ABC check costs more than the lookup
        if type(value) is not dict:
            value = plain(value)
            if not isinstance(value, Mapping):
                return None
        value = value.get(name)
    return None if value is None else plain(value)


def setting(request: Mapping[str, Any], dotted: str) -> tuple[str, Any]:
    """
    Where a setting is and its value as sent: the SDKs merge `extra_body` over the named
    arguments, and fields the SDK has no parameter for (engine `cache_salt`) can only go there.
    """
    extra = plain(request.get("extra_body"))
    if isinstance(extra, Mapping) and dotted.split(".", 1)[0] in extra:
        return f"extra_body.{dotted}", get_path(extra, dotted)
    return dotted, get_path(request, dotted)
