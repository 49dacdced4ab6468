"""
AWS Bedrock InvokeModel with Anthropic's Messages body (boto3 `invoke_model`,
`invoke_model_with_response_stream`; the anthropic SDK's `AnthropicBedrock`): Anthropic's markers
and rules (`cache_control`, 4 per request, 20-block lookback, 1h never after 5m) with Bedrock's
minimums and prices (`aws` in the tables) and no top-level automatic `cache_control` (the legacy
integration answers 400). The body has no `model` (it is in the URL: `/model/{id}/invoke`) and
carries `anthropic_version` ("bedrock-2023-05-31" in AWS's docs; anthropic >= 2.0 sends
"2026-10-21"). wrap() hands the monitor the body with the `modelId` as `model`.

Usage is Anthropic's (`input_tokens` EXCLUDES cache). A stream is AWS event-stream `chunk`s, each
one Anthropic event as JSON in `chunk.bytes`; the last (`message_stop`) also carries
`amazon-bedrock-invocationMetrics` with the cache counts (UNCONFIRMED against AWS's docs; its
`inputTokenCount` excludes the cache as `input_tokens` does, BerriAI/litellm#36878). The events'
counts are read, the metrics when the events carry none, and where both report a count and
they differ the usage is flagged (`InvokeStream`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import orjson

from .._errors import InputError
from .._usage import CacheUsage
from ._bedrock_models import same_model
from ._elements import setting
from ._fields import get_field, get_int
from ._rules import CacheRules, Capabilities
from ._vendor import Vendor
from .anthropic import RULES as ANTHROPIC_RULES
from .anthropic import AnthropicStream, layers, read_prompt
from .anthropic import misfit as anthropic_misfit
from .anthropic import read_usage as anthropic_usage
from .anthropic import signs as anthropic_signs

__all__ = ["RULES", "VENDOR", "InvokeStream", "read_usage"]

RULES = CacheRules(
    marking="explicit",
    capabilities=Capabilities(
        vendor="bedrock-invoke",
        marking="explicit",
        max_breakpoints=4,
        lookback_blocks=20,
        ttls=("1h", "5m"),
        default_ttl="5m",
        ttl_order="non-increasing",
        unmarkable=frozenset({"thinking", "redacted_thinking"}),
        # AWS counts the minimum per cache point, from the one before it (AWS-PC)
        minimum_per_breakpoint=True,
    ),
    default_ttl_seconds=300.0,
    granularity_tokens=8,
    min_tokens_key="aws",
    billed_write_ttl="5m",
    render_order=("tools", "system", "messages"),
    invalidating=ANTHROPIC_RULES.invalidating,
)

CALL_PATHS: Mapping[tuple[str, ...], str] = {
    ("invoke_model",): "call",
    ("invoke_model_with_response_stream",): "iter",
}


def misfit(request: Mapping[str, Any]) -> str | None:
    # Without `anthropic_version` the body still fits (AnthropicBedrock's messages.create adds it
    # on the way out), but `signs` leaves such a body to Anthropic's own format in detection.
    version = _version(request)
    if str(version).startswith("vertex-"):
        return f"anthropic_version {version!r}, Vertex AI's"
    if "cache_control" in request:
        return None  # refused by Bedrock, but still this format: inspect says so
    return anthropic_misfit(request)


def signs(request: Mapping[str, Any]) -> int:
    version = _version(request)
    if version is None:
        return anthropic_signs(request) - 1
    version = str(version)
    return anthropic_signs(request) + 1 + 2 * version.startswith("bedrock-")


def _version(request: Mapping[str, Any]) -> Any:
    """`anthropic_version` in the body, or in `extra_body` (AnthropicBedrock's kwargs)."""
    return setting(request, "anthropic_version")[1]


# Bedrock's Claude message ids (`msg_bdrk_...`; Vertex AI's are `msg_vrtx_...`, see there).
MESSAGE_ID_PREFIX = "msg_bdrk_"


def response_signs(response: Any) -> int:
    if not isinstance(response, Mapping):
        return 0
    message_id = response.get("id")
    # an id of Bedrock's outscores every feature of the Anthropic body it carries
    bedrock_id = isinstance(message_id, str) and message_id.startswith(MESSAGE_ID_PREFIX)
    return int("amazon-bedrock-invocationMetrics" in response) + 4 * bedrock_id


def read_usage(response: Any) -> CacheUsage:
    """An InvokeModel reply's JSON (the body read and parsed), or its `usage` alone."""
    return _ours(anthropic_usage(response), "invoke_model")


def _ours(usage: CacheUsage, endpoint: str) -> CacheUsage:
    return replace(usage, vendor="bedrock-invoke", endpoint=endpoint)


class InvokeStream:
    """
    Reads `invoke_model_with_response_stream` events (boto3's `{"chunk": {"bytes": ...}}`, or the
    Anthropic events already decoded) through Anthropic's stream reader.

    The stream reports its counts twice, in the events and in the last chunk's invocation
    metrics. Events that carry no input count (a `message_start` without usage) are read from
    the metrics; two reports that disagree are flagged as a problem naming both (a double count
    where the events' input is the metrics' plus the cache read and write), so the monitor takes
    no expectation from them. The ConverseStream guard (`inputTokens >= read + write`, seen on an
    OpenAI model) is not applied: this body is Claude's, and for Claude that shape is an honest
    long uncached tail.
    """

    def __init__(self) -> None:
        self._inner = AnthropicStream()
        self._metrics: Any = None
        self._fed = False

    def feed(self, event: Any) -> None:
        data = get_field(event, "chunk", "bytes")
        inner = orjson.loads(data) if isinstance(data, (bytes, bytearray, str)) else event
        metrics = get_field(inner, "amazon-bedrock-invocationMetrics")
        if metrics is not None:
            self._metrics = metrics
        if get_field(inner, "type") == "message_start":
            self._fed = True
        self._inner.feed(inner)

    @property
    def usage(self) -> CacheUsage:
        if not self._fed and self._metrics is not None:
            return _from_metrics(self._metrics)
        usage = _ours(self._inner.usage, "invoke_model_with_response_stream")
        if self._metrics is None:
            return usage
        if not self._inner.reported_input:  # events without counts: the metrics have them
            metered = _from_metrics(self._metrics)
            output = usage.output if metered.output is None else metered.output
            return replace(metered, model=usage.model, output=output)
        disagreement = _disagreement(usage, self._metrics)
        if disagreement is None:
            return usage
        return replace(usage, problems=(*usage.problems, disagreement))


# The stream's two reports of one count: (the events' field, the metrics' field).
_REPORTED_TWICE = (
    ("input_tokens", "inputTokenCount"),
    ("cache_read_input_tokens", "cacheReadInputTokenCount"),
    ("cache_creation_input_tokens", "cacheWriteInputTokenCount"),
    ("output_tokens", "outputTokenCount"),
)


def _disagreement(usage: CacheUsage, metrics: Any) -> str | None:
    """Why the events' counts and the invocation metrics' cannot both be right, or None."""
    ours = {
        "input_tokens": usage.uncached_input,
        "cache_read_input_tokens": usage.cache_read,
        "cache_creation_input_tokens": usage.cache_write,
        "output_tokens": usage.output,
    }
    differ = []
    for name, metered in _REPORTED_TWICE:
        theirs = get_int(metrics, metered)
        if theirs is not None and ours[name] is not None and ours[name] != theirs:
            differ.append(f"{name} {ours[name]} vs {metered} {theirs}")
    if not differ:
        return None
    cached = (usage.cache_read or 0) + (usage.cache_write or 0)
    uncached = get_int(metrics, "inputTokenCount")
    doubled = cached > 0 and uncached is not None and usage.uncached_input == uncached + cached
    why = (
        ": the events' input_tokens is the metrics' plus the cache read and write, a double "
        "count of the cached tokens"
        if doubled
        else ""
    )
    return (
        f"the stream's Anthropic usage and its amazon-bedrock-invocationMetrics disagree "
        f"({', '.join(differ)}){why}; the figures are the events', and no cache expectation is "
        "taken from them"
    )


def _from_metrics(metrics: Any) -> CacheUsage:
    uncached = get_int(metrics, "inputTokenCount")
    if uncached is None:
        raise InputError("the stream's invocation metrics carry no inputTokenCount")
    read = get_int(metrics, "cacheReadInputTokenCount")
    write = get_int(metrics, "cacheWriteInputTokenCount")
    reported = read is not None or write is not None
    return CacheUsage(
        uncached_input=uncached,
        cache_read=(read or 0) if reported else None,
        cache_write=(write or 0) if reported else None,
        output=get_int(metrics, "outputTokenCount"),
        cache_write_by_ttl={},
        vendor="bedrock-invoke",
        endpoint="invoke_model_with_response_stream",
        model=None,
        problems=(),
        diagnosis=None,
    )


def markers(request: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """(where, ttl) of every `cache_control` in the order Bedrock reads them."""
    found: list[tuple[str, str | None]] = []
    for name in ("tools", "system"):
        for i, item in enumerate(_list(request.get(name))):
            if isinstance(item, Mapping) and item.get("cache_control"):
                found.append((f"{name}[{i}]", _ttl(item["cache_control"])))
    for m, message in enumerate(_list(request.get("messages"))):
        content = message.get("content") if isinstance(message, Mapping) else None
        for c, block in enumerate(_list(content)):
            if isinstance(block, Mapping) and block.get("cache_control"):
                found.append((f"messages[{m}].content[{c}]", _ttl(block["cache_control"])))
    return found


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _ttl(marker: Any) -> str | None:
    ttl = marker.get("ttl") if isinstance(marker, Mapping) else None
    return ttl if isinstance(ttl, str) else None


def check(request: Mapping[str, Any]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """
    `Vendor.check_markers`: what Bedrock answers 400 to: more than 4 markers, a 1h marker after
    a 5m one, a top-level (automatic) `cache_control`.
    """
    present = markers(request)
    problems: list[str] = []
    limit = RULES.capabilities.max_breakpoints
    if len(present) > limit:
        problems.append(
            f"{len(present)} cache_control markers ({', '.join(w for w, _ in present)}) exceed "
            f"Bedrock's {limit}; it answers 400. Fix: let promptcache plan them"
        )
    shorter = next((w for w, t in present if t != "1h"), None)
    late = [
        w for w, t in present if t == "1h" and shorter is not None and _after(present, w, shorter)
    ]
    problems += [
        f"{w}: a ttl='1h' cache_control after the 5m one at {shorter}; Bedrock answers 400. "
        "Fix: give the earlier markers 1h too, or this one 5m"
        for w in late
    ]
    if "cache_control" in request:
        problems.append(
            "a top-level cache_control (automatic caching): Bedrock's InvokeModel answers 400. "
            "Fix: put cache_control on the last block to cache (promptcache plans them)"
        )
    return present, problems


def _after(present: list[tuple[str, str | None]], where: str, shorter: str) -> bool:
    names = [w for w, _ in present]
    return names.index(where) > names.index(shorter)


VENDOR = Vendor(
    name="bedrock-invoke",
    title="AWS Bedrock InvokeModel (Claude)",
    aliases=("invoke-model", "anthropic-bedrock", "bedrock-anthropic"),
    rules=RULES,
    layers=layers,
    read_prompt=read_prompt,
    read_usage=read_usage,
    misfit=misfit,
    signs=signs,
    response_signs=response_signs,
    call_paths=CALL_PATHS,
    sdk="boto3",
    check_markers=check,
    same_model=same_model,
)
