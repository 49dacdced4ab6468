"""
Reasoning in chat templates, read without a walker: `<think>` literals and empty think blocks,
the generation prompt's empty think, flags set from a message's text, a split that selects the
reasoning, and a history loop that writes the reasoning it splits out back for every turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from jinja2 import nodes

from ..rules.PC302 import REASONING_MARKS, REASONING_WORDS
from ._branches import on_position_by_default, same_on_every_side
from ._nodes import GENERATION_PROMPT, namespace_sets, with_self

__all__ = [
    "empty_think_at_generation",
    "flags_from_content",
    "is_empty_think",
    "is_think_literal",
    "mentions_reasoning",
    "selects_reasoning",
    "writes_reasoning_back",
]

_TEXT_FIELDS = frozenset({"content", "text"})


def empty_think_at_generation(ast: nodes.Template) -> list[tuple[nodes.Node | None, bool]]:
    """The tests (and sides) under which the generation prompt writes an empty `<think></think>`;
    `(None, True)` when it always does."""
    found: list[tuple[nodes.Node | None, bool]] = []
    for generation in ast.find_all(nodes.If):
        if not any(n.name == GENERATION_PROMPT for n in with_self(generation.test, nodes.Name)):
            continue
        if any(
            _writes_empty_think(stmt) for stmt in generation.body if not isinstance(stmt, nodes.If)
        ):
            found.append((None, True))
        for inner in (i for stmt in generation.body for i in with_self(stmt, nodes.If)):
            if not inner.elif_:
                found += [(inner.test, True)] if any(map(_writes_empty_think, inner.body)) else []
                found += [(inner.test, False)] if any(map(_writes_empty_think, inner.else_)) else []
    return found


def _writes_empty_think(stmt: nodes.Node) -> bool:
    if not isinstance(stmt, nodes.Output):
        return False
    texts = [c.data for c in stmt.nodes if type(c) is nodes.TemplateData]
    texts += [
        c.value
        for child in stmt.nodes
        for c in with_self(child, nodes.Const)
        if isinstance(c.value, str)
    ]
    return any(is_empty_think(text) for text in texts)


def flags_from_content(body: Sequence[nodes.Node]) -> set[str]:
    """The `ns.attr` names set under a test on a message's text (`'/no_think' in m.content`)."""
    found: set[str] = set()
    for stmt in body:
        for branch in with_self(stmt, nodes.If):
            if not _reads_content(branch.test):
                continue
            for part in (branch.body, branch.else_, *(e.body for e in branch.elif_)):
                found |= namespace_sets(part)
    return found


def _reads_content(test: nodes.Node) -> bool:
    return any(a.attr in _TEXT_FIELDS for a in with_self(test, nodes.Getattr)) or any(
        type(i.arg) is nodes.Const and i.arg.value in _TEXT_FIELDS
        for i in with_self(test, nodes.Getitem)
    )


def mentions_reasoning(node: nodes.Node) -> bool:
    words = [c.value for c in with_self(node, nodes.Const) if isinstance(c.value, str)]
    words += [n.name for n in with_self(node, nodes.Name)]
    words += [a.attr for a in with_self(node, nodes.Getattr)]
    return any(w in text.lower() for text in words for w in REASONING_WORDS)


def is_think_literal(node: nodes.Node) -> bool:
    """A literal holding a reasoning delimiter: `<think>`, `</think>`, or a channel marker."""
    return (
        type(node) is nodes.Const
        and isinstance(node.value, str)
        and any(mark in node.value for mark in REASONING_MARKS)
    )


def is_empty_think(text: str) -> bool:
    start = text.find("<think>")
    if start < 0:
        return False
    rest = text[start + len("<think>") :]
    return rest.lstrip().startswith("</think>")


_SPLITS = frozenset({"split", "rsplit", "partition", "rpartition"})
_CLOSING_MARKS = ("</think", "<channel|>")  # the reasoning is what comes before them
_OPENING_MARKS = ("<think", "<|channel>")  # the reasoning is what comes after them


def selects_reasoning(expr: nodes.Node, named: Mapping[str, list[str]] | None = None) -> bool:
    """
    Whether `expr` takes the reasoning part of a split on a reasoning delimiter
    (`content.split('</think>')[0]`, `text.split('<think>')[-1]`), not the answer part.
    `named` gives the texts a delimiter held in a variable may have (`set end = '</think>'`).
    """
    for call, index in _indexed_parts(expr):
        if type(call) is not nodes.Call or type(call.node) is not nodes.Getattr:
            continue
        if call.node.attr not in _SPLITS:
            continue
        marks = [a.value for a in call.args if type(a) is nodes.Const and isinstance(a.value, str)]
        marks += [
            m for a in call.args if type(a) is nodes.Name for m in (named or {}).get(a.name, [])
        ]
        last = index == -1 or (call.node.attr.endswith("partition") and index == 2)
        if index == 0 and any(c in m for m in marks for c in _CLOSING_MARKS):
            return True
        if last and any(
            o in m and not any(c in m for c in _CLOSING_MARKS)
            for m in marks
            for o in _OPENING_MARKS
        ):
            return True
    return False


# `parts | first` and `parts | last` take the part `[0]` and `[-1]` take.
_PART_FILTERS = {"first": 0, "last": -1}


def _indexed_parts(expr: nodes.Node) -> list[tuple[nodes.Node, int]]:
    """Each `x[n]` (`n` an integer) in `expr`, with `x | first` and `x | last`, as (`x`, `n`)."""
    found: list[tuple[nodes.Node, int]] = []
    for item in with_self(expr, nodes.Getitem):
        index = _int_index(item.arg)
        if index is not None:
            found.append((item.node, index))
    for taken in with_self(expr, nodes.Filter):
        if taken.name in _PART_FILTERS and taken.node is not None and not taken.args:
            found.append((taken.node, _PART_FILTERS[taken.name]))
    return found


def _int_index(node: nodes.Node) -> int | None:
    if type(node) is nodes.Const and type(node.value) is int:
        return node.value
    if type(node) is nodes.Neg and type(node.node) is nodes.Const and type(node.node.value) is int:
        return -node.node.value
    return None


def writes_reasoning_back(body: Sequence[nodes.Node], flags: set[str]) -> bool:
    """
    Whether a loop over the history writes out the reasoning it splits out of a message
    (Qwen3's `reasoning_content`) for every turn, whatever its position: then the split
    extracts the reasoning to write it back, it does not drop it.
    """
    holders: set[str] = set()
    assigns = [a for stmt in body for a in with_self(stmt, nodes.Assign)]
    named: dict[str, list[str]] = {}
    for assign in assigns:
        value = assign.node.value if type(assign.node) is nodes.Const else None
        if type(assign.target) is nodes.Name and isinstance(value, str):
            named.setdefault(assign.target.name, []).append(value)
    for _ in range(2):  # `set r = split(...)[0]`, then `set r = r | trim`
        for assign in assigns:
            if type(assign.target) is nodes.Name and (
                selects_reasoning(assign.node, named)
                or any(n.name in holders for n in with_self(assign.node, nodes.Name))
            ):
                holders.add(assign.target.name)
    return any(_writes_any(stmt, holders, named, flags, in_history=True) for stmt in body)


def _writes_any(
    stmt: nodes.Node,
    holders: set[str],
    named: Mapping[str, list[str]],
    flags: set[str],
    *,
    in_history: bool,
) -> bool:
    """Whether `stmt` writes a reasoning holder outside any branch on the turn's position."""
    if isinstance(stmt, nodes.Output):
        return any(
            type(child) is not nodes.TemplateData
            and (
                selects_reasoning(child, named)
                or any(n.name in holders for n in with_self(child, nodes.Name))
            )
            for child in stmt.nodes
        )
    if (
        isinstance(stmt, nodes.If)
        and not same_on_every_side(stmt)
        and on_position_by_default(stmt.test, flags, in_history)
    ):
        return False  # written for some positions only: the branch is reported itself
    inner = in_history and not isinstance(stmt, nodes.For)
    return any(
        _writes_any(child, holders, named, flags, in_history=inner)
        for child in stmt.iter_child_nodes()
        if isinstance(child, nodes.Stmt)
    )
