"""Find, read and parse templates: the files being linted and the ones they include."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.parser import Parser

from .._errors import InputError

__all__ = [
    "TAIL_MARKER",
    "LoadedTemplate",
    "Loader",
    "check_extensions",
    "decode",
    "mark_tail",
    "parse",
]

TAIL_MARKER = "{# promptcache: tail #}"
_TAIL_COMMENT = re.compile(r"\{#(-?)[ \t]*promptcache:[ \t]*tail[ \t]*(-?)#\}", re.IGNORECASE)


class _GenerationExtension(Extension):
    """Parses `{% generation %}...{% endgeneration %}` (transformers' chat templates) as its body."""

    tags = {"generation"}  # noqa: RUF012 - the Extension API reads a class attribute

    def parse(self, parser: Parser) -> list[nodes.Node]:
        next(parser.stream)
        return parser.parse_statements(("name:endgeneration",), drop_needle=True)


_EXTENSIONS: list[str | type[Extension]] = [
    "jinja2.ext.do",
    "jinja2.ext.loopcontrols",
    "jinja2.ext.i18n",
    _GenerationExtension,
]


@lru_cache(maxsize=16)
def _environment(chat: bool, extensions: tuple[str, ...]) -> jinja2.Environment:
    """A parsing environment: chat templates trim blocks, as transformers renders them."""
    try:
        return jinja2.Environment(
            extensions=[*_EXTENSIONS, *extensions],
            keep_trailing_newline=True,
            trim_blocks=chat,
            lstrip_blocks=chat,
        )
    except (ImportError, AttributeError, TypeError, ValueError) as exc:
        raise InputError(
            f"cannot load the Jinja extension(s) {list(extensions)} named in `extensions` of "
            f"[tool.promptcache.lint]: {exc}; install the package that provides them, or give "
            "each as its import path (`package.module.ExtensionClass`)"
        ) from None


def mark_tail(source: str) -> str:
    """Replace the tail marker comment with an output of `__pc_tail__`, keeping every column."""
    if "promptcache" not in source:
        return source
    return _TAIL_COMMENT.sub(_tail_output, source)


def _tail_output(found: re.Match[str]) -> str:
    left = "{{" + found.group(1)
    right = found.group(2) + "}}"
    padding = len(found.group()) - len(left) - len(right) - len("__pc_tail__")
    return f"{left}__pc_tail__{' ' * padding}{right}"


def check_extensions(extensions: tuple[str, ...]) -> None:
    """Raise InputError, naming them, when the configured Jinja extensions cannot be loaded."""
    _environment(False, extensions)


def parse(source: str, *, chat: bool = False, extensions: tuple[str, ...] = ()) -> nodes.Template:
    """Parse template source (after `mark_tail`); raises jinja2's errors unchanged."""
    return _environment(chat, extensions).parse(source)


def decode(data: bytes) -> str:
    """UTF-8 text of a template file; ValueError with a readable reason when it is not text."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ValueError("this file is UTF-16 text; save the template as UTF-8")
    if b"\0" in data[:8192]:
        raise ValueError("this is a binary file (it contains NUL bytes), not a text template")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ValueError(
            f"this file is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start} "
            f"(line {line}) cannot be decoded; save the template as UTF-8"
        ) from None


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadedTemplate:
    name: str
    path: Path
    ast: nodes.Template

    @property
    def label(self) -> str:
        """The template's name in findings and in the include stack: its path."""
        return str(self.path)


@dataclass(slots=True, kw_only=True)
class Loader:
    """Resolves `{% include %}`/`{% import %}`/`{% extends %}` names; parses each file once."""

    search_path: Sequence[Path] = ()
    extensions: tuple[str, ...] = ()
    _cache: dict[tuple[Path, bool], nodes.Template | None] = field(default_factory=dict)

    def load(
        self, names: Sequence[str], relative_to: Path | None, *, chat: bool = False
    ) -> LoadedTemplate | None:
        folders = ([relative_to.parent] if relative_to is not None else []) + list(self.search_path)
        for name in names:
            for folder in folders:
                path = folder / name
                ast = self._parse(path, chat)
                if ast is not None:
                    return LoadedTemplate(name=name, path=path, ast=ast)
        return None

    def _parse(self, path: Path, chat: bool) -> nodes.Template | None:
        key = (path, chat)
        if key in self._cache:
            return self._cache[key]
        ast: nodes.Template | None = None
        try:
            if path.is_file():
                source = mark_tail(decode(path.read_bytes()))
                ast = parse(source, chat=chat, extensions=self.extensions)
        except (OSError, ValueError, OverflowError, jinja2.TemplateError, RecursionError):
            ast = None  # the file is linted (and reported) on its own; here it is just unknown
        self._cache[key] = ast
        return ast
