"""`str.replace` and `string.Template` as fills: `SYSTEM.replace("{now}", stamp)` and
`Template(SYSTEM).substitute(now=stamp)` put the new text where the old one was, so a clock or a
request's data put into the top of a system prompt is judged there (both were lost: the value's
place in the text was unknown, and an unknown place was never a prefix). So are a text's case
methods and a join of a known list handed through a filter."""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint import LintConfig
from promptcache.lint.python import lint_python_source

RULES = "Answer from the warranty policy only; cite its section and never promise a refund. " * 6

HEAD = """
from datetime import datetime
from string import Template
import anthropic
client = anthropic.Anthropic()
"""


def program(before: str, system: str, setup: str = "") -> str:
    """A module: `before` (its prompt constants), then `ask()`, which runs `setup` and sends
    `system` as the system prompt of an Anthropic request."""
    body = textwrap.indent(textwrap.dedent(setup).strip(), "    ") + "\n" if setup else ""
    return f"""{HEAD}{textwrap.dedent(before)}
def ask(question: str, notes: str | None = None) -> str:
{body}    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=300, system={system},
        messages=[{{"role": "user", "content": question}}],
    )
    return reply.content[0].text
"""


def findings(source: str) -> list[tuple[int, str, int | None]]:
    found = lint_python_source(source.replace("RULES", RULES), config=LintConfig())
    return [(f.line, f.code, f.written_at) for f in found]


def codes(source: str) -> list[str]:
    return [code for _, code, _ in findings(source)]


CLOCK_FIRST = '\nSYSTEM = """Today is {now}.\nRULES"""\n'
CLOCK_LAST = '\nSYSTEM = """RULES\nToday is {now}."""\n'
STAMP = "datetime.now().isoformat()"


# -- str.replace --------------------------------------------------------------------------------


def test_a_clock_replaced_into_the_top_is_reported_at_its_placeholder() -> None:
    source = program(CLOCK_FIRST, "system", f'system = SYSTEM.replace("{{now}}", {STAMP})')
    assert findings(source) == [(11, "PC501", 7)]  # at the call, written at the placeholder


def test_a_clock_replaced_into_the_end_is_quiet() -> None:
    setup = f'system = SYSTEM.replace("{{now}}", {STAMP})'
    assert findings(program(CLOCK_LAST, "system", setup)) == []


def test_a_question_replaced_into_the_top_is_per_request_data() -> None:
    before = '\nSYSTEM = """The customer asks: <<QUESTION>>\nRULES"""\n'
    assert codes(program(before, 'SYSTEM.replace("<<QUESTION>>", question)')) == ["PC502"]


def test_a_replace_that_finds_nothing_or_is_limited_to_none_adds_nothing() -> None:
    system = f'SYSTEM.replace("{{today}}", {STAMP}).replace("{{now}}", {STAMP}, 0)'
    assert findings(program(CLOCK_FIRST, system)) == []


def test_a_datetime_replace_keeps_its_clock() -> None:
    setup = "stamp = datetime.now().replace(microsecond=0).isoformat()"
    assert codes(program("", 'f"Now: {stamp}. RULES"', setup)) == ["PC501"]


# -- string.Template: `$name` fields filled by substitute / safe_substitute ---------------------


def test_a_clock_substituted_into_the_top_of_a_string_template_is_reported() -> None:
    before = '\nSYSTEM = Template("""Today is $now.\nRULES""")\n'
    assert codes(program(before, f"SYSTEM.substitute(now={STAMP})")) == ["PC501"]


def test_request_data_safe_substituted_from_a_dict_at_the_top_is_reported() -> None:
    before = (
        '\nSYSTEM = Template("""Price list costs $$5. The customer asks: ${question}\nRULES""")\n'
    )
    assert codes(program(before, 'SYSTEM.safe_substitute({"question": question})')) == ["PC502"]


def test_a_string_template_filled_at_its_end_or_not_at_all_is_quiet() -> None:
    end = '\nSYSTEM = Template("""RULES\nToday is $now.""")\n'
    assert findings(program(end, f"SYSTEM.substitute(now={STAMP})")) == []
    first = '\nSYSTEM = Template("""Today is $now.\nRULES""")\n'
    assert findings(program(first, f"SYSTEM.safe_substitute(today={STAMP})")) == []


# -- a text's case and its ends: the parts stay where they were -----------------------------------


def test_a_clock_at_the_top_stays_there_through_lower_and_removeprefix() -> None:
    system = 'f"Today is {datetime.now():%A %H:%M}. RULES".lower().removeprefix("note: ")'
    assert codes(program("", system)) == ["PC501"]


def test_a_clock_at_the_end_stays_there_through_upper() -> None:
    assert findings(program("", 'f"RULES Today is {datetime.now():%A %H:%M}.".upper()')) == []


# -- a join of a list of known items, filtered or passed through ----------------------------------

JOINS = [
    '"\\n".join(filter(None, parts))',
    '"\\n".join(p for p in parts if p)',
    '"\\n".join([p.strip() for p in parts])',
    '" ".join(map(str, parts))',
]
CLOCK = 'f"Now: {datetime.now():%H:%M}"'


@pytest.mark.parametrize("join", JOINS)
def test_a_clock_first_in_a_filtered_join_is_still_first(join: str) -> None:
    setup = f'parts = [{CLOCK}, notes and "Notes follow.", "RULES"]'
    assert codes(program("", join, setup)) == ["PC501"]


@pytest.mark.parametrize("join", JOINS)
def test_a_clock_last_in_a_filtered_join_is_quiet(join: str) -> None:
    setup = f'parts = ["RULES", notes and "Notes follow.", {CLOCK}]'
    assert findings(program("", join, setup)) == []
