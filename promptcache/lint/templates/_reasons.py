"""
Reasons: why an expression differs per request (the first cause found), or None.

Functions of a `Walker` (`_walker`): a name bound to a hazard, a per-request or clock variable
(PC102, for a system prompt or after the conversation), a chat template's date (PC301), a
volatile call or filter (PC101); `hazard` makes the finding, a chat template's as PC301.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from jinja2 import nodes

from .._config import _matcher, snake_case
from ..rules.PC102 import (
    CLOCK_NAMES,
    DATE_NAMES,
    PER_CONVERSATION,
    SYSTEM_CLOCK_FIX,
    SYSTEM_PROMPTS_OWN,
    USERS_TURN_WORDS,
    is_deployment_date,
)
from ..rules.PC301 import CHAT_DATE_NAMES, CURRENT_DATE_FIELDS, date_fix
from ._bindings import Scope
from ._events import TAIL_NAME, Hazard
from ._nodes import defaulted, dotted_name

if TYPE_CHECKING:
    from ._walker import Walker

__all__ = ["hazard", "per_request", "reason"]

_EXISTENCE_TESTS = frozenset({"defined", "undefined", "none"})
_is_chat_date_name = _matcher(CHAT_DATE_NAMES)
_is_current_date_field = _matcher(CURRENT_DATE_FIELDS)
_is_clock_name = _matcher(CLOCK_NAMES)
_is_per_conversation_name = _matcher(PER_CONVERSATION)
_is_date_name = _matcher(DATE_NAMES)


def reason(walker: Walker, expr: nodes.Node, scope: Scope) -> Hazard | None:
    """Why `expr` differs per request (the first cause found), or None when it does not."""
    kind = type(expr)
    if kind is nodes.Const or kind is nodes.TemplateData:
        return None
    if kind is nodes.Test and expr.name in _EXISTENCE_TESTS:  # type: ignore[attr-defined]
        if type(expr.node) is nodes.Name:  # type: ignore[attr-defined]
            walker.state.defined.add(expr.node.name)  # type: ignore[attr-defined]
        return None  # `x is defined` checks configuration, not the value
    if kind is nodes.Name:
        return _name_reason(walker, expr, scope)  # type: ignore[arg-type]
    if walker.chat and _fixed_default_date(walker, expr, scope):
        return None
    if kind is nodes.Call:
        return _call_reason(walker, expr, scope)  # type: ignore[arg-type]
    if kind is nodes.Getitem and not walker.chat:
        newest = _newest_items(walker, expr, scope)  # type: ignore[arg-type]
        if newest is not None:
            return newest
    if kind is nodes.Getattr or kind is nodes.Getitem:
        dotted = dotted_name(expr)
        if dotted is not None:
            return _variable_reason(walker, dotted, expr.lineno, scope)
    if kind is nodes.Compare and not walker.chat:
        member = _membership_reason(walker, expr, scope)  # type: ignore[arg-type]
        if member is not None:
            return member
    if walker.chat and kind is nodes.Filter:
        role = _date_role(expr)  # type: ignore[arg-type]
        if role is not None:
            detail = f"the content of the `{role}` message (a role that says it holds the date)"
            return hazard(walker, "PC301", expr.lineno, role, detail)
    if kind is nodes.Filter and walker.config.is_volatile_filter(expr.name):  # type: ignore[attr-defined]
        return hazard(walker, "PC101", expr.lineno, expr.name, f"the `{expr.name}` filter")  # type: ignore[attr-defined]
    for child in expr.iter_child_nodes():
        found = reason(walker, child, scope)
        if found is not None:
            return found
    return None


_SELECTS = frozenset({"selectattr"})
_EQUALS = frozenset({"equalto", "eq", "=="})
_ROLE_WORDS = re.compile(r"[^\W\d]\w*")


def _date_role(expr: nodes.Filter) -> str | None:
    """
    The role of the messages a chat template picks (`messages | selectattr('role', 'equalto',
    'meta-current_date')`) when the role says they hold today's date, as a field named
    `current_date` does: their content is the date the client sends. None for any other.
    """
    if expr.name not in _SELECTS or len(expr.args) != 3:
        return None
    values = [arg.value if type(arg) is nodes.Const else None for arg in expr.args]
    field, test, role = values
    if field != "role" or test not in _EQUALS or not isinstance(role, str):
        return None
    return role if any(_is_current_date_field(w) for w in _ROLE_WORDS.findall(role)) else None


def _newest_items(walker: Walker, expr: nodes.Getitem, scope: Scope) -> Hazard | None:
    """
    The newest items of a list (`moves[-3:]`): a list cut from its end grows as the turns go
    by, so what the cut shows changes from one request to the next, whatever the list's name.
    A chat template's windows are judged as history (PC507); the list itself is judged by name.
    """
    arg = expr.arg
    if type(arg) is not nodes.Slice or arg.stop is not None or arg.step is not None:
        return None
    start = arg.start
    if type(start) is not nodes.Neg or type(start.node) is not nodes.Const:
        return None
    listed = dotted_name(expr.node)
    if listed is None or isinstance(scope.get(listed.split(".", 1)[0]), Hazard):
        return None  # not a variable's list, or already per request by its origin
    root, cut = listed.split(".", 1)[0], f"{listed}[-{start.node.value}:]"
    if not walker.system:
        return hazard(walker, "PC102", expr.lineno, root, f"the newest items `{cut}`")
    detail = f"the newest items of `{listed}` (`{cut}`) in a system prompt"
    return Hazard(
        "PC102", expr.lineno, root, detail, walker.origin, fix=SYSTEM_CLOCK_FIX, conversation=True
    )


def _fixed_default_date(walker: Walker, expr: nodes.Node, scope: Scope) -> bool:
    """
    A chat template's date variable that falls back to a fixed date (Llama 3.1's
    `date_string if date_string is defined else '26 Jul 2024'`, or `| default(...)`).

    The template itself renders the same date on every request; only a value the caller
    passes can change it, which the linter cannot see: said in a note, not warned.
    """
    found = defaulted(expr)
    if found is None:
        return False
    name, fallback = found
    if name in scope or not _is_chat_date_name(name):
        return False
    walker.note(
        expr.lineno,
        f"`{name}`: the template falls back to the fixed date {fallback!r}; if your code "
        f"passes `{name}`, give it a value that changes once a day at most",
    )
    return True


def _name_reason(walker: Walker, expr: nodes.Name, scope: Scope) -> Hazard | None:
    if expr.name == TAIL_NAME:
        return None
    return _variable_reason(walker, expr.name, expr.lineno, scope)


def _variable_reason(walker: Walker, dotted: str, line: int, scope: Scope) -> Hazard | None:
    root = dotted.split(".", 1)[0]
    if walker.chat and not walker.state.history and dotted in walker.state.content_flags:
        detail = (
            f"`{dotted}`, set from the text of every message up to the newest (a switch "
            "a new message can flip)"
        )
        return hazard(walker, "PC302", line, root, detail)
    bound = scope.get(dotted, scope.get(root))
    if isinstance(bound, Hazard):
        cause, cause_line = bound.origin_of()
        detail = f"`{dotted}` (set from {cause} on line {cause_line})"
        fix = bound.fix
        if bound.code == "PC301" and root in walker.state.defined:
            fix = date_fix(pin=root)  # the template lets the request set the value
        written = (bound.written or cause_line) if bound.origin == walker.origin else 0
        return Hazard(
            bound.code,
            line,
            root,
            detail,
            walker.origin,
            cause,
            cause_line,
            fix,
            written,
            conversation=bound.conversation,
            per_conversation=bound.per_conversation,
        )
    if bound is not None:
        if walker.chat and "." in dotted and _is_current_date_field(dotted.rsplit(".", 1)[-1]):
            # MiniMax-M2's `system_message.current_date`: today's date the client sends.
            detail = f"the date field `{dotted}`"
            return hazard(walker, "PC301", line, root, detail, fix=date_fix(variable=dotted))
        return None
    if walker.chat:
        if is_deployment_date(dotted, chat=True):
            return None  # the model's cutoff or release date: fixed by the deployment
        if _is_chat_date_name(dotted) or _is_chat_date_name(dotted.rsplit(".", 1)[-1]):
            detail = f"the date variable `{dotted}`"
            return hazard(walker, "PC301", line, root, detail, fix=date_fix(variable=dotted))
        return None
    if walker.system and dotted in SYSTEM_PROMPTS_OWN and not walker.config.strict:
        return None  # the system prompt's own text (PC106 asks about it above a long block)
    if walker.config.is_per_request(dotted) and not _flag_named_after(walker, dotted):
        fixed = _is_per_conversation(dotted) or _is_per_conversation(root)
        date = not _is_clock_name(dotted) and _is_date_name(dotted.rsplit(".", 1)[-1])
        clock = "the clock" if _is_clock_name(dotted) else "the per-turn"
        return per_request(
            walker,
            line,
            root,
            f"per-request variable `{dotted}`",
            per_turn=not fixed and not date,
            in_system=f"{clock} variable `{dotted}` of a system prompt",
        )
    return None


# The first word of a yes/no flag's name (`is_follow_up_question`, `has_memory`).
_FLAG_WORDS = frozenset({"is", "has", "have", "was", "were", "should", "needs", "can", "did"})


def _flag_named_after(walker: Walker, dotted: str) -> bool:
    """
    A yes/no flag that a per-request pattern matches only by the value it asks about
    (`is_owned_card_question` by `*_question`, `has_memory` by `*_memory`): it holds one of two
    values, not the question or the memory, so a branch on it forks the prefix in two, each
    cached; the value itself is reported where it renders. A flag of a per-request object
    (`user.is_admin`) or one the configuration lists by name stays per-request.
    """
    root, leaf = dotted.split(".", 1)[0], snake_case(dotted.rsplit(".", 1)[-1])
    first, _, rest = leaf.partition("_")
    if first not in _FLAG_WORDS or not rest:
        return False
    config = walker.config
    if dotted.lower() in {name.lower() for name in config.per_request}:
        return False
    return root == dotted or not config.is_per_request(root)


def per_request(
    walker: Walker, line: int, root: str, detail: str, *, per_turn: bool, in_system: str
) -> Hazard | None:
    """
    A per-request value (PC102): one that changes from turn to turn (`per_turn`), or one fixed
    for a conversation or a day. `in_system` is the detail of a per-turn value in a system prompt,
    which the whole conversation follows.
    """
    if walker.after_conversation and not per_turn:
        return None  # fixed for the conversation, the only one this text is cached in
    if not per_turn:
        # a date changes once a day, more seldom than who is asking: what follows it costs no
        # more than what follows a value fixed for the conversation
        return Hazard("PC102", line, root, detail, walker.origin, per_conversation=True)
    if walker.system:
        return Hazard(
            "PC102", line, root, in_system, walker.origin, fix=SYSTEM_CLOCK_FIX, conversation=True
        )
    return hazard(walker, "PC102", line, root, detail)


def _is_per_conversation(name: str) -> bool:
    """Who is asking, the session or the task (`PER_CONVERSATION`), or an attribute of the
    person (`user_level`): a `user_*` name with none of `USERS_TURN_WORDS` in it."""
    if _is_per_conversation_name(name):
        return True
    leaf = name.rsplit(".", 1)[-1].lower()
    if not leaf.startswith("user_"):
        return False
    return USERS_TURN_WORDS.isdisjoint(leaf[len("user_") :].split("_"))


def _call_reason(walker: Walker, expr: nodes.Call, scope: Scope) -> Hazard | None:
    dotted = dotted_name(expr.node)
    if dotted is not None:
        if walker.called_macro(expr.node, scope) is None and walker.config.is_volatile_call(dotted):
            anchor = dotted.rsplit(".", 1)[-1]
            detail = f"volatile call `{dotted}()`"
            return hazard(walker, "PC101", expr.lineno, anchor, detail, fix=date_fix(call=dotted))
        receiver = None if walker.chat else _value_read(expr.node)
        if receiver is not None:
            # a method of a per-request value reads it: `memory.get('data')`, `query.strip()`
            found = reason(walker, receiver, scope) or _formatted_time(walker, expr, scope)
            if found is not None:
                return found
    else:
        found = reason(walker, expr.node, scope)
        if found is not None:
            return found
    for child in (*expr.args, *expr.kwargs, expr.dyn_args, expr.dyn_kwargs):
        if child is not None:
            found = reason(walker, child, scope)
            if found is not None:
                return found
    return None


# The methods that write a date or a time, and the `strftime` directives of a time of day.
_TIME_FORMATTERS = frozenset({"strftime", "isoformat"})
_TIME_DIRECTIVES = re.compile(r"%[-#]?[HIMSfXcTRrpkl]")


def _formatted_time(walker: Walker, expr: nodes.Call, scope: Scope) -> Hazard | None:
    """
    `stamp.strftime('%H:%M')`, `when.isoformat()`: a date or a time the template formats from a
    value the caller passes (bound in the template, a loop's item, it is judged where it came
    from). A time of day changes from turn to turn; a date, or a format that does not say, once
    a day at most.
    """
    callee = expr.node
    if type(callee) is not nodes.Getattr or callee.attr not in _TIME_FORMATTERS:
        return None
    shown = dotted_name(callee.node)
    if shown is None or shown.split(".", 1)[0] in scope:
        return None
    formats = [a.value for a in expr.args if type(a) is nodes.Const and isinstance(a.value, str)]
    clock = any(_TIME_DIRECTIVES.search(f) for f in formats)
    what = f"the {'time' if clock else 'date'} `{shown}.{callee.attr}()` formats"
    root = shown.split(".", 1)[0]
    in_system = f"the clock `{shown}.{callee.attr}()` of a system prompt"
    return per_request(walker, expr.lineno, root, what, per_turn=clock, in_system=in_system)


# A mapping's views are judged by the mapping's order when iterated (PC201), not as a value;
# a membership test on one (`req not in memory.keys()`) is a test on the mapping itself.
_MAPPING_VIEWS = frozenset({"items", "keys", "values"})


def _value_read(callee: nodes.Node) -> nodes.Node | None:
    """The object whose value a method call reads (`memory` of `memory.get`), or None."""
    if isinstance(callee, nodes.Getattr) and callee.attr not in _MAPPING_VIEWS:
        return callee.node
    return None


def _membership_reason(walker: Walker, expr: nodes.Compare, scope: Scope) -> Hazard | None:
    """Why `x in mapping.keys()` differs per request: the mapping does."""
    for operand in expr.ops:
        view = operand.expr
        if operand.op in ("in", "notin") and type(view) is nodes.Call:
            callee = view.node
            if type(callee) is nodes.Getattr and callee.attr in _MAPPING_VIEWS:
                found = reason(walker, callee.node, scope)
                if found is not None:
                    return found
    return None


def hazard(
    walker: Walker, code: str, line: int, anchor: str, detail: str, *, fix: str = ""
) -> Hazard:
    if walker.chat and code in ("PC101", "PC102", "PC103"):
        code = "PC301"
    # A chat template's own finding may say which fix applies; PC101-PC103 keep their rule's.
    keeps_fix = code in ("PC301", "PC302")
    return Hazard(code, line, anchor, detail, walker.origin, fix=fix if keeps_fix else "")
