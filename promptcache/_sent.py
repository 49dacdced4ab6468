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
import hashlib
import inspect
import math
from collections import UserString
from collections.abc import Iterator, Mapping, MappingView, Sequence, Set
from datetime import date
from enum import Enum
from typing import Any

__all__ = ["Unreadable", "describe", "sent_form", "settle"]

_PLAIN = (str, int, float, bool, type(None))
_LISTS = (list, tuple, set, frozenset)
_SENTINELS = frozenset({"NotGiven", "Omit"})  # the Stainless SDKs' "leave this out" values
_MAX_DEPTH = 200  # below orjson's 255-level limit; no prompt nests this deep
# google-genai models are read with the field names its request reader knows (snake_case,
# unset fields left out); the Stainless SDKs' are dumped as they send them (aliases, unset left out).
_GENAI_DUMP = {"mode": "json", "exclude_none": True, "by_alias": False}
_SDK_DUMP = {"mode": "json", "exclude_unset": True, "by_alias": True}


class Unreadable(Exception):
    """A value `wrap()` cannot read as the SDK would send it. Carries no prompt text."""

    def __init__(self, path: str, value: Any, why: str) -> None:
        self.path = path
        self.why = why
        self.shape = describe(value)
        super().__init__(f"{path}: {why} ({self.shape})")


def describe(value: Any) -> str:
    """Type, length and a short hash of a value: enough to find it, never its text."""
    try:
        size = f", {len(value)} items" if not isinstance(value, (str, bytes)) else ""
        if isinstance(value, (str, bytes)):
            size = f", {len(value)} chars" if isinstance(value, str) else f", {len(value)} bytes"
    except Exception:
        size = ""
    try:
        digest = hashlib.sha256(repr(value).encode("utf-8", "replace")).hexdigest()[:10]
    except Exception:
        digest = "unhashable"
    return f"{type(value).__name__}{size}, sha256 {digest}"


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
    if isinstance(value, Iterator) and not _is_text(value):
        return [_settle(item, depth + 1) for item in value]
    if kind is dict or (kind not in _LISTS and isinstance(value, Mapping)):
        settled = {k: _settle(v, depth + 1) for k, v in value.items()}
        changed = any(settled[k] is not v for k, v in value.items())
        return settled if changed else value
    if kind in _LISTS or (isinstance(value, (Sequence, Set, MappingView)) and not _is_text(value)):
        items = list(value)
        settled_items = [_settle(item, depth + 1) for item in items]
        changed = any(a is not b for a, b in zip(items, settled_items, strict=True))
        return settled_items if changed else value
    return value


def sent_form(kwargs: Mapping[str, Any], vendor: str) -> dict[str, Any]:
    """The request body the SDK sends for `kwargs` (transport options already left out)."""
    dump = _GENAI_DUMP if vendor == "gemini" else _SDK_DUMP
    body: dict[str, Any] = {}
    for key, value in kwargs.items():
        if type(value).__name__ in _SENTINELS:
            continue
        if not isinstance(key, str):
            raise Unreadable("request", key, "a keyword that is not a string")
        body[key] = _plain(value, key, dump, 0)
    contents = body.get("contents")
    if vendor == "gemini" and isinstance(contents, dict):
        body["contents"] = [contents]  # one Content or part: the SDK sends it as a list of one
    return body


def _plain(value: Any, path: str, dump: Mapping[str, Any], depth: int) -> Any:
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if depth > _MAX_DEPTH:
        raise Unreadable(path, value, f"nested deeper than {_MAX_DEPTH} levels")
    if kind is float:
        if not math.isfinite(value):
            raise Unreadable(path, value, "a float that JSON cannot hold")
        return value
    if kind is dict or (kind not in _LISTS and isinstance(value, Mapping)):
        return {
            _key(k, path): _plain(v, f"{path}.{k}", dump, depth + 1)
            for k, v in value.items()
            if type(v).__name__ not in _SENTINELS
        }
    if kind in _LISTS or _is_list(value):
        return [_plain(item, f"{path}[{i}]", dump, depth + 1) for i, item in enumerate(value)]
    return _leaf(value, path, dump, depth)


def _leaf(value: Any, path: str, dump: Mapping[str, Any], depth: int) -> Any:
    if isinstance(value, Enum):
        return _plain(value.value, path, dump, depth + 1)
    if isinstance(value, (str, UserString)):
        return str.__str__(value) if isinstance(value, str) else str(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return _plain(float(value), path, dump, depth)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, type):  # a parse() output type: the SDK sends its JSON schema
        return _output_type(value, path, dump, depth)
    if dump is _GENAI_DUMP:
        return _genai_leaf(value, path, depth)
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump):
        try:
            exclude = getattr(value, "__api_exclude__", None)
            dumped = model_dump(**dump, **({"exclude": exclude} if exclude else {}))
        except Exception:
            raise Unreadable(path, value, "a model that would not dump to JSON") from None
        return _plain(dumped, path, dump, depth + 1)
    raise Unreadable(path, value, "a value the SDK does not send as JSON")


def _genai_leaf(value: Any, path: str, depth: int) -> Any:
    """
    google-genai objects field by field (what is unset left out), so that a Python function
    among them, which the SDK turns into a function declaration, is read the same way.
    """
    fields = getattr(type(value), "model_fields", None)
    if isinstance(fields, Mapping) and hasattr(value, "model_dump"):
        return {
            name: _plain(item, f"{path}.{name}", _GENAI_DUMP, depth + 1)
            for name in fields
            if name != "http_options" and (item := getattr(value, name, None)) is not None
        }
    if inspect.isfunction(value) or inspect.ismethod(value):
        return _genai_function(value, path, depth)
    raise Unreadable(path, value, "a value the SDK does not send as JSON")


def _genai_function(function: Any, path: str, depth: int) -> Any:
    """A tool given as a Python function: the declaration the SDK sends for it."""
    try:
        from google.genai import types

        declaration = types.FunctionDeclaration.from_callable_with_api_option(
            callable=function, use_json_schema=True
        )
    except Exception:
        raise Unreadable(path, function, "a function the SDK could not declare") from None
    tool = {"function_declarations": [declaration]}
    return _plain(tool, path, _GENAI_DUMP, depth + 1)


def _output_type(kind: type, path: str, dump: Mapping[str, Any], depth: int) -> Any:
    schema = getattr(kind, "model_json_schema", None)
    name = f"{kind.__module__}.{kind.__qualname__}"
    if not callable(schema):
        return {"type": name}
    try:
        return {"type": name, "schema": _plain(schema(), path, dump, depth + 1)}
    except Unreadable:
        raise
    except Exception:
        raise Unreadable(path, kind, "an output type without a JSON schema") from None


def _key(key: Any, path: str) -> str:
    """Object keys as `json` writes them: strings as they are, numbers and constants spelled."""
    if isinstance(key, str):
        return str.__str__(key)
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    if isinstance(key, int):
        return str(int(key))
    if isinstance(key, float) and math.isfinite(key):
        return repr(float(key))
    raise Unreadable(path, key, "a mapping key JSON cannot hold")


def _is_text(value: Any) -> bool:
    return isinstance(value, (str, bytes, bytearray, memoryview, UserString))


def _is_list(value: Any) -> bool:
    """What the SDKs send as a JSON array: sequences, sets, dict views, iterators; not text."""
    return not _is_text(value) and isinstance(value, (Sequence, Set, MappingView, Iterator))
