"""
Branch decisions inside a chat template's history loop, read without a walker: whether a test
depends on the message's position (`loop.last`, `messages[-1]`), the stable shapes that only
close a run of messages or a turn, the `if`s after which nothing renders in an iteration (with
the flags known on that path, `_decide`), and flags that are on unless the caller turns them off.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet

from jinja2 import nodes

from ..rules.PC302 import REASONING_MARKS, REASONING_WORDS
from ._nodes import (
    GENERATION_PROMPT,
    dotted_name,
    is_loop_attr,
    is_loop_index,
    is_negative,
    reads_the_next_item,
    renders,
    with_self,
)
from ._pieces import static_text

__all__ = [
    "closes_a_run_in_branches",
    "flags_on",
    "iteration_enders",
    "measures_reasoning",
    "on_position_by_default",
    "one_test",
    "only_generation_prompt",
    "only_looks_ahead",
    "position_test",
    "same_on_every_side",
    "set_by_a_switch",
    "trailing_ifs",
    "true_by_default",
]

_MOVING = frozenset({"last", "revindex", "revindex0", "length"})


def position_test(
    test: nodes.Node, *, loop_is_history: bool, aliases: AbstractSet[str] = frozenset()
) -> str | None:
    """
    What makes a test depend on where the message sits relative to the end of the conversation
    (`loop.last`, `messages[-1]`), or None when it does not.

    `loop.last`, `loop.revindex*` and `loop.length` change as turns are appended;
    `loop.index*` changes meaning only when compared with something that is not a constant
    (Qwen3's `loop.index0 > ns.last_query_index`). `loop.first` and a look-behind are stable.
    Two shapes are stable too: a test on `add_generation_prompt` (the generation prompt, or
    training against inference), and `loop.last or messages[loop.index0 + 1]...`, which closes
    a run of messages and renders the same once the next message arrives. `aliases` are the
    names the template set from the messages (`{% set asked = messages | selectattr(...) %}`):
    their last item is the newest turn too, whatever the name.
    """
    if any(n.name == GENERATION_PROMPT for n in with_self(test, nodes.Name)):
        return None
    if loop_is_history and not _closes_a_run(test):
        for attr in with_self(test, nodes.Getattr):
            if type(attr.node) is nodes.Name and attr.node.name == "loop" and attr.attr in _MOVING:
                return f"loop.{attr.attr}"
        for compare in with_self(test, nodes.Compare):
            operands = [compare.expr, *(op.expr for op in compare.ops)]
            if any(is_loop_index(o) for o in operands) and not all(
                is_loop_index(o) or type(o) is nodes.Const for o in operands
            ):
                return "loop.index0"
    for item in with_self(test, nodes.Getitem):
        dotted = dotted_name(item.node)
        holds_messages = dotted is not None and (
            "message" in dotted.lower() or dotted.split(".")[0] in aliases
        )
        if holds_messages and is_negative(item.arg):
            return f"{dotted}[-1]"
    return None


def same_on_every_side(node: nodes.If) -> bool:
    """
    Whether every branch of an `if` (its `elif`s and an `else`) does the same: whichever test
    holds, the same text renders and the same names are set, so the test decides nothing (a
    community Qwen3 variant that writes the reasoning on both sides of its position branch).
    """
    if not node.else_:
        return False
    return all(_alike(elif_.body, node.body) for elif_ in node.elif_) and _alike(
        node.else_, node.body
    )


def _alike(first: Sequence[nodes.Node], second: Sequence[nodes.Node]) -> bool:
    """The same statements, wherever they sit: Jinja's repr of a node shows its fields, not its
    line, and tells `1` from `true` (which compare equal as Python values)."""
    return repr(list(first)) == repr(list(second))


def one_test(node: nodes.If) -> nodes.Node:
    """
    The test that decides what an `if` chain does: its own, or, when every branch of a chain
    without an `else` does the same (`{% if a %}{% set x = true %}{% elif b %}{% set x = true
    %}`), the `or` of its tests.
    """
    if not node.elif_ or node.else_ or not all(_alike(e.body, node.body) for e in node.elif_):
        return node.test
    test = node.test
    for elif_ in node.elif_:
        test = nodes.Or(test, elif_.test, lineno=node.lineno)
    return test


def trailing_ifs(body: Sequence[nodes.Node]) -> set[int]:
    """The `if` statements (and their `elif`s) that end an iteration: nothing renders after them."""
    found: set[int] = set()
    for stmt in reversed(body):
        if isinstance(stmt, nodes.If):
            found.add(id(stmt))
            for branch in (stmt.body, stmt.else_):
                found |= trailing_ifs(branch)
            for elif_ in stmt.elif_:
                found.add(id(elif_))
                found |= trailing_ifs(elif_.body)
            return found
        if renders(stmt):
            return found
    return found


def iteration_enders(body: Sequence[nodes.Node]) -> set[int]:
    """
    The `if`s, at any depth of a history loop's body (not inside an inner loop), after which
    nothing renders in the iteration: what follows them is only `set`s, or `if`s whose test a
    namespace flag set on that path decides false (`{% set ns.kind = 'call' %}`, then
    `{% if ns.kind not in ['call', 'response'] %}`).
    """
    found: set[int] = set()

    def visit(block: Sequence[nodes.Node], rest: list[Sequence[nodes.Node]]) -> None:
        for index, stmt in enumerate(block):
            if not isinstance(stmt, nodes.If):
                continue
            after = [block[index + 1 :], *rest]
            if _nothing_renders(after):
                found.add(id(stmt))
                found.update(id(elif_) for elif_ in stmt.elif_)
            for branch in (stmt.body, *(elif_.body for elif_ in stmt.elif_), stmt.else_):
                visit(branch, after)

    visit(body, [])
    return found


def _nothing_renders(blocks: Sequence[Sequence[nodes.Node]]) -> bool:
    """Whether the statements of `blocks`, run in order, write nothing, given the flags they set."""
    known: dict[str, object] = {}
    for block in blocks:
        for stmt in block:
            if isinstance(stmt, nodes.Assign) and type(stmt.target) is nodes.NSRef:
                key = f"{stmt.target.name}.{stmt.target.attr}"
                if type(stmt.node) is nodes.Const:
                    known[key] = stmt.node.value
                else:
                    known.pop(key, None)
                continue
            if isinstance(stmt, nodes.If) and _ruled_out(stmt, known):
                continue
            if renders(stmt):
                return False
    return True


def _ruled_out(stmt: nodes.If, known: dict[str, object]) -> bool:
    """An `if` (no `elif`, no `else` that writes) whose test the known flags decide false."""
    if stmt.elif_ or any(renders(child) for child in stmt.else_):
        return False
    return _decide(stmt.test, known) is False


_COMPARE: dict[str, Callable[[object, object], bool]] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "in": lambda a, b: a in b,  # type: ignore[operator]
    "notin": lambda a, b: a not in b,  # type: ignore[operator]
}


def _decide(test: nodes.Node, known: dict[str, object]) -> bool | None:
    """`ns.attr == 'x'`, `!=`, `in [...]`, `not in [...]` and `not`, on known flags; else None."""
    if type(test) is nodes.Not:
        inner = _decide(test.node, known)
        return None if inner is None else not inner
    if type(test) is not nodes.Compare or len(test.ops) != 1:
        return None
    flag = dotted_name(test.expr)
    operand = test.ops[0]
    compare = _COMPARE.get(operand.op)
    if flag is None or flag not in known or compare is None:
        return None
    value: object
    if type(operand.expr) is nodes.Const:
        value = operand.expr.value
    elif isinstance(operand.expr, (nodes.List, nodes.Tuple)) and all(
        type(item) is nodes.Const for item in operand.expr.items
    ):
        value = [item.value for item in operand.expr.items]  # type: ignore[attr-defined]
    else:
        return None
    try:
        return compare(known[flag], value)
    except TypeError:  # `in` on a value that is not a container
        return None


def only_generation_prompt(stmts: Sequence[nodes.Node]) -> bool:
    """Whether every statement that renders is an `if` on `add_generation_prompt` (no else)."""
    rendering = [stmt for stmt in stmts if renders(stmt)]
    return bool(rendering) and all(
        isinstance(stmt, nodes.If)
        and any(n.name == GENERATION_PROMPT for n in with_self(stmt.test, nodes.Name))
        and not stmt.elif_
        and not any(renders(child) for child in stmt.else_)
        for stmt in rendering
    )


def closes_a_run_in_branches(node: nodes.If) -> bool:
    """`{% if loop.last %}S{% else %}{% if <the next message> ... %}S{% endif %}{% endif %}`."""
    test = node.test
    if node.elif_ or type(test) is not nodes.Getattr or not is_loop_attr(test, "last"):
        return False
    text = static_text(node.body)
    rendering = [stmt for stmt in node.else_ if renders(stmt)]
    if not text or len(rendering) != 1 or not isinstance(rendering[0], nodes.If):
        return False
    inner = rendering[0]
    if inner.elif_ or any(map(renders, inner.else_)) or static_text(inner.body) != text:
        return False
    read = {n.name for n in with_self(inner.test, nodes.Name)}
    looked = [inner.test] + [
        stmt.node
        for stmt in node.else_
        if isinstance(stmt, nodes.Assign)
        and type(stmt.target) is nodes.Name
        and stmt.target.name in read
    ]
    return any(reads_the_next_item(expr) for expr in looked)


def only_looks_ahead(stmts: Sequence[nodes.Node]) -> bool:
    """Whether statements only set names from the message after this one."""
    assigns = [stmt for stmt in stmts if isinstance(stmt, nodes.Assign)]
    return len(assigns) == len(stmts) > 0 and all(reads_the_next_item(a.node) for a in assigns)


def _closes_a_run(test: nodes.Node) -> bool:
    """`loop.last or messages[loop.index0 + 1].role != "tool"`: the end of a run of messages."""
    if type(test) is not nodes.Or:
        return False
    sides = (test.left, test.right)
    last = any(type(s) is nodes.Getattr and is_loop_attr(s, "last") for s in sides)
    ahead = any(
        type(item.arg) is nodes.Add
        and any(is_loop_index(n) for n in with_self(item.arg, nodes.Getattr))
        for side in sides
        for item in with_self(side, nodes.Getitem)
    )
    return last and ahead


def true_by_default(expr: nodes.Node, flags: set[str]) -> bool:
    """`true`, a flag already on, `x if x is defined else true`, `x | default(true)`, and an
    `or` with one of them or with `x is undefined` (`x is not defined`) on one side: true
    when the caller passes nothing."""
    if type(expr) is nodes.Const:
        return expr.value is True
    if type(expr) in (nodes.Name, nodes.Getattr):  # `keep`, a namespace's `ns.keep`
        return dotted_name(expr) in flags
    if type(expr) is nodes.And:
        return true_by_default(expr.left, flags) and true_by_default(expr.right, flags)
    if type(expr) is nodes.Or:
        return any(
            _unset(side) is not None or true_by_default(side, flags)
            for side in (expr.left, expr.right)
        )
    if type(expr) is nodes.CondExpr:
        test = expr.test
        tested = type(test) is nodes.Test and test.name == "defined"
        value = expr.expr1
        same = tested and value is not None and dotted_name(value) == dotted_name(test.node)  # type: ignore[attr-defined]
        return bool(same) and expr.expr2 is not None and true_by_default(expr.expr2, flags)
    if type(expr) is nodes.Filter and expr.name == "default" and expr.args:
        return true_by_default(expr.args[0], flags)
    return False


def set_by_a_switch(sides: Sequence[tuple[nodes.Node, bool]], value: nodes.Node) -> bool:
    """
    Whether an assignment of `value`, under the `if` sides being walked, is a switch the
    request throws rather than the default: `{% if x is defined %}{% set f = x %}` (the caller
    passed `x`), or under a marker found in a message's text (`'/nothink' in text`).
    """
    if not sides:
        return False
    test, side = sides[-1]
    if type(test) is nodes.Test and test.name == "defined" and side:
        return type(value) is nodes.Name and dotted_name(test.node) == value.name
    return type(test) is nodes.Compare and _finds_a_marker(test)


def _finds_a_marker(test: nodes.Compare) -> bool:
    """`'/nothink' in text`: a literal searched for in a text, which a user types; not a
    reasoning delimiter (`'</think>' in text`), which says the turn has reasoning."""
    marker = test.expr.value if type(test.expr) is nodes.Const else None
    return (
        isinstance(marker, str)
        and not any(mark in marker for mark in REASONING_MARKS)
        and len(test.ops) == 1
        and test.ops[0].op == "in"
    )


def _unset(test: nodes.Node) -> str | None:
    """The name `x is undefined` or `x is not defined` tests, or None."""
    negated = type(test) is nodes.Not
    inner = test.node if negated else test  # type: ignore[attr-defined]
    if type(inner) is not nodes.Test or type(inner.node) is not nodes.Name:
        return None
    unset = inner.name == "undefined" if not negated else inner.name == "defined"
    return inner.node.name if unset else None


def flags_on(test: nodes.Node, flags: set[str]) -> set[str]:
    """The flags on by default that `test` reads (to name them in a note)."""
    return (
        {n.name for n in with_self(test, nodes.Name) if n.name in flags}
        | {
            n.node.name
            for n in with_self(test, nodes.Filter)
            if n.name == "default" and type(n.node) is nodes.Name and true_by_default(n, flags)
        }
        | {name for n in with_self(test, nodes.Node) if (name := _unset(n)) is not None}
    )


def on_position_by_default(
    test: nodes.Node,
    flags: set[str],
    loop_is_history: bool,
    aliases: AbstractSet[str] = frozenset(),
) -> bool:
    """
    Whether a test still depends on the message's position when every flag that is on by
    default is on: `keep or loop.index0 > ns.last_query_index` does not, `keep and ...` does.
    """
    if type(test) is nodes.Or:
        if any(_on_for_turns_with_reasoning(side, flags) for side in (test.left, test.right)):
            return False
        return any(
            on_position_by_default(side, flags, loop_is_history, aliases)
            for side in (test.left, test.right)
        )
    if type(test) is nodes.And:
        return any(
            on_position_by_default(side, flags, loop_is_history, aliases)
            for side in (test.left, test.right)
        )
    if type(test) is nodes.Not:
        return on_position_by_default(test.node, flags, loop_is_history, aliases)
    return position_test(test, loop_is_history=loop_is_history, aliases=aliases) is not None


def _on_for_turns_with_reasoning(test: nodes.Node, flags: set[str]) -> bool:
    """
    True by default, or by default for every turn that has reasoning (`keep and reasoning |
    length > 0`): a turn without any renders at most an empty think block either way.
    """
    if type(test) is nodes.And:
        return all(_on_for_turns_with_reasoning(side, flags) for side in (test.left, test.right))
    return true_by_default(test, flags) or _has_reasoning(test)


def measures_reasoning(test: nodes.Node) -> bool:
    """Whether a part of `test` asks if the turn's reasoning text is empty (`_has_reasoning`)."""
    return any(_has_reasoning(part) for part in with_self(test, nodes.Expr))


def _has_reasoning(test: nodes.Node) -> bool:
    """`reasoning | length > 0`, `reasoning | trim`: the turn's reasoning text is not empty (a
    test on its text, not on a switch named for thinking: `ns.thinking`)."""
    node = test.expr if type(test) is nodes.Compare else test
    measured = False
    while type(node) is nodes.Filter and node.node is not None:
        measured = measured or node.name in _TEXT_MEASURES
        node = node.node
    name = dotted_name(node)
    return measured and name is not None and any(w in name.lower() for w in REASONING_WORDS)


_TEXT_MEASURES = frozenset({"length", "count", "trim"})
