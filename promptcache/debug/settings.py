"""
Request settings outside the render order whose change still drops cache: the model always, and
each vendor's own (`CacheRules.invalidating`), read from the body as sent, `extra_body` merged in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from .._errors import digest
from ..vendors import Vendor
from ..vendors._elements import Element, setting
from .divergence import Position

__all__ = ["HASHED_SETTINGS", "SettingChange", "setting_change", "setting_digest"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SettingChange:
    """A changed setting: where the cache is cut (`cut`), the cause, the values."""

    cut: Position
    cause: str
    layer: str
    path: str
    before: Any
    after: Any


def setting_change(
    a: Mapping[str, Any], b: Mapping[str, Any], vendor: Vendor, elements: Sequence[Element]
) -> SettingChange | None:
    """The first setting outside the render order whose change drops cache tiers, if any."""
    if a.get("model") != b.get("model"):
        return SettingChange(
            cut=(0, 0),
            cause="model_changed",
            layer="model",
            path="model",
            before=a.get("model"),
            after=b.get("model"),
        )
    hashed = a.get(HASHED_SETTINGS)
    for rule in vendor.rules.invalidating:
        (path_a, before), (path_b, after) = setting(a, rule.path), setting(b, rule.path)
        if isinstance(hashed, Mapping):  # a shared store's state: the value's hash only
            path_a, kept = hashed.get(rule.path, (rule.path, None))
            before = _KEPT_AS_HASH if kept is not None else None
            changed = kept != setting_digest(after)
        else:
            changed = before != after
        if changed:
            path = path_b if after is not None else path_a
            keeps_head = rule.drops == "messages"
            cut = (_first_in_layer(elements, "messages") if keeps_head else 0, 0)
            return SettingChange(
                cut=cut,
                cause=rule.cause,
                layer="messages" if keeps_head else "model",
                path=path,
                before=before,
                after=after,
            )
    return None


# Where a shared store's state keeps its settings: each invalidating setting's place and hash.
HASHED_SETTINGS = "#settings"
_KEPT_AS_HASH = "(kept as a hash)"


def setting_digest(value: Any) -> str | None:
    """The hash a store keeps of a setting's value (None: not set), keyed as every hash is."""
    if value is None:
        return None
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # not JSON: its repr stands for it (equal values, equal hashes)
        data = repr(value).encode("utf-8", "surrogatepass")
    return digest(data)[:32]


def _first_in_layer(elements: Sequence[Element], layer: str) -> int:
    return next((i for i, e in enumerate(elements) if e.layer == layer), len(elements))
