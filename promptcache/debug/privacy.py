"""
What the observing path may let out of the process. Prompts are personal data: a value is named by
its path, type, length and a short hash, never quoted; a cache key leaves verbatim only when it
looks like an opaque identifier (a session id, a UUID, the default `vendor:model` key), else as a
short hash. Both hashes are SHA-256, unsalted, so the same value gives the same hash in logs,
spans and the recorder's log, and equal values can be matched across them.
"""

from __future__ import annotations

import hashlib
import re

from .._errors import describe, private_path, short_hash
from ..vendors import VENDOR_NAMES

__all__ = ["describe", "export_key", "looks_opaque", "private_path", "short_hash", "stored_key"]

# Identifiers that carry no name: a UUID; hex of 12+ with a letter in it (pure digit runs may
# be phone numbers); a word, a separator and at most six digits ("session-42", "tenant_7"; a
# word run into digits, "zebulon1985", is a user name as often as an id); a typed random id
# of letters and digits ("sess_8f3kQ2"); the monitor's default key, a vendor name and a model.
# Anything else (an e-mail address, a name, a phone number, a user name) is hashed.
_OPAQUE = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|(?=[0-9a-f]*[a-f])[0-9a-f]{12,64}"
    r"|[a-z]{1,24}[-_:.#][0-9]{1,6}"
    r"|[a-z]{2,12}_(?=[a-z0-9]*[a-z])(?=[a-z0-9]*[0-9])[a-z0-9]{6,64}"
    r"|(" + "|".join(re.escape(name) for name in VENDOR_NAMES) + r")"
    r":[a-z0-9][a-z0-9._/:-]{0,120}",
    re.IGNORECASE,
)


def looks_opaque(key: str) -> bool:
    """Whether `key` looks like an identifier with no personal data in it (see the module)."""
    return bool(_OPAQUE.fullmatch(key))


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
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return f"key:{digest[:32]}"
