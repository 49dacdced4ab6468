"""
A chat template that splits the reasoning off an assistant turn's content (issue #21): it drops
nothing when it renders the split-off reasoning back in a `<think>` block for every turn; it
drops it from earlier turns when only the newest turns get the block.
"""

from __future__ import annotations

from ._helpers import codes

KEPT = """\
{%- for message in messages %}
{%- if message.role == 'user' %}<|im_start|>user
{{ message.content }}<|im_end|>
{%- elif message.role == 'assistant' %}
{%- set content = message.content %}
{%- set reasoning = '' %}
{%- if '</think>' in content %}
{%- set reasoning = content.split('</think>')[0].split('<think>')[-1].strip() %}
{%- set content = content.split('</think>')[-1].lstrip() %}
{%- endif %}
{{- '<|im_start|>assistant\\n<think>\\n' + reasoning + '\\n</think>\\n\\n' + content + '<|im_end|>' }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}
"""

# Qwen3's shape: the reasoning is rendered only for turns after the last user query.
DROPPED_EARLIER = KEPT.replace(
    "{{- '<|im_start|>assistant\\n<think>\\n' + reasoning + '\\n</think>\\n\\n' + content + '<|im_end|>' }}",
    "{%- if loop.index0 > ns.last_query_index %}"
    "{{- '<|im_start|>assistant\\n<think>\\n' + reasoning + '\\n</think>\\n\\n' + content }}"
    "{%- else %}{{- '<|im_start|>assistant\\n' + content }}{%- endif %}",
).replace(
    "{%- for message in messages %}",
    "{%- set ns = namespace(last_query_index=messages|length - 1) %}\n{%- for message in messages %}",
)

# The split with the reasoning never rendered: every earlier turn loses it.
NEVER_RENDERED = KEPT.replace(
    "'<|im_start|>assistant\\n<think>\\n' + reasoning + '\\n</think>\\n\\n' + content",
    "'<|im_start|>assistant\\n' + content",
)


def test_reasoning_split_off_and_rendered_back_in_every_turn_is_stable() -> None:
    assert codes(KEPT, chat=True) == []


def test_reasoning_rendered_only_after_the_last_query_is_still_reported() -> None:
    assert "PC302" in codes(DROPPED_EARLIER, chat=True)


def test_reasoning_split_off_and_never_rendered_is_still_reported() -> None:
    assert codes(NEVER_RENDERED, chat=True) == ["PC302"]


# Llama 3.1's shape: the date is whatever the request passes, else a date fixed in the template.
DEFAULTED_DATE = """\
{%- set date_string = date_string if date_string is defined else DEFAULT %}
{{- "Cutting Knowledge Date: December 2023\\nToday Date: " + date_string + "\\n\\n" }}
{%- for message in messages %}<|{{ message.role }}|>{{ message.content }}{%- endfor %}
{%- if add_generation_prompt %}<|assistant|>{% endif %}
"""


def test_a_chat_date_that_defaults_to_a_fixed_date_is_stable() -> None:
    # Not a warning (main notes, as PC002, that a request could still pass a date of its own).
    found = codes(DEFAULTED_DATE.replace("DEFAULT", "'26 Jul 2024'"), chat=True)
    assert "PC301" not in found


def test_a_chat_date_that_defaults_to_the_clock_is_still_reported() -> None:
    source = DEFAULTED_DATE.replace("DEFAULT", 'strftime_now("%d %b %Y")')
    assert codes(source, chat=True) == ["PC301"]


def test_a_chat_date_with_no_default_is_still_reported() -> None:
    source = DEFAULTED_DATE.replace(
        "{%- set date_string = date_string if date_string is defined else DEFAULT %}\n", ""
    )
    assert codes(source, chat=True) == ["PC301"]


# The history under another name, guarded against a missing `messages`: `msgs = messages if
# messages is defined else []`, then the loop over `msgs` keeps the reasoning of the last turn only.
GUARDED_COPY_LAST_ONLY = """\
{%- set msgs = (messages if messages is defined and messages is iterable else []) -%}
{%- for message in msgs -%}
{%- set newest = loop.last -%}
{%- if message.role == 'user' -%}<|user|>{{ message.content }}<|end|>
{%- elif message.role == 'assistant' -%}<|assistant|>
{%- if newest and message.reasoning is defined and message.reasoning -%}<think>{{ message.reasoning }}</think>{%- endif -%}
{{ message.content }}<|end|>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}
"""


def test_a_guarded_copy_of_the_messages_is_the_history() -> None:
    assert codes(GUARDED_COPY_LAST_ONLY, chat=True) == ["PC302"]


def test_a_guarded_copy_that_keeps_every_turns_reasoning_is_stable() -> None:
    every_turn = GUARDED_COPY_LAST_ONLY.replace("newest and ", "")
    assert codes(every_turn, chat=True) == []


# A template for a hybrid model's non-thinking use: the generation prompt always writes an empty
# think block, so the model never writes reasoning; the history strips a `</think>` part off
# the content all the same (defensively) and writes the same empty block back for every turn.
THINKING_OFF = """\
{%- for m in messages %}
{%- if m.role == 'assistant' %}
{%- set content = m.content.split('</think>')[-1].lstrip() if '</think>' in m.content else m.content %}
{{- '<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n' + content + '<|im_end|>\\n' }}
{%- else %}
{{- '<|im_start|>' + m.role + '\\n' + m.content + '<|im_end|>\\n' }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n' }}{%- endif %}
"""


def test_a_split_under_a_generation_prompt_that_closes_the_think_block_drops_nothing() -> None:
    assert codes(THINKING_OFF, chat=True) == []


def test_the_same_split_after_a_generation_prompt_that_lets_the_model_think_is_reported() -> None:
    source = THINKING_OFF.replace(
        "{{- '<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n' }}{%- endif %}",
        "{{- '<|im_start|>assistant\\n' }}{%- endif %}",
    )
    assert codes(source, chat=True) == ["PC302", "PC302"]


def test_a_split_when_only_thinking_off_closes_the_block_is_still_reported() -> None:
    source = THINKING_OFF.replace(
        "{{- '<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n' }}{%- endif %}",
        "{{- '<|im_start|>assistant\\n' }}{%- if enable_thinking is false %}"
        "{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}{%- endif %}",
    )
    assert "PC302" in codes(source, chat=True)


# A community variant of Qwen3's shape whose two sides of the position branch were made the same:
# every turn renders its reasoning whatever its position, so the branch decides nothing.
SAME_ON_BOTH_SIDES = DROPPED_EARLIER.replace(
    "{%- else %}{{- '<|im_start|>assistant\\n' + content }}{%- endif %}",
    "{%- else %}"
    "{{- '<|im_start|>assistant\\n<think>\\n' + reasoning + '\\n</think>\\n\\n' + content }}"
    "{%- endif %}",
)


def test_a_position_branch_whose_sides_render_the_same_is_stable() -> None:
    assert SAME_ON_BOTH_SIDES != DROPPED_EARLIER
    assert codes(SAME_ON_BOTH_SIDES, chat=True) == []


def test_a_position_branch_whose_sides_set_the_same_is_stable() -> None:
    # the same decision written as flags: both sides set it alike, then one block renders it
    source = DROPPED_EARLIER.replace(
        "{%- if loop.index0 > ns.last_query_index %}",
        "{%- if loop.index0 > ns.last_query_index %}{%- set shown = true %}"
        "{%- else %}{%- set shown = true %}{%- endif %}{%- if shown %}",
    )
    assert codes(source, chat=True) == []


def test_a_position_branch_whose_sides_differ_by_one_value_is_still_reported() -> None:
    # the sides look alike but one writes the content without its reasoning
    source = SAME_ON_BOTH_SIDES.replace(
        "{%- else %}{{- '<|im_start|>assistant\\n<think>\\n' + reasoning",
        "{%- else %}{{- '<|im_start|>assistant\\n<think>\\n' + ''",
    )
    assert source != SAME_ON_BOTH_SIDES
    assert "PC302" in codes(source, chat=True)


def test_reasoning_taken_with_the_first_and_last_filters_is_written_back_too() -> None:
    # `split(...) | first` is `split(...)[0]`, `| last` is `[-1]` (QwQ-style spellings)
    source = KEPT.replace(
        "content.split('</think>')[0].split('<think>')[-1].strip()",
        "((content.split('</think>') | first).split('<think>') | last).strip()",
    ).replace(
        "content.split('</think>')[-1].lstrip()", "(content.split('</think>') | last).lstrip()"
    )
    assert "| first" in source
    assert codes(source, chat=True) == []
    dropped = source.replace(
        "'<|im_start|>assistant\\n<think>\\n' + reasoning + '\\n</think>\\n\\n' + content",
        "'<|im_start|>assistant\\n' + content",
    )
    assert dropped != source
    assert codes(dropped, chat=True) == ["PC302"]
