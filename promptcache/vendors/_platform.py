"""
A cloud platform that serves another vendor's request format (Claude on Vertex AI, GPT on Azure,
Gemini on Vertex AI, Claude in Foundry or Bedrock's Messages endpoint): the same shapes, readers
and call paths as that format, with the platform's own name, minimum and price tables, marks for
detection and model names.

    VENDOR = on_platform(anthropic.VENDOR, name="vertex-anthropic", ...)

The usage it reads says the platform (`CacheUsage.vendor`), so a cost is priced from the
platform's rows, not the first-party ones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from .._errors import InputError, shown_name
from .._usage import CacheUsage
from ._vendor import Vendor

__all__ = ["by_model", "model_names", "named_models", "on_platform", "relabelled"]


def relabelled(read: Callable[[Any], CacheUsage], vendor: str) -> Callable[[Any], CacheUsage]:
    """`read`, its records saying `vendor` (the platform that answered)."""

    def read_on_platform(response: Any) -> CacheUsage:
        return replace(read(response), vendor=vendor)

    return read_on_platform


def on_platform(
    base: Vendor,
    *,
    name: str,
    title: str,
    aliases: tuple[str, ...],
    table_key: str,
    detects: Callable[[Mapping[str, Any]], bool],
    model_of: Callable[[str], str] | None = None,
    same_model: Callable[[str, str], bool | None] | None = None,
    supports_breakpoints: Callable[[str], bool] | None = None,
    answers: Callable[[Any], bool] | None = None,
    **rules: Any,
) -> Vendor:
    """
    `base`'s format as `name` serves it. `table_key`: the platform's key in the minimum-token
    and price tables (formats of one platform share it); `rules`: the `CacheRules` fields the
    platform changes (its TTLs, its capabilities).
    """
    capabilities = rules.pop("capabilities", base.rules.capabilities)
    return replace(
        base,
        name=name,
        title=title,
        aliases=aliases,
        rules=replace(
            base.rules,
            min_tokens_key=table_key,
            capabilities=replace(capabilities, vendor=name),
            **rules,
        ),
        read_usage=relabelled(base.read_usage, name),
        # Only asked of requests it detects: its mark outscores the bare format's shape.
        signs=lambda request: base.signs(request) + 1,
        detects=detects,
        same_model=same_model or (by_model(model_of) if model_of else base.same_model),
        serves=base.name,
        supports_breakpoints=supports_breakpoints or base.supports_breakpoints,
        answers=answers or base.answers,
    )


def by_model(model_of: Callable[[str], str]) -> Callable[[str, str], bool | None]:
    """`Vendor.same_model` from a platform's name reader: two names are one model when they
    resolve to the same one."""

    def same_model(a: str, b: str) -> bool | None:
        return model_of(a) == model_of(b)

    return same_model


def named_models(vendor: Vendor, mapping: Mapping[str, str]) -> Vendor:
    """
    `vendor` with the user's own model names (Azure or Foundry deployments, Bedrock application
    inference profile ARNs) resolved to the models they serve, e.g. `{"my-gpt": "gpt-5.1"}`:
    for `same_model`, and for `rules_model` (the minimum, TTLs and price are the served
    model's); a name not in `mapping` is compared as the platform compares it (as named, for a
    deployment: never guessed).
    """
    names = model_names(mapping)
    platform_same = vendor.same_model
    platform_model = vendor.rules_model

    def same_model(a: str, b: str) -> bool | None:
        ra, rb = names.get(a, a), names.get(b, b)
        if ra == rb:
            # an id left out of the mapping that names no model stays unknown, even to itself
            unknown = platform_same is not None and platform_same(ra, rb) is None
            return None if unknown else True
        return platform_same(ra, rb) if platform_same is not None else False

    def rules_model(model: str) -> str:
        return platform_model(names.get(model, model))

    return replace(vendor, same_model=same_model, rules_model=rules_model)


def unserved_base(vendor: Vendor, model: str) -> str | None:
    """The base model `model` was mapped to (`named_models`) where that names no model either
    (`claude-sonnet-4-5` given for a Bedrock profile ARN, a typo), or None."""
    served = vendor.rules_model(model)
    same = vendor.same_model
    if served == model or same is None or same(served, served) is not None:
        return None
    return served


def unserved_base_fix(base: str) -> str:
    """What to say of a base model that names no model: it and the form it needs."""
    return (
        f"the base model {shown_name(base)} given for it names no model either: give the "
        "foundation model id it serves (`aws bedrock get-inference-profile` lists it, such as "
        "anthropic.claude-sonnet-4-5-20250929-v1:0)"
    )


def model_names(mapping: Mapping[str, str]) -> dict[str, str]:
    """A user's {name: model it serves} checked: each a pair of non-empty strings."""
    if not isinstance(mapping, Mapping):
        raise InputError(
            f"model names must be a mapping, got {type(mapping).__name__}; pass "
            '{"deployment-name": "model-id"} or {"profile-arn": "foundation-model-id"}'
        )
    names: dict[str, str] = {}
    for name, model in mapping.items():
        if not isinstance(name, str) or not isinstance(model, str) or not model.strip():
            raise InputError(
                f"model names: {shown_name(name)} -> {shown_name(model)} is not a pair of names; "
                'pass {"deployment-name": "model-id"} or {"profile-arn": "foundation-model-id"}'
            )
        names[name.strip()] = model.strip()
    return names
