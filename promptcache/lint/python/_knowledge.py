"""
The shape of framework knowledge: what one library contributes to the analysis, as data.

Each module of `frameworks/` declares one `Framework`: its sinks (calls whose arguments reach a
request, with the position each argument reaches), its sources (calls whose result differs
between requests) and its pass-through functions (calls whose result is their first argument's
value, followed as such rather than as an opaque call). The analysis reads only these tables, as
taint engines keep sources, sinks and propagators apart from the engine that follows them.

Roles (the request position an argument reaches): `system` (system prompt, instructions, docs:
the whole conversation follows it), `tools`, `messages` (every turn but the last counts), `input`
(a string is the new turn; a list is `messages`), `config` (a dict or config object with
`system_instruction` and `tools`), `body` (a JSON body with `system`, `messages` and `tools`),
`template` (a prompt template's text, judged by how much static text follows), `chat_template`
(LangChain message specs), `prompt` (a prompt text in which sections follow one another, judged
as a template).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Framework", "Sink"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Sink:
    api: str
    suffixes: tuple[str, ...]  # dotted-name endings that select it (after import resolution)
    keywords: tuple[tuple[str, str], ...] = ()
    positional: tuple[tuple[int, str], ...] = ()
    roots: tuple[str, ...] = ()  # when set, the resolved name must start with one of them
    chained: tuple[str, ...] = ()  # keywords that attach earlier turns kept by the server


@dataclass(frozen=True, slots=True, kw_only=True)
class Framework:
    name: str
    sinks: tuple[Sink, ...] = ()
    sources: tuple[str, ...] = ()  # resolved-name globs of volatile calls (case-sensitive)
    pass_through: tuple[str, ...] = ()  # resolved names whose result is their first argument
