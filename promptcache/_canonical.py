"""
Deterministic serialisation and the block hash chain.

Canonical form is JSON with sorted keys, str keys only, no NaN or Infinity, no sets, and no value
that JSON cannot carry. orjson does the work in C; the slow Python walk runs only when orjson
refuses a value or when the output holds a `null` that might have been a NaN (its bytes read back
are not equal to the value), and its job is to name the offending path and say how to fix it.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import orjson

from ._errors import CanonicalError, InputError

__all__ = [
    "MAX_DEPTH",
    "canonical_bytes",
    "chain_hash",
    "check_depth",
    "json_path",
    "load_json",
    "refusing_deeper",
]

# The deepest nesting of objects and arrays promptcache reads: what orjson, its serialiser, can
# carry (it refuses 255 levels). Request bodies nest a few levels (a content block in a message
# in a list), tool inputs and schemas a few more. Deeper input is refused with this number before
# a reader walks it into a RecursionError.
MAX_DEPTH = 254

# Passthrough options make orjson refuse (instead of silently converting) datetimes, dataclasses and
# subclasses of builtins, so the slow walk can explain them.
_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1


def canonical_bytes(value: Any, path: str = "$") -> bytes:
    """
    Return the canonical JSON bytes of `value`, or raise `CanonicalError` naming the bad path.

    Equal values give equal bytes in every process: keys are sorted, and nothing whose order
    depends on hashing (sets) or on the platform (NaN, Infinity) is accepted.
    """
    try:
        data = orjson.dumps(value, option=_OPTIONS)
    except (TypeError, orjson.JSONEncodeError):
        check_depth(value, path)  # before the walk below, which recurses
        _explain(value, path)
        raise CanonicalError(
            path, f"orjson cannot serialise {_describe(value)}", _FIX_TYPE
        ) from None
    # orjson writes NaN and Infinity as null. Reading the bytes back and comparing (both in C)
    # rules them out: a NaN or an Infinity never equals the None it came back as. Only when the
    # two differ for another reason (a tuple comes back as a list) does the slow walk decide.
    if b"null" in data and orjson.loads(data) != value:
        _explain(value, path)
    return data


def depth_of(value: Any) -> int:
    """How many objects and arrays nest in `value` at its deepest (0 for a scalar), without
    recursion, so that any depth can be measured."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def check_depth(value: Any, what: str) -> None:
    """
    Refuse `value` (read from `what`) when it nests deeper than `MAX_DEPTH`. Every reader calls
    this where the value enters: cheaply, as one serialisation in C, which stops at orjson's
    limit; the measuring walk runs only when that fails.
    """
    try:
        orjson.dumps(value, option=_OPTIONS)
        return
    except (TypeError, orjson.JSONEncodeError):
        pass  # too deep, or a value orjson refuses: measure
    depth = depth_of(value)
    if depth > MAX_DEPTH:
        raise InputError(_too_deep(what, str(depth)))


@contextmanager
def refusing_deeper(**values: Any) -> Iterator[None]:
    """
    Run a reader on values a caller passed in (requests, by name), and turn a failure that
    comes from nesting deeper than `MAX_DEPTH` (orjson's limit, Python's recursion limit) into
    the error that says so. Free on the way in: the values are measured only after a failure.
    """
    try:
        yield
    except (RecursionError, TypeError):
        for name, value in values.items():
            check_depth(value, name)
        raise


def load_json(raw: bytes | str, what: str) -> Any:
    """
    Parse JSON read from `what` (a file name, `line 3`), refusing input nested deeper than
    `MAX_DEPTH` with the depth and the limit. Other parse errors raise `orjson.JSONDecodeError`
    for the caller to word.
    """
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        depth = _text_depth(raw)
        if depth > MAX_DEPTH:
            raise InputError(_too_deep(what, str(depth))) from None
        raise
    check_depth(value, what)
    return value


def _too_deep(what: str, depth: str) -> str:
    return (
        f"{what} nests {depth} levels of objects and arrays; promptcache reads at most "
        f"{MAX_DEPTH}, the deepest its JSON serialiser (orjson) carries. Send the deep value as a "
        "JSON string, or leave it out"
    )


def _text_depth(raw: bytes | str) -> int:
    """The deepest nesting of `[` and `{` in JSON text, outside strings (for text orjson refused
    as too deep, so this runs only on the error path)."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def chain_hash(previous: bytes, link: bytes) -> bytes:
    """
    One step of the block hash chain: hash(i) = SHA-256(hash(i-1) || link(i)), where link(i) is
    the block's role, a NUL, and SHA-256 of its canonical bytes.
    """
    return hashlib.sha256(previous + link).digest()


def json_path(parent: str, key: str | int) -> str:
    """Extend a path the way users write it: `tools[3].input_schema.properties["a b"]`."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if key.isidentifier():
        return f"{parent}.{key}"
    return f"{parent}[{orjson.dumps(key).decode()}]"


_FIX_TYPE = "convert it to str, int, float, bool, None, list or dict before passing it in"


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def _explain(value: Any, path: str) -> None:
    """Walk `value` and raise `CanonicalError` at the first thing canonical JSON cannot hold."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return
    if kind is float:
        if not math.isfinite(value):
            raise CanonicalError(
                path, f"{value!r} is not valid JSON", "replace it with a finite number or None"
            )
        return
    if kind is int:
        if not _INT_MIN <= value <= _INT_MAX:
            raise CanonicalError(path, f"integer {value} does not fit in 64 bits", "send it as str")
        return
    if kind is dict or (isinstance(value, Mapping) and kind not in (str, bytes)):
        _explain_mapping(value, path)
        return
    if kind is list or kind is tuple:
        for index, item in enumerate(value):
            _explain(item, json_path(path, index))
        return
    if isinstance(value, (set, frozenset)):
        raise CanonicalError(
            path,
            f"a {kind.__name__} has no stable order (it changes with PYTHONHASHSEED)",
            "pass sorted(...) as a list instead",
        )
    try:
        orjson.dumps(value, option=_OPTIONS)
    except (TypeError, orjson.JSONEncodeError):
        raise CanonicalError(
            path, f"{_describe(value)} is not JSON-serialisable", _FIX_TYPE
        ) from None


def _explain_mapping(value: Mapping[Any, Any], path: str) -> None:
    if type(value) is not dict:
        raise CanonicalError(
            path, f"{type(value).__name__} is not a plain dict", "pass dict(...) of it instead"
        )
    for key, item in value.items():
        if type(key) is not str:
            raise CanonicalError(
                json_path(path, str(key)),
                f"key {key!r} is a {type(key).__name__}, and JSON object keys must be str",
                f"use the string {str(key)!r} as the key",
            )
        _explain(item, json_path(path, key))
