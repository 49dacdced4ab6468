"""
Chat templates: turns of the history that render differently once a newer turn arrives (PC302).

Functions of a `Walker` (`_walker`), called inside the loop over the messages: a branch on the
message's position or on a look-ahead flag, a split that strips the reasoning, an empty
`<think></think>` for earlier turns; one finding of each kind per loop.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from jinja2 import nodes
from jinja2.visitor import NodeTransformer

from ._bindings import Scope
from ._branches import (
    closes_a_run_in_branches,
    flags_on,
    measures_reasoning,
    on_position_by_default,
    one_test,
    only_generation_prompt,
    only_looks_ahead,
    position_test,
)
from ._events import Event, Hazard
from ._moving import Moving, assigned_values, moving_content
from ._nodes import dotted_name, flags_read, renders, with_self
from ._pieces import differ_only_at_the_end, static_only, without_guards
from ._reasoning import is_empty_think, is_think_literal, mentions_reasoning, selects_reasoning

if TYPE_CHECKING:
    from ._walker import Walker


__all__ = [
    "check_history_expr",
    "check_history_text",
    "check_position_branch",
    "expanded",
    "is_history_alias",
    "on_position",
    "report_history",
]


def check_position_branch(
    walker: Walker,
    node: nodes.If,
    body: Sequence[nodes.Node],
    else_: Sequence[nodes.Node],
    out: list[Event],
) -> None:
    """
    A branch inside the history loop on where the message sits (PC302), whatever it renders.

    `loop.last`, `messages[-1]`, "is this the latest user message", a look-ahead: once a turn
    is appended, the answer changes for a message that is already cached, so that message
    (or the tools list or system prompt attached to it) renders differently every turn.
    """
    state = walker.state
    if not state.history or "branch" in state.reported:
        return
    # A guard that aborts a malformed request (`raise_exception(...)`) renders nothing in a
    # request that succeeds: what each side writes is the rest.
    body, else_ = without_guards(body), without_guards(else_)
    if not any(renders(stmt) for stmt in (*body, *else_)) and not any(
        with_self(stmt, nodes.Assign) for stmt in (*body, *else_)
    ):
        return
    setting_only = not any(renders(stmt) for stmt in (*body, *else_))
    if setting_only and only_looks_ahead((*body, *else_)):
        return  # `{% if not loop.last %}{% set next_role = messages[loop.index].role %}`
    test = expanded(walker, one_test(node))
    anchor = position_test(test, loop_is_history=state.in_history_loop(), aliases=state.aliases)
    if anchor is None:
        _check_look_ahead_branch(walker, node, body, else_, out)
        return
    loop_is_history = state.in_history_loop()
    if not on_position_by_default(test, state.on_by_default, loop_is_history, state.aliases):
        flag = next(iter(sorted(flags_on(test, state.on_by_default))), "a flag")
        turns = "every turn that has reasoning" if measures_reasoning(test) else "every turn"
        walker.note(
            node.lineno,
            f"a branch on the message's position that `{flag}` (on by default) overrides: "
            f"{turns} renders the same unless your code turns `{flag}` off, and then "
            "earlier turns render differently once a newer turn is appended",
        )
        return
    if id(node) in state.trailing and static_only((*body, *else_)):
        # A separator after the message, written only when another message follows (or only
        # after the last one): what comes before it renders the same on every turn.
        return
    if only_generation_prompt((*body, *else_)):
        # `{% if loop.last %}{% if add_generation_prompt %}...`: the generation prompt, which
        # follows the conversation at inference and is never part of a cached turn.
        return
    if closes_a_run_in_branches(node):
        # `{% if loop.last %}<end>{% else %}{% if next.role != 'tool' %}<end>{% endif %}`: the
        # `loop.last or messages[loop.index0 + 1]...` shape written as two branches.
        return
    if not node.elif_ and differ_only_at_the_end(body, else_):
        # `{% if not loop.last %}{{ turn + eos + '\n' }}{% else %}{{ turn + eos }}`: both
        # sides write the same turn, one with a separator after it; the turn renders the same
        # up to its very end whichever side is taken.
        return
    if setting_only:  # `{% set text = system_message + ... %}`, written after the branch
        moving = moving_content(assigned_values(body), assigned_values(else_))
    else:
        moving = moving_content(body, else_)
    if moving is not None and not any(mentions_reasoning(child) for child in (*body, *else_)):
        hazard = _moving_hazard(walker, node.lineno, anchor, moving)
        if setting_only:  # reported at the loop's end unless a branch that renders is
            state.pending = state.pending or hazard
            return
        report_history(walker, f"moves:{moving.kind}", hazard, out)
        return
    if any(mentions_reasoning(child) for child in (*body, *else_)):
        detail = "a branch on the message's position in the history that changes its reasoning"
    else:
        detail = (
            f"a branch on the message's position in the history (`{anchor}`): what it "
            "renders for a turn changes once a newer turn is appended"
        )
    switch = _switch_on_by_default(walker, test)
    fix = _SWITCH_FIX.format(switch=switch) if switch else ""
    hazard = walker.hazard(
        "PC302", node.lineno, anchor.split(".")[0].split("[")[0], detail, fix=fix
    )
    written = _written_apart(walker, one_test(node))
    if written:  # the test is set into a name above: the fix goes where it is written
        hazard = dataclasses.replace(hazard, written=written)
    if setting_only:  # reported at the loop's end unless a branch that renders is reported
        state.pending = state.pending or hazard
        return
    report_history(walker, "branch", hazard, out)


_SWITCH_FIX = (
    "turn `{switch}` off in the request's `chat_template_kwargs` (on by default, it turns this "
    "on), or render every earlier turn the same way, whatever its position"
)


def _switch_on_by_default(walker: Walker, test: nodes.Node) -> str | None:
    """
    A flag on by default that a position test needs beside it (Nemotron's
    `truncate_history_thinking and loop.index0 < ns.last_user_idx`): the request can turn it off
    and, with it, the re-rendering. None when no such flag is joined to the test with `and`.
    """
    state = walker.state
    loop_is_history = state.in_history_loop()
    node = test.node if type(test) is nodes.Not else test
    parts: list[nodes.Node] = []
    pending = [node]
    while pending:
        part = pending.pop()
        if type(part) is nodes.And:
            pending += [part.right, part.left]
        else:
            parts.append(part)
    positional = any(
        position_test(p, loop_is_history=loop_is_history, aliases=state.aliases) for p in parts
    )
    flags = [
        name
        for p in parts
        if (name := dotted_name(p.node if type(p) is nodes.Test else p)) in state.on_by_default
    ]
    return flags[0] if positional and flags else None


def _written_apart(walker: Walker, test: nodes.Node) -> int:
    """
    The line of the `set` that writes the position test `test` reads through a name (Nemotron's
    `{% set include_content = not (truncate and loop.index0 < ns.last_user_idx) %}`, branched on
    below), where the fix goes; 0 when `test` holds its own.
    """
    state = walker.state
    loop_is_history = state.in_history_loop()
    if position_test(test, loop_is_history=loop_is_history, aliases=state.aliases) is not None:
        return 0
    return next(
        (
            state.position_sets[n.name]
            for n in with_self(test, nodes.Name)
            if n.name in state.position_sets
        ),
        0,
    )


def _moving_hazard(walker: Walker, line: int, anchor: str, moving: Moving) -> Hazard:
    """
    Content written into the newest turn only (PC302): once a turn is appended the new last turn
    takes it over and the turn that carried it renders without it, so the engine's cache ends
    before that turn on every request and the content itself is never read from it. Reported
    once per kind of content and loop: Mistral moves its tools and its system message in two
    branches.
    """
    detail = (
        f"{moving.what} written only into the newest turn (`{anchor}`), so each new turn "
        "takes it over and the turn before renders without it"
    )
    name = anchor.split(".")[0].split("[")[0]
    return walker.hazard("PC302", line, name, detail, fix=moving.fix)


def _check_position_choice(walker: Walker, expr: nodes.Node, out: list[Event]) -> None:
    """
    `system_message + '\\n\\n' if loop.last else ''` written or set in the history loop: the
    branch on the position written as an expression. Reported only when one side holds content
    that moves (a separator chosen by position, `'\\n' if not loop.last else ''`, does not).
    """
    for choice in with_self(expr, nodes.CondExpr):
        if choice.expr2 is None or not on_position(walker, choice.test):
            continue
        sides = ([choice.expr1], [choice.expr2])
        moving = moving_content(*sides)
        if moving is None or any(mentions_reasoning(side[0]) for side in sides):
            continue
        test = expanded(walker, choice.test)
        anchor = position_test(
            test, loop_is_history=walker.state.in_history_loop(), aliases=walker.state.aliases
        )
        hazard = _moving_hazard(walker, choice.lineno, anchor or "loop", moving)
        report_history(walker, f"moves:{moving.kind}", hazard, out)


def _check_look_ahead_branch(
    walker: Walker,
    node: nodes.If,
    body: Sequence[nodes.Node],
    else_: Sequence[nodes.Node],
    out: list[Event],
) -> None:
    """
    Reasoning kept or dropped by a flag set from the messages after this one (PC302).

    gpt-oss renders a tool-call turn's analysis until a later final answer exists: the
    flag is computed in a loop over `messages[loop.index:]`, so an earlier turn the engine
    cached with its reasoning renders without it once the conversation moves on.
    """
    flag = next((f for f in flags_read(node.test) if f in walker.state.look_ahead), None)
    if flag is None or not any(mentions_reasoning(child) for child in (*body, *else_)):
        return
    detail = (
        f"a branch on `{flag}`, set from the messages after this one, that keeps or drops "
        "the turn's reasoning: it renders differently once a later turn arrives"
    )
    hazard = walker.hazard("PC302", node.lineno, flag.split(".")[0], detail)
    report_history(walker, "branch", hazard, out)


def is_history_alias(walker: Walker, expr: nodes.Node) -> bool:
    """`turns`, `turns[::-1]`, `turns | reverse` for a name set from the messages."""
    node: Any = expr
    while type(node) in (nodes.Getitem, nodes.Filter) and node.node is not None:
        node = node.node
    return type(node) is nodes.Name and node.name in walker.state.aliases


def expanded(walker: Walker, test: nodes.Node) -> nodes.Node:
    """`test` with each name set from a position test in the history loop written out
    (DeepSeek V3.2's `{% set is_after_last_user = loop.index0 > last.value %}`)."""
    used = {n.name for n in with_self(test, nodes.Name)} & set(walker.state.position_names)
    if not used:
        return test
    return _Substitute(walker.state.position_names).visit(copy.deepcopy(test))  # type: ignore[no-any-return]


def on_position(walker: Walker, test: nodes.Node) -> bool:
    """Whether a test inside the history decides by where the message sits (or a look-ahead)."""
    state = walker.state
    if not state.history:
        return False
    test = expanded(walker, test)
    loop_is_history = state.in_history_loop()
    if position_test(test, loop_is_history=loop_is_history, aliases=state.aliases) is not None:
        return on_position_by_default(test, state.on_by_default, loop_is_history, state.aliases)
    return any(flag in state.look_ahead for flag in flags_read(test))


def _reasoning_written_back(walker: Walker) -> bool:
    return bool(walker.state.keeps_reasoning and walker.state.keeps_reasoning[-1])


def report_history(walker: Walker, kind: str, hazard: Hazard, out: list[Event]) -> None:
    """One PC302 finding of each kind per loop over messages: the rest is the same cause."""
    if kind not in walker.state.reported:
        walker.state.reported.add(kind)
        out.append(hazard)


def _as_generated(walker: Walker) -> bool:
    """Whether an empty `<think></think>` written here is what the generation prompt wrote
    for that turn: always, or under the same test and side as here."""
    return any(
        test is None or (test, side) in walker.state.sides
        for test, side in walker.state.empty_at_generation
    )


def check_history_text(walker: Walker, data: nodes.TemplateData, out: list[Event]) -> None:
    """An empty `<think></think>` written as template text in the history loop (Kimi K2
    Thinking writes one for every turn before a cut computed from the end)."""
    if is_empty_think(data.data) and not _as_generated(walker):
        line = data.lineno + data.data.count("\n", 0, data.data.find("<think>"))
        detail = "an empty `<think></think>` block for earlier turns"
        report_history(walker, "empty", walker.hazard("PC302", line, "<think>", detail), out)


def check_history_expr(walker: Walker, expr: nodes.Node, scope: Scope, out: list[Event]) -> None:
    _check_position_choice(walker, expr, out)
    for call in with_self(expr, nodes.Call):
        callee = call.node
        splits = type(callee) is nodes.Getattr and callee.attr in (
            "split",
            "rsplit",
            "partition",
        )
        if splits and any(is_think_literal(arg) for arg in call.args):
            if selects_reasoning(expr) or _reasoning_written_back(walker):
                return  # the reasoning is split out to be written back, not dropped
            if _as_generated(walker):
                return  # the generation prompt closed the think block: there is none to drop
            detail = "`split(...)` that strips the reasoning from earlier turns"
            hazard = walker.hazard("PC302", call.lineno, callee.attr, detail)
            report_history(walker, "split", hazard, out)
            return
    if not _as_generated(walker) and any(
        isinstance(c.value, str) and is_empty_think(c.value) for c in with_self(expr, nodes.Const)
    ):
        detail = "an empty `<think></think>` block for earlier turns"
        report_history(walker, "empty", walker.hazard("PC302", expr.lineno, "<think>", detail), out)
        return
    names = {n.name for n in with_self(expr, nodes.Name)}
    if not walker.state.positional and _reasoning_written_back(walker):
        return  # empty only for a turn that has no reasoning: the same on every request
    if names & walker.state.empty and any(
        is_think_literal(c) for c in with_self(expr, nodes.Const)
    ):
        detail = "a `<think>` block that renders empty for turns whose reasoning was dropped"
        report_history(walker, "empty", walker.hazard("PC302", expr.lineno, "<think>", detail), out)


class _Substitute(NodeTransformer):
    """Replaces names by the expressions they were set from (on a copy of a test)."""

    def __init__(self, names: Mapping[str, nodes.Node]) -> None:
        self.names = names

    def visit_Name(self, node: nodes.Name) -> nodes.Node:  # the visitor calls it by this name
        found = self.names.get(node.name)
        return copy.deepcopy(found) if found is not None else node
