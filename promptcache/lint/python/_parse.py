"""
Parse a module, reading the f-strings of Python 3.12 (PEP 701) on an older Python too.

Python 3.12 lets an f-string's replacement fields hold what older parsers refuse: the quote
that delimits the f-string (`f"{row["name"]}"`), backslashes (`f"{'\\n'.join(lines)}"`),
comments, and line breaks inside a single-quoted f-string. On 3.11 `ast.parse` calls such a
file broken, and the lint would claim nothing about it. When that happens here, each group of
adjacent strings holding such an f-string is read on its own, as an equivalent the running
parser accepts, and spliced into the module's tree:

- in the module's text the group is replaced by a plain string of the same extent (the same
  lines, the same byte columns: `("____"` ... `"___")` when it spans lines), which gives the
  tree of everything around it, every position that of the original file;
- the group itself is parsed with each single-quoted f-string made triple-quoted (two quotes
  added on each side: a line break or the same quote inside it is then what 3.11 accepts), each
  string literal inside a replacement field replaced by one of the same length that has no
  quote, backslash or brace in it (its value put back afterwards, as the original literal
  gives it), and comments inside a field blanked; its nodes' positions are then moved back to
  where they are in the original text (the added quotes taken out).

Anything the scan cannot account for exactly (a line continuation inside a field, nesting that
leaves no quote free, a placeholder the parser does not give back where it was put) leaves the
file to fail as before, with the parser's own message: never a guessed tree. The rewritten text
is used only for the tree; every reader of the source gets the original.
"""

from __future__ import annotations

import ast
import bisect
import re
import sys
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Rewrite", "parse_module", "parse_python"]

# An f-string prefix (any case, either order with `r`) right before a quote.
_HAS_FSTRING = re.compile(r"(?i)(?<![\w])(?:f|rf|fr)['\"]")
_WORD = re.compile(r"\w+")
_PREFIXES = frozenset({"r", "u", "b", "br", "rb", "f", "fr", "rf"})
_LINE_END = re.compile(r"\r\n|\r|\n")
_OPENING = "([{"
_CLOSING = ")]}"
_QUOTES = "\"'"


class _Unscannable(Exception):
    """The text holds something the scan cannot rewrite exactly."""


@dataclass(slots=True)
class _Token:
    """A string token: `start`..`end` in the source, its prefix and its delimiter."""

    start: int
    end: int
    prefix: str
    quote: str
    # f-strings only: whether it uses syntax only 3.12 reads (then its group is rewritten).
    modern: bool = False

    @property
    def fstring(self) -> bool:
        return "f" in self.prefix.lower()


@dataclass(slots=True)
class _Group:
    """Adjacent string tokens (one value, by implicit concatenation) and the edits that make
    them readable to the running parser: (index, length replaced, new text)."""

    tokens: list[_Token]
    edits: list[tuple[int, int, str]] = field(default_factory=list)
    # Where an inner literal was masked: its start index and its original text.
    masks: list[tuple[int, str]] = field(default_factory=list)

    @property
    def start(self) -> int:
        return self.tokens[0].start

    @property
    def end(self) -> int:
        return self.tokens[-1].end


@dataclass(frozen=True, slots=True)
class Rewrite:
    """A module parsed through the rewrite: its tree, and the spans (start, end in the source)
    of the string groups that were rewritten."""

    tree: ast.Module
    spans: tuple[tuple[int, int], ...]


def parse_module(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(source)`, reading 3.12 f-strings on an older Python (see the module's
    docstring); raises what `ast.parse` raised when they cannot be read exactly."""
    return parse_python(source, filename)[0]


def parse_python(source: str, filename: str = "<unknown>") -> tuple[ast.Module, Rewrite | None]:
    """The module's tree, and the rewrite it was read through (None when `ast.parse` read the
    text as it is)."""
    try:
        return ast.parse(source, filename=filename), None
    except SyntaxError:
        if sys.version_info >= (3, 12) or not _HAS_FSTRING.search(source):
            raise
        rewrite = _rewritten(source, filename)
        if rewrite is None:
            raise
        return rewrite.tree, rewrite


def _rewritten(source: str, filename: str) -> Rewrite | None:
    try:
        groups = [g for g in _Scanner(source).groups() if any(t.modern for t in g.tokens)]
        if not groups:
            return None
        starts = _line_starts(source)
        text, placeholders = _placeheld(source, groups, starts)
        tree = ast.parse(text, filename=filename)
        replacements = {}
        found = {
            (n.lineno, n.col_offset): n
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        }
        for group, (where, value) in zip(groups, placeholders, strict=True):
            node = found.get(where)
            if node is None or node.value != value:
                return None
            replacements[id(node)] = _group_tree(
                source, group, _position(source, group.start, starts)
            )
        if not _substitute(tree, replacements):
            return None
    except (_Unscannable, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    spans = tuple((g.start, g.end) for g in groups)
    return Rewrite(tree=tree, spans=spans)


# -- the scan -------------------------------------------------------------------------------------


class _Scanner:
    """Finds the string groups of a module, following PEP 701's f-string grammar."""

    def __init__(self, source: str):
        self.s = source
        self.n = len(source)
        self.group: _Group | None = None  # the group whose tokens are being scanned

    def groups(self) -> list[_Group]:
        s, n = self.s, self.n
        found: list[_Group] = []
        depth = 0
        i = 0
        while i < n:
            c = s[i]
            if c == "#":
                i = self._line_end(i)
            elif c == "\\":
                i += 2  # a line continuation
            elif c in _OPENING:
                depth += 1
                i += 1
            elif c in _CLOSING:
                depth = max(0, depth - 1)
                i += 1
            elif c in _QUOTES or c.isalnum() or c == "_" or ord(c) > 127:
                token = self._string_at(i)
                if token is None:
                    i = self._word_end(i)
                    continue
                group = _Group(tokens=[])
                self.group = group
                group.tokens.append(self._scan_token(token))
                while (after := self._next_string(group.end, depth)) is not None:
                    group.tokens.append(self._scan_token(after))
                self.group = None
                found.append(group)
                i = group.end
            else:
                i += 1
        return found

    def _line_end(self, i: int) -> int:
        found = _LINE_END.search(self.s, i)
        return found.start() if found else self.n

    def _word_end(self, i: int) -> int:
        word = _WORD.match(self.s, i)
        return word.end() if word else i + 1

    def _string_at(self, i: int) -> _Token | None:
        """The string token starting at `i` (its prefix and delimiter; its end not yet known)."""
        s = self.s
        prefix = ""
        if s[i] not in _QUOTES:
            word = _WORD.match(s, i)
            if word is None or word.end() >= self.n or s[word.end()] not in _QUOTES:
                return None
            prefix = word.group()
            if prefix.lower() not in _PREFIXES:
                return None
        at = i + len(prefix)
        quote = s[at] * 3 if s.startswith(s[at] * 3, at) else s[at]
        return _Token(start=i, end=-1, prefix=prefix, quote=quote)

    def _next_string(self, i: int, depth: int) -> _Token | None:
        """The string token adjacent to the one ending at `i` (implicit concatenation)."""
        s, n = self.s, self.n
        while i < n:
            c = s[i]
            if c in " \t\f":
                i += 1
            elif c == "\\" and (end := _LINE_END.match(s, i + 1)) is not None:
                i = end.end()
            elif depth and c in "\r\n":
                i += 1
            elif depth and c == "#":
                i = self._line_end(i)
            else:
                return self._string_at(i) if (c in _QUOTES or c.isalpha()) else None
        return None

    def _scan_token(self, token: _Token, enclosing: tuple[str, ...] = ()) -> _Token:
        """Find where `token` ends; scan an f-string's fields (`enclosing`: the delimiters of
        the f-strings it is inside, outermost first)."""
        body = token.start + len(token.prefix) + len(token.quote)
        raw = "r" in token.prefix.lower()
        if token.fstring:
            token.end = self._fstring_body(body, token, raw, (*enclosing, token.quote))
        else:
            token.end = self._plain_body(body, token.quote)
        return token

    def _plain_body(self, j: int, quote: str) -> int:
        s, n = self.s, self.n
        while j < n:
            if s.startswith(quote, j):
                return j + len(quote)
            c = s[j]
            if c == "\\":
                j += 2
                continue
            if c in "\r\n" and len(quote) == 1:
                raise _Unscannable("a line break in a single-quoted string")
            j += 1
        raise _Unscannable("an unterminated string")

    def _fstring_body(self, j: int, token: _Token, raw: bool, enclosing: tuple[str, ...]) -> int:
        s, n = self.s, self.n
        quote = token.quote
        while j < n:
            if s.startswith(quote, j):
                return j + len(quote)
            c = s[j]
            if c == "\\":
                if not raw and s.startswith("N{", j + 1):
                    close = s.find("}", j)
                    if close < 0:
                        raise _Unscannable("an unterminated \\N{...} escape")
                    j = close + 1
                else:
                    j += 2 if j + 1 < n and s[j + 1] in "\\\"'\r\n" else 1
            elif c in "\r\n" and len(quote) == 1:
                raise _Unscannable("a line break in a single-quoted f-string")
            elif s.startswith("{{", j) or s.startswith("}}", j):
                j += 2
            elif c == "{":
                j = self._field(j + 1, token, raw, enclosing)
            elif c == "}":
                raise _Unscannable("a lone '}' in an f-string")
            else:
                j += 1
        raise _Unscannable("an unterminated f-string")

    def _field(self, j: int, token: _Token, raw: bool, enclosing: tuple[str, ...]) -> int:
        """Scan a replacement field from just after its `{`; the index after its `}`."""
        s, n = self.s, self.n
        depth = 0
        assert self.group is not None
        edits = len(self.group.edits)  # those made before the field
        while j < n:
            c = s[j]
            if c == "=" and depth == 0 and self._debug(j) and len(self.group.edits) > edits:
                # `{d["k"]=}` shows its text, which a mask or a blanked comment would change
                raise _Unscannable("a self-documenting field holding a rewritten part")
            if c in "([{":
                depth += 1
                j += 1
            elif c in ")]":
                depth -= 1
                j += 1
            elif c == "}":
                if depth == 0:
                    return j + 1
                depth -= 1
                j += 1
            elif c == ":" and depth == 0:
                return self._spec(j + 1, token, raw, enclosing)
            elif c == "#":
                end = self._line_end(j)
                self._edit(j, end - j, _blank(s[j:end]))
                self._modern(token)
                j = end
            elif c in "\r\n":
                if any(len(q) == 1 for q in enclosing[1:]):
                    raise _Unscannable("a line break in a nested single-quoted f-string")
                if len(enclosing[0]) == 1:
                    self._modern(token)
                j += 1
            elif c == "\\":
                raise _Unscannable("a backslash outside a string in a replacement field")
            elif c in _QUOTES or c.isalpha() or c == "_":
                inner = self._string_at(j)
                if inner is None:
                    j = self._word_end(j)
                elif inner.fstring:
                    self._nested(inner, token, enclosing)
                    j = inner.end
                else:
                    j = self._inner_literal(inner, token, enclosing)
            else:
                j += 1
        raise _Unscannable("an unterminated replacement field")

    def _debug(self, j: int) -> bool:
        """Whether the `=` at `j` (at a field's top level) makes the field self-documenting
        (`{x=}`, `{x = !r}`), rather than being part of `==`, `!=`, `<=` or `>=`."""
        s = self.s
        if s[j - 1] in "=!<>" or s.startswith("==", j):
            return False
        k = j + 1
        while k < self.n and s[k] in " \t":
            k += 1
        return k < self.n and s[k] in "}!:"

    def _spec(self, j: int, token: _Token, raw: bool, enclosing: tuple[str, ...]) -> int:
        """Scan a format spec from just after its `:`; the index after the field's `}`."""
        s, n = self.s, self.n
        while j < n:
            c = s[j]
            if s.startswith(token.quote, j) or c in "\r\n\\":
                raise _Unscannable("a quote, line break or backslash in a format spec")
            if c == "{":
                j = self._field(j + 1, token, raw, enclosing)
            elif c == "}":
                return j + 1
            else:
                j += 1
        raise _Unscannable("an unterminated format spec")

    def _nested(self, inner: _Token, token: _Token, enclosing: tuple[str, ...]) -> None:
        """An f-string inside a field. 3.11 reads it inside the outermost one made
        triple-quoted, but not inside another with its quote character."""
        if any(q[0] == inner.quote[0] for q in enclosing[1:]) or (
            len(inner.quote) == 3 and inner.quote[0] == enclosing[0][0]
        ):
            raise _Unscannable("nested f-strings that share a quote")
        if inner.quote[0] == enclosing[0][0]:
            self._modern(token)
        self._scan_token(inner, enclosing)
        if inner.modern:
            self._modern(token)

    def _inner_literal(self, inner: _Token, token: _Token, enclosing: tuple[str, ...]) -> int:
        """A plain string inside a field: masked with one of the same extent whose quote is
        free (its value is put back after the parse); the index after it."""
        self._scan_token(inner)
        text = self.s[inner.start : inner.end]
        delimited = text[len(inner.prefix) :]
        body = delimited[len(inner.quote) : len(delimited) - len(inner.quote)]
        if (
            inner.quote[0] in (q[0] for q in enclosing)
            or "\\" in body
            or any(c in body for c in "#{}")
        ):
            self._modern(token)
        # the outermost's quote last: two of it in a row would end it after all (`""""`)
        free = [
            q
            for q in sorted(_QUOTES, key=enclosing[0][0].__eq__)
            if all(e[0] != q for e in enclosing[1:]) and q * len(inner.quote) != enclosing[0]
        ]
        if not free:
            raise _Unscannable("no quote left for a string inside nested f-strings")
        mark = free[0] * len(inner.quote)
        masked = inner.prefix + mark + _mask(body) + mark
        self._edit(inner.start, len(text), masked)
        assert self.group is not None
        self.group.masks.append((inner.start, text))
        return inner.end

    def _modern(self, token: _Token) -> None:
        token.modern = True  # (an enclosing f-string is marked by `_nested`, once it returns)

    def _edit(self, index: int, length: int, text: str) -> None:
        assert self.group is not None
        self.group.edits.append((index, length, text))


def _mask(body: str) -> str:
    """`body` with every character but a line end an underscore per UTF-8 byte (the same byte
    columns, and nothing a string inside an f-string may not hold)."""
    return "".join(c if c in "\r\n" else "_" * len(c.encode("utf-8")) for c in body)


def _blank(text: str) -> str:
    """A comment as spaces, a space per UTF-8 byte."""
    return " " * len(text.encode("utf-8"))


# -- the module with placeholders -----------------------------------------------------------------


def _placeheld(
    source: str, groups: list[_Group], starts: list[int]
) -> tuple[str, list[tuple[tuple[int, int], str]]]:
    """The source with each group replaced by a plain string of the same extent, and, per
    group, where the parser will put that string (line, byte column) and its value."""
    pieces: list[str] = []
    placed: list[tuple[tuple[int, int], str]] = []
    last = 0
    for group in groups:
        pieces.append(source[last : group.start])
        text, offset, value = _placeholder(source[group.start : group.end])
        line, column = _position(source, group.start, starts)
        if offset:  # the string opens after "(" (a group on several lines), or on a later line
            head = text[:offset]
            lines = _LINE_END.findall(head)
            if lines:
                line += len(lines)
                column = len(head[head.rfind(lines[-1][-1]) + 1 :].encode("utf-8"))
            else:
                column += len(head.encode("utf-8"))
        placed.append(((line, column), value))
        pieces.append(text)
        last = group.end
    pieces.append(source[last:])
    return "".join(pieces), placed


def _placeholder(text: str) -> tuple[str, int, str]:
    """A plain string of `text`'s extent: its text, the index its first quote is at, and its
    value. One line: `"___"`; several: `("___"` ... `"___")`, each line its own string."""
    segments = _LINE_END.split(text)
    ends = _LINE_END.findall(text)
    sizes = [len(segment.encode("utf-8")) for segment in segments]
    if len(segments) == 1:
        fill = "_" * (sizes[0] - 2)
        return f'"{fill}"', 0, fill
    out: list[str] = []
    value: list[str] = []
    first: int | None = None
    for number, size in enumerate(sizes):
        opening = "(" if number == 0 else ""
        closing = ")" if number == len(sizes) - 1 else ""
        room = size - len(opening) - len(closing)
        if room >= 2:
            if first is None:
                first = sum(len(p) for p in out) + len(opening)
            fill = "_" * (room - 2)
            value.append(fill)
            out.append(f'{opening}"{fill}"{closing}')
        else:
            out.append(opening + " " * room + closing)
        if number < len(ends):
            out.append(ends[number])
    if first is None:
        raise _Unscannable("a group too short to hold a placeholder")
    return "".join(out), first, "".join(value)


def _line_starts(text: str) -> list[int]:
    """The index each line of `text` starts at (lines as `ast` counts them)."""
    return [0, *(end.end() for end in _LINE_END.finditer(text))]


def _position(text: str, index: int, starts: list[int] | None = None) -> tuple[int, int]:
    """The (line, UTF-8 byte column) of `index` in `text`, as `ast` counts them (`starts`:
    its line starts, when known)."""
    starts = _line_starts(text) if starts is None else starts
    line = bisect.bisect_right(starts, index)
    return line, len(text[starts[line - 1] : index].encode("utf-8"))


# -- the group on its own -------------------------------------------------------------------------


def _group_tree(source: str, group: _Group, at: tuple[int, int]) -> ast.expr:
    """The group's tree, parsed in the form the running parser reads, at the original
    positions, with its masked literals' values put back."""
    edits = list(group.edits)
    for token in group.tokens:
        if token.fstring and len(token.quote) == 1:
            opened = token.start + len(token.prefix) + 1
            edits.append((opened, 0, token.quote * 2))
            edits.append((token.end - 1, 0, token.quote * 2))
    pieces: list[str] = []
    inserted: list[int] = []  # indices in the parsed text where two quotes were added
    masks = {start: text for start, text in group.masks}
    # the index in the parsed text of each masked literal -> its original and masked texts
    masked_at: dict[int, tuple[str, str]] = {}
    last = group.start
    size = 0
    for index, length, text in sorted(edits, key=lambda e: (e[0], -e[1])):
        kept = source[last:index]
        pieces.append(kept)
        size += len(kept)
        if length == 0:
            inserted.append(size)
        elif index in masks:
            masked_at[size] = (masks[index], text)
        pieces.append(text)
        size += len(text)
        last = index + length
    pieces.append(source[last : group.end])
    text = "".join(pieces)
    expression = ast.parse("(" + text + "\n)", mode="eval").body
    _put_back(expression, text, masked_at)
    _relocate(expression, text, inserted, *at)
    return expression


def _put_back(expression: ast.expr, text: str, masked_at: dict[int, tuple[str, str]]) -> None:
    """Give each masked literal's node the value its original text has. Literals with only
    white space between them are one node (implicitly joined: its value is theirs joined). A
    node is known by where it ends and by its masked value: 3.11 misplaces the start of a
    string that spans lines inside an f-string, so the start is set from the text too."""
    runs: list[list[int]] = []
    for index in sorted(masked_at):
        if runs:
            last = runs[-1][-1]
            if not text[last + len(masked_at[last][1]) : index].strip():
                runs[-1].append(index)
                continue
        runs.append([index])
    wanted: dict[tuple[int, int], tuple[tuple[int, int], Any, Any]] = {}
    for run in runs:
        end = run[-1] + len(masked_at[run[-1]][1])
        masked = ast.literal_eval("(" + "\n".join(masked_at[i][1] for i in run) + "\n)")
        value = ast.literal_eval("(" + "\n".join(masked_at[i][0] for i in run) + "\n)")
        wanted[_position("(" + text, end + 1)] = (_position("(" + text, run[0] + 1), masked, value)
    done: set[tuple[int, int]] = set()
    for node in ast.walk(expression):
        if not isinstance(node, ast.Constant) or node.end_lineno is None:
            continue
        end_at = (node.end_lineno, node.end_col_offset or 0)
        if end_at not in wanted:
            continue
        (line, column), masked, value = wanted[end_at]
        if end_at in done or type(node.value) is not type(masked) or node.value != masked:
            raise _Unscannable("a masked literal came back changed")
        node.value = value
        node.lineno, node.col_offset = line, column
        done.add(end_at)
    if done != set(wanted):
        raise _Unscannable("a masked literal was not found in the tree")


def _relocate(expression: ast.expr, text: str, inserted: list[int], line: int, column: int) -> None:
    """Move the nodes parsed from `"(" + text` to where their text is in the original file:
    down to the group's line, over to its column on its first line, and left of the quotes
    that were added."""
    added: dict[int, list[int]] = {}
    for index in inserted:
        at_line, at_column = _position(text, index)
        added.setdefault(at_line, []).append(at_column)

    def moved(at_line: int, at_column: int) -> tuple[int, int]:
        if at_line == 1:
            at_column -= 1  # the "(" the text was parsed inside
        shift = sum(min(2, max(0, at_column - start)) for start in added.get(at_line, ()))
        at_column -= shift
        if at_line == 1:
            at_column += column
        return line + at_line - 1, at_column

    for node in ast.walk(expression):
        if not isinstance(node, ast.expr | ast.keyword | ast.arg):
            continue  # (the only nodes with a position an expression holds)
        node.lineno, node.col_offset = moved(node.lineno, node.col_offset)
        if node.end_lineno is not None and node.end_col_offset is not None:
            node.end_lineno, node.end_col_offset = moved(node.end_lineno, node.end_col_offset)


def _substitute(tree: ast.Module, replacements: dict[int, ast.expr]) -> bool:
    """Put each group's tree where its placeholder is; False when one is where an f-string
    may not be (a `case` pattern: 3.12 refuses it there too)."""
    left = set(replacements)
    for node in ast.walk(tree):
        for name, value in ast.iter_fields(node):
            if isinstance(value, ast.AST) and id(value) in replacements:
                if isinstance(node, ast.MatchValue | ast.MatchMapping):
                    return False
                setattr(node, name, replacements[id(value)])
                left.discard(id(value))
            elif isinstance(value, list):
                for number, item in enumerate(value):
                    if isinstance(item, ast.AST) and id(item) in replacements:
                        if isinstance(node, ast.MatchMapping):
                            return False
                        value[number] = replacements[id(item)]
                        left.discard(id(item))
    return not left
