"""
A template the project's Python sends as a user message (session 34, task tpl7).

Where every render of a template becomes the content of a user message (`{"role": "user",
"content": prompt}`, a `HumanMessage`, also through a name read once or parts joined into one
text), the template is judged as a user turn whatever its name or opening say: a short block of
static text after the request's own values (shorter than the threshold: about eight lines) is not reusable
content. A long block still is; a render into a system message is judged as before.

The projects are ours, after the shape of real ones (a SQL agent that asks again with the
error it got, in one user message after a one-line system message).
"""

from __future__ import annotations

from pathlib import Path

from ._helpers import template_problems

RULE = "- Check every table and column name against the schema above before you answer.\n"

RETRY = """\
The SQL you wrote last failed. Fix it.

## Task
{{{{ task.goal }}}}

## Your SQL
{{{{ previous_sql }}}}

## Error
{{{{ error_message }}}}

## Rules
{rules}"""

AGENT = """\
from jinja2 import Environment, FileSystemLoader

env = Environment(loader=FileSystemLoader("prompts"))


def retry(client, task, previous_sql, error_message):
    prompt = env.get_template("retry.j2").render(
        task=task, previous_sql=previous_sql, error_message=error_message
    )
    return client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": "You fix SQL. Answer with JSON only."},
            {"role": "user", "content": prompt},
        ],
    )
"""


def _findings(root: Path, agent: str, lines: int) -> list[tuple[str, int]]:
    files = {"app/agent.py": agent, "prompts/retry.j2": RETRY.format(rules=RULE * lines)}
    return [(code, line) for _, code, line in template_problems(root, files)]


def test_a_short_block_after_the_values_of_a_user_message_is_quiet(tmp_path: Path) -> None:
    assert _findings(tmp_path, AGENT, 3) == []


def test_a_long_block_after_the_values_of_a_user_message_is_reported(tmp_path: Path) -> None:
    assert ("PC102", 4) in _findings(tmp_path, AGENT, 12)


def test_a_user_message_made_of_joined_parts_is_a_user_message(tmp_path: Path) -> None:
    agent = AGENT.replace(
        '{"role": "user", "content": prompt}',
        '{"role": "user", "content": "\\\\n\\\\n".join([prompt, "Answer in JSON."])}',
    )
    assert _findings(tmp_path, agent, 3) == []


def test_the_same_text_rendered_into_a_system_message_is_judged_as_before(
    tmp_path: Path,
) -> None:
    agent = AGENT.replace(
        '{"role": "user", "content": prompt}', '{"role": "system", "content": prompt}'
    )
    assert ("PC102", 4) in _findings(tmp_path, agent, 3)
