"""
What a prompt's own words say about the values written under them: a heading or a label that
names the user or today (`## About the user`, `The user's request:`, `Today's reading: {{ x }}`)
says the values under it are the request's data, whatever their names.

`Sections` reads the static text as the walk writes it, line by line. A markdown heading opens a
section of data that lasts to the next heading, a rule (`---`) or a line of prose; a line that
is only a label covers the values under it up to a blank line, a heading, a rule, a line of prose
or the next label; a label before a value on the same line covers that value. A line that holds a
value, a list item (`- Lives with pets`) and a labelled line (`Car: none`) are data, not prose: a
section whose words are instructions is not the user's data, whatever its heading says. A tag
whose name names the user or today (`<user_request>`, `<userProfile>`) covers what is written
inside it, up to its closing tag.

The same headings and label lines say when a value is a section of data, the material the prompt
works on (`# Document V1:`, `- **Code changes** *(input)*:`; see PC106's `names_data`): a label
line in markdown emphasis counts there too, and what a heading or label line says of the data
lasts as what it says of the user does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..rules.PC102 import REQUEST_LABEL_CJK, REQUEST_LABEL_WORDS
from ..rules.PC106 import names_data
from ._output import FIELD_LABEL

__all__ = ["Sections"]

_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+(?P<title>.{1,60}?)[ \t#]*$")
_RULE = re.compile(r"^[ \t]*(?:-{3,}|\*{3,}|_{3,}|={3,})[ \t]*$")
# A line of data: a bulleted item, or a field (`Car: none`, `- 보유 카드: 없음`).
_DATA_LINE = re.compile(r"^[ \t]*(?:[-*•·][ \t]|[(\[]?[ \t]*[^\W\d_][\w '/&.-]{0,40}[:：])")
# A label line written in markdown emphasis, once its marks are taken out (`- **Diff** *(input)*:`
# reads `- Diff (input):`): a bullet or a number, then up to 80 characters ending in a colon.
_EMPHASIS = re.compile(r"[*_`]+")
_EMPHASISED_LABEL = re.compile(
    r"^[ \t]*(?:[-+•·]|\d{1,2}[.)])?[ \t]*[^\W\d_][^\n:：]{0,80}[:：][ \t]*$"
)
# An opening or closing tag (`<user_request>`, `</user_request>`), and the breaks between the
# words of its name (`user_request`, `today-reading`, `userProfile`).
_TAG = re.compile(r"<(?P<close>/?)(?P<name>[A-Za-z][\w.-]{0,40})(?:[ \t][^<>\n]*)?>")
_NAME_BREAK = re.compile(r"[_.-]|(?<=[a-z0-9])(?=[A-Z])")
_OPEN_TAGS = 32  # tags kept open at most (a `<br>` is never closed)
_NAMES_THE_REQUEST = re.compile(
    r"(?i)(?<![\w'])(?:"
    + "|".join(re.escape(w) for w in sorted(REQUEST_LABEL_WORDS, key=len, reverse=True))
    + r")(?![\w'])|"
    + "|".join(map(re.escape, REQUEST_LABEL_CJK))
)


def names_the_request(label: str) -> bool:
    """Whether a heading or label names the user or today (see `REQUEST_LABEL_WORDS`)."""
    return _NAMES_THE_REQUEST.search(label) is not None


@dataclass(slots=True)
class Sections:
    """Where the walk is in the prompt's headings and labels (mutable: one walk's)."""

    heading: bool = False  # the open section's heading names the user or today
    tags: list[tuple[str, bool]] = field(default_factory=list)  # open tags: name, names them?
    label: bool = False  # the label line over the values below names the user or today
    line: str = ""  # the static text written on the current line so far
    valued: bool = False  # a value was written on the current line
    # what the open section's heading and the label line over the values below say of them
    # (PC106's `names_data`): the material the prompt works on, its format, or neither (None)
    data_heading: bool | None = None
    data_label: bool | None = None

    def text(self, data: str) -> None:
        """Static text written in the output."""
        *complete, rest = data.split("\n")
        for index, piece in enumerate(complete):
            if index == 0:
                if not self.valued and (self.line + piece).strip():
                    self._line(self.line + piece)  # a line that only holds a tag is no break
            else:
                self._line(piece)
        if complete:
            self.line, self.valued = rest, False
        else:
            self.line += rest
        for tag in _TAG.finditer(data):
            self._tag(tag.group("name"), closing=bool(tag.group("close")))

    def value(self) -> None:
        """A value written in the output: its line is data, not a heading or a label."""
        self.valued = True

    def over_value(self) -> bool:
        """Whether the value about to be written is labelled as the user's or today's."""
        if self.heading or self.label or any(names for _, names in self.tags):
            return True
        return FIELD_LABEL.match(self.line) is not None and names_the_request(self.line)

    def over_data(self) -> bool | None:
        """
        What the label line, else the heading, over the value about to be written says of it:
        the material the prompt works on (True), its format (False), or neither (None). Only a
        value that opens its line is under them: after a label on its line (`Guest: {{ x }}`)
        or inside a sentence, what its line says comes first.
        """
        if self.line.strip():
            return None
        return self.data_heading if self.data_label is None else self.data_label

    def _line(self, line: str) -> None:
        if not line.strip():
            self.label = False  # a blank line ends what a label line covers
            self.data_label = None
        elif (heading := _HEADING.match(line)) is not None:
            self.heading, self.label = names_the_request(heading.group("title")), False
            self.data_heading, self.data_label = names_data(heading.group("title")), None
        elif _RULE.match(line):
            self.heading = self.label = False
            self.data_heading = self.data_label = None
        elif FIELD_LABEL.match(line):
            self.label = names_the_request(line)
            self.data_label = names_data(line)
        elif _EMPHASISED_LABEL.match(plain := _EMPHASIS.sub("", line)):
            # a line ending in a colon (`- **Diff** *(input)*:`, `Here is the report:`) names
            # the data below it; what it says of the user is as before: a line of data, or prose
            if not _DATA_LINE.match(line):
                self.heading = self.label = False
                self.data_heading = None
            self.data_label = names_data(plain)
        elif not _DATA_LINE.match(line):  # prose: instructions, not the values of a record
            self.heading = self.label = False
            self.data_heading = self.data_label = None

    def _tag(self, name: str, *, closing: bool) -> None:
        if not closing:
            names = names_the_request(_NAME_BREAK.sub(" ", name))
            self.tags = [*self.tags[-_OPEN_TAGS + 1 :], (name, names)]
            return
        for index in range(len(self.tags) - 1, -1, -1):  # the innermost tag of that name
            if self.tags[index][0] == name:
                del self.tags[index:]
                return
