"""Field access that works on SDK objects and plain JSON alike (the usage readers use it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import InputError, shown

__all__ = ["first_int", "get_field", "get_int", "require_usage"]


def get_field(obj: Any, *path: str) -> Any:
    """
    Follow `path` through SDK objects or plain dicts; None where any step is missing.

    SDK models expose fields as attributes (unknown server fields land in pydantic's extras, which
    getattr also reaches); JSON dicts use the wire names, which equal the attribute names for
    Anthropic and OpenAI. Gemini readers pass both spellings.
    """
    for name in path:
        if obj is None:
            return None
        # `type(...) is dict` first: JSON responses are dicts, and the ABC check costs more.
        is_mapping = type(obj) is dict or isinstance(obj, Mapping)
        obj = obj.get(name) if is_mapping else getattr(obj, name, None)
    return obj


def get_int(obj: Any, *path: str) -> int | None:
    """A count field, or None when absent. A non-integer or negative value is an error, not a 0."""
    # One field of a JSON dict is the common case (every record of a log): read it directly.
    value = obj.get(path[0]) if type(obj) is dict and len(path) == 1 else get_field(obj, *path)
    if value is None or (type(value) is int and value >= 0):  # `type` rules out bool
        return value
    if type(value) is int:  # a count below 0 is no vendor's: priced, it would be a false number
        raise InputError(
            f"usage field {'.'.join(path)} is negative ({value}): a token count never is; pass "
            "the response as the vendor sent it"
        )
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(
            f"usage field {'.'.join(path)} should be an integer, got {shown(value)}; pass the "
            "SDK response object or its JSON dict"
        )
    return value


def first_int(obj: Any, *names: str) -> int | None:
    """The first present integer among alternative spellings (snake_case, camelCase)."""
    for name in names:
        value = get_int(obj, name)
        if value is not None:
            return value
    return None


def require_usage(usage: Any, field: str, whole: str) -> None:
    """
    Refuses a response that carries no usage (`field` absent): read as zeros it would be a
    counted, priced call whose usage nobody saw.
    """
    if get_field(usage, field) is None:
        raise InputError(
            f"the response has no usage ({field} missing); pass the whole {whole} or its JSON"
        )
