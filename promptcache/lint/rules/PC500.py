"""
A Python file cannot be parsed, so nothing in it was checked.

Why:
    The Python rules read the module's syntax tree. A file with a syntax error (or one that is
    not UTF-8 text) cannot be analysed at all; reporting it keeps the linter from calling an
    unchecked file clean. An expression nested too deeply for the analysis to follow (a call
    inside a call, 40 levels down) is reported the same way, on its line: what it computes was
    not checked. The f-strings of Python 3.12 (the same quote, a backslash, a comment or a line
    break inside a replacement field) are read on an older Python too, through a rewrite that
    keeps every line and column; one that cannot be rewritten exactly is reported here, with
    the message of the Python that read it.

Bad:
    def build_system(:
        return "You are a support agent."

Good:
    def build_system():
        return "You are a support agent."
"""

from __future__ import annotations

from .._model import rule_from_docstring

RULE = rule_from_docstring(__doc__, code="PC500", name="python-syntax-error", severity="error")
