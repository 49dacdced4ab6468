"""
`RedisStore`: the monitor's per-key state in Redis (or Valkey), shared by every process of a fleet.

Per cache key Redis holds a sorted set of the key's last few states, scored by the time each
request was sent, and a set of the once-per-key causes already reported. One Lua script puts a
state in and answers, atomically and in one round trip, with the latest state sent before it, the
number sent at the very same moment, and the causes said. Both keys expire with the longest TTL
the key's requests asked for plus `slack_seconds`. Every call is bounded by the client's socket
timeouts and guarded by a circuit breaker; a failure raises `StoreUnavailable`, and the monitor
then judges in-process.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .._errors import InputError, MissingDependencyError
from .memory import Entry
from .privacy import stored_key
from .store import (
    STATE_FORMAT,
    CircuitBreaker,
    Exchange,
    StoreUnavailable,
    decode_entry,
    encode_entry,
)

__all__ = ["RedisStore"]

# KEYS: the states (zset), the causes said (set). ARGV: sent, state, states kept, expiry ms.
_EXCHANGE = """
local sent = ARGV[1]
local previous = redis.call('ZREVRANGEBYSCORE', KEYS[1], '(' .. sent, '-inf', 'LIMIT', 0, 1)
local same = redis.call('ZCOUNT', KEYS[1], sent, sent)
redis.call('ZADD', KEYS[1], sent, ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[3]) + 1))
local ms = tonumber(ARGV[4])
if redis.call('PTTL', KEYS[1]) < ms then redis.call('PEXPIRE', KEYS[1], ms) end
local said = redis.call('SMEMBERS', KEYS[2])
return {previous[1] or false, same, said}
"""

# KEYS: the states. ARGV: sent, the old state, the new state, expiry ms.
_AMEND = """
if redis.call('ZREM', KEYS[1], ARGV[2]) == 1 then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
end
return 1
"""

# KEYS: the causes said. ARGV: the cause, expiry ms.
_FIRST_TIME = """
local added = redis.call('SADD', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return added
"""


class RedisStore:
    """
    Monitor state in Redis: `Monitor(store=RedisStore.from_url("redis://host:6379/0"))`.

    `keep_states` states per key are kept (older requests that finish late are judged against the
    state before them). Bodies are not stored unless `keep_bodies=True`, and then only those of at
    most `max_body_bytes` bytes of JSON (larger ones keep their hashes only); they expire with
    the key. After `failures` failed calls in a row the circuit opens for `cooldown` seconds.
    """

    def __init__(
        self,
        client: Any,
        *,
        prefix: str = "promptcache:",
        keep_states: int = 4,
        slack_seconds: float = 900.0,
        keep_bodies: bool = False,
        max_body_bytes: int = 256 * 1024,
        failures: int = 3,
        cooldown: float = 5.0,
    ) -> None:
        if keep_states < 1 or slack_seconds < 0 or max_body_bytes < 0 or failures < 1:
            raise InputError(
                "keep_states and failures must be >= 1, slack_seconds and max_body_bytes >= 0; "
                f"got {keep_states}, {failures}, {slack_seconds} and {max_body_bytes}"
            )
        if cooldown <= 0:
            raise InputError(f"cooldown must be > 0 seconds, got {cooldown}")
        self.client = client
        self.prefix = prefix
        self.keep_states = keep_states
        self.slack_seconds = slack_seconds
        self.body_limit = max_body_bytes if keep_bodies else None
        self.breaker = CircuitBreaker(threshold=failures, cooldown=cooldown)
        self._errors = _redis_errors()
        self._where = _address(client)
        self._exchange = client.register_script(_EXCHANGE)
        self._amend = client.register_script(_AMEND)
        self._first_time = client.register_script(_FIRST_TIME)

    @classmethod
    def from_url(cls, url: str, *, timeout: float = 0.25, **options: Any) -> RedisStore:
        """
        A store on the Redis at `url` (`redis://`, `rediss://`, `unix://`). `timeout` bounds
        connecting and every command, in seconds; `options` are `RedisStore`'s.
        """
        redis = _redis()
        if timeout <= 0:
            raise InputError(f"timeout must be > 0 seconds, got {timeout}")
        try:
            client = redis.Redis.from_url(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry_on_timeout=False,
                health_check_interval=0,
            )
        except ValueError as error:
            raise InputError(
                f"not a Redis URL: {_redacted(url)!r} ({_scrubbed(str(error), url)}); "
                "use redis://host:6379/0"
                + (
                    ", with / ? # @ in a password percent-encoded (%2F %3F %23 %40)"
                    if _USER_PASSWORD.search(url)
                    else ""
                )
            ) from None
        return cls(client, **options)

    @property
    def available(self) -> bool:
        return self.breaker.allows()

    def _keys(self, key: str) -> tuple[str, str]:
        # One hash tag per cache key: both keys land on the same Redis Cluster slot. The state
        # format is in the name, so processes of versions whose states differ never read each
        # other's; a key that may be personal data is stored as its hash (`stored_key`).
        base = f"{self.prefix}{STATE_FORMAT}:{{{stored_key(key)}}}"
        return f"{base}:states", f"{base}:said"

    def _call(self, script: Any, keys: list[str], args: list[Any], doing: str) -> Any:
        if not self.breaker.allows():
            raise StoreUnavailable("the Redis circuit is open")
        try:
            answer = script(keys=keys, args=args)
        except self._errors as error:
            self.breaker.failure()
            raise self._unavailable(error, doing) from None
        self.breaker.success()
        return answer

    def _unavailable(self, error: BaseException, doing: str) -> StoreUnavailable:
        # Only the error's type, the server's address and what was asked: a Redis error's text
        # may quote the command's arguments ("unknown command `EVALSHA`, with args beginning
        # with: ..." names the cache key, which may be personal data, and the state), and this
        # message is logged. The address comes from the client's settings, never its URL, which
        # may hold a password.
        return StoreUnavailable(f"{type(error).__name__} from {self._where} while {doing}")

    def exchange(self, key: str, entry: Entry, *, ttl_seconds: float) -> Exchange:
        records = entry.records or ()
        state = encode_entry(entry, records, body_limit=self.body_limit)
        expiry = _milliseconds(ttl_seconds + self.slack_seconds)
        answer = self._call(
            self._exchange,
            list(self._keys(key)),
            [repr(entry.sent_at), state, self.keep_states, expiry],
            "exchanging a key's state",
        )
        previous, same, said = answer
        return Exchange(
            previous=None if previous is None else decode_entry(previous),
            same_time=int(same),
            said=frozenset(_text(s) for s in said),
        )

    def amend(self, key: str, entry: Entry, *, ttl_seconds: float) -> None:
        # The state went in before judging set its counters: that copy is found by its bytes.
        old = encode_entry(
            replace(entry, dry=0, prefix=0), entry.records or (), body_limit=self.body_limit
        )
        new = encode_entry(entry, entry.records or (), body_limit=self.body_limit)
        expiry = _milliseconds(ttl_seconds + self.slack_seconds)
        self._call(
            self._amend,
            [self._keys(key)[0]],
            [repr(entry.sent_at), old, new, expiry],
            "amending a key's state",
        )

    def first_time(self, key: str, cause: str, *, ttl_seconds: float) -> bool:
        expiry = _milliseconds(ttl_seconds + self.slack_seconds)
        return bool(
            self._call(
                self._first_time, [self._keys(key)[1]], [cause, expiry], "noting a cause said"
            )
        )

    def forget(self, key: str) -> None:
        if not self.breaker.allows():
            raise StoreUnavailable("the Redis circuit is open")
        try:
            self.client.delete(*self._keys(key))
        except self._errors as error:
            self.breaker.failure()
            raise self._unavailable(error, "forgetting a key") from None
        self.breaker.success()

    def close(self) -> None:
        self.client.close()


def _address(client: Any) -> str:
    """The server a client talks to, for messages: its host and port, else just "Redis"."""
    pool = getattr(client, "connection_pool", None)
    settings = getattr(pool, "connection_kwargs", None) or {}
    host, port = settings.get("host"), settings.get("port")
    if isinstance(host, str) and isinstance(port, int):
        return f"the Redis at {host}:{port}"
    return "Redis" if "path" not in settings else "the Redis on its unix socket"


# A URL's password: after the user name in its user info, up to the last `@` (a password the
# caller did not percent-encode may hold `/ ? # @`, and that is when the URL fails to parse), or
# a `password=` query argument.
_USER_PASSWORD = re.compile(r"(?<=://)([^/?#@:]*):(.*)@", re.DOTALL)
_QUERY_PASSWORD = re.compile(r"([?&]password=)([^&#]*)", re.IGNORECASE)
_QUOTED = re.compile(r"'([^']+)'")


def _redacted(url: str) -> str:
    """`url` as a message may show it: any password replaced by `***`."""
    return _QUERY_PASSWORD.sub(r"\1***", _USER_PASSWORD.sub(r"\1:***@", url))


def _scrubbed(error: str, url: str) -> str:
    """
    The URL parser's words about `url` without its password: a password with `/ ? #` in it is
    cut there, and the parser quotes the piece it took for the port ("Port could not be cast to
    integer value as 's3cr'") or the host.
    """
    secrets = [m[2] for m in _USER_PASSWORD.finditer(url)] + [
        m[2] for m in _QUERY_PASSWORD.finditer(url)
    ]
    secrets = [s for s in secrets if s]
    for secret in secrets:
        error = error.replace(secret, "***")
    return _QUOTED.sub(lambda m: "'***'" if any(m[1] in s for s in secrets) else m[0], error)


def _milliseconds(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _redis() -> Any:
    try:
        import redis
    except ImportError:
        raise MissingDependencyError(
            "redis", "fleet", "RedisStore (the monitor's shared state)"
        ) from None
    return redis


def _redis_errors() -> tuple[type[BaseException], ...]:
    redis = _redis()
    # Down, slow, loading, out of memory, a read-only replica: whatever Redis answers instead of
    # the state, the monitor judges in-process; nothing of it reaches the caller.
    return (redis.RedisError, OSError)
