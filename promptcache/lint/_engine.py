"""
Lint templates: parse, walk, then decide which hazards matter by what follows them.

A hazard is a finding only when at least `threshold` estimated tokens of cacheable content
follow it (or a chat template's whole conversation does): volatility at the end of a template,
or below the `{# promptcache: tail #}` marker, costs nothing.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import jinja2

from .._errors import InputError
from ._config import DEFAULT_CONFIG, LintConfig
from ._loader import Loader, decode, mark_tail, parse
from ._model import Finding
from ._walker import HISTORY, TAIL, Event, Hazard, Walker
from .rules import RULES

__all__ = ["at_risk", "discover", "lint_file", "lint_paths", "lint_source"]

_NOQA = re.compile(r"\{#-?\s*noqa\b(?::?\s*(?P<codes>[A-Za-z0-9,\s]*?))?\s*-?#\}", re.IGNORECASE)
_NEWLINE = re.compile(r"\r\n|\r|\n")
_KEYWORDS = frozenset({"if", "elif", "for", "include", "extends", "set"})
_SKIP_DIRS = frozenset({".git", ".hg", ".venv", "venv", "node_modules", "__pycache__", ".tox"})


def lint_source(
    source: str,
    *,
    path: str = "<template>",
    config: LintConfig = DEFAULT_CONFIG,
    chat: bool | None = None,
    loader: Loader | None = None,
    file: Path | None = None,
) -> list[Finding]:
    """
    Lint template source text; `path` is the name used in findings.

    `chat` forces (or rules out) chat-template mode; by default it is detected from the source
    (`messages` and `add_generation_prompt`) or a file name containing `chat_template`. `file`
    is where the template lives, so includes resolve next to it; `loader` shares parsed
    includes across calls.
    """
    is_chat = _looks_like_chat(source, path) if chat is None else chat
    loader = loader or Loader(search_path=_search_path(config))
    try:
        hazards = _analyse(source, path, file, config, loader, is_chat)
    except jinja2.TemplateSyntaxError as exc:
        return _select([_parse_error(path, exc.lineno or 1, exc.message or str(exc))], config)
    except RecursionError:
        message = "the template is nested too deeply to analyse"
        return _select([_parse_error(path, 1, message)], config)
    except (jinja2.TemplateError, ValueError, OverflowError, MemoryError) as exc:
        return _select([_parse_error(path, 1, f"{type(exc).__name__}: {exc}")], config)
    lines = _lines(source) if hazards else []
    findings = [_finding(h, tokens, history, path, lines) for h, tokens, history in hazards]
    return _select(_suppress(_unique(findings), source), config)


def lint_file(
    path: Path,
    *,
    config: LintConfig = DEFAULT_CONFIG,
    loader: Loader | None = None,
    display: str | None = None,
) -> list[Finding]:
    """Lint one file: a template, a `.jinja` chat template or a tokenizer_config.json."""
    shown = display or str(path)
    try:
        source = decode(path.read_bytes())
    except OSError as exc:
        return _select([_parse_error(shown, 1, f"cannot read the file: {exc.strerror}")], config)
    except ValueError as exc:
        return _select([_parse_error(shown, 1, str(exc))], config)
    if path.name.endswith(".json"):
        return _lint_tokenizer_config(source, shown, config)
    return lint_source(source, path=shown, config=config, loader=loader, file=path)


def lint_paths(
    paths: Sequence[str | Path], *, config: LintConfig = DEFAULT_CONFIG
) -> list[Finding]:
    """Lint files and folders (folders are searched with the config's include globs)."""
    loader = Loader(search_path=_search_path(config))
    findings: list[Finding] = []
    for file in discover(paths, config):
        findings.extend(lint_file(file, config=config, loader=loader, display=_display(file)))
    return sorted(findings, key=Finding.sort_key)


def discover(paths: Sequence[str | Path], config: LintConfig) -> Iterator[Path]:
    """The files to lint: explicit files as given, folders searched for included names."""
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            if not _excluded(path, config):
                yield path
        elif path.is_dir():
            yield from _walk(path, config)
        else:
            raise InputError(f"{str(raw)!r} does not exist; pass template files or folders")


def _walk(folder: Path, config: LintConfig) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            file = Path(root, name)
            if any(fnmatch.fnmatch(name, g) for g in config.include) and not _excluded(
                file, config
            ):
                yield file


def _excluded(path: Path, config: LintConfig) -> bool:
    shown = _display(path)
    return any(fnmatch.fnmatch(shown, g) or fnmatch.fnmatch(path.name, g) for g in config.exclude)


def _display(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _search_path(config: LintConfig) -> list[Path]:
    root = config.root or Path.cwd()
    return [root / folder for folder in config.search_path] + [root]


# -- analysis ------------------------------------------------------------------------------------


def _analyse(
    source: str, path: str, file: Path | None, config: LintConfig, loader: Loader, chat: bool
) -> list[tuple[Hazard, int, bool]]:
    ast = parse(mark_tail(source), chat=chat)
    walker = Walker(config=config, loader=loader, origin=path, path=file, chat=chat)
    return at_risk(walker.template(ast, {}), config.threshold)


def at_risk(events: Iterable[Event], threshold: int) -> list[tuple[Hazard, int, bool]]:
    """Hazards followed by at least `threshold` cacheable tokens (or by a chat history)."""
    prefix: list[Event] = []
    for event in events:
        if event is TAIL:
            break
        prefix.append(event)
    found: list[tuple[Hazard, int, bool]] = []
    after, history = 0, False
    for event in reversed(prefix):
        if isinstance(event, int):
            after += event
        elif event is HISTORY:
            history = True
        elif isinstance(event, Hazard) and (history or after >= max(threshold, 1)):
            found.append((event, after, history))
    found.reverse()
    return found


def _finding(hazard: Hazard, tokens: int, history: bool, path: str, lines: list[str]) -> Finding:
    if history:
        risk = (
            f"the whole conversation after it (and ~{tokens} tokens of template text) is "
            "prefilled again on every request"
        )
    else:
        risk = f"~{tokens} tokens of static content after it can never be read from the cache"
    message = f"{hazard.detail} in the cacheable prefix: {risk}; {RULES[hazard.code].fix}"
    return Finding(
        path=path,
        line=hazard.line,
        column=_column(lines, hazard.line, hazard.anchor),
        code=hazard.code,
        message=message,
        severity=RULES[hazard.code].severity,
        tokens_at_risk=tokens,
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
    starts = [m.start() for m in re.finditer(rf"(?<!\w){re.escape(anchor)}(?!\w)", text)]
    if not starts:
        return text.find(anchor) + 1 or 1
    opener = "{%" if anchor in _KEYWORDS else "{{"
    preferred = [s for s in starts if _inside(text, s) == opener]
    return (preferred or starts)[0] + 1


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
    return list(dict.fromkeys(findings))


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


def _looks_like_chat(source: str, path: str) -> bool:
    name = Path(path).name.lower()
    return "chat_template" in name or ("add_generation_prompt" in source and "messages" in source)


@dataclass(frozen=True, slots=True, kw_only=True)
class _ChatTemplate:
    label: str
    source: str


def _lint_tokenizer_config(source: str, path: str, config: LintConfig) -> list[Finding]:
    """Lint the `chat_template` (a string, or a list of named templates) of a tokenizer config."""
    try:
        data = json.loads(source)
    except json.JSONDecodeError as exc:
        return _select([_parse_error(path, exc.lineno, f"invalid JSON: {exc.msg}")], config)
    key_line = next(
        (n for n, text in enumerate(source.splitlines(), 1) if '"chat_template"' in text), 1
    )
    findings: list[Finding] = []
    for template in _chat_templates(data):
        for found in lint_source(template.source, path=path, config=config, chat=True):
            message = f"{template.label} line {found.line}: {found.message}"
            findings.append(dataclasses.replace(found, line=key_line, column=1, message=message))
    return findings


def _chat_templates(data: object) -> list[_ChatTemplate]:
    if not isinstance(data, dict):
        return []
    value = data.get("chat_template")
    if isinstance(value, str):
        return [_ChatTemplate(label="chat_template", source=value)]
    if isinstance(value, list):
        return [
            _ChatTemplate(label=f"chat_template[{item.get('name')!r}]", source=item["template"])
            for item in value
            if isinstance(item, dict) and isinstance(item.get("template"), str)
        ]
    return []
