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
import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ._turns import from_the_end, front_start, is_last, names_a_history
from ._walk import push_children, walk

__all__ = ["CAPPED_LIST", "dotted", "trimmed_storage", "turn_trims"]

# The storage a Redis list capped to its newest turns is kept as (`ltrim(key, -n, -1)`): what
# the module's `lrange` reads of it return, whole or not, is a window.
CAPPED_LIST = "lrange()"

# Text without which a module trims nothing (most modules): the scan is skipped. A trim is a
# front pop, a `del`, a bounded deque or a slice to the end; what it trims is a history only
# in a module that names one or appends turns (`role`).
_TRIM_TEXTS = (
    r"\.pop\s*\(\s*[01]\s*\)",
    "popleft",
    r"del\s",
    "maxlen",
    "ltrim",
    r":\s*\]",
    r"\[\s*(?:-|len\s*\(|max\s*\()",
)
_MAY_TRIM = re.compile("|".join(_TRIM_TEXTS))
# The same test, one alternative at a time: each opens on its own literal, which the engine skips
# to in C, where the alternatives together open on any of `.`, `p`, `d`, `m`, `l`, `:` or `[`
# and stop at most characters of a module (a search that finds nothing reads all of it).
_MAY_TRIM_EACH = tuple(re.compile(text) for text in _TRIM_TEXTS)
_TURN_WORDS = ("mess", "msgs", "hist", "conv", "chat", "turn", "dialog", "role")
_TURN_WORD = re.compile("(?i)" + "|".join(_TURN_WORDS))
# What may trim a list or append a turn to one (`{"role": ...}`, `Message(role=...)`), found
# in one pass over the module's text.
_CANDIDATE = re.compile(_MAY_TRIM.pattern + r"""|role["']|role\s*=""")
# The statements whose bodies may define a function (`if TYPE_CHECKING:`, `try:` imports).
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith)
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
    found = _scan(tree, source)
    return {
        storage: node
        for storage, node in found.shared.items()
        if storage in found.turns or names_a_history(storage.rpartition(".")[2])
    }


def turn_trims(tree: ast.Module, source: str) -> list[tuple[ast.AST, int, int]]:
    """Every trim of a list the module appends turns to (`{"role": ...}`), shared or kept on an
    instance (`self.history.pop(0)`), with the lines of the function (or statement) it is in:
    what a request sends as its conversation, if it is sent. Where the analysis proves no
    request sends it, it says so rather than stay silent."""
    found = _scan(tree, source)
    trims = {**found.shared, **found.own}
    return sorted(
        (
            (node, *found.spans.get(id(node), _lines(node)))
            for storage, node in trims.items()
            if storage in found.turns
        ),
        key=lambda t: (getattr(t[0], "lineno", 0), getattr(t[0], "col_offset", 0)),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class _Scan:
    """What one pass over a module found (see `_scan`)."""

    shared: dict[str, ast.AST]  # the module's shared storage trimmed, with its first trim
    own: dict[str, ast.AST]  # instances' attributes trimmed (`self.<attr>`)
    turns: set[str]  # the storages turns are appended to
    spans: dict[int, tuple[int, int]]  # each trim's (by id) function lines
    caps: list[tuple[ast.Call, str]]  # each `ltrim` call, with the text that names its list


_NOTHING = _Scan(shared={}, own={}, turns=set(), spans={}, caps=[])
# Where `_scan` keeps its result on the module's tree: the tree's own, freed with it, and read
# by the linter (`turn_trims`) and the analysis (`trimmed_storage`) alike.
_CACHE = "_promptcache_trims"


def _lines(node: ast.AST) -> tuple[int, int]:
    first = getattr(node, "lineno", 0)
    return first, getattr(node, "end_lineno", None) or first


def _scan(tree: ast.Module, source: str) -> _Scan:
    """The trims of the module's shared storage and of its instances' attributes, and the
    storages it appends turns to: one walk of each function (once per tree)."""
    cached = getattr(tree, _CACHE, None)
    if isinstance(cached, _Scan):
        return cached
    found = _NOTHING
    if _may_trim(source) and _names_turns(source):
        found = _Scan(shared={}, own={}, turns=set(), spans={}, caps=[])
        names = _module_names(tree)
        # Only the functions with a line that may trim or append a turn are walked: the rest
        # of most modules (and all of most that pass the test above) is passed over.
        lines = _lines_matching(source)
        for function in _functions(tree.body):
            if _holds_a_line(function, lines):
                _scan_function(function, names, found)
        _scan_top_level(tree, lines, names, found)
        for statement in tree.body:
            target = _self_dropping(statement)
            if target:
                found.shared.setdefault(target, statement)
        _keep_capped(found, "lpush" in source)
    setattr(tree, _CACHE, found)
    return found


def _may_trim(text: str) -> bool:
    """Whether `_MAY_TRIM` matches somewhere in `text` (an alternative at a time: see there)."""
    return any(pattern.search(text) is not None for pattern in _MAY_TRIM_EACH)


def _names_turns(text: str) -> bool:
    """Whether `text` holds one of `_TURN_WORDS`, in any case. On ASCII text (most modules) by
    `in` on its lower case, which scans in C at memory speed, where the case-blind regex tries
    every position (a scan of a module cost a twentieth of its parse); the regex for the rest,
    since case-blind matching folds some non-ASCII letters (`ſ` is an `s` to it)."""
    if text.isascii():
        lowered = text.lower()
        return any(map(lowered.__contains__, _TURN_WORDS))
    return _TURN_WORD.search(text) is not None


def _lines_matching(source: str) -> list[int]:
    """The lines (1-based, sorted) of the module that may trim a history or append a turn. In a
    module that appends no turn (`role`), only a trim on a line naming a history counts (what
    it trims is then named so): a slice or `del` anywhere else (most of any module) is not."""
    roles: set[int] = set()
    trims: set[int] = set()
    line, at = 1, 0
    for match in _CANDIDATE.finditer(source):
        line += source.count("\n", at, match.start())  # counted as the matches go: one pass
        at = match.start()
        (roles if match.group().startswith("role") else trims).add(line)
    if not roles:
        text = source.split("\n")
        trims = {n for n in trims if _names_turns(text[n - 1]) or _names_turns(_def_above(text, n))}
    return sorted(roles | trims)


def _def_above(text: list[str], line: int) -> str:
    """The nearest `def` line at or above `line` (1-based) of `text`, its lines: the function a
    trim is in, by its name (`def update_message_history(...)`); "" when there is none."""
    for n in range(line - 1, max(line - 400, 0) - 1, -1):
        stripped = text[n].lstrip()
        if stripped.startswith(("def ", "async def ")):
            return stripped.partition("(")[0]
    return ""


def _functions(body: list[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The module's functions and methods, each once (a function nested in one is walked as
    part of it)."""
    for statement in body:
        if isinstance(statement, _FUNCTIONS):
            yield statement
        elif isinstance(statement, ast.ClassDef):
            yield from _functions(statement.body)
        elif isinstance(statement, _COMPOUND):
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list):
                    yield from _functions(inner)
            for handler in getattr(statement, "handlers", ()):
                yield from _functions(handler.body)


def _holds_a_line(node: ast.AST, lines: list[int]) -> bool:
    """Whether one of `lines` (sorted) lies within `node`'s."""
    first, last = _lines(node)
    at = bisect.bisect_left(lines, first)
    return at < len(lines) and lines[at] <= last


def _scan_function(
    function: ast.FunctionDef | ast.AsyncFunctionDef, names: set[str], found: _Scan
) -> None:
    me = _instance_name(function)
    args = function.args
    local = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    local.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    code = _read(walk(function), me, found)
    found.caps.extend((cap, f"{ast.unparse(cap)} {function.name}") for cap in code.caps)
    local |= code.stored - code.declared  # a name declared `global` is the module's
    _keep(code.trims, names - local, me, _lines(function), found)
    if names_a_history(function.name):
        # `def update_message_history(uid, text)`: `log[uid].append(text)`, then
        # `log[uid].pop(0)` once it is too long: the function says what the list it grows
        # and trims is, whatever the list is called.
        for storage, _ in code.trims:
            if storage in code.grown and storage.split(".", 1)[0] in names - local:
                found.turns.add(storage)
    _keep_read_back(code, _lines(function), found)


def _scan_top_level(tree: ast.Module, lines: list[int], names: set[str], found: _Scan) -> None:
    """What the module's own statements trim and append to (a script's: Streamlit runs the
    whole file again on every interaction, a console bot loops at its top level): every name
    they bind is the module's, so a trim after the send still cuts what the next run sends."""
    for statement in tree.body:
        if isinstance(statement, _DEFINITIONS) or not _holds_a_line(statement, lines):
            continue
        code = _read(_outside_definitions(statement), "", found)
        found.caps.extend((cap, ast.unparse(cap)) for cap in code.caps)
        _keep(code.trims, names | code.stored, "", _lines(statement), found)


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _outside_definitions(statement: ast.stmt) -> list[ast.AST]:
    """`walk(statement)` without the bodies of the functions and classes it defines (an `if`
    that defines a fallback function): those are walked as functions."""
    nodes: list[ast.AST] = [statement]
    for node in nodes:
        if not isinstance(node, _DEFINITIONS):
            push_children(node, nodes)
    return nodes


@dataclass(frozen=True, slots=True, kw_only=True)
class _Code:
    """What one walk of a function or statement found (see `_read`)."""

    trims: list[tuple[str, ast.AST]]  # each storage trimmed, with the node that trims it
    stored: set[str]  # the names it binds
    declared: set[str]  # the names it declares `global`
    loaded: dict[str, str]  # names bound to a call of a function by name: `h = load(uid)`
    grown: set[str]  # names something is appended to (`h.append(turn)`)
    returned: set[str]  # names returned
    caps: list[ast.Call]  # `r.ltrim(key, start, stop)` calls


def _read(nodes: list[ast.AST], me: str, found: _Scan) -> _Code:
    """The trims among `nodes`, and the names they bind; the storages turns are appended to
    go to `found.turns` (`self.<attr>` for an attribute of `me`, the instance)."""
    code = _Code(
        trims=[], stored=set(), declared=set(), loaded={}, grown=set(), returned=set(), caps=[]
    )
    for node in nodes:
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                code.stored.add(node.id)
            continue
        if isinstance(node, ast.Global):
            code.declared.update(node.names)
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
            code.returned.add(node.value.id)
        elif type(node) in _TRIMMING:
            if isinstance(node, ast.Assign):
                _note_loaded(node, code)
            for storage in _trims(node):
                if isinstance(node, ast.Assign) and _window_stored(node) == storage:
                    found.turns.add(storage)  # what it stores is a history, named so
                code.trims.append((storage, node))
        if isinstance(node, ast.Call):
            turn = _turn_appended(node)
            if turn:
                root, dot, rest = turn.partition(".")
                found.turns.add("self." + rest if dot and root == me else turn)
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in _GROWING:
                code.grown.add(_storage(func.value))
            elif isinstance(func, ast.Attribute) and func.attr == "ltrim":
                code.caps.append(node)
    return code


def _keep_capped(found: _Scan, pushes_front: bool) -> None:
    """`r.rpush(key, turn); r.ltrim(key, -n, -1)`, or `lpush` then `ltrim(key, 0, n - 1)` (a
    list kept newest first): a Redis list of a history capped to its newest turns (named as a
    history by the call or the function it is in). `ltrim(key, 0, n - 1)` after `rpush` keeps
    the oldest turns instead: the prefix never changes."""
    for cap, where in found.caps:
        if len(cap.args) != 3 or not names_a_history(where):
            continue
        start, stop = cap.args[1], cap.args[2]
        newest = from_the_end(start, cap) and is_last(stop)
        if newest or (pushes_front and _is_zero(start)):
            found.shared.setdefault(CAPPED_LIST, cap)
            found.turns.add(CAPPED_LIST)
            return


def _is_zero(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and type(expr.value) is int and expr.value == 0


_GROWING = frozenset({"append", "extend", "insert"})


def _note_loaded(node: ast.Assign, code: _Code) -> None:
    """`turns = load_turns(session)` (or awaited): the name, bound to what a getter returns."""
    target, value = node.targets[0], node.value
    if isinstance(value, ast.Await):
        value = value.value
    if not isinstance(target, ast.Name) or not isinstance(value, ast.Call):
        return
    if len(node.targets) == 1 and isinstance(value.func, ast.Name):
        code.loaded.setdefault(target.id, value.func.id)


def _keep_read_back(code: _Code, lines: tuple[int, int], found: _Scan) -> None:
    """`turns = load_turns(s); turns.append(turn); turns = turns[-12:]; save(s, turns)`: a
    history loaded through a getter, grown by a turn, trimmed and not returned (so written
    back, to a table, a cache or a file): what the getter returns from then on is a window.
    Kept as the storage `load_turns()`, which the analysis reads as the getter's result."""
    for storage, node in code.trims:
        getter = code.loaded.get(storage)
        if getter is None or storage not in code.grown or storage in code.returned:
            continue
        key = f"{getter}()"
        found.shared.setdefault(key, node)
        found.spans.setdefault(id(node), lines)
        if storage in found.turns or names_a_history(storage):
            found.turns.add(key)


def _keep(
    trims: list[tuple[str, ast.AST]],
    shared: set[str],
    me: str,
    lines: tuple[int, int],
    found: _Scan,
) -> None:
    """Keep the trims of the module's storage (its root one of the `shared` names) and of the
    instance `me`'s attributes, each with the `lines` of the code it is in."""
    for storage, node in trims:
        root = storage.split(".", 1)[0]
        if root in shared:
            found.shared.setdefault(storage, node)
        elif me and root == me and "." in storage:
            found.own.setdefault("self." + storage.split(".", 1)[1], node)
        else:
            continue
        found.spans.setdefault(id(node), lines)


# The nodes `_trims` reads (exact types: `ast` makes no subclasses).
_TRIMMING = frozenset({ast.Call, ast.Delete, ast.Assign, ast.While, ast.If})


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
    return _cut_of_itself(target, value, from_the_end)


def _window_stored(node: ast.Assign) -> str:
    """`user_context[uid] = history[-10:]`: a history's newest turns stored in place of the
    entry it was read from: the storage holds a window from then on."""
    target, value = node.targets[0], node.value
    if not isinstance(target, ast.Subscript) or isinstance(target.slice, ast.Slice):
        return ""
    sliced = _sliced_from(value)
    if sliced is None or not names_a_history(dotted(sliced[0]).rpartition(".")[2]):
        return ""
    return _storage(target) if from_the_end(sliced[1], sliced[0]) else ""


def _front_cut(target: ast.expr, value: ast.expr) -> str:
    """`h = h[1:]`, `h[uid] = h[uid][2:]`: the storage without its oldest turns."""
    return _cut_of_itself(target, value, front_start)


def _cut_of_itself(
    target: ast.expr, value: ast.expr, keeps: Callable[[ast.expr, ast.expr], bool]
) -> str:
    """The storage `target` names, where `value` is that same storage sliced from a start
    (`h[k:]`, or `h[:1] + h[k:]`) that `keeps` accepts; else ""."""
    storage, written = _same(target)
    if not storage:
        return ""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        value = value.right
    sliced = _sliced_from(value)
    if sliced is None or ast.unparse(sliced[0]) != ast.unparse(written):
        return ""
    return storage if keeps(sliced[1], sliced[0]) else ""


def _sliced_from(value: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    """`(x, k)` when `value` is `x[k:]` (a start and nothing else), else None."""
    if not isinstance(value, ast.Subscript) or not isinstance(value.slice, ast.Slice):
        return None
    key = value.slice
    if key.lower is None or key.upper is not None or key.step is not None:
        return None
    return value.value, key.lower


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
