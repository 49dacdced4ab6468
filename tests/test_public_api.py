from __future__ import annotations

import dataclasses
import inspect

import promptcache


def test_all_is_sorted_and_complete() -> None:
    public = [
        name for name in vars(promptcache) if not name.startswith("_") or name == "__version__"
    ]
    modules = {name for name in public if inspect.ismodule(getattr(promptcache, name))}

    def isort_style(name: str) -> tuple[int, str]:  # constants, classes, then the rest (RUF022)
        return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)

    assert promptcache.__all__ == sorted(promptcache.__all__, key=isort_style)
    assert set(promptcache.__all__) == set(public) - modules - {"annotations"}


def test_public_dataclasses_are_frozen_and_keyword_only() -> None:
    for name in promptcache.__all__:
        obj = getattr(promptcache, name)
        if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
            params = obj.__dataclass_params__
            assert params.frozen, f"{name} must be frozen"
            init = inspect.signature(obj.__init__)
            kinds = {p.kind for n, p in init.parameters.items() if n != "self"}
            assert kinds <= {inspect.Parameter.KEYWORD_ONLY}, f"{name} must be keyword-only"
