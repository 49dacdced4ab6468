"""
Exceptions and warnings raised by promptcache.

    PromptCacheError                     base of everything promptcache raises on purpose
    ├── CanonicalError (also TypeError)  a value cannot be serialised deterministically
    ├── VolatileContentError             volatile-looking text in a stable layer (policy="error")
    ├── MissingDependencyError           an optional extra is not installed (also ImportError)
    └── InputError (also ValueError)     a request, file or argument has the wrong shape

    VolatileContentWarning (UserWarning) volatile-looking text in a stable layer (policy="warn")

Every message says what was wrong, the offending value or path, and how to fix it.
"""

from __future__ import annotations

__all__ = [
    "CanonicalError",
    "InputError",
    "MissingDependencyError",
    "PromptCacheError",
    "VolatileContentError",
    "VolatileContentWarning",
]


class PromptCacheError(Exception):
    """Base class for every error promptcache raises on purpose."""


class CanonicalError(PromptCacheError, TypeError):
    """A value cannot be rendered to canonical JSON; `path` names where it sits."""

    def __init__(self, path: str, problem: str, fix: str) -> None:
        self.path = path
        self.problem = problem
        self.fix = fix
        super().__init__(f"{path}: {problem}. Fix: {fix}")


class InputError(PromptCacheError, ValueError):
    """A request, file or argument does not have the shape promptcache expects."""


class MissingDependencyError(PromptCacheError, ImportError):
    """An optional dependency is missing; the message holds the pip command that adds it."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        self.package = package
        self.extra = extra
        super().__init__(
            f"{purpose} needs the `{package}` package, which is not installed. "
            f"Install it with: pip install 'promptcache[{extra}]'"
        )


class VolatileContentWarning(UserWarning):
    """Text in a stable layer looks like it changes per request (a timestamp, a UUID, a nonce)."""


class VolatileContentError(PromptCacheError, ValueError):
    """Raised instead of `VolatileContentWarning` when the volatile policy is "error"."""
