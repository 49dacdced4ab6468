"""`str.replace` and `string.Template` as fills: `SYSTEM.replace("{now}", stamp)` and
`Template(SYSTEM).substitute(now=stamp)` put the new text where the old one was, so a clock or a
request's data put into the top of a system prompt is judged there (both were lost: the value's
place in the text was unknown, and an unknown place was never a prefix)."""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint import LintConfig
from promptcache.lint.python import lint_python_source

RULES = "Answer from the warranty policy only; cite its section and never promise a refund. " * 6


def findings(source: str) -> list[tuple[int, str, int | None]]:
    text = textwrap.dedent(source).replace("RULES", RULES)
    found = lint_python_source(text, config=LintConfig())
    return [(f.line, f.code, f.written_at) for f in found]


HEAD = """
from datetime import datetime
import anthropic

client = anthropic.Anthropic()
"""


def test_a_clock_replaced_into_the_top_of_a_system_prompt_is_reported_at_its_placeholder() -> None:
    source = (
        HEAD
        + '''
SYSTEM = """Today is {now}.
RULES"""

def ask(question: str) -> str:
    system = SYSTEM.replace("{now}", datetime.now().isoformat())
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=300, system=system,
        messages=[{"role": "user", "content": question}],
    )
    return reply.content[0].text
'''
    )
    assert findings(source) == [(11, "PC501", 7)]


def test_a_clock_replaced_into_the_end_of_a_system_prompt_is_quiet() -> None:
    source = (
        HEAD
        + '''
SYSTEM = """RULES
Today is {now}."""

def ask(question: str) -> str:
    system = SYSTEM.replace("{now}", datetime.now().isoformat())
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=300, system=system,
        messages=[{"role": "user", "content": question}],
    )
    return reply.content[0].text
'''
    )
    assert findings(source) == []


def test_a_question_replaced_into_the_top_is_per_request_data() -> None:
    source = (
        HEAD
        + '''
SYSTEM = """The customer asks: <<QUESTION>>
RULES"""

def ask(question: str) -> str:
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=300,
        system=SYSTEM.replace("<<QUESTION>>", question),
        messages=[{"role": "user", "content": "Answer, please."}],
    )
    return reply.content[0].text
'''
    )
    assert [(line, code) for line, code, _ in findings(source)] == [(13, "PC502")]


def test_a_replace_that_finds_nothing_or_is_limited_to_none_adds_nothing() -> None:
    source = (
        HEAD
        + '''
SYSTEM = """Today is {now}.
RULES"""

def ask(question: str) -> str:
    system = SYSTEM.replace("{today}", datetime.now().isoformat()).replace(
        "{now}", datetime.now().isoformat(), 0
    )
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=300, system=system,
        messages=[{"role": "user", "content": question}],
    )
    return reply.content[0].text
'''
    )
    assert findings(source) == []


def test_a_datetime_replace_keeps_its_clock() -> None:
    source = (
        HEAD
        + """
def ask(question: str) -> str:
    stamp = datetime.now().replace(microsecond=0).isoformat()
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=300, system=f"Now: {stamp}. RULES",
        messages=[{"role": "user", "content": question}],
    )
    return reply.content[0].text
"""
    )
    assert [code for _, code, _ in findings(source)] == ["PC501"]


# -- string.Template: `$name` fields filled by substitute / safe_substitute ---------------------

TEMPLATE_HEAD = """
from datetime import datetime
from string import Template
import anthropic

client = anthropic.Anthropic()
"""


def _ask(system: str) -> str:
    return f"""
def ask(question: str) -> str:
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=300, system={system},
        messages=[{{"role": "user", "content": question}}],
    )
    return reply.content[0].text
"""


def test_a_clock_substituted_into_the_top_of_a_string_template_is_reported() -> None:
    source = (
        TEMPLATE_HEAD
        + '''
SYSTEM = Template("""Today is $now.
RULES""")
'''
        + _ask("SYSTEM.substitute(now=datetime.now().isoformat())")
    )
    assert [code for _, code, _ in findings(source)] == ["PC501"]


def test_request_data_safe_substituted_from_a_dict_at_the_top_is_reported() -> None:
    source = (
        TEMPLATE_HEAD
        + '''
SYSTEM = Template("""Price list costs $$5. The customer asks: ${question}
RULES""")
'''
        + _ask('SYSTEM.safe_substitute({"question": question})')
    )
    assert [code for _, code, _ in findings(source)] == ["PC502"]


def test_a_string_template_filled_at_its_end_or_not_at_all_is_quiet() -> None:
    end = (
        TEMPLATE_HEAD
        + '''
SYSTEM = Template("""RULES
Today is $now.""")
'''
        + _ask("SYSTEM.substitute(now=datetime.now().isoformat())")
    )
    assert findings(end) == []
    unnamed = (
        TEMPLATE_HEAD
        + '''
SYSTEM = Template("""Today is $now.
RULES""")
'''
        + _ask("SYSTEM.safe_substitute(today=datetime.now().isoformat())")
    )
    assert findings(unnamed) == []


# -- a text's case and its ends: the parts stay where they were -----------------------------------


def test_a_clock_at_the_top_stays_there_through_lower_and_removeprefix() -> None:
    source = (
        HEAD
        + """
def ask(question: str) -> str:
    system = f"Today is {datetime.now():%A %H:%M}. RULES".lower().removeprefix("note: ")
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=300, system=system,
        messages=[{"role": "user", "content": question}],
    )
    return reply.content[0].text
"""
    )
    assert [code for _, code, _ in findings(source)] == ["PC501"]


def test_a_clock_at_the_end_stays_there_through_upper() -> None:
    source = (
        HEAD
        + """
def ask(question: str) -> str:
    system = f"RULES Today is {datetime.now():%A %H:%M}.".upper()
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=300, system=system,
        messages=[{"role": "user", "content": question}],
    )
    return reply.content[0].text
"""
    )
    assert findings(source) == []


# -- a join of a list of known items, filtered or passed through ----------------------------------

JOINS = [
    '"\\n".join(filter(None, parts))',
    '"\\n".join(p for p in parts if p)',
    '"\\n".join([p.strip() for p in parts])',
    '" ".join(map(str, parts))',
]


def _joined(first: str, last: str, join: str) -> str:
    return (
        HEAD
        + f"""
def ask(question: str, notes: str | None = None) -> str:
    parts = [{first}, notes and "Notes follow.", {last}]
    reply = client.messages.create(
        model="claude-sonnet-4-6", max_tokens=300, system={join},
        messages=[{{"role": "user", "content": question}}],
    )
    return reply.content[0].text
"""
    )


@pytest.mark.parametrize("join", JOINS)
def test_a_clock_first_in_a_filtered_join_is_still_first(join: str) -> None:
    source = _joined('f"Now: {datetime.now():%H:%M}"', '"RULES"', join)
    assert [code for _, code, _ in findings(source)] == ["PC501"]


@pytest.mark.parametrize("join", JOINS)
def test_a_clock_last_in_a_filtered_join_is_quiet(join: str) -> None:
    source = _joined('"RULES"', 'f"Now: {datetime.now():%H:%M}"', join)
    assert findings(source) == []
