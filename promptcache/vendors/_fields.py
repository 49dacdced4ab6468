"""Field access that works on SDK objects and plain JSON alike (the usage readers use it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import InputError, shown

__all__ = ["MAX_COUNT", "first_int", "get_field", "get_int", "require_usage"]


# A token count of one request above this is corrupt or not a count: the largest context windows
# hold about 10 million tokens.
MAX_COUNT = 10**9


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
    if value is None or (type(value) is int and 0 <= value <= MAX_COUNT):  # `type`: not bool
        return value
    if type(value) is int:  # no vendor's count: priced, it would be a false number
        wrong = (
            "is negative" if value < 0 else f"is over {MAX_COUNT:,}, more than any context holds"
        )
        raise InputError(
            f"usage field {'.'.join(path)} {wrong} ({value}): pass the response as the vendor "
            "sent it"
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
