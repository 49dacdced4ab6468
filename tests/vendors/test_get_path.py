"""`get_path` reads plain dicts by a shortcut: it must give what the general walk gives."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pydantic
from hypothesis import given, settings
from hypothesis import strategies as st

from promptcache.vendors._elements import get_path, plain


def _walked(request: Any, dotted: str) -> Any:
    """The general walk: every step made plain and checked to be a Mapping."""
    value: Any = request
    for name in dotted.split("."):
        value = plain(value)
        if not isinstance(value, Mapping):
            return None
        value = value.get(name)
    return plain(value)


class _Options(pydantic.BaseModel):
    mode: str | None = None
    ttl: str | None = None


class _Frozen(Mapping[str, Any]):
    """A Mapping that is not a dict (a types.MappingProxyType-like request)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Any:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


leaves = st.one_of(
    st.none(), st.sampled_from(["explicit", "24h", ""]), st.integers(), st.lists(st.integers())
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.dictionaries(st.sampled_from(["mode", "ttl", "prompt_cache_options", "x"]), inner),
        st.builds(
            _Frozen, st.dictionaries(st.sampled_from(["mode", "prompt_cache_options"]), inner)
        ),
        st.builds(_Options, mode=st.sampled_from([None, "explicit"])),
    ),
    max_leaves=8,
)
paths = st.sampled_from(["prompt_cache_options.mode", "mode", "x.ttl", "prompt_cache_options"])


@settings(max_examples=300, deadline=None)
@given(values, paths)
def test_get_path_reads_as_the_general_walk(request: Any, dotted: str) -> None:
    assert get_path(request, dotted) == _walked(request, dotted)
