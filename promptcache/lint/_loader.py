"""Find, read and parse templates: the files being linted and the ones they include."""

from __future__ import annotations

import io
import os
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.parser import Parser

from .._errors import InputError
from .._inputs import DEFAULT_MAX_BYTES, read_bounded

__all__ = [
    "TAIL_MARKER",
    "LoadedTemplate",
    "Loader",
    "UnreadableTemplate",
    "check_extensions",
    "decode",
    "decode_python",
    "mark_tail",
    "parse",
    "read_source",
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


def decode_python(data: bytes) -> tuple[str, str]:
    """
    The text of a Python module, read as Python reads it (UTF-8, a BOM, or the encoding a
    PEP 263 coding comment declares), and that codec (`utf-8-sig` with a BOM), so that a
    rewrite is written back the same way; ValueError with a readable reason when it is not text.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ValueError("this file is UTF-16 text, which Python does not read; save it as UTF-8")
    if b"\0" in data[:8192]:
        raise ValueError("this is a binary file (it contains NUL bytes), not a Python module")
    try:
        encoding = _declared_encoding(data)
    except SyntaxError as exc:  # an unknown codec, one that contradicts the BOM, or not UTF-8
        if not exc.msg.startswith("invalid or missing encoding"):
            raise ValueError(f"{exc.msg}; declare a known encoding, or save it as UTF-8") from None
        encoding = "utf-8"  # no coding comment: decoding says which byte is wrong, below
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        declared = "UTF-8 text" if encoding in _UTF8 else f"{encoding} text as it declares"
        raise ValueError(
            f"this file is not {declared}: byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start} (line {line}) cannot be decoded; save it as UTF-8"
        ) from None


_UTF8 = frozenset({"utf-8", "utf-8-sig"})  # what `detect_encoding` says without a coding comment


def _declared_encoding(data: bytes) -> str:
    """What `tokenize.detect_encoding` says of `data`, without its per-line Python work for the
    many modules that have no BOM and no word `coding` in their first two lines (a PEP 263
    comment must be there): those are UTF-8 to it."""
    second_end = data.find(b"\n", data.find(b"\n") + 1)
    head = data if second_end < 0 else data[:second_end]
    if not data.startswith(b"\xef\xbb\xbf") and b"coding" not in head:
        return "utf-8"
    return tokenize.detect_encoding(io.BytesIO(data).readline)[0]


def read_source(path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """
    The text of a file lint reads (a template, an include, a Python module), through the
    bounded reader: a FIFO or device is refused unread and a file over `max_bytes` at its size
    (InputError naming the file); text that is not UTF-8 (nor, for a `.py` module, the
    encoding it declares) is a ValueError saying so (`decode`, `decode_python`).
    """
    data = read_bounded(path, max_bytes=max_bytes, flag="--max-bytes", what="file")
    return decode_python(data)[0] if path.suffix == ".py" else decode(data)


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadedTemplate:
    name: str
    path: Path
    ast: nodes.Template

    @property
    def label(self) -> str:
        """The template's name in findings and in the include stack: its path."""
        return str(self.path)


@dataclass(frozen=True, slots=True, kw_only=True)
class UnreadableTemplate:
    """A template name that leads to a file lint cannot read or parse, and why (naming it)."""

    name: str
    path: Path
    reason: str
    # A regular file is the one Jinja would load (and fail on); anything else (a FIFO, a device,
    # a dangling link) Jinja passes over for the next folder, and so does the search.
    regular: bool


@dataclass(slots=True, kw_only=True)
class Loader:
    """Resolves `{% include %}`/`{% import %}`/`{% extends %}` names; parses each file once."""

    search_path: Sequence[Path] = ()
    extensions: tuple[str, ...] = ()
    max_bytes: int = DEFAULT_MAX_BYTES
    _cache: dict[tuple[Path, bool], nodes.Template | str | None] = field(default_factory=dict)

    def load(
        self, names: Sequence[str], relative_to: Path | None, *, chat: bool = False
    ) -> LoadedTemplate | UnreadableTemplate | None:
        """
        The first template the names lead to; an UnreadableTemplate when the file Jinja would
        load cannot be read or parsed, or when only unreadable entries are there; None when
        nothing is.
        """
        folders = ([relative_to.parent] if relative_to is not None else []) + list(self.search_path)
        passed_over: UnreadableTemplate | None = None
        for name in names:
            for folder in folders:
                path = folder / name
                found = self._parse(path, chat)
                if isinstance(found, nodes.Template):
                    return LoadedTemplate(name=name, path=path, ast=found)
                if found is None:
                    continue
                unreadable = UnreadableTemplate(
                    name=name, path=path, reason=found, regular=os.path.isfile(path)
                )
                if unreadable.regular:
                    return unreadable
                passed_over = passed_over or unreadable
        return passed_over

    def _parse(self, path: Path, chat: bool) -> nodes.Template | str | None:
        """The file's template, why it cannot be had (a message naming it), or None: absent."""
        key = (path, chat)
        if key in self._cache:
            return self._cache[key]
        self._cache[key] = found = self._read_and_parse(path, chat)
        return found

    def _read_and_parse(self, path: Path, chat: bool) -> nodes.Template | str | None:
        if not os.path.lexists(path):
            return None
        shown = repr(str(path))
        try:
            source = mark_tail(read_source(path, max_bytes=self.max_bytes))
            return parse(source, chat=chat, extensions=self.extensions)
        except InputError as exc:  # not a regular file, over the bound: the message names it
            return str(exc)
        except jinja2.TemplateSyntaxError as exc:
            return f"{shown} does not parse (line {exc.lineno}: {exc.message})"
        except (ValueError, OverflowError, jinja2.TemplateError) as exc:  # not UTF-8 text
            return f"{shown} cannot be read: {exc}"
        except RecursionError:
            return f"{shown} is nested too deeply to analyse"
        except OSError as exc:
            return f"{shown} cannot be read: {exc.strerror or exc}"
