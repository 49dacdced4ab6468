"""
What stays of a request body the monitor drops for its byte budget: each element's hash and size,
where its cache markers were, and where it sat. Computed once per dropped body, on the caller's
thread, so it is built with one C-level pass per container (serialise, hash, measure) and stored
as arrays of machine integers: a few dozen bytes per element, nothing the garbage collector walks.
The element records judging reads (`Record`) are made from it only when a miss needs them.

The hashes are those of `Record.digest` (xxh3, 64 bits, unseeded: the same in every process), of
each element's JSON with its cache markers removed, so a fingerprint and records computed any
other way compare equal exactly when the elements do.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import compress, count, repeat
from operator import not_
from typing import Any

import orjson
from xxhash import xxh3_64_intdigest

from .._tokens import EstimateCounter, TokenCounter
from ..vendors import Vendor
from ..vendors._elements import MARKERS, Element, Span
from .memory import KeyState, Record, Serialised, carries_marker, without_markers

__all__ = ["Fingerprint", "digest", "fingerprint", "fingerprint_held"]

_MARKER_KEYS = frozenset(MARKERS)
# Each container of a body: layer, path, index of its first item, whether it is a list, items.
_Shape = tuple[tuple[str, str, int, bool, int], ...]
_DICT = frozenset({dict})
_TEXT = frozenset({str, type(None)})  # a message's content with no blocks to look into
_NONE: array[int] = array("L")  # shared, never written: a body all of ASCII counts nothing
# Container layouts seen, shared by the fingerprints that have them (a conversation's requests
# differ in length only): one tuple each rather than one per dropped body. Bounded; a plain dict
# (setdefault is atomic) read and written without a lock.
_SHAPES: dict[_Shape, _Shape] = {}
_SHAPES_KEPT = 4096

# A marker as builders write it, the element's last key: cut from the bytes, no re-serialising.
_TRAILING = {
    b',"cache_control":{"type":"ephemeral"}}': None,
    b',"cache_control":{"type":"ephemeral","ttl":"5m"}}': "5m",
    b',"cache_control":{"type":"ephemeral","ttl":"1h"}}': "1h",
}
_TRAILING_SIZES = sorted({len(tail) for tail in _TRAILING})


def digest(data: bytes) -> int:
    """
    The hash of an element's bytes, the same in every process (Python's own `hash()` of bytes is
    salted per process, and states are compared across processes by `RedisStore`).
    """
    return xxh3_64_intdigest(data)


@dataclass(slots=True, eq=False)
class Fingerprint:
    """
    A dropped body's elements, in render order. `spans`: (layer, path, start, listed, count) of
    each container; `digests`, `sizes`: each element's hash and JSON length (markers removed);
    `marks`: (element index, TTL) of each marked element; `counted`, `tokens`: the index and
    token count, made when the body was dropped, of each element whose count its size cannot give
    (text that is not ASCII; see `records`), in arrays like the rest rather than a dict (a few
    dozen bytes an entry).
    Not frozen only because a frozen dataclass takes twice as long to build, once per dropped
    body; nothing changes one after it is made.
    """

    spans: _Shape
    digests: array[int]
    sizes: array[int]
    marks: tuple[tuple[int, str | None], ...]
    counted: array[int]
    tokens: array[int]
    chars_per_token: float

    def __len__(self) -> int:
        return len(self.digests)

    def records(self) -> tuple[Record, ...]:
        """The element records, as `Judging._records_of` computes them from the body."""
        marks = dict(self.marks)
        counts = dict(zip(self.counted, self.tokens, strict=True))
        out: list[Record] = []
        index = 0
        estimate = EstimateCounter(self.chars_per_token)
        for layer, path, start, listed, size in self.spans:
            span = Span(layer, path, (), start, listed)
            for i in range(size):
                tokens = counts.get(index)
                if tokens is None:  # ASCII JSON under the estimate counter: its size says it
                    tokens = estimate.ascii_count(self.sizes[index])
                where = span.path_of(i)
                marked = index in marks
                out.append(
                    Record(layer, where, self.digests[index], tokens, marks.get(index), marked)
                )
                index += 1
        return tuple(out)


def fingerprint(
    vendor: Vendor, body: Mapping[str, Any], counter: TokenCounter
) -> Fingerprint | None:
    """
    The body's fingerprint, or None where the fast path does not apply (an item JSON cannot carry
    as is, such as an SDK object; a token counter other than the estimate): the caller then
    computes the records element by element.
    """
    if type(counter) is not EstimateCounter:
        return None
    spans: list[tuple[str, str, int, bool, int]] = []
    data: list[bytes] = []
    marks: list[tuple[int, str | None]] = []
    for span in vendor.spans(body):
        items = span.items
        try:
            dumped = list(map(orjson.dumps, items))
        except TypeError:  # orjson.JSONEncodeError is one
            return None
        for i in _marked(span):
            clean, ttl = _unmarked(span, i, dumped[i])
            dumped[i] = clean
            marks.append((len(data) + i, ttl))
        spans.append((span.layer, span.path, span.start, span.listed, len(items)))
        data += dumped
    counted = tokens = _NONE
    if not b"".join(data).isascii():
        counted = array("L", [i for i, part in enumerate(data) if not part.isascii()])
        tokens = array("L", [counter.utf8_count(data[i]) for i in counted])
    shape = tuple(spans)
    return Fingerprint(
        spans=_SHAPES.setdefault(shape, shape) if len(_SHAPES) < _SHAPES_KEPT else shape,
        digests=array("Q", map(xxh3_64_intdigest, data)),
        sizes=array("L", map(len, data)),
        marks=tuple(marks),
        counted=counted,
        tokens=tokens,
        chars_per_token=counter.chars_per_token,
    )


def fingerprint_held(
    keys: KeyState, key: str, request: Mapping[str, Any], data: bytes, counter: TokenCounter
) -> None:
    """
    Give `key`'s latest entry, just observed with its body kept as `data` (the JSON of the parsed
    `request` the caller still holds), its fingerprint now if bodies are being dropped: its body
    will most likely be dropped too, and the drop would parse `data` again only to serialise its
    elements (`promptcache report` on logs with more sessions in flight than the budget holds).
    The same fingerprint either way: `data` is `orjson.dumps(request)`. Callers hold the
    monitor's lock, or are its only thread.
    """
    if not keys.dropping:
        return
    entry = keys.entries.get(key)
    if entry is None or entry.fingerprint is not None or entry.records is not None:
        return
    body = entry.body
    if isinstance(body, Serialised) and body.holds(data):  # this observation's, still held
        entry.fingerprint = fingerprint(entry.vendor, request, counter)


def _marked(span: Span) -> list[int]:
    """
    Indices of the span's items that carry a cache marker where `without_markers` looks: a
    message's content blocks when its content is a list, else the item's own keys. Plain dicts
    (nearly every request) are looked at with C-level maps; anything else item by item.
    """
    items = span.items
    key = span.content_key
    if not set(map(type, items)) <= _DICT:
        return [i for i, item in enumerate(items) if carries_marker(item, key)]
    if key is not None and not set(map(type, map(dict.get, items, repeat(key)))) <= _TEXT:
        # content held as blocks (a list, or anything else but a string): looked at item by item
        return [i for i, item in enumerate(items) if carries_marker(item, key)]
    if all(map(_MARKER_KEYS.isdisjoint, items)):  # most containers: no marker at all
        return []
    return list(compress(count(), map(not_, map(_MARKER_KEYS.isdisjoint, items))))


def _unmarked(span: Span, index: int, data: bytes) -> tuple[bytes, str | None]:
    """A marked item's JSON without its markers, and the first marker's TTL."""
    item = span.items[index]
    key = span.content_key
    for size in _TRAILING_SIZES:
        tail = data[-size:]
        if (
            tail in _TRAILING
            and (key is None or not isinstance(item.get(key), list))
            and "prompt_cache_breakpoint" not in item
        ):
            # The last key of the item itself (the closing brace after it is the item's), and
            # the only marker there: what `without_markers` removes.
            return data[:-size] + b"}", _TRAILING[tail]
    element = Element(span.layer, span.path_of(index), item, key)
    stripped, ttl, _ = without_markers(element)
    return orjson.dumps(stripped), ttl
