"""
Which model a Bedrock model id names: the model whose cache rules, minimum and price apply.

Bedrock takes one model under several names (botocore's `ConversationalModelId` pattern):

    anthropic.claude-sonnet-4-5-20250929-v1:0                          a foundation model id
    us.anthropic.claude-sonnet-4-5-20250929-v1:0                       a cross-region profile
    arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-...   a foundation model ARN
    arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-...
    arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6

The last one is opaque: its name carries no model (pydantic-ai#4381, strands-agents#1705: checks
for "claude" in the id silently turned caching off). It resolves only through a mapping the
caller gives (from `aws bedrock get-inference-profile`); otherwise it is reported unresolved,
never guessed. Whether two names of one model share a cache is not documented anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .._errors import InputError, shown_name

__all__ = ["GEOS", "BedrockModel", "resolve_model", "same_model", "unresolved_error"]

# System-defined cross-region inference profile prefixes (Anthropic's Bedrock model table;
# hermes-agent#46297: `apac.` and `au.` missed by a prefix check).
GEOS = ("global", "us-gov", "us", "eu", "apac", "jp", "au")

_ARN = re.compile(
    r"^arn:aws(?:-[a-z-]+)?:bedrock:(?P<region>[a-z0-9-]*):(?P<account>\d*):"
    r"(?P<kind>[a-z-]+)/(?P<rest>.+)$"
)
_PROVIDER_ID = re.compile(r"^[a-z0-9-]+\.[a-z0-9-]+")


@dataclass(frozen=True, slots=True, kw_only=True)
class BedrockModel:
    """
    A Bedrock model id read: `kind` ("foundation-model", "inference-profile",
    "application-inference-profile", or another ARN resource type), the cross-region `geo`
    (None: in-region), the `region` an ARN names, and `base`: the foundation model id behind
    it (None when the name does not say and no mapping was given).
    """

    model_id: str
    kind: str
    base: str | None
    geo: str | None = None
    region: str | None = None

    @property
    def resolved(self) -> bool:
        return self.base is not None

    @property
    def provider(self) -> str | None:
        return self.base.split(".", 1)[0] if self.base else None

    def describe(self) -> str:
        """One line for `inspect` and error messages: what this id is and what it resolves to."""
        if self.base is None:
            return (
                f"{self.kind} {self.model_id}: its name does not say which model it serves "
                "(unresolved)"
            )
        where = f" in the {self.geo} geography" if self.geo else ""
        if self.kind == "foundation-model" and self.base == self.model_id:
            return f"foundation model {self.base}"
        return f"{self.kind} {self.model_id}: model {self.base}{where}"


def resolve_model(model_id: str, profiles: Mapping[str, str] | None = None) -> BedrockModel:
    """
    `model_id` read into the model it names. `profiles` maps application inference profile ARNs
    (or any id) to the foundation model id they serve; an entry there wins over the name.
    """
    if not isinstance(model_id, str) or not model_id.strip():
        raise InputError(f"a Bedrock model id must be a non-empty string, got {model_id!r}")
    name = model_id.strip()
    given = (profiles or {}).get(name)
    arn = _ARN.match(name)
    if arn is None:
        geo, base = _split_geo(name)
        kind = "inference-profile" if geo else "foundation-model"
        return BedrockModel(model_id=name, kind=kind, base=given or base, geo=geo)
    kind, rest, region = arn.group("kind"), arn.group("rest"), arn.group("region") or None
    if kind in ("foundation-model", "inference-profile"):
        geo, base = _split_geo(rest)
        return BedrockModel(model_id=name, kind=kind, base=given or base, geo=geo, region=region)
    # application-inference-profile, provisioned-model, custom-model, imported-model, ...: the
    # resource id is opaque
    return BedrockModel(model_id=name, kind=kind, base=given, region=region)


def _split_geo(name: str) -> tuple[str | None, str | None]:
    head, _, rest = name.partition(".")
    if head in GEOS and _PROVIDER_ID.match(rest):
        return head, rest
    return None, name if _PROVIDER_ID.match(name) else None


def same_model(a: str, b: str, profiles: Mapping[str, str] | None = None) -> bool | None:
    """
    Whether two Bedrock ids name one model: True, False, or None when either is unresolved.
    """
    ra, rb = resolve_model(a, profiles), resolve_model(b, profiles)
    if ra.base is None or rb.base is None:
        return None
    return ra.base == rb.base


def unresolved_error(model: BedrockModel, what: str) -> InputError:
    """The error for a model id whose model is needed but not said by its name."""
    return InputError(
        f"cannot tell which model {shown_name(model.model_id)} serves ({model.kind}: the name "
        f"carries no model), so {what} is unknown. Pass base_model='anthropic.claude-...' (the "
        "foundation model id `aws bedrock get-inference-profile` lists for it), or use the "
        "foundation model id or a cross-region profile id (us./eu./global.anthropic....)"
    )
