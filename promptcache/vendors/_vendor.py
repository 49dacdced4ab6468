"""`Vendor`: one request format's rules, readers and call paths, as one record."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._usage import CacheUsage
from ._elements import Element, Span, Unit, checked_item, element_units, plain
from ._reading import PromptParts
from ._rules import CacheRules, Capabilities

__all__ = ["Vendor"]


def _unmarked(response: Any) -> bool:
    return False


def _never(model: str) -> bool:
    return False


def _as_is(capabilities: Capabilities, model: str) -> Capabilities:
    return capabilities


# A format's own marker check: the markers a request carries (where, ttl) and what the API
# would refuse about them, each problem naming the rule and the fix.
MarkerCheck = Callable[[Mapping[str, Any]], tuple[list[tuple[str, str | None]], list[str]]]


def _none_added(request: Mapping[str, Any]) -> list[str]:
    return []


def _always(request: Mapping[str, Any]) -> bool:
    return True


def _none_counted(request: Mapping[str, Any], model: str | None) -> dict[str, int]:
    return {}


def _as_named(model: str) -> str:
    return model


@dataclass(frozen=True, slots=True, kw_only=True)
class Vendor:
    """
    One request format. `layers` cuts a request into its layers (`Span`s by layer name);
    `read_prompt` reads it back into prompt parts; `read_usage` reads a response's usage;
    `misfit` says why a request cannot be of this format (None: it can); `signs` and
    `response_signs` count the features that mark a request or response as this format's (for
    detection); `call_paths` are the SDK methods that send this format (attribute path -> how
    the method returns: "call", "iter", "chat-session" or a streaming helper's "*-manager").

    A platform that sends another format's body (Vertex AI, Azure, Foundry) is a record of its
    own (`_platform.on_platform`): `detects` says whether a request that fits the format carries
    the platform's mark (a body alone never tells Azure from OpenAI: only naming it does), and
    `same_model` whether two of its names are one model (`claude-x@20250929` and
    `publishers/anthropic/models/claude-x@20250929`), for a possible `model_changed`.
    """

    name: str
    title: str
    aliases: tuple[str, ...]
    rules: CacheRules
    layers: Callable[[Mapping[str, Any]], dict[str, list[Span]]]
    read_prompt: Callable[[Mapping[str, Any]], PromptParts]
    read_usage: Callable[[Any], CacheUsage]
    misfit: Callable[[Mapping[str, Any]], str | None]
    signs: Callable[[Mapping[str, Any]], int]
    response_signs: Callable[[Any], int]
    call_paths: Mapping[tuple[str, ...], str]
    sdk: str
    supports_breakpoints: Callable[[str], bool] = _never
    check_markers: MarkerCheck | None = None
    # Whether two model names of this format name one model (True/False; None: cannot tell)
    same_model: Callable[[str, str], bool | None] | None = None
    # What the vendor adds to the prompt that a count of the request's text leaves out (a tool
    # system prompt, server-side context), in words: sizes the vendor does not document.
    unestimated: Callable[[Mapping[str, Any]], list[str]] = _none_added
    detects: Callable[[Mapping[str, Any]], bool] = _always
    serves: str | None = None  # a platform: the first-party format it serves
    # Whether a response of the served format carries the platform's own mark (a Vertex message
    # id, Azure's content-filter results): what tells its answers apart where its body cannot
    answers: Callable[[Any], bool] = _unmarked
    # The capabilities as one model has them, where the models of a format differ (Bedrock:
    # Amazon Nova caches no tools)
    model_capabilities: Callable[[Capabilities, str], Capabilities] = _as_is
    # What the vendor adds that it documents a size for, for a model: {what, in the words
    # `unestimated` uses: tokens}. inspect counts these into the prefix.
    added_tokens: Callable[[Mapping[str, Any], str | None], dict[str, int]] = _none_counted
    # The model whose minimum, TTLs and price a model name of this format stands for: the one a
    # name the user mapped (an application inference profile ARN, a deployment) serves
    # (`_platform.named_models`); the name itself otherwise.
    rules_model: Callable[[str], str] = _as_named

    @property
    def family(self) -> str:
        """Formats of one vendor share a family (its key in the price and minimum tables)."""
        return self.rules.min_tokens_key

    def capabilities_for(self, model: str) -> Capabilities:
        automatic = self.rules.automatic_capabilities
        if automatic is None or self.supports_breakpoints(model):
            return self.model_capabilities(self.rules.capabilities, model)
        return self.model_capabilities(automatic, model)

    def spans(self, request: Mapping[str, Any]) -> list[Span]:
        """The containers of a request in render order, without touching their items."""
        by_layer = self.layers(request)
        return [span for layer in self.rules.render_order for span in by_layer.get(layer, ())]

    def elements(self, request: Mapping[str, Any]) -> list[Element]:
        """The request's elements in the vendor's render order."""
        return [
            Element(span.layer, span.path_of(i), plain(item), span.content_key)
            for span in self.spans(request)
            for i, item in enumerate(span.items)
        ]

    def checked_elements(self, request: Mapping[str, Any]) -> list[Element]:
        """
        `elements`, refusing in the same walk an item the API refuses (a null, a message that is
        not an object): what `diff` answers about must be a request the vendor could read.
        """
        return [
            Element(span.layer, span.path_of(i), checked_item(span, i, item), span.content_key)
            for span in self.spans(request)
            for i, item in enumerate(span.items)
        ]

    def units(self, request: Mapping[str, Any]) -> list[Unit]:
        """The request's units (message heads and content blocks split) in render order."""
        return [u for e in self.elements(request) for u in element_units(e)]

    def to_json(self, minimum: int | None = None) -> dict[str, Any]:
        """Name, aliases, title, rules and call paths as JSON; `minimum`: the table's default."""
        return {
            "name": self.name,
            "aliases": list(self.aliases),
            "title": self.title,
            "sdk": self.sdk,
            "rules": {**self.rules.to_json(), "min_tokens_default": minimum},
            "call_paths": {".".join(path): kind for path, kind in self.call_paths.items()},
        }

    def __repr__(self) -> str:
        return f"Vendor({self.name!r})"
