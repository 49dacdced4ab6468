"""
Content a chat template writes only into the newest turn (PC302), read without a walker.

Mistral's templates join the system message to the last user turn (`loop.last and
system_message`) and write `[AVAILABLE_TOOLS]` before the newest user message only; Jamba writes
its documents before the last user message. Each request moves that content on to the new last
turn, so the turn that carried it renders without it: the engine's cache ends there, and the
system text or the tools list, however long, is prefilled again on every request. What moves is
what one side of the branch on the position writes and the other does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from jinja2 import nodes

from .._config import _matcher
from ..rules.PC302 import (
    MOVING_DOCUMENT_NAMES,
    MOVING_FLAG_PREFIXES,
    MOVING_SYSTEM_NAMES,
    MOVING_TOOL_MARKS,
    MOVING_TOOL_NAMES,
)
from ._events import count_tokens
from ._nodes import is_messages, renders, with_self

__all__ = ["Moving", "assigned_values", "moving_content"]

_is_system_name = _matcher(MOVING_SYSTEM_NAMES)
_is_tool_name = _matcher(MOVING_TOOL_NAMES)
_is_document_name = _matcher(MOVING_DOCUMENT_NAMES)
# Static text on one side only is an instruction when it says something: a turn marker, a
# separator or a closing tag (`[INST]`, `\n\n`, `<|im_end|>`) is a few tokens without words.
_INSTRUCTION_WORDS = 4
_WHERE = "once before the loop over the messages (in the system turn)"


@dataclass(frozen=True, slots=True, kw_only=True)
class Moving:
    """What a branch on the position writes into the newest turn only, and where it belongs."""

    kind: str  # "tools", "system", "documents" or "instruction": one finding per kind and loop
    what: str  # "the tools (`tools`)", said in the finding
    fix: str


def moving_content(body: Sequence[nodes.Node], else_: Sequence[nodes.Node]) -> Moving | None:
    """
    The system message, the tools, the documents or a fixed instruction that one side of a
    branch on the message's position writes and the other does not (None when neither side
    writes such content the other lacks: the branch is then reported as a position branch).
    """
    sides = [_rendered_names(body), _rendered_names(else_)]
    only = (sides[0] - sides[1]) | (sides[1] - sides[0])
    found: list[tuple[str, str]] = []
    only = {n for n in only if not n.startswith(MOVING_FLAG_PREFIXES)}
    tools = sorted(n for n in only if _is_tool_name(n))
    if tools or _writes_tool_marks(body) != _writes_tool_marks(else_):
        found.append(("tools", _named("the tools", tools)))
    system = sorted(n for n in only if _is_system_name(n))
    if system or _reads_first_message(body) != _reads_first_message(else_):
        found.append(("system", _named("the system message", system)))
    documents = sorted(n for n in only if _is_document_name(n))
    if documents:
        found.append(("documents", _named("the documents", documents)))
    if found:
        what = " and ".join(text for _, text in found)
        plural = len(found) > 1 or found[0][0] != "system"
        return Moving(kind="+".join(k for k, _ in found), what=what, fix=_fix(what, plural=plural))
    return _instruction(body, else_)


def assigned_values(side: Sequence[nodes.Node]) -> list[nodes.Node]:
    """What the `set`s of a side assign: a branch that only sets writes its values later."""
    return [assign.node for stmt in side for assign in with_self(stmt, nodes.Assign)]


def _named(label: str, names: Sequence[str]) -> str:
    return f"{label} ({', '.join(f'`{n}`' for n in names)})" if names else label


def _fix(what: str, *, plural: bool) -> str:
    never = "they are" if plural else "it is"
    return (
        f"render {what} {_WHERE} or only into the first user turn (`loop.first`): in the newest "
        f"turn {never} never read from the cache, however long"
    )


def _rendered_names(side: Sequence[nodes.Node]) -> set[str]:
    """The names a side reads when it renders something (a side that only sets writes none)."""
    if not any(renders(stmt) for stmt in side):
        return set()
    return {
        name.name for stmt in side for name in with_self(stmt, nodes.Name) if name.ctx == "load"
    }


def _texts(side: Sequence[nodes.Node]) -> list[str]:
    """The template text and string constants a side writes (a side may be expressions: the
    values of `a if loop.last else b`, or of the `set`s of a branch that only sets)."""
    found: list[str] = []
    for stmt in side:
        if isinstance(stmt, nodes.Expr):
            found += [c.value for c in with_self(stmt, nodes.Const) if isinstance(c.value, str)]
            continue
        for output in with_self(stmt, nodes.Output):
            found += [c.data for c in output.nodes if type(c) is nodes.TemplateData]
            found += [
                c.value
                for child in output.nodes
                for c in with_self(child, nodes.Const)
                if isinstance(c.value, str)
            ]
    return found


def _writes_tool_marks(side: Sequence[nodes.Node]) -> bool:
    return any(mark in text for text in _texts(side) for mark in MOVING_TOOL_MARKS)


def _reads_first_message(side: Sequence[nodes.Node]) -> bool:
    """`messages[0]['content']` written on this side: the system message read in place."""
    if not any(renders(stmt) for stmt in side):
        return False
    return any(
        is_messages(item.node) and type(item.arg) is nodes.Const and item.arg.value == 0
        for stmt in side
        for item in with_self(stmt, nodes.Getitem)
    )


def _instruction(body: Sequence[nodes.Node], else_: Sequence[nodes.Node]) -> Moving | None:
    """Static text with words in it, written on one side only: a fixed instruction."""
    texts = [set(_texts(body)), set(_texts(else_))]
    only = (texts[0] - texts[1]) | (texts[1] - texts[0])
    worded = [t for t in only if len(t.split()) >= _INSTRUCTION_WORDS]
    if not worded:
        return None
    tokens = sum(count_tokens(t) for t in worded)
    what = f"a fixed instruction of ~{tokens} tokens"
    fix = (
        f"write the instruction {_WHERE} or the same way into every user turn: in the newest "
        "turn it is never read from the cache"
    )
    return Moving(kind="instruction", what=what, fix=fix)
