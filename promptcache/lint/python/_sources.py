"""
Where variation comes from: volatile calls (clocks, ids, randomness) and per-request names.

Call names are matched after import resolution (`from datetime import datetime as dt` makes
`dt.now()` the call `datetime.datetime.now`), as case-insensitive globs.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from functools import lru_cache

from ..rules.PC101 import DEFAULT_VOLATILE_CALLS
from .frameworks import FRAMEWORKS

__all__ = ["VOLATILE_CALLS", "is_volatile_call", "per_request_matcher"]

# Resolved names of calls whose result differs between requests, from every framework.
VOLATILE_CALLS = tuple(source for framework in FRAMEWORKS for source in framework.sources)
# Calls that read the clock only when no time argument is given.
_CLOCK_WITHOUT_ARGUMENT = frozenset(
    {"time.strftime", "time.localtime", "time.gmtime", "time.ctime", "time.asctime"}
)


@lru_cache(maxsize=32)
def _regex(patterns: tuple[str, ...], *, fold: bool = True) -> re.Pattern[str] | None:
    if not patterns:
        return None
    return re.compile("|".join(fnmatch.translate(p.lower() if fold else p) for p in patterns))


def is_volatile_call(name: str, arguments: int, configured: tuple[str, ...]) -> bool:
    """
    Whether a call to resolved `name` with `arguments` positional arguments is volatile.

    The built-in names match case-sensitively, as Python does (`random.Random(seed)` is not
    `random.random()`); the config's own globs match case-insensitively, as documented.
    """
    # Only "none, one, more" arguments matter; clipping keeps the memo small.
    return _is_volatile_call(name, min(arguments, 2), configured)


@lru_cache(maxsize=8192)
def _is_volatile_call(name: str, arguments: int, configured: tuple[str, ...]) -> bool:
    # Memoised: a run asks about the same few dotted names in every module.
    if name in _CLOCK_WITHOUT_ARGUMENT and arguments > (name == "time.strftime"):
        return False
    builtin = _regex(VOLATILE_CALLS, fold=False)
    if builtin is not None and builtin.match(name):
        return True
    extra = _regex(tuple(p for p in configured if p not in DEFAULT_VOLATILE_CALLS))
    return extra is not None and extra.match(name.lower()) is not None


@lru_cache(maxsize=16)  # one per configuration: its memo serves every project of a run
def per_request_matcher(
    per_request: tuple[str, ...], extra: tuple[str, ...], stable: tuple[str, ...]
) -> Callable[[str], bool]:
    """
    A memoised test: is a parameter or key of this name per-request data?

    An ALL_CAPS name is a constant (`Layer.DOCS`, `DEFAULT_CONTEXT`), never per-request.
    """
    wanted = _regex((*per_request, *extra))
    unwanted = _regex(stable)

    @lru_cache(maxsize=4096)
    def matches(name: str) -> bool:
        if name.isupper():
            return False
        lowered = name.lower()
        if unwanted is not None and unwanted.match(lowered):
            return False
        return wanted is not None and wanted.match(lowered) is not None

    return matches
