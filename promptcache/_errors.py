"""
Exceptions and warnings raised by promptcache.

    PromptCacheError                     base of everything promptcache raises on purpose
    ├── CanonicalError (also TypeError)  a value cannot be serialised deterministically
    ├── VolatileContentError             volatile-looking text in a stable layer (policy="error")
    ├── MissingDependencyError           an optional extra is not installed (also ImportError)
    └── InputError (also ValueError)     a request, file or argument has the wrong shape

    VolatileContentWarning (UserWarning) volatile-looking text in a stable layer (policy="warn")

    InternalError                        a bug met while working on something the user named (a
                                         file): the CLI's exit 3, naming it beside the cause

Every message says what was wrong, the offending value or path, and how to fix it.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import re
import sys
from typing import Any

import orjson

__all__ = [
    "CanonicalError",
    "InputError",
    "InternalError",
    "MissingDependencyError",
    "PromptCacheError",
    "VolatileContentError",
    "VolatileContentWarning",
    "check_hash_key",
    "describe",
    "json_kind",
    "private_path",
    "short_hash",
    "shown",
    "shown_keys",
    "shown_name",
]


class PromptCacheError(Exception):
    """Base class for every error promptcache raises on purpose."""


class CanonicalError(PromptCacheError, TypeError):
    """
    A value cannot be rendered to canonical JSON; `path` names where it sits. The message shows
    the path with any object key that is not a name hashed (`private_path`), and never a value
    (prompts are personal data); `path` keeps the keys as they are, for the program.
    """

    def __init__(self, path: str, problem: str, fix: str) -> None:
        self.path = path
        self.problem = problem
        self.fix = fix
        super().__init__(f"{private_path(path)}: {problem}. Fix: {fix}")


class InputError(PromptCacheError, ValueError):
    """A request, file or argument does not have the shape promptcache expects."""


class MissingDependencyError(PromptCacheError, ImportError):
    """An optional dependency is missing; the message holds the pip command that adds it."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        self.package = package
        self.extra = extra
        needs = _NEEDS_PYTHON.get(package)
        if needs is not None and sys.version_info < needs:
            fix = (
                f"the releases promptcache supports need Python {needs[0]}.{needs[1]} or newer, "
                f"and this is Python {sys.version_info[0]}.{sys.version_info[1]}"
            )
        else:
            fix = f"Install it with: pip install 'promptcache-sdk[{extra}]'"
        super().__init__(f"{purpose} needs the `{package}` package, which is not installed; {fix}")


# Optional packages whose supported releases need a newer Python than promptcache itself: their
# extra installs nothing on an older one (see the markers in pyproject.toml).
_NEEDS_PYTHON = {"google-genai": (3, 11)}


class InternalError(Exception):
    """
    Not a PromptCacheError: a bug (its `__cause__`) met while `doing` something the user asked
    for ("linting 'agent.py'"), which the CLI's internal-error line names, so that a report
    says which input broke the tool and the user can leave it out meanwhile.
    """

    def __init__(self, doing: str) -> None:
        self.doing = doing
        super().__init__(f"a bug in promptcache while {doing}")


class VolatileContentWarning(UserWarning):
    """Text in a stable layer looks like it changes per request (a timestamp, a UUID, a nonce)."""


class VolatileContentError(PromptCacheError, ValueError):
    """Raised instead of `VolatileContentWarning` when the volatile policy is "error"."""


# A secret that keys every hash of personal data (HMAC-SHA-256): without it, a hash of an
# e-mail address can be matched against a list of candidate addresses; with it, only by whoever
# holds the secret. Read at each hash, so a process that sets it late still uses it.
HASH_KEY_ENV = "PROMPTCACHE_HASH_KEY"


# 16 characters of a random secret are far past guessing; fewer is most likely a placeholder,
# and an HMAC under a guessable key protects nothing while looking as if it did.
MIN_HASH_KEY_CHARS = 16


def check_hash_key() -> None:
    """Raise `InputError` when $PROMPTCACHE_HASH_KEY is set but too short to be a secret."""
    secret = os.environ.get(HASH_KEY_ENV)
    if secret and len(secret) < MIN_HASH_KEY_CHARS:
        raise InputError(
            f"${HASH_KEY_ENV} is {len(secret)} characters long; a hash key needs at least "
            f"{MIN_HASH_KEY_CHARS} (make one with: python -c 'import secrets; "
            f"print(secrets.token_hex(32))'), or unset {HASH_KEY_ENV} for plain SHA-256"
        )


def digest(text: str | bytes) -> str:
    """
    The hex SHA-256 of `text` (UTF-8), or its HMAC-SHA-256 under $PROMPTCACHE_HASH_KEY when that
    is set: the one hash of every value and key promptcache names without quoting.
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    secret = os.environ.get(HASH_KEY_ENV)
    if secret:
        check_hash_key()
        return hmac.new(secret.encode("utf-8", "surrogatepass"), data, hashlib.sha256).hexdigest()
    return hashlib.sha256(data).hexdigest()


def short_hash(text: str | bytes) -> str:
    """The first 12 hex digits of `digest(text)`: the hash every message, log record, span and
    the recorder's placeholders give a value, so equal values can be matched."""
    return digest(text)[:12]


def describe(value: Any) -> str:
    """
    A value as its type, length and short hash, `str of 42 chars, sha256 3f2a…`: enough to find
    it, never its text (prompts are personal data; every message that would quote a request
    value names it this way). A number is shown as itself (`float nan`), None as "nothing", other
    objects by type, size and the hash of their repr, when they have one that does not fail.
    """
    if value is None:
        return "nothing"
    if isinstance(value, (bool, int, float)):  # a number is no text: shown as it is
        return f"{type(value).__name__} {value!r}"
    if isinstance(value, str):
        return f"str of {len(value)} chars, sha256 {short_hash(value)}"
    if isinstance(value, (bytes, bytearray)):
        return f"{type(value).__name__} of {len(value)}, sha256 {short_hash(bytes(value))}"
    try:
        size = f" of {len(value)} items"
    except Exception:  # no len(), or a broken one
        size = ""
    try:
        digest = f", sha256 {short_hash(repr(value))}"
    except Exception:  # a repr that fails: the type and size are all we say
        digest = ""
    return f"{type(value).__name__}{size}{digest}"


def shown(value: Any) -> str:
    """
    How an error shows a value it refuses: numbers, booleans and None (and short lists of them)
    as JSON, since they carry no prompt text; anything else by `describe`.
    """
    if _textless(value, 2):
        text = _json_text(value)
        if len(text) <= 60:
            return text
    return describe(value)


_JSON_KINDS = {"NoneType": "null", "bool": "boolean", "int": "number", "float": "number"}
_JSON_KINDS |= {"str": "string", "list": "list", "tuple": "list", "dict": "object"}


def json_kind(value: Any) -> str:
    """A parsed JSON value's type in JSON's words (`null`, `number`), not Python's (`NoneType`)."""
    return _JSON_KINDS.get(type(value).__name__, type(value).__name__)


def _json_text(value: Any) -> str:
    """JSON of a textless value, a NaN or infinity by its own name (orjson writes it `null`)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(map(_json_text, value)) + "]"
    return orjson.dumps(value).decode()


def _textless(value: Any, depth: int) -> bool:
    if value is None or isinstance(value, (bool, int, float)):
        return True
    if isinstance(value, (list, tuple)) and depth > 0 and len(value) <= 16:
        return all(_textless(item, depth - 1) for item in value)
    return False


# A field, role, part type or vendor name as APIs write them: snake_case, kebab-case, dotted or
# camelCase, led by a lowercase letter or '_' (`tool_use`, `inlineData`, `gen_ai.system`). A word
# led by a capital ("Alice", "Hello") is how a person's name or a sentence starts, not an API name.
_NAME = re.compile(r"[a-z_][A-Za-z0-9_.:-]{0,39}")


def shown_name(value: Any) -> str:
    """A name an error refers to (a vendor, a field): quoted when it reads as an API identifier,
    else by `shown` (a misplaced value may be anything: a person's name, one word of a prompt)."""
    return repr(value) if isinstance(value, str) and _NAME.fullmatch(value) else shown(value)


def shown_keys(mapping: Any, limit: int = 8) -> str:
    """A mapping's keys for an error: up to `limit` that read as API identifiers, quoted, and how
    many others there are (a key of a misread object is data, and may be prompt text)."""
    names = [k for k in mapping if isinstance(k, str) and _NAME.fullmatch(k)]
    others = len(mapping) - len(names[:limit])
    parts = [repr(k) for k in names[:limit]]
    if others:
        parts.append(f"{others} other{'s' if others > 1 else ''}")
    return ", ".join(parts) if parts else "none"


# An object key in a path: quoted when it is not an identifier (`properties["a b"]`), else after
# a dot (`properties.city`). A quoted key is consumed whole, so a dot inside it is no segment.
_KEY_SEGMENT = re.compile(r'\[("(?:[^"\\]|\\.)*")\]|\.([^\W\d]\w*)')
# A key that reads as a field name, written as APIs write them (the rule of `shown_name`): led by
# a lowercase ASCII letter or '_'; or a small number (an index kept as a key; a longer run of
# digits may be a phone number). A capitalised word ("Alice") or any other key may be data.
_KEY_NAME = re.compile(r"[a-z_][\w.:/-]{0,39}|[0-9]{1,6}", re.ASCII)


def private_path(path: str) -> str:
    """
    `path` as it may leave the process: an object key that does not read as a field name (a
    capitalised word, spaces, an '@', long) is data, maybe a person's, and is shown as its short
    hash, `properties["#3f2a9c01b7d4#"]`.
    """

    def segment(found: re.Match[str]) -> str:
        quoted, bare = found.groups()
        key = orjson.loads(quoted) if quoted is not None else bare
        return found.group(0) if _KEY_NAME.fullmatch(key) else f'["#{short_hash(key)}#"]'

    return _KEY_SEGMENT.sub(segment, path)
