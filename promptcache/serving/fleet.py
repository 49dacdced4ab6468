"""
Prefix-affinity routing for a small fleet with no router in front: consistent hashing with bounded
load over replica URLs, failover to the next replica on the ring, rebalancing as replicas come and
go.

A key's home is the first replica clockwise from the key's hash on a ring of virtual nodes, so
adding or removing one of N replicas moves only about 1/N of the keys (and with them, their cached
prefixes). Bounded load (Mirrokni, Thorup and Zadimoghaddam, 2018) keeps one hot prefix from
swamping its home: a replica already holding `load_factor` times the mean in-flight requests is
passed over for the next one on the ring. A replica that refuses a connection, drops one, times out
or answers 502/503/504 is marked down and the request goes to the next replica; a down replica is
probed on `/health` again after `retry_after` seconds and takes its keys back when it answers.

Use it when you run a handful of engines yourself. Behind the vLLM production-stack router, the
SGLang Model Gateway or llm-d, let the router route and send it the key (`RouterAffinity`).
"""

from __future__ import annotations

import bisect
import hashlib
import math
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from .._errors import InputError, PromptCacheError

__all__ = ["Fleet", "FleetError", "FleetResponse", "HashRing", "health"]

_RETRYABLE_STATUS = frozenset({502, 503, 504})


def _point(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


class HashRing:
    """Replica URLs on a ring of `vnodes` virtual nodes each; `order(key)` walks it clockwise."""

    def __init__(self, replicas: Iterable[str] = (), *, vnodes: int = 100) -> None:
        if vnodes < 1:
            raise InputError(f"vnodes must be at least 1, got {vnodes}")
        self._vnodes = vnodes
        self._points: list[int] = []
        self._owners: list[str] = []
        self._replicas: list[str] = []
        for url in replicas:
            self.add(url)

    @property
    def replicas(self) -> tuple[str, ...]:
        return tuple(self._replicas)

    def add(self, url: str) -> None:
        if not url or url in self._replicas:
            raise InputError(f"replica {url!r} is empty or already on the ring")
        self._replicas.append(url)
        for i in range(self._vnodes):
            point = _point(f"{url}#{i}")
            at = bisect.bisect(self._points, point)
            self._points.insert(at, point)
            self._owners.insert(at, url)

    def remove(self, url: str) -> None:
        if url not in self._replicas:
            raise InputError(f"replica {url!r} is not on the ring; it has {self._replicas}")
        self._replicas.remove(url)
        kept = [(p, o) for p, o in zip(self._points, self._owners, strict=True) if o != url]
        self._points = [p for p, _ in kept]
        self._owners = [o for _, o in kept]

    def order(self, key: str) -> list[str]:
        """Every replica once, in ring order from `key`'s position: home first, then failovers."""
        if not self._points:
            return []
        start = bisect.bisect(self._points, _point(key))
        seen: list[str] = []
        for i in range(len(self._points)):
            owner = self._owners[(start + i) % len(self._points)]
            if owner not in seen:
                seen.append(owner)
                if len(seen) == len(self._replicas):
                    break
        return seen


@dataclass(frozen=True, slots=True, kw_only=True)
class FleetResponse:
    """
    The answer (`body`: parsed JSON, or the text when the reply is not JSON, as an SSE stream),
    the replica that gave it, and every failed attempt before it (url, why).
    """

    url: str
    status: int
    body: Any
    headers: Mapping[str, str]
    failed: tuple[tuple[str, str], ...] = ()


class FleetError(PromptCacheError, RuntimeError):
    """No replica could answer."""


class Fleet:
    """
    Sends JSON requests to the replica that holds the key's prefix, failing over along the ring.

        fleet = Fleet(["http://10.0.0.1:8000", "http://10.0.0.2:8000"])
        answer = fleet.post("/v1/chat/completions", body, key=routing_key(prompt, salt=salt))

    Thread-safe: in-flight counts and replica health are shared by all callers.
    """

    def __init__(
        self,
        replicas: Iterable[str],
        *,
        load_factor: float = 1.25,
        vnodes: int = 100,
        timeout: float = 300.0,
        retry_after: float = 5.0,
    ) -> None:
        if not 1.0 <= load_factor < math.inf:
            raise InputError(f"load_factor must be at least 1.0 and finite, got {load_factor}")
        if not 0 < timeout < math.inf:
            raise InputError(f"timeout must be positive, finite seconds, got {timeout!r}")
        if not 0 <= retry_after < math.inf:
            raise InputError(
                f"retry_after must be finite seconds, 0 or more (0: probe on every request), "
                f"got {retry_after!r}"
            )
        self._ring = HashRing((u.rstrip("/") for u in replicas), vnodes=vnodes)
        self._load_factor = load_factor
        self._timeout = timeout
        self._retry_after = retry_after
        self._in_flight: dict[str, int] = dict.fromkeys(self._ring.replicas, 0)
        self._down_since: dict[str, float] = {}
        self._lock = threading.Lock()

    @property
    def replicas(self) -> tuple[str, ...]:
        return self._ring.replicas

    @property
    def down(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._down_since)

    def add(self, url: str) -> None:
        """A new replica takes over about 1/N of the keys."""
        with self._lock:
            self._ring.add(url.rstrip("/"))
            self._in_flight[url.rstrip("/")] = 0

    def remove(self, url: str) -> None:
        """A retired replica's keys move to their next replica on the ring."""
        with self._lock:
            self._ring.remove(url.rstrip("/"))
            self._in_flight.pop(url.rstrip("/"), None)
            self._down_since.pop(url.rstrip("/"), None)

    def candidates(self, key: str) -> list[str]:
        """Replicas to try for `key`, in ring order: those under the load bound first."""
        with self._lock:
            return self._ranked(key)

    def replica_for(self, key: str) -> str:
        """Where the next request for `key` would go first."""
        found = self.candidates(key)
        if not found:
            raise FleetError(
                f"no replica is up; {len(self.replicas)} configured, all down and not yet due "
                f"for a /health retry (every {self._retry_after:g} s)"
            )
        return found[0]

    def _ranked(self, key: str) -> list[str]:
        """The up replicas in ring order, those under the load bound first (lock held)."""
        up = [u for u in self._ring.order(key) if u not in self._down_since]
        bound = self._bound(len(up))
        light = [u for u in up if self._in_flight[u] < bound]
        return light + [u for u in up if u not in light]

    def _bound(self, healthy: int) -> int:
        total = sum(n for u, n in self._in_flight.items() if u not in self._down_since)
        return max(1, math.ceil(self._load_factor * (total + 1) / max(healthy, 1)))

    def revive(self) -> tuple[str, ...]:
        """Probe `/health` on down replicas due for a retry; those that answer take keys back."""
        with self._lock:
            now = time.monotonic()
            due = [u for u, t in self._down_since.items() if now - t >= self._retry_after]
        back = tuple(u for u in due if health(u))
        with self._lock:
            for url in due:
                if url in back:
                    self._down_since.pop(url, None)
                elif url in self._down_since:
                    self._down_since[url] = time.monotonic()
        return back

    def post(
        self,
        path: str,
        body: Mapping[str, Any],
        *,
        key: str,
        headers: Mapping[str, str] | None = None,
    ) -> FleetResponse:
        """POST `body` as JSON; on a dead or overloaded replica, the next one on the ring."""
        payload = orjson.dumps(body)
        failed: list[tuple[str, str]] = []
        self.revive()
        while (url := self._reserve(key, {u for u, _ in failed})) is not None:
            outcome = self._attempt(url, path, payload, headers or {})
            if isinstance(outcome, str):
                self._mark_down(url)
                failed.append((url, outcome))
                continue
            status, data, reply_headers = outcome
            return FleetResponse(
                url=url, status=status, body=data, headers=reply_headers, failed=tuple(failed)
            )
        down = ", ".join(u for u in self.down if u not in dict(failed))
        tried = "; ".join(f"{u}: {why}" for u, why in failed) or "no replica is up"
        if down:
            tried += f" (down, retried after {self._retry_after:g} s: {down})"
        raise FleetError(f"no replica answered {path}: {tried}")

    def _reserve(self, key: str, tried: set[str]) -> str | None:
        """Pick the replica and count the request in flight in one step, so that concurrent
        requests for a hot key see each other and spill past the bound."""
        with self._lock:
            pick = next((u for u in self._ranked(key) if u not in tried), None)
            if pick is not None:
                self._in_flight[pick] += 1
            return pick

    def _attempt(
        self, url: str, path: str, payload: bytes, headers: Mapping[str, str]
    ) -> tuple[int, Any, dict[str, str]] | str:
        request = urllib.request.Request(
            f"{url}{path}",
            data=payload,
            headers={"Content-Type": "application/json", **headers},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                # A reply that is not JSON (an SSE stream) is still an answer, not a dead replica.
                return int(response.status), _json_or_text(response.read()), dict(response.headers)
        except urllib.error.HTTPError as exc:
            if exc.code in _RETRYABLE_STATUS:
                return f"HTTP {exc.code}"
            return exc.code, _json_or_text(exc.read()), dict(exc.headers)
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            return f"{type(exc).__name__}: {reason}"
        finally:
            with self._lock:
                if url in self._in_flight:
                    self._in_flight[url] -= 1

    def _mark_down(self, url: str) -> None:
        with self._lock:
            if url in self._in_flight:
                self._down_since[url] = time.monotonic()


def health(url: str, timeout: float = 2.0) -> bool:
    """True when `GET {url}/health` answers 200 (vLLM, SGLang and llama.cpp all serve it)."""
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=timeout) as response:
            return int(response.status) == 200
    except (urllib.error.URLError, OSError):
        return False


def _json_or_text(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw.decode("utf-8", "replace")
