"""
False alarms on clean prompt templates of corpus 4 and 3 (session 33, task tplF), by mechanism.
Each shape below is ours, written after one of their mechanisms; each quiet case has a twin that
is still reported.

- A branch on the user's question (`{% if input %}`) is about that question: what follows it
  in the same text is that request's own, as what follows the question itself is.
"""

from __future__ import annotations

from promptcache.lint import lint_source

from ._helpers import STATIC


def _findings(source: str, path: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in lint_source(source, path=path) if f.severity != "info"]


# -- a branch on the user's question -------------------------------------------------------------

# A completion-style prompt of one request: the task, an optional input block, and the slot where
# the model's reply goes (empty at inference, the reference reply when the file builds
# fine-tuning rows).
TASK_INPUT_REPLY = """\
## Task
{{ instruction }}

{% if input %}## Given
{{ input }}

{% endif %}## Reply
{{ reply if reply else "" }}"""


def test_a_branch_on_the_users_input_is_followed_by_that_requests_own_text() -> None:
    assert _findings(TASK_INPUT_REPLY, "templates/completion.jinja2") == []


def test_a_branch_on_the_users_input_above_long_instructions_is_still_reported() -> None:
    source = TASK_INPUT_REPLY.replace("## Reply", f"## Rules\n{STATIC}\n## Reply")
    assert ("PC103", 4) in _findings(source, "templates/completion.jinja2")


def test_a_branch_on_another_value_above_unsized_content_is_still_reported() -> None:
    # `feedback` is per request but not the user's question: the reference notes after it are
    # content of unknown size that could be reused.
    source = """\
Review the draft below.
{% if feedback %}Earlier feedback: {{ feedback }}
{% endif %}
{{ reference_notes }}
"""
    assert ("PC103", 2) in _findings(source, "templates/review.jinja2")
