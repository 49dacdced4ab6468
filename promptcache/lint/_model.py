"""The linter's value objects: a rule's metadata and a finding."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Literal

__all__ = ["Finding", "Rule", "Severity", "rule_from_docstring"]

Severity = Literal["error", "warning", "info"]  # info: reported, never fails a run

_SECTION = re.compile(r"^(Why|Bad|Good):[ \t]*$", re.MULTILINE)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """A lint rule's permanent code, its name, and the documentation generated from it."""

    code: str
    name: str
    summary: str
    severity: Severity
    why: str
    bad: str
    good: str
    fix: str = ""  # how to mend a finding, the end of its message; empty for PC001


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One problem at one place. `tokens_at_risk` is None for findings that are not positional."""

    path: str
    line: int
    column: int
    code: str
    message: str
    severity: Severity
    tokens_at_risk: int | None = None
    # The line of the same file where the value is written, when the finding is reported where
    # it renders or is read instead (a macro's body, a `{% set %}` above, the `{placeholder}` of
    # a Python template a value fills): that is where the fix goes.
    written_at: int | None = None
    # Where the value is made, when that is another file than `path` (a history window cut by
    # a helper in another module, reported where it enters this one; a value made in another
    # module and reported at the request it reaches): (that file, as `path` is written; line).
    # The finding stays at the request, which decides the risk; this is where the reader looks
    # for the cut or the value.
    made_at: tuple[str, int] | None = None
    # Where the value is written, when that is another file than `path`: the `{placeholder}` of
    # a template another module writes (`from prompts import ANSWER`) that the value fills,
    # where the fix goes: (that file, as `path` is written; line).
    written_in: tuple[str, int] | None = None

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.code)


def rule_from_docstring(
    doc: str | None, *, code: str, name: str, severity: Severity, fix: str = ""
) -> Rule:
    """
    Build a `Rule` from a rule module's docstring.

    The first line is the summary; `Why:`, `Bad:` and `Good:` lines open the three sections, in
    that order. A docstring without them is a bug in the rule module, so it fails at import.
    """
    text = textwrap.dedent(doc or "").strip("\n")
    parts = _SECTION.split(text)
    headers = parts[1::2]
    if headers != ["Why", "Bad", "Good"]:
        raise ValueError(
            f"rule {code}: the docstring needs 'Why:', 'Bad:' and 'Good:' sections in that "
            f"order, found {headers}"
        )
    summary = parts[0].strip().splitlines()[0] if parts[0].strip() else ""
    why, bad, good = (textwrap.dedent(part).strip("\n") for part in parts[2::2])
    return Rule(
        code=code,
        name=name,
        summary=summary,
        severity=severity,
        why=" ".join(why.split()),
        bad=bad,
        good=good,
        fix=fix,
    )
