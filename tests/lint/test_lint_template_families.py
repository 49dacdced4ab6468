"""
Chat templates of the model families on the Hub (issue #21, item 3): each mechanism our linter
answered wrongly on a family's official template, reproduced in a template we wrote.

- Kimi K2 Thinking cuts the history at the last final answer, found by a loop from the end:
  turns before the cut get an empty `<think></think>` written as template text, turns after
  it keep their reasoning. Once a newer answer arrives the cut moves, and a turn cached with
  its reasoning renders without it. Template text was not read the way a string constant is.
- Gemma 4 captures a model turn with its reasoning stripped, then branches on whether anything
  is left: the branch forks on the same cause as the strip, and was reported a second time
  under the date rule (PC301).
- SmolLM3's no-reasoning mode writes an empty think block in the generation prompt and, under
  the same test, in every earlier assistant turn: what the engine generated after, so nothing
  is dropped (corpus 3, c3-dev: a false alarm).
- A `loop.last` branch that writes the same turn with or without a separator after it (a
  training-style template, c3-dev: a false alarm) renders every turn the same up to its end.
- A Qwen3 variant reads a thinking switch from the text of every message, the newest included,
  and sets the system turn's reasoning instructions from it (c3-dev: a miss): a namespace flag
  set from what the messages say, and any value set in a branch on a per-request test, vary
  with it.
- DeepSeek V3.2 (llama.cpp's template) sets `loop.index0 > last_user.value` into a name, then
  writes the reasoning only when it holds: earlier turns lose it, but the branch read a name,
  not a position test.
- MiniMax-M2 writes the system message's `current_date` field into the system turn.
"""

from __future__ import annotations

from promptcache.lint import lint_source

from ._helpers import codes

# -- the history cut at a position found from the end -----------------------------------------

CUT_HISTORY = """\
{%- set ns = namespace(cut=-1) -%}
{%- for i in range(messages|length-1, -1, -1) -%}
{%- if messages[i]['role'] == 'assistant' and not messages[i].get('tool_calls') -%}
{%- set ns.cut = i -%}{%- break -%}
{%- endif -%}
{%- endfor -%}
{%- set older = messages[:ns.cut+1] -%}
{%- set newer = messages[ns.cut+1:] -%}
<|sys|>You are a helpful model.<|end|>
{%- for m in older -%}
<|{{ m['role'] }}|>
{%- if m['role'] == 'assistant' -%}
<think></think>{{ m['content'] }}
{%- else -%}
{{ m['content'] }}
{%- endif -%}<|end|>
{%- endfor -%}
{%- for m in newer -%}
<|{{ m['role'] }}|>
{%- if m['role'] == 'assistant' -%}
<think>{{ m.get('reasoning_content', '') }}</think>{{ m['content'] }}
{%- else -%}
{{ m['content'] }}
{%- endif -%}<|end|>
{%- endfor -%}
{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}
"""


def test_an_empty_think_block_written_as_template_text_for_earlier_turns_is_reported() -> None:
    (found,) = lint_source(CUT_HISTORY, chat=True)
    assert (found.code, found.line) == ("PC302", 13)
    assert "empty `<think></think>`" in found.message


def test_the_same_block_as_a_string_constant_is_reported_the_same_way() -> None:
    constant = CUT_HISTORY.replace(
        "<think></think>{{ m['content'] }}", "{{ '<think></think>' + m['content'] }}"
    )
    assert codes(constant, chat=True) == ["PC302"]


def test_every_turn_keeping_its_reasoning_is_quiet() -> None:
    kept = CUT_HISTORY.replace(
        "<think></think>{{ m['content'] }}",
        "<think>{{ m.get('reasoning_content', '') }}</think>{{ m['content'] }}",
    )
    assert codes(kept, chat=True) == []


def test_an_empty_think_block_in_the_generation_prompt_is_quiet() -> None:
    source = (
        "{%- for m in messages -%}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{%- endfor -%}"
        "{%- if add_generation_prompt -%}<|assistant|><think></think>{%- endif -%}"
    )
    assert codes(source, chat=True) == []


# -- a branch on a turn's text once its reasoning is stripped --------------------------------

STRIPPED_THEN_TESTED = """\
{%- macro strip_thinking(text) -%}
{{- text.split('</think>')[-1] | trim -}}
{%- endmacro -%}
{%- for message in messages -%}
<start_of_turn>{{ message['role'] }}
{%- set captured -%}
{%- if message['role'] == 'model' -%}{{- strip_thinking(message['content']) -}}
{%- else -%}{{- message['content'] | trim -}}{%- endif -%}
{%- endset -%}
{{- captured -}}
{%- set has_content = captured | trim | length > 0 -%}
{%- if has_content -%}<end_of_turn>
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<start_of_turn>model{%- endif -%}
"""


def test_a_branch_on_stripped_text_is_the_strip_reported_once_not_a_date() -> None:
    assert codes(STRIPPED_THEN_TESTED, chat=True) == ["PC302"]


# -- an empty think block that the generation prompt writes too --------------------------------

# SmolLM3's no-reasoning mode: the generation prompt opens the turn with an empty think block,
# and earlier turns are written with the same block under the same test: what was generated.
NO_REASONING_MODE = """\
{{- "<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n" -}}
{%- for message in messages -%}
{%- if message.role == "assistant" -%}
{%- if reasoning_mode == "/think" -%}
{{ "<|im_start|>assistant\\n" + message.content + "<|im_end|>\\n" }}
{%- else -%}
{{ "<|im_start|>assistant\\n" + "<think>\\n\\n</think>\\n" + message.content + "<|im_end|>\\n" }}
{%- endif -%}
{%- else -%}
{{ "<|im_start|>" + message.role + "\\n" + message.content + "<|im_end|>\\n" }}
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
{%- if reasoning_mode == "/think" -%}{{ "<|im_start|>assistant\\n" }}
{%- else -%}{{ "<|im_start|>assistant\\n" + "<think>\\n\\n</think>\\n" }}{%- endif -%}
{%- endif -%}
"""


def test_an_empty_think_block_the_generation_prompt_writes_under_the_same_test_is_quiet() -> None:
    assert codes(NO_REASONING_MODE, chat=True) == []


def test_an_empty_think_block_on_the_other_side_of_that_test_is_reported() -> None:
    # The generation prompt lets the model reason; the history then empties its reasoning.
    swapped = NO_REASONING_MODE.replace(
        '{%- if reasoning_mode == "/think" -%}\n{{', "{%- if reasoning_mode != '/think' -%}\n{{", 1
    )
    assert codes(swapped, chat=True) == ["PC302"]


def test_an_empty_think_block_the_generation_prompt_always_writes_is_quiet() -> None:
    source = (
        "{%- for m in messages -%}{%- if m.role == 'assistant' -%}"
        "{{ '<|a|><think></think>' + m.content }}{%- else -%}{{ '<|u|>' + m.content }}"
        "{%- endif -%}{%- endfor -%}"
        "{%- if add_generation_prompt -%}{{ '<|a|><think></think>' }}{%- endif -%}"
    )
    assert codes(source, chat=True) == []


# -- a last-turn branch that only adds a separator after the same turn ---------------------

SEPARATOR_AFTER_ALL_BUT_THE_LAST = """\
{{ bos_token }}{% for message in messages %}
{% if message['role'] == 'user' %}
{{ '<|user|>\\n' + message['content'] + '\\n' }}
{% elif message['role'] == 'assistant' %}
{% if not loop.last %}
{{ '<|assistant|>\\n' + message['content'] + eos_token + '\\n' }}
{% else %}
{{ '<|assistant|>\\n' + message['content'] + eos_token }}
{% endif %}
{% endif %}
{% endfor %}
"""


def test_a_last_turn_branch_that_only_adds_a_separator_after_the_turn_is_quiet() -> None:
    assert codes(SEPARATOR_AFTER_ALL_BUT_THE_LAST, chat=True) == []


def test_a_last_turn_branch_that_changes_the_turn_itself_is_still_reported() -> None:
    changed = SEPARATOR_AFTER_ALL_BUT_THE_LAST.replace(
        "message['content'] + eos_token }}", "message['content'] | trim + eos_token }}"
    )
    assert codes(changed, chat=True) == ["PC302"]


# -- a switch read from every message, the newest included, decides the system turn --------

# A Qwen3 variant: `/no_think` in any message turns the reasoning instructions of the system
# turn off; a new user message can flip it, and the system turn above everything changes.
THINKING_SWITCH = """\
{%- set ns = namespace(thinking=true) %}
{%- for msg in messages %}
{%- if msg.role == 'user' and '/no_think' in msg.content %}{%- set ns.thinking = false %}{%- endif %}
{%- endfor %}
{%- set extra = '' %}
{%- if ns.thinking %}
{%- if effort == 'high' %}{%- set extra = 'Think at length.' %}
{%- else %}{%- set extra = 'Think briefly.' %}{%- endif %}
{%- endif %}
{{- '<|im_start|>system\\nYou are helpful. ' + extra + '<|im_end|>\\n' }}
{%- for message in messages %}
{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}
"""


def test_a_switch_read_from_the_messages_text_above_the_history_is_reported() -> None:
    (found,) = lint_source(THINKING_SWITCH, chat=True)
    assert (found.code, found.line) == ("PC302", 10)
    assert "ns.thinking" in found.message


def test_the_same_switch_read_only_for_the_generation_prompt_is_quiet() -> None:
    source = THINKING_SWITCH.replace(
        "{{- '<|im_start|>system\\nYou are helpful. ' + extra + '<|im_end|>\\n' }}",
        "{{- '<|im_start|>system\\nYou are helpful.<|im_end|>\\n' }}",
    ).replace("<|im_start|>assistant\\n' }}", "<|im_start|>assistant\\n' + extra }}")
    assert codes(source, chat=True) == []


def test_a_switch_read_from_the_messages_roles_is_not_a_content_switch() -> None:
    source = THINKING_SWITCH.replace("'/no_think' in msg.content", "msg.name == 'tester'")
    assert codes(source, chat=True) == []


def test_a_value_set_under_a_per_request_branch_in_a_prompt_is_per_request() -> None:
    source = (
        "{% if user.is_admin %}{% set role = 'an administrator' %}"
        "{% else %}{% set role = 'a guest' %}{% endif %}"
        "You are helping {{ role }}.\n" + "Follow the policy in section four exactly. " * 30
    )
    found = lint_source(source, path="prompts/agent.j2")
    assert sorted(f.code for f in found) == ["PC102", "PC103"]  # the value, and the fork
    assert any("`role`" in f.message for f in found)


# -- the date the client sends in a field of the system message ----------------------------

# MiniMax-M2: the system turn writes `system_message.current_date` when the client sends one.
DATE_FIELD = """\
{%- set system_message = none -%}
{%- set turns = messages -%}
{%- if messages and messages[0].role == 'system' -%}
{%- set system_message = messages[0] -%}{%- set turns = messages[1:] -%}
{%- endif -%}
{{- '<|sys|>' + (system_message.content if system_message else 'You are helpful.') }}
{%- if system_message and system_message.FIELD -%}{{- '\\nCurrent date: ' + system_message.FIELD }}{%- endif -%}
{{- '<|end|>' }}
{%- for m in turns -%}{{- '<|' + m.role + '|>' + m.content + '<|end|>' }}{%- endfor -%}
"""


def test_a_current_date_field_of_the_system_message_is_the_date() -> None:
    found = lint_source(DATE_FIELD.replace("FIELD", "current_date"), chat=True)
    assert [(f.code, f.line) for f in found] == [("PC301", 7)]


def test_a_messages_own_date_field_is_not() -> None:
    assert codes(DATE_FIELD.replace("FIELD", "sent_date"), chat=True) == []


# -- a position test held in a variable ------------------------------------------------------

# DeepSeek V3.2 (llama.cpp's template): the test is set into a name first, then branched on.
POSITION_IN_A_NAME = """\
{%- set last = namespace(index=-1) -%}
{%- for message in messages -%}{%- if message.role == 'user' -%}{%- set last.index = loop.index0 -%}{%- endif -%}{%- endfor -%}
{{- bos_token -}}
{%- for message in messages -%}
{%- if message.role == 'user' -%}{{- '<|User|>' + message.content -}}
{%- else -%}
{%- set after_last_user = loop.index0 > last.index -%}
{{- '<|Assistant|>' -}}
{%- if after_last_user and thinking -%}{{- '<think>' + message.reasoning_content + '</think>' -}}
{%- else -%}{{- '</think>' -}}{%- endif -%}
{{- message.content + eos_token -}}
{%- endif -%}
{%- endfor -%}
"""


def test_a_position_test_set_into_a_name_then_branched_on_is_reported() -> None:
    (found,) = lint_source(POSITION_IN_A_NAME, chat=True)
    assert (found.code, found.line) == ("PC302", 9)
    assert "reasoning" in found.message


def test_a_name_set_from_a_stable_test_is_not_a_position() -> None:
    source = POSITION_IN_A_NAME.replace("loop.index0 > last.index", "message.role == 'assistant'")
    assert codes(source, chat=True) == []


# -- a run of tool results closed in two branches --------------------------------------------

TOOL_RUN_IN_BRANCHES = """\
{%- for message in messages %}
{%- if message.role == 'tool' %}
{%- if loop.index0 == 0 or messages[loop.index0 - 1].role != 'tool' %}{{- '<|im_start|>user' }}{%- endif %}
{{- '\\n<tool_response>\\n' + message.content + '\\n</tool_response>' }}
{%- if loop.last %}
{{- '<|im_end|>\\n' }}
{%- else %}
{%- set next_role = messages[loop.index0 + 1].role %}
{%- if next_role != 'tool' %}{{- '<|im_end|>\\n' }}{%- endif %}
{%- endif %}
{%- else %}
{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}
"""


def test_a_run_of_tool_results_closed_in_two_branches_is_quiet() -> None:
    assert codes(TOOL_RUN_IN_BRANCHES, chat=True) == []


def test_a_last_turn_branch_writing_something_else_than_the_run_closer_is_reported() -> None:
    source = TOOL_RUN_IN_BRANCHES.replace(
        "{%- if loop.last %}\n{{- '<|im_end|>", "{%- if loop.last %}\n{{- 'LAST<|im_end|>", 1
    )
    assert source != TOOL_RUN_IN_BRANCHES
    assert codes(source, chat=True) == ["PC302"]


def test_a_last_turn_branch_that_only_sets_a_name_is_not_the_branch_reported() -> None:
    # Apriel-1.6: `{% if loop.last %}{% set add_tool_id = false %}{% endif %}` comes first; the
    # branch that drops earlier turns' reasoning is the one to name.
    source = (
        "{%- for message in messages -%}{%- if message.role == 'assistant' -%}"
        "{%- if loop.last -%}{%- set tag = false -%}{%- endif -%}\n"
        "{%- if not loop.last and '[FINAL]' in message.content -%}"
        "{{- message.content.split('[FINAL]')[-1] -}}"
        "{%- else -%}{{- message.content -}}{%- endif -%}"
        "{%- else -%}{{- '<|user|>' + message.content -}}{%- endif -%}{%- endfor -%}"
    )
    found = lint_source(source, chat=True)
    assert [(f.code, f.line) for f in found] == [("PC302", 2)]
    only_sets = "{%- for m in messages -%}{%- if not loop.last -%}{%- set nxt = messages[loop.index].role -%}{%- endif -%}{{ m.content }}{%- endfor -%}"
    assert codes(only_sets, chat=True) == []


# -- the date the client sends as a message of its own ----------------------------------------

# A header written from a message the client sends with a role of its own (`meta-today`): the
# role says the message holds today's date, so its content is the date above the conversation.
DATE_MESSAGE = """\
[header]
date = {{ (messages | selectattr('role', 'equalto', 'ROLE') | list | last).content if messages | selectattr('role', 'equalto', 'ROLE') | list else '' }}
[turns]
{%- for m in messages if m.role in ['user', 'assistant'] %}
<{{ m.role }}>{{ m.content }}</{{ m.role }}>
{%- endfor %}
{%- if add_generation_prompt %}
<assistant>
{%- endif %}
"""


def test_the_content_of_a_message_whose_role_names_todays_date_is_the_date() -> None:
    found = lint_source(DATE_MESSAGE.replace("ROLE", "meta-current_date"), chat=True)
    assert [(f.code, f.line) for f in found] == [("PC301", 2)]


def test_the_content_of_a_message_with_another_role_is_not() -> None:
    assert codes(DATE_MESSAGE.replace("ROLE", "meta-task_name"), chat=True) == []
