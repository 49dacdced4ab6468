"""
Models of library calls, by last name: what `str.format`, `json.dumps`, `sorted`, `list.append`,
`functools.partial`, a dataclass `field`, a Jinja `Template` ... give, as the analysis's
propagators (the value flows through), sanitisers (`sorted` ends order variation) and sources
(`hash()` differs per process). A handler answers None to leave a call to the general rules.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._loader import read_source
from ._flow import as_items, cap_items, dict_fields, flatten, merge_all, written_at
from ._iteration import sorting_fix
from ._locations import node_label, node_span
from ._placeholders import placeholder_line
from ._quickinit import replace
from ._request_data import NEWEST_TURN, senders_system_prompt
from ._turns import WINDOW, drop_oldest, front_removed, newest_first
from ._values import (
    EMPTY,
    ORDER_CODES,
    PER_REQUEST,
    Dep,
    Taint,
    Value,
    deps_at_key,
    join_values,
    text_value,
    unnamed_part,
)

if TYPE_CHECKING:
    from ._frame import Frame

__all__ = ["SPECIAL", "Call", "all_str", "is_history", "is_placeholder", "repeat_count"]

_FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{([^{}!:]*)(?:![rsa])?(?::[^{}]*)?\}")
_ORDER_FREE = frozenset({"len", "min", "max", "sum", "any", "all", "bool", "int", "float"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """
    A call a special handler may model: its dotted `name`, its node, the value it is called on
    (`receiver`; None for a plain function) and its evaluated `args` and `keywords`.
    """

    name: str
    node: ast.Call
    receiver: Value | None
    args: list[Value]
    keywords: dict[str, Value]


# A handler answers the call's value, or None to leave it to the general rules.
_Special = Callable[["Frame", Call], "Value | None"]


def _format(frame: Frame, call: Call) -> Value | None:
    receiver = call.receiver
    if receiver is None or receiver.kind in ("ptemplate", "chain", "jtemplate"):
        return None
    if receiver.pieces is None:
        return (
            join_values([receiver, *call.args, *call.keywords.values()])
            if receiver.kind == "str"
            else None
        )
    # The fields of each piece of known text are filled in place; a part of the text that
    # varies or is unknown (`f"{{history}} {DATA}"` with DATA from elsewhere) keeps its place
    # among them, so what follows a filled field is still known.
    parts: list[Value] = []
    used: set[int | str] = set()
    unknown_at = -1  # where the first text of unknown content is: it may hold any field
    for piece in receiver.pieces:
        if isinstance(piece, str):
            parts.extend(_format_text(frame, call, piece, used))
        else:
            unknown_at = len(parts) if unknown_at < 0 else unknown_at
            parts.append(Value(deps=piece, pieces=(piece,)))
    if unknown_at >= 0:  # what no known field took may be filled into the unknown text
        rest = [v for i, v in enumerate(call.args) if i not in used]
        rest += [v for k, v in call.keywords.items() if k not in used]
        parts.insert(unknown_at + 1, join_values(rest))
    return frame.string(parts).with_deps(receiver.deps)


def _format_map(frame: Frame, call: Call) -> Value | None:
    """`TEMPLATE.format_map(mapping)`: `str.format` with the mapping's fields as keywords, when
    they are all known (a dict literal, `dict(question=q)`); else the general rules."""
    mapping = call.args[0] if len(call.args) == 1 and not call.keywords else None
    if mapping is None or mapping.fields is None or mapping.field("**") is not None:
        return None
    return _format(frame, replace(call, args=[], keywords=dict(mapping.fields)))


def _format_text(frame: Frame, call: Call, text: str, used: set[int | str]) -> list[Value]:
    """The parts of `text` with its `str.format` fields filled from `call`; `used` gathers
    the arguments (position or keyword) its fields took, across every piece of the text."""
    args, keywords = call.args, call.keywords
    splat = [v for k, v in (keywords.items()) if k == "**"]
    parts: list[Value] = []
    position = 0
    for found in _FORMAT_FIELD.finditer(text):
        parts.append(text_value(text[position : found.start()]))
        position = found.end()
        if found.group() in ("{{", "}}"):
            parts.append(text_value(found.group()[0]))
            continue
        field_name = re.split(r"[.\[]", found.group(1) or "", maxsplit=1)[0]
        # The placeholder's own line, where the fix goes, when the template's literal is seen.
        placeholder = placeholder_line(frame.module, text, found.start(), found.end())
        if field_name == "" or field_name.isdigit():
            slot = int(field_name) if field_name else sum(isinstance(u, int) for u in used)
            used.add(slot)
            filled = args[slot] if slot < len(args) else join_values(splat)
            if placeholder is not None:
                filled = written_at(filled, frame.module.display, placeholder, again=True)
            parts.append(frame.written(filled, call.node))
        else:
            used.add(field_name)
            value = keywords.get(field_name)
            if value is None:
                value = _splat_value(call.node, frame, field_name)
            else:
                line = placeholder or _keyword_line(call.node, field_name)
                value = written_at(value, frame.module.display, line, again=True)
            value = frame.slot_filled(field_name, value, _keyword_node(call, field_name))
            # Given on the line it was made: the `.format(` call is where it enters the text.
            parts.append(frame.written(value, call.node))
    parts.append(text_value(text[position:]))
    return parts


def _keyword_line(node: ast.Call, name: str) -> int:
    return next((k.value.lineno for k in node.keywords if k.arg == name), node.lineno)


def _keyword_node(call: Call, name: str) -> ast.AST:
    """Where `name=` is given in the call (the call itself when it comes from a `**` splat)."""
    for keyword in call.node.keywords:
        if keyword.arg == name:
            return keyword.value
    return call.node


def _splat_value(node: ast.Call, frame: Frame, name: str) -> Value:
    """`.format(**ctx)` where ctx's fields are unknown: the variable depends on ctx."""
    for keyword in node.keywords:
        if keyword.arg is None:
            whole = frame.eval(keyword.value)
            if whole.fields is None:
                return whole.opaque()
    return EMPTY


def _join(frame: Frame, call: Call) -> Value | None:
    receiver = call.receiver
    if receiver is None or not call.args or (receiver.pieces is None and receiver.kind != "str"):
        return None
    iterable = call.args[0]
    if iterable.items is None:  # `filter(None, parts)`, `(p for p in parts if p)`
        kept = _kept_items(frame, call.node.args[0])
        iterable = iterable if kept is None else replace(iterable, items=kept)
    if iterable.items is not None and not any(i.spliced for i in iterable.items):
        parts: list[Value] = []
        for index, item in enumerate(iterable.items):
            if index:
                parts.append(receiver)
            parts.append(item)
        return frame.string(parts)
    element = frame.element(iterable, call.node.args[0])
    return Value(
        deps=receiver.deps | element.deps,
        pieces=(*(receiver.pieces or ()), element.deps) if element.deps else receiver.pieces,
        kind="str",
    )


def _kept_items(frame: Frame, node: ast.expr) -> tuple[Value, ...] | None:
    """The items of a list of known items that a join is handed filtered or passed through, in
    their order: `filter(None, parts)`, `map(str, parts)`, `(p for p in parts if p)`,
    `[p.strip() for p in parts]`. What a filter drops is what it tests empty, most often, so
    each item is taken as present (where a clock would stay is where it sits); None for
    anything else."""
    inner: ast.expr | None = None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        first = node.args[0] if len(node.args) == 2 else None
        keeps_each = node.func.id == "map" and isinstance(first, ast.Name) and first.id == "str"
        if first is not None and (node.func.id == "filter" or keeps_each):
            inner = node.args[1]
    elif isinstance(node, ast.GeneratorExp | ast.ListComp) and len(node.generators) == 1:
        loop = node.generators[0]
        target = loop.target.id if isinstance(loop.target, ast.Name) else None
        if target is not None and not loop.is_async and _passes(node.elt, target):
            inner = loop.iter
    if inner is None:
        return None
    items = frame.eval(inner).items
    return items if items and not any(i.spliced for i in items) else None


def _passes(element: ast.expr, target: str) -> bool:
    """Whether a comprehension's element is its target as it is, as text or stripped."""
    if isinstance(element, ast.Name):
        return element.id == target
    if isinstance(element, ast.Call) and not element.keywords and len(element.args) <= 1:
        func = element.func
        if isinstance(func, ast.Name) and func.id == "str" and len(element.args) == 1:
            return _passes(element.args[0], target)
        if isinstance(func, ast.Attribute) and func.attr in ("strip", "rstrip", "lstrip"):
            return _passes(func.value, target)
    return False


def _json_dumps(frame: Frame, call: Call) -> Value | None:
    name, node = call.name, call.node
    if (
        name not in ("json.dumps", "json.dump", "orjson.dumps", "simplejson.dumps", "ujson.dumps")
        or not call.args
    ):
        return None
    value = call.args[0]
    deps = set(value.deps)
    sorts = _sorts_keys(name, node)
    if not sorts and not value.fixed and value.kind not in ("str", "num"):
        orjson = name.startswith("orjson")
        missing = "option=orjson.OPT_SORT_KEYS" if orjson else "sort_keys=True"
        deps.add(
            frame.taint(
                "PC503",
                f"`{node_label(frame.module, node)}` without {missing}",
                node,
                fix=("orjson_option" if orjson else "sort_keys", *node_span(frame.module, node)),
                fixable=name in _SORT_KEYS_FIXABLE or (orjson and _module_call(node)),
            )
        )
    pieces = flatten(value)
    return Value(
        deps=frozenset(deps),
        pieces=(*pieces, frozenset(deps - value.deps)) if deps - value.deps else pieces,
        kind="json",
        meta=value,
    )


def _module_call(node: ast.Call) -> bool:
    """`orjson.dumps(...)` through the module's own name, so `--fix` can write
    `<name>.OPT_SORT_KEYS` (a bare imported `dumps` would need an import added: left alone)."""
    return isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)


# The serialisers whose `sort_keys=True` keyword `--fix` may add (orjson takes an option flag
# instead: `--fix` adds `option=<module>.OPT_SORT_KEYS` when called through its module).
_SORT_KEYS_FIXABLE = frozenset(
    {"json.dumps", "json.dump", "simplejson.dumps", "simplejson.dump", "ujson.dumps", "ujson.dump"}
)


def _sorts_keys(name: str, node: ast.Call) -> bool:
    for keyword in node.keywords:
        if keyword.arg == "sort_keys":
            return not (isinstance(keyword.value, ast.Constant) and not keyword.value.value)
        if keyword.arg == "option" and "SORT_KEYS" in ast.unparse(keyword.value):
            return True
        if keyword.arg is None:
            return True  # **options may set it: not ours to guess
    return name.startswith("orjson") and len(node.args) > 2


def _sorted(frame: Frame, call: Call) -> Value | None:
    if call.receiver is not None or not call.args:
        return None
    return _sorted_value(frame, call.args[0].deps, call.node)


def _sorted_value(frame: Frame, deps: frozenset[Dep], node: ast.Call) -> Value:
    """The list `sorted(...)` or `.sort()` makes: its order is fixed, unless keyed by hash()."""
    kept = _without_order(deps)
    if _uses_hash(node):
        kept.add(frame.taint("PC505", f"`{node_label(frame.module, node)}` orders by hash()", node))
    return Value(deps=frozenset(kept), kind="list")


def _without_order(deps: Iterable[Dep]) -> set[Dep]:
    """`deps` less order variation (PC504, PC505): sorting or an aggregate (`len`, `sum`) ends it."""
    return {d for d in deps if not (isinstance(d, Taint) and d.code in ORDER_CODES)}


def _uses_hash(node: ast.Call) -> bool:
    for keyword in node.keywords:
        if keyword.arg == "key":
            for sub in ast.walk(keyword.value):
                if isinstance(sub, ast.Name) and sub.id == "hash":
                    return True
    return False


def _order_free(frame: Frame, call: Call) -> Value | None:
    if call.receiver is not None:
        return None
    deps = _without_order(d for a in call.args for d in a.deps)
    return Value(deps=frozenset(deps)) if deps else EMPTY


def _materialise(frame: Frame, call: Call) -> Value | None:
    name = call.name
    if call.receiver is not None:
        return None
    if not call.args:
        return Value(
            kind="list" if name in ("list", "tuple") else "set",
            fixed=True,
            items=() if name in ("list", "tuple") else None,
        )
    value = call.args[0]
    if name in ("set", "frozenset"):
        return Value(
            deps=value.deps,
            kind="set",
            meta=value.text is not None
            or (value.items is not None and all(i.text is not None for i in value.items))
            or (value.kind == "set" and value.meta is True),
        )
    if value.kind in ("set", "udict", "uview"):
        element = frame.element(value, call.node.args[0])
        return Value(deps=element.deps, kind="list")
    return replace(value, kind="list")


def _views(frame: Frame, call: Call) -> Value | None:
    receiver = call.receiver
    if receiver is None:
        return None
    if receiver.kind == "udict":
        return Value(deps=receiver.deps, kind="uview", meta=receiver.meta)
    if receiver.fields is not None and call.name.endswith("values"):
        return Value(deps=receiver.deps, items=tuple(v for _, v in receiver.fields), kind="list")
    return Value(deps=receiver.deps) if receiver.deps else EMPTY


def _hash(frame: Frame, call: Call) -> Value | None:
    if call.name != "hash" or call.receiver is not None:
        return None
    return Value(
        deps=frozenset(
            {
                frame.taint(
                    "PC505",
                    f"`{node_label(frame.module, call.node)}` (differs per process)",
                    call.node,
                )
            }
        )
    )


def _fromkeys(frame: Frame, call: Call) -> Value | None:
    if not call.args:
        return None
    source = call.args[0]
    return Value(
        deps=source.deps,
        kind="udict" if source.kind in ("set", "udict", "uview") else "dict",
        # where `--fix` sorts the set it is built from, when that is safe
        meta=sorting_fix(frame, source, call.node.args[0]),
    )


def _dict(frame: Frame, call: Call) -> Value | None:
    args = call.args
    if call.receiver is not None or call.name != "dict":
        return None
    fields = list(args[0].fields or ()) if args else []
    fields.extend((k, v) for k, v in call.keywords.items())
    known = not args or args[0].fields is not None
    deps = join_values([*args, *call.keywords.values()]).deps
    return Value(
        deps=deps,
        fields=dict_fields(fields) if known else None,
        kind="udict" if args and args[0].kind in ("set", "udict", "uview") else "dict",
    )


# LangChain's chat message histories (`InMemoryChatMessageHistory`, any `BaseChatMessageHistory`)
# grow by these methods: a history refilled with a window's turns holds that window.
_ADD_ONE = frozenset({"add_message", "add_user_message", "add_ai_message"})
_ADD_MANY = frozenset({"add_messages"})


def _mutate(frame: Frame, call: Call) -> Value | None:
    """`xs.append(v)`, `xs.extend(vs)`, `xs.insert(i, v)`, `d.update(...)`, `random.shuffle(xs)`."""
    node, receiver, args = call.node, call.receiver, call.args
    func = node.func
    if not isinstance(func, ast.Attribute) or receiver is None or receiver.kind == "module":
        if call.name == "random.shuffle" and node.args:
            taint = frame.taint("PC501", f"`{node_label(frame.module, node)}`", node)
            target = node.args[0]
            frame.assign((target), frame.eval(target).with_deps([taint]))
            return EMPTY
        return None
    method = func.attr
    target = func.value
    if not isinstance(target, ast.Name | ast.Attribute | ast.Subscript) or receiver.kind in (
        "instance",
        "class",
        "function",
        "method",
        "lambda",
        "jtemplate",
        "ptemplate",
        "chain",
    ):
        return None
    items = (
        as_items(receiver)
        if (receiver.items is not None or receiver.deps or receiver.kind == "param")
        else ()
    )
    # A list of literals keeps its key order fixed while only fixed-order values are added.
    fixed = receiver.fixed and receiver.kind == "list"
    if method in _ADD_ONE:
        method = "append"  # a chat history object's own append (LangChain's message histories)
    elif method in _ADD_MANY:
        method = "extend"
    if method == "append" and args:
        updated = Value(
            deps=receiver.deps | args[0].deps,
            items=cap_items((*items, args[0])),
            kind="list",
            fixed=fixed and _fixed_order(args[0]),
        )
    elif method == "extend" and args:
        updated = Value(
            deps=receiver.deps | args[0].deps,
            items=cap_items((*items, *as_items(args[0]))),
            kind="list",
            fixed=fixed and args[0].fixed,
        )
    elif method == "insert" and len(args) == 2:
        position = node.args[0]
        place = insert_place(position, receiver)
        new = (*items[:place], args[1], *items[place:]) if place is not None else (*items, args[1])
        updated = Value(
            deps=receiver.deps | args[1].deps,
            items=cap_items(new),
            kind="list",
            fixed=fixed and _fixed_order(args[1]),
        )
    elif method == "update":
        fields = list(receiver.fields or ())
        for arg in args:
            fields.extend(arg.fields or (("**", arg),))
        fields.extend(call.keywords.items())
        if receiver.kind not in ("", "dict", "udict"):
            return None
        updated = Value(
            deps=join_values([receiver, *args, *call.keywords.values()]).deps,
            fields=dict_fields(fields),
            kind=receiver.kind,
        )
    elif method == "add" and args and receiver.kind == "set":
        updated = receiver.with_deps(args[0].deps)
    elif method == "sort":
        updated = _sorted_value(frame, receiver.deps, node)
    else:
        return None
    frame.assign((target), updated)
    return EMPTY


def insert_place(position: ast.expr, receiver: Value) -> int | None:
    """Where `xs.insert(i, v)` puts `v` among the known items of `xs`: 0 always (the front);
    another constant only in a list of known length without a splice (else: unknown)."""
    if not isinstance(position, ast.Constant) or not isinstance(position.value, int):
        return None
    if position.value == 0:
        return 0
    items = receiver.items
    if items is None or any(i.spliced for i in items) or not 0 < position.value <= len(items):
        return None
    return position.value


def _pop(frame: Frame, call: Call) -> Value | None:
    """`history.pop(0)`: the history drops its oldest turn (a window that slides, PC507)."""
    history = front_removed(call.node)
    if history is None or call.receiver is None or call.receiver.kind == "module":
        return None
    if _fresh_list_popped_once(frame, history, call.node):
        return None
    drop_oldest(frame, history, call.node)
    return Value(deps=call.receiver.deps) if call.receiver.deps else EMPTY


def _fresh_list_popped_once(frame: Frame, history: ast.expr, node: ast.Call) -> bool:
    """`messages = build(...)` then `messages.pop(0)` once, in a statement of the function's own
    body (in no loop, under no test; `head = m.pop(0) if ... else None` too), of a list the
    function made itself (a copy, a call's result, a literal): its first item left
    out (a system entry that the API takes apart), a fixed part, not a window that slides. A
    parameter, an attribute or a global may be a history kept across requests: a window."""
    function = frame.function
    if function is None or not isinstance(history, ast.Name):
        return False
    body = function.node.body
    if not isinstance(body, list):
        return False
    name = history.id
    once = any(
        isinstance(s, ast.Expr | ast.Assign) and any(n is node for n in ast.walk(s)) for s in body
    )
    made = any(
        isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and isinstance(s.targets[0], ast.Name)
        and s.targets[0].id == name
        and isinstance(s.value, ast.Call | ast.Await | ast.List)
        for s in body
    )
    args = function.node.args
    given = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    kept = any(isinstance(s, ast.Global | ast.Nonlocal) and name in s.names for s in body)
    return once and made and name not in given and not kept


def _deque(frame: Frame, call: Call) -> Value | None:
    """`deque(history, maxlen=n)`: a history that drops its oldest turns once full."""
    if call.name not in ("collections.deque", "deque"):
        return None
    if "maxlen" not in call.keywords and len(call.args) < 2:
        return None
    label = f"`{node_label(frame.module, call.node)}` (keeps only the newest turns)"
    taint = frame.taint(WINDOW, label, call.node)
    return Value(deps=join_values(call.args).deps | {taint}, kind="list")


def _template(frame: Frame, call: Call) -> Value | None:
    """A Jinja template from source text (`Template(s)`, `env.from_string(s)`) or a file; a
    `string.Template` is `$name` text (`_string_template`)."""
    if call.name == "string.Template":
        return _string_template(frame, call)
    last = call.name.rsplit(".", 1)[-1]
    if last == "Template" and not call.name.startswith(("jinja2", "Template")):
        return None
    text = call.args[0] if call.args else call.keywords.get("source", EMPTY)
    if last == "get_template":
        return Value(kind="jtemplate", meta=_read_template(frame, text.text))
    return Value(kind="jtemplate", meta=text.text)


def _read_template(frame: Frame, name: str | None) -> str | None:
    if not name:
        return None
    config = frame.a.config
    root = frame.a.project.root
    folders = []
    if frame.module.path is not None:
        folders.append(frame.module.path.parent)
        folders.extend(frame.module.path.parent / sub for sub in ("templates", "prompts"))
    folders.extend(root / folder for folder in config.search_path)
    folders.extend([root, root / "templates", root / "prompts"])
    for folder in folders:
        path = folder / name
        try:
            if path.is_file():  # bounded, and refused when swapped for a FIFO after this check
                return read_source(path, max_bytes=config.max_bytes)
        except (OSError, ValueError):  # an InputError or not UTF-8: its text is unknown
            return None
    return None


def _replace(frame: Frame, call: Call) -> Value | None:
    """`SYSTEM.replace("{now}", stamp)`: the new text takes the old one's place in a text whose
    pieces are known (each occurrence, up to `count`), so what follows it is still known; a
    text of unknown content may hold the old text anywhere: the new one goes after its first
    unknown part, as `str.format` fills there. Anything else (`datetime.replace(hour=0)`, a
    receiver or an old text that is not known) is left to the general rules."""
    receiver = call.receiver
    if (
        receiver is None
        or receiver.pieces is None
        or receiver.kind not in ("str", "")
        or call.keywords
        or len(call.args) not in (2, 3)
    ):
        return None
    old, new = call.args[0].text, call.args[1]
    limit = call.args[2].text if len(call.args) == 3 else "-1"
    if not old or limit is None or not limit.lstrip("-").isdigit():
        return None
    count = int(limit)
    whole = "".join(p for p in receiver.pieces if isinstance(p, str))
    parts: list[Value] = []
    done = 0
    unknown_at = -1
    offset = 0  # where the current piece starts in the known text
    for piece in receiver.pieces:
        if not isinstance(piece, str):
            unknown_at = len(parts) if unknown_at < 0 else unknown_at
            parts.append(Value(deps=piece, pieces=(piece,)))
            continue
        position = 0
        while count < 0 or done < count:
            found = piece.find(old, position)
            if found < 0:
                break
            parts.append(text_value(piece[position:found]))
            start = offset + found
            named = call.node.args[0]
            line = placeholder_line(frame.module, whole, start, start + len(old), besides=named)
            filled = new if line is None else written_at(new, frame.module.display, line)
            parts.append(frame.written(filled, call.node))
            position = found + len(old)
            done += 1
        parts.append(text_value(piece[position:]))
        offset += len(piece)
    if not done and unknown_at < 0:
        return receiver  # nothing to replace: the text as it was
    if unknown_at >= 0 and new.deps:
        parts.insert(unknown_at + 1, new)
    return frame.string(parts).with_deps(receiver.deps)


_DOLLAR_FIELD = re.compile(r"\$(?:\$|([_a-zA-Z][_a-zA-Z0-9]*)|\{([_a-zA-Z][_a-zA-Z0-9]*)\})")


def _string_template(frame: Frame, call: Call) -> Value | None:
    """`string.Template(text)`: its text, kept for `substitute`/`safe_substitute`."""
    if call.name != "string.Template" or len(call.args) != 1 or call.keywords:
        return None
    text = call.args[0]
    return Value(deps=text.deps, pieces=text.pieces, kind="stemplate")


def _substitute(frame: Frame, call: Call) -> Value | None:
    """`TEMPLATE.substitute(now=stamp)` / `safe_substitute(mapping)` of a `string.Template`:
    each `$name` / `${name}` of its known text filled in place, as `str.format`'s fields are; a
    name no argument gives stays as written (`safe_substitute`) or fails (`substitute`): either
    way nothing varies there. A mapping it cannot read fills every field with what it holds."""
    receiver = call.receiver
    if receiver is None or receiver.kind != "stemplate" or receiver.pieces is None:
        return None
    keywords = dict(call.keywords)
    whole: Value | None = None  # a mapping whose fields are unknown
    if len(call.args) == 1:
        mapping = call.args[0]
        if mapping.fields is not None and mapping.field("**") is None:
            keywords = {**dict(mapping.fields), **keywords}
        else:
            whole = mapping.opaque()
    elif call.args:
        return None
    parts: list[Value] = []
    for piece in receiver.pieces:
        if not isinstance(piece, str):
            parts.append(Value(deps=piece, pieces=(piece,)))
            continue
        position = 0
        for found in _DOLLAR_FIELD.finditer(piece):
            parts.append(text_value(piece[position : found.start()]))
            position = found.end()
            name = found.group(1) or found.group(2)
            if name is None:  # `$$`, a dollar sign
                parts.append(text_value("$"))
                continue
            value = keywords.get(name, whole)
            if value is None:
                parts.append(text_value(found.group()))
                continue
            parts.append(frame.written(frame.slot_filled(name, value, call.node), call.node))
        parts.append(text_value(piece[position:]))
    return frame.string(parts).with_deps(receiver.deps)


def _next(frame: Frame, call: Call) -> Value | None:
    """`next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")`: the first
    turn met walking a conversation from its newest one, the newest user message, this
    request's own (as a loop over `reversed(messages)` that stops at it)."""
    node = call.node
    if call.receiver is not None or not node.args or not call.args:
        return None
    walked = node.args[0]
    if isinstance(walked, ast.GeneratorExp) and walked.generators:
        walked = walked.generators[0].iter
    if not newest_first(walked) or frame.eval(walked).items is not None:
        return None
    label = f"`{node_label(frame.module, walked)}` ({NEWEST_TURN})"
    newest = join_values(call.args).deps | {frame.taint(PER_REQUEST, label, walked)}
    return Value(deps=newest, pieces=(newest,))


def _dedent(frame: Frame, call: Call) -> Value | None:
    if call.receiver is not None and call.receiver.kind != "module":
        return None
    return call.args[0] if call.args else None


def _str(frame: Frame, call: Call) -> Value | None:
    if call.name != "str" or call.receiver is not None or not call.args:
        return None
    value = call.args[0]
    if value.kind in ("set", "udict", "uview"):
        return frame.element(value, call.node.args[0])
    return (
        replace(value, kind="str")
        if value.pieces is not None
        else Value(deps=value.deps, pieces=(value.deps,) if value.deps else (), kind="str")
    )


def is_placeholder(spec: Value) -> bool:
    """A chat template's message spec filled with messages at run time: a
    `MessagesPlaceholder`, a `("placeholder", "{messages}")` tuple."""
    if spec.kind == "placeholder":
        return True
    return spec.items is not None and len(spec.items) == 2 and spec.items[0].text == "placeholder"


# An agent's scratchpad holds this request's own tool steps: new on every request whatever comes
# before it, so a turn it follows loses nothing by varying (the conversation history does).
_SCRATCHPAD = re.compile(r"(?i)scratchpad|intermediate_steps")


def is_history(spec: Value) -> bool:
    """A placeholder for the conversation so far (not an agent's scratchpad)."""
    if not is_placeholder(spec):
        return False
    name = spec.meta if spec.kind == "placeholder" else (spec.items or (EMPTY, EMPTY))[1].text
    return not (isinstance(name, str) and _SCRATCHPAD.search(name))


def _messages_placeholder(frame: Frame, call: Call) -> Value | None:
    if call.receiver is not None:
        return None
    name = call.args[0] if call.args else call.keywords.get("variable_name", EMPTY)
    return Value(kind="placeholder", meta=name.text)


def _runnable_map(frame: Frame, call: Call) -> Value | None:
    """
    `RunnableMap({...})`, `RunnableParallel(key=...)`, `RunnablePassthrough.assign(key=...)`:
    the keys it fills on each invoke. A callable is called when the map is piped into a prompt
    template; a runnable (`itemgetter("q") | retriever`) computes its key from the request, so
    what it fills is per-request data.
    """
    last = call.name.rsplit(".", 1)[-1]
    if last == "assign" and not call.name.endswith("RunnablePassthrough.assign"):
        return None
    if last != "assign" and call.receiver is not None:
        return None
    nodes: list[tuple[str, Value, ast.expr]] = []
    first = call.node.args[0] if call.node.args else None
    if isinstance(first, ast.Dict) and call.args:
        for key, value_node in zip(first.keys, first.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                value = call.args[0].field(key.value)
                nodes.append((key.value, value if value is not None else EMPTY, value_node))
    nodes.extend(
        (k.arg, call.keywords[k.arg], k.value) for k in call.node.keywords if k.arg is not None
    )
    fields = [(key, _filled(frame, key, value, node)) for key, value, node in nodes]
    return Value(fields=dict_fields(fields), kind="dict")


def _filled(frame: Frame, key: str, value: Value, node: ast.expr) -> Value:
    """What a map's key is filled with: a callable or a text as it is; anything else is a
    runnable, whose output is computed from the request."""
    if value.kind in ("function", "method", "lambda", "partial", "str"):
        return value
    if value.pieces is not None or isinstance(node, ast.Constant):
        return value
    taint = frame.taint(PER_REQUEST, f"`{key}` (filled per invoke by a runnable)", node)
    deps = value.deps | {taint}
    return Value(deps=deps, pieces=(deps,))


def _getattr(frame: Frame, call: Call) -> Value | None:
    """`getattr(obj, name)` with a name known only at run time: not followed (PC506)."""
    node = call.node
    if call.name != "getattr" or call.receiver is not None or len(node.args) < 2:
        return None
    if isinstance(node.args[1], ast.Constant):
        return None
    label = f"`{node_label(frame.module, node)}` (an attribute named at run time)"
    return frame.scope.lost(label, node).with_deps(call.args[0].deps)


def _partial(frame: Frame, call: Call) -> Value | None:
    """`functools.partial(f, *args, **keywords)`: a callable that calls `f` with them first."""
    if call.name != "functools.partial" or not call.args:
        return None
    return Value(
        deps=join_values([*call.args[1:], *call.keywords.values()]).deps,
        kind="partial",
        meta=(call.args[0], tuple(call.args[1:]), dict(call.keywords)),
    )


# Calls that run the function given to them, with the arguments given after it, on a thread or
# an executor: the position of the function (`loop.run_in_executor(pool, f, *args)`,
# `executor.submit(f, *args, **kw)`, `asyncio.to_thread(f, *args, **kw)`, anyio's `run_sync`,
# Starlette's `run_in_threadpool`).
_RUNNERS = {
    "run_in_executor": 1,
    "submit": 0,
    "to_thread": 0,
    "run_sync": 0,
    "run_in_threadpool": 0,
}


def _run_elsewhere(frame: Frame, call: Call) -> Value | None:
    """What the function handed to an executor returns, called with the arguments handed with
    it (`run_in_executor(None, create, params)` sends `params` as `create(params)` does)."""
    start = _RUNNERS[call.name.rpartition(".")[2]]
    if len(call.args) <= start:
        return None
    func, args = call.args[start], tuple(call.args[start + 1 :])
    keywords = dict(call.keywords) if start == 0 else {}  # run_in_executor passes none
    if func.kind == "partial":  # `submit(partial(f, a), b)`: f with both
        func, bound, bound_keywords = func.meta
        args, keywords = (*bound, *args), {**bound_keywords, **keywords}
    if func.kind not in ("function", "method", "lambda") or func.meta is None:
        return None
    return frame.call_value(Value(kind="partial", meta=(func, args, keywords)), call.node)


# Field declarations whose `default_factory` runs for every new instance (dataclasses,
# pydantic, attrs): the field's value is what the factory returns.
_FIELD_ROOTS = ("dataclasses.", "pydantic.", "attr.", "attrs.", "sqlmodel.", "msgspec.")


def _field(frame: Frame, call: Call) -> Value | None:
    if not call.name.startswith(_FIELD_ROOTS):
        return None
    nodes = {k.arg: k.value for k in call.node.keywords if k.arg is not None}
    values = [call.keywords[k] for k in ("default",) if k in call.keywords]
    if call.args and call.name.endswith("Field"):  # pydantic's default is positional
        values.append(call.args[0])
    for keyword in ("default_factory", "factory"):
        if keyword in call.keywords:
            values.append(frame.call_value(call.keywords[keyword], nodes[keyword]))
    return merge_all(values) if values else EMPTY


def _fixed_order(value: Value) -> bool:
    """Whether `value`'s serialised key order is the source's: a literal, or text or a number
    (a value of unknown shape may be a dict from outside)."""
    return value.fixed or value.kind in ("str", "num") or value.pieces is not None


def _mapping_get(frame: Frame, call: Call) -> Value | None:
    """`state.get("user_input", "")` reads a key as `state["user_input"]` does: the field when the
    dict is known, per-request data when the key's name says so (else: a pass-through method)."""
    receiver, node = call.receiver, call.node
    if receiver is None or receiver.kind == "module" or not node.args:
        return None
    key = node.args[0]
    if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
        return None
    default = join_values(call.args[1:])
    found = receiver.field(key.value)
    if found is not None:
        return found.with_deps(default.deps)
    receiver = unnamed_part(receiver, key.value)
    if senders_system_prompt(key.value):
        return senders_part(receiver, key.value).with_deps(default.deps)
    if not frame.a.per_request(key.value):
        return None
    deps = deps_at_key(receiver.deps, key.value)
    deps.add(
        frame.taint(PER_REQUEST, f"`{node_label(frame.module, node)}` (per-request data)", node)
    )
    narrowed = frozenset(deps | default.deps)
    return Value(deps=narrowed, pieces=(narrowed,))


def _regex(frame: Frame, call: Call) -> Value | None:
    """`re.compile(pattern)`: a regex, whose `search` is no vector-store search (`_invoke`)."""
    receiver = call.receiver
    if not call.name.startswith(("re.", "regex.")) or (
        receiver is not None and receiver.kind != "module"
    ):
        return None
    return Value(deps=join_values(call.args).deps, kind="regex")


def senders_part(data: Value, key: str) -> Value:
    """`data[key]` for a key naming a system prompt (`request["system_prompt"]`): what the
    sender keeps for its conversation, so the request's own variation is not in it."""
    kept = frozenset(
        d
        for d in deps_at_key(data.deps, key)
        if not (isinstance(d, Taint) and d.code == PER_REQUEST)
    )
    return Value(deps=kept, pieces=(kept,)) if kept else EMPTY


def _llm_chain(frame: Frame, call: Call) -> Value | None:
    """`LLMChain(llm=..., prompt=template)`: a chain whose runs fill the template's variables."""
    prompt = call.keywords.get("prompt")
    if prompt is None or prompt.kind not in ("ptemplate", "chain"):
        return None
    return Value(deps=prompt.deps, kind="chain", meta=prompt.meta)


SPECIAL: dict[str, _Special] = {
    "LLMChain": _llm_chain,
    "compile": _regex,
    "get": _mapping_get,
    "getattr": _getattr,
    "RunnableMap": _runnable_map,
    "RunnableParallel": _runnable_map,
    "assign": _runnable_map,
    "MessagesPlaceholder": _messages_placeholder,
    "partial": _partial,
    "field": _field,
    "Field": _field,
    "ib": _field,
    "attrib": _field,
    "format": _format,
    "format_map": _format_map,
    "replace": _replace,
    "substitute": _substitute,
    "safe_substitute": _substitute,
    "join": _join,
    "dumps": _json_dumps,
    "dump": _json_dumps,
    "sorted": _sorted,
    "list": _materialise,
    "tuple": _materialise,
    "set": _materialise,
    "frozenset": _materialise,
    "keys": _views,
    "values": _views,
    "items": _views,
    "hash": _hash,
    "fromkeys": _fromkeys,
    "dict": _dict,
    "append": _mutate,
    "extend": _mutate,
    **dict.fromkeys(_ADD_ONE | _ADD_MANY, _mutate),
    "insert": _mutate,
    "update": _mutate,
    "add": _mutate,
    "sort": _mutate,
    "shuffle": _mutate,
    "pop": _pop,
    "deque": _deque,
    "Template": _template,
    "from_string": _template,
    "get_template": _template,
    "dedent": _dedent,
    "cleandoc": _dedent,
    "str": _str,
    "next": _next,
    **dict.fromkeys(_ORDER_FREE, _order_free),
    **dict.fromkeys(_RUNNERS, _run_elsewhere),
}


def repeat_count(node: ast.AST) -> int | None:
    """`n` of `text * n` when `n` is a small literal."""
    right = node.right if isinstance(node, ast.BinOp) else None
    if (
        isinstance(right, ast.Constant)
        and isinstance(right.value, int)
        and 0 <= right.value <= 1000
    ):
        return int(right.value)
    return None


def all_str(elements: list[ast.expr]) -> bool:
    """Whether every element is a string literal or an f-string (always a `str`)."""
    return all(
        isinstance(e, ast.JoinedStr) or (isinstance(e, ast.Constant) and isinstance(e.value, str))
        for e in elements
    )
