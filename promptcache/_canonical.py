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

from ._errors import CanonicalError, InputError, private_path, shown

__all__ = [
    "MAX_DEPTH",
    "canonical_bytes",
    "chain_hash",
    "check_depth",
    "json_path",
    "load_json",
    "refuse_unreadable",
    "refusing_deeper",
    "unsendable",
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
    comes from nesting deeper than `MAX_DEPTH` (orjson's limit, Python's recursion limit), or
    from a value no JSON request can carry (a key that is not a str), into the `InputError` that
    says so, naming the path and never the value. Free on the way in: the values are walked only
    after a failure.
    """
    try:
        yield
    except (RecursionError, TypeError):
        refuse_unreadable(**values)
        raise


def refuse_unreadable(**values: Any) -> None:
    """
    After a reader of `values` (requests, by name) failed with a RecursionError or a TypeError:
    raise the `InputError` that names why, when a value nests deeper than `MAX_DEPTH` or holds
    something no JSON request can carry (a reader's own TypeError, orjson's "Dict key must be
    str", names neither the path nor the fix); return when neither, for the caller to re-raise.
    """
    for name, value in values.items():
        check_depth(value, name)
    for name, value in values.items():
        found = unsendable(value, name)
        if found is not None:
            where, problem, fix = found
            raise InputError(f"{private_path(where)}: {problem}; {fix}") from None


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
    """The value by type, length and short hash, never its text (prompts are personal data)."""
    return shown(value)


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
            raise CanonicalError(json_path(path, str(key)), *_key_problem(key))
        _explain(item, json_path(path, key))


def _key_problem(key: Any) -> tuple[str, str]:
    """What is wrong with an object key that is not a str, and the fix: a number is shown (it
    carries no text), anything else by type, size and hash."""
    problem = f"key {shown(key)} is a {type(key).__name__}, and JSON object keys must be str"
    if type(key) in (int, float, bool):
        return problem, f"use the string {str(key)!r} as the key"
    return problem, "use str keys (a tuple or an object as a key has no JSON form)"


def unsendable(value: Any, path: str) -> tuple[str, str, str] | None:
    """
    The first thing in `value` that no JSON request can carry, as (path, problem, fix): an
    object key that is not a str, or a value orjson cannot serialise. None when there is none.
    Lenient where `canonical_bytes` is strict (tuples, mappings of any kind, NaN are sent as the
    SDK sends them): this names why a reader of a request failed. Values are never quoted.
    """
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if type(item) in (str, int, float, bool) or item is None:
            continue
        if isinstance(item, Mapping):
            items = list(item.items())
            for key, _ in items:
                if type(key) is not str:
                    return (json_path(where, str(key)), *_key_problem(key))
            stack.extend((child, json_path(where, key)) for key, child in reversed(items))
        elif isinstance(item, list | tuple):
            stack.extend(
                (child, json_path(where, n)) for n, child in reversed(list(enumerate(item)))
            )
        else:
            try:
                orjson.dumps(item)
            except (TypeError, orjson.JSONEncodeError):
                return where, f"{_describe(item)} is not JSON-serialisable", _FIX_TYPE
    return None
