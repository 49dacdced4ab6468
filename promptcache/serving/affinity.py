"""
Prefix-affinity keys: which requests should land on the same replica, as a hash, and how to hand
that key to the router in front of a fleet.

An engine's prefix cache is local to one replica. Requests that share a stable prefix (tools,
system, documents) hit only if they reach the replica that already holds it, so the routing key
is a hash of that prefix, salted per tenant so two tenants with the same prompt never share a key
(or, through `cache_salt`, a cache entry). Nothing here carries prompt text.

How each router reads the key (checked against their sources and docs, 2026-11):

- vLLM production-stack router, `--routing-logic session --session-key <name>`: reads the request
  header `<name>` (or a body field of that name) and places it on a consistent-hash ring.
- SGLang Model Gateway, `--policy consistent_hashing` (or `manual` for strict stickiness): reads
  the `X-SMG-Routing-Key` header. Its default `cache_aware` policy matches prompt text itself.
- llm-d inference scheduler: its prefix-cache scorers hash the prompt itself, so there is no key
  to send; its `session-affinity-scorer` pins by the `llm-d-session` cookie it sets on the first
  response, which the client must send back. `RouterAffinity` keeps that cookie per key.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Literal

from .._errors import InputError
from .._prompt import Prompt, Rendered

__all__ = ["ROUTERS", "Router", "RouterAffinity", "routing_key", "tenant_salt"]

Router = Literal["vllm-router", "sglang-gateway", "llm-d"]
ROUTERS: tuple[Router, ...] = ("vllm-router", "sglang-gateway", "llm-d")
_SALT_CONTEXT = b"promptcache cache_salt v1"
_KEY_CONTEXT = b"promptcache routing key v1"
_MIN_SECRET_BYTES = 16
_SGLANG_HEADER = "X-SMG-Routing-Key"
_LLMD_COOKIE = "llm-d-session"


def tenant_salt(secret: str | bytes) -> str:
    """
    A tenant's `cache_salt`: HMAC-SHA256 of a fixed context under the tenant's secret, as 43
    URL-safe base64 characters (vLLM accepts at most 128, without '/', '@', '\\' or NUL). The
    secret itself never leaves the process; the same secret always gives the same salt, so a
    tenant's requests share their cache across processes and restarts.
    """
    raw = secret.encode() if isinstance(secret, str) else secret
    if not isinstance(raw, bytes) or len(raw) < _MIN_SECRET_BYTES:
        raise InputError(
            f"a tenant secret must be at least {_MIN_SECRET_BYTES} bytes (a str or bytes), got "
            f"{len(raw) if isinstance(raw, bytes) else type(secret).__name__}; use e.g. "
            "secrets.token_bytes(32) per tenant and keep it with the tenant's other secrets"
        )
    digest = hmac.new(raw, _SALT_CONTEXT, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def routing_key(
    prompt: Prompt | Rendered, *, salt: str | None = None, session: str | None = None
) -> str:
    """
    The key that sends a request to the replica holding its prefix: a hash of the static prefix
    (tools, system, docs: what every turn repeats), the tenant's `salt` and, when given, a
    `session` id. Without a session every request sharing the static prefix gets one key; with
    one, a conversation's turns (whose history only their replica holds) stay together while
    sessions spread over the fleet. 32 hex characters; never prompt text.
    """
    rendered = prompt.render() if isinstance(prompt, Prompt) else prompt
    static = rendered.static
    if not static:
        raise InputError(
            "the prompt has no tools, system or docs: there is no stable prefix to route by; "
            "route by session (routing_key needs a Prompt with a static layer)"
        )
    h = hashlib.sha256(_KEY_CONTEXT)
    for part in (salt or "", session or ""):
        h.update(len(part).to_bytes(4, "big") + part.encode())
    h.update(static[-1].hash)
    return h.hexdigest()[:32]


class RouterAffinity:
    """
    Carries a routing key to a real router the way that router reads it.

    `headers(key)` gives the request headers to add (pass them as `extra_headers=` to the OpenAI
    SDK). For llm-d, call `remember(key, response_headers)` after each response so the
    `llm-d-session` cookie the scheduler set is sent back with the key's next request; at most
    `max_keys` keys are kept, least recently used first out.
    """

    def __init__(
        self, router: Router, *, session_header: str = "x-session-id", max_keys: int = 100_000
    ) -> None:
        if router not in ROUTERS:
            raise InputError(f"router must be one of {', '.join(ROUTERS)}, got {router!r}")
        if not session_header or any(c in session_header for c in " :\r\n"):
            raise InputError(f"session_header must be an HTTP header name, got {session_header!r}")
        self.router = router
        self.session_header = session_header
        self._cookies: OrderedDict[str, str] = OrderedDict()
        self._max = max_keys
        self._lock = threading.Lock()

    def headers(self, key: str) -> dict[str, str]:
        if self.router == "vllm-router":
            return {self.session_header: key}
        if self.router == "sglang-gateway":
            return {_SGLANG_HEADER: key}
        with self._lock:
            cookie = self._cookies.get(key)
            if cookie is not None:
                self._cookies.move_to_end(key)
        return {"Cookie": f"{_LLMD_COOKIE}={cookie}"} if cookie else {}

    def remember(self, key: str, response_headers: Mapping[str, str]) -> None:
        """Keep the `llm-d-session` cookie an llm-d gateway set for `key` (no-op elsewhere)."""
        if self.router != "llm-d":
            return
        value = _cookie_value(response_headers)
        if value is None:
            return
        with self._lock:
            self._cookies[key] = value
            self._cookies.move_to_end(key)
            while len(self._cookies) > self._max:
                self._cookies.popitem(last=False)


def _cookie_value(headers: Mapping[str, str]) -> str | None:
    for name, value in headers.items():
        if name.lower() != "set-cookie":
            continue
        for line in value.split("\n"):
            first = line.split(";", 1)[0].strip()
            if first.startswith(f"{_LLMD_COOKIE}="):
                return first.split("=", 1)[1]
    return None
