"""
The request's data that template prompts carry under names and labels the linter did not know
(issue #21, template recall on the opened splits c3 and fresh).

Shapes met in real prompt files, written here in our own words:

- memory recalled for each turn, under a qualified name (`memory_context`, `long_term_memory`),
  at the end of a system prompt that the whole conversation follows;
- the rolling conversation under a qualified name (`conversation_history`, `dialogue_history`)
  written inside a prompt above static rules;
- values of names that tell nothing (`topic`, `age_group`, `passage`) that the prompt's own
  words label as the user's or today's: a markdown heading over a profile of fields
  (`## About the user`), a label on the line above (`The user's request:`), or on the same line
  (`Today's reading: {{ passage }}`), in English, Chinese or Korean, above a block of static
  instructions and output format too short for a name of unknown meaning (PC106);
- names kept in the caller's camelCase (`userQuery`, `imageCount`) by a template rendered from
  JavaScript or filled from JSON.
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


# -- values the prompt's words label as the user's or today's ------------------------------------

_RULES = "\n## Rules\n" + STATIC + "\n"  # about 300 tokens: under PC106's 500 of a system prompt

_PROFILE_UNDER_A_HEADING = (
    "You are a friendly adviser who recommends a phone plan.\n\n"
    "## About the user\n\n- Age group: {{ age_group }}\n"
    "{% if has_pets %}\n- Lives with pets\n{% endif %}\n- Budget: {{ budget }}\n" + _RULES
)


def test_a_profile_under_a_heading_that_names_the_user_is_the_users_data() -> None:
    assert codes(_PROFILE_UNDER_A_HEADING, path="prompts/system.j2") == ["PC102", "PC102"]


def test_a_profile_under_a_korean_heading_that_names_the_user_is_the_users_data() -> None:
    source = _PROFILE_UNDER_A_HEADING.replace("## About the user", "## 사용자 프로필")
    assert codes(source, path="prompts/system.j2") == ["PC102", "PC102"]


def test_the_same_fields_under_a_heading_that_names_no_one_stay_quiet() -> None:
    source = _PROFILE_UNDER_A_HEADING.replace("## About the user", "## Plan settings")
    assert codes(source, path="prompts/system.j2") == []


def test_a_later_heading_closes_the_users_section() -> None:
    source = _PROFILE_UNDER_A_HEADING.replace("- Budget: {{ budget }}", "## Style\n{{ tone }}")
    assert codes(source, path="prompts/system.j2") == ["PC102"]


def test_prose_under_a_heading_that_names_the_user_ends_its_data() -> None:
    source = _PROFILE_UNDER_A_HEADING.replace(
        "- Budget: {{ budget }}", "Keep answers short for them.\n{{ house_style }}"
    )
    assert codes(source, path="prompts/system.j2") == ["PC102"]


@pytest.mark.parametrize(
    "label",
    ["The user's request:", "用户的要求以及说明：", "사용자 요청:", "Request from the user:"],
)
def test_a_value_under_a_label_line_that_names_the_user_is_the_users_data(label: str) -> None:
    source = f"{label}\n{{{{ topic }}}}\n\nRequirements:\n" + STATIC * 2
    assert codes(source, path="prompts/outline.j2") == ["PC102"]


def test_a_format_field_under_a_label_line_that_names_the_user_is_the_users_data() -> None:
    half = STATIC[: len(STATIC) // 2]  # about 150 tokens: under PC106's 300 of a `{field}`
    source = "The user's request:\n{topic}\n\nRequirements:\n" + half
    assert codes(source, path="prompts/outline.txt") == ["PC102"]
    assert codes(source.replace("The user's request", "Topic"), path="prompts/outline.txt") == []


def test_a_blank_line_or_another_label_ends_what_a_label_line_covers() -> None:
    source = "The user's request:\n{{ topic }}\n\n{{ house_style }}\nFormat:\n{{ layout }}\n"
    assert codes(source + STATIC * 2, path="prompts/outline.j2") == ["PC102"]


@pytest.mark.parametrize("label", ["Today's reading:", "今天的经文：", "오늘의 말씀:"])
def test_a_value_after_a_label_that_names_today_on_its_line_is_todays_data(label: str) -> None:
    source = f"{label} {{{{ passage }}}}\nFormat: {{{{ layout }}}}\n\n" + STATIC
    assert codes(source, path="prompts/daily_post.j2") == ["PC102"]


def test_a_value_after_a_label_that_names_no_one_stays_quiet() -> None:
    source = "Reading: {{ passage }}\nFormat: {{ layout }}\n\n" + STATIC
    assert codes(source, path="prompts/daily_post.j2") == []


def test_the_user_named_in_a_sentence_is_not_a_label() -> None:
    source = "Help the user write about {{ topic }} in a warm voice.\n\n" + STATIC
    assert codes(source, path="prompts/outline.j2") == []


def test_the_users_data_followed_only_by_other_values_stays_quiet() -> None:
    source = STATIC + "\nThe user's request:\n{{ topic }}\nTheir notes: {{ notes }}\n"
    assert codes(source, path="prompts/outline.j2") == []


# -- names written in camelCase ------------------------------------------------------------------
# Templates rendered from JavaScript (Nunjucks) or filled from JSON keep the caller's camelCase.


@pytest.mark.parametrize("name", ["userQuery", "chatHistory", "retrievedChunks", "sessionId"])
def test_a_per_request_name_written_in_camel_case_is_per_request(name: str) -> None:
    assert codes("<task>\n{{ " + name + " }}\n</task>\n" + STATIC) == ["PC102"]


def test_a_camel_case_date_in_a_system_prompt_is_a_date_not_a_clock() -> None:
    source = _PERSONA + "Today: {{ currentDate }}\n"
    assert codes(source, path="prompts/system.j2") == []
    assert codes(source.replace("currentDate", "currentTime"), path="prompts/system.j2") == [
        "PC102"
    ]


def test_a_camel_case_count_is_a_setting_not_a_value_of_unknown_meaning() -> None:
    source = "Write it in this many pages:\n{maxPages}\n\n" + STATIC * 4
    assert codes(source, path="prompts/outline.txt") == []
    assert codes(source.replace("maxPages", "pageNotes"), path="prompts/outline.txt") == ["PC106"]


# -- a value the template formats as a date or a time --------------------------------------------


@pytest.mark.parametrize(
    "expr", ["stamp.strftime('%Y-%m-%d %H:%M')", "event.at.strftime('%H:%M')", "when.isoformat()"]
)
def test_a_value_formatted_as_a_date_or_time_above_static_text_is_per_request(expr: str) -> None:
    assert codes("Updated: {{ " + expr + " }}\n\n" + STATIC, path="prompts/report.j2") == ["PC102"]


def test_a_date_formatted_at_the_end_of_a_system_prompt_changes_once_a_day() -> None:
    source = _PERSONA + "Today: {{ day.strftime('%B %d, %Y') }}\n"
    assert codes(source, path="prompts/system.j2") == []
    clock = source.replace("%B %d, %Y", "%H:%M")
    assert codes(clock, path="prompts/system.j2") == ["PC102"]


def test_a_loop_item_formatted_as_a_time_is_judged_by_the_loop() -> None:
    source = "{% for e in agenda %}- {{ e.at.strftime('%H:%M') }}\n{% endfor %}\n" + STATIC
    assert codes(source, path="prompts/report.j2") == []


@pytest.mark.parametrize(
    "source",
    [
        "<user_request>\n{{ topic }}\n</user_request>\n\n",
        "<userProfile>{{ profile }}</userProfile>\n\n",
        "<today-reading>\n{{ passage }}\n</today-reading>\n\n",
    ],
)
def test_a_value_inside_a_tag_that_names_the_user_or_today_is_their_data(source: str) -> None:
    assert codes(source + STATIC * 2, path="prompts/outline.j2") == ["PC102"]


def test_a_tag_that_names_no_one_and_what_follows_a_closed_tag_stay_quiet() -> None:
    source = "<document>\n{{ topic }}\n</document>\n\n" + STATIC * 2
    assert codes(source, path="prompts/outline.j2") == []
    closed = "<user_request>ask</user_request>\n{{ house_style }}\n\n" + STATIC * 2
    assert codes(closed, path="prompts/outline.j2") == []


# -- a count written inside the instructions --------------------------------------------------

_RULE = "Keep the reply warm and plain, and answer the exact question that was asked. " * 4
_REPLY_RULES = "{{ question }}\n\nReply rules:\n" + _RULE + "Use at most VALUE words. " + _RULE


def test_a_count_inside_a_block_of_instructions_does_not_break_it() -> None:
    # a limit is a number of a few tokens: the rules after the question are one block
    source = _REPLY_RULES.replace("VALUE", "{{ max_words }}")
    assert codes(source, path="prompts/user.j2") == ["PC102"]


def test_a_value_of_unknown_size_inside_the_instructions_still_breaks_the_block() -> None:
    source = _REPLY_RULES.replace("VALUE", "{{ house_style }}")
    assert codes(source, path="prompts/user.j2") == []
