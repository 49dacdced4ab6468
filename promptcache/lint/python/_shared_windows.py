"""
Histories kept in a module's shared storage and trimmed by its functions (PC507).

A bot keeps its conversation in a module global (`conv_his = []`, `user_histories = {}`) or in
an attribute of an imported object (`st.session_state.list_context`), appends each turn to it
in one function and drops the oldest turns in another: `conv_his.pop(0)` once it is too long,
`histories[uid] = histories[uid][-n:]`, `del history[0]`, `history.popleft()`, or a
`defaultdict(lambda: deque(maxlen=n))` that drops them itself. The function that sends the
history reads it elsewhere, often in another module through a getter (`get_history()`), so
following the trim as a value misses it: the window belongs to the storage, as
`windowed_attributes` makes it belong to an instance attribute. Every read of the storage in
the module then reads a window that slides once the conversation outgrows it.

A storage counts as a history when its name says so (`_turns.is_history_name`) or when the
module appends turns to it (`list_context.append({"role": role, ...})`), whatever its name.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from ._turns import from_the_end, front_start, names_a_history

__all__ = ["dotted", "trimmed_storage", "turn_trims"]

# Text without which a module trims nothing (most modules): the scan is skipped.
_MAY_TRIM = re.compile(r"\.pop(?:left)?\s*\(|\bdel\b|\[\s*-|maxlen|\[\s*[\w.()]+\s*:\s*\]")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def dotted(node: ast.expr) -> str:
    """`st.session_state.messages` for a chain of attributes on a name; "" for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))


def trimmed_storage(tree: ast.Module, source: str) -> dict[str, ast.AST]:
    """The module's shared histories that its code trims: their dotted names (`conv_his`,
    `st.session_state.list_context`), each with the first statement or call that trims it."""
    shared, _, turns = _scan(tree, source)
    return {
        storage: node
        for storage, node in shared.items()
        if storage in turns or names_a_history(storage.rpartition(".")[2])
    }


def turn_trims(tree: ast.Module, source: str) -> list[tuple[ast.AST, int, int]]:
    """Every trim of a list the module appends turns to (`{"role": ...}`), shared or kept on an
    instance (`self.history.pop(0)`), with the lines of the function (or statement) it is in:
    what a request sends as its conversation, if it is sent. Where the analysis proves no
    request sends it, it says so rather than stay silent."""
    shared, own, turns = _scan(tree, source)
    found = [node for storage, node in {**shared, **own}.items() if storage in turns]
    spans = _spans(tree)
    return sorted(
        ((node, *spans.get(id(node), _lines(node))) for node in found),
        key=lambda t: (getattr(t[0], "lineno", 0), getattr(t[0], "col_offset", 0)),
    )


def _spans(tree: ast.Module) -> dict[int, tuple[int, int]]:
    """The lines of the function each node is in (by id), innermost first."""
    spans: dict[int, tuple[int, int]] = {}
    for function in (n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)):
        lines = _lines(function)
        for node in ast.walk(function):
            spans[id(node)] = lines  # an inner function, walked later, overwrites its own
    return spans


def _lines(node: ast.AST) -> tuple[int, int]:
    first = getattr(node, "lineno", 0)
    return first, getattr(node, "end_lineno", None) or first


def _scan(tree: ast.Module, source: str) -> tuple[dict[str, ast.AST], dict[str, ast.AST], set[str]]:
    """The trims of the module's shared storage, those of its instances' attributes (named
    `self.<attr>`), each with its first trim, and the storages it appends turns to."""
    if not _MAY_TRIM.search(source):
        return {}, {}, set()
    names = _module_names(tree)
    shared: dict[str, ast.AST] = {}
    own: dict[str, ast.AST] = {}
    turns: set[str] = set()
    for function in (n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)):
        local = _local_names(function)
        me = _instance_name(function)
        for node in ast.walk(function):
            for storage in _trims(node):
                if isinstance(node, ast.Assign) and _window_stored(node) == storage:
                    turns.add(storage)  # what it stores is a history, named so
                root = storage.split(".", 1)[0]
                if root in names and root not in local:
                    shared.setdefault(storage, node)
                elif root == me and "." in storage:
                    own.setdefault("self." + storage.split(".", 1)[1], node)
            turn = _turn_appended(node)
            if turn:
                root, dot, rest = turn.partition(".")
                turns.add("self." + rest if dot and root == me else turn)
    for statement in tree.body:
        target = _self_dropping(statement)
        if target:
            shared.setdefault(target, statement)
    return shared, own, turns


def _instance_name(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """What a method calls its instance (`self`); "" for a function with no parameters."""
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional[0].arg if positional else ""


def _module_names(tree: ast.Module) -> set[str]:
    """The names the module's top level binds or imports (what its functions share)."""
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".", 1)[0] for a in statement.names)
    return names


def _local_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The function's own names: its parameters and what it assigns, less those it declares
    `global` (a trim of a local list is the value analysis's to follow)."""
    args = function.args
    local = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    local.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    declared: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            local.add(node.id)
        elif isinstance(node, ast.Global):
            declared.update(node.names)
    return local - declared


def _storage(expr: ast.expr) -> str:
    """The storage an expression names: a dotted name, or the dict an entry is read from
    (`histories[uid]` is an entry of `histories`, a dict of histories)."""
    while isinstance(expr, ast.Subscript) and not isinstance(expr.slice, ast.Slice):
        expr = expr.value
    return dotted(expr)


def _trims(node: ast.AST) -> Iterator[str]:
    """The storages whose oldest turns `node` drops."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if _pops_front(node):
            yield _storage(node.func.value)
    elif isinstance(node, ast.Delete):
        for target in node.targets:
            if isinstance(target, ast.Subscript) and _front_index(target.slice):
                yield _storage(target.value)
    elif isinstance(node, ast.Assign) and len(node.targets) == 1:
        kept = _newest_kept(node.targets[0], node.value) or _window_stored(node)
        if kept:
            yield kept
    elif isinstance(node, ast.While | ast.If):  # a front cut made under a size test or in a loop
        for statement in node.body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                cut = _front_cut(statement.targets[0], statement.value)
                if cut:
                    yield cut


def _pops_front(call: ast.Call) -> bool:
    """`h.pop(0)`, `h.pop(1)` (after a system message) or `h.popleft()`."""
    assert isinstance(call.func, ast.Attribute)
    if call.func.attr == "popleft":
        return not call.args
    if call.func.attr != "pop" or len(call.args) != 1:
        return False
    index = call.args[0]
    return isinstance(index, ast.Constant) and type(index.value) is int and 0 <= index.value <= 1


def _front_index(key: ast.expr) -> bool:
    """`del h[0]`, `del h[1]`, `del h[:2]`, `del h[1:3]`: turns off the front."""
    if isinstance(key, ast.Constant):
        return type(key.value) is int and 0 <= key.value <= 1
    if isinstance(key, ast.Slice):
        lower, upper = key.lower, key.upper
        return upper is not None and (lower is None or _small_int(lower))
    return False


def _small_int(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and type(expr.value) is int and 0 <= expr.value <= 1


def _same(target: ast.expr) -> tuple[str, ast.expr]:
    """The storage an assignment writes, and the expression that names it (`h[:] = ...` writes
    `h` whole)."""
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice):
        key = target.slice
        if key.lower is None and key.upper is None and key.step is None:
            target = target.value
    return _storage(target), target


def _newest_kept(target: ast.expr, value: ast.expr) -> str:
    """`h = h[-n:]`, `h[:] = h[-n:]`, `h[uid] = h[uid][-n:]`, `h = h[:1] + h[-n:]`: the
    storage cut back to its newest turns."""
    storage, written = _same(target)
    if not storage:
        return ""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        value = value.right
    if not isinstance(value, ast.Subscript) or not isinstance(value.slice, ast.Slice):
        return ""
    key = value.slice
    if key.upper is not None or key.step is not None or key.lower is None:
        return ""
    if ast.unparse(value.value) != ast.unparse(written):
        return ""
    return storage if from_the_end(key.lower, value.value) else ""


def _window_stored(node: ast.Assign) -> str:
    """`user_context[uid] = history[-10:]`: a history's newest turns stored in place of the
    entry it was read from: the storage holds a window from then on."""
    target, value = node.targets[0], node.value
    if not isinstance(target, ast.Subscript) or isinstance(target.slice, ast.Slice):
        return ""
    if not isinstance(value, ast.Subscript) or not isinstance(value.slice, ast.Slice):
        return ""
    key = value.slice
    if key.upper is not None or key.step is not None or key.lower is None:
        return ""
    if not names_a_history(dotted(value.value).rpartition(".")[2]):
        return ""
    return _storage(target) if from_the_end(key.lower, value.value) else ""


def _front_cut(target: ast.expr, value: ast.expr) -> str:
    """`h = h[1:]`, `h[uid] = h[uid][2:]`: the storage without its oldest turns."""
    storage, written = _same(target)
    if not storage:
        return ""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        value = value.right
    if not isinstance(value, ast.Subscript) or not isinstance(value.slice, ast.Slice):
        return ""
    key = value.slice
    if key.upper is not None or key.step is not None or key.lower is None:
        return ""
    if ast.unparse(value.value) != ast.unparse(written):
        return ""
    return storage if front_start(key.lower, value.value) else ""


def _self_dropping(statement: ast.stmt) -> str:
    """`histories = defaultdict(lambda: deque(maxlen=n))`: a dict whose every history drops
    its own oldest turns once full (a `deque(maxlen=)` bound to a name is the value
    analysis's: its call is modelled)."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return ""
    target, made = statement.targets[0], statement.value
    if not isinstance(target, ast.Name) or not isinstance(made, ast.Call):
        return ""
    if dotted(made.func).rpartition(".")[2] != "defaultdict" or not made.args:
        return ""
    factory = made.args[0]
    body = factory.body if isinstance(factory, ast.Lambda) else None
    if not isinstance(body, ast.Call) or dotted(body.func).rpartition(".")[2] != "deque":
        return ""
    bounded = any(k.arg == "maxlen" for k in body.keywords) or len(body.args) > 1
    return target.id if bounded else ""


def _turn_appended(node: ast.AST) -> str:
    """The storage a turn is appended to here (`h.append({"role": role, "content": m})`)."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return ""
    if node.func.attr not in ("append", "extend", "insert") or not node.args:
        return ""
    if not any(_is_turn(a) for a in node.args):
        return ""
    return _storage(node.func.value)


def _is_turn(arg: ast.expr) -> bool:
    if isinstance(arg, ast.List):
        return any(_is_turn(e) for e in arg.elts)
    if isinstance(arg, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value == "role" for k in arg.keys)
    if isinstance(arg, ast.Call):
        return any(k.arg == "role" for k in arg.keywords)
    return False
