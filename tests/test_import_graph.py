"""
The package's imports form no cycle, counting the ones inside functions (`_plan` imported
`adapters` lazily while the adapters imported `_plan`); only TYPE_CHECKING imports are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import promptcache

ROOT = Path(promptcache.__file__).parent


def _module(path: Path) -> str:
    parts = ["promptcache", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """Modules this file imports, at load time or inside a function (not under TYPE_CHECKING)."""
    name = _module(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    checking = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if id(node) in checking:
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules}
    return {m for m in found if m in modules and m != name}


def test_no_import_cycles() -> None:
    files = {_module(p): p for p in ROOT.rglob("*.py")}
    graph = {name: _imports(path, set(files)) for name, path in files.items()}
    assert graph["promptcache._plan"] and "promptcache.adapters" not in graph["promptcache._plan"]
    cycles: list[list[str]] = []

    def walk(node: str, stack: list[str], done: set[str]) -> None:
        if node in stack:
            cycles.append([*stack[stack.index(node) :], node])
            return
        if node in done:
            return
        for target in sorted(graph[node]):
            walk(target, [*stack, node], done)
        done.add(node)

    done: set[str] = set()
    for name in sorted(graph):
        walk(name, [], done)
    assert not cycles, cycles[:3]


def test_vendors_import_no_adapter_planner_or_debug_module() -> None:
    # vendors/ is the bottom layer: adapters, the planner and debug/ read it, never the reverse
    files = {_module(p): p for p in ROOT.rglob("*.py")}
    above = ("promptcache.adapters", "promptcache.debug", "promptcache._plan", "promptcache._wrap")
    for name, path in files.items():
        if name.startswith("promptcache.vendors"):
            wrong = {m for m in _imports(path, set(files)) if m.startswith(above)}
            assert not wrong, (name, wrong)
