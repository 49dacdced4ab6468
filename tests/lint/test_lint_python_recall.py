"""
Cache busters real request-building code hid from the Python lint (issue #21), each in a case
of our own that reproduces the mechanism; a done-right twin stays quiet.
"""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source

LONG = "Never run a destructive command without asking the user first. " * 20


def findings(source: str) -> list[tuple[int, str]]:
    found = lint_python_source(textwrap.dedent(source).replace("LONG", repr(LONG)))
    return [(f.line, f.code) for f in found if f.severity != "info"]


MUSTACHE_TEMPLATE = """
from datetime import datetime
from langchain_core.prompts import SystemMessagePromptTemplate
SYSTEM = SystemMessagePromptTemplate.from_template(
    "You are a coding agent.\\nToday's date: {{current_date}}\\n" + LONG, FORMAT
)
async def system_prompt(branch):
    message = await SYSTEM.METHOD(
        current_date=datetime.now().strftime("%d %B, %Y"),
    )
    return message.content
"""

# (id, template_format argument, format method, expected)
TEMPLATE_FILLS = [
    ("mustache-positional-aformat", '"mustache"', "aformat", [(9, "PC501")]),
    ("mustache-keyword-format", 'template_format="mustache"', "format", [(9, "PC501")]),
    (
        "jinja2-keyword-aformat-messages",
        'template_format="jinja2"',
        "aformat_messages",
        [(9, "PC501")],
    ),
    # In an f-string template `{{current_date}}` is an escaped brace, not a variable.
    ("f-string-double-braces-are-literal", 'template_format="f-string"', "aformat", []),
]


@pytest.mark.parametrize(
    ("fmt", "method", "expected"),
    [pytest.param(f, m, e, id=i) for i, f, m, e in TEMPLATE_FILLS],
)
def test_a_langchain_template_filled_by_keyword_is_followed_in_every_format(
    fmt: str, method: str, expected: list[tuple[int, str]]
) -> None:
    source = MUSTACHE_TEMPLATE.replace("FORMAT", fmt).replace("METHOD", method)
    assert findings(source) == expected


def test_an_async_format_of_an_f_string_template_is_followed() -> None:
    source = """
        from datetime import datetime
        from langchain_core.prompts import SystemMessagePromptTemplate
        SYSTEM = SystemMessagePromptTemplate.from_template("Today's date: {current_date}\\n" + LONG)
        async def system_prompt():
            return await SYSTEM.aformat(current_date=datetime.now().strftime("%d %B, %Y"))
        """
    assert findings(source) == [(6, "PC501")]
