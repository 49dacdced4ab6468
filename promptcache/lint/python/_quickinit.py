"""
A quicker `__init__` for the analysis's frozen, slotted value classes.

A frozen dataclass's generated `__init__` sets each field through `object.__setattr__`, looked
up and called once a field: for `Value` (eight fields, made tens of thousands of times a run)
that was a tenth of the analysis. This one sets each slot through its own descriptor, bound
once, with the same keyword-only signature and defaults; the class stays a frozen dataclass in
every other way (assignment still raises, equality, hashing, `replace`, `fields` are the
dataclass's own). It is generated, as `dataclasses` generates the one it replaces.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["quick_init", "replace"]

_Class = TypeVar("_Class", bound=type)
_Object = TypeVar("_Object")


def quick_init(cls: _Class) -> _Class:
    """Give frozen, slotted, keyword-only dataclass `cls` an `__init__` that sets its slots
    directly (a class with `__post_init__` or init-only fields keeps its own)."""
    if not _applies(cls):
        raise TypeError(f"quick_init needs a frozen, slotted, keyword-only dataclass: {cls!r}")
    namespace: dict[str, Any] = {"_MISSING": dataclasses.MISSING}
    parameters, lines = [], []
    for index, field in enumerate(dataclasses.fields(cls)):
        name, setter = field.name, f"_set{index}"
        namespace[setter] = getattr(cls, name).__set__
        if field.default is not dataclasses.MISSING:
            namespace[f"_default{index}"] = field.default
            parameters.append(f"{name}=_default{index}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory{index}"] = field.default_factory
            parameters.append(f"{name}=_MISSING")
            lines.append(f"    if {name} is _MISSING: {name} = _factory{index}()")
        else:
            parameters.append(name)
        lines.append(f"    {setter}(self, {name})")
    source = f"def __init__(self, *, {', '.join(parameters)}):\n" + "\n".join(lines) + "\n"
    exec(source, namespace)  # built from the class's own field names only
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    type.__setattr__(cls, "__init__", init)
    type.__setattr__(cls, "_quick_replace", _replacer(cls))
    return cls


def _replacer(cls: type) -> Any:
    """`dataclasses.replace` for `cls`, generated: a field the caller leaves out is read from its
    slot, with none of the look-ups of the class's fields by name that made `replace` cost
    twice an `__init__` (made thousands of times a run: a taint's `written` line, a value's
    kind). Every field is an init field (`_applies`), so the checks `replace` makes for other
    fields have nothing to check; a name that is not a field fails with a TypeError, as there."""
    names = [field.name for field in dataclasses.fields(cls)]
    parameters = ", ".join(f"{name}=_KEEP" for name in names)
    arguments = ", ".join(f"{name}=self.{name} if {name} is _KEEP else {name}" for name in names)
    source = f"def _quick_replace(self, *, {parameters}):\n    return _cls({arguments})\n"
    namespace: dict[str, Any] = {"_KEEP": object(), "_cls": cls}
    exec(source, namespace)  # built from the class's own field names only
    return namespace["_quick_replace"]


def replace(obj: _Object, /, **changes: Any) -> _Object:
    """`dataclasses.replace(obj, **changes)`: by the generated one where `obj`'s class has it."""
    # The class's own (not inherited: a subclass's replace must make the subclass)
    quick = type(obj).__dict__.get("_quick_replace")
    if quick is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    return quick(obj, **changes)  # type: ignore[no-any-return]


def _applies(cls: type) -> bool:
    if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__:
        return False
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    fields = dataclasses.fields(cls)
    return (
        bool(params.frozen)
        and not hasattr(cls, "__post_init__")
        and all(f.kw_only is True and f.init for f in fields)
    )
