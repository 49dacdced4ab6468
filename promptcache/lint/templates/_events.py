"""
What a walk produces: the events the engine reads (token counts, `Unsized`, `Hazard`, the `TAIL`
and `HISTORY` markers) and the `Note`s of what could not be checked (PC002).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Union

from ..._tokens import DEFAULT_COUNTER

__all__ = [
    "BRANCHES",
    "BRANCHES_END",
    "HISTORY",
    "OR_BRANCH",
    "TAIL",
    "TAIL_NAME",
    "Event",
    "Hazard",
    "Note",
    "Pin",
    "Sentinel",
    "Unsized",
    "count_tokens",
]

TAIL_NAME = "__pc_tail__"
count_tokens = DEFAULT_COUNTER.count


class Sentinel(enum.Enum):
    TAIL = "tail"
    HISTORY = "history"
    BRANCHES = "branches"
    OR_BRANCH = "or"
    BRANCHES_END = "end"


TAIL = Sentinel.TAIL
HISTORY = Sentinel.HISTORY
# An `{% if %}` with more than one branch that renders: one request renders one of them, so the
# text of the others never follows a value written in this one. `BRANCHES` opens the branches,
# `OR_BRANCH` separates them, `BRANCHES_END` closes them.
BRANCHES = Sentinel.BRANCHES
OR_BRANCH = Sentinel.OR_BRANCH
BRANCHES_END = Sentinel.BRANCHES_END


@dataclass(frozen=True, slots=True)
class Hazard:
    """
    A per-request value at `line` of `origin`; `anchor` is the text that locates the column.

    `cause` and `cause_line` name where the value comes from (a `{% set %}` chain is reported
    by its origin, not link by link); `fix` replaces the rule's fix text when the template
    itself decides which fix applies (a date the request can pin, or one it cannot).
    """

    code: str
    line: int
    anchor: str
    detail: str
    origin: str
    cause: str = ""
    cause_line: int = 0
    fix: str = ""
    written: int = 0  # the line of this file where a macro writes the value (0: `line`)
    conversation: bool = False  # a system prompt's clock: the conversation follows it
    # who is asking, the session: fixed for a conversation, so the conversation after it is
    # that one conversation's own and costs nothing
    per_conversation: bool = False
    # a `{field}` on a line of its own in a prompt file written for str.format: a section of data
    # the call that sends the text fills (PC106 asks for a shorter block after it)
    placeholder: bool = False
    # a section of data: a value of unknown meaning that its heading, label line or name says is
    # the material the prompt works on (PC106 asks for one block of `threshold` after it)
    data: bool = False
    # a branch or loop (PC103): the name of the per-request value its test reads (`question` of
    # `{% if question %}`), so what follows it is judged as what follows that value
    about: str = ""

    def origin_of(self) -> tuple[str, int]:
        """What the value was computed from, and on which line."""
        return (self.cause or self.detail, self.cause_line or self.line)


@dataclass(frozen=True, slots=True)
class Unsized:
    """
    Rendered content that is the same on every request, of a size the linter cannot know.

    `field`: it is written after a label on its line (`Users online: {{ count }}`), the shape of
    one field of the request's data rather than of a block of reusable content.
    """

    name: str
    field: bool = False


@dataclass(frozen=True, slots=True)
class Pin:
    """
    The start (or `end`) of an `{% if %}` branch that renders only when each of `names` equals
    one literal (`{% if kind == 'flights' %}`): its content follows one value of each name, so
    it is cached with that value, whichever value the next request has.
    """

    names: frozenset[str]
    end: bool = False


@dataclass(frozen=True, slots=True)
class Note:
    """Something the linter could not check (a missing include, a dynamic name), for PC002."""

    line: int
    message: str


Event = Union[int, Hazard, Unsized, Sentinel, Pin]  # noqa: UP007 - a runtime alias on Python 3.10
