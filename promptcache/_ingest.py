"""
Read the keyword arguments of a vendor SDK call back into a `Prompt`.

This is how `promptcache inspect` shows the cache layout of a request that promptcache did not
build. Each format's reader lives in its module in `promptcache.vendors`; this module picks it
(detected from the request's shape when no vendor is named, checked against it when one is),
splits off the tail and builds the prompt. Tools keep the order the request sent them in (the
vendor sees that order), cache markers are dropped (they are layout, not content), and the last
user turn becomes the tail.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._errors import InputError
from ._parts import Message
from ._prompt import Prompt
from .vendors import Vendor, resolve_vendor
from .vendors._elements import model_of_request

__all__ = ["Ingested", "prompt_from_request"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Ingested:
    """A request read back: its prompt, model and vendor dialect."""

    prompt: Prompt
    model: str | None
    vendor: str


_NOT_AN_OBJECT = re.compile(r"^'(\w+)' object has no attribute")
_NOT_A_LIST = re.compile(r"^'(\w+)' object is not (?:iterable|subscriptable)")


def _a_request(vendor: str) -> str:
    return f"{'an' if vendor[0] in 'aeio' else 'a'} {vendor} request"


def _shape_problem(exc: Exception) -> str:
    """What a reader tripped on, in the words of the JSON the caller wrote."""
    if isinstance(exc, KeyError):
        return f"an object has no {exc.args[0]!r} key"
    names = {"str": "a string", "int": "a number", "float": "a number", "bool": "true or false"}
    names |= {"NoneType": "null", "list": "a list", "dict": "an object"}
    for pattern, wanted in ((_NOT_AN_OBJECT, "an object"), (_NOT_A_LIST, "a list")):
        found = pattern.match(str(exc))
        if found:
            return f"expected {wanted}, found {names.get(found[1], found[1])}"
    return f"a value has the wrong type ({exc})"


def prompt_from_request(request: Mapping[str, Any], vendor: str | Vendor | None = None) -> Ingested:
    """Turn SDK keyword arguments into an `Ingested` prompt (vendor detected if None)."""
    if not isinstance(request, Mapping):
        raise InputError(
            f"a request must be a JSON object of keyword arguments, got {type(request).__name__}"
        )
    spec = resolve_vendor(request, vendor)
    try:
        tools, system, messages = spec.read_prompt(request)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        # The readers walk what the caller saved; the checks that name a path catch the common
        # mistakes, and anything else malformed (a string where an object belongs, an object
        # without its name) ends here instead of as an internal error.
        raise InputError(
            f"this does not read as {_a_request(spec.name)}: {_shape_problem(exc)}. Fix: save "
            "the keyword arguments of the SDK call as JSON (messages or input or contents a list "
            "of objects, tools a list of objects with a name), or pass the right --vendor"
        ) from exc
    history, tail = _split_tail(messages)
    prompt = (
        Prompt(pin_tool_order=True, volatile="ignore")
        .add_tools(*tools)
        .add_system(*system)
        .add_history(*history)
        .with_tail(*tail)
    )
    model = model_of_request(request)
    return Ingested(
        prompt=prompt, model=str(model) if model is not None else None, vendor=spec.name
    )


def _split_tail(messages: list[Message]) -> tuple[list[Message], list[Message]]:
    """The tail is the trailing run of user turns: the new question and what came with it."""
    cut = len(messages)
    while cut > 0 and messages[cut - 1].role == "user":
        cut -= 1
    if cut == 0 and messages:
        cut = len(messages) - 1
    return messages[:cut], messages[cut:]
