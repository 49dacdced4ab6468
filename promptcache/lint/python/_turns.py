"""
What follows a value in a request: the conversation, or only the newest turn.

A volatile value costs what comes after it. With earlier turns after it (spliced history, a
list of unknown length, a chained server-side conversation) the whole conversation is prefilled
again when it changes; with only the newest turn after it (`[system, user]`, one `input=` string)
it loses just the static text that follows it, which the newest turn's own variation would lose
anyway below the threshold. Anything the analysis cannot see the length of counts as history.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._flow import flatten
from ._knowledge import Sink
from ._values import NOT_FOLLOWED, Dep, Piece, Taint, Value

__all__ = [
    "after_unknown",
    "conversation_follows",
    "history_after",
    "opens",
    "pieces_from",
]

# Roles of a sink's arguments that carry the turns of the conversation.
_TURN_ROLES = ("messages", "input")


def conversation_follows(
    sink: Sink, args: Sequence[Value], keywords: dict[str, Value], splats: Sequence[Value]
) -> bool:
    """Whether earlier turns follow a call's system prompt (True when it cannot be told)."""
    if splats or any(keyword in keywords for keyword in sink.chained):
        return True
    turns = [
        (role, keywords[k]) for k, role in sink.keywords if role in _TURN_ROLES and k in keywords
    ]
    turns += [
        (role, args[i]) for i, role in sink.positional if role in _TURN_ROLES and i < len(args)
    ]
    if not turns:  # the turns come from elsewhere (an agent's runs, a chat object)
        return True
    return not all(_one_new_turn(role, value) for role, value in turns)


def _one_new_turn(role: str, value: Value) -> bool:
    if value.items is not None:
        return len(value.items) == 1 and not value.items[0].spliced
    return role == "input" and (value.pieces is not None or value.kind == "str")


def history_after(later: Sequence[Value]) -> bool:
    """Whether the turns after one of a literal message list hold conversation history: a splice,
    a turn of unknown shape or one that varies. Static turns (few-shot examples) are static text."""
    *middle, last = later
    return last.spliced or any(
        turn.spliced or bool(turn.deps) or (turn.fields is None and turn.pieces is None)
        for turn in middle
    )


def pieces_from(items: Sequence[Value]) -> tuple[Piece, ...]:
    """The content of consecutive turns in order, for the static text after a value."""
    return tuple(piece for item in items for piece in flatten(item))


def after_unknown(dep: Dep) -> bool:
    """Whether what follows `dep` inside its own value is unknown: a value the analysis could
    not follow, or one passed through a call it cannot see into, may hide static text after it."""
    return isinstance(dep, Taint) and (dep.code == NOT_FOLLOWED or bool(dep.via))


def opens(pieces: Sequence[Piece], dep: Dep, unknown_length: int) -> bool:
    """Whether `dep` comes before most of the static text around it: a clock that opens a short
    system prompt keeps even that prompt out of the cache, where one at its end costs nothing.
    A part of unknown text before it counts as `unknown_length` characters."""
    before = 0
    for index, piece in enumerate(pieces):
        if isinstance(piece, str):
            before += len(piece)
        elif dep in piece:
            after = sum(len(p) for p in pieces[index + 1 :] if isinstance(p, str))
            return after > before
        else:
            before += unknown_length
    return False
