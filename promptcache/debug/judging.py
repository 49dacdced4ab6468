"""
The monitor's judging: given what a key's previous request left in the cache and what this one
read, decide whether a read fell short and name why (the local diff, TTL, minimum, lookback,
a marker that never took effect, a model switch, or the server). Every vendor fact comes from
the entry's `Vendor` record.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping
from typing import Any

import orjson

from .._pricing import load_min_tokens
from .._tokens import TokenCounter
from .._usage import CacheUsage
from ..vendors import TTL_SECONDS, Vendor
from ..vendors._elements import MARKERS, Element, Span, element_units, plain
from ..vendors._platform import unserved_base, unserved_base_fix
from .diff import (
    DiffResult,
    compare_elements,
    identical,
    one_model,
    possibly_one_model,
    unknown_model,
)
from .divergence import automatic, breakpoints
from .events import WITHDRAWN, Invalidation
from .fingerprint import digest
from .memory import Entry, KeyState, Record, common_start, entry_ttls, without_markers, written
from .privacy import describe, private_path, short_hash
from .settings import setting_change
from .store import StateStore

__all__ = ["Judging", "vendor_reason"]

_CACHE_CONTROL, _BREAKPOINT = (m.encode() for m in MARKERS)

# An element's JSON -> its hash, tokens, marker TTL and marked flag: a pure function of the bytes
# (and the element's content key), so an element sent again in any request of any key (shared
# tools, a conversation's earlier turns) is hashed and counted once. Bounded by the bytes of JSON
# held as keys; past the bound the memo starts over (no per-lookup bookkeeping on the hot path).
_HASHED_BYTES = 2 * 1024 * 1024
_HASHED_ITEM_BYTES = 64 * 1024  # larger elements are rare and cheap to hash relative to their size

# A read this share of the expected one short is still a hit (tokenizer drift, template tails).
_SLACK_SHARE = 0.02
# An expectation from our own token estimate (the usage measured nothing) allows for the
# estimate's error against the vendor's tokenizer.
_ESTIMATE_SLACK_SHARE = 0.25


# Our token estimate is within about this share of the vendors' counts: a prefix estimated this
# close to a minimum may be on either side of it.
_NEAR_MINIMUM_SHARE = 0.15


def _below_minimum_words(prefix: int, minimum: int, entry: Entry) -> str:
    """The minimum as the vendor documents it, and how sure the estimate is of being under it."""
    documented = f"the {minimum}-token minimum {entry.vendor.title} documents for {_served(entry)}"
    if prefix >= minimum * (1 - _NEAR_MINIMUM_SHARE):
        return (
            f"the cached prefix is about {prefix} tokens (an estimate), near {documented}: it "
            "may be under it, when the vendor documents caching nothing, or just over it"
        )
    return (
        f"the cached prefix is about {prefix} tokens (an estimate), under {documented}; "
        "under it the vendor documents caching nothing (a read observed later would show "
        "otherwise)"
    )


def _served(entry: Entry) -> str:
    """The model whose minimum applies: a mapped id (`base_models=`) named as what it serves."""
    model = entry.model or ""
    served = entry.vendor.rules_model(model)
    return model if served == model else f"{served} (served by {_model_label(model)})"


def _model_label(model: str) -> str:
    """A model id for a log line: an ARN's resource (its region and account left out), else
    the id's short hash (an opaque id may be anything the caller chose)."""
    parts = model.split(":", 5)
    if parts[0] == "arn" and len(parts) == 6:
        return repr(parts[5])
    return f"(hash {short_hash(model)})"


class Judging:
    """The judging half of `Monitor`: reads entries, never changes what the monitor holds."""

    ttl_seconds: float | None
    min_tokens: int | None
    capture_content: bool
    counter: TokenCounter
    _lock: threading.Lock
    _keys: KeyState
    _minimums: dict[tuple[str, str], int]
    # (vendor family, model) -> the shortest read seen under the model's documented minimum:
    # the minimum learned from traffic (the vendor cached a prefix that short)
    _read_under_minimum: dict[tuple[str, str], int]
    # (vendor family, model) of the model ids that name no model, said once each
    _unknown_models: set[tuple[str, str]]
    logger: logging.Logger
    _hashed: dict[bytes, tuple[str | None, Record]]
    _hashed_bytes: int
    _hashed_by: TokenCounter | None
    store: StateStore | None

    def _default_key(self, vendor: Vendor, model: str | None) -> str:
        raise NotImplementedError

    def _withdraw(self, event: Invalidation) -> None:
        """Deliver a follow-up that takes back an earlier event of its key (Monitor does)."""
        raise NotImplementedError

    def _records(self, entry: Entry) -> tuple[Record, ...]:
        """The entry's element records (hash, tokens, markers), computed once."""
        records = entry.records
        if records is not None:
            return records
        body = entry.request
        if body is None:  # dropped (maybe meanwhile, by another thread, which kept them first)
            if entry.fingerprint is not None:
                return entry.fingerprint.records()
            return entry.records or ()
        records = self._records_of(entry.vendor, body)
        entry.records = records
        return records

    def _records_of(self, vendor: Vendor, request: Mapping[str, Any]) -> tuple[Record, ...]:
        """
        The records of every element of `request` in render order. It walks the spans itself (no
        `Element` per item) and takes each element's record from the memo, keyed by the element's
        JSON: an element whose bytes were hashed before, in any request, costs one serialisation
        and one lookup.
        """
        memo = self._memo()
        out: list[Record] = []
        for span in vendor.spans(request):
            layer, key, paths = span.layer, span.content_key, _paths(span)
            for i, item in enumerate(span.items):
                path = paths[i] if i < len(paths) else span.path_of(i)
                out.append(self._known(memo, layer, path, plain(item), key))
        return tuple(out)

    def _record(self, element: Element) -> Record:
        """One element's record, through the same memo as `_records_of`."""
        return self._known(
            self._memo(), element.layer, element.path, element.value, element.content_key
        )

    def _memo(self) -> dict[bytes, tuple[str | None, Record]]:
        """The element memo, emptied when the token counter changed (its counts are the counter's)."""
        if self._hashed_by is not self.counter:
            self._hashed, self._hashed_bytes, self._hashed_by = {}, 0, self.counter
        return self._hashed

    def _known(
        self,
        memo: dict[bytes, tuple[str | None, Record]],
        layer: str,
        path: str,
        value: Any,
        key: str | None,
    ) -> Record:
        """An element's record from the memo (moved to `layer`, `path`), else hashed now."""
        data = orjson.dumps(value)
        known = memo.get(data)
        if known is None or known[0] != key:
            return self._hash(layer, path, value, key, data)
        record = known[1]
        if record.path == path and record.layer == layer:
            return record
        return Record(layer, path, record.digest, record.tokens, record.ttl, record.marked)

    def _hash(self, layer: str, path: str, value: Any, key: str | None, data: bytes) -> Record:
        """An element's record (digest, tokens, marker TTL, marked), remembered by its bytes."""
        ttl: str | None = None
        marked = False
        clean = data
        # Most elements carry no marker: a byte search over their JSON settles it without a walk.
        if _CACHE_CONTROL in data or _BREAKPOINT in data:
            stripped, ttl, marked = without_markers(Element(layer, path, value, key))
            clean = data if not marked else orjson.dumps(stripped)
        record = Record(
            layer, path, digest(clean), self.counter.count(clean.decode("utf-8")), ttl, marked
        )
        if len(data) <= _HASHED_ITEM_BYTES:
            # A copy: orjson's buffer is sized for growth, and holding it would hold that too.
            self._remember(memoryview(data).tobytes(), (key, record))
        return record

    def _remember(self, data: bytes, known: tuple[str | None, Record]) -> None:
        # Plain dict operations, each atomic: threads racing here at worst hash an element twice.
        self._hashed_bytes += len(data)
        if self._hashed_bytes > _HASHED_BYTES:
            self._hashed.clear()
            self._hashed_bytes = len(data)
        self._hashed[data] = known

    def _ttl(self, entry: Entry) -> float | None:
        if self.ttl_seconds is not None:
            return self.ttl_seconds
        asked = entry_ttls(entry, self._records(entry))
        # The shortest TTL is the first entry to lapse, and everything after it goes with it.
        # What the server says it wrote counts too: a relay that drops `ttl` makes a 1h write 5m.
        named = [TTL_SECONDS[t] for t in (*asked, *written(entry))]
        return min(named) if named else entry.vendor.rules.default_ttl_seconds

    def _downgrade(self, entry: Entry) -> str:
        """Words for a write the server made with a shorter TTL than the markers asked; or ''."""
        asked = entry_ttls(entry, self._records(entry))
        wrote = written(entry)
        if not asked or not wrote:
            return ""
        shortest_asked = min(asked, key=TTL_SECONDS.__getitem__)
        shortest_written = min(wrote, key=TTL_SECONDS.__getitem__)
        if TTL_SECONDS[shortest_written] >= TTL_SECONDS[shortest_asked]:
            return ""
        return (
            f"; the prefix was written with a {shortest_written} TTL although {shortest_asked} "
            "was requested (a proxy, relay or older SDK dropping the marker's `ttl`?)"
        )

    def _note_read(self, entry: Entry, read: int) -> bool:
        """
        Remember a read under the documented minimum, and say whether it was one: the model
        caches prefixes that short, so its learned minimum is the shortest such read.
        """
        if read >= self._minimum(entry):
            return False
        name = (entry.vendor.family, entry.model or "")
        with self._lock:
            known = self._read_under_minimum.get(name)
            self._read_under_minimum[name] = read if known is None else min(read, known)
        return True

    def _learned_minimum(self, entry: Entry) -> int | None:
        """The shortest prefix the model was seen reading under its documented minimum."""
        return self._read_under_minimum.get((entry.vendor.family, entry.model or ""))

    def _seen_reading_under(self, entry: Entry, prefix: int) -> bool:
        """Whether the model was seen reading a prefix this short or shorter from its cache."""
        seen = self._learned_minimum(entry)
        return seen is not None and seen <= prefix

    def _minimum(self, entry: Entry) -> int:
        """The model's minimum from the shipped table (or its override file, which must parse)."""
        if self.min_tokens is not None:
            return self.min_tokens
        name = (entry.vendor.family, entry.model or "")
        if name not in self._minimums:
            # a mapped id (`Monitor(base_models=...)`) has the minimum of the model it serves
            served = entry.vendor.rules_model(name[1])
            self._minimums[name] = load_min_tokens().minimum(name[0], served)
        return self._minimums[name]

    def _minimum_unknown(self, entry: Entry) -> bool:
        """
        Whether the entry's model id names no model (an application inference profile ARN) and
        no `min_tokens` was given: its minimum is then unknown, and said so once per model.
        """
        model = entry.model or ""
        if self.min_tokens is not None or not unknown_model(entry.vendor, model):
            return False
        name = (entry.vendor.family, model)
        with self._lock:
            first = name not in self._unknown_models
            self._unknown_models.add(name)
        base = unserved_base(entry.vendor, model)
        if first and base is not None:
            self.logger.warning(
                "promptcache: the %s model id %s names no model, so its minimum cacheable "
                "prefix is unknown and no miss of it is called below_minimum or not_cached; %s",
                entry.vendor.title,
                _model_label(model),
                unserved_base_fix(base),
            )
        elif first:
            self.logger.warning(
                "promptcache: the %s model id %s names no model (an application inference "
                "profile?), so its minimum cacheable prefix is unknown and no miss of it is "
                "called below_minimum or not_cached. Pass Monitor(base_models={id: model}) "
                "with the foundation model it serves (`aws bedrock get-inference-profile` "
                "names it), or Monitor(min_tokens=...) with its minimum, "
                "or send its foundation model id or a cross-region profile id "
                "(us./eu./global.anthropic....)",
                entry.vendor.title,
                _model_label(model),
            )
        return True

    def _automatic(self, entry: Entry) -> bool:
        """Automatic prefix caching: the whole prompt is cached, whatever the markers say."""
        return automatic(entry.settings, entry.vendor)

    def _prefix_tokens(self, entry: Entry) -> tuple[int, bool]:
        """Tokens up to the last breakpoint (element granularity), and whether there is one."""
        if self._automatic(entry):
            return entry.total, entry.total > 0
        records = self._records(entry)
        last = max((i for i, r in enumerate(records) if r.marked), default=-1)
        top = entry.vendor.rules.top_level_marker
        if top is not None and entry.settings.get(top) is not None:
            last = len(records) - 1
        return sum(r.tokens for r in records[: last + 1]), last >= 0

    # -- judging --------------------------------------------------------------------------

    def _judge(
        self,
        key: str,
        previous: Entry | None,
        entry: Entry,
        request: Mapping[str, Any],
        usage: CacheUsage,
        *,
        defaulted: bool,
        order: str | None = None,
    ) -> Invalidation | None:
        """
        `order` says why the previous request's place before this one is uncertain (sent at the
        same moment, or still in flight when this one was sent), or None: a read that fell short
        is then reported as `order_ambiguous`, naming no cause it cannot know.
        """
        if usage.cache_read is None:
            return None  # the server did not report caching: nothing to judge
        # A request rebuilt from telemetry has lost its markers: what they did is unknown.
        small = None if entry.partial else self._nothing_cached(key, previous, entry, usage)
        if previous is None:
            if small is None and defaulted and usage.cache_read == 0:
                return self._switched_model(key, entry, usage)
            return small
        expected = self._expected(previous)
        share = _ESTIMATE_SLACK_SHARE if previous.unmeasured else _SLACK_SHARE
        slack = max(entry.vendor.rules.granularity_tokens, int(expected * share))
        if expected <= 0 or usage.cache_read >= expected - slack:
            return small
        if order is not None:
            return self._event(
                key,
                entry,
                usage,
                cause="order_ambiguous",
                expected=expected,
                server_side=False,
                gap=entry.sent_at - previous.sent_at,
                reason=vendor_reason(usage),
                detail=f"{order}: what this request could read depends on which finished first, "
                "so no cause is named",
            )
        return self._explain(key, previous, entry, request, usage, expected)

    def _expected(self, previous: Entry) -> int:
        """What the previous request left in the cache for this one to read."""
        if previous.unmeasured:
            return self._estimated_prefix(previous)
        written = previous.read + previous.write if previous.measured is None else previous.measured
        if previous.measured is not None:
            return written  # the last pass's own cache: the summed total is several prompts
        if self._automatic(previous) and previous.total >= self._minimum(previous):
            return max(written, previous.total)  # automatic prefix caching: the whole prompt
        return written

    def _estimated_prefix(self, previous: Entry) -> int:
        """
        The previous request's cached prefix by our own count, for a usage that measured none:
        what it wrote, were its numbers to be believed. 0 (expect nothing) under the minimum.
        """
        if self._automatic(previous):
            tokens = sum(r.tokens for r in self._records(previous))
        else:
            tokens, _ = self._prefix_tokens(previous)
        if self._minimum_unknown(previous):
            return 0  # whether the prefix was long enough to be cached at all is unknown
        return tokens if tokens >= self._minimum(previous) else 0

    def _nothing_cached(
        self, key: str, previous: Entry | None, entry: Entry, usage: CacheUsage
    ) -> Invalidation | None:
        """
        Markers placed, nothing read or written. Under the minimum that is the vendor's rule
        (`below_minimum`); over it, the markers never took effect (`not_cached`). Each once per key.
        """
        if usage.cache_read and self._note_read(entry, usage.cache_read):
            self._disproved(key, entry, usage)
        if usage.cache_read or usage.cache_write or self._said(key, "not_cached"):
            return None
        if self._minimum_unknown(entry):
            return None  # under or over the model's minimum: which one is not known
        prefix, marked = self._prefix_tokens(entry)
        minimum = self._minimum(entry)
        if not marked:
            return self._unmarked(key, entry, usage, minimum)
        if prefix < minimum:
            if self._seen_reading_under(entry, prefix):
                return None  # observed reads win over the documented minimum
            if not self._first_time(key, "below_minimum"):
                return None
            with self._lock:
                self._keys.claims[key] = prefix
            return self._event(
                key,
                entry,
                usage,
                cause="below_minimum",
                expected=0,
                server_side=False,
                detail=_below_minimum_words(prefix, minimum, entry),
            )
        if usage.cache_write is None or self._automatic(entry):
            return None  # writes go unreported: a first request that wrote looks just the same
        entry.dry, entry.prefix = (previous.dry if previous is not None else 0) + 1, prefix
        # On the second such turn in a row, not the first: one request proves little (a request
        # sent once needs no cache; a prefix our estimate puts just over the minimum may be just
        # under the vendor's count), two in a row with the prefix grown is the pattern, and the
        # wait costs one turn. Not `server_side`: nothing was evicted, and the likely causes (a
        # gateway, the dialect, a longer prefix needed) are the caller's to fix.
        if previous is None or entry.dry < 2 or not self._first_time(key, "not_cached"):
            return None
        return self._event(
            key,
            entry,
            usage,
            cause="not_cached",
            expected=previous.prefix,
            server_side=False,
            gap=entry.at - previous.at,
            detail=f"cache markers were sent on {entry.dry} requests in a row (prefix about "
            f"{prefix} tokens, over the {minimum}-token minimum for {_served(entry)}) but nothing "
            "was written or read. Likely: a proxy or gateway strips the markers; the markers are "
            "in the wrong dialect for this endpoint or SDK; or the model's real minimum is higher "
            "than promptcache's table (lengthen the cached prefix)",
        )

    def _disproved(self, key: str, entry: Entry, usage: CacheUsage) -> None:
        """
        Take back `key`'s `below_minimum` (a follow-up, once per key) when a read under the
        documented minimum is no longer than the prefix it was said of: the vendor cached a prefix
        that short, so that one was not under its real minimum. A longer read disproves nothing:
        the prompt grew, or another request cached more (the claimed prefix may still be under).
        """
        read = usage.cache_read or 0
        with self._lock:
            claimed = self._keys.claims.get(key)
        # our estimate of the claimed prefix may be this share under the vendor's count
        if claimed is None or read > claimed * (1 + _NEAR_MINIMUM_SHARE):
            return
        if self._first_time(key, WITHDRAWN):
            with self._lock:
                self._keys.claims.pop(key, None)
            self._withdraw(self._withdrawal(key, entry, usage))

    def _withdrawal(self, key: str, entry: Entry, usage: CacheUsage) -> Invalidation:
        """The follow-up taking back `key`'s `below_minimum`: what was read, what is learned."""
        read, minimum = usage.cache_read or 0, self._minimum(entry)
        learned = self._learned_minimum(entry) or read
        return self._event(
            key,
            entry,
            usage,
            cause=WITHDRAWN,
            expected=0,
            server_side=False,
            detail=f"the below_minimum said earlier for this key is withdrawn: the vendor read "
            f"{read} tokens from the cache, under the {minimum}-token minimum "
            f"{entry.vendor.title} documents for {entry.model}, so it caches prefixes that "
            f"short; {learned} tokens is now taken as the minimum {entry.model} was seen to "
            "cache, and no prefix that long is called below_minimum again",
        )

    def _unmarked(
        self, key: str, entry: Entry, usage: CacheUsage, minimum: int
    ) -> Invalidation | None:
        """
        No marker on a vendor that caches only at markers: nothing is cached, however long the
        prompt. Said once per key, when the prompt is long enough to be worth caching.
        """
        vendor = entry.vendor
        if not vendor.rules.caches_only_at_markers or entry.total < minimum:
            return None
        if not self._first_time(key, "not_cached"):
            return None
        return self._event(
            key,
            entry,
            usage,
            cause="not_cached",
            expected=0,
            server_side=False,
            detail=f"the request carries no cache marker and {vendor.title} caches only at "
            f"markers: nothing of its {entry.total} input tokens was cached. Mark the end of the "
            "stable prefix (promptcache's adapters place the markers)",
        )

    def _said(self, key: str, cause: str) -> bool:
        with self._lock:
            return self._keys.said(key, cause)

    def _first_time(self, key: str, cause: str) -> bool:
        """Whether a once-per-key `cause` is new for `key`; it counts as said from now on."""
        with self._lock:
            return self._keys.first_time(key, cause)

    def _switched_model(self, key: str, entry: Entry, usage: CacheUsage) -> Invalidation | None:
        """
        A full miss on the first request under a default key (vendor and model): if a request
        under another model, the latest that did, began the same way within its TTL, the model
        was switched mid-session (a fallback), which loses the whole cache. A router and a main
        model used side by side send different prefixes, and stay quiet.
        """
        if key != self._default_key(entry.vendor, entry.model):
            return None  # `prompt_cache_key` or `metadata.user_id`: one key across models
        with self._lock:
            others = [e for _, e in self._keys.latest_defaults() if e.model != entry.model]
        for other in others:  # latest first
            gap = entry.at - other.at
            ttl = self._ttl(other)
            if ttl is not None and gap > ttl:
                continue  # lapsed anyway: the switch lost nothing
            shared = self._shared_start(other, entry)
            expected = min(self._expected(other), shared)
            if expected <= 0:
                continue
            before, after = str(other.model), str(entry.model)
            detail = (
                f"the model changed from {before} to {after} {gap:.0f} s after a {before} request "
                f"that began the same way: caches are per model, so nothing cached under {before} "
                "is read (the default key is per model; pass key= to follow a session across "
                "models)"
            )
            if one_model(entry.vendor, before, after):
                detail = f"{possibly_one_model(entry.vendor, before, after)} ({gap:.0f} s apart)"
            found = DiffResult(
                invalidated=True,
                layer="model",
                cause="model_changed",
                path="model",
                offset=None,
                before=before,
                after=after,
                tokens_lost=expected,
                vendor=entry.vendor.name,
                detail=detail,
            )
            return self._event(
                key,
                entry,
                usage,
                cause="model_changed",
                expected=expected,
                server_side=False,
                found=found,
                gap=gap,
                reason=vendor_reason(usage),
                detail=detail,
            )
        return None

    def _shared_start(self, before: Entry, after: Entry) -> int:
        """
        Tokens of the elements `after` starts with as `before` did, when they cover everything
        `before` had ahead of its conversation (tools, system; else its first message); else 0.
        """
        old, new = self._records(before), self._records(after)
        lead = next((i for i, r in enumerate(old) if r.layer == "messages"), len(old)) or 1
        same = common_start(old, new)
        return sum(r.tokens for r in old[:same]) if same >= lead else 0

    def _explain(
        self,
        key: str,
        previous: Entry,
        entry: Entry,
        request: Mapping[str, Any],
        usage: CacheUsage,
        expected: int,
    ) -> Invalidation:
        found = self._diff(previous, request)
        gap = entry.at - previous.at
        reason = vendor_reason(usage)
        ttl = self._ttl(previous)
        if found is not None and found.invalidated:
            return self._event(
                key,
                entry,
                usage,
                cause=found.cause,
                expected=expected,
                server_side=False,
                found=found,
                fields=_fields(previous.request, request, found.path),
                gap=gap,
                reason=reason,
                detail=found.detail,
            )
        if entry.partial:
            return self._event(
                key,
                entry,
                usage,
                cause="none",
                expected=expected,
                server_side=False,
                gap=gap,
                reason=reason,
                detail="no change in what the span carries (messages, system prompt, tools where "
                "recorded); it keeps no cache markers or settings, so a change there, an expired "
                "TTL and a server-side miss cannot be told apart",
            )
        if ttl is not None and gap > ttl:
            return self._event(
                key,
                entry,
                usage,
                cause="ttl_expired",
                expected=expected,
                server_side=False,
                gap=gap,
                reason=reason,
                detail=f"{gap:.0f} s since the last request, over the {ttl:.0f} s TTL"
                + self._downgrade(previous),
            )
        overflow = self._lookback(previous, request)
        if overflow is not None:
            return self._event(
                key,
                entry,
                usage,
                cause="lookback",
                expected=expected,
                server_side=False,
                gap=gap,
                reason=reason,
                detail=overflow,
            )
        cause = entry.vendor.rules.miss_reasons.get(reason or "", "none")
        detail = (
            f"the vendor reports {reason}"
            if cause != "none"
            else "identical prefix within the TTL and no read: a server-side miss (eviction, "
            "routing to another replica, or capacity)"
        )
        return self._event(
            key,
            entry,
            usage,
            cause=cause,
            expected=expected,
            server_side=cause == "none",
            gap=gap,
            reason=reason,
            detail=detail,
        )

    def _lookback(self, previous: Entry, request: Mapping[str, Any]) -> str | None:
        """
        Words for a previous entry out of every breakpoint's reach (Anthropic's 20-block
        lookback), or None. Needs the previous body: its markers are not kept in the hashes.
        """
        vendor = previous.vendor
        window = vendor.rules.capabilities.lookback_blocks
        if window is None:
            return None
        body = previous.request
        if body is None:
            return None
        old_paths, old_points = _content_blocks(body, vendor)
        if not old_points:
            return None
        last = old_points[-1]
        paths, points = _content_blocks(request, vendor)
        if any(0 <= point - last <= window for point in points):
            return None
        beyond = [point for point in points if point > last]
        if not beyond:
            return None  # no marker after the previous one: nothing looked back for it
        nearest = beyond[0]
        return (
            f"the previous request's last breakpoint ({old_paths[last]}) lies {nearest - last} "
            f"content blocks before the nearest breakpoint of this request ({paths[nearest]}); "
            f"the vendor looks back at most {window} content blocks from a breakpoint, "
            "so the previous entry was not found (typically a parallel tool fan-out appended in "
            "one step). Let promptcache plan the markers (its adapter places a lookback "
            f"breakpoint), or add an intermediate breakpoint at most {window} content "
            f"blocks after {old_paths[last]}"
        )

    def _diff(self, previous: Entry, request: Mapping[str, Any]) -> DiffResult | None:
        before = previous.request
        if before is not None:
            # The server already reported the short read, so any divergence inside the previous
            # request explains it, wherever its markers sit now (callers often move them in place).
            return compare_elements(
                before,
                request,
                previous.vendor.elements(before),
                previous.vendor.elements(request),
                previous.vendor,
                self.counter,
                every_prefix=True,
            )
        return self._hash_only(previous, request)

    def _event(
        self,
        key: str,
        entry: Entry,
        usage: CacheUsage,
        *,
        cause: str,
        expected: int,
        server_side: bool,
        detail: str,
        found: DiffResult | None = None,
        fields: tuple[Any, Any] | None = None,
        gap: float | None = None,
        reason: str | None = None,
    ) -> Invalidation:
        actual = usage.cache_read or 0
        before, after = (found.before, found.after) if found else (None, None)
        offset = found.offset if found else None
        if (
            found is not None
            and (before is not None or after is not None)
            and not self.capture_content
        ):
            if found.layer in _CONTENT_LAYERS:
                detail = private_detail(found, fields)
            elif found.path != "model":
                offset = None  # where two salts part would tell how much of the secret they share
            # A setting's value is request data too (a vLLM cache_salt is a per-tenant secret,
            # chat_template_kwargs may carry a name; its detail never quotes it); a model name
            # is no one's data, and is kept.
            if found.path != "model":
                before = after = None
        path = found.path if found else None
        if path is not None and not self.capture_content:
            shown = private_path(path)  # an object key in it may be data
            detail, path = detail.replace(path, shown), shown
        return Invalidation(
            key=key,
            vendor=entry.vendor.name,
            model=entry.model,
            cause=cause,
            layer=found.layer if found else None,
            path=path,
            offset=offset,
            before=before,
            after=after,
            expected_read=expected,
            actual_read=actual,
            tokens_lost=max(0, expected - actual),
            gap_seconds=gap,
            server_side=server_side,
            vendor_reason=reason,
            detail=detail,
            at=entry.at,
        )

    def _unkept(self) -> str:
        """Why the previous request's body is not at hand: the store's choice, or the budget."""
        if self.store is None:
            return "over the monitor's byte budget"
        limit = getattr(self.store, "body_limit", None)
        if limit is None:
            return (
                "the state store keeps no request bodies, only their hashes; "
                "RedisStore.from_url(url, keep_bodies=True) keeps them (they are prompts)"
            )
        return f"over the store's max_body_bytes ({limit:,}) or the monitor's byte budget"

    def _hash_only(self, previous: Entry, request: Mapping[str, Any]) -> DiffResult:
        """The body was over the budget: locate the divergent element by hash, cause by layer only."""
        vendor = previous.vendor
        elements = vendor.elements(request)
        table = setting_change(previous.settings, request, vendor, elements)
        records = self._records(previous)
        lost_all = sum(r.tokens for r in records)
        if table is not None and table.cause == "model_changed":
            return DiffResult(
                invalidated=True,
                layer="model",
                cause="model_changed",
                path="model",
                offset=None,
                before=str(table.before),
                after=str(table.after),
                tokens_lost=lost_all,
                vendor=vendor.name,
                detail="the model changed: caches are per model",
            )
        index = common_start(records, [self._record(e) for e in elements])
        cut = len(records) if table is None else table.cut[0]
        if table is not None and index >= min(cut, len(records)):
            # The content is the same up to where the setting cuts the cache: the setting is
            # the cause (a shared store keeps its hash, so the change is found, not its values).
            return DiffResult(
                invalidated=True,
                layer=table.layer,
                cause=table.cause,
                path=table.path,
                offset=None,
                before=None,
                after=None,
                tokens_lost=sum(r.tokens for r in records[cut:]),
                vendor=vendor.name,
                detail=f"{table.path} changed ({table.cause}); the previous value is kept as a "
                "hash only",
            )
        if index >= len(records):
            return identical(vendor.name)
        record = records[index]
        return DiffResult(
            invalidated=True,
            layer=record.layer,
            cause="tools_changed" if record.layer == "tools" else "content_changed",
            path=record.path,
            offset=None,
            before=None,
            after=None,
            tokens_lost=sum(r.tokens for r in records[index:]),
            vendor=vendor.name,
            detail=f"{record.path} differs (body not kept: {self._unkept()}, so the field and "
            "cause are not resolved further)",
        )


# -- helpers --------------------------------------------------------------------------------

_CONTENT_LAYERS = frozenset({"tools", "system", "messages"})


def private_detail(found: DiffResult, fields: tuple[Any, Any] | None = None) -> str:
    """
    `found` without prompt text: the cause, the path, and each side's type, length and hash. The
    sides are the whole fields at `found.path` (`fields`, from both requests) when they are known,
    else the excerpts `diff` found around the change (and then the message says so).
    """
    where = found.path or found.layer or "the request"
    at = f" at byte {found.offset}" if found.offset is not None else ""
    if fields is not None and fields != (None, None):
        sides = f"was {describe(fields[0])}, now {describe(fields[1])}"
    else:
        sides = f"excerpt was {describe(found.before)}, now {describe(found.after)}"
    return (
        f"{where} changed ({found.cause}){at}: {sides} (prompt text is not logged; "
        "Monitor(capture_content=True) keeps the excerpts on the event)"
    )


# A path as promptcache writes it: `system[0].text`, `tools[2].input_schema.properties["a b"]`.
_PATH_STEP = re.compile(r'\.?([^\W\d]\w*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')


def _fields(
    before: Mapping[str, Any] | None, after: Mapping[str, Any], path: str | None
) -> tuple[Any, Any] | None:
    """The values at `path` in both requests (None where a side has none), when `before` is kept."""
    if before is None or not path:
        return None
    return _value_at(before, path), _value_at(after, path)


def _value_at(request: Mapping[str, Any], path: str) -> Any:
    value: Any = request
    position = 0
    for step in _PATH_STEP.finditer(path):
        if step.start() != position:
            return None  # a path this reader does not follow: say nothing rather than guess
        position = step.end()
        name, index, quoted = step.groups()
        value = plain(value)
        if index is not None:
            ok = isinstance(value, list) and int(index) < len(value)
            value = value[int(index)] if ok else None
        else:
            key = name if name is not None else orjson.loads(quoted)
            value = value.get(key) if isinstance(value, Mapping) else None
        if value is None:
            return None
    return plain(value) if position == len(path) else None


# Element paths of listed spans ("messages[3]"), built once per container name: each list is
# replaced whole when it grows, never changed in place, so threads only ever see a complete one.
_PATHS: dict[str, list[str]] = {}
_PATHS_KEPT = 1024  # indices per container; later ones are formatted each time


def _paths(span: Span) -> list[str]:
    """The paths of `span`'s items by index (a prefix of them, for a very long span)."""
    count = len(span.items)
    if not span.listed:
        return [span.path] * count
    if span.start:
        return [span.path_of(i) for i in range(count)]
    known = _PATHS.get(span.path)
    if known is None or (len(known) < count and len(known) < _PATHS_KEPT):
        size = min(max(count, 2 * len(known or ()), 16), _PATHS_KEPT)
        known = [f"{span.path}[{i}]" for i in range(size)]
        if len(_PATHS) < 64:
            _PATHS[span.path] = known
    return known


def vendor_reason(usage: CacheUsage) -> str | None:
    diagnosis = getattr(usage, "diagnosis", None)
    reason = getattr(diagnosis, "reason", None)
    return reason if isinstance(reason, str) else None


def _content_blocks(request: Mapping[str, Any], vendor: Vendor) -> tuple[list[str], list[int]]:
    """
    A request's content blocks in the order the API reads them (tools, system blocks,
    each message's content blocks; a message's role is no block): their paths, and the indices of
    the ones that carry a breakpoint (the top-level automatic one marks the last block).
    """
    paths: list[str] = []
    at_unit: list[int | None] = []  # unit index -> content block index (None: a message's role)
    for element in vendor.elements(request):
        heads = 1 if element.content_key is not None and isinstance(element.value, Mapping) else 0
        for number, unit in enumerate(element_units(element)):
            at_unit.append(None if number < heads else len(paths))
            if number >= heads:
                paths.append(unit.path)
    points = [at_unit[u] for u in breakpoints(request, vendor)]
    return paths, sorted({p for p in points if p is not None})
