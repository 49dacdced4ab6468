"""
Template recall (issue #21): the shapes of the real busters the linter missed, as our own templates.

Each test reproduces a mechanism found in a missed file of the corpus's dev split: the history
walked by index (`for i in range(messages | length)`), the reasoning stripped by a macro that
splits on a channel marker (Gemma's `<|channel>...<channel|>`), a round or turn counter that opens
a per-round prompt; and a date written in a macro's body (gpt-oss's `build_system_message()`),
reported where the macro renders it and naming the line of the body, where the fix goes.
"""

from __future__ import annotations

import json
from pathlib import Path

from promptcache.lint import format_findings, lint_paths, lint_source

from ._helpers import STATIC, codes, config

# -- the history walked by index ------------------------------------------------------------------

INDEXED_HISTORY = """\
{%- for i in range(messages | length) %}
{%- set msg = messages[i] %}
<|{{ msg.role }}|>
{%- if msg.role == 'assistant' %}
{%- if loop.last %}<think>{{ msg.reasoning_content }}</think>{% endif %}
{{- msg.content }}
{%- else %}{{ msg.content }}{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|assistant|>{% endif %}
"""


def test_a_history_loop_over_the_message_indexes_is_the_history() -> None:
    assert codes(INDEXED_HISTORY, chat=True) == ["PC302"]


def test_a_loop_over_other_indexes_is_not_the_history() -> None:
    source = INDEXED_HISTORY.replace("range(messages | length)", "range(tools | length)")
    assert codes(source, chat=True) == []


def test_an_indexed_history_rendered_the_same_way_every_turn_is_quiet() -> None:
    source = (
        "{%- for i in range(messages | length) %}<|{{ messages[i].role }}|>"
        "{{ messages[i].content }}{%- endfor %}"
    )
    assert codes(source, chat=True) == []


# -- reasoning stripped by a macro, on a channel marker -------------------------------------------

CHANNEL_STRIP = """\
{%- macro strip_thinking(text) -%}
{%- set ns = namespace(result='') -%}
{%- for part in text.split('<channel|>') -%}
{%- if '<|channel>' in part -%}{%- set ns.result = ns.result + part.split('<|channel>')[0] -%}
{%- else -%}{%- set ns.result = ns.result + part -%}{%- endif -%}
{%- endfor -%}
{{- ns.result | trim -}}
{%- endmacro -%}
{%- for message in messages -%}
<start_of_turn>{{ message.role }}
{%- if message.role == 'model' -%}{{ strip_thinking(message.content) }}
{%- else -%}{{ message.content | trim }}{%- endif -%}<end_of_turn>
{%- endfor -%}
"""


def test_reasoning_stripped_in_a_macro_on_a_channel_marker_is_reported() -> None:
    assert codes(CHANNEL_STRIP, chat=True) == ["PC302"]


def test_a_split_on_other_text_in_the_history_is_quiet() -> None:
    source = CHANNEL_STRIP.replace("<channel|>", "\n\n").replace("<|channel>", "---")
    assert codes(source, chat=True) == []


def test_a_think_split_in_a_loop_header_is_reported() -> None:
    source = (
        "{%- for message in messages -%}{%- for part in message.content.split('</think>')[-1:] -%}"
        "{{ part }}{%- endfor -%}{%- endfor -%}"
    )
    assert codes(source, chat=True) == ["PC302"]


# -- a round or turn counter that opens a per-round prompt ----------------------------------------


def test_a_round_counter_above_static_instructions_is_per_request() -> None:
    assert codes("--- ROUND {{ round_num }} of {{ total_rounds }} ---\n" + STATIC) == ["PC102"]
    assert codes("Turn {{ turn_number }}\n" + STATIC) == ["PC102"]
    assert codes("Step {{ step }} of the plan.\n" + STATIC) == ["PC102"]
    assert codes("Iteration {{ iteration }}:\n" + STATIC) == ["PC102"]


def test_a_round_counter_at_the_end_is_fine() -> None:
    assert codes(STATIC + "This is round {{ round_num }}.\n") == []


def test_the_total_number_of_rounds_is_configuration() -> None:
    assert codes("This game lasts {{ total_rounds }} rounds.\n" + STATIC) == []
    assert codes("Take at most {{ max_steps }} steps.\n" + STATIC) == []


# -- a value written in a macro's body, rendered where the macro is called ------------------------

DATE_MACRO = """\
{%- macro build_system_message() -%}
Knowledge cutoff: 2024-06
Current date: {{ strftime_now("%Y-%m-%d") }}
{%- endmacro -%}
<|start|>system<|message|>{{- build_system_message() -}}<|end|>
{%- for message in messages -%}<|start|>{{ message.role }}<|message|>{{ message.content }}<|end|>
{%- endfor -%}
"""


def test_a_macro_finding_names_the_line_where_the_value_is_written() -> None:
    (finding,) = lint_source(DATE_MACRO, chat=True)
    assert (finding.code, finding.line, finding.written_at) == ("PC301", 5, 3)


def test_a_value_written_where_it_renders_has_no_other_line() -> None:
    (finding,) = lint_source("Today is {{ now() }}.\n" + STATIC)
    assert (finding.line, finding.written_at) == (1, None)


def test_json_and_sarif_carry_the_line_where_the_value_is_written() -> None:
    findings = lint_source(DATE_MACRO, chat=True)
    (record,) = json.loads(format_findings(findings, "json"))
    assert record["written_at"] == 3
    (result,) = json.loads(format_findings(findings, "sarif"))["runs"][0]["results"]
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"]["region"]["startLine"] == 3
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 5


# -- single braces in a file Jinja renders are literal text ----------------------------------------

TITLE_RULE = 'The title MUST be exactly: "Weekly report ({start_date} - {end_date})"\n' + STATIC


def test_a_placeholder_in_a_jinja_file_is_literal_text_and_noted() -> None:
    findings = lint_source(TITLE_RULE, path="prompts/system.j2")
    assert [(f.code, f.severity) for f in findings] == [("PC002", "info")]
    assert "`{start_date}`" in findings[0].message and "str.format" in findings[0].message


def test_a_placeholder_in_a_prompt_file_is_still_a_format_field() -> None:
    assert codes(TITLE_RULE, path="prompts/system.txt") == ["PC105"]
    assert codes(TITLE_RULE) == ["PC105"]


def test_a_jinja_variable_in_a_jinja_file_is_still_reported() -> None:
    source = "Week of {{ start_date }}: {start_date}\n" + STATIC
    assert [f.code for f in lint_source(source, path="user.jinja") if f.severity != "info"] == [
        "PC102"
    ]


# -- a variable of unknown meaning above a long static block --------------------------------------

LONG = "Stay in character: speak softly, tease a little, never lecture the user. " * 80  # ~1300


def test_an_unknown_variable_above_a_long_static_block_is_reported() -> None:
    source = "# Persona\n{% if system_resources %}\n{{ system_resources }}\n{% endif %}\n" + LONG
    (finding,) = lint_source(source)
    assert (finding.code, finding.line, finding.severity) == ("PC106", 3, "warning")
    assert "`system_resources`" in finding.message and "stable" in finding.message


def test_a_loop_over_an_unknown_mapping_above_a_long_static_block_is_reported() -> None:
    source = "## Variables\n{% for key, value in variables.items() %}- {{ key }}: {{ value }}\n"
    (finding,) = lint_source(source + "{% endfor %}\n" + LONG)
    assert (finding.code, finding.line) == ("PC106", 2)


def test_an_unknown_variable_above_a_short_block_is_content_of_unknown_size() -> None:
    assert codes("You are {{ persona }}.\n" + STATIC) == []


def test_an_unknown_variable_declared_stable_or_sized_is_quiet() -> None:
    source = "You are {{ persona }}.\n" + LONG
    assert codes(source, config=config(stable=("persona",))) == []
    assert codes(source, config=config(sizes=(("persona", 40),))) == []


def test_an_unknown_variable_below_the_tail_marker_or_in_a_chat_template_is_quiet() -> None:
    assert codes(LONG + "{# promptcache: tail #}\n{{ persona }}\n") == []
    chat = "{{ persona }}{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
    assert codes("{{ persona }}" + LONG + chat, chat=True) == []


def test_a_volatile_value_before_an_unknown_variable_still_sees_it_as_content() -> None:
    assert codes("Now: {{ now() }}\n{{ persona }}\n") == ["PC101"]


def test_an_unknown_variable_in_a_macro_is_judged_by_the_same_long_block() -> None:
    macro = "{% macro head() %}You are {{ persona }}.{% endmacro %}{{ head() }}\n"
    assert codes(macro + STATIC) == []
    assert codes(macro + LONG) == ["PC106"]


def test_an_unknown_variable_in_an_include_keeps_its_own_bar(tmp_path: Path) -> None:
    (tmp_path / "persona.j2").write_text("You are {{ persona }}.\n", encoding="utf-8")
    short = tmp_path / "short.j2"
    short.write_text('{% include "persona.j2" %}\n' + STATIC, encoding="utf-8")
    long = tmp_path / "long.j2"
    long.write_text('{% include "persona.j2" %}\n' + LONG, encoding="utf-8")
    found = {Path(f.path).name: f.code for f in lint_paths([short, long]) if f.severity != "info"}
    assert found == {"long.j2": "PC106"}


def test_jinja_own_names_are_not_unknown_variables() -> None:
    shown_names = ("super()", "self.header()", "range(3) | join(',')", "dict(a=1)", "_('Hello')")
    for shown in shown_names:
        assert codes("{{ " + shown + " }}\n" + LONG) == [], shown


def test_a_value_set_above_and_rendered_below_names_the_set_line() -> None:
    (finding,) = lint_source("{% set stamp = now() %}\nBuilt at {{ stamp }}.\n" + STATIC)
    assert (finding.code, finding.line, finding.written_at) == ("PC101", 2, 1)


# -- the person the request is for, under another domain's name for the user ----------------------


def test_a_player_or_customer_named_above_static_instructions_is_per_request() -> None:
    assert codes("You are coaching {{ player_name }}, a {{ level }} player.\n" + STATIC) == [
        "PC102"
    ]
    assert codes("Customer: {{ customer.name }}\n" + STATIC) == ["PC102"]
    assert codes("Student: {{ student_id }}\n" + STATIC) == ["PC102"]
    assert codes("For {{ customer_tier }} customers.\n" + STATIC) == []


def test_a_player_named_at_the_end_is_fine() -> None:
    assert codes(STATIC + "You are coaching {{ player_name }}.\n") == []


# -- the history under another name ------------------------------------------------------------------


def test_a_loop_over_a_copy_of_the_messages_is_the_history() -> None:
    source = (
        "{%- if messages[0].role == 'system' %}{%- set turns = messages[1:] %}"
        "{%- else %}{%- set turns = messages %}{%- endif %}"
        "{%- for message in turns %}<|{{ message.role }}|>"
        "{%- if loop.last %}{{ tools | tojson }}{% endif %}{{ message.content }}{%- endfor %}"
    )
    assert codes(source, chat=True) == ["PC302"]
    assert codes(source.replace("{%- set turns = messages %}", ""), chat=True) == ["PC302"]
    unrelated = source.replace("messages[1:]", "tools").replace("= messages %}", "= tools %}")
    assert codes(unrelated, chat=True) == []
