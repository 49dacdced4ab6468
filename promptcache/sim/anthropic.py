"""
EMULATION of Anthropic's prompt cache (Messages API), for tests, examples and benchmarks.

What it models, with the rules read from `promptcache.vendors` and the minimum table: explicit
`cache_control` breakpoints and the top-level automatic one (on the last block that can carry a
marker); at most `max_breakpoints` of them; a 1h marker may not follow a 5m one; each breakpoint
finds the nearest earlier entry at its own position or up to `lookback_blocks` content blocks
before it; every entry found is read and its TTL restarts (the furthest one is what the usage
reports); entries expire after their TTL; no entry below the model's minimum; one cache per
model. Content blocks are compared as the SDK sent them (JSON, keys sorted, markers left out);
`tool_choice` and `thinking` are part of the messages' prefix, so changing them keeps the tools
and system cached but not the messages.

Not modelled: entries becoming readable only once the first response starts streaming (requests
here are answered one at a time), workspace isolation (one emulator is one workspace), streaming.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise
from typing import Any, ClassVar, NamedTuple

from ._base import Emulator, Rejected, need
from ._core import EMULATION, Outcome, Segment, Store, canonical, chain, tokens_of
from ._rules import anthropic_rules, deferred_tool, minimum, ttl_seconds

__all__ = ["AnthropicEmulator", "Change", "Outcome", "Prepared"]


@dataclass(frozen=True, slots=True)
class Prepared:
    """One request as the cache sees it: content blocks, the hash and tokens of every prefix."""

    model: str
    segments: tuple[Segment, ...]
    hashes: tuple[bytes, ...]
    totals: tuple[int, ...]
    floor: int  # the model's minimum


class Change(NamedTuple):
    """
    The entries a request's breakpoints found (each is read, so its TTL restarts; the furthest
    gives the tokens read) and the entries it writes ((hash, tokens, TTL seconds), ...).
    """

    outcome: Outcome
    found: tuple[bytes, ...]
    writes: tuple[tuple[bytes, int, float], ...]


class AnthropicEmulator(Emulator):
    """EMULATION of Anthropic's prompt cache behind `POST /v1/messages`."""

    vendor: ClassVar[str] = "anthropic"
    sdk_client = ("anthropic", "anthropic", "anthropic", "Anthropic")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.store = Store()
        self.rules = anthropic_rules()
        self._ids = 0

    def fork(self) -> AnthropicEmulator:
        """A copy with the same cache entries and clock, for what-if runs."""
        other = AnthropicEmulator(clock=self.clock, responder=self.responder)
        other.store = self.store.copy()
        return other

    # -- HTTP -----------------------------------------------------------------------------------

    def route(self, method: str, path: str, body: Any) -> dict[str, Any]:
        if method == "POST" and path.rstrip("/").endswith("/v1/messages"):
            return self.messages(need(body, dict, "request body"))
        raise Rejected(404, f"the Anthropic emulator serves POST /v1/messages, not {method} {path}")

    def error_body(self, refused: Rejected) -> dict[str, Any]:
        kind = "not_found_error" if refused.status == 404 else "invalid_request_error"
        return {"type": "error", "error": {"type": kind, "message": refused.message}}

    def messages(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Answer one Messages request (its JSON body) and update the cache."""
        if body.get("stream"):
            raise Rejected(400, "the promptcache emulator does not stream; call without stream")
        model = need(body.get("model"), str, "model")
        max_tokens = need(body.get("max_tokens"), int, "max_tokens")
        outcome = self.serve(body)
        content = (
            []
            if max_tokens == 0
            else self.reply_content(body, [{"type": "text", "text": EMULATION}])
        )
        self._ids += 1
        return {
            "id": f"msg_emulated_{self._ids:06d}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": "max_tokens" if max_tokens == 0 else "end_turn",
            "stop_sequence": None,
            "usage": _usage(
                outcome,
                0 if max_tokens == 0 else tokens_of(canonical(content)),
                self.rules.ttls,
            ),
        }

    # -- the cache ------------------------------------------------------------------------------

    def serve(self, body: Mapping[str, Any]) -> Outcome:
        """Read and write the cache for one request body; the usage in tokens."""
        prepared = self.prepare(body)
        points = self._breakpoints(body, prepared.segments)
        change = self.what_if(prepared, points, self.clock())
        self.apply(change, self.clock())
        return change.outcome

    def prepare(self, body: Mapping[str, Any]) -> Prepared:
        """A request's content blocks, prefix hashes and token totals (markers play no part)."""
        model = need(body.get("model"), str, "model")
        segments = _segments(body, self.rules.unmarkable)
        return Prepared(
            model=model,
            segments=tuple(segments),
            hashes=tuple(chain(canonical(["anthropic", model]), _pieces(body, segments))),
            totals=tuple(accumulate(s.tokens for s in segments)),
            floor=minimum(self.vendor, model),
        )

    def what_if(self, prepared: Prepared, points: Sequence[tuple[int, str]], now: float) -> Change:
        """
        What the cache would do at `now` with breakpoints at `points` ((content block, TTL), in
        order), without doing it. Benchmarks use it to try breakpoint sets.
        """
        hashes, totals = prepared.hashes, prepared.totals
        found = self._lookup(points, hashes, now)
        read_at = max(found, default=-1)
        read = totals[read_at] if read_at >= 0 else 0
        writes: list[tuple[bytes, int, float]] = []
        by_ttl: dict[str, int] = {}
        done = read
        for index, ttl in points:
            if index <= read_at or totals[index] < prepared.floor:
                continue
            writes.append((hashes[index], totals[index], ttl_seconds(ttl)))
            by_ttl[ttl] = by_ttl.get(ttl, 0) + totals[index] - done
            done = totals[index]
        total = totals[-1] if totals else 0
        outcome = Outcome(
            read=read,
            write=done - read,
            uncached=total - done,
            write_by_ttl=by_ttl,
            read_at=read_at,
            written_at=tuple(i for i, _ in points if i > read_at and totals[i] >= prepared.floor),
        )
        return Change(outcome, tuple(hashes[i] for i in sorted(found)), tuple(writes))

    def apply(self, change: Change, now: float) -> None:
        """Make a `what_if` happen: refresh the entries found, store the entries written."""
        for key in change.found:
            self.store.refresh(key, now)  # a read restarts the entry's TTL
        for key, tokens, ttl in change.writes:
            self.store.put(key, tokens, ttl, now)

    def _lookup(
        self, points: Sequence[tuple[int, str]], hashes: Sequence[bytes], now: float
    ) -> set[int]:
        """
        For each breakpoint, the nearest content block at or up to `lookback_blocks` before it
        that holds a live entry: each breakpoint is a lookup of its own, and every entry found is
        read (the furthest one is what the request is billed for).
        """
        window = self.rules.lookback_blocks
        found: set[int] = set()
        for index, _ in points:
            stop = -1 if window is None else max(index - window - 1, -1)
            hit = next(
                (at for at in range(index, stop, -1) if self.store.live(hashes[at], now)), None
            )
            if hit is not None:
                found.add(hit)
        return found

    def _breakpoints(
        self, body: Mapping[str, Any], segments: Sequence[Segment]
    ) -> list[tuple[int, str]]:
        """(content block, TTL) of every breakpoint, in request order; refuses what the API does."""
        default = self.rules.default_ttl or ""
        points = [(i, s.marker or default) for i, s in enumerate(segments) if s.marker is not None]
        automatic = body.get("cache_control")
        if automatic is not None:
            ttl = _ttl(automatic, "cache_control", self.rules.ttls) or default
            last = max((i for i, s in enumerate(segments) if s.markable), default=-1)
            if last < 0:
                raise Rejected(400, "cache_control: the request has no block that can be cached")
            held = dict(points).get(last)
            if held is not None and held != ttl:
                raise Rejected(
                    400, f"cache_control: ttl {ttl!r} differs from the last block's own {held!r}"
                )
            if held is None:
                points = sorted([*points, (last, ttl)])
        if len(points) > self.rules.max_breakpoints:
            raise Rejected(
                400,
                f"A maximum of {self.rules.max_breakpoints} blocks with cache_control may be "
                f"provided. Found {len(points)}.",
            )
        _check_order(points, self.rules.ttls)
        return points


def _check_order(points: Sequence[tuple[int, str]], ttls: Sequence[str]) -> None:
    rank = {ttl: i for i, ttl in enumerate(ttls)}  # longest first
    for (_, before), (_, after) in pairwise(points):
        if rank[after] < rank[before]:
            raise Rejected(
                400, f"a ttl='{after}' cache_control block must not come after a ttl='{before}' one"
            )


def _segments(body: Mapping[str, Any], unmarkable: frozenset[str]) -> list[Segment]:
    """Every content block in the order the API renders them: tools, system, messages."""
    ttls = anthropic_rules().ttls
    out: list[Segment] = []
    for i, tool in enumerate(need(body.get("tools", []), list, "tools")):
        if deferred_tool(tool):  # found through tool search, never part of the prefix
            continue
        out.append(_block({"tool": tool}, need(tool, dict, f"tools[{i}]"), f"tools[{i}]", ttls))
    system = body.get("system")
    if isinstance(system, str):  # one text block, which cannot carry a marker
        system = [{"type": "text", "text": system}]
    if system is not None:
        for i, block in enumerate(need(system, list, "system")):
            out.append(
                _block({"system": block}, need(block, dict, f"system[{i}]"), f"system[{i}]", ttls)
            )
    for m, message in enumerate(need(body.get("messages"), list, "messages")):
        need(message, dict, f"messages[{m}]")
        role = need(message.get("role"), str, f"messages[{m}].role")
        content = message.get("content")
        if isinstance(content, str):  # the API reads it as one text block
            content = [{"type": "text", "text": content}]
        for c, block in enumerate(need(content, list, f"messages[{m}].content")):
            where = f"messages[{m}].content[{c}]"
            kind = need(block, dict, where).get("type")
            segment = _block({"role": role, "block": block}, block, where, ttls)
            if kind in unmarkable:
                if segment.marker is not None:
                    raise Rejected(400, f"{where}: {kind} blocks cannot carry cache_control")
                segment = Segment(data=segment.data, tokens=segment.tokens, markable=False)
            out.append(segment)
    return out


def _block(
    shown: dict[str, Any], block: Mapping[str, Any], where: str, ttls: Sequence[str]
) -> Segment:
    """A content block as compared (its marker left out), with the marker's TTL."""
    bare = {k: v for k, v in block.items() if k != "cache_control"}
    label = "block" if "role" in shown else next(iter(shown))
    marker = _ttl(block.get("cache_control"), f"{where}.cache_control", ttls)
    return Segment.of({**shown, label: bare}, marker=marker)


def _ttl(marker: Any, where: str, ttls: Sequence[str]) -> str | None:
    """The TTL of a `cache_control` value ("" for the default), None when there is no marker."""
    if marker is None:
        return None
    if not isinstance(marker, dict) or marker.get("type") != "ephemeral":
        raise Rejected(400, f"{where}: expected {{'type': 'ephemeral'}}, got {marker!r:.60}")
    ttl = marker.get("ttl", "")
    if ttl and ttl not in ttls:
        raise Rejected(400, f"{where}.ttl: expected one of {list(ttls)}, got {ttl!r}")
    return str(ttl)


def _pieces(body: Mapping[str, Any], segments: Sequence[Segment]) -> list[bytes]:
    """What each link of the chain covers: the messages start with tool_choice and thinking."""
    context = canonical({k: body.get(k) for k in ("tool_choice", "thinking")})
    first = len(segments) - sum(1 for _ in _message_blocks(body))
    return [s.data if i != first else context + s.data for i, s in enumerate(segments)]


def _message_blocks(body: Mapping[str, Any]) -> list[Any]:
    out: list[Any] = []
    for message in body.get("messages", []):
        content = message.get("content")
        out.extend([content] if isinstance(content, str) else content)
    return out


def _usage(outcome: Outcome, output: int, ttls: Sequence[str]) -> dict[str, Any]:
    return {
        "input_tokens": outcome.uncached,
        "cache_creation_input_tokens": outcome.write,
        "cache_read_input_tokens": outcome.read,
        "cache_creation": {
            f"ephemeral_{ttl}_input_tokens": outcome.write_by_ttl.get(ttl, 0) for ttl in ttls
        },
        "output_tokens": output,
        "service_tier": "standard",
    }
