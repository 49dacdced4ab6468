"""
EMULATION of OpenAI's prompt cache (Chat Completions and Responses), for tests and examples.

Two regimes, chosen by model with the OpenAI adapter's own rule:

- before GPT-5.6: automatic prefix caching; the longest cached prefix is read in steps of the
  adapter's `increment_tokens`, from the minimum in the table; every prompt over the minimum is
  cached; `prompt_cache_retention` ("in_memory" or "24h") sets how long an unused entry lives, and
  a read restarts it; nothing is reported as written.
- GPT-5.6 and later: entries sit only at breakpoints (`prompt_cache_breakpoint` on content parts,
  plus, in the default implicit mode, one at the end of the input), and a later request reads the
  furthest of them its prefix matches exactly, among the latest 80 written for its cache key;
  each request writes up to `max_breakpoints` of its own (in implicit mode the implicit one and
  the latest explicit ones), billed as `cache_write_tokens` with their TTL
  (`prompt_cache_options.ttl`, or the breakpoint's own).

Requests are keyed by model and `prompt_cache_key` (another key is another cache). Tools come
first, then instructions, then the messages or input items, each content part one unit.
Not modelled: routing overflow past ~15 requests a minute, matching inside a content part.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any, ClassVar

from ..vendors import Capabilities
from ..vendors.openai_responses import shown_tools
from ._base import Emulator, Rejected, chat_completion, need
from ._core import (
    BYTES_PER_TOKEN,
    EMULATION,
    Outcome,
    Segment,
    Store,
    canonical,
    chain,
    tokens_of,
)
from ._rules import (
    OPENAI_MAX_MATCHED_BREAKPOINTS,
    minimum,
    openai_explicit,
    openai_rules,
    openai_setting_ttls,
    rules,
    ttl_seconds,
)

__all__ = ["OpenAIEmulator"]

_RETENTIONS = ("in_memory", "24h")  # the SDK's `prompt_cache_retention` literal


class OpenAIEmulator(Emulator):
    """EMULATION of OpenAI's prompt cache behind `/v1/chat/completions` and `/v1/responses`."""

    vendor: ClassVar[str] = "openai"
    sdk_client = ("openai", "openai", "openai", "OpenAI")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.store = Store()
        self.recent: dict[bytes, deque[bytes]] = {}  # breakpoints written, per cache key
        self._ids = 0

    def route(self, method: str, path: str, body: Any) -> dict[str, Any]:
        path = path.rstrip("/")
        if method == "POST" and path.endswith("/chat/completions"):
            return self.chat(need(body, dict, "request body"))
        if method == "POST" and path.endswith("/responses"):
            return self.responses(need(body, dict, "request body"))
        raise Rejected(
            404,
            f"the OpenAI emulator serves POST /v1/chat/completions and /v1/responses, not {path}",
        )

    def error_body(self, refused: Rejected) -> dict[str, Any]:
        kind = "not_found" if refused.status == 404 else "invalid_request_error"
        return {"error": {"message": refused.message, "type": kind, "param": None, "code": None}}

    # -- endpoints ------------------------------------------------------------------------------

    def chat(self, body: Mapping[str, Any]) -> dict[str, Any]:
        model = self._check(body)
        outcome = self.serve(body, _chat_segments(body), "openai")
        text = self.reply_content(body, EMULATION)
        output = tokens_of(canonical(text))
        details: dict[str, Any] = {"cached_tokens": outcome.read}
        if openai_explicit(model):
            details["cache_write_tokens"] = outcome.write
        total = outcome.read + outcome.write + outcome.uncached
        self._ids += 1
        usage = {
            "prompt_tokens": total,
            "completion_tokens": output,
            "total_tokens": total + output,
            "prompt_tokens_details": details,
        }
        return chat_completion(self._ids, self.clock(), model, text, usage)

    def responses(self, body: Mapping[str, Any]) -> dict[str, Any]:
        model = self._check(body)
        outcome = self.serve(body, _responses_segments(body), "openai-responses")
        text = self.reply_content(body, EMULATION)
        output = tokens_of(canonical(text))
        total = outcome.read + outcome.write + outcome.uncached
        details: dict[str, Any] = {"cached_tokens": outcome.read, "cache_write_tokens": 0}
        if openai_explicit(model):
            details["cache_write_tokens"] = outcome.write
            details["cache_write_tokens_details"] = {
                f"ttl_{ttl}_tokens": outcome.write_by_ttl.get(ttl, 0)
                for ttl in openai_rules(model, "openai-responses").ttls
            }
        self._ids += 1
        return {
            "id": f"resp_emulated_{self._ids:06d}",
            "object": "response",
            "created_at": int(self.clock()),
            "model": model,
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "id": f"msg_emulated_{self._ids:06d}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ],
            "parallel_tool_calls": True,
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools", []),
            "usage": {
                "input_tokens": total,
                "input_tokens_details": details,
                "output_tokens": output,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": total + output,
            },
        }

    def _check(self, body: Mapping[str, Any]) -> str:
        if body.get("stream"):
            raise Rejected(400, "the promptcache emulator does not stream; call without stream")
        model: str = need(body.get("model"), str, "model")
        if body.get("prompt_cache_options") is not None and not openai_explicit(model):
            raise Rejected(400, f"prompt_cache_options is not supported with model {model!r}")
        return model

    # -- the cache ------------------------------------------------------------------------------

    def serve(self, body: Mapping[str, Any], segments: list[Segment], endpoint: str) -> Outcome:
        model: str = body["model"]
        key = body.get("prompt_cache_key")
        seed = canonical(["openai", model, key if isinstance(key, str) else None])
        if openai_explicit(model):
            return self._breakpoints(body, segments, seed, endpoint)
        return self._automatic(body, segments, seed, endpoint)

    def _automatic(
        self, body: Mapping[str, Any], segments: list[Segment], seed: bytes, endpoint: str
    ) -> Outcome:
        model: str = body["model"]
        retention = body.get("prompt_cache_retention")
        if retention is not None and retention not in _RETENTIONS:
            raise Rejected(
                400,
                f"prompt_cache_retention: expected one of {list(_RETENTIONS)}, got {retention!r}",
            )
        # "24h" is a TTL name; in memory (and no setting) is the rules' default: "5-10 minutes"
        # of inactivity, of which the emulator keeps the five it can count on.
        default = rules(endpoint).default_ttl_seconds
        if default is None:  # pragma: no cover - OpenAI's rules always carry one
            raise RuntimeError(f"the {endpoint} cache rules lack default_ttl_seconds")
        ttl = ttl_seconds(retention) if retention == "24h" else default
        step = openai_rules(model, endpoint).increment_tokens or 1
        flat = b"".join(s.data for s in segments)
        size = step * BYTES_PER_TOKEN
        hashes = chain(seed, (flat[i : i + size] for i in range(0, len(flat) - size + 1, size)))
        total, floor, now = tokens_of(flat), minimum(self.vendor, model), self.clock()
        matched = 0
        for link in hashes:
            if self.store.live(link, now) is None:
                break
            matched += 1
        read = matched * step if matched * step >= floor else 0
        for i, link in enumerate(hashes):
            if total >= floor:  # reads restart their entries under this request's retention
                self.store.put(link, (i + 1) * step, ttl, now)
            elif i < matched:
                self.store.refresh(link, now)
        return Outcome(read=read, write=0, uncached=total - read)

    def _breakpoints(
        self, body: Mapping[str, Any], segments: list[Segment], seed: bytes, endpoint: str
    ) -> Outcome:
        model: str = body["model"]
        points = _written_points(body, segments, openai_rules(model, endpoint), endpoint)
        hashes = chain(seed, (s.data for s in segments))
        totals = list(accumulate(s.tokens for s in segments))
        now, floor = self.clock(), minimum(self.vendor, model)
        recent = self.recent.setdefault(seed, deque(maxlen=OPENAI_MAX_MATCHED_BREAKPOINTS))
        known = set(recent)
        # Only an exact match at an earlier breakpoint counts: no shorter, unmarked prefix.
        read_at = max(
            (i for i, h in enumerate(hashes) if h in known and self.store.live(h, now)), default=-1
        )
        read = totals[read_at] if read_at >= 0 else 0
        if read_at >= 0:
            self.store.refresh(hashes[read_at], now)
        done, by_ttl = read, dict[str, int]()
        for index, ttl in points:
            if index <= read_at or totals[index] < floor:
                continue
            self.store.put(hashes[index], totals[index], ttl_seconds(ttl), now)
            if hashes[index] not in known:
                recent.append(hashes[index])
            by_ttl[ttl] = by_ttl.get(ttl, 0) + totals[index] - done
            done = totals[index]
        total = totals[-1] if totals else 0
        return Outcome(read=read, write=done - read, uncached=total - done, write_by_ttl=by_ttl)


def _written_points(
    body: Mapping[str, Any], segments: list[Segment], caps: Capabilities, endpoint: str
) -> list[tuple[int, str]]:
    """
    The breakpoints this request may write, as (content part, TTL) in order: the latest explicit
    ones, and in implicit mode the implicit one at the end of the input (it takes one slot).
    """
    options = need(body.get("prompt_cache_options") or {}, dict, "prompt_cache_options")
    mode = options.get("mode", "implicit")
    # The request-wide TTL takes its own values (Chat "30m"; Responses "30m", "12h"), not the
    # breakpoints' ones: Chat refuses "12h" there although a breakpoint may carry it.
    accepted = openai_setting_ttls(endpoint)
    default = accepted[0] if options.get("ttl") is None else options["ttl"]
    if default not in accepted:
        raise Rejected(
            400, f"prompt_cache_options.ttl: expected one of {list(accepted)}, got {default!r}"
        )
    explicit = {i: s.marker or default for i, s in enumerate(segments) if s.marker is not None}
    if any(ttl not in caps.ttls for ttl in explicit.values()):
        raise Rejected(400, f"prompt_cache_breakpoint.ttl: expected one of {list(caps.ttls)}")
    if mode == "explicit":
        return sorted(explicit.items())[-caps.max_breakpoints :]
    if mode != "implicit":
        raise Rejected(
            400, f"prompt_cache_options.mode: expected implicit or explicit, got {mode!r}"
        )
    if not segments:
        return []
    last = len(segments) - 1
    kept = (
        sorted(explicit.items())[-(caps.max_breakpoints - 1) :] if caps.max_breakpoints > 1 else []
    )
    return sorted({last: default, **dict(kept)}.items())


def _marker(part: Mapping[str, Any]) -> str | None:
    point = part.get("prompt_cache_breakpoint")
    if point is None:
        return None
    if not isinstance(point, dict) or point.get("mode") != "explicit":
        raise Rejected(
            400, f"prompt_cache_breakpoint: expected {{'mode': 'explicit'}}, got {point!r:.60}"
        )
    return str(point.get("ttl", ""))


def _parts(role: str, content: Any, where: str) -> list[Segment]:
    if content is None:
        return [Segment.of({"role": role, "part": None}, markable=False)]
    if isinstance(content, str):  # the same text as one text part: the model sees the same tokens
        return [Segment.of({"role": role, "part": {"text": content, "type": "text"}})]
    out = []
    for i, part in enumerate(need(content, list, where)):
        bare = {
            k: v
            for k, v in need(part, dict, f"{where}[{i}]").items()
            if k != "prompt_cache_breakpoint"
        }
        out.append(Segment.of({"role": role, "part": bare}, marker=_marker(part)))
    return out


def _tools(body: Mapping[str, Any]) -> list[Segment]:
    return [
        Segment.of({"tool": t}, markable=False) for t in need(body.get("tools", []), list, "tools")
    ]


def _chat_segments(body: Mapping[str, Any]) -> list[Segment]:
    out = _tools(body)
    for m, message in enumerate(need(body.get("messages"), list, "messages")):
        role = need(need(message, dict, f"messages[{m}]").get("role"), str, f"messages[{m}].role")
        out.extend(_parts(role, message.get("content"), f"messages[{m}].content"))
        for call in message.get("tool_calls") or []:
            out.append(Segment.of({"role": role, "tool_call": call}, markable=False))
        if "tool_call_id" in message:
            out.append(Segment.of({"tool_call_id": message["tool_call_id"]}, markable=False))
    return out


def _responses_segments(body: Mapping[str, Any]) -> list[Segment]:
    # tool search: of a deferred tool the prefix holds only what the vendor says it shows
    tools = shown_tools(need(body.get("tools", []), list, "tools"))
    out = [Segment.of({"tool": t}, markable=False) for t in tools]
    if body.get("instructions") is not None:
        out.append(Segment.of({"instructions": body["instructions"]}, markable=False))
    items: Sequence[Any] = body.get("input") or []
    if isinstance(items, str):
        return [*out, *_parts("user", items, "input")]
    for i, item in enumerate(need(items, list, "input")):
        need(item, dict, f"input[{i}]")
        if item.get("type", "message") == "message":
            role = need(item.get("role"), str, f"input[{i}].role")
            out.extend(_parts(role, item.get("content"), f"input[{i}].content"))
        else:
            out.append(Segment.of({"item": item}, markable=False))
    return out
