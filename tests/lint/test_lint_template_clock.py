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
