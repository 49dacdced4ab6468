"""
How values combine and travel: merging branches, a value's content in order, binding a call's
arguments to a summary's parameters and substituting them into what it returns.

Pure functions of `_values`: no frame, no module, no rule.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence

from ._quickinit import replace
from ._values import (
    EMPTY,
    MAX_PIECES,
    NOT_FOLLOWED,
    PER_REQUEST,
    Dep,
    Param,
    Piece,
    Taint,
    Value,
    compact,
    deps_at_key,
    join_values,
    text_value,
)

__all__ = [
    "Caller",
    "as_items",
    "bind_arguments",
    "called_deps",
    "cap_items",
    "constant_value",
    "dict_fields",
    "flatten",
    "follow",
    "lines_after",
    "merge",
    "merge_all",
    "merge_branched",
    "merge_grown",
    "passed_through",
    "static_after",
    "static_text",
    "substitute",
    "swapped",
    "text_after",
    "text_lines",
    "unfollowed",
    "without",
    "written_at",
    "written_in",
]

_FIXED = Value(fixed=True)
# A `Param.path` step: the parameter went through a template the analysis could not read.
UNREAD = "<unread template>"


def constant_value(constant: object) -> Value:
    if isinstance(constant, str):
        return text_value(constant)
    if isinstance(constant, int | float) and not isinstance(constant, bool):
        return Value(pieces=(str(constant),), kind="num", fixed=True)
    return _FIXED  # None, True, bytes...: values are immutable, so one serves them all


def merge(a: Value, b: Value) -> Value:
    if a is b or a == b:  # most merges are of a name no branch rebound: the same value
        return a
    items = None
    if a.items is not None and b.items is not None and len(a.items) == len(b.items):
        items = tuple(merge(x, y) for x, y in zip(a.items, b.items, strict=True))
    fields = None
    if a.fields is not None and b.fields is not None:
        keys = list(dict.fromkeys([k for k, _ in a.fields] + [k for k, _ in b.fields]))
        fields = tuple((k, merge(a.field(k) or EMPTY, b.field(k) or EMPTY)) for k in keys)
    pieces = a.pieces if a.pieces == b.pieces else None
    if pieces is None and a.pieces is not None and b.pieces is not None:
        pieces = a.pieces if len(static_text(a.pieces)) >= len(static_text(b.pieces)) else b.pieces
        pieces = (*pieces, b.deps | a.deps) if (a.deps | b.deps) else pieces
    unplaced = a.unplaced | b.unplaced
    if items is None and (a.items or b.items):
        unplaced |= _system_data(a) | _system_data(b)
    return Value(
        deps=a.deps | b.deps,
        pieces=pieces,
        items=items,
        fields=fields,
        kind=a.kind if a.kind == b.kind else (a.kind or b.kind),
        fixed=a.fixed and b.fixed,
        spliced=a.spliced or b.spliced,
        meta=a.meta if a.meta is not None else b.meta,
        unplaced=unplaced,
    )


def _system_data(value: Value) -> frozenset[Dep]:
    """What varies in the system messages among `value`'s turns (a clock, per-request data),
    and what its own turns already lost the place of."""
    found: frozenset[Dep] = value.unplaced
    for item in value.items or ():
        found |= item.unplaced
        role = item.field("role")
        if item.kind == "message" or (role is not None and role.text in ("system", "developer")):
            found |= frozenset(d for d in item.deps if isinstance(d, Taint))
    return found


def merge_grown(a: Value, b: Value, loop: tuple[str, int, int]) -> Value:
    """`merge` of a list and the same list with items appended by a loop (its pass and its skip,
    `loop` its path and lines): the items both have, then what only the longer has as one splice
    of unknown length, a history. What the loop itself stamps on each item it copies (a clock,
    an order) changes every copied turn on every request: it is kept as a turn of its own
    before the splice, where the turns after it are judged."""
    if a.items is None or b.items is None or len(a.items) == len(b.items):
        return merge(a, b)
    short, long = (a, b) if len(a.items) < len(b.items) else (b, a)
    assert short.items is not None and long.items is not None
    count = len(short.items)
    if any(i.spliced for i in short.items) or long.items[:count] != short.items:
        return merge(a, b)
    rest = replace(join_values(long.items[count:]), spliced=True)
    path, first, last = loop
    stamped = frozenset(
        d
        for d in rest.deps
        if isinstance(d, Taint)
        and d.code != PER_REQUEST
        and d.path == path
        and first <= d.line <= last
    )
    items = (*short.items, Value(deps=stamped), rest) if stamped else (*short.items, rest)
    return replace(long, deps=a.deps | b.deps, items=items, fixed=a.fixed and b.fixed)


def merge_branched(a: Value, b: Value) -> Value:
    """`merge` of a list and the same list with turns one branch appended to it (`if notes:
    messages.append(...)`): the turns both have, then those only one branch appended, each as
    the turn it is where it is there. Without it, the lists' lengths differ and the merge keeps
    no turn, so where the list is sent nothing is known of where its values land: a system
    message judged there lost its per-request data unsaid. A turn judged as if present is judged
    as the branch that appends it sends it; the other branch sends less after the turns before."""
    if (
        a.items is None
        or b.items is None
        or len(a.items) == len(b.items)
        or a.kind != "list"
        or b.kind != "list"
    ):
        return merge(a, b)
    short, long = (a, b) if len(a.items) < len(b.items) else (b, a)
    assert short.items is not None and long.items is not None
    if long.items[: len(short.items)] != short.items:
        return merge(a, b)
    return replace(long, deps=a.deps | b.deps, fixed=a.fixed and b.fixed)


def merge_all(values: Sequence[Value]) -> Value:
    result = values[0]
    for value in values[1:]:
        result = merge(result, value)
    return result


def static_text(pieces: Iterable[Piece]) -> str:
    return "".join(p for p in pieces if isinstance(p, str))


def flatten(value: Value, depth: int = 0) -> tuple[Piece, ...]:
    """The value's content in order, for position estimates."""
    if value.pieces is not None:
        return value.pieces
    if depth < 6 and value.items is not None:
        return tuple(p for item in value.items for p in flatten(item, depth + 1))
    if depth < 6 and value.fields is not None:
        return tuple(p for _, item in value.fields for p in flatten(item, depth + 1))
    return (value.deps,) if value.deps else ()


def text_after(pieces: Sequence[Piece], dep: Dep) -> str:
    for index, piece in enumerate(pieces):
        if not isinstance(piece, str) and dep in piece:
            return "".join(p for p in pieces[index + 1 :] if isinstance(p, str))
    return ""


def static_after(pieces: Sequence[Piece], dep: Dep) -> int:
    """Characters of literal text after the first piece that carries `dep` (0 when not found),
    each weighed as `text_weight` does."""
    for index, piece in enumerate(pieces):
        if not isinstance(piece, str) and dep in piece:
            return sum(text_weight(p) for p in pieces[index + 1 :] if isinstance(p, str))
    return 0


def lines_after(pieces: Sequence[Piece], dep: Dep) -> int:
    """How many lines of the literal text after the first piece that carries `dep` hold text
    (a letter or a digit): a short static block (`RULES` and three lines under the question) is
    not the reusable content a long one is, whatever its characters weigh."""
    return text_lines(text_after(pieces, dep))


def text_lines(text: str) -> int:
    """How many lines of `text` hold text (a letter or a digit)."""
    return sum(1 for line in text.split("\n") if any(c.isalnum() for c in line))


def text_weight(text: str) -> int:
    """`text`'s length in ASCII characters of as many tokens (four a token): the estimate
    promptcache counts with (`EstimateCounter`) weighs each byte past the first of a character
    as a third of a token, so a CJK character is about one token, not a quarter of one."""
    if text.isascii():
        return len(text)
    return len(text) + (len(text.encode("utf-8", "surrogatepass")) - len(text)) * 4 // 3


def dict_fields(fields: Sequence[tuple[str, Value]]) -> tuple[tuple[str, Value], ...]:
    """A dict's fields as Python keeps them: the last value of each key, in first-key order;
    every opaque `**` splat folded into one."""
    kept: dict[str, Value] = {}
    for name, value in fields:
        kept[name] = merge(kept[name], value) if name == "**" and name in kept else value
    return tuple(kept.items())


def cap_items(items: tuple[Value, ...]) -> tuple[Value, ...]:
    """At most MAX_PIECES known items: the rest become one spliced item (its order unknown)."""
    if len(items) <= MAX_PIECES:
        return items
    rest = join_values(items[MAX_PIECES - 1 :])
    return (*items[: MAX_PIECES - 1], replace(rest, spliced=True))


def as_items(value: Value) -> tuple[Value, ...]:
    if value.items is not None:
        return value.items
    if not (value.deps or value.kind == "param"):
        return ()
    return (replace(value.opaque(), spliced=True, unplaced=value.unplaced),)


def bind_arguments(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
    args: list[Value],
    keywords: dict[str, Value],
    splats: list[Value],
) -> dict[int | str, Value]:
    params = [*node.args.posonlyargs, *node.args.args]
    bound: dict[int | str, Value] = {}
    for index, param in enumerate(params):
        if index < len(args):
            bound[index] = args[index]
        elif param.arg in keywords:
            bound[index] = keywords[param.arg]
        elif splats:
            bound[index] = join_values(splats)
    for param in node.args.kwonlyargs:
        if param.arg in keywords:
            bound[param.arg] = keywords[param.arg]
        elif splats:
            bound[param.arg] = join_values(splats)
    if node.args.vararg is not None and len(args) > len(params):
        bound[node.args.vararg.arg] = Value(
            items=tuple(args[len(params) :]), deps=join_values(args[len(params) :]).deps
        )
    if node.args.kwarg is not None:
        extra = {
            k: v
            for k, v in keywords.items()
            if k not in {p.arg for p in (*params, *node.args.kwonlyargs)}
        }
        fields = list(extra.items())
        for splat in splats:  # `wrapper(**kwargs)` forwards the caller's own keywords
            fields.extend(splat.fields if splat.fields is not None else (("**", splat),))
        bound[node.args.kwarg.arg] = Value(
            fields=dict_fields(fields), deps=join_values([*extra.values(), *splats]).deps
        )
    # Summaries name keyword-only (and *args/**kwargs) parameters by name, with index -1.
    return bound


def called_deps(deps: frozenset[Dep]) -> frozenset[Dep]:
    """`deps` of a callable, once called: each parameter's part at path "()" (what the caller's
    argument returns), the rest as they are."""
    return frozenset(
        Param(index=d.index, name=d.name, path=(*d.path, "()"))
        if isinstance(d, Param) and len(d.path) < 4
        else d
        for d in deps
    )


# Calls a callable argument on behalf of a summary (a `Param` path's "()").
Caller = Callable[[Value], Value]


def substitute(
    value: Value, bound: dict[int | str, Value], depth: int, call: Caller | None = None
) -> Value:
    if not any(isinstance(d, Param) for d in value.deps):
        return value
    # What each parameter stands for first, in a fixed order, then the rest: where a caller's
    # value is also there unmarked, the place the function writes it into wins, whatever the
    # set's order (equal dependencies written on different lines are one in a set).
    params = sorted((d for d in value.deps if isinstance(d, Param)), key=_param_order)
    deps: set[Dep] = set()
    for param in params:
        deps |= _argument(param, bound, call).deps
    deps |= {d for d in value.deps if not isinstance(d, Param)}
    pieces = None
    if value.pieces is not None:
        new: list[Piece] = []
        for piece in value.pieces:
            if isinstance(piece, str):
                new.append(piece)
                continue
            params = [d for d in piece if isinstance(d, Param)]
            if len(params) == 1 and len(piece) <= 2:
                argument = _argument(params[0], bound, call)
                new.extend(flatten(argument))
                rest = frozenset(
                    d for d in piece if not isinstance(d, Param) and d not in argument.deps
                )
                if rest:
                    new.append(rest)
            else:
                replaced: set[Dep] = {d for d in piece if not isinstance(d, Param)}
                for param in params:
                    replaced |= _argument(param, bound, call).deps
                if replaced:
                    new.append(frozenset(replaced))
        pieces = compact(new)
    items = (
        tuple(substitute(i, bound, depth + 1, call) for i in value.items)
        if value.items is not None and depth < 4
        else value.items
    )
    fields = (
        tuple((k, substitute(v, bound, depth + 1, call)) for k, v in value.fields)
        if value.fields is not None and depth < 4
        else value.fields
    )
    return replace(value, deps=frozenset(deps), pieces=pieces, items=items, fields=fields)


def passed_through(taint: Taint, call: str) -> Taint:
    """`taint` once it has passed through `call`, which the analysis cannot see into (made
    directly: `dataclasses.replace` looks every field up by name, for each of many taints)."""
    return Taint(
        code=taint.code,
        label=taint.label,
        path=taint.path,
        line=taint.line,
        column=taint.column,
        via=(*taint.via, call),
        fix=taint.fix,
        fixable=taint.fixable,
        written=taint.written,
        written_item=taint.written_item,
        unread=taint.unread,
        param=taint.param,
        answer=taint.answer,
        element=taint.element,
        made=taint.made,
        written_in=taint.written_in,
    )


def _param_order(param: Param) -> tuple[bool, int, int, str, tuple[str, ...]]:
    """The first line a function writes its parameters on first (the text's earliest place)."""
    return (not param.written, param.written, param.index, param.name, param.path)


def _argument(param: Param, bound: dict[int | str, Value], call: Caller | None) -> Value:
    if param.index >= 0 and param.index in bound:
        value = follow(bound[param.index], param.path, call)
    else:
        value = follow(bound.get(param.name, EMPTY), param.path, call)
    if param.written:  # the function writes it into a text there: so is what the caller passes
        return written_at(value, param.written_path, param.written, item=param.written_item)
    return value


def written_at(
    value: Value, path: str, line: int, *, again: bool = False, item: bool = False
) -> Value:
    """`value`, its variation marked as formatted into the text on `line` (`TEMPLATE.format(
    current_time=now.strftime(...))`: the clock is taken above, written here). A value already
    written into other text keeps that place, unless `again`: a named slot of a template
    (`PROMPT.format(context=context)`) is where it enters the prompt, whatever text it was
    first written into (the chunks a retrieval's results were joined from); or unless that text
    was one `item` of a list (`"\\n".join(f"- {m}" for m in memories)`): the text the joined
    list is written into is where it enters the prompt. A parameter is marked too: what each
    caller passes for it, made in this module, is written there."""
    marked: dict[Dep, Dep] = {}
    for dep in value.deps:
        if dep.written and not dep.written_item and not again:
            continue
        if isinstance(dep, Param):
            marked[dep] = replace(dep, written=line, written_path=path, written_item=item)
        elif dep.path == path and dep.line != line:
            marked[dep] = replace(dep, written=line, written_item=item)
        elif again and dep.path != path:
            # A named slot of a template written in another module: its placeholder there.
            marked[dep] = replace(dep, written_in=(path, line))
    return _remarked(value, marked)


def written_in(value: Value, path: str, line: int) -> Value:
    """`value`, each variation made outside `path` marked as written on `line` of `path`: the
    placeholder of a template another module writes (`from prompts import ANSWER`, then
    `ANSWER.format(question=question)`). Parameters keep their places: what a caller passes is
    judged by where the function writes it."""
    marked: dict[Dep, Dep] = {
        dep: replace(dep, written_in=(path, line))
        for dep in value.deps
        if isinstance(dep, Taint) and dep.path != path
    }
    return _remarked(value, marked)


def _remarked(value: Value, marked: dict[Dep, Dep]) -> Value:
    """`value` with each dependency of `marked` replaced, in its deps and in its pieces."""
    if not marked:
        return value
    pieces = value.pieces
    if pieces is not None:
        pieces = tuple(
            p if isinstance(p, str) else frozenset(marked.get(d, d) for d in p) for p in pieces
        )
    return replace(value, deps=frozenset(marked.get(d, d) for d in value.deps), pieces=pieces)


def follow(value: Value, path: tuple[str, ...], call: Caller | None = None) -> Value:
    """The part of `value` at `path` when its fields are known (else all of it); "()" in the
    path is what the value returns when called (`call`: how to call it)."""
    for step, key in enumerate(path):
        if key == "()":
            value = call(value) if call is not None else value.opaque()
            continue
        if key == UNREAD:
            value = Value(deps=unfollowed(value.deps))
            continue
        found = value.field(key)
        if found is None and value.kind == "instance" and value.deps:
            return _part_of_self(value, path[step:])
        if found is None:
            return value
        value = found
    return value


def _part_of_self(value: Value, path: tuple[str, ...]) -> Value:
    """A method's own `self` (`self_proxy`) at `path`: its parameter's part there, resolved at
    that method's calls on an instance."""
    deps: frozenset[Dep] = value.deps
    for key in path:
        if key in ("()", UNREAD):
            break
        deps = frozenset(deps_at_key(deps, key))
    return Value(deps=deps)


def unfollowed(deps: frozenset[Dep], *, rendered: bool = False) -> frozenset[Dep]:
    """`deps` once rendered by a template the analysis could not read: each variation it could
    place in the prefix becomes a not-followed note (order variation stays as it is); a
    parameter's becomes so at each call (its path's `UNREAD` step). `rendered`: by a Jinja
    template, whose note keeps the code it had (`Taint.unread`)."""
    return frozenset(
        Param(index=d.index, name=d.name, path=(*d.path, UNREAD))
        if isinstance(d, Param) and len(d.path) < 4
        else Taint(
            code=NOT_FOLLOWED,
            label=f"{d.label}, rendered by a template the analysis could not read",
            path=d.path,
            line=d.line,
            column=d.column,
            via=d.via,
            written=d.written,
            unread=d.code if rendered else "",
            made=d.made,
            written_in=d.written_in,
        )
        if isinstance(d, Taint) and d.code in ("PC501", PER_REQUEST)
        else d
        for d in deps
    )


def swapped(value: Value, dropped: frozenset[Dep], dep: Dep, depth: int = 0) -> Value:
    """`value` with `dep` in place of the dependencies `dropped`, in its parts too (where each
    part holds one): a text keeps where in it the value stands."""
    if not dropped or not (value.deps & dropped):
        return value
    pieces = None
    if value.pieces is not None:
        pieces = tuple(
            p if isinstance(p, str) or not (p & dropped) else (p - dropped) | {dep}
            for p in value.pieces
        )
    deeper = depth < 4
    return replace(
        value,
        deps=(value.deps - dropped) | {dep},
        pieces=pieces,
        items=tuple(swapped(i, dropped, dep, depth + 1) for i in value.items)
        if value.items is not None and deeper
        else value.items,
        fields=tuple((k, swapped(v, dropped, dep, depth + 1)) for k, v in value.fields)
        if value.fields is not None and deeper
        else value.fields,
    )


def without(value: Value, dropped: frozenset[Dep], depth: int = 0) -> Value:
    """`value` with the dependencies `dropped` taken out, in its parts too."""
    if not dropped or not (value.deps & dropped):
        return value
    pieces = None
    if value.pieces is not None:
        pieces = tuple(
            p if isinstance(p, str) else p - dropped
            for p in value.pieces
            if isinstance(p, str) or p - dropped
        )
    deeper = depth < 4
    return replace(
        value,
        deps=value.deps - dropped,
        pieces=pieces,
        items=tuple(without(i, dropped, depth + 1) for i in value.items)
        if value.items is not None and deeper
        else value.items,
        fields=tuple((k, without(v, dropped, depth + 1)) for k, v in value.fields)
        if value.fields is not None and deeper
        else value.fields,
    )
