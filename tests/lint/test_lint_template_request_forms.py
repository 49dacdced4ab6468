"""
False alarms on clean prompt templates of corpus 4 and 3 (session 33, task tplF), by mechanism.
Each shape below is ours, written after one of their mechanisms; each quiet case has a twin that
is still reported.

- A branch on the user's question (`{% if input %}`) is about that question: what follows it
  in the same text is that request's own, as what follows the question itself is.
- A language, also qualified (`language_code`, `target_language`), is a short name or code, one
  of the few a deployment answers in: a setting, not a variable of unknown meaning (PC106), and
  a few tokens, not content of unknown size, after a per-request value.
- A yes/no flag named after a per-request value (`is_owned_card_question`, `hasMemory`) holds
  one of two values, not the question or the memory: a branch on it forks the prefix in two,
  each cached. A flag of a per-request object (`user.is_admin`) is still the request's.
"""

from __future__ import annotations

import pytest

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


# -- a language is a setting ----------------------------------------------------------------------

# A support assistant's system prompt whose reply language the deployment sets, named in the rule
# at the top and again inside the long instructions.
LANGUAGE_RULE = (
    """\
# Reply language
Write every reply in the language whose ISO code is `{{ NAME }}`, whatever the documents use.

# Role
"""
    + STATIC * 4
    + """
Before sending, check once more that the reply is written in `{{ NAME }}`.
"""
    + STATIC
)


@pytest.mark.parametrize("name", ["language_code", "target_language", "reply_lang", "ui_locale"])
def test_a_language_above_long_instructions_is_a_setting(name: str) -> None:
    source = LANGUAGE_RULE.replace("NAME", name)
    assert _findings(source, "templates/system_prompt.jinja2") == []


def test_a_value_of_unknown_meaning_there_is_still_asked_about() -> None:
    source = LANGUAGE_RULE.replace("NAME", "house_style")
    assert ("PC106", 2) in _findings(source, "templates/system_prompt.jinja2")


def test_a_language_after_a_per_request_value_is_a_few_tokens_not_unsized_content() -> None:
    source = "Translate for {{ user_name }} into:\n{{ target_language }}\nKeep it short.\n"
    assert _findings(source, "templates/translate.jinja2") == []
    loud = source.replace("target_language", "style_guide")
    assert _findings(loud, "templates/translate.jinja2") == [("PC102", 1)]


# -- a yes/no flag named after a per-request value -------------------------------------------------

# A mode's instructions: a short variant when the caller says the question is about the user's
# own account, the general rules otherwise, then a long shared answer format.
FLAG_BRANCH = (
    """\
## Help mode
{% if FLAG %}
The question is about the customer's own account: answer from the account facts only.
{% else %}
Answer general questions briefly and offer to look at the account.
{% endif %}
## Answer format
"""
    + STATIC
)


@pytest.mark.parametrize(
    "flag", ["is_own_account_question", "has_memory", "isFollowUpQuestion", "should_use_history"]
)
def test_a_branch_on_a_flag_named_after_a_per_request_value_is_not_reported(flag: str) -> None:
    assert _findings(FLAG_BRANCH.replace("FLAG", flag), "prompts/help_mode.j2") == []


@pytest.mark.parametrize("test", ["own_account_question", "user.is_admin", "memory"])
def test_a_branch_on_the_value_itself_or_a_flag_of_the_user_is_still_reported(test: str) -> None:
    assert _findings(FLAG_BRANCH.replace("FLAG", test), "prompts/help_mode.j2") == [("PC103", 2)]
