"""
Google Gemini generateContent (`google-genai` SDK 3.6).

Implicit caching (Gemini 2.5 and later) needs nothing but order: the stable prefix first and
unchanged. Explicit caching is a resource with a lifecycle, which `GeminiCacheManager` runs:
create a `CachedContent` for the static prefix (system instruction, tools, tool config,
documents), reuse it by prefix hash, refresh its TTL, recreate it when the prefix changes, delete
it when asked. A request that uses `cached_content` must not repeat system_instruction, tools or
tool_config: the SDK does not strip them and the API answers 400.

`prompt_token_count` INCLUDES `cached_content_token_count`. Proto3 JSON leaves out counts that
are 0, so a missing `cachedContentTokenCount` means 0 cached tokens, not "unknown". Writes are
never reported per request (an explicit cache is billed when created, plus storage per hour).
"""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .._errors import InputError
from .._parts import (
    Content,
    DocumentPart,
    ImagePart,
    Message,
    Part,
    SystemBlock,
    TextPart,
    ThinkingPart,
    Tool,
    ToolResult,
    ToolUse,
)
from .._plan import Plan
from .._pricing import PriceTable, load_prices
from .._prompt import Layer, Prompt, Rendered
from .._usage import CacheUsage
from ..vendors import Capabilities, get_vendor
from ..vendors.gemini import RULES, GeminiStream, read_usage
from ..vendors.vertex_gemini import cache_scope, model_of
from ._base import BaseAdapter, PlatformStream, get_field
from ._pieces import block_parts, piece_of

__all__ = ["CacheDecision", "CachedPrefix", "GeminiAdapter", "GeminiCacheManager", "GeminiStream"]

_CACHE_BOUND = ("system_instruction", "tools", "tool_config")
_CAMEL = {"system_instruction": "systemInstruction", "tool_config": "toolConfig"}
_MILLION = 1_000_000


class GeminiAdapter(BaseAdapter):
    """`client.models.generate_content(**adapter.to_request(...))` (and `_stream`)."""

    name = "gemini"
    vendor = "gemini"
    sdk = ("google.genai", "google-genai", "gemini", "Client", "Client")
    capabilities: ClassVar[Capabilities] = RULES.capabilities

    def to_request(
        self,
        prompt: Prompt,
        *,
        model: str,
        plan: Plan | None = None,
        cached_content: str | CachedPrefix | None = None,
        config: Mapping[str, Any] | None = None,
        tool_config: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """
        `model`, `contents` and `config` for `generate_content`. With `cached_content` (a name or
        the `CachedPrefix` the manager returned) the cached parts are left out of the request.
        `plan` is accepted for symmetry; Gemini has no markers to place.
        """
        config_out = dict(config or {})
        flat = _layout(prompt)
        tools_end = len(prompt.tools)
        system_end = tools_end + len(prompt.system)
        if cached_content is not None:
            name = _check_cached(prompt, cached_content, config_out, tool_config)
            config_out["cached_content"] = name
            contents = flat.items[len(prompt.docs) :]
        else:
            if prompt.system:
                config_out["system_instruction"] = {"parts": flat.static[tools_end:system_end]}
            if prompt.tools:
                config_out["tools"] = [{"function_declarations": flat.static[:tools_end]}]
            if tool_config:
                config_out["tool_config"] = dict(tool_config)
            contents = list(flat.items)
        if not contents:
            raise InputError(
                "Gemini needs at least one content; add one with Prompt.with_tail(...)"
            )
        return {"model": model, "contents": contents, "config": config_out, **options}

    def read_usage(self, response: Any) -> CacheUsage:
        """A `GenerateContentResponse` (SDK object or JSON dict), or its usage metadata alone."""
        return read_usage(response)

    def accumulator(self) -> GeminiStream:
        return GeminiStream()


class VertexGeminiAdapter(GeminiAdapter):
    """Gemini on Vertex AI: `genai.Client(vertexai=True, project=..., location=...)`; the same
    request, read under Vertex's record (its minimums and prices)."""

    name = "vertex-gemini"
    vendor = "vertex-gemini"
    capabilities: ClassVar[Capabilities] = get_vendor("vertex-gemini").rules.capabilities

    def read_usage(self, response: Any) -> CacheUsage:
        read: CacheUsage = self.spec.read_usage(response)
        return read

    def accumulator(self) -> Any:
        return PlatformStream(super().accumulator(), self.name)


# How many of the last blocks a layout remembers the call names after: enough to drop the
# previous turn's tail without reading the history again.
_RECENT = 64
_State = tuple[dict[str, str], bool]  # the call names so far, and whether the calls are regular


@dataclass(frozen=True, slots=True)
class _Layout:
    """
    A prompt's request pieces, laid out once per rendering: the function declarations and
    system instruction parts (`static`), one content per document and message (`items`), and
    the call names after each of the last few blocks. A rendering grown from this one shares
    `static` and copies `items` once. Read-only: the pieces are shared with other requests.
    """

    static: list[Any]
    items: list[Any]
    states: tuple[_State, ...]
    blocks: int


def _layout(prompt: Prompt) -> _Layout:
    """
    The prompt's `_Layout`. A function response names its function from the call with the same
    id anywhere in the conversation, so its piece is never remembered by its part; and when the
    calls are not regular (an id called twice, or answered before it is called), every piece is
    written afresh from the whole conversation's names and nothing is kept.
    """
    rendered = prompt.render()
    blocks = rendered.blocks
    known = rendered._aligned.get("gemini")
    if known is not None and known[1] == known[0].blocks == len(blocks):
        done: _Layout = known[0]
        return done
    static_end = len(prompt.tools) + len(prompt.system)
    old: _Layout | None = known[0] if known is not None else None
    valid = known[1] if known is not None else 0
    kept = len(old.states) - (old.blocks - valid) if old is not None else -1
    if old is not None and valid >= static_end and (kept > 0 or valid == static_end):
        static = old.static
        items = old.items[: len(old.items) - (old.blocks - valid)]
        states = list(old.states[:kept])
        start = valid
    else:
        static = [
            piece_of(part, "gemini", _static_piece)
            for part in block_parts(prompt, blocks, 0, static_end)
        ]
        items, states, start = [], [], static_end
    names, regular = states[-1] if states else ({}, True)
    added = list(block_parts(prompt, blocks, start))
    for part in added:
        names, regular = _after(part, names, regular)
        states.append((names, regular))
    if not regular:
        fresh = [_piece(part, names) for part in block_parts(prompt, blocks, static_end)]
        return _Layout(static, fresh, (), len(blocks))
    for part in added:
        if isinstance(part, Message) and any(isinstance(c, ToolResult) for c in part.content):
            items.append(_piece(part, names))
        else:
            items.append(piece_of(part, "gemini", _static_piece))
    layout = _Layout(static, items, tuple(states[-_RECENT:]), len(blocks))
    rendered._aligned["gemini"] = (layout, len(blocks))
    return layout


def _after(part: Part, names: dict[str, str], regular: bool) -> _State:
    """The call names and regularity after one more block."""
    if not isinstance(part, Message):
        return names, regular
    calls = [(c.id, c.name) for c in part.content if isinstance(c, ToolUse)]
    if calls:
        ids = {call_id for call_id, _ in calls}
        regular = regular and len(ids) == len(calls) and not ids & names.keys()
        names = {**names, **dict(calls)}
    answered = [c.tool_use_id for c in part.content if isinstance(c, ToolResult)]
    return names, regular and all(call_id in names for call_id in answered)


def _static_piece(part: Part) -> Any:
    """The piece of a block that names no function response (it needs no call names)."""
    return _piece(part, {})


def _piece(part: Part, names: Mapping[str, str]) -> Any:
    if isinstance(part, Message):
        role = "model" if part.role == "assistant" else "user"
        return {"role": role, "parts": [_part(c, names) for c in part.content]}
    if isinstance(part, Tool):
        return _declaration(part)
    if isinstance(part, SystemBlock):
        return {"text": part.text}
    return {"role": "user", "parts": [{"text": getattr(part, "text", "")}]}


def static_config(prompt: Prompt, tool_config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The cache-bound config: system instruction, tools and tool config."""
    out: dict[str, Any] = {}
    if prompt.system:
        out["system_instruction"] = {"parts": [{"text": b.text} for b in prompt.system]}
    if prompt.tools:
        out["tools"] = [
            {
                "function_declarations": [
                    _declaration(t) for t in prompt.layer(Layer.TOOLS) if isinstance(t, Tool)
                ]
            }
        ]
    if tool_config:
        out["tool_config"] = dict(tool_config)
    return out


def _declaration(tool: Tool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": tool.name,
        "parameters_json_schema": tool.sorted_json()["input_schema"],
    }
    if tool.description:
        out["description"] = tool.description
    return out


def _check_cached(
    prompt: Prompt,
    cached: str | CachedPrefix,
    config: Mapping[str, Any],
    tool_config: Mapping[str, Any] | None,
) -> str:
    clash = [k for k in _CACHE_BOUND if k in config or _CAMEL.get(k, k) in config]
    if tool_config:
        clash.append("tool_config")
    if clash:
        raise InputError(
            f"a request with cached_content must not set {clash}: the API answers 400 "
            "'CachedContent can not be used with GenerateContent request setting "
            "system_instruction, tools or tool_config'. They live in the cache; drop them here"
        )
    if isinstance(cached, CachedPrefix):
        current = static_hash(prompt.render())
        if current != cached.prefix_hash:
            raise InputError(
                f"cache {cached.name} holds prefix {cached.prefix_hash[:12]}, but this prompt's "
                f"static prefix is {current[:12]}; call GeminiCacheManager.ensure(prompt, ...) "
                "to recreate it"
            )
        return cached.name
    return cached


def _contents(prompt: Prompt, layers: tuple[Layer, ...]) -> list[dict[str, Any]]:
    names = {
        p.id: p.name
        for m in prompt.history + prompt.tail
        for p in m.content
        if isinstance(p, ToolUse)
    }
    out: list[dict[str, Any]] = []
    for layer in layers:
        for part in prompt.layer(layer):
            if isinstance(part, Message):
                role = "model" if part.role == "assistant" else "user"
                out.append({"role": role, "parts": [_part(c, names) for c in part.content]})
            else:
                out.append({"role": "user", "parts": [{"text": getattr(part, "text", "")}]})
    return out


def _part(part: Content, names: Mapping[str, str]) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"text": part.text}
    if isinstance(part, ThinkingPart):
        return {"text": part.thinking, "thought": True}
    if isinstance(part, ImagePart | DocumentPart) and part.data is not None:
        return {"inline_data": {"mime_type": part.media_type, "data": base64.b64decode(part.data)}}
    if isinstance(part, ImagePart):
        return {"file_data": {"file_uri": part.url, "mime_type": part.media_type}}
    if isinstance(part, DocumentPart):
        return {"text": part.text or ""}
    if isinstance(part, ToolUse):
        return {
            "function_call": {"id": part.id, "name": part.name, "args": part.sorted_json()["input"]}
        }
    if isinstance(part, ToolResult):
        body: Any = (
            part.content
            if isinstance(part.content, str)
            else [c.text for c in part.content if isinstance(c, TextPart)]
        )
        key = "error" if part.is_error else "output"
        return {
            "function_response": {
                "id": part.tool_use_id,
                "name": names.get(part.tool_use_id, part.tool_use_id),
                "response": {key: body},
            }
        }
    raise InputError(f"cannot render {type(part).__name__} for Gemini")


# -- usage ------------------------------------------------------------------------------------


# -- explicit caches --------------------------------------------------------------------------


def static_hash(rendered: Rendered) -> str:
    """Hex hash at the end of the static prefix (tools, system, docs): the cache's identity."""
    static = rendered.static
    return static[-1].hash.hex() if static else ""


@dataclass(frozen=True, slots=True, kw_only=True)
class CachedPrefix:
    """A live `CachedContent` holding one prompt's static prefix."""

    name: str
    model: str
    prefix_hash: str
    tokens: int
    expire_time: dt.datetime | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CacheDecision:
    """What `ensure` did: the cache to use (None: rely on implicit caching) and why."""

    cache: CachedPrefix | None
    action: str  # "created", "reused", "refreshed", "recreated", "skipped"
    reason: str


@dataclass(frozen=True, slots=True)
class _Step:
    """A decision of `ensure`: the action, why, the cache held for the slot, the prefix key."""

    action: str
    reason: str
    held: CachedPrefix | None
    key: str
    tokens: int

    def done(self, cache: CachedPrefix | None) -> CacheDecision:
        return CacheDecision(cache=cache, action=self.action, reason=self.reason)


class GeminiCacheManager:
    """
    Runs the explicit-cache lifecycle against a `google.genai.Client` (or `client.aio`, with the
    `a*` methods).

        manager = GeminiCacheManager(client, ttl_seconds=3600)
        decision = manager.ensure(prompt, model="gemini-2.5-pro", expected_requests=20)
        kwargs = adapter.to_request(prompt, model=..., cached_content=decision.cache)
    """

    def __init__(
        self,
        client: Any,
        *,
        ttl_seconds: int = 3600,
        prices: PriceTable | None = None,
        adapter: GeminiAdapter | None = None,
        refresh_within_seconds: int = 300,
    ) -> None:
        if ttl_seconds <= 0:
            raise InputError(f"ttl_seconds must be positive, got {ttl_seconds}")
        self.client = client
        self.ttl_seconds = ttl_seconds
        self.refresh_within = dt.timedelta(seconds=refresh_within_seconds)
        self.prices = prices
        # Vertex AI keeps explicit caches under a project and a location: a cache made there is
        # found, priced and reused only there (`scope`: None on the Gemini API).
        self.scope = vertex_scope(client)
        self.adapter = adapter or _adapter_for(self.scope)
        self._slots: dict[tuple[str, str], CachedPrefix] = {}

    # -- decisions ----------------------------------------------------------------------------

    def worth_creating(self, tokens: int, model: str, expected_requests: int) -> tuple[bool, str]:
        """Create only above the minimum, and when the expected reads save more than storage costs."""
        minimum = self.adapter.min_cacheable_tokens(model)
        if tokens < minimum:
            return False, (
                f"not creating a cache: the static prefix is {tokens} tokens, below {model}'s "
                f"minimum of {minimum} (the API would answer 400 'Cached content is too small'); "
                "implicit caching still applies"
            )
        table = self.prices or load_prices()
        rates = table.rates(self.adapter.vendor, model)
        if rates.read is None or rates.storage_per_hour is None:
            return (
                False,
                f"not creating a cache: the price row for {model} lacks read or storage rates",
            )
        hours = self.ttl_seconds / 3600
        saving = expected_requests * tokens * (rates.input - rates.read) / _MILLION
        storage = tokens * hours * rates.storage_per_hour / _MILLION
        verdict = saving > storage
        return verdict, (
            f"{'creating' if verdict else 'not creating'} a cache: {expected_requests} reads of "
            f"{tokens} tokens save {_amount(saving, table.currency)}; {hours:g} h of storage "
            f"costs {_amount(storage, table.currency)}"
        )

    # -- lifecycle (sync) ---------------------------------------------------------------------

    def ensure(
        self,
        prompt: Prompt,
        *,
        model: str,
        expected_requests: int,
        slot: str = "default",
        tool_config: Mapping[str, Any] | None = None,
    ) -> CacheDecision:
        """Reuse, refresh, recreate or create the cache for `prompt`'s static prefix."""
        step = self._decide(prompt, model, expected_requests, slot)
        if step.action == "refreshed" and step.held is not None:
            return step.done(self.refresh(step.held))
        if step.action in ("created", "recreated"):
            if step.held is not None:
                self.delete(step.held)
            config = self._create_config(prompt, step.key, tool_config)
            answer = self.client.caches.create(model=model, config=config)
            return step.done(self._remember(slot, answer, model, step.key, step.tokens))
        return step.done(step.held)

    def find(self, prompt: Prompt, *, model: str, slot: str = "default") -> CachedPrefix | None:
        """
        Adopt a live cache another process made for the same static prefix (`caches.list`,
        matched by the prefix hash in its display name and by model), so restarts reuse it.
        """
        rendered = prompt.render()
        key = static_hash(rendered)
        wanted = f"promptcache-{key[:16]}"
        for found in self.client.caches.list():
            name = get_field(found, "display_name") or get_field(found, "displayName")
            # Vertex names the model by its resource path, under the cache's project and region
            found_model = model_of(str(get_field(found, "model") or "").removeprefix("models/"))
            here = _same_scope(cache_scope(str(get_field(found, "name") or "")), self.scope)
            if name == wanted and found_model == model_of(model) and here:
                return self._remember(slot, found, model, key, _static_tokens(rendered))
        return None

    def refresh(self, cache: CachedPrefix) -> CachedPrefix:
        """Extend the TTL (`caches.update`); only TTL and expiry can change on a cache."""
        answer = self.client.caches.update(name=cache.name, config={"ttl": f"{self.ttl_seconds}s"})
        return self._replace(cache, answer)

    def delete(self, cache: CachedPrefix) -> None:
        self.client.caches.delete(name=cache.name)
        self._forget(cache)

    def delete_all(self) -> None:
        for cache in list(self._slots.values()):
            self.delete(cache)

    # -- lifecycle (async: pass client.aio) ----------------------------------------------------

    async def aensure(
        self,
        prompt: Prompt,
        *,
        model: str,
        expected_requests: int,
        slot: str = "default",
        tool_config: Mapping[str, Any] | None = None,
    ) -> CacheDecision:
        """`ensure` for an async client (`client.aio`): the same decisions, awaited calls."""
        step = self._decide(prompt, model, expected_requests, slot)
        if step.action == "refreshed" and step.held is not None:
            config = {"ttl": f"{self.ttl_seconds}s"}
            answer = await self.client.caches.update(name=step.held.name, config=config)
            return step.done(self._replace(step.held, answer))
        if step.action in ("created", "recreated"):
            if step.held is not None:
                await self.client.caches.delete(name=step.held.name)
                self._forget(step.held)
            config = self._create_config(prompt, step.key, tool_config)
            answer = await self.client.caches.create(model=model, config=config)
            return step.done(self._remember(slot, answer, model, step.key, step.tokens))
        return step.done(step.held)

    def _decide(self, prompt: Prompt, model: str, expected_requests: int, slot: str) -> _Step:
        """What `ensure` should do, before any call to the API (shared by sync and async)."""
        rendered = prompt.render()
        key, tokens = static_hash(rendered), _static_tokens(rendered)
        held = self._slots.get((model, slot))
        if held is not None and held.prefix_hash == key:
            if _expiring(held, self.refresh_within):
                return _Step("refreshed", "TTL was about to run out", held, key, tokens)
            return _Step("reused", "same static prefix", held, key, tokens)
        create, reason = self.worth_creating(tokens, model, expected_requests)
        if not create:
            return _Step("skipped", reason, None, key, tokens)
        return _Step("recreated" if held else "created", reason, held, key, tokens)

    # -- internals ----------------------------------------------------------------------------

    def _create_config(
        self, prompt: Prompt, key: str, tool_config: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        config: dict[str, Any] = {
            "ttl": f"{self.ttl_seconds}s",
            "display_name": f"promptcache-{key[:16]}",
        }
        config.update(static_config(prompt, tool_config))
        docs = _contents(prompt, (Layer.DOCS,))
        if docs:
            config["contents"] = docs
        return config

    def _remember(self, slot: str, answer: Any, model: str, key: str, tokens: int) -> CachedPrefix:
        made = CachedPrefix(
            name=str(get_field(answer, "name")),
            model=model,
            prefix_hash=key,
            tokens=tokens,
            expire_time=_expire(answer),
        )
        self._slots[(model, slot)] = made
        return made

    def _replace(self, cache: CachedPrefix, answer: Any) -> CachedPrefix:
        updated = CachedPrefix(
            name=cache.name,
            model=cache.model,
            prefix_hash=cache.prefix_hash,
            tokens=cache.tokens,
            expire_time=_expire(answer),
        )
        for slot, held in self._slots.items():
            if held.name == cache.name:
                self._slots[slot] = updated
        return updated

    def _forget(self, cache: CachedPrefix) -> None:
        self._slots = {k: v for k, v in self._slots.items() if v.name != cache.name}


def vertex_scope(client: Any) -> tuple[str, str] | None:
    """The (project, location) of a google-genai client made with `vertexai=True` (or its
    `aio`), None for a Gemini API client."""
    api = getattr(client, "_api_client", None)
    if getattr(api, "vertexai", None) is not True:
        return None
    return (str(getattr(api, "project", "")), str(getattr(api, "location", "")))


def _same_scope(found: tuple[str, str] | None, mine: tuple[str, str] | None) -> bool:
    """Whether a listed cache lives where this manager's client sends. Vertex may name the
    project by its number where the client names it by its id: a number is not compared."""
    if found is None or mine is None:
        return found is None and mine is None
    project_matches = found[0] == mine[0] or found[0].isdigit() or mine[0].isdigit()
    return project_matches and found[1] == mine[1]


def _adapter_for(scope: tuple[str, str] | None) -> GeminiAdapter:
    return GeminiAdapter() if scope is None else VertexGeminiAdapter()


def _static_tokens(rendered: Rendered) -> int:
    return sum(b.tokens for b in rendered.static)


def _expire(answer: Any) -> dt.datetime | None:
    value = get_field(answer, "expire_time")
    if value is None:
        value = get_field(answer, "expireTime")
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value if isinstance(value, dt.datetime) else None


def _expiring(cache: CachedPrefix, within: dt.timedelta) -> bool:
    if cache.expire_time is None:
        return False
    return cache.expire_time - dt.datetime.now(dt.timezone.utc) < within


def _amount(value: float, currency: str) -> str:
    """Money as the report writes it: `$0.046791` in US dollars, `0.046791 EUR` in any other."""
    return f"${value:.6f}" if currency == "USD" else f"{value:.6f} {currency}"
