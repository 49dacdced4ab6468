"""
The request's data that template prompts carry under names and labels the linter did not know
(issue #21, template recall on the opened splits c3 and fresh).

Shapes met in real prompt files, written here in our own words:

- memory recalled for each turn, under a qualified name (`memory_context`, `long_term_memory`),
  at the end of a system prompt that the whole conversation follows;
- the rolling conversation under a qualified name (`conversation_history`, `dialogue_history`)
  written inside a prompt above static rules;
"""

from __future__ import annotations

import pytest

from ._helpers import STATIC, codes

_PERSONA = "You are a cheerful study buddy who keeps answers short and kind.\n\n"


@pytest.mark.parametrize("name", ["memory_context", "long_term_memory", "relevant_memories"])
def test_memory_under_a_qualified_name_ends_a_system_prompt_before_the_history(name: str) -> None:
    source = _PERSONA + "{{ " + name + " }}\n"
    assert codes(source, path="prompts/system.j2") == ["PC102"]


def test_a_value_of_unknown_meaning_at_the_end_of_a_system_prompt_stays_quiet() -> None:
    assert codes(_PERSONA + "{{ house_style }}\n", path="prompts/system.j2") == []


@pytest.mark.parametrize("name", ["conversation_history", "dialogue_history", "message_history"])
def test_the_conversation_under_a_qualified_name_above_static_rules_is_per_request(
    name: str,
) -> None:
    source = "Summarise what was said so far:\n{{ " + name + " }}\n\n" + STATIC
    assert codes(source, path="prompts/tour_guide.j2") == ["PC102"]


def test_the_conversation_followed_only_by_the_question_stays_quiet() -> None:
    source = STATIC + "\nEarlier turns:\n{{ conversation_history }}\nNow: {{ question }}\n"
    assert codes(source, path="prompts/tour_guide.j2") == []
