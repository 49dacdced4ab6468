"""
Request settings outside the render order whose change still drops cache: the model always, and
each vendor's own (`CacheRules.invalidating`), read from the body as sent, `extra_body` merged in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..vendors import Vendor
from ..vendors._elements import Element, setting
from .divergence import Position

__all__ = ["SettingChange", "setting_change"]


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
    for rule in vendor.rules.invalidating:
        (path_a, before), (path_b, after) = setting(a, rule.path), setting(b, rule.path)
        if before != after:
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


def _first_in_layer(elements: Sequence[Element], layer: str) -> int:
    return next((i for i, e in enumerate(elements) if e.layer == layer), len(elements))
