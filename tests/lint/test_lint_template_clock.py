"""
A clock named as a variable in a system prompt template (issue #21): `{{ time }}` changes on
every request, and the conversation follows a system prompt, so it is reported whatever static
text follows it. A date changes once a day, and a clock in a template that is not a system
prompt costs only the static text after it: both are still judged by the threshold.
"""

from __future__ import annotations

import pytest

from promptcache.lint import lint_source

SHORT_SYSTEM = """\
ROLE

You are a research agent. The current date and time is {{ VARIABLE }}.

TASK

Use the provided tools to answer the question if needed.
If you don't know the answer, say you don't know instead of making things up.
"""

CASES = [
    ("time-in-system-j2", "time", "prompts/system.j2", ["PC102"]),
    ("now-in-a-system-prompt-file", "now", "templates/system_prompt.jinja", ["PC102"]),
    ("current-time-in-an-agent-system-md", "current_time", "prompts/agent_system.md", ["PC102"]),
    ("a-date-in-system-j2-stays-judged-by-size", "date", "prompts/system.j2", []),
    ("time-in-a-user-turn-template", "time", "prompts/user_message.j2", []),
    ("a-non-clock-name-ending-in-time", "reading_time", "prompts/system.j2", []),
]


@pytest.mark.parametrize(
    ("variable", "path", "expected"),
    [pytest.param(v, p, e, id=i) for i, v, p, e in CASES],
)
def test_a_clock_name_in_a_system_prompt_template_is_reported_whatever_follows(
    variable: str, path: str, expected: list[str]
) -> None:
    found = lint_source(SHORT_SYSTEM.replace("VARIABLE", variable), path=path)
    assert [f.code for f in found] == expected


def test_the_finding_says_the_conversation_follows() -> None:
    (found,) = lint_source(SHORT_SYSTEM.replace("VARIABLE", "time"), path="prompts/system.j2")
    assert found.line == 3
    assert "conversation" in found.message
    assert "newest user message" in found.message  # not "at the end of the template"
    assert "end of the template" not in found.message


# A dated record's other fields vary with its date: `{{ previous_date }}` then
# `{{ previous_script }}` at the end of a prompt are one per-request item, not a date above
# stable content of unknown size. A date above some other variable still counts it, outside a
# user turn (in a user turn every variable is taken as the request's data:
# tests/lint/test_lint_prompt_kinds.py).
RECORD = """\
Here are today's headlines, then the last episode's script for context.
{% for item in headlines %}* {{ item.title }}
{% endfor %}
# Script of the episode of {{ DATE }}
{{ FIELD }}"""

RECORD_CASES = [
    ("the-record-date-then-its-script", "previous_date", "previous_script", []),
    ("the-record-date-then-its-attribute", "episode.date", "episode.script", []),
    ("a-date-then-another-variable", "previous_date", "handbook", ["PC102"]),
]


@pytest.mark.parametrize(
    ("date", "field", "expected"),
    [pytest.param(d, f, e, id=i) for i, d, f, e in RECORD_CASES],
)
def test_a_dated_record_at_the_end_is_one_per_request_value(
    date: str, field: str, expected: list[str]
) -> None:
    source = RECORD.replace("DATE", date).replace("FIELD", field)
    found = lint_source(source, path="prompts/episode_context.j2")
    assert [f.code for f in found] == expected
