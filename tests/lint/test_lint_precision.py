"""
Template precision (issue #21, item 3): the false-alarm shapes stay quiet, the recall is kept.

Each shape is a template we wrote after the real ones: an evaluation prompt that ends with the
question and the reference answer; a chat template whose `loop.last` branch only holds the
generation prompt; a chat template that renders an earlier assistant turn's reasoning until a
later final answer exists (gpt-oss), found through a flag set in a look-ahead loop.
"""

from __future__ import annotations

from promptcache.lint import lint_source

from ._helpers import STATIC, codes

# -- a per-request value followed only by other per-request values ------------------------------


def test_question_then_answer_at_the_end_is_fine() -> None:
    assert codes(STATIC + "Question: {{ question }}\nAnswer: {{ answer }}\n") == []
    assert codes(STATIC + "Q: {{ query }}\nReference: {{ reference_answer }}\n") == []


def test_an_answer_above_static_instructions_is_still_reported() -> None:
    assert codes("Model answer:\n{{ answer }}\n" + STATIC) == ["PC102"]
    assert codes("Question: {{ question }}\n" + STATIC) == ["PC102"]


# -- a loop.last branch that only decides the generation prompt -----------------------------------

_TURNS = (
    "{% for message in messages %}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n"
)


def test_loop_last_holding_only_the_generation_prompt_is_stable() -> None:
    source = (
        _TURNS + "{% if loop.last %}{% if add_generation_prompt %}<|im_start|>assistant\n"
        "{% endif %}{% endif %}{% endfor %}"
    )
    assert codes(source) == []


def test_loop_last_with_anything_else_still_moves() -> None:
    source = (
        _TURNS + "{% if loop.last %}{{ tools | tojson }}{% if add_generation_prompt %}"
        "<|im_start|>assistant\n{% endif %}{% endif %}{% endfor %}"
    )
    assert codes(source) == ["PC302"]


# -- reasoning dropped through a flag from a look-ahead loop (gpt-oss) -----------------------------

GPT_OSS_SHAPE = """\
{%- for message in messages -%}
{%- if message.role == 'assistant' and message.tool_calls -%}
{%- set later = namespace(final=false) -%}
{%- for future in messages[loop.index:] -%}
{%- if future.role == 'assistant' and not future.tool_calls -%}
{%- set later.final = true -%}
{%- endif -%}
{%- endfor -%}
{%- if message.thinking and not later.final -%}
{{- '<|start|>assistant<|channel|>analysis<|message|>' + message.thinking + '<|end|>' -}}
{%- endif -%}
{{- '<|start|>assistant<|channel|>commentary<|message|>' + message.tool_calls | tojson -}}
{%- else -%}
{{- '<|start|>' + message.role + '<|message|>' + message.content + '<|end|>' -}}
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}<|start|>assistant{%- endif -%}
"""


def test_reasoning_gated_by_a_look_ahead_flag_is_reported() -> None:
    found = lint_source(GPT_OSS_SHAPE)
    assert [(f.code, f.line) for f in found] == [("PC302", 9)]
    assert "later.final" in found[0].message


def test_a_look_ahead_flag_that_does_not_touch_reasoning_is_left_alone() -> None:
    source = GPT_OSS_SHAPE.replace("message.thinking and ", "").replace(
        "'<|start|>assistant<|channel|>analysis<|message|>' + message.thinking + '<|end|>'",
        "''",
    )
    assert codes(source) == []


# -- a date in the last lines of a context block ---------------------------------------------------


def test_a_date_among_the_last_short_fields_of_a_context_block_is_fine() -> None:
    block = "\n<runtime>\nDate: {{ date }}\nTimezone: {{ timezone }}\nLocale: {{ locale }}\n</runtime>\n"
    assert codes(STATIC + block) == []
    assert (
        codes(STATIC + "\nToday is {{ now() }}.\nModel: {{ model_name }} ({{ version }})\n") == []
    )


def test_content_of_unknown_size_after_the_date_is_still_reported() -> None:
    assert codes(
        STATIC + "\nDate: {{ date }}\nTimezone: {{ timezone }}\n{{ documents_list }}\n"
    ) == ["PC102"]
    assert codes("Current time: {{ now() }}\nYou are {{ persona }}.") == ["PC101"]


# -- reasoning split out of the content and rendered again for every turn -------------------------

# Qwen3's shape with the "last user query" gate taken out: the reasoning is split out of the
# content only to be written back between its markers, for every turn alike.
KEPT_REASONING = """\
{%- for message in messages %}
{%- set content = message.content %}
{%- if message.role == 'assistant' %}
{%- set reasoning = '' %}
{%- if message.reasoning_content is string %}
{%- set reasoning = message.reasoning_content %}
{%- elif '</think>' in content %}
{%- set reasoning = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1] %}
{%- set content = content.split('</think>')[-1].lstrip('\\n') %}
{%- endif %}
{{- '<|im_start|>assistant\\n<think>\\n' + reasoning.strip('\\n') + '\\n</think>\\n\\n' + content }}
{%- else %}
{{- '<|im_start|>' + message.role + '\\n' + content }}
{%- endif %}
{{- '<|im_end|>\\n' }}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}
"""


def test_reasoning_split_out_and_written_back_for_every_turn_is_fine() -> None:
    assert codes(KEPT_REASONING, chat=True) == []


def test_reasoning_written_back_only_when_present_is_fine() -> None:
    source = KEPT_REASONING.replace(
        "{{- '<|im_start|>assistant\\n<think>\\n' + reasoning.strip('\\n') + '\\n</think>\\n\\n' + content }}",
        "{{- '<|im_start|>assistant\\n' }}{%- if reasoning %}"
        "{{- '<think>\\n' + reasoning.strip('\\n') + '\\n</think>\\n\\n' }}{%- endif %}{{- content }}",
    )
    assert codes(source, chat=True) == []


def test_reasoning_split_out_and_never_written_back_is_reported() -> None:
    source = KEPT_REASONING.replace(
        "\\n<think>\\n' + reasoning.strip('\\n') + '\\n</think>\\n\\n' + content", "\\n' + content"
    )
    found = lint_source(source, chat=True)
    assert [(f.code, f.line) for f in found] == [("PC302", 9)]


def test_reasoning_written_back_only_after_the_last_query_is_reported() -> None:
    source = KEPT_REASONING.replace(
        "{{- '<|im_start|>assistant\\n<think>",
        "{%- if loop.index0 > ns.last_query_index %}{{- '<|im_start|>assistant\\n<think>",
    ).replace(
        "+ content }}\n{%- else %}",
        "+ content }}{%- else %}{{- '<|im_start|>assistant\\n' + content }}{%- endif %}\n{%- else %}",
    )
    found = lint_source("{%- set ns = namespace(last_query_index=0) %}" + source, chat=True)
    assert [(f.code, f.line) for f in found] == [("PC302", 9), ("PC302", 11)]


def test_an_empty_reasoning_block_for_turns_past_a_position_is_still_reported() -> None:
    source = KEPT_REASONING.replace(
        "{%- elif '</think>' in content %}", "{%- elif loop.last and '</think>' in content %}"
    )
    assert codes(source, chat=True) == ["PC302"]


# -- a chat template's date variable with a fixed date as its default -----------------------------

FIXED_DEFAULT_DATE = """\
{%- set date_string = date_string if date_string is defined else '26 Jul 2024' %}
{{- '<|system|>Cutting Knowledge Date: December 2023\\nToday Date: ' + date_string + '<|end|>' }}
{%- for message in messages %}{{- '<|' + message.role + '|>' + message.content + '<|end|>' }}{%- endfor %}
{%- if add_generation_prompt %}{{- '<|assistant|>' }}{%- endif %}
"""


def test_a_date_variable_defaulting_to_a_fixed_date_is_a_note_not_a_warning() -> None:
    found = lint_source(FIXED_DEFAULT_DATE, chat=True)
    assert [(f.code, f.line) for f in found] == [("PC002", 1)]
    assert "'26 Jul 2024'" in found[0].message and "date_string" in found[0].message


def test_the_default_filter_with_a_fixed_date_is_a_note_too() -> None:
    source = FIXED_DEFAULT_DATE.replace(
        "date_string if date_string is defined else '26 Jul 2024'",
        "date_string | default('26 Jul 2024')",
    )
    assert codes(source, chat=True) == ["PC002"]


def test_a_date_variable_defaulting_to_the_clock_or_to_nothing_is_still_reported() -> None:
    clock = FIXED_DEFAULT_DATE.replace("'26 Jul 2024'", "strftime_now('%d %b %Y')")
    assert codes(clock, chat=True) == ["PC301"]
    empty = FIXED_DEFAULT_DATE.replace("'26 Jul 2024'", "''")
    assert codes(empty, chat=True) == ["PC301"]
    bare = FIXED_DEFAULT_DATE.replace(
        "date_string if date_string is defined else '26 Jul 2024'", "date_string"
    )
    assert codes(bare, chat=True) == ["PC301"]


# -- a .prompty file's declared inputs are the call's values ----------------------------------------

PROMPTY = """\
---
name: Support chat
model:
    api: chat
inputs:
    customer_first_name:
        type: string
    chat_input:
        type: string
    chat_history:
        type: list
        is_chat_history: true
sample:
    chat_input: Where is my parcel?
---
system:
{SYSTEM}
{% for item in chat_history %}
{{ item.role }}:
{{ item.content }}
{% endfor %}

user:
{{ chat_input }}
"""


def test_a_prompty_history_then_the_declared_user_input_is_fine() -> None:
    source = PROMPTY.replace("{SYSTEM}", STATIC)
    assert codes(source, path="chat.prompty") == []


def test_a_declared_prompty_input_above_the_instructions_is_per_request() -> None:
    source = PROMPTY.replace("{SYSTEM}", "You are helping {{ customer_first_name }}.\n" + STATIC)
    found = lint_source(source, path="chat.prompty")
    assert [(f.code, f.line) for f in found] == [("PC102", 17)]
    assert "customer_first_name" in found[0].message


def test_inputs_are_read_only_from_a_prompty_front_matter() -> None:
    from promptcache.lint._prompty import declared_inputs

    assert declared_inputs(PROMPTY) == ("customer_first_name", "chat_input", "chat_history")
    windows = PROMPTY.replace("\n", "\r\n")
    assert declared_inputs(windows) == ("customer_first_name", "chat_input", "chat_history")
    assert declared_inputs("system:\ninputs:\n  question: 1\n") == ()
    assert declared_inputs("---\nname: x\n---\n{{ question }}") == ()


# -- a loop.last branch that ends the iteration once a flag set on its path is read ----------------

# A function-calling template: after an assistant turn's calls it opens the response section only
# when that turn is the last message; the end-of-turn marker after it is written only for turns
# that were not calls, which the flag set right after the branch decides.
CALL_THEN_LAST = """\
{%- set ns = namespace(kind=none) %}
{%- for message in messages %}
{%- if message.role != 'tool' %}
{%- if ns.kind != 'response' %}{{ '<turn>' + message.role + '\\n' }}{%- endif %}
{%- set ns.kind = none %}
{{- message.content | trim }}
{%- if message.tool_calls %}
{%- for call in message.tool_calls %}{{ '<call>' + call.function.name + '</call>' }}{%- endfor %}
{%- if loop.last %}{{ '<response>' }}{%- endif %}
{%- set ns.kind = 'call' %}
{%- endif %}
{%- else %}
{{- '<response>' + message.content + '</response>' }}
{%- set ns.kind = 'response' %}
{%- endif %}
{%- if ns.kind not in ['call', 'response'] %}{{ '<end_turn>\\n' }}{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{ '<turn>model\\n' }}{%- endif %}
"""


def test_a_last_turn_branch_followed_only_by_what_a_flag_rules_out_is_fine() -> None:
    assert codes(CALL_THEN_LAST, chat=True) == []


def test_a_last_turn_branch_followed_by_output_the_flag_does_not_decide_is_reported() -> None:
    source = CALL_THEN_LAST.replace(
        "{%- if ns.kind not in ['call', 'response'] %}", "{%- if message.role != 'tool' %}"
    )
    found = lint_source(source, chat=True)
    assert [(f.code, f.line) for f in found] == [("PC302", 9)]
    source = CALL_THEN_LAST.replace("{%- set ns.kind = 'call' %}", "{%- set ns.kind = 'done' %}")
    assert codes(source, chat=True) == ["PC302"]


# -- a position branch that a "keep the reasoning" flag, on by default, overrides -----------------

# Qwen3.6-style: earlier turns keep their reasoning unless the caller turns `preserve_thinking` off.
FLAG_ON_BY_DEFAULT = """\
{%- set keep = preserve_thinking if preserve_thinking is defined else true %}
{%- set ns = namespace(last_query_index=0) %}
{%- for message in messages %}
{%- set content = message.content %}
{%- set reasoning = '' %}
{%- if '</think>' in content %}
{%- set reasoning = content.split('</think>')[0].split('<think>')[-1] %}
{%- set content = content.split('</think>')[-1] %}
{%- endif %}
{%- if message.role == 'assistant' and (keep or loop.index0 > ns.last_query_index) and reasoning %}
{{- '<|im_start|>assistant\\n<think>\\n' + reasoning + '\\n</think>\\n\\n' + content }}
{%- else %}{{- '<|im_start|>' + message.role + '\\n' + content }}{%- endif %}
{{- '<|im_end|>\\n' }}
{%- endfor %}
"""


def test_a_position_branch_overridden_by_a_flag_on_by_default_is_a_note() -> None:
    found = lint_source(FLAG_ON_BY_DEFAULT, chat=True)
    assert [(f.code, f.line) for f in found] == [("PC002", 10)]
    assert "keep" in found[0].message
    inline = FLAG_ON_BY_DEFAULT.replace("(keep or", "(preserve_thinking | default(true) or")
    assert codes(inline, chat=True) == ["PC002"]


def test_a_flag_kept_unless_the_caller_passes_it_is_on_by_default() -> None:
    # `x is undefined or x is true`, `x is not defined or x`: on when the caller passes nothing
    for spelling in (
        "preserve_thinking is undefined or preserve_thinking is true",
        "preserve_thinking is not defined or preserve_thinking",
    ):
        source = FLAG_ON_BY_DEFAULT.replace("(keep or", f"({spelling} or")
        assert spelling in source
        found = lint_source(source, chat=True)
        assert [(f.code, f.line) for f in found] == [("PC002", 10)]
        assert "preserve_thinking" in found[0].message
    # passed true, not merely left out: off by default, so the position decides
    passed = "(preserve_thinking is defined and preserve_thinking is true or"
    assert "PC302" in codes(FLAG_ON_BY_DEFAULT.replace("(keep or", passed), chat=True)


# The same decision spelt as flags: a namespace switch on unless the caller or a message turns it
# off, and an `if`/`elif` chain whose sides set the same name (read as one test, their `or`).
FLAGS_IN_A_CHAIN = """\
{%- set sw = namespace(thinking=true) %}
{%- if enable_thinking is defined %}{%- set sw.thinking = enable_thinking %}{%- endif %}
{%- set ns = namespace(last_query_index=0) %}
{%- for message in messages %}
{%- set text = message.content %}
{%- if '/nothink' in text %}{%- set sw.thinking = false %}{%- endif %}
{%- set reasoning = '' %}
{%- if '</think>' in text %}
{%- set reasoning = text.split('</think>')[0].split('<think>')[-1] %}
{%- set text = text.split('</think>')[-1] %}
{%- endif %}
{%- set shown = false %}
{%- if loop.index0 > ns.last_query_index %}{%- set shown = true %}
{%- elif sw.thinking and (keep_reasoning is undefined or keep_reasoning) and reasoning|length > 0 %}
{%- set shown = true %}
{%- endif %}
{%- if shown %}{{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning + '\\n</think>\\n\\n' + text }}
{%- else %}{{- '<|im_start|>' + message.role + '\\n' + text }}{%- endif %}
{{- '<|im_end|>\\n' }}
{%- endfor %}
"""


def test_a_chain_whose_other_side_keeps_the_reasoning_by_default_is_a_note() -> None:
    found = lint_source(FLAGS_IN_A_CHAIN, chat=True)
    assert [f.code for f in found] == ["PC002"]
    assert "keep_reasoning" in found[0].message
    assert "every turn that has reasoning renders the same" in found[0].message


def test_the_chain_in_other_spellings_is_a_note_too() -> None:
    inline = FLAGS_IN_A_CHAIN.replace(
        "sw.thinking and (keep_reasoning is undefined or keep_reasoning) and reasoning|length > 0",
        "keep_reasoning | default(true) and reasoning | trim",
    )
    plain_names = (
        FLAGS_IN_A_CHAIN.replace("set sw = namespace(thinking=true)", "set thinking = true")
        .replace("set sw.thinking =", "set thinking =")
        .replace("sw.thinking and", "thinking and")
    )
    assert "sw" not in plain_names
    for source in (inline, plain_names):
        assert source != FLAGS_IN_A_CHAIN
        assert codes(source, chat=True) == ["PC002"]


def test_a_chain_whose_switch_starts_off_or_is_overridden_unguarded_is_reported() -> None:
    off = FLAGS_IN_A_CHAIN.replace("namespace(thinking=true)", "namespace(thinking=false)")
    assert off != FLAGS_IN_A_CHAIN
    assert "PC302" in codes(off, chat=True)
    unguarded = FLAGS_IN_A_CHAIN.replace(
        "{%- if enable_thinking is defined %}{%- set sw.thinking = enable_thinking %}{%- endif %}",
        "{%- set sw.thinking = thinking_mode %}",
    )
    assert unguarded != FLAGS_IN_A_CHAIN
    assert "PC302" in codes(unguarded, chat=True)


def test_a_chain_whose_sides_set_different_values_is_reported() -> None:
    differ = FLAGS_IN_A_CHAIN.replace(
        "reasoning|length > 0 %}\n{%- set shown = true %}",
        "reasoning|length > 0 %}\n{%- set shown = 1 %}",  # `1 == True` in Python, not in Jinja
    )
    assert differ != FLAGS_IN_A_CHAIN
    assert "PC302" in codes(differ, chat=True)


def test_a_chain_that_keeps_only_when_a_non_reasoning_value_holds_is_reported() -> None:
    # the other side needs the turn's tool calls, not its reasoning: earlier turns lose it
    other = FLAGS_IN_A_CHAIN.replace("reasoning|length > 0", "message.tool_calls")
    assert other != FLAGS_IN_A_CHAIN
    assert "PC302" in codes(other, chat=True)


def test_a_flag_off_by_default_leaves_the_position_branch_reported() -> None:
    off = FLAG_ON_BY_DEFAULT.replace("else true %}", "else false %}")
    assert "PC302" in codes(off, chat=True)
    undefined = FLAG_ON_BY_DEFAULT.replace("(keep or", "(preserve_thinking is true or")
    assert "PC302" in codes(undefined, chat=True)
    anded = FLAG_ON_BY_DEFAULT.replace("(keep or", "(keep and")
    assert "PC302" in codes(anded, chat=True)


def test_reasoning_split_on_a_delimiter_held_in_a_variable_is_written_back_too() -> None:
    source = KEPT_REASONING.replace(
        "{%- elif '</think>' in content %}",
        "{%- elif '</think>' in content %}{%- set end = '</think>' %}",
    ).replace(
        "content.split('</think>')[0].rstrip('\\n').split('<think>')[-1]",
        "content.split(end)[0].rstrip('\\n')",
    )
    assert "split(end)[0]" in source
    assert codes(source, chat=True) == []


def test_a_flag_turned_off_for_turns_that_carry_reasoning_is_not_a_switch() -> None:
    # `'</think>' in text` is the turn's own reasoning, not a marker the user types: the flag
    # is off for exactly the turns that have reasoning, so the position decides for them
    source = FLAGS_IN_A_CHAIN.replace("'/nothink' in text", "'</think>' in text")
    assert source != FLAGS_IN_A_CHAIN
    assert "PC302" in codes(source, chat=True)
