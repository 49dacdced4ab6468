"""
Branches on a chat template's message position that render nothing different once the next turn
arrives (issue #21, item 3: false alarms on clean real templates; the shapes are ours).

- A guard that aborts a malformed request (`{% if loop.last and message.role != 'user' %}{{
  raise_exception('...') }}{% endif %}`) writes nothing in a request that succeeds: its error
  message is not an instruction written into the newest turn.
- An assistant turn closed with the tokenizer's end token only when another message follows
  (`{% if not loop.last %}{{ eos_token }}{% endif %}`) is left open when it is the last one, to be
  continued; whatever the model writes after it ends with that token, so every turn before the
  newest renders the same: a special token at the end of the turn is a separator like `\\n`.

Each quiet case has a twin that is still reported.
"""

from __future__ import annotations

from ._helpers import codes

# A Mistral-style template: roles must alternate, the last message must be the user's, and the
# system message is joined to the first user turn.
GUARDED = """\
{%- if messages[0]['role'] == 'system' %}{%- set system_message = messages[0]['content'] %}{%- set loop_messages = messages[1:] %}{%- else %}{%- set system_message = '' %}{%- set loop_messages = messages %}{%- endif %}
{{- bos_token }}
{%- for message in loop_messages %}
{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{- raise_exception('Conversation roles must alternate user/assistant/user/assistant') }}{%- endif %}
{%- if loop.last and message['role'] != 'user' %}{{- raise_exception('The last message must come from the user, to be answered') }}{%- endif %}
{%- if message['role'] == 'user' %}
{%- if loop.first and system_message %}{{- '[INST] ' + system_message + '\\n\\n' + message['content'] + ' [/INST]' }}{%- else %}{{- '[INST] ' + message['content'] + ' [/INST]' }}{%- endif %}
{%- else %}
{{- ' ' + message['content'] + eos_token }}
{%- endif %}
{%- endfor %}
"""


def test_a_guard_that_raises_on_the_last_message_writes_nothing_into_it() -> None:
    assert codes(GUARDED, chat=True) == []


def test_a_fixed_instruction_written_into_the_last_turn_is_still_reported() -> None:
    source = GUARDED.replace(
        "{{- raise_exception('The last message must come from the user, to be answered') }}",
        "{{- 'Answer the last message in the language it is written in.\\n' }}",
    )
    assert codes(source, chat=True) == ["PC302"]


def test_the_system_message_moved_into_the_last_turn_is_still_reported() -> None:
    source = GUARDED.replace("loop.first and system_message", "loop.last and system_message")
    assert codes(source, chat=True) == ["PC302"]


# A Phi-style template: an assistant turn is closed with the end token only when a message
# follows it, so a trailing assistant message can be continued.
OPEN_LAST_TURN = """\
{%- for message in messages %}
{%- if message['role'] == 'user' %}
{{- '<|user|>\\n' + message['content'] + '<|end|>\\n' }}
{%- elif message['role'] == 'assistant' %}
{{- '<|assistant|>\\n' + message['content'] }}
{%- if not loop.last %}{{- END }}{%- endif %}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|assistant|>\\n' }}{%- endif %}
"""


def test_an_end_token_written_only_when_a_message_follows_keeps_earlier_turns() -> None:
    assert codes(OPEN_LAST_TURN.replace("END", "eos_token"), chat=True) == []
    assert codes(OPEN_LAST_TURN.replace("END", "eos_token + '\\n'"), chat=True) == []


def test_a_value_written_only_when_a_message_follows_is_still_reported() -> None:
    source = OPEN_LAST_TURN.replace("END", "message['summary']")
    assert codes(source, chat=True) == ["PC302"]


# The same turn written on both sides of a branch on the position, closed with the end token
# only when another message follows (or in training); the other side leaves it open.
CLOSED_UNLESS_LAST = OPEN_LAST_TURN.replace(
    "{{- '<|assistant|>\\n' + message['content'] }}\n{%- if not loop.last %}{{- END }}{%- endif %}",
    "{%- if not loop.last or is_training %}{{- '<|assistant|>\\n' + message['content'] + END }}"
    "{%- else %}{{- '<|assistant|>\\n' + message['content'] }}{%- endif %}",
)


def test_the_same_turn_with_and_without_its_end_token_renders_the_same_up_to_its_end() -> None:
    assert codes(CLOSED_UNLESS_LAST.replace("END", "eos_token"), chat=True) == []


def test_the_same_turn_with_and_without_a_value_after_it_is_still_reported() -> None:
    source = CLOSED_UNLESS_LAST.replace("END", "message['summary']")
    assert codes(source, chat=True) == ["PC302"]
