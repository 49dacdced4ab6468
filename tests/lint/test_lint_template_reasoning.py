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
