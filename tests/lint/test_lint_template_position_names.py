"""
Chat templates whose position test is written apart from the branch it decides (issue #21): a
name set from the test (`{% set keep = i > last %}`) and a loop over `range(messages | length)`,
whose variable is the message's index as `loop.index0` is.
"""

from __future__ import annotations

from promptcache.lint import lint_source

# The reasoning is kept only for turns after the last user message; the test is set into a
# name on its own line and branched on two lines further down.
SET_APART = """\
{%- set ns = namespace(last=-1) %}
{%- for m in messages %}{% if m.role == 'user' %}{% set ns.last = loop.index0 %}{% endif %}{% endfor %}
{%- for m in messages %}
{%- if m.role == 'assistant' %}
{%- set keep = hide_old and loop.index0 < ns.last %}
<|im_start|>assistant
{%- if not keep %}<think>{{ m.reasoning_content }}</think>{% endif %}
{{ m.content }}<|im_end|>
{%- else %}<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}
"""


def _pc302(source: str) -> list[tuple[int, int | None]]:
    found = lint_source(source, path="chat_template.jinja")
    return [(f.line, f.written_at) for f in found if f.code == "PC302"]


def test_a_position_test_set_into_a_name_is_reported_at_the_branch_written_at_the_test() -> None:
    # the branch decides, the `set` is where the test (and its fix) is written
    assert _pc302(SET_APART) == [(7, 5)]


def test_a_name_set_from_a_test_that_is_not_on_the_position_is_quiet() -> None:
    stable = SET_APART.replace("hide_old and loop.index0 < ns.last", "hide_old and m.name")
    assert _pc302(stable) == []


# The history walked by index: `i` is where the message sits, compared with a computed index.
BY_INDEX = """\
{%- set ns = namespace(last=-1) %}
{%- for m in messages %}{% if m.role == 'user' %}{% set ns.last = loop.index0 %}{% endif %}{% endfor %}
{%- for i in range(messages | length) %}
{%- set m = messages[i] %}
{%- if m.role == 'assistant' %}<|im_start|>assistant
{%- if i > ns.last %}<think>{{ m.reasoning_content }}</think>{% endif %}
{{ m.content }}<|im_end|>
{%- else %}<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}
"""


def test_a_loop_index_over_range_of_the_messages_compared_with_the_last_user_is_reported() -> None:
    assert _pc302(BY_INDEX) == [(6, None)]


def test_a_loop_index_over_range_compared_with_a_constant_is_quiet() -> None:
    assert _pc302(BY_INDEX.replace("i > ns.last", "i > 0")) == []


def test_a_switch_on_by_default_that_turns_the_position_test_on_is_named_in_the_fix() -> None:
    source = "{%- set hide_old = hide_old if hide_old is defined else true %}\n" + SET_APART
    (found,) = [f for f in lint_source(source, path="chat_template.jinja") if f.code == "PC302"]
    assert "`hide_old`" in found.message and "chat_template_kwargs" in found.message


def test_a_switch_the_caller_must_turn_on_is_not_named_in_the_fix() -> None:
    (found,) = [f for f in lint_source(SET_APART, path="chat_template.jinja") if f.code == "PC302"]
    assert "`hide_old`" not in found.message
