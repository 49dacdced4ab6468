"""
Statements: what each one does to the scope and to the events, in output order.

Functions of a `Walker` (`_walker`). `stmt` dispatches on the node's type (`_HANDLERS`); each
branch of an `if` runs on a copy of the scope and what they bound is merged; a `for` over the
history opens the walk's per-loop state (`WalkState.history`, `.loops`, `.reported`, ...) and
closes it with the `HISTORY` event; includes and imports walk the other file with a child walker.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from jinja2 import nodes

from .._loader import LoadedTemplate
from ._bindings import (
    STABLE,
    Captured,
    Macro,
    Scope,
    assigned_names,
    bind,
    mutated_name,
    scope_with,
    set_under,
)
from ._branches import (
    iteration_enders,
    position_test,
    same_on_every_side,
    set_by_a_switch,
    trailing_ifs,
    true_by_default,
)
from ._events import (
    BRANCHES,
    BRANCHES_END,
    HISTORY,
    OR_BRANCH,
    Event,
    Hazard,
    Pin,
    Unsized,
    count_tokens,
)
from ._nodes import (
    chain_tests,
    dotted_name,
    is_empty_string,
    is_look_ahead,
    is_messages,
    is_negative,
    namespace_sets,
    shown_name,
    with_self,
)
from ._output import _s_Output
from ._reasoning import flags_from_content, writes_reasoning_back

if TYPE_CHECKING:
    from ._state import WalkState
    from ._walker import Walker

__all__ = ["body", "describe_from", "stmt"]

# A role line (`user:` alone on its line, the next message's role), not a label before a value on
# the same line (`User: {{ m.content }}`, a turn quoted as text): the line ends in the text.
_ROLE_LINE = re.compile(r"(?im)^[ \t#]*(?:user|assistant|human|ai)[ \t]*:[ \t]*\r?\n")
# An inline role label that a value follows on its line: the end of a text before a value.
_ROLE_LABEL = re.compile(r"(?i)(?:^|\n)[ \t#*-]*(?:user|assistant|human|ai|bot)[ \t]*:[ \t]*$")
_HISTORY_NAME = re.compile(r"(?i)history|messages|conversation|turns")


def body(walker: Walker, stmts: Sequence[nodes.Node], scope: Scope, out: list[Event]) -> None:
    for stmt in stmts:
        walker.stmt(stmt, scope, out)


def stmt(walker: Walker, node: nodes.Node, scope: Scope, out: list[Event]) -> None:
    handler = _HANDLERS.get(type(node).__name__)
    if handler is not None:
        handler(walker, node, scope, out)
        return
    for child in node.iter_child_nodes():
        if isinstance(child, nodes.Stmt):
            walker.stmt(child, scope, out)


def _check_window(walker: Walker, node: nodes.For, out: list[Event]) -> None:
    """A loop over the last turns only (`chat_history[-10:]`): PC507, a sliding window."""
    if type(node.iter) is nodes.Getitem and type(node.iter.arg) is nodes.Slice:
        start = node.iter.arg.start
        if start is not None and is_negative(start):
            detail = "a sliding window over the conversation (`[-n:]`), which drops its oldest turn"
            out.append(walker.hazard("PC507", node.lineno, "for", detail))


def _s_If(walker: Walker, node: nodes.If, scope: Scope, out: list[Event]) -> None:
    """
    Each branch sees the scope before the `if`; a value tainted in any branch stays so.

    A branch on a per-request value is reported after the `if`: what varies is the
    branches themselves, and what is at risk is the content that follows them.
    """
    causes = [walker.reason(test, scope) for test in chain_tests(node)]  # once per test
    forks = _branch(walker, node, "if", causes[0])
    decides = not same_on_every_side(node)  # else every side does the same, whatever the test
    if decides:
        walker.check_position_branch(node, node.body, node.else_, out)
    # Every branch of a chain whose tests depend on the position renders by position.
    positional = int(decides and any(walker.on_position(test) for test in chain_tests(node)))
    state = walker.state
    state.positional += positional
    alternatives = bool(node.elif_ or node.else_)  # one request renders one of the branches
    if alternatives:
        out.append(BRANCHES)
    state.sides.append((node.test, True))
    after = [_pinned_walk(walker, node.test, node.body, scope, out)]
    state.sides.pop()
    for elif_, cause in zip(node.elif_, causes[1:], strict=True):
        out.append(OR_BRANCH)
        forks += _branch(walker, elif_, "elif", cause)
        if decides:
            walker.check_position_branch(elif_, elif_.body, [], out)
        after.append(_pinned_walk(walker, elif_.test, elif_.body, scope, out))
    state.sides.append((node.test, False))
    if alternatives:
        out.append(OR_BRANCH)
    after.append(_walked(walker, node.else_, scope, out) if node.else_ else dict(scope))
    state.sides.pop()
    if alternatives:
        out.append(BRANCHES_END)
    state.positional -= positional
    decided = next((cause for cause in causes if cause is not None), None)
    assigned = assigned_names(node) if decided is not None else set()
    for key in {k for branch in after for k in branch}:
        values = [branch[key] for branch in after if key in branch]
        if decided is not None and key in assigned:
            # A value set in a branch on a per-request test varies with the test.
            values.insert(0, set_under(decided, key, node.lineno, walker.origin))
        scope[key] = next((v for v in values if isinstance(v, Hazard)), values[-1])
    out.extend(forks)


def _branch(walker: Walker, node: nodes.If, keyword: str, hazard: Hazard | None) -> list[Event]:
    """The fork a test on a per-request value (`hazard`, from `reason`) makes."""
    if hazard is None or hazard.code == "PC302":
        # A test on a turn's re-rendered text (Gemma 4's `has_content` after its reasoning is
        # stripped) forks on the same cause, reported where that text renders.
        return []
    detail = f"`{{% {keyword} %}}` on {hazard.detail}"
    return [
        dataclasses.replace(
            walker.hazard("PC103", node.lineno, keyword, detail), about=hazard.anchor
        )
    ]


def _pinned_walk(
    walker: Walker, test: nodes.Node, body: Sequence[nodes.Node], scope: Scope, out: list[Event]
) -> Scope:
    """A branch's body, between `Pin` events when its test holds for one value of a name."""
    names = pinned_names(test)
    if names:
        out.append(Pin(names))
    inner = _walked(walker, body, scope, out)
    if names:
        out.append(Pin(names, end=True))
    return inner


def pinned_names(test: nodes.Node) -> frozenset[str]:
    """
    The names a test holds equal to one literal (`kind == 'flights'`, `'a' == mode`, either side
    of an `and`): the branch renders for that one value of each. Not `!=`, `in`, or a test of
    truth: those hold for many values.
    """
    if type(test) is nodes.And:
        return pinned_names(test.left) | pinned_names(test.right)
    if type(test) is not nodes.Compare or len(test.ops) != 1 or test.ops[0].op != "eq":
        return frozenset()
    sides = (test.expr, test.ops[0].expr)
    constants = [side for side in sides if type(side) is nodes.Const]
    named = [dotted_name(side) for side in sides if type(side) is not nodes.Const]
    if len(constants) != 1 or not named or named[0] is None:
        return frozenset()
    return frozenset({named[0]})


def _walked(walker: Walker, body: Sequence[nodes.Node], scope: Scope, out: list[Event]) -> Scope:
    inner = dict(scope)
    walker.body(body, inner, out)
    return inner


def _s_For(walker: Walker, node: nodes.For, scope: Scope, out: list[Event]) -> None:
    """Like a branch, a loop over per-request or unordered data is reported after it."""
    if not walker.chat and _writes_the_turns(node):
        # A prompt file's conversation (`.prompty`: `{{ item.role }}:` then the content): it
        # grows by appending, as a chat template's does; what it holds is not the template's.
        walker.body(node.body, scope_with(scope, node.target), [])
        _check_window(walker, node, out)
        out.append(HISTORY)
        return
    hazard = walker.reason(node.iter, scope)
    if hazard is None and not walker.chat and _quotes_the_turns(node):
        iterated = shown_name(node.iter) or "the conversation"
        root = iterated.split(".", 1)[0]
        detail = f"the conversation so far (`{iterated}`, quoted turn by turn)"
        hazard = walker.per_request(node.lineno, root, detail, per_turn=True, in_system=detail)
    after: list[Event] = []
    if hazard is not None:
        loop = walker.hazard("PC103", node.lineno, "for", f"`{{% for %}}` over {hazard.detail}")
        after.append(dataclasses.replace(loop, about=hazard.anchor))
    elif (view := walker.unsorted_to_report(node.iter, scope)) is not None:
        after.append(
            walker.hazard("PC201", node.lineno, view[1], f"loop over unsorted `{view[0]}`")
        )
    else:
        walker.check_unknown(node.iter, Unsized("a loop"), scope, out)
    state = walker.state
    inner = dict(scope)
    bind(inner, node.target, hazard or STABLE)
    inner["loop"] = STABLE
    if state.history and is_look_ahead(node.iter):
        state.look_ahead |= namespace_sets(node.body)
    if state.history:  # `{% for part in text.split('<channel|>') %}` strips it too
        walker.check_history_expr(node.iter, scope, out)
    history = walker.chat and (is_messages(node.iter) or walker.is_history_alias(node.iter))
    if history:
        state.content_flags |= flags_from_content(node.body)
        _check_window(walker, node, out)
    index = _message_index(node) if history else None
    if index is not None:
        state.position_names[index] = _LOOP_INDEX
    state.history += history
    state.loops.append(history)
    if history:
        state.keeps_reasoning.append(writes_reasoning_back(node.body, state.on_by_default))
    reported, state.reported = state.reported, (set() if history else state.reported)
    pending, state.pending = state.pending, (None if history else state.pending)
    trailing = state.trailing
    if history:
        state.trailing = frozenset(trailing_ifs(node.body) | iteration_enders(node.body))
    walker.body(node.body, inner, out)
    _keep_filled(node.body, inner, scope)
    if history and state.pending is not None:  # no branch that renders was reported
        walker.report_history("branch", state.pending, out)
    state.pending = pending
    if index is not None:
        state.position_names.pop(index, None)
    state.history -= history
    state.loops.pop()
    if history:
        state.keeps_reasoning.pop()
    state.reported = reported
    state.trailing = trailing
    out.extend(after)
    if history:
        out.append(HISTORY)
    walker.body(node.else_, scope, out)


# `loop.index0`, which a loop variable over `range(messages | length)` stands for.
_LOOP_INDEX = nodes.Getattr(nodes.Name("loop", "load"), "index0", "load")


def _message_index(node: nodes.For) -> str | None:
    """The variable of a loop over `range(messages | length)` (`{% for i in range(...) %}`):
    the message's index, which a test compares with a computed one as it does `loop.index0`."""
    iterated = node.iter
    is_range = (
        type(iterated) is nodes.Call
        and type(iterated.node) is nodes.Name
        and iterated.node.name == "range"
    )
    return node.target.name if is_range and isinstance(node.target, nodes.Name) else None


def _keep_filled(body: Sequence[nodes.Node], inner: Scope, scope: Scope) -> None:
    """A list the loop's body fills in place is filled after the loop: a `{% set %}` in the
    body does not leak out of it, an `append` to a list from outside it does."""
    for stmt in body:
        for call in with_self(stmt, nodes.Call):
            name = mutated_name(call)
            if name is not None and name in scope and isinstance(inner.get(name), Hazard):
                scope[name] = inner[name]


def _s_Assign(walker: Walker, node: nodes.Assign, scope: Scope, out: list[Event]) -> None:
    state = walker.state
    hazard = walker.reason(node.node, scope) or walker.macro_hazard(node.node, scope)
    if (
        isinstance(node.target, nodes.Name)
        and walker.chat
        and (is_messages(node.node) or walker.is_history_alias(node.node))
    ):
        state.aliases.add(node.target.name)  # the history under another name
    _track_default(state, node)
    if state.history:
        walker.check_history_expr(node.node, scope, out)
        if isinstance(node.target, nodes.Name) and is_empty_string(node.node):
            state.empty.add(node.target.name)
        if isinstance(node.target, nodes.Name):
            loop_is_history = state.in_history_loop()
            expanded = walker.expanded(node.node)
            if position_test(expanded, loop_is_history=loop_is_history, aliases=state.aliases):
                state.position_names[node.target.name] = expanded  # names in it written out
                state.position_sets[node.target.name] = node.lineno
            else:
                state.position_names.pop(node.target.name, None)
                state.position_sets.pop(node.target.name, None)
    _fill_in_place(walker, node.node, scope)
    if isinstance(node.target, nodes.NSRef):
        scope[f"{node.target.name}.{node.target.attr}"] = hazard or STABLE
    elif hazard is None and type(node.node) is nodes.Const and isinstance(node.node.value, str):
        bind(scope, node.target, Captured(count_tokens(node.node.value)))
    else:
        bind(scope, node.target, hazard or STABLE)


def _track_default(state: WalkState, node: nodes.Assign) -> None:
    """
    Which flags are on unless the request turns them off (`state.on_by_default`): a name or a
    namespace attribute set to such a value, the attributes a `namespace(...)` starts on; a
    switch the request throws (`set_by_a_switch`) leaves the default as it was.
    """
    target = node.target
    if isinstance(target, nodes.Name):
        key = target.name
    elif isinstance(target, nodes.NSRef):
        key = f"{target.name}.{target.attr}"
    else:
        return
    value = node.node
    if set_by_a_switch(state.sides, value):
        return
    _mark_default(state.on_by_default, key, value)
    if isinstance(value, nodes.Call) and dotted_name(value.node) == "namespace":
        for keyword in value.kwargs:
            _mark_default(state.on_by_default, f"{key}.{keyword.key}", keyword.value)


def _mark_default(flags: set[str], key: str, value: nodes.Node) -> None:
    if true_by_default(value, flags):
        flags.add(key)
    else:
        flags.discard(key)


def _s_AssignBlock(walker: Walker, node: nodes.AssignBlock, scope: Scope, out: list[Event]) -> None:
    captured: list[Event] = []
    walker.body(node.body, scope, captured)
    first = next((e for e in captured if isinstance(e, Hazard)), None)
    if first is None:
        bind(scope, node.target, Captured(sum(e for e in captured if isinstance(e, int))))
    else:
        detail = f"a `{{% set %}}` block that renders {first.detail}"
        bind(
            scope,
            node.target,
            Hazard(
                first.code,
                first.line,
                first.anchor,
                detail,
                walker.origin,
                fix=first.fix,
                conversation=first.conversation,
                per_conversation=first.per_conversation,
            ),
        )


def _s_Macro(walker: Walker, node: nodes.Macro, scope: Scope, out: list[Event]) -> None:
    scope[node.name] = Macro(name=node.name, node=node, scope=scope, walker=walker)


def _s_CallBlock(walker: Walker, node: nodes.CallBlock, scope: Scope, out: list[Event]) -> None:
    walker.render(node.call, scope, out)
    inner = dict(scope)
    for arg in node.args:
        bind(inner, arg, STABLE)
    walker.body(node.body, inner, out)


def _s_FilterBlock(walker: Walker, node: nodes.FilterBlock, scope: Scope, out: list[Event]) -> None:
    walker.body(node.body, scope, out)
    hazard = walker.reason(node.filter, scope)
    if hazard is not None:
        out.append(hazard)


def _s_With(walker: Walker, node: nodes.With, scope: Scope, out: list[Event]) -> None:
    inner = dict(scope)
    for target, value in zip(node.targets, node.values, strict=False):
        bind(inner, target, walker.reason(value, scope) or STABLE)
    walker.body(node.body, inner, out)


def _s_Block(walker: Walker, node: nodes.Block, scope: Scope, out: list[Event]) -> None:
    override = walker.overrides.get(node.name)
    if override is None:
        walker.body(node.body, scope, out)
        return
    block, owner, block_scope = override
    owner.body(block.body, dict(block_scope), out)


def _s_Include(walker: Walker, node: nodes.Include, scope: Scope, out: list[Event]) -> None:
    child = walker.child(
        node.template, node.lineno, "included template", optional=node.ignore_missing
    )
    if child is None:
        out.append(Unsized("an included template"))
        return
    child_walker, loaded = child
    events = child_walker.template(loaded.ast, dict(scope) if node.with_context else {})
    out.extend(walker.relocate(events, node.lineno, "include", describe_from(loaded, "included")))


def _s_Import(walker: Walker, node: nodes.Import, scope: Scope, out: list[Event]) -> None:
    scope[node.target] = _module(walker, node.template, node.lineno)


def _s_FromImport(walker: Walker, node: nodes.FromImport, scope: Scope, out: list[Event]) -> None:
    module = _module(walker, node.template, node.lineno)
    for name in node.names:
        source, alias = name if isinstance(name, tuple) else (name, name)
        scope[alias] = module.get(source, STABLE)


def _s_ExprStmt(walker: Walker, node: nodes.ExprStmt, scope: Scope, out: list[Event]) -> None:
    _fill_in_place(walker, node.node, scope)  # `{% do %}` renders nothing


def _fill_in_place(walker: Walker, expr: nodes.Node, scope: Scope) -> None:
    """A list or dict filled in place with a per-request value (`seen.append(memory.last)`)
    holds it from then on."""
    for call in with_self(expr, nodes.Call):
        name = mutated_name(call)
        if name is None or isinstance(scope.get(name), Hazard):
            continue
        for arg in (*call.args, *(kw.value for kw in call.kwargs)):
            found = walker.reason(arg, scope)
            if found is not None:
                scope[name] = found
                break


def _module(walker: Walker, template: nodes.Expr, line: int) -> dict[str, Macro]:
    child = walker.child(template, line, "imported template")
    if child is None:
        return {}
    child_walker, loaded = child
    module_scope: Scope = {}
    child_walker.template(loaded.ast, module_scope)
    return {k: v for k, v in module_scope.items() if isinstance(v, Macro)}


def describe_from(loaded: LoadedTemplate, kind: str) -> Callable[[Hazard], str]:
    def describe(hazard: Hazard) -> str:
        return f"{kind} template {loaded.name!r} (line {hazard.line}) renders {hazard.detail}"

    return describe


def _writes_the_turns(node: nodes.For) -> bool:
    """A loop over the history (`chat_history`, `history`, `messages`) that writes each item's
    role, or role lines (`user:`, `assistant:`): the conversation rendered turn by turn, as a
    `.prompty` file or a promptflow chat template does."""
    if not _over_the_history(node) or not isinstance(node.target, nodes.Name):
        return False
    item = node.target.name
    return any(
        dotted_name(child) in (f"{item}.role", f"{item}.type")
        or (type(child) is nodes.TemplateData and _ROLE_LINE.search(child.data) is not None)
        for output in node.find_all(nodes.Output)
        for child in output.nodes
    )


def _quotes_the_turns(node: nodes.For) -> bool:
    """A loop over the history (`recent_messages`) that writes each item after an inline role
    label (`User: {{ m.content }}`): the conversation quoted as the text of one message, which
    changes every turn, not messages appended after it."""
    if not _over_the_history(node):
        return False
    return any(
        type(text) is nodes.TemplateData
        and type(value) is not nodes.TemplateData
        and _ROLE_LABEL.search(text.data) is not None
        for output in node.find_all(nodes.Output)
        for text, value in zip(output.nodes, output.nodes[1:], strict=False)
    )


def _over_the_history(node: nodes.For) -> bool:
    iterated = dotted_name(node.iter.node if type(node.iter) is nodes.Getitem else node.iter)
    return iterated is not None and _HISTORY_NAME.search(iterated.rsplit(".", 1)[-1]) is not None


# The statements with a handler, by the name of their node type; any other statement is walked
# through its child statements.
_HANDLERS: dict[str, Callable[[Walker, Any, Scope, list[Event]], None]] = {
    "Output": _s_Output,
    "If": _s_If,
    "For": _s_For,
    "Assign": _s_Assign,
    "AssignBlock": _s_AssignBlock,
    "Macro": _s_Macro,
    "CallBlock": _s_CallBlock,
    "FilterBlock": _s_FilterBlock,
    "With": _s_With,
    "Block": _s_Block,
    "Include": _s_Include,
    "Import": _s_Import,
    "FromImport": _s_FromImport,
    "ExprStmt": _s_ExprStmt,
}
