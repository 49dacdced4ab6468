"""
The request an SDK call sends, read from its keyword arguments the way the SDK serialises them.

`wrap()` sees a call's keyword arguments, not its HTTP body. The SDKs accept far more than lists
and dicts: the Anthropic and OpenAI SDKs send any sequence, set, dict view or iterator as a JSON
array, any mapping as an object, a pydantic model as its dump (`exclude_unset`, by alias), a date
as ISO 8601, and drop their `NotGiven` / `Omit` sentinels; google-genai also takes one `Content`
or part where it takes a list, and bytes (sent base64). `sent_form()` turns the arguments into
that plain JSON (dicts, lists, str, int, float, bool, None), which is what the monitor reads.

Two rules keep the caller's call exactly as it was:

- an iterator (a generator, `map`, `iter(...)`) can be read once only, so `settle()` drains each
  one into a list and the SDK is handed that list, which it sends as the same JSON array;
- what cannot be read raises `Unreadable`, which names where it is, its type, its length and a
  short hash, and never its text: prompts are personal data.
"""

from __future__ import annotations

import base64
import inspect
import math
from collections import UserString
from collections.abc import Iterator, Mapping, MappingView, Sequence, Set
from datetime import date
from enum import Enum
from typing import Any

import orjson

from ._errors import describe

__all__ = ["IteratorFailed", "Unreadable", "read_call", "sent_form", "settle"]

_PLAIN = (str, int, float, bool, type(None))
_LISTS = (list, tuple, set, frozenset)
_SENTINELS = frozenset({"NotGiven", "Omit"})  # the Stainless SDKs' "leave this out" values
GENAI = "google-genai"  # the one SDK whose argument types differ (`Vendor.sdk`)
_MAX_DEPTH = 200  # below orjson's 255-level limit; no prompt nests this deep
# google-genai models are read with the field names its request reader knows (snake_case,
# unset fields left out); the Stainless SDKs' are dumped as they send them (aliases, unset left out).
_GENAI_DUMP = {"mode": "json", "exclude_none": True, "by_alias": False}
_SDK_DUMP = {"mode": "json", "exclude_unset": True, "by_alias": True}


class Unreadable(Exception):
    """A value `wrap()` cannot read as the SDK would send it. Carries no prompt text."""

    def __init__(self, value: Any, why: str) -> None:
        self.why = why
        self.shape = describe(value)
        self.where: list[str] = []  # path segments, innermost first, added as it unwinds
        self.settled: dict[str, Any] | None = None  # the kwargs to hand the SDK all the same
        super().__init__(why)

    def within(self, segment: str) -> Unreadable:
        self.where.append(segment)
        return self

    @property
    def path(self) -> str:
        return "".join(reversed(self.where)).lstrip(".") or "request"


class IteratorFailed(Exception):
    """The caller's own iterator raised while it was drained: `original` is the caller's error,
    which the SDK would have raised from the same iterator."""

    def __init__(self, original: Exception) -> None:
        self.original = original
        super().__init__(type(original).__name__)


def read_call(
    kwargs: Mapping[str, Any], transport: frozenset[str], sdk: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """
    The request a call sends (its kwargs less the transport options, `extra_body` merged), as
    plain JSON the way the SDK serialises it, and the kwargs to hand the SDK (the caller's own,
    any iterator in them drained into a list). Raises `Unreadable`.

    Three ways, cheapest first. Most calls pass plain dicts, lists and strings: one `orjson`
    pass proves it, and the request is the caller's own objects, as a monitor called by hand
    would see them. Views, deques, models, bytes and output types: `orjson` converts them
    through `_convert` and the request is its JSON read back. An iterator, a sentinel below the
    top level, or anything unreadable: the Python walk, which drains iterators and names the
    path of what it cannot read.
    """
    body = {
        k: v
        for k, v in kwargs.items()
        if k not in transport and type(v).__name__ not in _SENTINELS  # frameworks pass `omit`
    }
    extra = body.pop("extra_body", None)
    if extra is None or type(extra) is dict:
        whole = {**body, **extra} if extra else body
        if _is_json(whole):
            return _finish(whole, sdk), dict(kwargs)
        converted = _converted(whole, sdk)
        if converted is not None:
            return _finish(converted, sdk), dict(kwargs)
    settled = settle(kwargs)
    body = {k: v for k, v in settled.items() if k not in transport}
    extra = body.pop("extra_body", None)
    try:
        request = sent_form(body, sdk)
        if isinstance(extra, Mapping):
            request.update(sent_form(extra, sdk))
    except Unreadable as exc:
        exc.settled = settled  # its iterators are drained: the SDK must get these lists
        raise
    return _finish(request, sdk), settled


_GENAI_TRANSPORT = frozenset({"http_options", "httpOptions"})


def _finish(request: dict[str, Any], sdk: str) -> dict[str, Any]:
    """google-genai's own shapes: one `Content` where a list goes is sent as a list of one;
    per-call HTTP options inside `config` are not the request."""
    if sdk != GENAI:
        return request
    contents, config = request.get("contents"), request.get("config")
    if isinstance(contents, dict):
        request = {**request, "contents": [contents]}
    if isinstance(config, dict) and _GENAI_TRANSPORT.intersection(config):
        clean = {k: v for k, v in config.items() if k not in _GENAI_TRANSPORT}
        request = {**request, "config": clean}
    return request


class _NeedsWalk(Exception):
    """`orjson` met what only the Python walk handles: an iterator, a nested sentinel, or a
    value it cannot read (the walk names its path)."""


def _converted(body: dict[str, Any], sdk: str) -> dict[str, Any] | None:
    """`body` through orjson, SDK types converted by `_convert`; None when the walk is needed."""
    dump = _GENAI_DUMP if sdk == GENAI else _SDK_DUMP

    def convert(value: Any) -> Any:
        return _convert(value, dump)

    try:
        data = orjson.dumps(body, default=convert, option=orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        return None
    loaded = orjson.loads(data)
    return loaded if isinstance(loaded, dict) else None


def _convert(value: Any, dump: Mapping[str, Any]) -> Any:
    """One value orjson does not know, one level down (orjson comes back for what it holds)."""
    if isinstance(value, Iterator) or type(value).__name__ in _SENTINELS:
        raise _NeedsWalk
    if isinstance(value, Mapping):
        return dict(value)
    if _is_list(value):
        return list(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, UserString):
        return str(value)
    try:
        return _leaf(value, dump, 0)
    except Unreadable:
        raise _NeedsWalk from None


def _is_json(value: Any) -> bool:
    try:
        orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return False
    return True


def settle(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """
    `kwargs` with every iterator in it drained into a list, containers around one copied (the
    caller's own are never changed), everything else the caller's own objects.
    """
    return {key: _settle(value, 0) for key, value in kwargs.items()}


def _settle(value: Any, depth: int) -> Any:
    kind = type(value)
    if kind in _PLAIN or depth > _MAX_DEPTH:
        return value
    if kind is dict:
        items = value.items()
    elif kind is list or kind is tuple:
        return _settle_items(value, depth)
    elif isinstance(value, Iterator):
        return [] if _is_text(value) else [_settle(item, depth + 1) for item in _drain(value)]
    elif isinstance(value, Mapping):
        items = value.items()
    elif _is_list(value):
        return _settle_items(value, depth)
    else:
        return value
    settled = {}
    changed = False
    for key, item in items:
        settled[key] = new = item if type(item) in _PLAIN else _settle(item, depth + 1)
        changed = changed or new is not item
    return settled if changed else value


def _drain(iterator: Iterator[Any]) -> list[Any]:
    try:
        return list(iterator)
    except Exception as exc:
        raise IteratorFailed(exc) from exc


def _settle_items(value: Any, depth: int) -> Any:
    items = list(value)
    changed = False
    for i, item in enumerate(items):
        if type(item) not in _PLAIN:
            items[i] = new = _settle(item, depth + 1)
            changed = changed or new is not item
    return items if changed else value


def sent_form(kwargs: Mapping[str, Any], sdk: str) -> dict[str, Any]:
    """The request body the SDK sends for `kwargs` (transport options already left out)."""
    dump = _GENAI_DUMP if sdk == GENAI else _SDK_DUMP
    body: dict[str, Any] = {}
    for key, value in kwargs.items():
        if type(value).__name__ in _SENTINELS:
            continue
        if not isinstance(key, str):
            raise Unreadable(key, "a keyword that is not a string")
        try:
            body[key] = _plain(value, dump, 0)
        except Unreadable as exc:
            raise exc.within(_segment(key).lstrip(".")) from None
    return body


def _plain(value: Any, dump: Mapping[str, Any], depth: int) -> Any:
    """`value` as JSON; paths are only spelled on the way out of an `Unreadable` (rare)."""
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if depth > _MAX_DEPTH:
        raise Unreadable(value, f"nested deeper than {_MAX_DEPTH} levels")
    if kind is float:
        if not math.isfinite(value):
            raise Unreadable(value, "a float that JSON cannot hold")
        return value
    if kind is dict or (kind not in _LISTS and isinstance(value, Mapping)):
        out = {}
        for key, item in value.items():
            name = key if type(key) is str else _key(key)
            try:
                if type(item) is str:
                    out[name] = item
                elif type(item).__name__ not in _SENTINELS:
                    out[name] = _plain(item, dump, depth + 1)
            except Unreadable as exc:
                raise exc.within(_segment(name)) from None
        return out
    if kind in _LISTS or _is_list(value):
        items = []
        for i, item in enumerate(value):
            try:
                items.append(item if type(item) is str else _plain(item, dump, depth + 1))
            except Unreadable as exc:
                raise exc.within(f"[{i}]") from None
        return items
    return _leaf(value, dump, depth)


def _segment(name: str) -> str:
    """A key in a path: field names as they are; a key that may be data (an address, a
    sentence) is not repeated in a message."""
    return f".{name}" if name.isidentifier() and len(name) <= 40 else ".<key>"


def _leaf(value: Any, dump: Mapping[str, Any], depth: int) -> Any:
    if isinstance(value, Enum):
        return _plain(value.value, dump, depth + 1)
    if isinstance(value, (str, UserString)):
        return str.__str__(value) if isinstance(value, str) else str(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return _plain(float(value), dump, depth)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, type):  # a parse() output type: the SDK sends its JSON schema
        return _output_type(value, dump, depth)
    if dump is _GENAI_DUMP:
        return _genai_leaf(value, depth)
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):
        try:
            exclude = getattr(value, "__api_exclude__", None)
            dumped = model_dump(**dump, **({"exclude": exclude} if exclude else {}))
        except Exception:
            raise Unreadable(value, "a model that would not dump to JSON") from None
        return _plain(dumped, dump, depth + 1)
    raise Unreadable(value, "a value the SDK does not send as JSON")


def _genai_leaf(value: Any, depth: int) -> Any:
    """
    google-genai objects field by field (what is unset left out), so that a Python function
    among them, which the SDK turns into a function declaration, is read the same way.
    """
    fields = getattr(type(value), "model_fields", None)
    if isinstance(fields, Mapping) and hasattr(value, "model_dump"):
        out = {}
        for name in fields:
            item = getattr(value, name, None)
            if item is None or name in _GENAI_TRANSPORT:  # transport, not the request
                continue
            try:
                out[name] = _plain(item, _GENAI_DUMP, depth + 1)
            except Unreadable as exc:
                raise exc.within(f".{name}") from None
        return out
    if inspect.isfunction(value) or inspect.ismethod(value):
        return _genai_function(value, depth)
    raise Unreadable(value, "a value the SDK does not send as JSON")


def _genai_function(function: Any, depth: int) -> Any:
    """A tool given as a Python function: the declaration the SDK sends for it."""
    try:
        from google.genai import types

        declaration = types.FunctionDeclaration.from_callable_with_api_option(
            callable=function, use_json_schema=True
        )
    except Exception:
        raise Unreadable(function, "a function the SDK could not declare") from None
    return _plain({"function_declarations": [declaration]}, _GENAI_DUMP, depth + 1)


def _output_type(kind: type, dump: Mapping[str, Any], depth: int) -> Any:
    schema = getattr(kind, "model_json_schema", None)
    name = f"{kind.__module__}.{kind.__qualname__}"
    if not callable(schema):
        return {"type": name}
    try:
        found = schema()
    except Exception:
        raise Unreadable(kind, "an output type without a JSON schema") from None
    return {"type": name, "schema": _plain(found, dump, depth + 1)}


def _key(key: Any) -> str:
    """Object keys as `json` writes them: strings as they are, numbers and constants spelled."""
    if isinstance(key, str):
        return str.__str__(key)
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    if isinstance(key, int):
        return str(int(key))
    if isinstance(key, float) and math.isfinite(key):
        return repr(float(key))
    raise Unreadable(key, "a mapping key JSON cannot hold")


def _is_text(value: Any) -> bool:
    return isinstance(value, (str, bytes, bytearray, memoryview, UserString))


def _is_list(value: Any) -> bool:
    """What the SDKs send as a JSON array: sequences, sets, dict views, iterators; not text."""
    return not _is_text(value) and isinstance(value, (Sequence, Set, MappingView, Iterator))
