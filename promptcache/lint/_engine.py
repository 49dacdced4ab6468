"""
Lint templates: parse, walk, then decide which hazards matter by what follows them.

A hazard is a finding only when at least `threshold` estimated tokens of cacheable content
follow it (or a chat template's whole conversation does): volatility at the end of a template,
or below the `{# promptcache: tail #}` marker, costs nothing.
"""

from __future__ import annotations

import dataclasses
import errno
import fnmatch
import json
import logging
import os
import re
import stat
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
import jinja2.meta
import orjson

from .._canonical import load_json
from .._errors import InputError, InternalError, PromptCacheError, json_kind
from .._inputs import check_regular, read_bounded
from ._config import DEFAULT_CONFIG, LintConfig
from ._format import format_events
from ._kinds import (
    USERS_QUESTION_NAMES,
    PromptKind,
    follows_conversation,
    handlebars,
    holds_the_newest_turn,
    looks_like_chat,
    not_a_prompt,
    prompt_kind,
)
from ._loader import Loader, mark_tail, parse, read_source
from ._model import Finding
from ._prompty import PROMPTY_SUFFIX, declared_inputs
from .python import PythonLinter
from .python._template_renders import Rendered
from .rules import RULES
from .rules.PC106 import (
    FORMAT_FIELD_FACTOR,
    LONG_PREFIX_FACTOR,
    SYSTEM_PROMPT_FACTOR,
    is_tool_list,
)
from .templates import (
    BRANCHES,
    BRANCHES_END,
    HISTORY,
    OR_BRANCH,
    TAIL,
    Event,
    Hazard,
    Note,
    Pin,
    Unsized,
    Walker,
)
from .templates._bindings import Captured
from .templates._events import TAIL_NAME, Sentinel

__all__ = [
    "LintReport",
    "Risk",
    "at_risk",
    "discover",
    "lint_file",
    "lint_paths",
    "lint_report",
    "lint_source",
    "risks",
]

_NOQA = re.compile(r"\{#-?\s*noqa\b(?::?\s*(?P<codes>[A-Za-z0-9,\s]*?))?\s*-?#\}", re.IGNORECASE)
_NEWLINE = re.compile(r"\r\n|\r|\n")
_KEYWORDS = frozenset({"if", "elif", "for", "include", "extends", "set"})
_UNKNOWN_TAG = re.compile(r"unknown tag '(?P<tag>[\w.]+)'")
_SHOWN_UNSIZED = 3  # names of unknown-size content quoted in a message
# A record's date or time (`previous_date`): its qualifier names the record.
_DATED_FIELD = re.compile(r"^([A-Za-z]\w*?)_(?:date|time|datetime|timestamp|day)$")
_SKIP_DIRS = frozenset({".git", ".hg", ".venv", "venv", "node_modules", "__pycache__", ".tox"})


def lint_source(
    source: str,
    *,
    path: str = "<template>",
    config: LintConfig = DEFAULT_CONFIG,
    chat: bool | None = None,
    loader: Loader | None = None,
    file: Path | None = None,
    given: frozenset[str] | None = None,
    tail: bool = False,
    place: PromptKind | None = None,
) -> list[Finding]:
    """
    Lint template source text; `path` is the name used in findings.

    `chat` forces (or rules out) chat-template mode; by default it is detected from the source
    (a loop over `messages` with role tests or special tokens, or `add_generation_prompt`) or
    a file name containing `chat_template`. `file` is where the template lives, so includes
    resolve next to it; `loader` shares parsed includes across calls. `given`: the names the
    project's every render of this template passes, where its Python shows them all (see
    `TemplateRenders`): a variable none of them passes renders empty (Jinja's `Undefined`).
    `tail`: every render puts the text at the tail of its request (the newest user turn, after
    the conversation history), where nothing after any of its values is ever reused: no
    hazard in it is a finding. `place`: the message every render makes the text part of
    ("system", "user"), where the project's Python shows it: the template is judged as that
    kind of prompt, whatever its name or opening suggest.
    """
    is_chat = looks_like_chat(source, path) if chat is None else chat
    loader = loader or _loader(config)
    notes: list[Note] = []
    try:
        hazards = _analyse(source, path, file, config, loader, is_chat, notes, given, place)
        if tail and not is_chat:
            hazards = []
    except jinja2.TemplateSyntaxError as exc:
        return _select(_unparsed(source, path, config, exc), config)
    except InputError:
        raise  # the configuration is wrong (an extension that does not load): not this file
    except RecursionError:
        message = "the template is nested too deeply to analyse"
        return _select([_parse_error(path, 1, message)], config)
    except (jinja2.TemplateError, ValueError, OverflowError, MemoryError) as exc:
        return _select([_parse_error(path, 1, f"{type(exc).__name__}: {exc}")], config)
    lines = _lines(source) if hazards else []
    findings = [_finding(h, risk, path, lines) for h, risk in hazards]
    findings += [_note(note, path) for note in notes]
    findings.sort(key=Finding.sort_key)
    return _select(_suppress(_unique(findings), source), config)


def _unparsed(
    source: str, path: str, config: LintConfig, exc: jinja2.TemplateSyntaxError
) -> list[Finding]:
    """A file Jinja refuses: Handlebars, an extension's tag, a `str.format` file, or an error."""
    message = exc.message or str(exc)
    if handlebars(source):
        return [_skipped(path, "it is a Handlebars template (dotprompt), not Jinja")]
    tag = _UNKNOWN_TAG.search(message)
    if tag is not None:
        return [_unknown_tag(path, exc.lineno or 1, tag.group("tag"))]
    events = format_events(source, config, path)
    if events is None:
        return [_parse_error(path, exc.lineno or 1, message)]
    lines = _lines(source)
    kind = prompt_kind(source, path)
    one_request = holds_the_newest_turn(source, kind)
    found = risks(events, config.threshold, kind=kind, one_request=one_request)
    return _unique([_finding(h, risk, path, lines) for h, risk in found])


def _loader(config: LintConfig) -> Loader:
    return Loader(
        search_path=_search_path(config), extensions=config.extensions, max_bytes=config.max_bytes
    )


def lint_file(
    path: Path,
    *,
    config: LintConfig = DEFAULT_CONFIG,
    loader: Loader | None = None,
    display: str | None = None,
    found_in_folder: bool = False,
    given: Rendered | None = None,
) -> list[Finding]:
    """
    Lint one file: a template, a `.jinja` chat template or a tokenizer_config.json.

    A file found while searching a folder is skipped (an info finding, PC003) when it is not
    a prompt: an HTML page or a code or configuration generator.
    """
    shown = display or str(path)
    try:
        source = read_source(path, max_bytes=config.max_bytes)
    except InputError as exc:  # not a regular file, or over the bound: the message names it
        return _select([_parse_error(shown, 1, f"cannot read the file: {exc}")], config)
    except OSError as exc:
        return _select([_parse_error(shown, 1, f"cannot read the file: {exc.strerror}")], config)
    except ValueError as exc:
        return _select([_parse_error(shown, 1, str(exc))], config)
    if path.name.endswith(".json"):
        return _lint_tokenizer_config(source, shown, config)
    if path.suffix == ".py":
        return PythonLinter(config).lint_source(source, display=shown, file=path)
    if found_in_folder and (reason := not_a_prompt(path, source)) is not None:
        return _select([_skipped(shown, reason)], config)
    return lint_source(
        source,
        path=shown,
        config=config,
        loader=loader,
        file=path,
        given=given.names if given is not None else None,
        tail=given is not None and given.tail,
        place=given.place if given is not None else None,
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class LintReport:
    """The findings of a run, sorted, and how many files were looked at."""

    findings: tuple[Finding, ...]
    files: int


def lint_paths(
    paths: Sequence[str | Path], *, config: LintConfig = DEFAULT_CONFIG
) -> list[Finding]:
    """Lint files and folders (folders are searched with the config's include globs)."""
    return list(lint_report(paths, config=config).findings)


def lint_report(paths: Sequence[str | Path], *, config: LintConfig = DEFAULT_CONFIG) -> LintReport:
    """`lint_paths`, also counting the files found (so a caller can warn when none matched)."""
    loader = _loader(config)
    python = PythonLinter(config)  # one per run: modules and summaries are shared across files
    findings: list[Finding] = []
    files = 0
    found = list(_discover(paths, config))
    given = _Given(found, python, config.max_bytes)
    with python.paused_gc():
        for file, in_folder, unreadable in found:
            files += 1
            if unreadable is not None:  # found in a folder, not checked: a note, not silence
                # named by the link itself: resolving a broken link names where it points
                shown = Path(_display(file.parent), file.name).as_posix()
                findings.extend(_select([_skipped(shown, unreadable)], config))
                continue
            try:
                findings.extend(_lint_one(file, in_folder, config, loader, python, given))
            except (PromptCacheError, OSError):
                raise  # said on purpose, or the disk's: the CLI names either as it is
            except Exception as exc:
                raise InternalError(f"linting {_display(file)!r}") from exc
        try:  # the modules that call a wrapper the run found after them
            findings.extend(python.finish())
        except (PromptCacheError, OSError):
            raise
        except Exception as exc:
            raise InternalError("linting the modules that call the project's wrappers") from exc
        python.release()
    return LintReport(findings=tuple(sorted(findings, key=Finding.sort_key)), files=files)


def _lint_one(
    file: Path,
    in_folder: bool,
    config: LintConfig,
    loader: Loader,
    python: PythonLinter,
    given: _Given,
) -> list[Finding]:
    if file.suffix == ".py":
        return python.lint_file(file, display=_display(file))
    return lint_file(
        file,
        config=config,
        loader=loader,
        display=_display(file),
        found_in_folder=in_folder,
        given=given.of(file),
    )


class _Given:
    """
    The names the project's renders pass to each template linted with its Python (see
    `TemplateRenders`): known only when the run lints the Python files of every render of the
    template, and no other template it lints names the file (an include or an import renders
    it with that template's names). Another template is read through the bounded reader: one
    that cannot be read (over `max_bytes`, no longer a regular file) may name the file.
    """

    def __init__(
        self, found: list[tuple[Path, bool, str | None]], python: PythonLinter, max_bytes: int
    ) -> None:
        self._python = python
        self._max_bytes = max_bytes
        self._code = {
            os.path.abspath(f) for f, _, why in found if why is None and f.suffix == ".py"
        }
        self._templates = [f for f, _, why in found if why is None and f.suffix != ".py"]
        self._texts: dict[Path, str | None] = {}

    def of(self, template: Path) -> Rendered | None:
        if not self._code or template.name.endswith(".json"):
            return None
        known = self._python.renders.rendered(template)
        if known is None:
            return None
        if any(os.path.abspath(f) not in self._code for f in known.files):
            return None  # a render in a file this run does not lint
        if any(
            template.name in (self._text(other) or template.name)
            for other in self._templates
            if other != template
        ):
            return None
        return known

    def _text(self, file: Path) -> str | None:
        if file not in self._texts:
            try:
                data = read_bounded(file, max_bytes=self._max_bytes, flag=None)
                self._texts[file] = data.decode("utf-8", errors="replace")
            except (OSError, InputError):
                self._texts[file] = None
        return self._texts[file]


def discover(paths: Sequence[str | Path], config: LintConfig) -> Iterator[Path]:
    """
    The files to lint: explicit files as given, folders searched for included names; a file
    found in a folder that cannot be read is left out, with a warning on the log.
    """
    for file, _, unreadable in _discover(paths, config):
        if unreadable is None:
            yield file
        else:
            _LOGGER.warning("promptcache: skipped %s: %s", file, unreadable)


def _discover(
    paths: Sequence[str | Path], config: LintConfig
) -> Iterator[tuple[Path, bool, str | None]]:
    """
    Each file to lint, whether it was found by searching a folder, and why it cannot be read
    (None: it can; only a file found in a folder has a reason, one named is refused instead).
    A file reached twice (named twice, or named and in a folder named) is linted once.
    """
    seen: set[str] = set()
    for file, in_folder, unreadable in _each_input(paths, config):
        key = os.path.abspath(file)
        if key not in seen:
            seen.add(key)
            yield file, in_folder, unreadable


def _each_input(
    paths: Sequence[str | Path], config: LintConfig
) -> Iterator[tuple[Path, bool, str | None]]:
    for raw in paths:
        if raw == "":  # Path("") is the current folder: an unset variable would lint it all
            raise InputError(
                "'' is an empty path (an unset variable?); pass template files or folders, "
                "or '.' for the current folder"
            )
        path = raw if isinstance(raw, Path) else Path(raw)  # copying a Path costs a re-parse
        info = _status(path)  # one system call answers "a file?", "a folder?" and the size
        if info is not None and stat.S_ISREG(info.st_mode):
            if not _excluded(path, config):
                size = info.st_size
                if size > config.max_bytes:
                    raise InputError(
                        f"{str(raw)!r} is {size:,} bytes, over the {config.max_bytes:,}-byte "
                        "input limit; raise it with --max-bytes N"
                    )
                yield path, False, None
        elif info is not None and stat.S_ISDIR(info.st_mode):
            found = dict(_walk(path, config))
            ignored = _git_ignored(path, list(found))
            yield from ((file, True, why) for file, why in found.items() if file not in ignored)
        elif os.path.lexists(path):  # there, but not a file or folder we can read
            check_regular(path, fix="; pass template files or folders")
            raise InputError(f"cannot read {str(raw)!r}; pass template files or folders")
        else:
            raise InputError(f"{str(raw)!r} does not exist; pass template files or folders")


def _status(path: Path) -> os.stat_result | None:
    """`path`'s status (links followed), or None where `Path.is_file` and `is_dir` answer False
    (it does not exist, a folder in it is a file, a symlink loop); other errors propagate, as
    theirs do."""
    try:
        return path.stat()
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            return None
        raise
    except ValueError:  # a NUL in the name
        return None


def _git_ignored(folder: Path, files: list[Path]) -> set[Path]:
    """The files `.gitignore` rules exclude (asked of git; none outside a git work tree)."""
    if not files:
        return set()
    absolute = {str(file.absolute()): file for file in files}  # git runs inside `folder`
    try:
        answer = subprocess.run(
            ["git", "check-ignore", "--stdin", "-z"],
            input="".join(f"{name}\0" for name in absolute),
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return set()  # git is not installed: nothing to read the rules with
    if answer.returncode not in (0, 1):  # 128: not inside a git work tree
        return set()
    return {absolute[name] for name in answer.stdout.split("\0") if name in absolute}


def _walk(folder: Path, config: LintConfig) -> Iterator[tuple[Path, str | None]]:
    """
    The included files in `folder`, each with why it cannot be read (None: it can); a folder
    in it that cannot be listed, and a link to a folder (not followed), come with their reason
    too: their files were not checked. `folder` itself unlistable is an InputError.
    """
    unlisted: list[OSError] = []
    for root, dirs, files in os.walk(folder, onerror=unlisted.append):
        yield from _unlisted(folder, unlisted)
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            dirs.remove(name)  # os.walk would not descend into it either
            if not _excluded(Path(root, name), config):
                yield Path(root, name), _LINKED_FOLDER
        for name in sorted(files):
            file = Path(root, name)
            if any(fnmatch.fnmatch(name, g) for g in config.include) and not _excluded(
                file, config
            ):
                yield file, _unreadable(file, config.max_bytes)
    yield from _unlisted(folder, unlisted)


_LINKED_FOLDER = "a symlink to a folder, not followed: the files in it were not checked"


def _unlisted(folder: Path, errors: list[OSError]) -> Iterator[tuple[Path, str]]:
    """The folders `os.walk` could not list (it passes over them unless told), each once."""
    while errors:
        error = errors.pop(0)
        name = Path(error.filename) if error.filename is not None else folder
        reason = error.strerror or str(error)
        if os.path.abspath(name) == os.path.abspath(folder):
            raise InputError(
                f"cannot list the folder {str(folder)!r}: {reason}; make it readable, or pass "
                "the files in it"
            )
        yield name, f"a folder that cannot be listed ({reason}): its files were not checked"


_LOGGER = logging.getLogger("promptcache.lint")


def _unreadable(file: Path, max_bytes: int) -> str | None:
    """
    Why a file found in a folder is not read (a symlink loop, a broken link, a FIFO, a device,
    over `max_bytes`), or None for a regular file within it.
    """
    try:
        info = file.stat()
    except OSError as exc:
        return "a symlink loop" if exc.errno == errno.ELOOP else exc.strerror or "unreadable"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if info.st_size > max_bytes:
        return f"{info.st_size:,} bytes, over the {max_bytes:,}-byte input limit (raise it with --max-bytes N)"
    return None


def _excluded(path: Path, config: LintConfig) -> bool:
    if not config.exclude:  # the usual case: no path to work out
        return False
    shown = _display(path)
    return any(fnmatch.fnmatch(shown, g) or fnmatch.fnmatch(path.name, g) for g in config.exclude)


def _display(path: Path) -> str:
    """The path shown in findings: relative to the current folder when it is inside it."""
    return _display_from(path, os.getcwd())


@lru_cache(maxsize=8192)
def _display_from(path: Path, cwd: str) -> str:
    # Resolving is a system call per path component; each file is shown (and matched) twice.
    try:
        return path.resolve().relative_to(Path(cwd).resolve()).as_posix()
    except (ValueError, OSError, RuntimeError):  # outside cwd; a symlink loop cannot resolve
        return path.as_posix()


def _search_path(config: LintConfig) -> list[Path]:
    root = config.root or Path.cwd()
    return [root / folder for folder in config.search_path] + [root]


# -- analysis ------------------------------------------------------------------------------------


def _analyse(
    source: str,
    path: str,
    file: Path | None,
    config: LintConfig,
    loader: Loader,
    chat: bool,
    notes: list[Note],
    given: frozenset[str] | None = None,
    place: PromptKind | None = None,
) -> list[tuple[Hazard, Risk]]:
    ast = parse(mark_tail(source), chat=chat, extensions=config.extensions)
    config = _with_declared_inputs(config, source, path)
    kind = "system" if chat else place or prompt_kind(source, path)
    walker = Walker(
        config=config,
        loader=loader,
        origin=path,
        path=file,
        chat=chat,
        notes=notes,
        system=kind == "system",
        # a system prompt's "the conversation so far" speaks of the history after it
        after_conversation=kind != "system" and follows_conversation(source),
    )
    one_request = not chat and holds_the_newest_turn(source, kind)
    scope: dict[str, object] = {}
    if given is not None and not chat:
        # Never passed by the project's renders: it renders empty, the same on every request.
        scope = {name: Captured(0) for name in _never_passed(ast, given)}
    return risks(walker.template(ast, scope), config.threshold, kind=kind, one_request=one_request)


def _never_passed(ast: jinja2.nodes.Template, given: frozenset[str]) -> frozenset[str]:
    """The variables the template reads that no render passes (none when it includes, imports
    or extends another template: that one's variables and blocks are not looked into)."""
    if any(
        ast.find_all(
            (
                jinja2.nodes.Include,
                jinja2.nodes.Import,
                jinja2.nodes.FromImport,
                jinja2.nodes.Extends,
            )
        )
    ):
        return frozenset()
    return frozenset(_read_names(ast) - given - _JINJA_GLOBALS - {TAIL_NAME})


def _read_names(ast: jinja2.nodes.Template) -> set[str]:
    """`jinja2.meta.find_undeclared_variables`, with every filter and test known.

    Jinja's code generator, which finds the names, also refuses a filter or test its environment
    lacks; a project registers its own in Python (`env.filters["money"] = ...`), and the lint's
    environment does not hold them. Which names a template reads does not depend on them.
    """
    environment = (ast.environment or jinja2.Environment()).overlay()
    environment.filters = _AnyCallable(environment.filters)
    environment.tests = _AnyCallable(environment.tests)
    codegen = jinja2.meta.TrackingCodeGenerator(environment)
    codegen.visit(ast)
    return codegen.undeclared_identifiers


class _AnyCallable(dict[str, Any]):
    """A filter or test table in which every name is there (an unknown one does nothing)."""

    def get(self, key: str, default: object = None) -> Any:
        return super().get(key, _does_nothing)


def _does_nothing(*args: object, **kwargs: object) -> None:
    return None


_JINJA_GLOBALS = frozenset(jinja2.Environment().globals)


def _with_declared_inputs(config: LintConfig, source: str, path: str) -> LintConfig:
    """A `.prompty` file's declared inputs are per-request values, whatever their names."""
    if not path.lower().endswith(PROMPTY_SUFFIX):
        return config
    inputs = declared_inputs(source)
    return config.replace(per_request=(*config.per_request, *inputs)) if inputs else config


@dataclass(frozen=True, slots=True, kw_only=True)
class Risk:
    """
    What follows a hazard in the cacheable prefix.

    `tokens`: estimated tokens of static text (and of variables with a declared size);
    `history`: a chat template's conversation follows; `unsized`: names of stable content
    whose size is unknown (closest first, at most three).
    """

    tokens: int
    history: bool
    unsized: tuple[str, ...] = ()


def risks(
    events: Iterable[Event],
    threshold: int,
    *,
    kind: PromptKind = "system",
    one_request: bool = False,
) -> list[tuple[Hazard, Risk]]:
    """
    Hazards worth reporting: followed by `threshold` tokens, a chat history, or content of
    unknown size (a stable variable or loop; declare its size with `sizes` to count it).

    A variable of unknown meaning (PC106) needs a long static block after it: one run of static
    text, not labels scattered between other values (in a user turn, one block of `threshold`
    tokens: a variable there is the request's data). `kind` is the prompt file's kind: in a
    user turn, the newest message, values belong where they are, so a hazard there needs one
    block of `threshold` tokens of instructions after it, and the variables around it are the
    request's own data, not reusable content; outside a system prompt, a one-line labelled
    field (`Users online: {{ count }}`) is data of the request too. `one_request`: the prompt holds
    the newest turn (the user's question, the answer it grades), so, as in a user turn, only one
    block of `threshold` tokens after a value counts, not labels and lines between its fields.
    """
    prefix: list[Event] = []
    for event in events:
        if event is TAIL:
            break
        prefix.append(event)
    found = _scan(prefix, threshold, kind=kind, one_request=one_request)
    pinned = {name for event in prefix if isinstance(event, Pin) for name in event.names}
    if not pinned:
        return found
    # A value's own branches (`{% if kind == 'flights' %}` after `{{ kind }}`) render with one
    # value of it each, cached with it: what follows the value is measured without them.
    for index, event in enumerate(prefix):
        if not isinstance(event, Hazard) or (name := _value_name(event)) not in pinned:
            continue
        rest = _without_pinned(prefix[index + 1 :], name)
        alone = _scan([event, *rest], threshold, kind=kind, one_request=one_request)
        mine = [(hazard, risk) for hazard, risk in alone if hazard is event]
        found = _replace(found, event, mine)
    return found


def _replace(
    found: list[tuple[Hazard, Risk]], hazard: Hazard, by: list[tuple[Hazard, Risk]]
) -> list[tuple[Hazard, Risk]]:
    """`found` with the entry of this very `hazard` replaced by `by` (none: dropped)."""
    out: list[tuple[Hazard, Risk]] = []
    for item in found:
        out.extend(by if item[0] is hazard else [item])
    return out


def _without_pinned(events: Sequence[Event], name: str) -> list[Event]:
    """`events` without the content of the branches that render for one value of `name`."""
    kept: list[Event] = []
    depth = 0
    for event in events:
        if isinstance(event, Pin):
            if name in event.names:
                depth += -1 if event.end else 1
                depth = max(depth, 0)  # the end of a branch the value itself is in
            continue
        if depth == 0:
            kept.append(event)
    return kept


def _scan(
    prefix: Sequence[Event], threshold: int, *, kind: PromptKind, one_request: bool
) -> list[tuple[Hazard, Risk]]:
    """The backward scan of `risks` over the events before the tail."""
    found: list[tuple[Hazard, Risk]] = []
    following = _Following()
    branches = _Branches()
    for event in reversed(prefix):
        if isinstance(event, int):
            following.add_text(event)
            continue
        if isinstance(event, Pin):
            continue
        if isinstance(event, Sentinel) and event in _BRANCH_MARKS:
            following = branches.cross(event, following)
            continue
        following.run = 0  # anything but static text ends a run of it
        after, block, history = following.after, following.block, following.history
        unsized = following.unsized
        if isinstance(event, Unsized):
            if event.name not in unsized and _reusable(event, kind):
                unsized.append(event.name)
        elif event is HISTORY:
            following.history = True
        elif isinstance(event, Hazard) and event.code == "PC106":
            # unknown meaning: a long block; in a user turn a variable is the request's data,
            # so one block of instructions after it costs as a per-request value's does; in a
            # system prompt the conversation follows the block too, so a shorter one is enough
            factor = {"user": 1, "system": SYSTEM_PROMPT_FACTOR}.get(kind, LONG_PREFIX_FACTOR)
            if event.placeholder:  # a section of data the call that sends the text fills
                factor = min(factor, FORMAT_FIELD_FACTOR)
            if event.data:  # the material the prompt works on: the request's own data
                factor = 1
            if block >= max(threshold, 1) * factor or (event.data and history):
                found.append((event, Risk(tokens=after, history=history, unsized=())))
        elif isinstance(event, Hazard):
            name = _value_name(event)
            if name in USERS_QUESTION_NAMES:
                # what follows the user's question in the same text is that request's own (a
                # retry note, a format hint): only static text after it may be reused
                unsized.clear()
            # Content of unknown size counts as stable unless it is the same record's.
            others = [n for n in unsized if not _same_record(name, n)]
            if event.per_conversation and kind == "system":
                # Fixed for the conversation, it costs what follows once per conversation:
                # reported on the static text the template shows, or on the tools every
                # conversation is given, not on other content it cannot size (words and
                # lists filled per call after who is asking).
                others = [n for n in others if is_tool_list(n)]
            static = block if kind == "user" or one_request else after
            # The conversation after a value fixed for that conversation is its own.
            followed = history and not event.per_conversation
            if followed or event.conversation or static >= max(threshold, 1) or others:
                shown = tuple(reversed(others[-_SHOWN_UNSIZED:]))
                follows = followed or event.conversation
                found.append((event, Risk(tokens=after, history=follows, unsized=shown)))
    found.reverse()
    return found


_BRANCH_MARKS = frozenset({BRANCHES, OR_BRANCH, BRANCHES_END})


@dataclass(slots=True, kw_only=True)
class _Following:
    """
    What follows the point the backward scan of `risks` has reached: `after` tokens of static
    text, the longest uninterrupted `block` of it and the `run` it is in, whether a chat
    history follows, and the names of stable content of unknown size (closest last).
    """

    after: int = 0
    run: int = 0
    block: int = 0
    history: bool = False
    unsized: list[str] = dataclasses.field(default_factory=list)

    def add_text(self, tokens: int) -> None:
        self.after += tokens
        self.run += tokens
        self.block = max(self.block, self.run)

    def copy(self) -> _Following:
        return dataclasses.replace(self, unsized=list(self.unsized))


@dataclass(slots=True)
class _Branches:
    """
    The `{% if %}` branches the backward scan is inside. One request renders one branch, so
    each branch starts from what follows the whole `if`, not from the branches after it; what
    precedes the `if` is followed by its longest branch (any branch may render after it).
    """

    # per open `if`: what follows it, and what follows the start of each branch scanned so far
    open: list[tuple[_Following, list[_Following]]] = dataclasses.field(default_factory=list)

    def cross(self, mark: Sentinel, following: _Following) -> _Following:
        """What follows the point just before `mark`, met scanning backwards."""
        if mark is BRANCHES_END:
            self.open.append((following.copy(), []))
            return following
        if not self.open:
            return following  # the `if` was cut by the tail marker: nothing after it counts
        end, starts = self.open[-1]
        starts.append(following)
        if mark is OR_BRANCH:
            return end.copy()
        self.open.pop()
        return _longest(starts)


def _longest(starts: Sequence[_Following]) -> _Following:
    """What follows an `if` whose branches start as `starts`: each measure's largest, each name."""
    unsized: list[str] = []
    for start in sorted(starts, key=lambda s: s.after, reverse=True):
        unsized.extend(name for name in start.unsized if name not in unsized)
    return _Following(
        after=max(s.after for s in starts),
        run=max(s.run for s in starts),
        block=max(s.block for s in starts),
        history=any(s.history for s in starts),
        unsized=unsized,
    )


def _reusable(content: Unsized, kind: PromptKind) -> bool:
    """Whether content of unknown size after a hazard may be reusable content (see `risks`)."""
    if kind == "user":
        return False
    return kind == "system" or not content.field


def _value_name(hazard: Hazard) -> str:
    """The name of the value a hazard is about: a format placeholder's anchor (`{question}`)
    carries its braces, a Jinja variable's does not; a branch or loop is about the value its
    test reads (`{% if question %}`: the user's question, whose request's own text follows)."""
    if hazard.about:
        return hazard.about
    return hazard.anchor.strip("{}") if hazard.code == "PC105" else hazard.anchor


def _same_record(anchor: str, name: str) -> bool:
    """Whether content `name` belongs to the record whose per-request field is `anchor`: another
    attribute of the same object (`episode.date`, `episode.script`), or a name sharing the
    qualifier of a dated one (`previous_date`, `previous_script`). It varies with it."""
    if name.split(".", 1)[0] == anchor:
        return True
    dated = _DATED_FIELD.match(anchor)
    return dated is not None and name.startswith(f"{dated.group(1)}_")


def at_risk(events: Iterable[Event], threshold: int) -> list[tuple[Hazard, int, bool]]:
    """`risks` as (hazard, tokens, history) triples."""
    return [(hazard, risk.tokens, risk.history) for hazard, risk in risks(events, threshold)]


def _finding(hazard: Hazard, risk: Risk, path: str, lines: list[str]) -> Finding:
    message = f"{hazard.detail} in the cacheable prefix: {_consequence(risk)}; "
    message += hazard.fix or RULES[hazard.code].fix
    return Finding(
        path=path,
        line=hazard.line,
        column=_column(lines, hazard.line, hazard.anchor),
        code=hazard.code,
        message=message,
        severity=RULES[hazard.code].severity,
        tokens_at_risk=risk.tokens,
        written_at=hazard.written if hazard.written not in (0, hazard.line) else None,
    )


def _consequence(risk: Risk) -> str:
    if risk.history:
        return (
            f"the whole conversation after it (and ~{risk.tokens} tokens of template text) is "
            "prefilled again on every request"
        )
    static = f"~{risk.tokens} tokens of static content after it can never be read from the cache"
    if not risk.unsized:
        return static
    names = ", ".join(f"`{name}`" for name in risk.unsized)
    return (
        f"{static}, nor can the content of unknown size after it ({names}); declare the "
        "size of small variables with `sizes` in [tool.promptcache.lint]"
    )


def _column(lines: list[str], line: int, anchor: str) -> int:
    """
    Jinja nodes carry no column, so find the anchor on the line (1-based; 1 when absent).

    Of several whole-word matches, prefer one inside `{% %}` for a keyword anchor (`if`,
    `include`) and one inside `{{ }}` for anything else (a call, a variable).
    """
    if not 1 <= line <= len(lines) or not anchor:
        return 1
    text = lines[line - 1]
    # Matches are taken lazily and the first preferred one wins: listing every match, and
    # scanning back along the line from each, for every finding was cubic on a one-line template.
    starts = (m.start() for m in re.finditer(rf"(?<!\w){re.escape(anchor)}(?!\w)", text))
    first = next(starts, None)
    if first is None:
        return text.find(anchor) + 1 or 1
    opener = "{%" if anchor in _KEYWORDS else "{{"
    if _inside(text, first) == opener:
        return first + 1
    return next((s for s in starts if _inside(text, s) == opener), first) + 1


def _inside(text: str, position: int) -> str:
    """Which tag (`{{` or `{%`) opens last before `position` on this line."""
    expression, statement = text.rfind("{{", 0, position), text.rfind("{%", 0, position)
    if expression < 0 and statement < 0:
        return ""
    return "{{" if expression > statement else "{%"


def _lines(source: str) -> list[str]:
    """Lines as Jinja counts them (`str.splitlines` also splits at form feeds and U+2028)."""
    return _NEWLINE.split(source)


def _parse_error(path: str, line: int, message: str) -> Finding:
    return Finding(
        path=path,
        line=line,
        column=1,
        code="PC001",
        message=f"cannot parse the template: {message}",
        severity=RULES["PC001"].severity,
    )


def _unique(findings: list[Finding]) -> list[Finding]:
    """One finding per line and code: the same value reached by several macro paths is one."""
    kept: dict[tuple[int, str], Finding] = {}
    for finding in findings:
        kept.setdefault((finding.line, finding.code), finding)
    return list(kept.values())


def _info(path: str, line: int, code: str, message: str) -> Finding:
    rule = RULES[code]
    return Finding(
        path=path,
        line=line,
        column=1,
        code=code,
        message=f"{message}; {rule.fix}",
        severity=rule.severity,
    )


def _note(note: Note, path: str) -> Finding:
    return _info(path, note.line, "PC002", f"could not check {note.message}")


def _unknown_tag(path: str, line: int, tag: str) -> Finding:
    message = (
        f"could not check this template: the tag `{{% {tag} %}}` comes from a Jinja extension "
        'the linter does not load (e.g. `extensions = ["jinja2_time.TimeExtension"]`)'
    )
    return _info(path, line, "PC002", message)


def _skipped(path: str, reason: str) -> Finding:
    return _info(path, 1, "PC003", f"skipped: {reason}")


def _select(findings: list[Finding], config: LintConfig) -> list[Finding]:
    return [f for f in findings if config.enabled(f.code)]


def _suppress(findings: list[Finding], source: str) -> list[Finding]:
    """Drop findings on a line that carries `{# noqa #}` or `{# noqa: PC101, ... #}`."""
    if not findings or "noqa" not in source.lower():
        return findings
    lines = _lines(source)
    kept = []
    for finding in findings:
        text = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
        if not any(_noqa_covers(found, finding.code) for found in _NOQA.finditer(text)):
            kept.append(finding)
    return kept


def _noqa_covers(found: re.Match[str], code: str) -> bool:
    codes = [c.upper() for c in re.split(r"[,\s]+", found.group("codes") or "") if c]
    return not codes or code in codes


# -- chat templates ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _ChatTemplate:
    label: str
    source: str


def _lint_tokenizer_config(source: str, path: str, config: LintConfig) -> list[Finding]:
    """Lint the `chat_template` (a string, or a list of named templates) of a tokenizer config."""
    try:
        data = load_json(source, path)
    except InputError as exc:  # nested deeper than promptcache reads
        return _select([_parse_error(path, 1, str(exc))], config)
    except orjson.JSONDecodeError:
        try:  # what orjson refuses and json takes (NaN), or json's words for the error
            data = json.loads(source)
        except json.JSONDecodeError as exc:
            return _select([_parse_error(path, exc.lineno, f"invalid JSON: {exc.msg}")], config)
        except ValueError as exc:  # an integer longer than Python's int-str limit
            return _select([_parse_error(path, 1, f"invalid JSON: {exc}")], config)
    key_line = next(
        (n for n, text in enumerate(source.splitlines(), 1) if '"chat_template"' in text), 1
    )
    try:
        templates = _chat_templates(data)
    except ValueError as exc:  # a shape transformers would not load: not checked, so said
        return _select([_parse_error(path, 1, str(exc))], config)
    findings: list[Finding] = []
    for template in templates:
        for found in lint_source(template.source, path=path, config=config, chat=True):
            message = f"{template.label} line {found.line}: {found.message}"
            findings.append(dataclasses.replace(found, line=key_line, column=1, message=message))
    return findings


def _chat_templates(data: object) -> list[_ChatTemplate]:
    """The chat templates of a tokenizer config (none when it has none); ValueError naming the
    part when `chat_template` is neither a string nor a list of `{name, template}` objects."""
    if not isinstance(data, dict):
        raise ValueError(
            f"the file holds a JSON {json_kind(data)}, not an object of tokenizer settings"
        )
    value = data.get("chat_template")
    if value is None:
        return []
    if isinstance(value, str):
        return [_ChatTemplate(label="chat_template", source=value)]
    expected = "expected a string, or a list of objects with a string `name` and `template`"
    if not isinstance(value, list):
        raise ValueError(f"`chat_template` is {_a(json_kind(value))}; {expected}")
    templates = []
    for index, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get("template"), str):
            raise ValueError(f"`chat_template[{index}]` is {_a(json_kind(item))}; {expected}")
        templates.append(
            _ChatTemplate(label=f"chat_template[{item.get('name')!r}]", source=item["template"])
        )
    return templates


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"
