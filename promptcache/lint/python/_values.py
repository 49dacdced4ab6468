"""
The abstract values of the Python analysis: what a value depends on, and where in it.

A `Dep` is one reason a value differs between requests (a `Taint`: a clock, a parameter the
caller fills per request, an unsorted `json.dumps`) or a `Param` of the function being summarised,
replaced by the caller's argument at each call. A string keeps its `pieces` in order (literal
text and dependencies), so a finding can say how much static text follows the volatile part.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._quickinit import quick_init, replace

__all__ = [
    "EMPTY",
    "NOT_FOLLOWED",
    "ORDER_CODES",
    "PER_REQUEST",
    "Dep",
    "Param",
    "Piece",
    "Taint",
    "Value",
    "compact",
    "join_values",
    "text_value",
]

# Rule codes the analysis itself gives meaning to.
PER_REQUEST = "PC502"  # per-request data: fine in the newest turn or spliced history
NOT_FOLLOWED = "PC506"  # a value the analysis cannot follow
ORDER_CODES = frozenset({"PC504", "PC505"})  # order variation: sorting or an aggregate ends it

# Bounds on what a string's pieces remember, so that code like `s = s + f"{s}"` in a loop (or
# repeated 30 times) costs linear time: beyond them the tail keeps its dependencies and (up to
# MAX_TEXT characters of) its static text, not their exact order.
MAX_PIECES = 64
MAX_TEXT = 200_000


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Taint:
    """A source of variation: its rule code, what it is, and where it enters the code."""

    code: str
    label: str
    path: str
    line: int
    column: int  # 1-based, in characters
    via: tuple[str, ...] = ()  # calls the analysis could not see into, assumed to pass it on
    fix: tuple[str, int, int, int, int] | None = None  # (kind, line, col, end_line, end_col)
    fixable: bool = False
    # The line of `path` where the value is formatted into a prompt's text, when not `line`
    # (where the fix goes); not part of its identity.
    written: int = field(default=0, compare=False)
    # `written` is where it was formatted into one item of a list (a comprehension's element,
    # an appended line), not yet the prompt's text: the text the list is placed in, when it
    # is placed in one, is where it is written (where the fix goes); not part of its identity.
    written_item: bool = field(default=False, compare=False)
    # A not-followed note (PC506) for a value rendered by a Jinja template the analysis could not
    # read: the code it had before (PC501, PC502). Wherever such a template places it, a system
    # prompt it renders is followed by the whole conversation: there it is that code again.
    unread: str = field(default="", compare=False)
    param: str = ""  # the per-request-named parameter it stands for, where it is one
    # A model's answer: in a later turn of the messages it is the conversation's own history
    # (it grows, it does not change); not part of its identity.
    answer: bool = field(default=False, compare=False)
    # One turn taken out of a window of the history by its index (`recent[0]`), not the window:
    # written into a turn's text it is no history written out; not part of its identity.
    element: bool = field(default=False, compare=False)

    def key(self) -> tuple[str, str, int, int]:
        return (self.code, self.path, self.line, self.column)


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Param:
    """
    A parameter of the function being summarised (`index` -1: only by keyword), or the part of
    it at `path` (`params["system"]` is the parameter `params` at path `("system",)`).
    """

    index: int
    name: str
    path: tuple[str, ...] = ()
    # Where the function writes the parameter into a text (line `written` of `written_path`):
    # a caller's value it stands for, made in that module, is written there, where the fix goes
    # (`_flow.substitute`); as for a `Taint`, not part of its identity.
    written: int = field(default=0, compare=False)
    written_path: str = field(default="", compare=False)
    written_item: bool = field(default=False, compare=False)


Dep = Taint | Param
Piece = str | frozenset[Dep]

_PATH_DEPTH = 4  # how deep a parameter's parts are told apart; deeper is the part at depth 4


def deps_at_key(deps: Iterable[Dep], key: str) -> set[Dep]:
    """The dependencies of `value[key]`: each parameter narrowed to its part at `key` (resolved
    at each call), each taint as it is."""
    return {
        Param(index=d.index, name=d.name, path=(*d.path, key))
        if isinstance(d, Param) and len(d.path) < _PATH_DEPTH
        else d
        for d in deps
    }


@quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Value:
    """
    What the analysis knows about one Python value.

    `deps` is complete for every kind; the other fields are extra knowledge when it exists:
    `pieces` for strings built from known parts, `items` for lists and tuples of known length,
    `fields` for dicts with string keys, `kind` for the few types whose order matters.
    """

    deps: frozenset[Dep] = frozenset()
    pieces: tuple[Piece, ...] | None = None
    items: tuple[Value, ...] | None = None
    fields: tuple[tuple[str, Value], ...] | None = None
    kind: str = ""  # "set", "udict" (dict from an unordered source), "str", "ptemplate", ...
    fixed: bool = False  # a literal whose key order is fixed in the source
    spliced: bool = False  # a history splice (`*history`): its per-request data is history
    # What varies in system messages of a list whose turns branches knew but a merge lost
    # (`_flow.merge`): not history, though the list no longer says where it lands.
    unplaced: frozenset[Dep] = frozenset()
    meta: Any = field(default=None, compare=False)  # kind-specific: a function, a template...

    @property
    def text(self) -> str | None:
        """The whole string when it is a compile-time constant."""
        pieces = self.pieces
        if pieces is None:
            return None
        for piece in pieces:
            if not isinstance(piece, str):
                return None
        return "".join(pieces)  # type: ignore[arg-type]  # every piece is a str (checked above)

    def field(self, key: str) -> Value | None:
        for name, value in self.fields or ():
            if name == key:
                return value
        return None

    def with_deps(self, extra: Iterable[Dep]) -> Value:
        more = frozenset(extra)
        if not more or more <= self.deps:
            return self
        return replace(self, deps=self.deps | more)

    def opaque(self) -> Value:
        """Only the dependencies: what remains when the value's shape is lost."""
        return Value(deps=self.deps) if self.deps else EMPTY


EMPTY = Value()


def text_value(text: str) -> Value:
    return Value(pieces=(text,), kind="str", fixed=True)


def join_values(values: Iterable[Value]) -> Value:
    """A value that depends on all of `values` and keeps none of their shapes."""
    deps: frozenset[Dep] = frozenset()
    for value in values:
        deps |= value.deps
    return Value(deps=deps) if deps else EMPTY


def unnamed_part(mapping: Value, key: str) -> Value:
    """
    `mapping` as read at `key`, a key none of its known fields name: without what only those
    fields hold (`config["updated_at"] = now()` is not in `config["system_prompt"]`). What the rest
    of the dict may hold (its `**` part, or whatever its fields do not account for) is kept.
    """
    if not mapping.fields:
        return mapping
    named: set[Dep] = set()
    for name, value in mapping.fields:
        if name != "**":
            named |= value.deps
    rest = mapping.field("**")
    only_named = named - (rest.deps if rest is not None else frozenset())
    if not only_named & mapping.deps:
        return mapping
    return Value(deps=mapping.deps - only_named)


def concat_pieces(values: Iterable[Value]) -> tuple[Piece, ...]:
    """The pieces of a string made of `values` in order (an unknown part is its dependencies)."""
    pieces: list[Piece] = []
    for value in values:
        if value.pieces is not None:
            pieces.extend(value.pieces)
        elif value.deps:
            pieces.append(value.deps)
    return compact(pieces)


def compact(pieces: Sequence[Piece]) -> tuple[Piece, ...]:
    """`pieces` within MAX_PIECES and MAX_TEXT: adjacent text merged, an overlong tail folded."""
    if len(pieces) <= 8:
        return tuple(
            p if not isinstance(p, str) or len(p) <= MAX_TEXT else p[:MAX_TEXT] for p in pieces
        )
    merged: list[Piece] = []
    for piece in pieces:
        if isinstance(piece, str) and merged and isinstance(merged[-1], str):
            merged[-1] = (merged[-1] + piece)[:MAX_TEXT]
        elif isinstance(piece, str):
            merged.append(piece[:MAX_TEXT])
        else:  # an empty piece is text of unknown length: kept, it holds its place
            merged.append(piece)
    if len(merged) <= MAX_PIECES:
        return tuple(merged)
    head, tail = merged[: MAX_PIECES - 2], merged[MAX_PIECES - 2 :]
    deps: frozenset[Dep] = frozenset().union(*(p for p in tail if not isinstance(p, str)))
    text = "".join(p for p in tail if isinstance(p, str))[:MAX_TEXT]
    return (*head, *([deps] if deps else []), *([text] if text else []))
