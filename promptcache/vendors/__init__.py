"""
One module per request format, each the single home of that format's cache rules (as data), its
request reader, its usage reader and the SDK call paths that send it; and the registry of their
names.

    from promptcache.vendors import get_vendor, detect_vendor

    get_vendor("vLLM").name            -> "engine"
    get_vendor("openai").rules.granularity_tokens  -> 128
    detect_vendor({"model": "claude-sonnet-4-6", "system": "...", "messages": [...]}).name
                                        -> "anthropic"

Names are case-insensitive and have aliases (`promptcache vendors` lists them). Adding a format
is one module here (its `VENDOR` record) and a row in `_MODULES`; see docs/architecture.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from .._errors import InputError, shown_keys, shown_name
from . import (
    anthropic,
    azure_openai,
    azure_openai_responses,
    bedrock_converse,
    bedrock_invoke,
    bedrock_mantle,
    engine,
    foundry,
    gemini,
    openai_chat,
    openai_responses,
    vertex_anthropic,
    vertex_gemini,
)
from ._elements import Element, Span, Unit, plain, plain_request
from ._rules import TTL_SECONDS, CacheRules, Capabilities, Setting
from ._vendor import Vendor

__all__ = [
    "TTL_SECONDS",
    "VENDORS",
    "VENDOR_NAMES",
    "CacheRules",
    "Capabilities",
    "Element",
    "Setting",
    "Span",
    "Unit",
    "Vendor",
    "detect_response_vendor",
    "detect_vendor",
    "get_vendor",
    "resolve_vendor",
    "unknown_vendor",
    "vendor_choices",
]

_MODULES: tuple[ModuleType, ...] = (anthropic, openai_chat, openai_responses, gemini, engine)
_MODULES += (bedrock_converse, bedrock_invoke)
# Cloud platforms serving those formats (`_platform.py`).
_MODULES += (vertex_anthropic, vertex_gemini, azure_openai, azure_openai_responses, foundry)
_MODULES += (bedrock_mantle,)
VENDORS: tuple[Vendor, ...] = tuple(module.VENDOR for module in _MODULES)
VENDOR_NAMES: tuple[str, ...] = tuple(v.name for v in VENDORS)
_BY_NAME: dict[str, Vendor] = {name.lower(): v for v in VENDORS for name in (v.name, *v.aliases)}


def vendor_choices() -> tuple[str, ...]:
    """Every accepted name and alias, for help texts."""
    return tuple(_BY_NAME)


def get_vendor(name: str | Vendor) -> Vendor:
    """The format registered under `name` or an alias, in any case; unknown names list them."""
    if isinstance(name, Vendor):
        return name
    found = _BY_NAME.get(name.strip().lower()) if isinstance(name, str) else None
    if found is None:
        raise unknown_vendor(shown_name(name))
    return found


def unknown_vendor(shown: str) -> InputError:
    """The error for a name no format has; `shown`: the name as the message may show it."""
    aliases = "; ".join(f"{v.name}: {', '.join(v.aliases)}" for v in VENDORS)
    return InputError(
        f"unknown vendor {shown}; use one of {', '.join(VENDOR_NAMES)} (aliases, in any "
        f"case: {aliases}); `promptcache vendors` lists them"
    )


def detect_vendor(request: Mapping[str, Any], response: Any = None) -> Vendor:
    """
    The format `request` is written in, from its shape (and `response`'s, when given). A request
    that fits none, or fits several equally well, is an error naming what was found.
    """
    request = plain_request(request, "request")
    fits = [v for v in VENDORS if v.misfit(request) is None and v.detects(request)]
    if not fits:
        raise InputError(
            "cannot tell which vendor this request is for: it has none of 'messages', 'input' "
            f"or 'contents' in a shape we read (keys: {shown_keys(request)}); pass --vendor / "
            "vendor="
        )
    answer = plain(response) if response is not None else None
    scored = sorted(
        ((v.signs(request) + 2 * v.response_signs(answer), v) for v in fits),
        key=lambda pair: -pair[0],
    )
    best = scored[0][0]
    tied = [v for score, v in scored if score == best]
    if len(tied) == 1:
        return tied[0]
    raise InputError(
        f"this request could be {_either(tied)}: its shape does not say which. Pass "
        f"--vendor / vendor= one of {', '.join(v.name for v in tied)}"
    )


def detect_response_vendor(response: Any) -> Vendor:
    """The format of a response (or only its usage object), from its shape and model."""
    answer = plain(response)
    # A platform answers in the format it serves: only naming it tells its responses apart.
    first_party = [v for v in VENDORS if v.serves is None]
    scored = sorted(((v.response_signs(answer), v) for v in first_party), key=lambda p: -p[0])
    best = scored[0][0]
    tied = [v for score, v in scored if score == best]
    if best > 0 and len(tied) == 1:
        return _platform_of(tied[0], answer)
    keys = shown_keys(answer) if isinstance(answer, Mapping) else type(answer).__name__
    which = f"could be {_either(tied)}" if best > 0 else f"has no field we know (keys: {keys})"
    raise InputError(
        f"cannot tell which API answered: this response {which}. Pass --vendor / vendor="
    )


def _platform_of(served: Vendor, answer: Any) -> Vendor:
    """The platform whose own mark the response carries (`Vendor.answers`), else `served`."""
    return next((v for v in VENDORS if v.serves == served.name and v.answers(answer)), served)


def resolve_vendor(request: Mapping[str, Any], named: str | Vendor | None) -> Vendor:
    """
    The format to read `request` as: the one named, checked against the request's shape (a
    sibling format of the same vendor when that is the one that fits: `openai` names both
    Chat Completions and Responses), or the detected one when none is named.
    """
    if named is None:
        return detect_vendor(request)
    wanted = get_vendor(named)
    problem = wanted.misfit(request)
    if problem is None:
        return wanted
    sibling = next(
        (v for v in VENDORS if v.family == wanted.family and v.misfit(request) is None), None
    )
    if sibling is not None:
        return sibling
    try:
        found = f"; it looks like {detect_vendor(request).title}"
    except InputError:
        found = ""
    raise InputError(
        f"this request does not read as {wanted.title} ({wanted.name}): it has {problem}{found}. "
        "Pass the vendor the request was written for, or leave --vendor / vendor= out to detect it"
    )


def _either(vendors: list[Vendor]) -> str:
    names = [f"{v.title} ({v.name})" for v in vendors]
    return " or ".join(names)
