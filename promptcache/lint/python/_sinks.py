"""
The request APIs whose arguments form a cacheable prefix, gathered from `frameworks/`, and the
look-ups the analysis makes on them (by resolved dotted name, memoised per process).
"""

from __future__ import annotations

from functools import lru_cache

from ._knowledge import HistoryRead, Sink
from .frameworks import FRAMEWORKS

__all__ = [
    "CLIENT_PACKAGES",
    "CONTEXT_ENGINES",
    "CONVERSATION_HOOKS",
    "HISTORY_READS",
    "KNOWN_PACKAGES",
    "LAST_NAMES",
    "OBJECT_PACKAGES",
    "PASS_THROUGH",
    "SINKS",
    "SINK_BY_API",
    "USER_TURNS",
    "WINDOWS",
    "WINDOW_MEMORIES",
    "Sink",
    "find_sink",
    "sink_aliases",
]

SINKS: tuple[Sink, ...] = tuple(sink for framework in FRAMEWORKS for sink in framework.sinks)
SINK_BY_API = {sink.api: sink for sink in SINKS}
PASS_THROUGH = frozenset(name for framework in FRAMEWORKS for name in framework.pass_through)
USER_TURNS = frozenset(name for framework in FRAMEWORKS for name in framework.user_turns)
CLIENT_PACKAGES = tuple(sorted({name for f in FRAMEWORKS for name in f.clients}))
# Packages whose objects' methods may be sinks: their clients, and the roots of rooted sinks.
OBJECT_PACKAGES = tuple(
    sorted({*CLIENT_PACKAGES, *(r.rstrip(".") for sink in SINKS for r in sink.roots)})
)
WINDOWS = frozenset(name for framework in FRAMEWORKS for name in framework.windows)
WINDOW_MEMORIES = frozenset(name for f in FRAMEWORKS for name in f.window_memories)
CONTEXT_ENGINES = tuple(sorted({name for f in FRAMEWORKS for name in f.context_engines}))
CONVERSATION_HOOKS = frozenset(name for f in FRAMEWORKS for name in f.conversation_hooks)
# Chat platforms' reads of a channel's newest messages, by method name.
HISTORY_READS: dict[str, tuple[HistoryRead, ...]] = {}
for _read in (read for framework in FRAMEWORKS for read in framework.history_reads):
    for _method in _read.methods:
        HISTORY_READS[_method] = (*HISTORY_READS.get(_method, ()), _read)
# Top-level packages the frameworks describe as data (`promptcache`, `langchain`, `openai`): a
# name imported from one is taken as that knowledge even where the project holds its source
# (a vendored copy, the library's own repository), not read as the project's code.
# (`agents`, the OpenAI Agents SDK's package, is also what many projects call their own.)
KNOWN_PACKAGES = frozenset(
    {f.name for f in FRAMEWORKS}
    | {package.split(".", 1)[0] for package in OBJECT_PACKAGES}
    | {name.split(".", 1)[0] for name in WINDOWS | WINDOW_MEMORIES}
) - {"agents"}

_BY_LAST: dict[str, list[Sink]] = {}
for _sink in SINKS:
    for _suffix in _sink.suffixes:
        _BY_LAST.setdefault(_suffix.rsplit(".", 1)[-1], []).append(_sink)

LAST_NAMES = frozenset(_BY_LAST)


@lru_cache(maxsize=8192)  # a run asks about the same few dotted names in every module
def find_sink(name: str) -> Sink | None:
    """The sink a call to resolved dotted `name` is, if any."""
    last = name.rsplit(".", 1)[-1]
    for sink in _BY_LAST.get(last, ()):
        if sink.roots and not name.startswith(sink.roots):
            continue
        for suffix in sink.suffixes:
            if name == suffix or name.endswith("." + suffix):
                return sink
    return None


def sink_aliases(imports: dict[str, str]) -> list[str]:
    """The local names a module imported a sink under (`from litellm import completion as c`
    makes `c`), for the pre-scan: a call through one of them reaches a request."""
    return [alias for alias, dotted in imports.items() if find_sink(dotted) is not None]
