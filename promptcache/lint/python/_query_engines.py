"""
Texts a function only asks a query engine (`frameworks/`' `query_engines`): `engine =
index.as_query_engine(llm=llm)`, then `engine.query(prompt)`. The engine retrieves for the text
and places it after what it retrieved, so whatever the text holds sits after per-request
content: a clock or a question at its top costs no static text that could have been cached.
Pure syntax over the function's (or module's) own body; no state.
"""

from __future__ import annotations

import ast
from functools import lru_cache

from ._handed import parents_of
from .frameworks import FRAMEWORKS

__all__ = ["only_asked_of_a_query_engine"]

_ENGINES = tuple(call for f in FRAMEWORKS for call in f.query_engines)
_METHODS = frozenset(method for f in FRAMEWORKS for method in f.query_methods)


# Words the module's text holds where it makes one (a scan before any walk of its tree).
_WORDS = tuple(sorted({call.split(".")[0] for call in _ENGINES}))


def only_asked_of_a_query_engine(body: ast.AST, name: str, source: str) -> bool:
    """Whether every read of `name` in `body` (of a module whose text is `source`) is the text
    a query engine made there is asked."""
    if not any(word in source for word in _WORDS):
        return False
    engines = _engine_names(body)
    if not engines:
        return False
    parents = parents_of(body)
    asked = False
    for node in ast.walk(body):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        call = parents.get(id(node))
        if not (
            isinstance(call, ast.Call)
            and call.args
            and call.args[0] is node
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in _METHODS
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id in engines
        ):
            return False
        asked = True
    return asked


def _engine_names(body: ast.AST) -> frozenset[str]:
    """The names `body` binds to a query engine it makes (`engine = index.as_query_engine()`)."""
    return frozenset(
        target.id
        for node in ast.walk(body)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and _makes_an_engine(ast.unparse(node.value.func))
        for target in node.targets
        if isinstance(target, ast.Name)
    )


@lru_cache(maxsize=1024)
def _makes_an_engine(called: str) -> bool:
    return any(called == call or called.endswith(f".{call}") for call in _ENGINES)
