"""
What the observing path may let out of the process. Prompts are personal data: a value is named by
its path, type, length and a short hash, never quoted; a cache key leaves verbatim only when it
looks like an opaque identifier (a session id, a UUID, the default `vendor:model` key), else as a
short hash. Both hashes are SHA-256 (`_errors.digest`), keyed (HMAC) with $PROMPTCACHE_HASH_KEY
when it is set, so the same value gives the same hash in logs, spans, the recorder's log and
Redis, and equal values can be matched across them; without the key, a list of candidate values
(e-mail addresses) can be hashed and matched too, with it only by whoever holds the key.
"""

from __future__ import annotations

import re

from .._errors import describe, digest, private_path, short_hash
from ..vendors import VENDOR_NAMES

__all__ = ["describe", "export_key", "looks_opaque", "private_path", "short_hash", "stored_key"]

# Identifiers that carry no name: a UUID; hex of 12+ with a letter in it (pure digit runs may
# be phone numbers); a generic word, a separator and digits ("session-42", "tenant_7": the word
# is one of ours, a name is not); a typed random id, a short word, "_" and 8+ letters and digits
# with 2+ of each ("sess_8f3kQ2ab"); the monitor's default key, a vendor name and a model.
# Anything else is hashed: an e-mail address, a name, a phone number, a user name, and a name
# with digits or a separator ("zebulon.quackenbush", "quackenbush_42", "zebulon-1985"): a rule
# that lets an id through by its shape cannot tell a name from a word.
_GENERIC_WORDS = (
    "session|sess|tenant|conversation|conv|chat|thread|request|req|job|run|batch|worker|task"
    "|team|project|app|env|test|demo|agent|bot|workspace|shard|replica|node|pod|group|trace"
)
_OPAQUE = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|(?=[0-9a-f]*[a-f])[0-9a-f]{12,64}"
    r"|(?:" + _GENERIC_WORDS + r")[-_:.#][0-9]{1,12}"
    r"|[a-z]{2,12}_(?=(?:[a-z0-9]*[a-z]){2})(?=(?:[a-z0-9]*[0-9]){2})[a-z0-9]{8,64}"
    r"|key:[0-9a-f]{12}(?:[0-9a-f]{20})?"  # hashed already (export_key, stored_key)
    r"|(" + "|".join(re.escape(name) for name in VENDOR_NAMES) + r")"
    r":[a-z0-9][a-z0-9._/:-]{0,120}",
    re.IGNORECASE,
)


# A typed random id's prefix: one of our generic words, or an API's own id prefix. Any other
# word before the `_` ("zebulon_quack4242", "anna_smith1985") may be a name: hashed.
_TYPED_PREFIXES = re.compile(
    r"(?:" + _GENERIC_WORDS + r"|asst|call|chatcmpl|cus|file|msg|org|resp|sub|txn)_",
    re.IGNORECASE,
)
_TYPED = re.compile(r"[a-z]{2,12}_[a-z0-9]{8,64}", re.IGNORECASE)
_HEX = re.compile(r"[0-9a-f]{12,64}", re.IGNORECASE)
# A run of three or more letters with a vowel in it, in an id's random part, may spell a name
# ("quack4242", "smith1985"): random ids seldom hold one, and one that does is only hashed.
_WORDLIKE = re.compile(r"[a-z]*[aeiouy][a-z]*", re.IGNORECASE)


def looks_opaque(key: str) -> bool:
    """Whether `key` looks like an identifier with no personal data in it (see the module)."""
    if not _OPAQUE.fullmatch(key):
        return False
    if _TYPED.fullmatch(key) and not _HEX.fullmatch(key):
        prefix = _TYPED_PREFIXES.match(key)
        return prefix is not None and not _spells(key[prefix.end() :])
    if _HEX.fullmatch(key):
        return not _spells(key)  # "deadbeefcafe": words, not random digits
    return True


def _spells(text: str) -> bool:
    return any(len(run) >= 3 for run in _WORDLIKE.findall(text))


def export_key(key: str) -> str:
    """`key` as it may leave the process: itself when opaque, else `key:` and its short hash."""
    return key if looks_opaque(key) else f"key:{short_hash(key)}"


def stored_key(key: str) -> str:
    """
    `key` as a shared store names it: as `export_key`, but hashed to 128 bits (32 hex digits, the
    first 12 of them `short_hash`'s). A log line only names a key; a store judges by it, and two
    keys whose 48-bit hashes collide would be judged against each other's states.
    """
    if looks_opaque(key):
        return key
    return f"key:{digest(key)[:32]}"
