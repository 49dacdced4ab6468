"""
Lint Python modules: parse, run the dataflow analysis, turn what reaches a prefix into findings.

A module with no request API, system message, prompt template or promptcache builder call in
its text is only parsed: nothing in it can reach a prefix on its own, and modules that call into
it analyse it on demand.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import re
import string
import sys
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path

from ..._errors import InputError
from .._config import DEFAULT_CONFIG, LintConfig
from .._loader import read_source
from .._model import Finding
from ..rules import RULES
from ..rules.PC502 import PYTHON_PER_REQUEST, PYTHON_STABLE
from ._chain_fills import FILLED_BY
from ._findings import UNPLACED
from ._interp import Analysis, Hit
from ._locations import node_label, node_location
from ._parse import parse_module
from ._project import Module, Project
from ._quickinit import replace
from ._shared_windows import turn_trims
from ._sinks import SINKS, WINDOW_MEMORIES, WINDOWS, sink_aliases
from ._template_renders import TemplateRenders
from ._values import Taint
from .frameworks import FRAMEWORKS

__all__ = ["PythonLinter", "lint_python_source"]


def _gate(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words of `words` that hold no other of them: a text holding one of `words` holds one
    of these, so an `in` test per kept word answers "any of `words`?" the same, in fewer scans."""
    return tuple(w for w in words if not any(other != w and other in w for other in words))


def _word_start(name: str) -> str:
    """A pattern for `\\b` + `name` that opens on a literal character. The regex engine skips
    in C to where a pattern's first characters are, unless it opens on `\\b`: then it tries
    every alternative at every position of the text (a `\\b(...)` scan was most of a module's
    pre-scan). The lookbehind after the first character tests the same boundary."""
    first = name[:1]
    if re.match(r"\w", first) is None:  # `\b` before a non-word character: not a word's start
        return r"\b" + re.escape(name)
    return re.escape(first) + r"(?<!\w" + re.escape(first) + ")" + re.escape(name[1:])


def _word_starts(names: tuple[str, ...]) -> str:
    """`\\b(?:name|...)` as alternatives that each open on a literal (`_word_start`)."""
    return "(?:" + "|".join(map(_word_start, names)) + ")"


_NAME_CHARACTERS = frozenset(string.ascii_letters + string.digits + "_")
_TO_SPACES = str.maketrans({chr(c): " " for c in range(128) if chr(c) not in _NAME_CHARACTERS})
_NAME_RUNS = re.compile(r"[A-Za-z0-9_]+")
# From this length on, an ASCII text's words are looked for in its names (`_Text`).
_NAMES_FROM = 4096


class _Text:
    """
    A module's text for the pre-scans' word tests (`in`, each a scan of the whole text). A word
    made of name characters alone is in an ASCII text where it is in one of the text's names
    (its runs of name characters), so a long text's distinct names, joined by spaces (about a
    sixth of a module's length), answer those tests in fewer bytes; a word with other
    characters (`.render`) is looked for in the text, once its names are among the text's.
    A short text answers every test itself, in C (its names would cost more than they save).
    """

    __slots__ = ("has", "names", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self.names = source
        self.has: Callable[[str], bool] = source.__contains__
        if len(source) >= _NAMES_FROM and source.isascii():
            self.names = " ".join(set(source.translate(_TO_SPACES).split()))
            self.has = self._has

    def _has(self, word: str) -> bool:
        parts = _name_parts(word)
        if parts is None:
            return word in self.names
        return all(map(self.names.__contains__, parts)) and word in self.source

    def has_any(self, words: tuple[tuple[str, ...], tuple[str, ...]]) -> bool:
        """Whether the text holds one of `words` (as `_words` splits them)."""
        plain, other = words
        return any(map(self.names.__contains__, plain)) or any(map(self.has, other))


@functools.lru_cache(maxsize=1024)
def _name_parts(word: str) -> tuple[str, ...] | None:
    """None for a word of name characters alone; else the runs of name characters it holds."""
    if word and all(c in _NAME_CHARACTERS for c in word):
        return None
    return tuple(_NAME_RUNS.findall(word))


def _words(words: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`words` split into those of name characters alone and the others (`_Text.has_any`)."""
    plain = tuple(w for w in words if _name_parts(w) is None)
    return plain, tuple(w for w in words if _name_parts(w) is not None)


# Literal words of which every trigger contains one: `in` scans for them far faster than the
# regex, so a short module that has none of them is not scanned by the regex at all.
_TRIGGER_WORDS = (
    "messages",
    "ompletion",
    "responses",
    "generate_content",
    "GenerativeModel",
    "GenerateContentConfig",
    "chats",
    "caches",
    "start_chat",
    "converse",
    "invoke",
    "litellm",
    "Message",
    "PromptTemplate",
    "create_",
    "pydantic_ai",
    "ystem",
    "YSTEM",
    "instructions",
    "add_",
    ".render",
    "developer",
    "agents",
    "stream",
    "batch",
    "partial",
    "format_",
    "ys_",
    "YS_",
    "ysPrompt",
    "ysprompt",
    "ysMsg",
    "ysmsg",
    "YSPROMPT",
    "YSMSG",
    "YSMESSAGE",  # `SYSMESSAGE`, `SYSINSTRUCTION`: the trigger's `SYS` forms with no `_`
    "YSINSTRUCTION",
    "PROMPT",
    "_prompt",
    "_TEMPLATE",
    "_template",
    "_INSTRUCTIONS",
)
_TRIGGER_GATE = _words(_gate(_TRIGGER_WORDS))
# The alternatives of `_TRIGGER`, each as its first character, the rest of its pattern, and
# words every text it matches holds: a long text is scanned for only the alternatives whose
# words it holds (`_long_trigger_lines`).
_TRIGGER_PARTS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("m", r"essages\s*\.\s*(?:create|stream|parse)", ("messages",)),
    ("c", r"ompletions\s*\.\s*(?:create|parse|stream)", ("completions",)),
    ("c", r"hats\s*\.\s*create", ("chats", "create")),
    ("c", r"aches\s*\.\s*create", ("caches", "create")),
    ("c", r"onverse", ("converse",)),
    ("c", r"reate_react_agent", ("create_react_agent",)),
    ("c", r"reate_agent", ("create_agent",)),
    ("c", r"reate_deep_agent", ("create_deep_agent",)),
    ("C", r"hatCompletion", ("ChatCompletion",)),
    ("r", r"esponses\s*\.\s*(?:create|parse|stream)", ("responses",)),
    ("g", r"enerate_content", ("generate_content",)),
    ("G", r"enerativeModel", ("GenerativeModel",)),
    ("G", r"enerateContentConfig", ("GenerateContentConfig",)),
    ("s", r"tart_chat", ("start_chat",)),
    ("s", r"ystem_prompt", ("system_prompt",)),
    ("s", r"ystem_?[Mm]essage", ("system", "essage")),
    ("s", r"ystem_?[Ii]nstruction", ("system", "nstruction")),
    ("s", r"ys_?[Pp]rompt", ("sys", "rompt")),
    ("s", r"ys_?[Mm]sg", ("sys", "sg")),
    ("s", r"ystem_?[Pp]rompt", ("system", "rompt")),
    ("i", r"nvoke_model", ("invoke_model",)),
    ("i", r"nstructions", ("instructions",)),
    ("l", r"itellm", ("litellm",)),
    ("S", r"ystemMessage", ("SystemMessage",)),
    ("S", r"ystem_?[Mm]essage", ("System", "essage")),
    ("S", r"ystem_?[Ii]nstruction", ("System", "nstruction")),
    ("S", r"ys_?[Pp]rompt", ("Sys", "rompt")),
    ("S", r"ys_?[Mm]sg", ("Sys", "sg")),
    ("S", r"ystem_?[Pp]rompt", ("System", "rompt")),
    ("S", r"YS(?:TEM)?_?MESSAGE", ("SYS", "MESSAGE")),
    ("S", r"YS(?:TEM)?_?INSTRUCTION", ("SYS", "INSTRUCTION")),
    ("S", r"YS(?:TEM)?_?PROMPT", ("SYS", "PROMPT")),
    ("S", r"YS(?:TEM)?_?MSG", ("SYS", "MSG")),
    ("P", r"romptTemplate", ("PromptTemplate",)),
    ("p", r"ydantic_ai", ("pydantic_ai",)),
    ("a", r"dd_(?:system|tools|docs)", ("add_",)),
    ("R", r"ole\s*\.\s*(?:SYSTEM|DEVELOPER)", ("Role",)),
    (".", r"render\b", (".render",)),
    (".", r"a?invoke\(", ("invoke(",)),
    (".", r"a?stream\(", ("stream(",)),
    (".", r"a?batch\(", ("batch(",)),
    (".", r"partial\(", (".partial(",)),
    (".", r"format_messages\(", (".format_messages(",)),
    (".", r"format_prompt\(", (".format_prompt(",)),
    (".", r"a?invoke\s*[,)]", ("invoke", ".")),
    ("'", r"system['\"]", ("'system",)),
    ("'", r"developer['\"]", ("'developer",)),
    ('"', r"system['\"]", ('"system',)),
    ('"', r"developer['\"]", ('"developer',)),
    ("f", r"rom\s+agents\s+import", ("agents", "from")),
    ("_", r"PROMPT\b", ("_PROMPT",)),
    ("_", r"prompt\b", ("_prompt",)),
    ("_", r"TEMPLATE\b", ("_TEMPLATE",)),
    ("_", r"template\b", ("_template",)),
    ("_", r"INSTRUCTIONS\b", ("_INSTRUCTIONS",)),
    ("_", r"instructions\b", ("_instructions",)),
    ("P", r"ROMPT\b", ("PROMPT",)),
)


@functools.lru_cache(maxsize=256)
def _trigger_of(kept: tuple[int, ...]) -> re.Pattern[str]:
    """`_TRIGGER` of the alternatives at `kept` alone, those that share a first character
    grouped behind it in their order, as there (the matches are the same where the others
    cannot match: alternatives with different first characters never match at one position,
    and a group tries its own in their order)."""
    groups: dict[str, list[str]] = {}
    for index in kept:
        first, rest, _ = _TRIGGER_PARTS[index]
        groups.setdefault(first, []).append(rest)
    return re.compile(
        "|".join(
            re.escape(first) + "(?:" + "|".join(rests) + ")" for first, rests in groups.items()
        )
    )


# The lines on which a request API, a prompt or a system message is named: every alternative.
_TRIGGER = _trigger_of(tuple(range(len(_TRIGGER_PARTS))))


def _long_trigger_lines(text: _Text) -> Iterator[int]:
    """`_TRIGGER`'s lines in a long text, scanned for only the alternatives whose words the text
    holds (each word looked for once): one that cannot match anywhere changes no match, and
    costs a test wherever its first character is (most of a long module's `.`, `s` and `_`)."""
    held: dict[str, bool] = {}
    kept = []
    for index, (_, _, words) in enumerate(_TRIGGER_PARTS):
        for word in words:
            present = held.get(word)
            if present is None:
                present = held[word] = text.has(word)
            if not present:
                break
        else:
            kept.append(index)
    if kept:
        yield from _lines_of(_trigger_of(tuple(kept)), text.source)


# Sinks called as methods whose names the trigger above does not match (from `frameworks/`):
# a generated second pattern, scanned only when one of the names is in the text.
# A dotted suffix is scanned for by its last two names (`chat.parse(`, not every `.parse(`).
_METHOD_SINKS = tuple(
    sorted(
        {
            ".".join(suffix.split(".")[-2:])
            for sink in SINKS
            if not sink.roots
            for suffix in sink.suffixes
            if _TRIGGER.search(f"x.{suffix}(") is None
        }
    )
)


def _method_sink_pattern(name: str) -> str:
    """`chat.parse`: `\\bchat\\s*\\.\\s*parse\\s*\\(`; `post`: `\\.post\\s*\\(`."""
    if "." not in name:
        return r"\." + re.escape(name) + r"\s*\("
    head, *rest = name.split(".")
    return _word_start(head) + "".join(r"\s*\.\s*" + re.escape(p) for p in rest) + r"\s*\("


def _method_sink_words(name: str) -> tuple[str, ...]:
    """Words a text holds wherever `_method_sink_pattern(name)` matches in it."""
    return tuple(name.split(".")) if "." in name else (f".{name}",)


@functools.lru_cache(maxsize=64)
def _method_sinks_trigger(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(map(_method_sink_pattern, names)))


_METHOD_TRIGGER = _method_sinks_trigger(_METHOD_SINKS)  # every method sink
_METHOD_SINK_WORDS = tuple((name, _method_sink_words(name)) for name in _METHOD_SINKS)


def _method_sink_lines(text: _Text) -> Iterator[int]:
    """The lines calling a method sink: scanned for only the sinks whose words the text holds
    (an alternative that cannot match anywhere costs a test at each of its first characters;
    leaving it out changes no match)."""
    names = tuple(name for name, words in _METHOD_SINK_WORDS if all(map(text.has, words)))
    if names:
        yield from _lines_of(_method_sinks_trigger(names), text.source)


_METHOD_GATE = _words(_gate(_METHOD_SINKS))
# Libraries whose sinks are imported under plain names (rooted sinks): a module naming one is
# scanned for calls through its imports.
_ROOTED_WORDS = tuple(sorted({root.rstrip(".") for sink in SINKS for root in sink.roots}))
_ROOTED_GATE = _words(_gate(_ROOTED_WORDS))


# Methods of a library's objects that are rooted sinks (`cohere.Client()` ... `co.chat(`), each
# with the words of which the module must name one for its calls to be scanned for: the class
# (`OpenAIChatGenerator().run`), or the library (a plain method name, `chat` of `cohere.`), so
# that a library's own modules, which all name it, are not scanned for every `.run(`.
def _rooted_methods() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for sink in SINKS:
        roots = {root.rstrip(".") for root in sink.roots}
        for suffix in sink.suffixes if roots else ():
            head, _, last = suffix.rpartition(".")
            if head.endswith("()"):
                table.setdefault(last, set()).add(head[:-2].rsplit(".", 1)[-1])
            elif not head and last[:1].islower():
                table.setdefault(last, set()).update(roots)
    for framework in FRAMEWORKS:
        for method in framework.fills:  # a class's method, or a name only the framework uses
            head, _, last = method.rpartition(".")
            table.setdefault(last, set()).add(head[:-2] if head.endswith("()") else last)
    return {last: frozenset(words) for last, words in sorted(table.items())}


_ROOTED_METHODS = _rooted_methods()


@functools.lru_cache(maxsize=64)
def _method_trigger(methods: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(_word_starts(methods) + r"\s*\(")


_ROOTED_METHOD_WORDS = tuple(sorted({word for words in _ROOTED_METHODS.values() for word in words}))
# Checked first, as one word stands for many (`ChatGenerator` for Haystack's generators).
_ROOTED_METHOD_GATE = _words(
    _gate(
        tuple(
            sorted({"ChatGenerator" if "ChatGenerator" in w else w for w in _ROOTED_METHOD_WORDS})
        )
    )
)


def _rooted_method_lines(text: _Text) -> Iterator[int]:
    if not text.has_any(_ROOTED_METHOD_GATE):
        return
    named = set(filter(text.has, _ROOTED_METHOD_WORDS))
    # only the methods the text names: an alternative that cannot match changes no match
    methods = tuple(
        last for last, words in _ROOTED_METHODS.items() if words & named and text.has(last)
    )
    if methods:
        yield from _lines_of(_method_trigger(methods), text.source)


# Windows of the history made by a library (`trim_messages`, a window memory): where one is
# made, its module is analysed even with no request API in it.
# (A memory made by its class's `from_defaults()` is found by the class's name.)
_WINDOW_NAMES = tuple(
    sorted(
        {
            name.removesuffix(".from_defaults").rsplit(".", 1)[-1]
            for name in WINDOWS | WINDOW_MEMORIES
        }
    )
)
_WINDOW_TRIGGER = re.compile(_word_starts(_WINDOW_NAMES) + r"\s*[(.]")
# The calls that fill a template they are handed with per-request data (`_chain_fills`):
# `create_stuff_documents_chain(llm, qa)` in a function whose lines name no prompt.
_FILL_NAMES = tuple(sorted(FILLED_BY))
_FILL_TRIGGER = re.compile(_word_starts(_FILL_NAMES) + r"\s*\(")
_WINDOW_GATE = _words(_WINDOW_NAMES)
_FILL_GATE = _words(_FILL_NAMES)
# A history replaced by what a function makes of it (`messages = trim_history(messages, cfg)`):
# a window the function may cut, which the function's callers then send.
# Scanned in two steps, as the full pattern (a back-reference at every line start) costs a few
# percent of a parse: a history word before `= f(` first, then that line in full.
_HISTORY_WORDS = _words(
    ("messages", "history", "History", "Messages", "conversation", "chat_", "dialog")
)
_HISTORY_ASSIGN = re.compile(
    r"(?:messages|history|History|Messages|conversation|chat_\w*|dialog\w*)[ \t]*=[ \t]*[\w.]+\("
)
# `turns[0]["content"] = ...` (`turns[0] = {"role": "system", ...}` names "system" already).
_FIRST_REWRITE = re.compile(r"\[0\][ \t]*\[[ \t]*['\"]content['\"][ \t]*\][ \t]*=(?!=)")
_HISTORY_REWRITE = re.compile(r"[ \t]*([\w.]+)[ \t]*=[ \t]*[\w.]+\([ \t]*\1\b")
_HISTORY_WORD = re.compile(r"(?i)mess|hist|conv|chat|turn|dialog")
# `history.append({"role": "assistant", "content": answer})`: the function that keeps a call's
# answer as the assistant's turn may have sent the list through a call it cannot read.
_ANSWER_KEPT = re.compile(r"\.append\(\s*\{\s*['\"]role['\"]\s*:\s*['\"](?:assistant|model)['\"]")
# `history[-12:]`, `self.messages[-n:]`: a slice from the end of a list named as a history.
_HISTORY_SLICE = re.compile(r"(?i)(?:mess|msgs|hist|conv|chat|turn|dialog)\w*\s*\[\s*-")
# `agent.run(prompt, message_history=turns)`: the earlier turns after an agent's system prompt.
_AGENT_HISTORY = re.compile(r"\bmessage_history\s*=(?!=)")
_NOQA = re.compile(r"#\s*noqa\b(?:\s*:\s*(?P<codes>[A-Za-z0-9]+(?:[,\s]+[A-Za-z0-9]+)*))?", re.I)
_JUDGED = frozenset({"messages", "system"})
_PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"
_ROLE_WORDS = {
    "system": "the system prompt",
    "tools": "the tool definitions",
    "messages": "an earlier turn of the conversation",
    "last_turn": "the newest turn, before static text,",
    "history_text": "the newest turn, written out as the history's text,",
    "template": "a prompt template, before static text,",
}


class PythonLinter:
    """Lints Python files of one project; parsed modules and summaries are shared across files."""

    def __init__(self, config: LintConfig = DEFAULT_CONFIG, root: Path | None = None):
        self.config = config
        self.project = Project(
            root=(root or config.root or Path.cwd()).resolve(), max_bytes=config.max_bytes
        )
        self.analysis = Analysis(config, self.project, PYTHON_PER_REQUEST, PYTHON_STABLE)
        # What the project's renders pass to each template file, for the template linter.
        self.renders = TemplateRenders(self.project)
        self.last_hits: list[Hit] = []  # of the last module linted, for --fix
        # Modules whose calls may reach a wrapper a module linted later defines (`finish`): by
        # path, their display name, the findings already given for them and how many wrappers
        # the run had found when they were linted.
        self._deferred: dict[Path, tuple[str, frozenset[Finding], int]] = {}
        self._forced: frozenset[str] = frozenset()  # wrapper names `finish` lints a module for
        # The trims of histories (lists the project appends turns to) in the modules linted,
        # and where the windows that reached a request were cut (`finish` says which were not).
        self._turn_trims: dict[str, list[tuple[int, int, str, int, int]]] = {}
        self._windows_sent: set[tuple[str, int]] = set()

    def lint_file(self, path: Path, display: str) -> list[Finding]:
        # (read already, as plain text, by a question of where the project calls a function)
        known = self.analysis.call_sites.text_of(path) if path.suffix == ".py" else None
        try:
            source = (
                known if known is not None else read_source(path, max_bytes=self.config.max_bytes)
            )
        except InputError as exc:  # not a regular file, or over the bound: the message names it
            return self._select([_parse_error(display, 1, f"cannot read the file: {exc}")])
        except OSError as exc:
            return self._select([_parse_error(display, 1, f"cannot read the file: {exc.strerror}")])
        except ValueError as exc:
            return self._select([_parse_error(display, 1, str(exc))])
        return self.lint_source(source, display=display, file=path)

    @contextlib.contextmanager
    def paused_gc(self) -> Iterator[None]:
        """
        Pause the cyclic garbage collector while linting.

        The analysis keeps every parsed module alive for the run; collector passes over all of
        them would cost more than the analysis itself, and it makes no cycles worth collecting
        early. Reference counting still frees everything else as it goes.
        """
        collecting = gc.isenabled()
        gc.disable()
        try:
            yield
        finally:
            if collecting:
                gc.enable()

    def release(self) -> None:
        """Forget the run's modules (call while the collector is still paused; see `Project`)."""
        self.last_hits = []
        self._turn_trims.clear()
        self._windows_sent.clear()
        self.renders.clear()
        self.analysis.release()
        self.project.release()

    def lint_source(self, source: str, *, display: str, file: Path | None = None) -> list[Finding]:
        if not gc.isenabled():  # paused for the whole run by the caller
            return self._lint_source(source, display=display, file=file)
        with self.paused_gc():
            return self._lint_source(source, display=display, file=file)

    def _lint_source(self, source: str, *, display: str, file: Path | None) -> list[Finding]:
        known = self.project.loaded(file, source) if file is not None else None
        if known is not None:  # parsed already, as another module's import
            return self._lint_module(known.tree, source, display, file)
        try:
            tree = parse_module(source, display)
        except SyntaxError as exc:
            # Said, since syntax of a newer Python reads as a broken file to an older one.
            message = f"{exc.msg or exc} (as Python {_PYTHON} reads it)"
            return self._select([_parse_error(display, exc.lineno or 1, message)])
        except (RecursionError, MemoryError, ValueError, OverflowError) as exc:
            return self._select([_parse_error(display, 1, f"{type(exc).__name__}: {exc}")])
        return self._lint_module(tree, source, display, file)

    def _lint_module(
        self, tree: ast.Module, source: str, display: str, file: Path | None
    ) -> list[Finding]:
        self.last_hits = []
        scan = _with_lf(source)  # lines are counted in \n below, and must be as `ast` counts them
        self._note_trims(tree, scan, display)
        text = _Text(scan)
        relevant = _trigger_lines(scan, text)
        if not relevant and not text.has_any(_ROOTED_GATE):
            # No request API named here: it may still call a project's wrapper of one.
            if "import " not in scan:
                return []
            relevant = self._wrapper_lines(scan, text)
            if not relevant:
                self._defer(file, display, [])
                return []
        elif not relevant:  # a library's word, but no request named: a wrapper's call, maybe
            relevant = self._wrapper_lines(scan, text)
        path = file if file is not None else self.project.root / f"<{display}>.py"
        module = self.project.module_for_file(path, display, source, tree)
        module.display = display
        try:
            found = self._analyse_module(module, relevant, scan, display)
            if self.analysis.passed_over:
                self._defer(file, display, found)
            return found
        finally:
            if self.project.forget(module):
                self.analysis.forget(module)

    def _note_trims(self, tree: ast.Module, source: str, display: str) -> None:
        """Remember where this module trims a history, for `finish` (once per file)."""
        if display in self._turn_trims:
            return
        trims = turn_trims(tree, source)
        if trims:
            module = Module(name="", path=None, display=display, source=source, tree=tree)
            self._turn_trims[display] = [
                (*node_location(module, node), node_label(module, node), first, last)
                for node, first, last in trims
            ]

    def _unfollowed_trims(self) -> list[Finding]:
        """The history trims no window that reached a request was cut in (in the function that
        trims): the analysis could not follow the list to a request, or none sends it. Said, as
        an info finding, rather than silence: where it is sent as the conversation, it is a
        window that slides."""
        sent: dict[str, set[int]] = {}
        for path, line in _with_cuts(self._windows_sent, self.analysis.window_cuts):
            sent.setdefault(path, set()).add(line)
        found = []
        for display, trims in self._turn_trims.items():
            cut = sent.get(display, set())
            for line, column, label, first, last in trims:
                if any(first <= n <= last for n in cut):
                    continue
                message = (
                    f"`{label}` drops the oldest turns of a list the project appends turns to, "
                    "and the analysis could not follow that list to a request: where it is sent "
                    "as the conversation, its first turns change on every request once it is "
                    "full, a window that slides (PC507); "
                    "send the whole history while it fits, and cut it in large steps"
                )
                found.append(
                    Finding(
                        path=display,
                        line=line,
                        column=column,
                        code="PC506",
                        message=message,
                        severity=RULES["PC506"].severity,
                    )
                )
        return self._select(found)

    def _wrapper_lines(self, source: str, text: _Text) -> frozenset[int]:
        """The lines of `source` that call a wrapper of a request the run has found (or one
        `finish` lints this module for): `send(system, question)` of a module that names no
        request API itself, only the project's own wrapper of one."""
        called = [f"{name}(" for name in self._forced or self._imported_wrappers(source, text)]
        if not called:
            return frozenset()
        return frozenset(
            number
            for number, line in enumerate(source.split("\n"), start=1)
            if any(map(line.__contains__, called))
        )

    def _imported_wrappers(self, source: str, text: _Text | None = None) -> list[str]:
        """The wrappers the run has found that `source` calls and imports the module of (`from
        app.llm import send` ... `send(`): a name alone (`run(`, `chat(`) is called everywhere.
        (Each name is looked for first among the names of `text`, the same source: a long
        module's are a sixth of it, and most wrappers are not called in most modules.)"""
        homes = self.analysis.wrapper_homes
        holds = source.__contains__ if text is None else text.has
        return [
            name
            for name in sorted(self.analysis.wrappers)
            if holds(name)
            and f"{name}(" in source
            and any(_imports(source, home) for home in homes.get(name, ()))
        ]

    def _defer(self, file: Path | None, display: str, found: list[Finding]) -> None:
        """Remember a module a wrapper found later may be called from (see `finish`)."""
        if file is not None and not self._forced:
            # with how many wrappers the run knew then: if none is found later, nothing is new
            self._deferred[file] = (display, frozenset(found), self.analysis.wrappers_found)

    def finish(self) -> list[Finding]:
        """
        The findings of modules linted before the wrapper they call was found: a module calling
        `send(system, question)` of a module linted after it (a folder's order) was passed over,
        as was a module that names no request API itself. Each that calls a wrapper the run
        found is linted again; only what it did not give the first time is returned.
        """
        deferred, self._deferred = self._deferred, {}
        found: list[Finding] = []
        for file, (display, given, known) in deferred.items() if self.analysis.wrappers else ():
            if known == self.analysis.wrappers_found:
                continue  # linted when the run already knew every wrapper it found
            try:
                text = read_source(file, max_bytes=self.config.max_bytes)
            except (InputError, OSError, ValueError):  # said when it was linted
                continue
            calls = frozenset(self._imported_wrappers(text))
            if not calls:
                continue
            self._forced = calls
            try:
                again = self.lint_source(text, display=display, file=file)
            finally:
                self._forced = frozenset()
            found.extend(f for f in again if f not in given)
        found.extend(self._unfollowed_trims())
        self._turn_trims.clear()
        self._windows_sent.clear()
        return found

    def _analyse_module(
        self, module: Module, relevant: frozenset[int], source: str, display: str
    ) -> list[Finding]:
        relevant |= _alias_lines(source, sink_aliases(module.imports))
        if not relevant:
            # Every function passed over: one may call a wrapper a module linted later defines
            # (`finish` lints this one again then), as a module naming no library word is.
            self.analysis.passed_over = True
            return []
        try:
            hits = self.last_hits = self.analysis.analyse(module, relevant)
            self._windows_sent.update(
                (hit.taint.path, hit.taint.line) for hit in hits if hit.taint.code == "PC507"
            )
        except RecursionError:
            message = "the module is nested too deeply to analyse; it was not checked"
            return self._select([_unchecked(display, 1, message)])
        findings = _findings(hits, display, self.config)
        findings.extend(
            _unchecked(
                display,
                line,
                "an expression on this line is nested too deeply to analyse; "
                "what it computes was not checked",
            )
            for line in sorted(module.unfollowed)
        )
        return self._select(_suppress(findings, source))

    def _select(self, findings: list[Finding]) -> list[Finding]:
        return [f for f in findings if self.config.enabled(f.code)]


def _with_cuts(
    sent: set[tuple[str, int]], cuts: dict[tuple[str, int], set[tuple[str, int]]]
) -> set[tuple[str, int]]:
    """The places windows that reached a request were cut: where each was reported, and where
    the windows that entered a module there were cut, in turn."""
    found = set(sent)
    todo = list(sent)
    while todo:
        for cut in cuts.get(todo.pop(), ()):
            if cut not in found:
                found.add(cut)
                todo.append(cut)
    return found


def _with_lf(source: str) -> str:
    """`source` with every line end a \n: Python also ends a line at a lone \r (old Mac files),
    which a count of \n would miss, putting every sink on line 1 (the lines and columns of
    `ast` stay the same: only the line ends change)."""
    if "\r" not in source:
        return source
    return source.replace("\r\n", "\n").replace("\r", "\n")


def _imports(source: str, module: str) -> bool:
    """Whether `source` has an import naming module `module` (its last name): `from app.llm
    import send`, `import llm`, `from . import llm`, `from .llm import send`."""
    if not module or module not in source:
        return False
    return _import_of(module).search(source) is not None


@lru_cache(maxsize=512)
def _import_of(module: str) -> re.Pattern[str]:
    name = re.escape(module)
    return re.compile(
        rf"^[ \t]*(?:from[ \t]+[\w.]*\b{name}\b[\w.]*[ \t]+import|import[ \t]+[\w., \t]*\b{name}\b"
        rf"|from[ \t]+[\w.]+[ \t]+import[ \t(]+[\w, \t]*\b{name}\b)",
        re.M,
    )


def _trigger_lines(source: str, text: _Text | None = None) -> frozenset[int]:
    """The lines on which a request API, a prompt template or a system-prompt name appears
    (`text`: `source` for the word tests, made here when not given)."""
    if text is None:
        text = _Text(source)
    lines: set[int] = set()
    lines.update(_rooted_method_lines(text))  # each checks its own words
    if text.has_any(_WINDOW_GATE):
        lines.update(_lines_of(_WINDOW_TRIGGER, source))
    if text.has_any(_FILL_GATE):
        lines.update(_lines_of(_FILL_TRIGGER, source))
    lines.update(_history_rewrites(text))
    if text.has_any(_TRIGGER_GATE):  # (a long module too: both then find the same lines)
        long = text.names is not source
        lines.update(_long_trigger_lines(text) if long else _lines_of(_TRIGGER, source))
    if text.has_any(_METHOD_GATE):
        lines.update(_method_sink_lines(text))
    if "[0]" in source and text.has("content"):  # a kept conversation's first message, again
        lines.update(_lines_of(_FIRST_REWRITE, source))
    if "assistant" in source and ".append(" in source:  # a call's answer kept as a turn
        lines.update(_lines_of(_ANSWER_KEPT, source))
    if "[-" in source:  # the newest turns of a history, which a builder may return to send
        lines.update(_lines_of(_HISTORY_SLICE, source))
    if "message_history" in source:  # a Pydantic AI agent run with earlier turns
        lines.update(_lines_of(_AGENT_HISTORY, source))
    return frozenset(lines)


def _history_rewrites(text: _Text) -> Iterator[int]:
    if not text.has_any(_HISTORY_WORDS):
        return
    source = text.source
    line, position = 1, 0
    for found in _HISTORY_ASSIGN.finditer(source):
        start = source.rfind("\n", 0, found.start()) + 1
        rewrite = _HISTORY_REWRITE.match(
            source, start, source.find("\n", found.end()) % (len(source) + 1)
        )
        if rewrite is None or not _HISTORY_WORD.search(rewrite.group(1).rsplit(".", 1)[-1]):
            continue
        line += source.count("\n", position, start)
        position = start
        yield line


def _lines_of(pattern: re.Pattern[str], source: str) -> Iterator[int]:
    line, position = 1, 0
    for found in pattern.finditer(source):
        line += source.count("\n", position, found.start())
        position = found.start()
        yield line


def _alias_lines(source: str, aliases: list[str]) -> frozenset[int]:
    """The lines that call a sink imported under a plain name (`completion(...)` of LiteLLM)."""
    if not aliases:
        return frozenset()
    return frozenset(_lines_of(_alias_pattern(tuple(aliases)), source))


@lru_cache(maxsize=256)
def _alias_pattern(aliases: tuple[str, ...]) -> re.Pattern[str]:
    """The calls through `aliases` (a project's modules import a sink under the same few)."""
    return re.compile(_word_starts(aliases) + r"\s*\(")


def lint_python_source(
    source: str, *, path: str = "<python>", config: LintConfig = DEFAULT_CONFIG
) -> list[Finding]:
    """Lint Python source text on its own (imports resolve from the config's root)."""
    return PythonLinter(config).lint_source(source, display=path)


def _findings(hits: list[Hit], display: str, config: LintConfig) -> list[Finding]:
    """One finding per site: the costliest of its hits; of equal cost, the one through the fewest
    calls the analysis could not see into, then the first message in order. (Hits arrive in set
    order, which follows string hashes: keeping the first of a tie made runs disagree.)"""
    best: dict[tuple[str, int, int], tuple[tuple[int, int], Finding]] = {}
    for hit in hits:
        finding = _finding(hit, display, config)
        if finding is None:
            continue
        key = (finding.code, finding.line, finding.column)
        rank = (finding.tokens_at_risk or 0, -len(hit.taint.via))
        kept = best.get(key)
        if (
            kept is None
            or rank > kept[0]
            or (rank == kept[0] and finding.message < kept[1].message)
        ):
            best[key] = (rank, finding)
    # A value an unread template rendered, reported where it renders a system prompt (its code
    # again: `_finding`), is not also a note that it could not be followed elsewhere.
    promoted = {
        (hit.taint.line, hit.taint.column)
        for hit in hits
        if _promoted(hit) and hit.taint.path == display
    }
    # Nor is a value whose place in a list was lost (`Findings.unplaced`) also a note where it
    # is reported already, judged where its message was made.
    reported = {(f.line, f.column) for _, f in best.values() if f.severity in ("warning", "error")}
    return sorted(
        (
            finding
            for _, finding in best.values()
            if finding.code != "PC506"
            or (
                (finding.line, finding.column) not in promoted
                and not (UNPLACED in finding.message and (finding.line, finding.column) in reported)
            )
        ),
        key=Finding.sort_key,
    )


def _promoted(hit: Hit) -> bool:
    """Rendered by a template the analysis could not read into a system prompt with the
    conversation after it: wherever the template places it, all that follows it varies."""
    return bool(hit.taint.unread) and hit.role == "system" and hit.history


# A static block after a value that holds fewer lines of text than this, and weighs less than
# as many full lines, is not reusable content: the few lines of rules under a question (`RULES`
# and three lines) are what the prompt's layout costs, not a prefix worth caching (the corpus
# labels count a block of fewer than about eight lines, blank ones among them, as none). Text
# written on few long lines is weighed as the full lines it would fill.
_SHORT_BLOCK_LINES = 6
_LINE_CHARS = 80  # a full line's weight, in characters (`_flow.text_weight`)


def _short_static(hit: Hit, tokens: int, config: LintConfig) -> bool:
    """Whether too little static text follows the value for it to cost anything: under the
    threshold, or (where its lines were counted) a short block."""
    if tokens < max(config.threshold, 1):
        return True
    return (
        hit.lines is not None
        and hit.lines < _SHORT_BLOCK_LINES
        and hit.after < _SHORT_BLOCK_LINES * _LINE_CHARS
    )


def _finding(hit: Hit, display: str, config: LintConfig) -> Finding | None:
    taint = hit.taint
    if _promoted(hit):
        taint = replace(taint, code=taint.unread)
    here = taint.path == display
    line, column = (taint.line, taint.column) if here else (hit.site_line, hit.site_column)
    tokens = hit.after // 4
    # A turn before the newest, or a system prompt, was judged where it was reached (by what
    # follows it); the other positions are judged here by the static text after the value.
    if not hit.history and hit.role not in _JUDGED and _short_static(hit, tokens, config):
        return None
    label = taint.label if here else f"{taint.label} (from {taint.path}:{taint.line})"
    where = _ROLE_WORDS.get(hit.role, "the cacheable prefix")
    site = f"{hit.api}, line {hit.site_line}"
    if hit.history and tokens:
        risk = (
            f"~{tokens} tokens of static text after it and the whole conversation that follows "
            "are prefilled again on every request"
        )
    elif hit.history:
        risk = "the whole conversation that follows it is prefilled again on every request"
    else:
        risk = f"~{tokens} tokens of static content after it can never be read from the cache"
    if hit.role == "history_text":  # a window of the history written into the newest turn
        risk = (
            "once the window is full its oldest lines drop on every request, so the turn's "
            "text from it on is never the previous request's and is prefilled again"
        )
        if tokens:
            risk += f" (with ~{tokens} tokens of static text after it)"
    if taint.code == "PC506":  # not followed: what it holds is unknown, not known to vary
        risk = "the analysis cannot follow it, so this request was not checked"
    notes = [hit.note] if hit.note else []
    if taint.via:
        calls = ", ".join(f"`{v}`" for v in taint.via[:3])
        notes.append(f"assumed to pass through {calls}, which the analysis cannot see into")
    note = f" ({'; '.join(notes)})" if notes else ""
    message = f"{label} reaches {where} ({site}){note}: {risk}; {RULES[taint.code].fix}"
    return Finding(
        path=display,
        line=line,
        column=column,
        code=taint.code,
        message=message,
        severity=RULES[taint.code].severity,
        tokens_at_risk=tokens,
        written_at=_written_at(taint, display, line),
        made_at=_made_at(taint, display),
        written_in=taint.written_in
        if taint.written_in and taint.written_in[0] != display
        else None,
    )


def _written_at(taint: Taint, display: str, line: int) -> int | None:
    """The line of `display` where the value is written, when not `line`: its own file's, or the
    placeholder of this file's template that a value made in another module fills."""
    if taint.path == display:
        written = taint.written
    elif taint.written_in is not None and taint.written_in[0] == display:
        written = taint.written_in[1]
    else:
        return None
    return written if written not in (0, line) else None


def _made_at(taint: Taint, display: str) -> tuple[str, int] | None:
    """Where the value is made, when that is another file than the one it is reported in: the
    place a window that entered this module was cut, or the value's own, made in another module
    and reported at the request here. In the same file the finding is already on that line."""
    made = taint.made or (taint.path, taint.line)
    return made if made[0] != display else None


def _parse_error(path: str, line: int, message: str) -> Finding:
    return _unchecked(path, line, f"cannot parse the Python file: {message}")


def _unchecked(path: str, line: int, message: str) -> Finding:
    """A PC500 finding: what `message` names was not checked (never reported as clean)."""
    return Finding(
        path=path,
        line=line,
        column=1,
        code="PC500",
        message=message,
        severity=RULES["PC500"].severity,
    )


def _suppress(findings: list[Finding], source: str) -> list[Finding]:
    """Drop findings on a line with `# noqa` or `# noqa: PC501, ...` (`source`: `_with_lf`'s)."""
    if not findings or "noqa" not in source.lower():
        return findings
    # Split at \n only (`source` has only \n line ends): `splitlines` also splits at form feeds
    # and U+2028, which Python keeps inside a line, and would look on the wrong line.
    lines = source.split("\n")
    kept = []
    for finding in findings:
        text = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
        covered = False
        for found in _NOQA.finditer(text):
            codes = [c.upper() for c in re.split(r"[,\s]+", found.group("codes") or "") if c]
            covered = covered or not codes or finding.code in codes
        if not covered:
            kept.append(finding)
    return kept
