"""
The rendering side: render a template into promptcache layers, split at the tail marker.

    prompt = render_prompt(source, {"manual": manual, "question": q}, volatile="error")

Everything above `{# promptcache: tail #}` becomes a system block (the cacheable prefix), and
everything below becomes the tail. The runtime twin of the lint rules: rendering refuses, by
policy, a volatile value above the marker, found either statically (the template calls `now()`
or renders a per-request variable there) or in the rendered text (a timestamp, a UUID, a nonce).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import jinja2

from .._errors import InputError, VolatileContentError, VolatileContentWarning
from .._prompt import Prompt, VolatilePolicy
from .._volatile import find_volatile
from ._config import DEFAULT_CONFIG, LintConfig
from ._loader import TAIL_MARKER, Loader, mark_tail, parse
from .templates import TAIL, TAIL_NAME, Hazard, Walker

__all__ = ["RenderedTemplate", "render_prompt", "render_template"]

_SENTINEL = "\x00promptcache-tail\x00"
_DEFAULT_ENV = jinja2.Environment(keep_trailing_newline=True, undefined=jinja2.StrictUndefined)


@dataclass(frozen=True, slots=True, kw_only=True)
class RenderedTemplate:
    """A rendered template: the stable text above the marker and the tail below it."""

    stable: str
    tail: str

    def to_prompt(
        self, base: Prompt | None = None, *, layer: Literal["system", "docs"] = "system"
    ) -> Prompt:
        """Add `stable` to `layer` of `base` (a new Prompt when None) and `tail` as the tail."""
        prompt = base if base is not None else Prompt()
        if self.stable.strip():
            prompt = (
                prompt.add_docs(self.stable) if layer == "docs" else prompt.add_system(self.stable)
            )
        if self.tail.strip():
            prompt = prompt.with_tail(self.tail)
        return prompt


def render_template(
    source: str,
    context: Mapping[str, Any] | None = None,
    *,
    volatile: VolatilePolicy = "error",
    env: jinja2.Environment | None = None,
    config: LintConfig = DEFAULT_CONFIG,
    name: str = "<template>",
) -> RenderedTemplate:
    """Render `source` with `context`; check the part above the marker under `volatile`."""
    if volatile not in ("warn", "error", "ignore"):
        raise InputError(f"volatile must be 'warn', 'error' or 'ignore', got {volatile!r}")
    if source.lower().count("promptcache: tail") > 1:
        raise InputError(f"{name}: the tail marker {TAIL_MARKER} appears more than once; keep one")
    if volatile != "ignore":
        for hazard in _static_hazards(source, config):
            _refuse(
                volatile,
                f"{name}:{hazard.line}: {hazard.detail} renders above the tail "
                f"marker ({hazard.code}); move it below {TAIL_MARKER}",
            )
    text = _render(env or _DEFAULT_ENV, source, {**(context or {}), TAIL_NAME: _SENTINEL}, name)
    stable, _, tail = text.partition(_SENTINEL)
    if _SENTINEL in tail:
        raise InputError(f"{name}: the tail marker rendered more than once (is it in a loop?)")
    if volatile != "ignore":
        for match in find_volatile(stable):
            _refuse(
                volatile,
                f"{name}: the text above the tail marker contains a {match.label} "
                f"{match.value!r} at offset {match.offset}; render it below {TAIL_MARKER}",
            )
    return RenderedTemplate(stable=stable, tail=tail)


def render_prompt(
    source: str,
    context: Mapping[str, Any] | None = None,
    *,
    base: Prompt | None = None,
    layer: Literal["system", "docs"] = "system",
    volatile: VolatilePolicy = "error",
    env: jinja2.Environment | None = None,
    config: LintConfig = DEFAULT_CONFIG,
) -> Prompt:
    """Render a template straight into a `Prompt`: stable part in `layer`, the rest as the tail."""
    rendered = render_template(source, context, volatile=volatile, env=env, config=config)
    return rendered.to_prompt(base if base is not None else Prompt(volatile=volatile), layer=layer)


def _render(env: jinja2.Environment, source: str, context: Mapping[str, Any], name: str) -> str:
    """Render, turning Jinja's UndefinedError (a name the context lacks) into an InputError."""
    try:
        return _compile(env, mark_tail(source)).render(context)
    except jinja2.UndefinedError as exc:
        message = exc.message or "a name is undefined"
        named = re.match(r"'([^']+)' is undefined", message)
        key = named.group(1) if named else "NAME"
        raise InputError(
            f"{name}: {message}: the template uses a name the context does not give. Fix: pass "
            f"it in the context ({{..., {key!r}: ...}}) or as a global of your Jinja environment "
            f"(env.globals[{key!r}] = ...; render_prompt(..., env=env))"
        ) from None


def _refuse(policy: VolatilePolicy, message: str) -> None:
    if policy == "error":
        raise VolatileContentError(message)
    warnings.warn(VolatileContentWarning(message), stacklevel=4)


@lru_cache(maxsize=256)
def _static_hazards(source: str, config: LintConfig) -> tuple[Hazard, ...]:
    """Every hazard above the marker: the marker says the prefix ends there, so none is allowed."""
    walker = Walker(config=config, loader=Loader(), origin="<template>", path=None, chat=False)
    hazards = []
    for event in walker.template(parse(mark_tail(source)), {}):
        if event is TAIL:
            break
        if isinstance(event, Hazard) and event.code != "PC106":  # a name of unknown meaning
            hazards.append(event)
    return tuple(hazards)


@lru_cache(maxsize=256)
def _compile(env: jinja2.Environment, source: str) -> jinja2.Template:
    return env.from_string(source)
