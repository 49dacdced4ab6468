"""
Instances of the project's own classes and the attributes their constructor sets from its
parameters (`self.notes = notes`): what each instance holds is known where it is made
(`Bot(request.json["notes"])`), so a method reading `self.notes` reads a part of its `self`,
resolved at each call on the instance, as a parameter's part (`params["system"]`) is.

Functions of a `Frame` (`_frame`), as `_templates`' are.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from ._flow import bind_arguments, substitute, without
from ._quickinit import replace
from ._summaries import ClassInfo, Function
from ._values import NOT_FOLLOWED, PER_REQUEST, Dep, Param, Value

if TYPE_CHECKING:
    from ._frame import Frame

__all__ = ["instance_of", "instance_part", "self_proxy"]

_DEPTH = 4  # how deep a value's parts are rebased (its deeper parts keep their dependencies)


def instance_of(
    frame: Frame,
    cls: ClassInfo,
    init: Function | None,
    args: list[Value],
    keywords: dict[str, Value],
    splats: list[Value],
) -> Value:
    """`cls(...)`: an instance whose attributes set from the constructor's parameters hold
    this call's arguments (its fields); one made without them is the class's plain instance."""
    instance = Value(kind="instance", meta=cls)
    if not any(v.deps for v in (*args, *keywords.values(), *splats)):
        return instance  # made of constants: what it holds is the class's own
    if init is None:  # a dataclass's, a pydantic model's generated constructor: its fields
        fields = _declared(cls.node, args, keywords)
    else:
        bound = bind_arguments(init.node, [instance, *args], keywords, splats)
        fields = tuple(
            (name, substitute(value, bound, 0))
            for name, value in frame.a.class_attrs(cls).items()
            if _has_params(value)
        )
    fields = tuple((name, _origins(value)) for name, value in fields)
    if not any(value.deps for _, value in fields):
        return instance
    deps: frozenset[Dep] = frozenset().union(*(v.deps for _, v in fields))
    return Value(kind="instance", meta=cls, fields=fields, deps=deps)


def instance_part(frame: Frame, node: ast.Attribute, value: Value) -> Value:
    """`self.<attr>` in a method (not the constructor that sets it): an attribute set from the
    constructor's parameters is that part of the method's `self` (its parameter 0), resolved at
    each call on an instance; any other attribute is what the class sets."""
    function = frame.function
    if (
        function is None
        or not isinstance(node.value, ast.Name)
        or isinstance(function.node, ast.Lambda)
        or function.node.name == "__init__"
        or not _has_params(value)
    ):
        return value
    return _rebased(value, Param(index=0, name=node.value.id, path=(node.attr,)), 0)


def self_proxy(frame: Frame, receiver: Value) -> Value:
    """`self.helper()` in a method: the helper's reads of `self`'s parts stay parts of this
    method's `self` (its parameter 0), resolved where this method is called on an instance."""
    function = frame.function
    if function is None or receiver.fields is not None or isinstance(function.node, ast.Lambda):
        return receiver
    positional = [*function.node.args.posonlyargs, *function.node.args.args]
    if not positional or frame.scope.env.get(positional[0].arg) is not receiver:
        return receiver
    mark = frozenset({Param(index=0, name=positional[0].arg)})
    return replace(receiver, deps=receiver.deps | mark)


def _declared(
    node: ast.ClassDef, args: list[Value], keywords: dict[str, Value]
) -> tuple[tuple[str, Value], ...]:
    """The fields a generated constructor sets: its class's annotated attributes, in order, from
    the call's positional arguments and its keywords."""
    names = [
        s.target.id
        for s in node.body
        if isinstance(s, ast.AnnAssign)
        and isinstance(s.target, ast.Name)
        and "ClassVar" not in ast.unparse(s.annotation)
    ]
    given = dict(zip(names, args, strict=False))
    given.update((k, v) for k, v in keywords.items() if k in names)
    return tuple(given.items())


def _origins(value: Value) -> Value:
    """What an instance's field carries from its call: the per-request data and the caller's
    parameters in it. (A clock or an order passed to a constructor is followed as the class's
    attribute, as before: a session object made with a dated preset is a conversation it keeps,
    which this does not tell from a request sent once.)"""
    kept = frozenset(d for d in value.deps if isinstance(d, Param) or d.code in _CARRIED)
    if kept == value.deps:
        return value
    return without(value, value.deps - kept)


_CARRIED = frozenset({PER_REQUEST, NOT_FOLLOWED})


def _has_params(value: Value) -> bool:
    return any(isinstance(d, Param) for d in value.deps)


def _rebased(value: Value, part: Param, depth: int) -> Value:
    """`value` with each of the constructor's parameters in it replaced by the instance's part."""
    if not _has_params(value):
        return value
    pieces = None
    if value.pieces is not None:
        pieces = tuple(p if isinstance(p, str) else _swap(p, part) for p in value.pieces)
    deeper = depth < _DEPTH
    return replace(
        value,
        deps=_swap(value.deps, part),
        pieces=pieces,
        items=tuple(_rebased(i, part, depth + 1) for i in value.items)
        if value.items is not None and deeper
        else value.items,
        fields=tuple((k, _rebased(v, part, depth + 1)) for k, v in value.fields)
        if value.fields is not None and deeper
        else value.fields,
    )


def _swap(deps: frozenset[Dep], part: Param) -> frozenset[Dep]:
    if not any(isinstance(d, Param) for d in deps):
        return deps
    return frozenset(part if isinstance(d, Param) else d for d in deps)
