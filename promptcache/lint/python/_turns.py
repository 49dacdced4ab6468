"""
What follows a value in a request: the conversation, or only the newest turn.

A volatile value costs what comes after it. With earlier turns after it (spliced history, a
list of unknown length, a chained server-side conversation) the whole conversation is prefilled
again when it changes; with only the newest turn after it (`[system, user]`, one `input=` string)
it loses just the static text that follows it, which the newest turn's own variation would lose
anyway below the threshold. Anything the analysis cannot see the length of counts as history.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from ._flow import flatten
from ._knowledge import Sink
from ._locations import node_label, taint_at
from ._values import NOT_FOLLOWED, Dep, Piece, Taint, Value
from ._walk import statements, walk
from .frameworks.openai_agents import HISTORY_KEYWORDS, RUNNER
from .frameworks.openai_agents import RUN_METHODS as RUN_METHODS_AGENTS
from .frameworks.pydantic_ai import HISTORY_KEYWORD, REGISTER_METHODS, RUN_METHODS
from .frameworks.semantic_kernel import CONVERSATIONS

if TYPE_CHECKING:
    from ._frame import Frame
    from ._project import Module

__all__ = [
    "STORE_METHODS",
    "WINDOW",
    "after_unknown",
    "agent_runs_carry_history",
    "bounded_to_newest",
    "conversation_follows",
    "descending_slice",
    "drop_oldest",
    "from_the_end",
    "front_cut",
    "front_deleted",
    "front_removed",
    "front_start",
    "history_after",
    "is_drawn_window",
    "is_history_name",
    "is_last",
    "is_named_window",
    "is_newest_turn",
    "names_a_history",
    "newest_clause",
    "newest_first",
    "newest_kept",
    "opens",
    "pieces_from",
    "rewrites_first_message",
    "runner_runs_carry_history",
    "self_trim",
    "sized",
    "starts_a_conversation",
    "starts_an_empty_history",
    "stored_window",
    "unknown_after",
    "windowed",
    "windowed_attributes",
]

WINDOW = "PC507"  # a sliding window of the history
# Names of a conversation's history (`messages`, `chat_history`, `msgs`, a typo such as
# `messaegs`). `msgs`, not `msg`: `log_msg[-2000:]` is the tail of a text, not of a history.
_HISTORY_NAME = re.compile(r"(?i)mess|msgs|hist|conv|chat|turn|dialog")
# A query for a store's newest rows first (`ORDER BY id DESC LIMIT n`, `SELECT TOP n ... ORDER
# BY id DESC`): read back as a history, the newest n turns.
_NEWEST_SQL = re.compile(
    r"(?is)\border\s+by\b[^;]*?\bdesc\b[^;]*?\blimit\b"
    r"|\bselect\s+top\b[^;]*?\border\s+by\b[^;]*?\bdesc\b"
)
# The clause of such a query that keeps only n rows.
_CUT_CLAUSE = re.compile(r"(?i)\b(?:limit|top)\b")
# Methods that run a query given as SQL text (a DB-API cursor, asyncpg, `databases`, pandas).
_SQL_METHODS = frozenset(
    {"execute", "fetch", "fetch_all", "fetchall", "read_sql", "read_sql_query", "raw", "query"}
)
# The methods `stored_window` looks at (any other call is no read of a store's newest rows).
STORE_METHODS = _SQL_METHODS | {"lrange", "limit"}
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
        turn.spliced
        or (bool(turn.deps) and not is_system_turn(turn))
        or (turn.fields is None and turn.pieces is None and turn.kind != "message")
        for turn in middle
    )


def is_system_turn(turn: Value) -> bool:
    """A system message among the turns (a `{"role": "system", ...}` literal, or a LangChain
    `SystemMessage`'s content): the request's own instructions, not the conversation's history,
    even where what it holds varies (notes retrieved for this request)."""
    if turn.kind == "message":
        return True
    role = turn.field("role")
    return role is not None and role.text in ("system", "developer")


def pieces_from(items: Sequence[Value]) -> tuple[Piece, ...]:
    """The content of consecutive turns in order, for the static text after a value."""
    return tuple(piece for item in items for piece in flatten(item))


def after_unknown(dep: Dep) -> bool:
    """Whether what follows `dep` inside its own value is unknown: a value the analysis could not
    follow may hide static text after it. (A value passed through a call the analysis cannot see
    into is taken as that call's result, as everywhere else, with nothing added.)"""
    return isinstance(dep, Taint) and dep.code == NOT_FOLLOWED


def agent_runs_carry_history(tree: ast.Module, decorators: Sequence[ast.expr]) -> bool:
    """
    Whether the runs of the agent a system-prompt function is registered on carry earlier turns.

    Only the module's own runs can tell: True unless the agent is a module name that the module
    runs at least once, never with `message_history` (or a `**` splat), and never hands to
    anything else (an adapter, a web app) that could run it with history.
    """
    names = {name for name in map(_receiver, decorators) if name}
    if not names:
        return True
    runs = 0
    for node in walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id in names and func.attr in RUN_METHODS:
                runs += 1
                if any(k.arg in (None, HISTORY_KEYWORD) for k in node.keywords):
                    return True
            elif func.value.id in names and func.attr not in REGISTER_METHODS:
                return True  # `agent.to_ag_ui()`, `agent.to_web()`: run elsewhere, with history
        handed = [*node.args, *(k.value for k in node.keywords)]
        if any(isinstance(a, ast.Name) and a.id in names for a in handed):
            return True
    return runs == 0


def runner_runs_carry_history(tree: ast.Module, made: ast.Call) -> bool:
    """
    Whether the Agents SDK agent that `made` constructs is run with earlier turns after its
    instructions.

    Only the module's own runs can tell: True unless `made` is bound to a module name that the
    module runs at least once (`Runner.run(agent, ...)`), always with one text as the input (no
    list of turns, session, chained response or `**` splat), and never hands to anything else
    (another agent's `handoffs`, `agent.as_tool()`), which could run it inside a conversation.
    """
    name = next(
        (
            t.id
            for s in tree.body
            if isinstance(s, ast.Assign) and s.value is made
            for t in s.targets
            if isinstance(t, ast.Name)
        ),
        "",
    )
    if not name:
        return True
    runs = 0
    for node in walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == name:
                return True  # `agent.as_tool()`, `agent.clone()`: used beyond its own runs
            continue
        if not isinstance(node, ast.Call):
            continue
        if _runs(node, name):
            runs += 1
            given = node.args[1] if len(node.args) > 1 else _keyword(node, "input")
            one_text = isinstance(given, ast.JoinedStr) or (
                isinstance(given, ast.Constant) and isinstance(given.value, str)
            )
            if not one_text or any(k.arg in (None, *HISTORY_KEYWORDS) for k in node.keywords):
                return True
            continue
        handed = [*node.args, *(k.value for k in node.keywords)]
        if node is not made and any(
            isinstance(n, ast.Name) and n.id == name for a in handed for n in walk(a)
        ):
            return True
    return runs == 0


def _runs(call: ast.Call, name: str) -> bool:
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in RUN_METHODS_AGENTS
        and isinstance(func.value, ast.Name)
        and func.value.id == RUNNER
        and bool(call.args)
        and isinstance(call.args[0], ast.Name)
        and call.args[0].id == name
    )


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _receiver(decorator: ast.expr) -> str:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        return target.value.id
    return ""


def opens(pieces: Sequence[Piece], dep: Dep, unknown_length: int, followed_by: int = 0) -> bool:
    """Whether `dep` comes before most of the static text around it: a clock that opens a short
    system prompt keeps even that prompt out of the cache, where one at its end costs nothing.
    A part of unknown text before it counts as `unknown_length` characters; `followed_by`
    characters of static text come after `pieces` (where a wrapper places its argument)."""
    before = 0
    for index, piece in enumerate(pieces):
        if isinstance(piece, str):
            before += len(piece)
        elif dep in piece:
            after = sum(len(p) for p in pieces[index + 1 :] if isinstance(p, str))
            return after + followed_by > before
        else:
            before += unknown_length
    return False


def unknown_after(pieces: Sequence[Piece], dep: Dep) -> bool:
    """Whether text of unknown length (an empty piece: a library call's result, an outside
    name) follows `dep`: it may be the long static part (`format_as_xml(EXAMPLES)`)."""
    for index, piece in enumerate(pieces):
        if not isinstance(piece, str) and dep in piece:
            return any(not isinstance(p, str) and not p for p in pieces[index + 1 :])
    return False


def starts_a_conversation(node: ast.Assign, *, global_name: bool = False) -> bool:
    """`self.messages = [{"role": "system", ...}, ...]` or `store[user]["history"] = [...]`: a
    message list opening with a system message, kept beyond the call (on an object or in a
    store, or `global_name`: in a module global, which a script's loop keeps across its
    requests), is a conversation's history being created, not a request being built."""
    listed = node.value
    kind = type(listed)  # most values are neither (exact types: `ast` makes no subclasses)
    if kind is not ast.Call and kind is not ast.List:
        return False
    kept = any(
        isinstance(t, ast.Attribute | ast.Subscript) or (global_name and isinstance(t, ast.Name))
        for t in node.targets
    )
    if isinstance(listed, ast.Call) and kept:  # `self.history = ChatHistory(system_message=...)`
        func = listed.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in CONVERSATIONS
    if not isinstance(listed, ast.List) or not listed.elts:
        return False
    first = listed.elts[0]
    if not isinstance(first, ast.Dict):
        return False
    return kept and any(
        isinstance(k, ast.Constant)
        and k.value == "role"
        and isinstance(v, ast.Constant)
        and v.value in ("system", "developer")
        for k, v in zip(first.keys, first.values, strict=True)
    )


def starts_an_empty_history(init: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`self.history: list[Message] = []` in a class's `__init__`: each instance starts a
    conversation of its own, so what the same `__init__` stores on it (its system prompt, the
    user it serves) is fixed for that conversation, as what a history opens with is."""
    arguments = init.args.posonlyargs + init.args.args
    if not arguments:
        return False
    owner = arguments[0].arg
    for node in ast.walk(init):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if not _empty_list(value):
            continue
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == owner
                and names_a_history(target.attr)
            ):
                return True
    return False


def _empty_list(node: ast.expr) -> bool:
    """`[]`, `list()`, `deque()`: an empty list of turns."""
    if isinstance(node, ast.List):
        return not node.elts
    return (
        isinstance(node, ast.Call)
        and not node.args
        and isinstance(node.func, ast.Name)
        and node.func.id in ("list", "deque")
    )


def rewrites_first_message(node: ast.Assign) -> bool:
    """`self.messages[0]["content"] = ...`, `store["history"][0] = {"role": "system", ...}`: the
    first message of a conversation kept beyond the call (on an object or in a store) written
    again, which every later request of that conversation sends with the whole history after
    it: what it is written with is the system prompt of each of them."""
    for target in node.targets:
        if not isinstance(target, ast.Subscript):
            continue
        head = target
        if _is_constant(target.slice, "content") and isinstance(target.value, ast.Subscript):
            head = target.value
        elif not _opens_with_system(node.value):
            continue
        if _is_constant(head.slice, 0) and isinstance(head.value, ast.Attribute | ast.Subscript):
            return True
    return False


def _is_constant(node: ast.expr, value: object) -> bool:
    return (
        isinstance(node, ast.Constant) and type(node.value) is type(value) and node.value == value
    )


def _opens_with_system(value: ast.expr) -> bool:
    return isinstance(value, ast.Dict) and any(
        isinstance(k, ast.Constant)
        and k.value == "role"
        and isinstance(v, ast.Constant)
        and v.value in ("system", "developer")
        for k, v in zip(value.keys, value.values, strict=True)
    )


def is_history_window(node: ast.Subscript) -> bool:
    """`messages[-n:]`, `state["messages"][-6:]` (or `[-n:-1]`, without the newest): the last n
    turns of a history, a window that slides once the history outgrows it."""
    key = node.slice
    if not isinstance(key, ast.Slice) or not _near_the_end(key.upper) or key.step is not None:
        return False
    if key.lower is None or not _from_the_end(key.lower, node.value):
        return False
    return is_history_name(node.value) or _kept_by_a_conversation(node.value)


def _kept_by_a_conversation(expr: ast.expr) -> bool:
    """`conversation.interactions`, `chat.entries`: a list an object named as the conversation
    keeps (a plural attribute): its items are the conversation's turns, whatever they are
    called."""
    return (
        isinstance(expr, ast.Attribute) and expr.attr.endswith("s") and is_history_name(expr.value)
    )


def _near_the_end(upper: ast.expr | None) -> bool:
    """A slice end at the end of the list, or a few items short of it (`[-n:-1]`: the newest
    turns but the latest, which the request sends on its own): the window slides all the same."""
    return upper is None or (
        isinstance(upper, ast.UnaryOp)
        and isinstance(upper.op, ast.USub)
        and isinstance(upper.operand, ast.Constant)
        and type(upper.operand.value) is int
    )


def is_named_window(node: ast.Subscript, scope: Sequence[ast.stmt]) -> bool:
    """`history[start:]` after `start = max(0, len(history) - n)` in the same function
    (`scope`, its body): a window whose start is counted from the end in a name of its own."""
    key = node.slice
    if not isinstance(key, ast.Slice) or not _near_the_end(key.upper) or key.step is not None:
        return False
    if not isinstance(key.lower, ast.Name) or not is_history_name(node.value):
        return False
    name = key.lower.id
    for statement in statements(list(scope)):
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == name
            and _from_the_end(statement.value, node.value)
        ):
            return True
    return False


def is_drawn_window(node: ast.Subscript, scope: Sequence[ast.stmt]) -> bool:
    """`[m async for m in channel.history()][-n:]`, `list(thread.fetch_messages())[-n:]`, or
    `rest[-n:]` after `rest = [m for m in msgs if ...]` in the same function (`scope`, its
    body): the newest turns of a list drawn from a history (filtered, copied or fetched), which
    is not named as one itself: a window that slides as `is_history_window`'s does."""
    key = node.slice
    if not isinstance(key, ast.Slice) or not _near_the_end(key.upper) or key.step is not None:
        return False
    if key.lower is None or not _from_the_end(key.lower, node.value):
        return False
    return _drawn_from_history(node.value, scope, 0)


# The calls that copy, filter or sort a list's items, in its order or another.
_COPIES = frozenset({"list", "tuple", "sorted", "filter"})


def _drawn_from_history(expr: ast.expr, scope: Sequence[ast.stmt], depth: int) -> bool:
    """Whether `expr` holds turns drawn from a history: a comprehension over one, a copy of
    one, a call named as one (`channel.history(...)`, `get_messages(room)`), or a local name
    bound to such a list in `scope` (followed two names deep)."""
    if isinstance(expr, ast.ListComp | ast.GeneratorExp):
        return any(_of_history(g.iter, scope, depth) for g in expr.generators)
    if isinstance(expr, ast.Await):
        return _drawn_from_history(expr.value, scope, depth)
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Name) and func.id in _COPIES:
            return any(_of_history(arg, scope, depth) for arg in expr.args)
        return names_a_history(_last_name(func))
    if isinstance(expr, ast.Name) and depth < 2:
        return any(
            isinstance(s, ast.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name)
            and s.targets[0].id == expr.id
            and _of_history(s.value, scope, depth + 1)
            for s in statements(list(scope))
        )
    return False


def _of_history(expr: ast.expr, scope: Sequence[ast.stmt], depth: int) -> bool:
    return is_history_name(expr) or _drawn_from_history(expr, scope, depth)


def is_history_name(expr: ast.expr) -> bool:
    return names_a_history(_last_name(expr))


def names_a_history(name: str) -> bool:
    """`messages`, `chat_history`, `conv_his`: a name a conversation's history goes by."""
    return bool(_HISTORY_NAME.search(name))


def from_the_end(lower: ast.expr, base: ast.expr) -> bool:
    """A slice start counted from the end of `base` (`-n`, `len(h) - n`; see `_from_the_end`)."""
    return _from_the_end(lower, base)


def front_start(lower: ast.expr, base: ast.expr) -> bool:
    """A slice start that drops turns from the front of `base` (see `_front_start`)."""
    return _front_start(lower, base)


def _from_the_end(lower: ast.expr, base: ast.expr) -> bool:
    """A slice start counted from the end: `-n`, `-k * 2`, `len(history) - n`, `max(0, ...)`.
    `[-1:]` is the newest turn alone: the request is a single turn, and no window slides."""
    if isinstance(lower, ast.UnaryOp) and isinstance(lower.op, ast.USub):
        operand = lower.operand
        return not (isinstance(operand, ast.Constant) and operand.value == 1)
    if isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Mult | ast.FloorDiv):
        return _from_the_end(lower.left, base) or _from_the_end(lower.right, base)
    if isinstance(lower, ast.BinOp) and isinstance(lower.op, ast.Sub):
        return _is_len_of(lower.left, base)
    if isinstance(lower, ast.Call) and isinstance(lower.func, ast.Name) and lower.func.id == "max":
        return any(_from_the_end(arg, base) for arg in lower.args)
    return False


def stored_window(node: ast.Call, sql: str, where: str) -> bool:
    """
    Whether `node` reads the newest turns of a history kept in a store: SQL `ORDER BY ... DESC
    LIMIT n` (its text is `sql`), an ORM's or Mongo's `.order_by(desc).limit(n)` /
    `.sort(key, -1).limit(n)`, Redis's `lrange(key, -n, -1)`. Once the conversation outgrows n,
    the turns it returns start later on every request: a window that slides.

    Only a store of turns counts: the query, its text or the function it is made in (`where`)
    names a history (`messages`, `chat_history`, `get_history()`); the newest orders are not.
    """
    func = node.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr == "lrange":
        newest = len(node.args) == 3 and _from_the_end(node.args[1], node) and is_last(node.args[2])
    elif func.attr == "limit":
        newest = _descending_chain(func.value)
    elif func.attr in _SQL_METHODS and sql:
        return bool(_NEWEST_SQL.search(sql)) and bool(_HISTORY_NAME.search(sql))
    else:
        return False
    return newest and bool(_HISTORY_NAME.search(f"{ast.unparse(node)} {where}"))


def newest_clause(node: ast.Call) -> ast.AST | None:
    """Where a query's SQL text (`stored_window`), written as a literal over several lines,
    says how many of the newest rows it keeps: its `LIMIT` (or `TOP`) on its own line, which
    makes the read a window (the call starts lines above it). None when the text is not such a
    literal, or its lines cannot be told from its value (escapes, continuations)."""
    if not node.args:
        return None
    for sub in ast.walk(node.args[0]):
        if not isinstance(sub, ast.Constant) or not isinstance(sub.value, str):
            continue
        text, end = sub.value, sub.end_lineno
        found = _NEWEST_SQL.search(text)
        if found is None or end is None or text.count("\n") != end - sub.lineno:
            continue
        clause = _CUT_CLAUSE.search(text, found.start())
        if clause is None:
            continue
        start = text.rfind("\n", 0, clause.start()) + 1
        if not start:
            continue  # on the literal's first line: the call's own line is as good
        spot = ast.Name(id=clause.group())
        spot.lineno = spot.end_lineno = sub.lineno + text.count("\n", 0, clause.start())
        spot.col_offset = len(text[start : clause.start()].encode())
        spot.end_col_offset = spot.col_offset + len(clause.group())
        return spot
    return None


def descending_slice(node: ast.Subscript, where: str) -> bool:
    """`Message.objects.filter(...).order_by("-created")[:n]`: a Django queryset of a history's
    newest rows first, cut to n (see `stored_window`)."""
    key = node.slice
    if not isinstance(key, ast.Slice) or key.upper is None or key.step is not None:
        return False
    if not _non_negative(key.lower) or not _descending_chain(node.value):
        return False
    return bool(_HISTORY_NAME.search(f"{ast.unparse(node)} {where}"))


def _descending_chain(expr: ast.expr) -> bool:
    """Whether a chain of method calls sorts newest first somewhere along it."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        if expr.func.attr in ("order_by", "sort") and any(
            map(_descending, [*expr.args, *(k.value for k in expr.keywords)])
        ):
            return True
        expr = expr.func.value
    return False


def _descending(expr: ast.expr) -> bool:
    """A sort key that puts the newest first: `Model.id.desc()`, `desc(Model.id)`, `"-created"`
    (Django), `-1` or `DESCENDING` (Mongo), `[("ts", -1)]`, `{"ts": -1}`."""
    if isinstance(expr, ast.Call):
        func = expr.func
        return _last_name(func) == "desc" or getattr(func, "id", "") == "desc"
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str) and expr.value.startswith("-")
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return isinstance(expr.operand, ast.Constant) and expr.operand.value == 1
    if isinstance(expr, ast.Name | ast.Attribute):
        return _last_name(expr) == "DESCENDING"
    if isinstance(expr, ast.List | ast.Tuple):
        return any(map(_descending, expr.elts))
    if isinstance(expr, ast.Dict):
        return any(map(_descending, expr.values))
    return False


def is_last(expr: ast.expr) -> bool:
    """`-1`: the index of the newest item."""
    return (
        isinstance(expr, ast.UnaryOp)
        and isinstance(expr.op, ast.USub)
        and isinstance(expr.operand, ast.Constant)
        and expr.operand.value == 1
    )


def _is_len_of(expr: ast.expr, base: ast.expr) -> bool:
    return (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "len"
        and len(expr.args) == 1
        and ast.dump(expr.args[0]) == ast.dump(base)
    )


def front_removed(node: ast.Call) -> ast.expr | None:
    """`history.pop(0)`, `messages.pop(1)` (after the system message): the history whose oldest
    turns this drops, when it is named as one."""
    popped = _front_pop(node)
    return popped if popped is not None and is_history_name(popped) else None


def front_deleted(target: ast.expr) -> ast.expr | None:
    """`del messages[1:3]`, `del history[0]`, `del history[:2]`: the history whose oldest turns
    this drops, when it is named as one."""
    if not isinstance(target, ast.Subscript) or not is_history_name(target.value):
        return None
    key = target.slice
    if isinstance(key, ast.Constant):
        front = type(key.value) is int and key.value >= 0
    elif isinstance(key, ast.Slice):
        front = _non_negative(key.lower) and key.upper is not None and _non_negative(key.upper)
    else:
        front = False
    return target.value if front else None


def front_cut(node: ast.stmt) -> ast.expr | None:
    """`messages = messages[1:]`, `messages = [messages[0]] + messages[2:]` (or `messages[:1] +
    ...`): the history reassigned without its oldest turns. Only a cut made in a loop or under
    a size test is a window (the caller says which): once, it is a fixed part left out."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return None
    target, value = node.targets[0], node.value
    if not isinstance(target, ast.Name | ast.Attribute) or not is_history_name(target):
        return None
    same = ast.unparse(target)  # the target's text (its `ast.dump` says Store, a read's Load)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        head, value = value.left, value.right
        if not _is_head_of(head, same):
            return None
    if (
        isinstance(value, ast.Subscript)
        and ast.unparse(value.value) == same
        and isinstance(value.slice, ast.Slice)
        and value.slice.upper is None
        and value.slice.step is None
        and value.slice.lower is not None
        and _front_start(value.slice.lower, value.value)
    ):
        return target
    return None


def _front_start(lower: ast.expr, base: ast.expr) -> bool:
    """A slice start that drops turns from the front: `1`, or one computed (`len(m) // 2`,
    `cut`), counted from the start rather than the end (that is `bounded_to_newest`'s)."""
    if isinstance(lower, ast.Constant):
        return type(lower.value) is int and lower.value >= 1
    if isinstance(lower, ast.UnaryOp):
        return False
    return isinstance(lower, ast.Name | ast.Call | ast.BinOp) and not _from_the_end(lower, base)


def bounded_to_newest(node: ast.stmt) -> ast.expr | None:
    """`cleaned = cleaned[-MAX:]`, `self.buffer = self.buffer[-n:]`: a list cut back to its newest
    items, whatever it is named. Under a size test or in a loop (the caller says which) this is a
    bounded buffer that slides; it is a history window wherever it is sent as turns."""
    if not isinstance(node, ast.Assign) or len(node.targets) != 1:
        return None
    target, value = node.targets[0], node.value
    if not isinstance(target, ast.Name | ast.Attribute) or not isinstance(value, ast.Subscript):
        return None
    key = value.slice
    if not isinstance(key, ast.Slice) or key.upper is not None or key.step is not None:
        return None
    if ast.unparse(value.value) != ast.unparse(target) or key.lower is None:
        return None
    return target if _from_the_end(key.lower, value.value) else None


def _is_head_of(expr: ast.expr, same: str) -> bool:
    """`[messages[0]]` or `messages[:1]`: the history's first message (its system message)."""
    if isinstance(expr, ast.List) and len(expr.elts) == 1:
        expr = expr.elts[0]
        return isinstance(expr, ast.Subscript) and ast.unparse(expr.value) == same
    return (
        isinstance(expr, ast.Subscript)
        and ast.unparse(expr.value) == same
        and isinstance(expr.slice, ast.Slice)
        and expr.slice.lower is None
    )


def _non_negative(expr: ast.expr | None) -> bool:
    return expr is None or (
        isinstance(expr, ast.Constant) and type(expr.value) is int and expr.value >= 0
    )


def is_newest_turn(node: ast.Subscript) -> bool:
    """`messages[-1]`, `state["messages"][-1]`: the newest turn of a conversation, this
    request's own (what is read out of it, its content, is per-request data)."""
    key = node.slice
    return (
        isinstance(key, ast.UnaryOp)
        and isinstance(key.op, ast.USub)
        and isinstance(key.operand, ast.Constant)
        and key.operand.value == 1
        and bool(_HISTORY_NAME.search(_last_name(node.value)))
    )


def newest_first(expr: ast.expr) -> bool:
    """`reversed(messages)`, `history[::-1]`: a conversation walked from its newest turn (a loop
    over it looks for the newest user message, this request's own)."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.args:
        listed = expr.args[0] if expr.func.id == "reversed" else None
    elif isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Slice):
        step = expr.slice.step
        backwards = isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub)
        listed = expr.value if backwards and expr.slice.lower is None else None
    else:
        listed = None
    return listed is not None and bool(_HISTORY_NAME.search(_last_name(listed)))


def newest_kept(node: ast.For | ast.AsyncFor) -> ast.expr | None:
    """`for m in reversed(history): ... if total > budget: break; kept.insert(0, m)` (or
    `kept.append(m)`, reversed after): the newest turns gathered until a budget is spent: `kept` is a window of the
    history once the conversation outgrows the budget (`newest_first` says the loop's order)."""
    if not newest_first(node.iter):
        return None
    kept = None
    stops = False
    for statement in statements(node.body):
        if isinstance(statement, ast.Break):
            stops = True
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            func = call.func
            front = (
                isinstance(func, ast.Attribute)
                and func.attr == "insert"
                and len(call.args) == 2
                and _is_constant(call.args[0], 0)
            ) or (isinstance(func, ast.Attribute) and func.attr == "appendleft")
            # `kept.append(m)`, put back in order after the loop (`kept.reverse()`) or not:
            # the same newest turns, gathered newest first.
            back = isinstance(func, ast.Attribute) and func.attr == "append" and len(call.args) == 1
            if (
                (front or back)
                and isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
            ):
                kept = func.value
    return kept if stops else None


def _last_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant):
        return str(expr.slice.value)
    if isinstance(expr, ast.Call) and _last_name(expr.func) in ("get", "setdefault"):
        # `histories.get(uid, [])`: an entry of a dict of histories, named by its key when the
        # key is written, else by the dict.
        key = expr.args[0] if expr.args else None
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
        return _last_name(expr.func.value) if isinstance(expr.func, ast.Attribute) else ""
    return ""


def drop_oldest(frame: Frame, history: ast.expr, node: ast.AST) -> None:
    """The history named by `history` loses its oldest turns here: from now on it is a window
    that slides (PC507) wherever it is sent."""
    frame.assign(history, windowed(frame.module, frame.eval(history), node))


def windowed(module: Module, history: Value | None, node: ast.AST) -> Value:
    """`history` once `node` has dropped its oldest turns."""
    label = f"`{node_label(module, node)}` (drops the oldest turns of the history)"
    # Which turns remain is no longer known: the history becomes a list of unknown turns.
    kept = history.deps if history is not None else frozenset()
    return Value(deps=kept | {taint_at(module, WINDOW, label, _cut_in(node))}, kind="list")


def _cut_in(node: ast.AST) -> ast.AST:
    """Where a trim written over several lines cuts: the slice from the end in the value it
    assigns (`histories[uid] = (` / `[histories[uid][0]] + histories[uid][-n:]` / `)`) or in
    the size test's body (`if len(h) > n:` / `h = h[-n:]`), else the trim itself."""
    if not isinstance(node, ast.Assign | ast.If | ast.While) or node.end_lineno == node.lineno:
        return node
    for sub in ast.walk(node.value if isinstance(node, ast.Assign) else node):
        if (
            isinstance(sub, ast.Subscript)
            and isinstance(sub.slice, ast.Slice)
            and isinstance(sub.slice.lower, ast.UnaryOp)
            and isinstance(sub.slice.lower.op, ast.USub)
        ):
            return sub
    return node


def windowed_attributes(cls: ast.ClassDef, module: Module) -> dict[str, ast.AST]:
    """The histories a class keeps on `self` and trims in any of its methods (`self.messages =
    self.messages[-n:]`, `self.history.pop(0)`, `del self.turns[:2]`, a front cut under a size
    test), each with the statement that trims it. The method that sends the history is often
    another one (`record()` trims, `send()` sends), so the window belongs to the attribute."""
    found: dict[str, ast.AST] = {}
    methods = _instance_methods(cls)
    if not _may_keep_window(cls, methods, module):
        return found
    for method, me in methods:
        for node in walk(method):
            if type(node) in _TRIMMING and _may_trim(node, me):
                for history in _trimmed(node):
                    if isinstance(history.value, ast.Name) and history.value.id == me:
                        found.setdefault(history.attr, node)
    return found


def _instance_methods(
    cls: ast.ClassDef,
) -> list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    """The methods of `cls` that take an instance, each with its name for it (`self`)."""
    found = []
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) or not method.args.args:
            continue
        if any(
            _last_name(d) == "staticmethod" or getattr(d, "id", "") == "staticmethod"
            for d in method.decorator_list
        ):
            continue
        found.append((method, method.args.args[0].arg))
    return found


def _may_keep_window(
    cls: ast.ClassDef,
    methods: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]],
    module: Module,
) -> bool:
    """
    Whether any node of `methods` trims an attribute, found without walking every expression
    of the class, which costs as much as a fifth of a large module's lint and finds nothing in
    most classes: an assignment, loop, test or `del` is a statement, reached by the statement
    walk and judged as the full walk judges it; a trimming call is a `.pop` of an int literal,
    which its class's text then shows (`_POP_FRONT`). When this says yes, the full walk runs
    as before, so the statement kept for each attribute (the first in walk order) is the same.
    """
    for method, me in methods:
        for node in statements(method.body):
            if type(node) in _TRIMMING and _may_trim(node, me) and _trims(node, me):
                return True
    last = cls.end_lineno or cls.lineno
    lines = (module.line_bytes(line) for line in range(cls.lineno, last + 1))
    text = b"\n".join(lines)
    return b"pop" in text and _POP_FRONT.search(text) is not None


def _trims(node: ast.AST, me: str) -> bool:
    return any(isinstance(h.value, ast.Name) and h.value.id == me for h in _trimmed(node))


# `.pop(0)` as it can be written: spaces, line continuations and comments before and inside
# the parentheses, the index in parentheses of its own; an int literal starts with a digit.
_POP_FRONT = re.compile(rb"pop(?:\s|\\\n|#[^\n]*\n)*\((?:\s|\\\n|#[^\n]*\n|\()*\d")


# The statements and calls `_trimmed` reads (exact types: `ast` makes no subclasses).
_TRIMMING = frozenset({ast.Call, ast.Delete, ast.Assign, ast.While, ast.For, ast.If})


def _may_trim(node: ast.AST, me: str) -> bool:
    """Whether `node` can trim an attribute of `me` at all: an assignment only trims its own
    target, a loop or test only the targets of the assignments in its body, and a call only
    when it is a `.pop`; the rest (most assignments and calls of a class's methods) are passed
    over before `_trimmed` unparses and walks them. The attributes found are the same."""
    if type(node) is ast.Assign:
        return _of_me(node, me)
    if type(node) in (ast.While, ast.For, ast.If):
        return any(type(s) is ast.Assign and _of_me(s, me) for s in node.body)  # type: ignore[attr-defined]
    if type(node) is ast.Call:  # only `<history>.pop(<index>)` trims
        func = node.func
        return type(func) is ast.Attribute and func.attr == "pop"
    return True


def _of_me(node: ast.Assign, me: str) -> bool:
    target = node.targets[0] if len(node.targets) == 1 else None
    return (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == me
    )


@lru_cache(maxsize=512)  # asked at every instantiation of the class
def self_trim(cls: ast.ClassDef) -> tuple[ast.AST, str] | None:
    """
    The statement by which a list type drops its own oldest items (`class ChatHistory(list)`
    whose `append` does `self.pop(0)` once full, or `self.pop(1)` to keep a system message),
    with the attribute its size test compares against (`if len(self) == self.total_length`;
    empty when the pop is not under such a test): each instance that is given a size is a
    window that slides, wherever it is sent as the conversation.
    """
    for method in cls.body:
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) or not method.args.args:
            continue
        me = method.args.args[0].arg
        for node in walk(method):
            popped = _front_pop(node) if isinstance(node, ast.Call) else None
            if isinstance(popped, ast.Name) and popped.id == me:
                return node, _size_attribute(method, node, me)
    return None


def sized(cls: ast.ClassDef, size: str, made: ast.AST) -> bool:
    """Whether the instance `made` (its constructor call) has a size that can be reached: the
    `__init__` parameter named `size` is passed, or defaults to a positive number. A default of
    `-1`, `0` or `None` (`ChatHistory(turns)`, `total_length=-1`) never fills: no window."""
    init = next(
        (m for m in cls.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None
    )
    if init is None or not size or not isinstance(made, ast.Call):
        return True  # nothing says it is unbounded
    params = [a.arg for a in init.args.args[1:]]
    if size not in params:
        return True
    index = params.index(size)
    passed = next((k.value for k in made.keywords if k.arg == size), None)
    if passed is None and index < len(made.args):
        passed = made.args[index]
    if passed is None:
        defaults = init.args.defaults
        offset = len(params) - len(defaults)
        passed = defaults[index - offset] if index >= offset else None
    return passed is None or not _never_full(passed)


def _never_full(expr: ast.expr) -> bool:
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return isinstance(expr.operand, ast.Constant) and isinstance(expr.operand.value, int)
    return isinstance(expr, ast.Constant) and (
        expr.value is None or (type(expr.value) is int and expr.value <= 0)
    )


def _size_attribute(method: ast.AST, pop: ast.AST, me: str) -> str:
    """The `self.<attr>` that the size test guarding `pop` compares `len(self)` against."""
    for node in walk(method):
        if not isinstance(node, ast.If) or not any(n is pop for b in node.body for n in walk(b)):
            continue
        for compare in walk(node.test):
            if not isinstance(compare, ast.Compare):
                continue
            for side in (compare.left, *compare.comparators):
                if (
                    isinstance(side, ast.Attribute)
                    and isinstance(side.value, ast.Name)
                    and side.value.id == me
                ):
                    return side.attr
    return ""


def _front_pop(node: ast.Call) -> ast.expr | None:
    """`x.pop(0)`, `x.pop(1)`: the `x` an item is taken off the front of (not `pop()`, which
    takes the newest)."""
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr != "pop" or len(node.args) != 1:
        return None
    index = node.args[0]
    if not (isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 0):
        return None
    return func.value


def _trimmed(node: ast.AST) -> list[ast.Attribute]:
    """The attributes whose oldest turns `node` drops."""
    histories: list[ast.expr | None] = []
    if isinstance(node, ast.Call):
        histories.append(front_removed(node))
    elif isinstance(node, ast.Delete):
        histories.extend(front_deleted(t) for t in node.targets)
    elif isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        same = ast.unparse(target)
        if any(
            isinstance(n, ast.Subscript) and is_history_window(n) and ast.unparse(n.value) == same
            for n in walk(node.value)
        ):
            histories.append(target)
    elif isinstance(node, ast.While | ast.For) or (
        isinstance(node, ast.If) and any(isinstance(n, ast.Compare) for n in walk(node.test))
    ):  # a front cut made once is a fixed part left out; in a loop or under a size test, a window
        histories.extend(front_cut(s) for s in node.body)
        histories.extend(bounded_to_newest(s) for s in node.body)
    return [h for h in histories if isinstance(h, ast.Attribute)]
