"""
The cause classifier: given the first unit where two requests differ, find the exact field and
name why it changed (a timestamp, an id, keys in another order, tools reordered, whitespace,
...), with an excerpt of the text around the change. Vendor-neutral.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from .._canonical import canonical_bytes, json_path
from .._errors import describe as describe_text
from .._volatile import describe
from ..vendors._elements import (
    Element,
    Unit,
    element_units,
    get_path,
    same_place,
    strip_markers,
)
from .divergence import Divergence
from .string_items import Reordering, reordering
from .volatile_spans import TIME_KINDS, covers, hits_near, standalone

__all__ = [
    "CAUSES",
    "Excerpt",
    "Found",
    "byte_offset",
    "common_prefix",
    "excerpt_of",
    "locate",
    "show",
]

CAUSES: tuple[str, ...] = (
    "timestamp",
    "random_id",
    "key_order",
    "tools_changed",
    "tool_order",
    "block_order",
    "model_changed",
    "whitespace",
    "unicode_normalization",
    "content_changed",
    "tool_choice_changed",
    "thinking_changed",
    "cache_salt_changed",
    "not_cached",
    "below_minimum",
    "none",
)

_CONTEXT, _SHOWN = 24, 48
_DEEP_LIMIT = 256 * 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class Excerpt:
    """The text around a divergence: shared lead, the old and new middle, and what follows."""

    lead: str
    old: str
    new: str
    trail_old: str
    trail_new: str


def show(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else orjson.dumps(value).decode()


@dataclass(frozen=True, slots=True, kw_only=True)
class Found:
    layer: str
    path: str
    cause: str
    old: Any
    new: Any
    excerpt: Excerpt | None
    offset: int | None
    detail: str


_MISSING: Any = object()


def locate(
    found: Divergence, ea: Sequence[Element], eb: Sequence[Element], order: Sequence[str]
) -> Found:
    a, b, index = found.units_a, found.units_b, found.unit
    ua = a[index] if index < len(a) else None
    ub = b[index] if index < len(b) else None
    if ua is None or ub is None or not same_place(ua.path, ub.path):
        return _structural(ua, ub, order)
    layer = ua.layer
    if layer == "tools" and _same_tools_reordered(ea, eb):
        return _tool_order(ua, ub)
    if layer == "tools":
        moved = _tool_inserted_or_removed(ea, eb, ua, ub)
        if moved is not None:
            return moved
    if layer == "system" and _same_blocks_reordered(ea, eb, layer):
        return _block_order(ua, ub)
    if ua.value == ub.value:
        return _key_order(ua, ub)
    path, old, new = _first_leaf(ua.value, ub.value, ua.path)
    return _classify(layer, path, old, new, ea, eb)


def _structural(ua: Unit | None, ub: Unit | None, order: Sequence[str]) -> Found:
    """One request has a unit where the other has none, or a different one (a block added)."""
    present = [u for u in (ub, ua) if u is not None]
    unit = min(present, key=lambda u: order.index(u.layer))  # the earlier layer changed
    if (
        ua is not None and ub is not None and ua.layer != ub.layer
    ):  # added or removed at a layer end
        ua, ub = (None, ub) if unit is ub else (ua, None)
    old = None if ua is None else ua.data.decode()
    new = None if ub is None else ub.data.decode()
    cause = "tools_changed" if unit.layer == "tools" else "content_changed"
    where = "removed from" if ub is None else "added to" if ua is None else "restructured in"
    excerpt = excerpt_of(old or "", new or "")
    return Found(
        layer=unit.layer,
        path=unit.path,
        cause=cause,
        old=old,
        new=new,
        excerpt=excerpt,
        offset=0 if old is None or new is None else _json_offset(old, new),
        detail=f"a block was {where} {unit.layer} at {unit.path}",
    )


def _tool_values(elements: Sequence[Element]) -> list[Any]:
    return [strip_markers(e.value)[0] for e in elements if e.layer == "tools"]


def _same_tools_reordered(ea: Sequence[Element], eb: Sequence[Element]) -> bool:
    tools_a, tools_b = _tool_values(ea), _tool_values(eb)
    if len(tools_a) != len(tools_b) or tools_a == tools_b:
        return False
    if len(orjson.dumps(tools_a)) <= _DEEP_LIMIT:
        from deepdiff import DeepDiff  # structural compare, blind to list order at every level

        return not DeepDiff(tools_a, tools_b, ignore_order=True)
    return sorted(map(canonical_bytes, tools_a)) == sorted(map(canonical_bytes, tools_b))


def _same_blocks_reordered(ea: Sequence[Element], eb: Sequence[Element], layer: str) -> bool:
    """The layer holds the same blocks (markers aside, byte for byte) in another order."""
    count = sum(e.layer == layer for e in ea)
    if count < 2 or count != sum(e.layer == layer for e in eb):
        return False  # one block cannot be reordered: don't serialise a long system prompt again
    blocks_a, blocks_b = _layer_blocks(ea, layer), _layer_blocks(eb, layer)
    return blocks_a != blocks_b and sorted(blocks_a) == sorted(blocks_b)


def _layer_blocks(elements: Sequence[Element], layer: str) -> list[bytes]:
    return [b"".join(u.data for u in element_units(e)) for e in elements if e.layer == layer]


def _block_order(ua: Unit, ub: Unit) -> Found:
    old, new = _block_text(ua.value), _block_text(ub.value)
    return Found(
        layer=ua.layer,
        path=ua.path,
        cause="block_order",
        old=old,
        new=new,
        excerpt=_whole(old, new),
        offset=_unit_offset(ua, ub),
        detail=(
            f"same {ua.layer} blocks in a different order: {ua.path} was {describe_text(old)}, "
            f"now {describe_text(new)}"
        ),
    )


def _block_text(block: Any) -> str:
    if isinstance(block, Mapping) and isinstance(block.get("text"), str):
        return str(block["text"])
    return block if isinstance(block, str) else orjson.dumps(block).decode()


def _unit_offset(ua: Unit, ub: Unit) -> int:
    """Bytes into the string at the unit's path, or into its JSON when it is not a string."""
    if isinstance(ua.value, str) and isinstance(ub.value, str):
        return _json_offset(ua.value, ub.value)
    return _json_offset(ua.data.decode(), ub.data.decode())


def _tool_order(ua: Unit, ub: Unit) -> Found:
    old, new = _tool_name(ua.value), _tool_name(ub.value)
    return Found(
        layer="tools",
        path=ua.path,
        cause="tool_order",
        old=old,
        new=new,
        excerpt=_whole(old, new),
        offset=_json_offset(ua.data.decode(), ub.data.decode()),
        detail=f"same tools in a different order: {ua.path} was {old!r}, now {new!r}",
    )


def _tool_name(tool: Any) -> str:
    if isinstance(tool, Mapping):
        name = tool.get("name") or get_path(tool, "function.name")
        if isinstance(name, str):
            return name
        decls = tool.get("function_declarations") or tool.get("functionDeclarations")
        if isinstance(decls, list):
            return ",".join(str(d.get("name")) for d in decls if isinstance(d, Mapping))
    return orjson.dumps(tool).decode()[:_SHOWN]


def _key_order(ua: Unit, ub: Unit) -> Found:
    path, ka, kb = _first_reordered(ua.value, ub.value, ua.path)
    detail = f"same content, keys of {path} serialised in a different order"
    offset = _json_offset(ua.data.decode(), ub.data.decode())
    return _reordered_keys(ua.layer, path, ka, kb, offset, detail)


def _reordered_keys(
    layer: str, path: str, ka: list[str], kb: list[str], offset: int, detail: str
) -> Found:
    old, new = ", ".join(ka), ", ".join(kb)
    return Found(
        layer=layer,
        path=path,
        cause="key_order",
        old=old,
        new=new,
        excerpt=_whole(old, new),
        offset=offset,
        detail=detail,
    )


def _serialised_json(layer: str, path: str, old: str, new: str) -> Found | None:
    """
    JSON carried as a string (OpenAI tool-call arguments, tool results) serialised again: the
    same value with its keys in another order (`json.dumps` without `sort_keys`) is key_order,
    with other spacing only (other `separators`) is whitespace.
    """
    value_old, value_new = _json_container(old), _json_container(new)
    if value_old is None or value_old != value_new:
        return None
    where, ka, kb = _first_reordered(value_old, value_new, path)
    offset = byte_offset(old, common_prefix(old, new))
    if ka:
        keys = "its keys" if where == path else f"the keys of {where}"
        detail = f"same JSON in the string at {path}, {keys} in a different order"
        return _reordered_keys(layer, path, ka, kb, offset, detail)
    if _SPACE.sub("", old) == _SPACE.sub("", new):
        return Found(
            layer=layer,
            path=path,
            cause="whitespace",
            old=old,
            new=new,
            excerpt=excerpt_of(old, new),
            offset=offset,
            detail=f"same JSON in the string at {path}, serialised with other spacing",
        )
    return None


# A hashed log's placeholder of JSON text (recorder._json_hashes): the text's hash, its value's
# with sorted keys, and its compact JSON's in its own key order.
_HASHED_JSON = re.compile(r"#[0-9a-f]{12}:([0-9a-f]{12}):([0-9a-f]{12})#\.*")


def _hashed_json(layer: str, path: str, old: str, new: str) -> Found | None:
    """`_serialised_json` on a hashed log: the same value reordered or respaced, told by hashes."""
    found_old, found_new = _HASHED_JSON.fullmatch(old), _HASHED_JSON.fullmatch(new)
    if found_old is None or found_new is None or found_old[1] != found_new[1]:
        return None
    reordered = found_old[2] != found_new[2]
    return Found(
        layer=layer,
        path=path,
        cause="key_order" if reordered else "whitespace",
        old=None,
        new=None,
        excerpt=None,
        offset=None,
        detail=f"same JSON in the string at {path} (by its hashes: the log keeps no text), "
        + ("its keys in a different order" if reordered else "serialised with other spacing"),
    )


def _json_container(text: str) -> Any:
    """The object or array `text` holds as JSON, or None."""
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, (dict, list)) else None


def _first_reordered(a: Any, b: Any, path: str) -> tuple[str, list[str], list[str]]:
    """The first object whose keys come in a different order (a and b are equal as values)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if list(a) != list(b):
            return path, list(a), list(b)
        for key in a:
            found = _first_reordered(a[key], b[key], json_path(path, key))
            if found[1]:
                return found
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _first_reordered(x, y, json_path(path, i))
            if found[1]:
                return found
    return path, [], []


def _first_leaf(a: Any, b: Any, path: str) -> tuple[str, Any, Any]:
    """The first differing field, walking in the order the request serialises (a's key order)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in a:
            if key not in b:
                return json_path(path, key), a[key], _MISSING
            if a[key] != b[key]:
                return _first_leaf(a[key], b[key], json_path(path, key))
        added = next(k for k in b if k not in a)
        return json_path(path, added), _MISSING, b[added]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return _first_leaf(x, y, json_path(path, i))
        i = min(len(a), len(b))
        return (
            json_path(path, i),
            a[i] if i < len(a) else _MISSING,
            b[i] if i < len(b) else _MISSING,
        )
    return path, a, b


def _classify(
    layer: str, path: str, old: Any, new: Any, ea: Sequence[Element], eb: Sequence[Element]
) -> Found:
    if isinstance(old, str) and isinstance(new, str):
        return (
            _serialised_json(layer, path, old, new)
            or _hashed_json(layer, path, old, new)
            or _classify_text(layer, path, old, new)
        )
    shown_old = None if old is _MISSING else show(old) or "null"
    shown_new = None if new is _MISSING else show(new) or "null"
    cause = "tools_changed" if layer == "tools" else "content_changed"
    detail = _tools_detail(ea, eb) if layer == "tools" else _what_changed(path, old, new)
    return Found(
        layer=layer,
        path=path,
        cause=cause,
        old=shown_old,
        new=shown_new,
        excerpt=excerpt_of(shown_old or "", shown_new or ""),
        offset=0 if shown_old is None or shown_new is None else _json_offset(shown_old, shown_new),
        detail=detail,
    )


def _what_changed(path: str, old: Any, new: Any) -> str:
    if old is _MISSING:
        return f"{path} was added"
    if new is _MISSING:
        return f"{path} was removed"
    return f"{path} changed"


def _classify_text(layer: str, path: str, old: str, new: str) -> Found:
    start = common_prefix(old, new)
    end_old, end_new = _divergent_ends(old, new, start)
    volatile = _volatile_cause(old, new, start, end_old, end_new)
    if volatile is not None:
        cause, label = volatile
        detail = f"{describe(label)} changed between the requests"
    elif _same_but_spacing(old, new, start, end_old, end_new):
        cause, detail = "whitespace", f"only whitespace differs at {path}"
    elif _same_but_normalisation(old, new):
        cause = "unicode_normalization"
        detail = (
            f"same text at {path} in another Unicode normalisation form (composed vs decomposed "
            "characters, e.g. 'é' as one code point or as 'e' plus an accent)"
        )
    elif layer == "system" and (moved := reordering(old, new)) is not None:
        return _items_reordered(layer, path, old, new, moved)
    else:
        cause = "tools_changed" if layer == "tools" else "content_changed"
        detail = f"text of {path} changed"
    excerpt = _text_excerpt(old, new, start, end_old, end_new)
    return Found(
        layer=layer,
        path=path,
        cause=cause,
        old=old,
        new=new,
        excerpt=excerpt,
        offset=byte_offset(old, start),
        detail=detail,
    )


def _same_but_normalisation(old: str, new: str) -> bool:
    """Equal once both are in NFC (or NFKC): the bytes differ, the text a person reads does not."""
    if old.isascii() and new.isascii():
        return False
    return any(
        unicodedata.normalize(form, old) == unicodedata.normalize(form, new)
        for form in ("NFC", "NFKC")
    )


def _items_reordered(layer: str, path: str, old: str, new: str, moved: Reordering) -> Found:
    start = common_prefix(old, new)
    return Found(
        layer=layer,
        path=path,
        cause="block_order",
        old=moved.old,
        new=moved.new,
        excerpt=_whole(moved.old, moved.new),
        offset=byte_offset(old, start),
        detail=(
            f"the same {moved.count} {moved.items} of {path} in a different order: "
            f"{moved.item} {moved.index + 1} "
            f"was {describe_text(moved.old)}, now {describe_text(moved.new)}"
        ),
    )


def _tool_inserted_or_removed(
    ea: Sequence[Element], eb: Sequence[Element], ua: Unit, ub: Unit
) -> Found | None:
    """
    A tool added or dropped in the middle of the list shifts every tool after it: name the tool
    that came or went, not the field of its neighbour that now sits at its index.
    """
    names_a = [_tool_name(v) for v in _tool_values(ea)]
    names_b = [_tool_name(v) for v in _tool_values(eb)]
    if len(names_a) == len(names_b):
        return None
    longer, shorter = (names_b, names_a) if len(names_b) > len(names_a) else (names_a, names_b)
    index = next(
        (i for i, (x, y) in enumerate(zip(longer, shorter, strict=False)) if x != y),
        len(shorter),
    )
    if longer[:index] + longer[index + 1 :] != shorter:
        return None  # more than one tool came or went: the generic description says which
    name = longer[index]
    added = len(names_b) > len(names_a)
    where = f"{ua.path.split('[')[0]}[{index}]"
    verb = "inserted at" if added else "removed from"
    shown = _clip(orjson.dumps(_tool_values(eb if added else ea)[index]).decode())
    return Found(
        layer="tools",
        path=where,
        cause="tools_changed",
        old=None if added else shown,
        new=shown if added else None,
        excerpt=_whole("" if added else shown, shown if added else ""),
        offset=0,
        detail=f"tool {name!r} {verb} {where}; the {len(longer) - index - 1} tools after it "
        "moved one place",
    )


def _volatile_cause(
    old: str, new: str, start: int, end_old: int, end_new: int
) -> tuple[str, str] | None:
    """A time or an id in the changed span of both texts: the classic per-request value."""
    found_old = hits_near(old, start, end_old)
    found_new = hits_near(new, start, end_new)
    # The change is the value itself, or values that stand as words of their own: a value
    # glued into a name that changed around it ("minutes-2026-11-14.md" for
    # "pricing-2026-10-02.md") is another document, not a clock reading.
    whole = covers(old, start, end_old, found_old) and covers(new, start, end_new, found_new)
    for hit in found_old:
        for other in found_new:
            if other.kind in _kind_group(hit.kind) and (
                whole or (standalone(old, hit) and standalone(new, other))
            ):
                return _cause_of(hit.kind), hit.label
    appeared = [h for h in found_new if standalone(new, h)]
    if appeared and not found_old:  # a value appeared (a timestamp added to the prompt)
        return _cause_of(appeared[0].kind), appeared[0].label
    if _clock_at(old, start, end_old) and _clock_at(new, start, end_new):
        return "timestamp", "clock time"
    if _id_at(old, start, end_old) and _id_at(new, start, end_new):
        return "random_id", "request id"
    return None


def _cause_of(kind: str) -> str:
    return "timestamp" if kind in TIME_KINDS else "random_id"


# A short hex id (`[req 7f3a9c21e4b8]`, a trace or request id): shorter than the volatile scan's
# nonces, but an id when it is the whole token that changed on both sides.
_HEX_ID = re.compile(r"(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,64}")


def _id_at(text: str, start: int, end: int) -> bool:
    """The changed span [start, end) lies inside a word that is a hex id of 8 or more digits."""
    lo, hi = start, end
    while lo > max(0, start - 64) and text[lo - 1].isalnum():
        lo -= 1
    while hi < min(len(text), end + 64) and text[hi].isalnum():
        hi += 1
    return _HEX_ID.fullmatch(text, lo, hi) is not None


# A bare wall-clock reading, `14:03` or `9:05:59`: too common in prose for the volatile scan,
# which wants seconds or AM/PM, but a time when it is the token that changed on both sides.
_CLOCK = re.compile(r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?")
_CLOCK_LEN = len("23:59:59")


def _clock_at(text: str, start: int, end: int) -> bool:
    """The changed span [start, end) lies inside a word that is a valid clock time."""
    lo, hi, reach = start, end, _CLOCK_LEN + 1  # a word longer than a clock is not one
    while lo > max(0, start - reach) and _in_word(text[lo - 1]):
        lo -= 1
    while hi < min(len(text), end + reach) and _in_word(text[hi]):
        hi += 1
    return hi - lo <= _CLOCK_LEN and _CLOCK.fullmatch(text, lo, hi) is not None


def _in_word(char: str) -> bool:
    return char.isalnum() or char in ":_"


def _kind_group(kind: str) -> frozenset[str]:
    return TIME_KINDS if kind in TIME_KINDS else frozenset({"uuid", "hex_nonce", "base64_nonce"})


_SPACE = re.compile(r"\s+")


def _same_but_spacing(old: str, new: str, start: int, end_old: int, end_new: int) -> bool:
    changed_old, changed_new = old[start:end_old], new[start:end_new]
    if (changed_old or changed_new) and not changed_old.strip() and not changed_new.strip():
        return True
    if len(old) + len(new) > 2 * _DEEP_LIMIT:
        return False
    return _SPACE.sub(" ", old).strip() == _SPACE.sub(" ", new).strip()


def common_prefix(a: str, b: str) -> int:
    """Length of the common prefix; compares 4 KiB slices in C before going char by char."""
    limit, i, step = min(len(a), len(b)), 0, 4096
    while i < limit and a[i : i + step] == b[i : i + step]:
        i += step
    i = min(i, limit)
    while i < limit and a[i] == b[i]:
        i += 1
    return i


def _divergent_ends(a: str, b: str, start: int) -> tuple[int, int]:
    """Where the changed span ends in each text (the common suffix not overlapping the prefix)."""
    room = min(len(a), len(b)) - start
    k, step = 0, 4096
    while (
        k + step <= room and a[len(a) - k - step : len(a) - k] == b[len(b) - k - step : len(b) - k]
    ):
        k += step
    while k < room and a[len(a) - 1 - k] == b[len(b) - 1 - k]:
        k += 1
    return len(a) - k, len(b) - k


def byte_offset(text: str, index: int) -> int:
    return index if text.isascii() else len(text[:index].encode("utf-8"))


def _json_offset(old: str, new: str) -> int:
    return byte_offset(old, common_prefix(old, new))


def excerpt_of(old: str, new: str) -> Excerpt:
    start = common_prefix(old, new)
    end_old, end_new = _divergent_ends(old, new, start)
    return _text_excerpt(old, new, start, end_old, end_new)


def _whole(old: str, new: str) -> Excerpt:
    return Excerpt(lead="", old=_clip(old), new=_clip(new), trail_old="", trail_new="")


def _text_excerpt(old: str, new: str, start: int, end_old: int, end_new: int) -> Excerpt:
    lead = old[max(0, start - _CONTEXT) : start]
    if start > _CONTEXT:
        lead = "…" + lead
    return Excerpt(
        lead=lead,
        old=_clip(old[start:end_old]),
        new=_clip(new[start:end_new]),
        trail_old=_trail(old, end_old),
        trail_new=_trail(new, end_new),
    )


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _trail(text: str, end: int) -> str:
    tail = text[end : end + _CONTEXT // 2]
    return tail + "…" if end + _CONTEXT // 2 < len(text) else tail


def _tools_detail(ea: Sequence[Element], eb: Sequence[Element]) -> str:
    """Which tools were added, removed or edited (deepdiff on the tool list, keyed by name)."""
    tools_a = {_tool_name(v): v for v in _tool_values(ea)}
    tools_b = {_tool_name(v): v for v in _tool_values(eb)}
    added = sorted(set(tools_b) - set(tools_a))
    removed = sorted(set(tools_a) - set(tools_b))
    parts = [f"added {', '.join(added)}"] if added else []
    parts += [f"removed {', '.join(removed)}"] if removed else []
    edited = _edited_tools(tools_a, tools_b)
    parts += [f"edited {', '.join(edited)}"] if edited else []
    return "tools changed: " + ("; ".join(parts) or "definitions differ")


def _edited_tools(tools_a: Mapping[str, Any], tools_b: Mapping[str, Any]) -> list[str]:
    common = [name for name in tools_a if name in tools_b]
    size = sum(len(orjson.dumps(tools_a[n])) for n in common)
    if size > _DEEP_LIMIT:
        return [n for n in common if tools_a[n] != tools_b[n]]
    from deepdiff import DeepDiff

    return [n for n in common if DeepDiff(tools_a[n], tools_b[n], ignore_order=False)]
