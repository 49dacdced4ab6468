"""
AWS Bedrock: the Converse API (`boto3.client("bedrock-runtime").converse(**kwargs)`, botocore
1.44.8's service model), and InvokeModel with Anthropic's body (`BedrockInvokeAdapter`).

Converse markers are blocks of their own, `{"cachePoint": {"type": "default", "ttl"?: "1h"}}`,
placed after the tool (`toolConfig.tools`), system block or message content block they close.
At most 4 per request; a 1h point never after a 5m one (toolConfig -> system -> messages); never
right after a `reasoningContent` block; `ttl` written only when asked (a `ttl` key a model does
not take is a 400). The model is `modelId`: a foundation model id, a cross-region profile
(`us.`, `eu.`, `apac.`, `global.` ...) or an ARN; an application inference profile ARN says no
model, so the planner's minimum needs `base_model=`. Usage: `inputTokens` EXCLUDES cache:

    total input = inputTokens + cacheWriteInputTokens + cacheReadInputTokens
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import orjson

from .._errors import InputError
from .._parts import (
    Content,
    Doc,
    DocumentPart,
    ImagePart,
    Message,
    SystemBlock,
    TextPart,
    ThinkingPart,
    Tool,
    ToolResult,
    ToolUse,
)
from .._plan import Plan
from .._plan import plan as make_plan
from .._prompt import Layer, Prompt
from .._usage import CacheUsage
from ..vendors import Capabilities
from ..vendors._bedrock_models import BedrockModel, resolve_model, unresolved_error
from ..vendors.bedrock_converse import (
    RULES,
    ConverseStream,
    cache_point,
    caches_tools,
    check_cache_points,
    one_hour_ttl,
    read_usage,
)
from ..vendors.bedrock_invoke import RULES as INVOKE_RULES
from ..vendors.bedrock_invoke import InvokeStream
from ..vendors.bedrock_invoke import read_usage as read_invoke_usage
from ._base import BaseAdapter
from ._pieces import block_marks, content_marks, pieces
from .anthropic import AnthropicAdapter, _doc_text

__all__ = [
    "BEDROCK_VERSION",
    "BedrockConverseAdapter",
    "BedrockInvokeAdapter",
    "ConverseStream",
    "InvokeStream",
    "invoke_kwargs",
    "resolve_model",
]

_RESERVED = ("modelId", "messages", "system", "toolConfig")
_UNMARKABLE = ("reasoningContent",)


class BedrockConverseAdapter(BaseAdapter):
    """Bedrock Converse: explicit `cachePoint` blocks, planned like Anthropic's markers."""

    name = "bedrock-converse"
    vendor = "aws"
    sdk = ("boto3", "boto3", "bedrock", "client", "client")
    capabilities: ClassVar[Capabilities] = RULES.capabilities

    def min_cacheable_tokens(self, model: str) -> int:
        found = resolve_model(model)
        if found.base is None:
            raise unresolved_error(found, "its minimum cacheable prefix")
        return super().min_cacheable_tokens(found.base)

    def client(self, **kwargs: Any) -> Any:
        """boto3's `bedrock-runtime` client (`pip install 'promptcache-sdk[bedrock]'`)."""
        return self._sdk_class(3)("bedrock-runtime", **kwargs)

    def async_client(self, **kwargs: Any) -> Any:
        raise InputError(
            "boto3 has no async client; use client(), or aiobotocore's "
            "(get_session().create_client('bedrock-runtime'), which wrap() observes)"
        )

    def to_request(
        self,
        prompt: Prompt,
        *,
        model: str,
        plan: Plan | None = None,
        max_tokens: int | None = 1024,
        ttl: str | None = None,
        layer_ttls: Mapping[Layer, str] | None = None,
        previous: Prompt | None = None,
        base_model: str | None = None,
        tool_choice: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """
        The keyword arguments of `client.converse(...)` / `client.converse_stream(...)`.

        `model` is the `modelId` sent (a foundation model id, profile id or ARN); `base_model` is
        the foundation model it serves, needed when the id does not say (an application
        inference profile ARN). `max_tokens` goes in `inferenceConfig`; other keyword arguments
        (`inferenceConfig`, `additionalModelRequestFields`, ...) pass through unchanged.
        """
        clash = [k for k in _RESERVED if k in options]
        if clash:
            raise InputError(
                f"{clash} come from the Prompt and model=; build them with Prompt.add_tools/"
                "add_system/add_history/with_tail"
            )
        found = resolve_model(model, {model: base_model} if base_model else None)
        if plan is not None and plan.vendor != self.name:
            raise InputError(
                f"this plan was made for {plan.vendor!r}; plan with vendor='bedrock-converse'"
            )
        chosen = _plan_for(prompt, self.name, found, plan, ttl, layer_ttls, previous)
        kwargs: dict[str, Any] = {"modelId": model}
        body = _Body(prompt, chosen)
        if prompt.system or prompt.docs:
            kwargs["system"] = body.system()
        kwargs["messages"] = body.messages()
        if prompt.tools or tool_choice:
            config: dict[str, Any] = {"tools": body.tools()}
            if tool_choice:
                config["toolChoice"] = dict(tool_choice)
            kwargs["toolConfig"] = config
        inference = dict(options.pop("inferenceConfig", None) or {})
        if max_tokens is not None:
            inference.setdefault("maxTokens", max_tokens)
        if inference:
            kwargs["inferenceConfig"] = inference
        kwargs.update(options)
        base = found.base or ""
        check_cache_points(kwargs, one_hour=one_hour_ttl(base), tools=caches_tools(base))
        return kwargs

    def read_usage(self, response: Any) -> CacheUsage:
        """A Converse response (boto3's dict), or its `usage` alone."""
        return read_usage(response)

    def accumulator(self) -> ConverseStream:
        return ConverseStream()

    def accumulator_for(self, request: Mapping[str, Any]) -> ConverseStream:
        """The stream reader of `request`'s reply, told its model (`wrap()` calls this)."""
        model = request.get("modelId")
        return ConverseStream(model if isinstance(model, str) and model.strip() else None)


def _check_one_hour(chosen: Plan, found: BedrockModel) -> None:
    if found.base is None or one_hour_ttl(found.base) is not False:
        return
    long = [b.path for b in chosen.breakpoints if b.ttl == "1h"]
    if long:
        raise InputError(
            f"ttl='1h' at {', '.join(long)}: Bedrock offers the 1-hour cache for Claude Sonnet "
            f"4.5, Haiku 4.5, Opus 4.5 and later, not {found.base}. Fix: leave ttl out (5 minutes)"
        )


class _Body:
    """The request laid out from each block's unmarked piece, cache points after marked ones."""

    def __init__(self, prompt: Prompt, chosen: Plan) -> None:
        rendered, self.pieces = pieces(prompt, "bedrock-converse", _piece)
        blocks = rendered.blocks
        self.tools_end = len(prompt.tools)
        self.system_end = self.tools_end + len(prompt.system) + len(prompt.docs)
        self.marks = block_marks(chosen, len(blocks))

    def _section(self, start: int, end: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for index in range(start, end):
            out.append(self.pieces[index])
            marks = self.marks.get(index)
            if marks is not None and None in marks:
                out.append(_point(marks[None]))
        return out

    def tools(self) -> list[dict[str, Any]]:
        return self._section(0, self.tools_end)

    def system(self) -> list[dict[str, Any]]:
        return self._section(self.tools_end, self.system_end)

    def messages(self) -> list[dict[str, Any]]:
        out = list(self.pieces[self.system_end :])
        for index, marks in self.marks.items():
            if index >= self.system_end:
                m = index - self.system_end
                out[m] = _marked_message(out[m], marks)
        return out


def _plan_for(
    prompt: Prompt,
    vendor: str,
    found: BedrockModel,
    plan: Plan | None,
    ttl: str | None,
    layer_ttls: Mapping[Layer, str] | None,
    previous: Prompt | None,
) -> Plan:
    """The caller's plan, or one made for the model `found` resolves to (an ARN whose model is
    unknown is refused: its minimum cannot be told), checked against the model's 1h option."""
    if plan is None and found.base is None:
        raise unresolved_error(found, "its minimum cacheable prefix")
    chosen = plan or make_plan(
        prompt,
        vendor=vendor,
        model=str(found.base),
        ttl=ttl,
        layer_ttls=layer_ttls,
        previous=previous,
    )
    _check_one_hour(chosen, found)
    return chosen


def _point(ttl: str | None) -> dict[str, Any]:
    # The default TTL is written as no ttl at all: models without the 1h option refuse the key.
    return cache_point(None if ttl in (None, "5m") else ttl)


def _marked_message(piece: Mapping[str, Any], marks: Mapping[int | None, str | None]) -> Any:
    content = list(piece["content"])
    placed = content_marks(content, marks, _last_markable)
    for at, ttl in sorted(placed.items(), reverse=True):  # from the end: indices stay true
        content.insert(at + 1, _point(ttl))
    return {"role": piece["role"], "content": content}


def _last_markable(content: Sequence[Mapping[str, Any]]) -> int | None:
    return next(
        (i for i in reversed(range(len(content))) if not any(k in content[i] for k in _UNMARKABLE)),
        None,
    )


def _piece(part: Tool | SystemBlock | Doc | Message) -> dict[str, Any]:
    if isinstance(part, Message):
        return {"role": part.role, "content": [_content(c) for c in part.content]}
    if isinstance(part, Tool):
        spec: dict[str, Any] = {"name": part.name}
        if part.description:
            spec["description"] = part.description
        spec["inputSchema"] = {"json": part.sorted_json()["input_schema"]}
        return {"toolSpec": spec}
    if isinstance(part, Doc):
        return {"text": _doc_text(part)}
    return {"text": part.text}


def _content(part: Content) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"text": part.text}
    if isinstance(part, ImagePart):
        return {"image": {"format": _format(part.media_type), "source": _bytes(part, "image")}}
    if isinstance(part, DocumentPart):
        return {"document": _document(part)}
    if isinstance(part, ToolUse):
        use = {"toolUseId": part.id, "name": part.name, "input": part.sorted_json()["input"]}
        return {"toolUse": use}
    if isinstance(part, ToolResult):
        return {"toolResult": _tool_result(part)}
    if isinstance(part, ThinkingPart):
        text = {"text": part.thinking, "signature": part.signature}
        return {"reasoningContent": {"reasoningText": text}}
    raise InputError(f"cannot render {type(part).__name__} for Bedrock Converse")


def _format(media_type: str) -> str:
    return media_type.rsplit("/", 1)[-1]


def _bytes(part: ImagePart | DocumentPart, what: str) -> dict[str, Any]:
    if part.data is None:
        raise InputError(
            f"a Converse {what} needs its bytes (or an s3Location): this {what} has only a URL; "
            "pass data= (base64) to the part"
        )
    try:
        return {"bytes": base64.b64decode(part.data, validate=True)}
    except (binascii.Error, ValueError):
        raise InputError(
            f"the {what}'s data is not base64; pass the bytes base64-encoded"
        ) from None


def _document(part: DocumentPart) -> dict[str, Any]:
    name = part.title or "document"
    if part.data is None:
        return {"format": "txt", "name": name, "source": {"text": part.text or ""}}
    return {"format": _format(part.media_type), "name": name, "source": _bytes(part, "document")}


def _tool_result(part: ToolResult) -> dict[str, Any]:
    if isinstance(part.content, str):
        content: list[dict[str, Any]] = [{"text": part.content}]
    else:
        content = [_content(c) for c in part.content]
    out: dict[str, Any] = {"toolUseId": part.tool_use_id, "content": content}
    if part.is_error:
        out["status"] = "error"
    return out


# -- InvokeModel with Anthropic's body ---------------------------------------------------------

BEDROCK_VERSION = "bedrock-2023-05-31"


class BedrockInvokeAdapter(AnthropicAdapter):
    """
    Bedrock InvokeModel for Claude: Anthropic's body and markers, Bedrock's minimums and prices.

    `to_request` returns the keyword arguments of `AnthropicBedrock().messages.create(...)`
    (which moves `model` into the URL; `anthropic_version` rides in `extra_body`);
    `invoke_kwargs` turns them into boto3's `invoke_model(modelId=..., body=...)`.
    """

    name = "bedrock-invoke"
    vendor = "aws"
    sdk = ("anthropic", "anthropic", "anthropic", "AnthropicBedrock", "AsyncAnthropicBedrock")
    capabilities: ClassVar[Capabilities] = INVOKE_RULES.capabilities

    def min_cacheable_tokens(self, model: str) -> int:
        found = resolve_model(model)
        if found.base is None:
            raise unresolved_error(found, "its minimum cacheable prefix")
        return BaseAdapter.min_cacheable_tokens(self, found.base)

    def to_request(
        self,
        prompt: Prompt,
        *,
        model: str,
        plan: Plan | None = None,
        base_model: str | None = None,
        ttl: str | None = None,
        layer_ttls: Mapping[Layer, str] | None = None,
        previous: Prompt | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """Anthropic's request for Bedrock: no automatic mode, `anthropic_version` in the body."""
        for refused in ("automatic", "diagnostics", "previous_message_id", "platform"):
            if options.get(refused):
                raise InputError(
                    f"{refused}= is not available on Bedrock's InvokeModel (the legacy Bedrock "
                    "integration answers 400 to a top-level cache_control; diagnostics are a "
                    "first-party beta); leave it out"
                )
            options.pop(refused, None)
        found = resolve_model(model, {model: base_model} if base_model else None)
        chosen = _plan_for(prompt, self.name, found, plan, ttl, layer_ttls, previous)
        # in the body through extra_body: messages.create() has no parameter for it, and
        # AnthropicBedrock keeps a caller's value (it would send its own "2026-10-21")
        extra = {"anthropic_version": BEDROCK_VERSION, **(options.pop("extra_body", None) or {})}
        kwargs = super().to_request(prompt, model=model, plan=chosen, extra_body=extra, **options)
        return _without_default_ttl(kwargs)

    def read_usage(self, response: Any) -> CacheUsage:
        return read_invoke_usage(response)

    def accumulator(self) -> InvokeStream:  # type: ignore[override]
        return InvokeStream()


_DEFAULT_MARKER = {"type": "ephemeral", "ttl": "5m"}


def _without_default_ttl(kwargs: dict[str, Any]) -> dict[str, Any]:
    """
    Markers at the default TTL written without `ttl`: a model without Bedrock's 1-hour option
    answers 400 to the key ("cache_control.ephemeral.ttl: Extra inputs are not permitted",
    pydantic-ai#3615). The marked blocks are the request's own copies, replaced, not edited.
    """

    def clean(blocks: Any) -> Any:
        if not isinstance(blocks, list):
            return blocks
        return [
            {**b, "cache_control": {"type": "ephemeral"}}
            if isinstance(b, dict) and b.get("cache_control") == _DEFAULT_MARKER
            else b
            for b in blocks
        ]

    for name in ("tools", "system"):
        if name in kwargs:
            kwargs[name] = clean(kwargs[name])
    kwargs["messages"] = [
        {**m, "content": clean(m["content"])} if isinstance(m, dict) and "content" in m else m
        for m in kwargs["messages"]
    ]
    return kwargs


def invoke_kwargs(request: Mapping[str, Any]) -> dict[str, Any]:
    """
    boto3's `invoke_model` / `invoke_model_with_response_stream` keyword arguments from the
    adapter's request (`extra_body` merged into the body, as the anthropic SDK does).
    """
    body = {k: v for k, v in request.items() if k not in ("model", "stream", "extra_body")}
    body.update(request.get("extra_body") or {})
    return {
        "modelId": request["model"],
        "body": orjson.dumps(body),
        "contentType": "application/json",
        "accept": "application/json",
    }
