"""
Chat templates that write the system message, the tools or a fixed instruction into the newest
turn only (issue #21), each shape reproduced in a template we wrote.

- Mistral v0.x/Mixtral/Pixtral-style templates join the system message to the last user turn
  (`loop.last and system_message is defined`) and write `[AVAILABLE_TOOLS]` before the newest
  user message only (`message == user_messages[-1]`); a Jamba-style template writes a second
  system message with the documents before the message at the last user index. Each request
  moves that content on to the new last turn: the turn that carried it renders without it, the
  engine's cache ends before that turn, and the system text or tools list is never reused.
  The finding names what moves and says where it belongs.
- Look-alikes that are stable: the system message in the first user turn only (`loop.first`),
  the tools in the system turn before the loop, `loop.last` deciding the generation prompt or a
  separator only.
"""

from __future__ import annotations

from promptcache.lint import lint_source

from ._helpers import codes

# -- what moves ---------------------------------------------------------------------------------

SPLIT_SYSTEM = """\
{%- if messages[0].role == 'system' -%}
{%- set system_message = messages[0].content -%}
{%- set turns = messages[1:] -%}
{%- else -%}
{%- set turns = messages -%}
{%- endif -%}
{{- bos_token -}}
{%- for message in turns -%}
{%- if message.role == 'user' -%}
{%- if loop.last and system_message is defined -%}
{{- '[INST] ' + system_message + '\\n\\n' + message.content + ' [/INST]' -}}
{%- else -%}
{{- '[INST] ' + message.content + ' [/INST]' -}}
{%- endif -%}
{%- else -%}
{{- ' ' + message.content + eos_token -}}
{%- endif -%}
{%- endfor -%}
"""


def test_the_system_message_joined_to_the_last_user_turn_is_named_with_its_fix() -> None:
    (found,) = lint_source(SPLIT_SYSTEM, chat=True)
    assert (found.code, found.line) == ("PC302", 10)
    assert "the system message (`system_message`) written only into the newest turn" in (
        found.message
    )
    assert "(`loop.last`)" in found.message
    assert "once before the loop over the messages" in found.message
    assert "`loop.first`" in found.message


def test_the_same_template_pinning_the_system_message_to_the_first_turn_is_quiet() -> None:
    pinned = SPLIT_SYSTEM.replace("loop.last and system_message", "loop.first and system_message")
    assert codes(pinned, chat=True) == []


def test_the_system_message_read_in_place_from_the_first_message_is_named() -> None:
    in_place = SPLIT_SYSTEM.replace("'[INST] ' + system_message", "'[INST] ' + messages[0].content")
    (found,) = lint_source(in_place, chat=True)
    assert found.code == "PC302"
    assert found.message.startswith("the system message written only into the newest turn")


TOOLS_BEFORE_NEWEST = """\
{%- set user_messages = messages | selectattr('role', 'equalto', 'user') | list -%}
{%- for message in messages -%}
{%- if message.role == 'user' -%}
{%- if tools and message == user_messages[-1] -%}
{{- '[AVAILABLE_TOOLS]' + tools | tojson + '[/AVAILABLE_TOOLS]' -}}
{%- endif -%}
{{- '[INST]' + message.content + '[/INST]' -}}
{%- else -%}
{{- message.content + eos_token -}}
{%- endif -%}
{%- endfor -%}
"""


def test_tools_written_before_the_newest_user_message_only_are_named() -> None:
    (found,) = lint_source(TOOLS_BEFORE_NEWEST, chat=True)
    assert (found.code, found.line) == ("PC302", 4)
    assert (
        "the tools (`tools`) written only into the newest turn (`user_messages[-1]`)"
        in found.message
    )
    assert "they are never read from the cache" in found.message


def test_tools_known_only_by_their_marker_are_named() -> None:
    by_mark = TOOLS_BEFORE_NEWEST.replace("tools and message", "message").replace(
        "tools | tojson", "spec_json"
    )
    (found,) = lint_source(by_mark, chat=True)
    assert found.message.startswith("the tools written only into the newest turn")


def test_tools_and_system_moved_by_two_branches_are_two_findings() -> None:
    both = TOOLS_BEFORE_NEWEST.replace(
        "{{- '[INST]' + message.content + '[/INST]' -}}",
        "{%- if loop.last and system_prompt -%}\n"
        "{{- '[INST]' + system_prompt + '\\n\\n' + message.content + '[/INST]' -}}\n"
        "{%- else -%}\n"
        "{{- '[INST]' + message.content + '[/INST]' -}}\n"
        "{%- endif -%}",
    )
    found = lint_source(both, chat=True)
    assert [(f.code, f.line) for f in found] == [("PC302", 4), ("PC302", 7)]
    assert "the tools (`tools`)" in found[0].message
    assert "the system message (`system_prompt`)" in found[1].message


def test_tools_in_the_system_turn_before_the_loop_are_quiet() -> None:
    in_system = (
        "{%- if tools -%}[AVAILABLE_TOOLS]{{ tools | tojson }}[/AVAILABLE_TOOLS]{%- endif -%}"
        + TOOLS_BEFORE_NEWEST.replace(
            "{%- if tools and message == user_messages[-1] -%}\n"
            "{{- '[AVAILABLE_TOOLS]' + tools | tojson + '[/AVAILABLE_TOOLS]' -}}\n"
            "{%- endif -%}\n",
            "",
        )
    )
    assert codes(in_system, chat=True) == []


DOCUMENTS_AT_LAST_USER = """\
{%- set ns = namespace(last_user=0) -%}
{%- for message in messages -%}
{%- if message.role == 'user' -%}{%- set ns.last_user = loop.index0 -%}{%- endif -%}
{%- endfor -%}
{%- for message in messages -%}
{%- if loop.index0 == ns.last_user -%}
{%- set use_documents = documents is defined and documents -%}
{%- if use_documents -%}
<|system|>{%- for doc in documents -%}{{ doc.title }}: {{ doc.text }}
{% endfor -%}<|end|>
{%- endif -%}
{%- endif -%}
<|{{ message.role }}|>{{ message.content }}<|end|>
{%- endfor -%}
"""


def test_documents_written_before_the_last_user_message_are_named_not_their_flag() -> None:
    (found,) = lint_source(DOCUMENTS_AT_LAST_USER, chat=True)
    assert (found.code, found.line) == ("PC302", 6)
    assert "the documents (`documents`) written only into the newest turn" in found.message
    assert "use_documents" not in found.message


INSTRUCTION_AFTER_LAST = """\
{%- for message in messages -%}
{%- if message.role == 'user' -%}
<|user|>{{ message.content }}
{%- if loop.last %}

Reply in the voice and format the operator configured, in at most three short paragraphs.
{%- endif -%}
<|end|>
{%- else -%}
<|assistant|>{{ message.content }}<|end|>
{%- endif -%}
{%- endfor -%}
<|assistant|>
"""


def test_a_fixed_instruction_appended_to_the_final_user_message_is_named() -> None:
    (found,) = lint_source(INSTRUCTION_AFTER_LAST, chat=True)
    assert (found.code, found.line) == ("PC302", 4)
    assert found.message.startswith("a fixed instruction of ~")
    assert "or the same way into every user turn" in found.message
    assert "operator" not in found.message  # the template's own words are not quoted


# -- look-alikes: `loop.last` deciding what does not move ----------------------------------------


def test_loop_last_deciding_only_the_generation_prompt_is_quiet() -> None:
    source = (
        "{%- for message in messages -%}<|{{ message.role }}|>{{ message.content }}<|end|>"
        "{%- if loop.last and add_generation_prompt -%}<|assistant|>{%- endif -%}"
        "{%- endfor -%}"
    )
    assert codes(source, chat=True) == []


def test_a_separator_between_turns_is_quiet() -> None:
    source = (
        "{%- for message in messages -%}### {{ message.role }}:\n{{ message.content }}"
        "{%- if not loop.last %}\n\n{% endif -%}{%- endfor -%}"
    )
    assert codes(source, chat=True) == []


def test_a_flag_about_the_tools_is_not_the_tools() -> None:
    source = (
        "{%- for message in messages -%}<|{{ message.role }}|>{{ message.content }}"
        "{%- if loop.last and tools_in_user_message -%}{{ reminder }}{%- endif -%}<|end|>"
        "{%- endfor -%}"
    )
    (found,) = lint_source(source, chat=True)
    assert found.code == "PC302"
    assert "the tools" not in found.message
    assert "a branch on the message's position in the history (`loop.last`)" in found.message


def test_the_user_messages_under_a_name_without_message_in_it_are_the_history() -> None:
    # `{% set asked = messages | selectattr(...) %}`: its last item is the newest user message
    # whatever the name, so the tools written before it move every turn too.
    renamed = TOOLS_BEFORE_NEWEST.replace("user_messages", "asked")
    (found,) = lint_source(renamed, chat=True)
    assert (found.code, found.line) == ("PC302", 4)
    assert "the tools (`tools`) written only into the newest turn (`asked[-1]`)" in found.message


def test_a_list_not_set_from_the_messages_is_not_the_history() -> None:
    source = TOOLS_BEFORE_NEWEST.replace(
        "{%- set user_messages = messages | selectattr('role', 'equalto', 'user') | list -%}",
        "{%- set asked = examples | list -%}",
    ).replace("user_messages[-1]", "asked[-1]")
    assert codes(source, chat=True) == []


def test_tools_in_the_first_user_message_written_before_the_loop_are_quiet() -> None:
    # Llama-4-style `tools_in_user_message`: the first user message, with the tools, is written
    # once before the loop over the rest; it renders the same on every request.
    source = (
        "{%- set first = messages[0].content -%}{%- set rest = messages[1:] -%}"
        "<|user|>Call one of these functions when it helps answer the request below.\n"
        "{%- for tool in tools %}\n{{ tool | tojson }}{% endfor %}\n{{ first }}<|end|>"
        "{%- for message in rest -%}<|{{ message.role }}|>{{ message.content }}<|end|>"
        "{%- endfor -%}{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}"
    )
    assert codes(source, chat=True) == []


def test_an_instruction_after_the_conversation_moves_no_earlier_turn() -> None:
    # A Command-R-style closing system turn, outside `add_generation_prompt`: re-read on every
    # request with the previous answer, but the conversation before it is reused.
    source = (
        "<|sys|>{{ preamble }}<|end|>"
        "{%- for message in messages -%}<|{{ message.role }}|>{{ message.content }}<|end|>"
        "{%- endfor -%}"
        "<|sys|>Answer with a list of the actions you take, one JSON object per line.<|end|>"
        "{%- if add_generation_prompt -%}<|bot|>{%- endif -%}"
    )
    assert codes(source, chat=True) == []


def test_tools_written_before_the_first_user_message_by_a_flag_are_quiet() -> None:
    # Written the first time a user message comes, then a namespace flag holds them back: the
    # tools stay before the first user turn on every request (a Mistral Medium-style template).
    source = (
        "{%- set ns = namespace(tools_done=false) -%}"
        "{%- for message in messages -%}"
        "{%- if message.role == 'user' -%}"
        "{%- if not ns.tools_done -%}{{- '[AVAILABLE_TOOLS]' + tools | tojson + '[/AVAILABLE_TOOLS]' -}}"
        "{%- set ns.tools_done = true -%}{%- endif -%}"
        "{{- '[INST]' + message.content + '[/INST]' -}}"
        "{%- else -%}{{- message.content + '</s>' -}}{%- endif -%}"
        "{%- endfor -%}"
    )
    assert codes(source, chat=True) == []


# -- the branch written as an expression, or as `set`s ----------------------------------------

_USER_TURN = "{{- '[INST] ' + message.content + '[/INST]' -}}"


def _split_system_with(user_turn: str) -> str:
    """SPLIT_SYSTEM with its user turn (the `loop.last` branch) written as `user_turn`."""
    start = SPLIT_SYSTEM.index("{%- if loop.last")
    end = SPLIT_SYSTEM.index("{%- else -%}\n{{- ' '")
    return SPLIT_SYSTEM[:start] + user_turn + "\n" + SPLIT_SYSTEM[end:]


def test_the_system_message_chosen_by_a_conditional_expression_is_named() -> None:
    inline = _split_system_with(
        "{{- '[INST] ' + (system_message + '\\n\\n' if loop.last and system_message is defined"
        " else '') + message.content + '[/INST]' -}}"
    )
    (found,) = lint_source(inline, chat=True)
    assert (found.code, found.line) == ("PC302", 10)
    assert "the system message (`system_message`) written only into the newest turn" in (
        found.message
    )


def test_the_system_message_set_by_a_conditional_expression_is_named() -> None:
    set_inline = _split_system_with(
        "{%- set text = system_message + '\\n\\n' + message.content if loop.last"
        " else message.content -%}\n" + _USER_TURN.replace("message.content", "text")
    )
    (found,) = lint_source(set_inline, chat=True)
    assert found.code == "PC302"
    assert "the system message (`system_message`)" in found.message


def test_the_system_message_set_in_a_branch_on_the_position_is_named() -> None:
    set_in_branch = _split_system_with(
        "{%- if loop.last and system_message is defined -%}\n"
        "{%- set text = system_message + '\\n\\n' + message.content -%}\n"
        "{%- else -%}{%- set text = message.content -%}{%- endif -%}\n"
        + _USER_TURN.replace("message.content", "text")
    )
    (found,) = lint_source(set_in_branch, chat=True)
    assert found.code == "PC302"
    assert "the system message (`system_message`)" in found.message


def test_a_separator_chosen_by_a_conditional_expression_is_quiet() -> None:
    source = (
        "{%- for message in messages -%}{{ message.content + ('\\n\\n' if not loop.last else '') }}"
        "{%- endfor -%}"
    )
    assert codes(source, chat=True) == []


def test_the_system_message_chosen_for_the_first_turn_by_an_expression_is_quiet() -> None:
    first = _split_system_with(
        "{{- '[INST] ' + (system_message + '\\n\\n' if loop.first and system_message is defined"
        " else '') + message.content + '[/INST]' -}}"
    )
    assert codes(first, chat=True) == []
