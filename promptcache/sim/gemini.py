"""
EMULATION of Gemini's prompt caches (generateContent and `cachedContents`), for tests and examples.

- Implicit caching: a request over the model's minimum (from the table) leaves its prefix in the
  cache; a later request of the same model reads the furthest content part where its prefix
  matches, if that is over the minimum. Google documents no lifetime for implicit entries; the
  emulator keeps them `implicit_ttl` seconds after their last use (default: the Gemini rules'
  `default_ttl_seconds`, itself an assumption there).
- Explicit caching: `POST cachedContents` stores system instruction, tools, tool config and
  contents (refused below the minimum, as the API does); its `ttl` (default: the project's Gemini
  cache TTL) or `expireTime` sets its expiry, `PATCH` moves it, `DELETE` ends it. A request naming
  it reads all of it, and is refused when it also sends system instruction, tools or tool config,
  or names an expired cache. Storage is counted in token-hours (`storage_token_hours()`).

Order of a request's parts: system instruction, tools, tool config, then contents.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import accumulate
from typing import Any, ClassVar

from ._base import Emulator, Rejected, need
from ._core import EMULATION, Segment, Store, canonical, chain, tokens_of
from ._rules import gemini_explicit_ttl, minimum, rules

__all__ = ["GeminiEmulator"]

_GENERATE = re.compile(r"/v1[a-z0-9]*/models/([^/:]+):(generateContent|streamGenerateContent)$")
_CACHES = re.compile(r"/v1[a-z0-9]*/cachedContents(?:/([^/]+))?$")
_NO_SETTINGS_WITH_CACHE = (
    "CachedContent can not be used with GenerateContent request setting system_instruction, "
    "tools or tool_config.\n\nProposed fix: move those values to CachedContent from "
    "GenerateContent request."
)


@dataclass(slots=True)
class _Cached:
    name: str
    model: str
    display_name: str
    tokens: int
    created: float
    updated: float
    expires: float
    ended: float | None = None  # deleted at

    def alive(self, now: float) -> bool:
        return self.ended is None and now < self.expires

    def held_seconds(self, now: float) -> float:
        end = min(now, self.expires, self.ended if self.ended is not None else now)
        return max(0.0, end - self.created)


class GeminiEmulator(Emulator):
    """EMULATION of Gemini's implicit and explicit caches behind the Gemini API paths."""

    vendor: ClassVar[str] = "gemini"
    sdk_client = ("google.genai", "google-genai", "gemini", "Client")

    def __init__(self, *, implicit_ttl: float | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        assumed = rules("gemini").default_ttl_seconds
        self.implicit_ttl = implicit_ttl if implicit_ttl is not None else float(assumed or 0)
        self.store = Store()
        self.caches: dict[str, _Cached] = {}
        self._ids = 0

    def client(self, *, is_async: bool = False, **kwargs: Any) -> Any:
        sdk = self._sdk()
        options = {
            "base_url": "https://generativelanguage.googleapis.com/",
            "api_version": "v1",
            "httpx_client": self.http_client(),
            "httpx_async_client": self.http_client(is_async=True),
        }
        kwargs.setdefault("api_key", "emulated-no-key")
        client = sdk.Client(http_options=options, **kwargs)
        return client.aio if is_async else client

    def storage_token_hours(self) -> float:
        """Explicit-cache storage so far: cached tokens times hours held, over every cache."""
        now = self.clock()
        return sum(c.tokens * c.held_seconds(now) / 3600 for c in self.caches.values())

    # -- HTTP -----------------------------------------------------------------------------------

    def route(self, method: str, path: str, body: Any) -> dict[str, Any]:
        generate = _GENERATE.search(path)
        if generate and method == "POST":
            if generate.group(2) == "streamGenerateContent":
                raise Rejected(
                    400, "the promptcache emulator does not stream; use generate_content"
                )
            return self.generate(generate.group(1), need(body, dict, "request body"))
        caches = _CACHES.search(path)
        if caches:
            return self._caches(method, caches.group(1), body)
        raise Rejected(404, f"the Gemini emulator does not serve {method} {path}")

    def error_body(self, refused: Rejected) -> dict[str, Any]:
        status = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND"}.get(
            refused.status, "FAILED_PRECONDITION"
        )
        return {"error": {"code": refused.status, "message": refused.message, "status": status}}

    def _caches(self, method: str, name: str | None, body: Any) -> dict[str, Any]:
        if name is None and method == "POST":
            return self.create(need(body, dict, "request body"))
        if name is None and method == "GET":
            now = self.clock()
            return {
                "cachedContents": [self._shown(c) for c in self.caches.values() if c.alive(now)]
            }
        cached = self._held(f"cachedContents/{name}")
        if method == "GET":
            return self._shown(cached)
        if method == "PATCH":
            cached.expires = self._expiry(need(body, dict, "request body"), cached.expires)
            cached.updated = self.clock()
            return self._shown(cached)
        if method == "DELETE":
            cached.ended = self.clock()
            return {}
        raise Rejected(404, f"the Gemini emulator does not serve {method} on caches")

    # -- explicit caches ------------------------------------------------------------------------

    def create(self, body: Mapping[str, Any]) -> dict[str, Any]:
        model = need(body.get("model"), str, "model").removeprefix("models/")
        tokens = sum(s.tokens for s in _segments(body))
        floor = minimum(self.vendor, model)
        if tokens < floor:
            raise Rejected(
                400,
                f"Cached content is too small. total_token_count={tokens}, "
                f"min_total_token_count={floor}",
            )
        now = self.clock()
        self._ids += 1
        cached = _Cached(
            name=f"cachedContents/emulated-{self._ids:06d}",
            model=model,
            display_name=str(body.get("displayName", "")),
            tokens=tokens,
            created=now,
            updated=now,
            expires=self._expiry(body, now + gemini_explicit_ttl()),
        )
        self.caches[cached.name] = cached
        return self._shown(cached)

    def _expiry(self, body: Mapping[str, Any], default: float) -> float:
        if body.get("ttl") is not None:
            ttl = need(body["ttl"], str, "ttl")
            if not re.fullmatch(r"\d+(\.\d+)?s", ttl):
                raise Rejected(400, f"ttl: expected a duration like '3600s', got {ttl!r}")
            return self.clock() + float(ttl[:-1])
        if body.get("expireTime") is not None:
            text = need(body["expireTime"], str, "expireTime").replace("Z", "+00:00")
            try:
                return datetime.fromisoformat(text).timestamp()
            except ValueError:
                raise Rejected(400, f"expireTime: not an RFC 3339 time: {text!r}") from None
        return default

    def _held(self, name: str) -> _Cached:
        cached = self.caches.get(name)
        if cached is None or not cached.alive(self.clock()):
            raise Rejected(404, f"CachedContent not found (or expired): {name}")
        return cached

    def _shown(self, cached: _Cached) -> dict[str, Any]:
        return {
            "name": cached.name,
            "model": f"models/{cached.model}",
            "displayName": cached.display_name,
            "createTime": _rfc3339(cached.created),
            "updateTime": _rfc3339(cached.updated),
            "expireTime": _rfc3339(cached.expires),
            "usageMetadata": {"totalTokenCount": cached.tokens},
        }

    # -- generateContent ------------------------------------------------------------------------

    def generate(self, model: str, body: Mapping[str, Any]) -> dict[str, Any]:
        name = body.get("cachedContent")
        if name is not None:
            if any(body.get(k) is not None for k in ("systemInstruction", "tools", "toolConfig")):
                raise Rejected(400, _NO_SETTINGS_WITH_CACHE)
            cached = self._held(need(name, str, "cachedContent"))
            if cached.model != model:
                raise Rejected(400, f"the cached content is for model {cached.model}, not {model}")
            cached_tokens = cached.tokens
            prompt = cached_tokens + sum(s.tokens for s in _segments(body))
        else:
            cached_tokens, prompt = self._implicit(model, _segments(body))
        text = self.reply_content(body, EMULATION)
        output = tokens_of(canonical(text))
        usage: dict[str, Any] = {
            "promptTokenCount": prompt,
            "candidatesTokenCount": output,
            "totalTokenCount": prompt + output,
        }
        if cached_tokens:  # proto3 JSON leaves out counts that are 0
            usage["cachedContentTokenCount"] = cached_tokens
        self._ids += 1
        return {
            "candidates": [
                {
                    "content": {"parts": [{"text": text}], "role": "model"},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": usage,
            "modelVersion": model,
            "responseId": f"emulated-{self._ids:06d}",
        }

    def _implicit(self, model: str, segments: list[Segment]) -> tuple[int, int]:
        hashes = chain(canonical(["gemini", model]), (s.data for s in segments))
        totals = list(accumulate(s.tokens for s in segments))
        total, floor, now = (totals[-1] if totals else 0), minimum(self.vendor, model), self.clock()
        read_at = max(
            (i for i, h in enumerate(hashes) if self.store.live(h, now) is not None), default=-1
        )
        read = totals[read_at] if read_at >= 0 and totals[read_at] >= floor else 0
        if total >= floor:
            for i, link in enumerate(hashes):
                self.store.put(link, totals[i], self.implicit_ttl, now)
        return read, total


def _segments(body: Mapping[str, Any]) -> list[Segment]:
    out: list[Segment] = []
    system = body.get("systemInstruction")
    if system is not None:
        for part in need(system, dict, "systemInstruction").get("parts", []):
            out.append(Segment.of({"system": part}))
    for tool in need(body.get("tools") or [], list, "tools"):
        out.append(Segment.of({"tool": tool}))
    if body.get("toolConfig") is not None:
        out.append(Segment.of({"toolConfig": body["toolConfig"]}))
    for c, content in enumerate(need(body.get("contents") or [], list, "contents")):
        role = need(content, dict, f"contents[{c}]").get("role", "user")
        for part in need(content.get("parts", []), list, f"contents[{c}].parts"):
            out.append(Segment.of({"role": role, "part": part}))
    return out


def _rfc3339(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat().replace("+00:00", "Z")
