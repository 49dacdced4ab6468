"""
Linter configuration: defaults, and the `[tool.promptcache.lint]` table of pyproject.toml.

    [tool.promptcache.lint]
    select = ["PC1", "PC201"]           # code prefixes; default: every rule
    ignore = ["PC201"]
    threshold = 100                     # estimated tokens that must follow a volatile value
    extend-volatile-calls = ["clock.*"] # or `volatile-calls` to replace the defaults
    extend-per-request = ["tenant_*"]   # or `per-request` to replace the defaults
    stable = ["user_guide"]             # names that are never per-request
    strict = true                       # every variable not declared stable is per-request
    sizes = { tools = 2000 }            # estimated tokens of stable variables (default: unknown)
    include = ["*.j2", "*.jinja"]       # file globs when a directory is linted
    exclude = ["vendor/**"]
    search-path = ["templates"]         # where includes and imports are resolved
    extensions = ["jinja2_time.TimeExtension"]  # Jinja extensions the templates use
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._inputs import read_text
from .rules import RULES
from .rules.PC101 import DEFAULT_VOLATILE_CALLS, DEFAULT_VOLATILE_FILTERS
from .rules.PC102 import DATE_NAMES, DEFAULT_PER_REQUEST, is_deployment_date

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]

__all__ = ["DEFAULT_CONFIG", "LintConfig", "find_pyproject", "load_config", "snake_case"]

DEFAULT_INCLUDE = (
    "*.j2",
    "*.jinja",
    "*.jinja2",
    "*.prompt",
    "*.prompty",
    "tokenizer_config.json",
    "*.py",
)


# What could not be read, parsed or followed: said unless ignored, or it would pass as clean.
UNCHECKED = frozenset({"PC001", "PC002", "PC003", "PC500", "PC506"})
# Experiments that did not pay on the measured corpus (issue #21): run only when `select` names
# the code itself, as `select = ["PC", "PC5xx"]`. PC508 found no buster on the four held-out
# sets of stop 31 (c3, fresh, c4, c5: 96 busters) and alarmed two clean files (issue #21).
OPT_IN: frozenset[str] = frozenset({"PC508"})


@lru_cache(maxsize=1024)  # asked for each finding and module: the same few codes, one config
def _enabled(select: tuple[str, ...], ignore: tuple[str, ...], code: str) -> bool:
    """`LintConfig.enabled`, worked out once per selection and code."""
    best_select = max((len(s) for s in select if code.startswith(s.upper())), default=-1)
    best_ignore = max((len(s) for s in ignore if code.startswith(s.upper())), default=-1)
    if code in UNCHECKED:
        return best_ignore < 0 or best_select > best_ignore
    if code in OPT_IN and code not in (s.upper() for s in select):
        return False
    return best_select > best_ignore


@dataclass(frozen=True, slots=True, kw_only=True)
class LintConfig:
    """Everything the linter can be told. Every name list is a list of case-insensitive globs."""

    select: tuple[str, ...] = ("PC",)
    ignore: tuple[str, ...] = ()
    threshold: int = 100
    volatile_calls: tuple[str, ...] = DEFAULT_VOLATILE_CALLS
    volatile_filters: tuple[str, ...] = DEFAULT_VOLATILE_FILTERS
    per_request: tuple[str, ...] = DEFAULT_PER_REQUEST
    stable: tuple[str, ...] = ()
    strict: bool = False
    sizes: tuple[tuple[str, int], ...] = ()  # (name glob, estimated tokens)
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = ()
    search_path: tuple[str, ...] = ()
    extensions: tuple[str, ...] = ()
    root: Path | None = None  # the folder of the pyproject.toml; None: the current folder
    max_bytes: int = 64 * 1024 * 1024  # the largest file read (--max-bytes)

    def __post_init__(self) -> None:
        if (
            isinstance(self.threshold, bool)
            or not isinstance(self.threshold, int)
            or (self.threshold < 0)
        ):
            raise InputError(
                f"lint threshold must be a whole number of tokens >= 0, got {self.threshold!r}"
            )
        if not self.select:
            raise InputError(
                "lint select is empty, so no rule would run and every file would pass unchecked; "
                'name the rules to run (`select = ["PC"]`: all of them) or leave select out'
            )
        for code in (*self.select, *self.ignore):
            if not code:  # a prefix of every code: select or ignore them all, unsaid
                raise InputError(
                    "'' is not a rule code; give codes or prefixes such as PC1 or PC501"
                )
            if not any(rule.startswith(code.upper()) for rule in RULES):
                raise InputError(f"{code!r} matches no lint rule; known codes: {', '.join(RULES)}")
        if (
            isinstance(self.max_bytes, bool)
            or not isinstance(self.max_bytes, int)
            or self.max_bytes < 1
        ):
            raise InputError(f"lint max_bytes must be a whole number >= 1, got {self.max_bytes!r}")
        if not isinstance(self.strict, bool):
            raise InputError(f"lint strict must be true or false, got {self.strict!r}")
        if self.extensions:
            from ._loader import check_extensions

            check_extensions(self.extensions)
        for name, tokens in self.sizes:
            if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
                raise InputError(
                    f"lint sizes: {name!r} must be a whole number of tokens >= 0, got {tokens!r}"
                )

    def enabled(self, code: str) -> bool:
        """
        Whether findings with `code` are reported (the longest matching prefix wins). A file or
        part that could not be checked (`UNCHECKED`) is reported whatever `select` leaves out,
        as ruff reports syntax errors: only `ignore` silences it.
        """
        return _enabled(tuple(self.select), tuple(self.ignore), code)

    def replace(self, **changes: Any) -> LintConfig:
        return dataclasses.replace(self, **changes)

    @property
    def is_volatile_call(self) -> Callable[[str], bool]:
        return _matcher(self.volatile_calls)

    @property
    def is_volatile_filter(self) -> Callable[[str], bool]:
        return _matcher(self.volatile_filters)

    def is_per_request(self, dotted: str) -> bool:
        """
        Whether a variable (`user`, `user.name`) changes per request, by name or root name.

        A date name counts wherever it sits (`runtime_info.date`). In strict mode every name
        not declared stable is per-request.
        """
        root = dotted.split(".", 1)[0]
        stable = _matcher(self.stable)
        if stable(dotted) or stable(root):
            return False
        if self.strict:
            return True
        per_request = _matcher(self.per_request)
        leaf = dotted.rsplit(".", 1)[-1]
        if is_deployment_date(leaf) and not self._names_exactly(dotted):
            return False  # the model's cutoff or release date: fixed by the deployment
        return per_request(dotted) or per_request(root) or _matcher(DATE_NAMES)(leaf)

    def _names_exactly(self, dotted: str) -> bool:
        """Whether `per_request` lists this very name (or its root), not a glob matching it."""
        names = {pattern.lower() for pattern in self.per_request}
        return dotted.lower() in names or dotted.split(".", 1)[0].lower() in names

    def is_declared_stable(self, dotted: str) -> bool:
        """Whether the user declared a variable (by name or root name) the same on every request."""
        stable = _matcher(self.stable)
        return stable(dotted) or stable(dotted.split(".", 1)[0])

    def declared_size(self, dotted: str) -> int | None:
        """The estimated tokens `sizes` declares for a variable (by name or root), if any."""
        root = dotted.split(".", 1)[0]
        for pattern, tokens in self.sizes:
            if _matcher((pattern,))(dotted) or _matcher((pattern,))(root):
                return tokens
        return None


DEFAULT_CONFIG = LintConfig()


@lru_cache(maxsize=64)
def _matcher(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """
    One compiled regex for a tuple of globs, with a per-name memo (names repeat a lot). A name
    written in camelCase (`userQuery`, kept from JavaScript or JSON) matches as its snake_case
    spelling (`user_query`) does.
    """
    if not patterns:
        return lambda name: False
    regex = re.compile("|".join(fnmatch.translate(p.lower()) for p in patterns))

    @lru_cache(maxsize=4096)
    def match(name: str) -> bool:
        lowered = name.lower()
        if regex.match(lowered) is not None:
            return True
        snake = snake_case(name)
        return snake != lowered and regex.match(snake) is not None

    return match


_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@lru_cache(maxsize=4096)  # asked of every call's name that may be a clock helper's
def snake_case(name: str) -> str:
    """`userQuery` as `user_query` (lower case; a name without humps only lowered)."""
    return _CAMEL_HUMP.sub("_", name).lower()


# -- pyproject.toml -----------------------------------------------------------------------------

_LIST_KEYS = {
    "select": "select",
    "ignore": "ignore",
    "volatile-calls": "volatile_calls",
    "volatile-filters": "volatile_filters",
    "per-request": "per_request",
    "stable": "stable",
    "include": "include",
    "exclude": "exclude",
    "search-path": "search_path",
    "extensions": "extensions",
}
_EXTEND_KEYS = {
    "extend-select": "select",
    "extend-volatile-calls": "volatile_calls",
    "extend-volatile-filters": "volatile_filters",
    "extend-per-request": "per_request",
    "extend-include": "include",
}
_KNOWN = sorted({*_LIST_KEYS, *_EXTEND_KEYS, "threshold", "strict", "sizes"})


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml in `start` or a folder above it."""
    start = start.resolve()
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


_CONFIG_MAX_BYTES = 16 * 1024 * 1024  # a pyproject.toml is kilobytes


def load_config(pyproject: Path | None) -> LintConfig:
    """Read `[tool.promptcache.lint]` from `pyproject` (defaults when None or absent)."""
    if pyproject is None:
        return DEFAULT_CONFIG
    # The one reading path: a FIFO, device, folder or non-UTF-8 file is named, not read.
    text = read_text(pyproject, max_bytes=_CONFIG_MAX_BYTES, flag=None, what="lint configuration")
    try:
        data = tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, and the int-str limit of a long integer
        raise InputError(f"cannot read lint configuration from {str(pyproject)!r}: {exc}") from None
    table: Any = data
    for name, shown in (("tool", "`tool`"), ("promptcache", "[tool.promptcache]"), ("lint", None)):
        table = table.get(name, {})
        if not isinstance(table, dict):
            shown = shown or "[tool.promptcache.lint]"
            raise InputError(f"{pyproject}: {shown} must be a table, got {table!r}")
    try:
        return config_from_table(table, root=pyproject.parent, source=str(pyproject))
    except InputError as exc:
        if str(pyproject) in str(exc):
            raise
        raise InputError(f"{pyproject}: [tool.promptcache.lint]: {exc}") from None


def config_from_table(table: Mapping[str, Any], *, root: Path, source: str) -> LintConfig:
    """Build a config from the keys of a `[tool.promptcache.lint]` table."""
    unknown = sorted(set(table) - set(_KNOWN))
    if unknown:
        raise InputError(
            f"{source}: unknown key(s) {unknown} in [tool.promptcache.lint]; known keys: "
            f"{', '.join(_KNOWN)}"
        )
    changes: dict[str, Any] = {"root": root}
    for key, attr in _LIST_KEYS.items():
        if key in table:
            changes[attr] = _string_list(table[key], key, source)
    for key, attr in _EXTEND_KEYS.items():
        if key in table:
            base = changes.get(attr, getattr(DEFAULT_CONFIG, attr))
            changes[attr] = (*base, *_string_list(table[key], key, source))
    if "threshold" in table:
        changes["threshold"] = table["threshold"]
    if "strict" in table:
        changes["strict"] = table["strict"]
    if "sizes" in table:
        changes["sizes"] = _sizes(table["sizes"], source)
    return DEFAULT_CONFIG.replace(**changes)


def _sizes(value: Any, source: str) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, dict):
        raise InputError(
            f"{source}: [tool.promptcache.lint] sizes must be a table of variable names to "
            f"estimated tokens, like `sizes = {{ tools = 2000 }}`, got {value!r}"
        )
    return tuple((str(name), tokens) for name, tokens in value.items())


def _string_list(value: Any, key: str, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(
            f"{source}: [tool.promptcache.lint] {key} must be a list of strings, got {value!r}"
        )
    return tuple(value)
