"""`printable`: text that is data, made safe to write to a terminal or into one log line."""

from __future__ import annotations

__all__ = ["printable"]


def printable(text: str) -> str:
    """
    `text` with control characters escaped (`\\x1b`, `\\n`): text from a log or a request (a tool
    result holding a fetched page) is data, and raw escape sequences would drive the terminal it
    is printed on, a raw newline would forge a line of a log.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
