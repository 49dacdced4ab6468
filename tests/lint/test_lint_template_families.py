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
