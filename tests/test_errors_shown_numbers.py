"""An error names a refused NaN or infinity as such, not as the `null` orjson would write."""

from __future__ import annotations

import math

import pytest

from promptcache._errors import InputError, shown
from promptcache.vendors import get_vendor


@pytest.mark.parametrize(("value", "words"), [(math.nan, "NaN"), (math.inf, "Infinity")])
def test_shown_names_a_non_finite_number(value: float, words: str) -> None:
    assert shown(value) == words
    assert shown([1, value]) == f"[1,{words}]"


def test_a_nan_token_count_is_named_nan() -> None:
    with pytest.raises(InputError, match="got NaN"):
        get_vendor("anthropic").read_usage({"usage": {"input_tokens": math.nan}})
