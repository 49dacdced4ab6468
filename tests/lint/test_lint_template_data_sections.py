"""
Sections of data: a value of unknown meaning that the prompt presents as the material it works
on (issue tplR, template recall on c4).

Shapes met in real prompt files, written here in our own words:

- a heading or a label line that names the data under it (`# Contract draft:`, `Ticket body
  (input):` in markdown emphasis, `参考资料如下：`, `## 可用数据库表结构`) over a value of a name
  that tells nothing (`left`, `body`, `item`), above a block of static instructions shorter than
  the 500 or 1000 tokens a name of unknown meaning needs;
- a value whose own name says it is such material (`feed_json`, `unmatched_text`, `text`), on
  its own line under prose or inside a sentence, above a block of rules and examples;
- reference material retrieved for the newest question, written above the conversation the
  prompt itself writes, and a short closing rule.

Their quiet twins: a heading or label naming a setting (`# Tone:`) or the output's format or an
example (`Output schema:`), or words as often a standing description or the answer's shape
(`## Context`, `## Schema`), a name that says it is a format or an example (`example_json`), a
labelled field or a sentence under a data heading, and a section of data followed only by labels
between other fields.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcache.lint import lint_paths

from ._helpers import STATIC, codes

_ROLE = "You are a careful contracts reviewer working for an in-house legal team.\n\n"
_REVIEW = "\n\n---\n\nHow to review:\n" + STATIC + "\n"  # about 300 tokens: under PC106's 500


@pytest.mark.parametrize(
    "heading",
    ["# Contract draft:", "## Source document", "Document under review:", "## 待审文档"],
)
def test_a_heading_or_label_that_names_the_data_over_a_value_is_a_section_of_data(
    heading: str,
) -> None:
    source = _ROLE + heading + "\n{{ left }}" + _REVIEW
    assert codes(source, path="prompts/review.j2") == ["PC106"]


@pytest.mark.parametrize(
    "heading",
    [
        "# Tone:",
        "## Reviewer persona",
        "Output schema:",
        "示例输入：",
        "## 内容要求",
        "## Schema",
        "## Context",
    ],
)
def test_a_heading_or_label_that_names_a_setting_or_the_format_stays_quiet(heading: str) -> None:
    # `## Schema` is as often the answer's JSON shape, `## Context` a team's standing description
    source = _ROLE + heading + "\n{{ left }}" + _REVIEW
    assert codes(source, path="prompts/review.j2") == []


def test_a_name_that_says_it_is_an_example_under_a_data_heading_stays_quiet() -> None:
    source = _ROLE + "## Source document\n{{ example_text }}" + _REVIEW
    assert codes(source, path="prompts/review.j2") == []


def test_a_label_in_markdown_emphasis_that_names_the_input_is_a_section_of_data() -> None:
    source = (
        _ROLE
        + "### Material for the review\nRead it, never quote it back.\n\n"
        + "- **Ticket body** *(input)*:  \n{{ body }}\n\n"
        + "- **Earlier replies** *(input, already handled)*:  \n{{ replies }}"
        + _REVIEW
    )
    assert codes(source, path="prompts/review.j2") == ["PC106", "PC106"]


def test_a_label_in_markdown_emphasis_that_names_a_setting_stays_quiet() -> None:
    source = _ROLE + "- **Reply style** *(house rules)*:  \n{{ body }}" + _REVIEW
    assert codes(source, path="prompts/review.j2") == []


def test_a_schema_heading_in_chinese_over_a_value_above_planning_rules() -> None:
    source = (
        "你是数据分析规划助手。\n\n## 可用数据库表结构\n{{ tables_brief }}\n\n## 规划原则\n"
        + STATIC
        + "\n\n## 用户问题\n{{ user_query }}\n"
    )
    assert codes(source, path="prompts/planner.j2") == ["PC106"]


@pytest.mark.parametrize("name", ["feed_json", "unmatched_text", "doc_content", "sample_rows"])
def test_a_value_named_as_the_data_on_its_own_line_under_prose_is_a_section_of_data(
    name: str,
) -> None:
    source = "Rate the mood of each entry given below.\n{{ " + name + " }}\n\n" + STATIC
    assert codes(source, path="prompts/moods.j2") == ["PC106"]


@pytest.mark.parametrize(
    "name", ["example_json", "output_format_text", "feed_style", "disclaimer_text"]
)
def test_a_value_named_as_a_format_an_example_or_a_setting_stays_quiet(name: str) -> None:
    source = "Rate the mood of each entry given below.\n{{ " + name + " }}\n\n" + STATIC
    assert codes(source, path="prompts/moods.j2") == []


@pytest.mark.parametrize("name", ["offer.summary", "menu.text", "store.content"])
def test_an_attribute_named_as_the_data_of_an_object_that_is_not_stays_quiet(name: str) -> None:
    # the object says what it is (the offer a deployment sells); its attribute only says the form
    source = "Rate the mood of each entry given below.\n{{ " + name + " }}\n\n" + STATIC
    assert codes(source, path="prompts/moods.j2") == []


@pytest.mark.parametrize("name", ["document.text", "transcript.content", "draft.body"])
def test_an_attribute_of_an_object_named_as_the_data_is_a_section_of_data(name: str) -> None:
    source = "Rate the mood of each entry given below.\n{{ " + name + " }}\n\n" + STATIC
    assert codes(source, path="prompts/moods.j2") == ["PC106"]


def test_a_value_named_as_the_data_inside_a_sentence_above_rules_is_a_section_of_data() -> None:
    source = "List the clause ids you find in {{ text }} using the rules below.\n\n" + STATIC
    assert codes(source, path="prompts/clauses.j2") == ["PC106"]


def test_a_name_of_data_under_a_heading_that_names_the_format_stays_quiet() -> None:
    source = "## Output format\n{{ reply_json }}\n\n" + STATIC
    assert codes(source, path="prompts/clauses.j2") == []


_RETRIEVED = (
    "system:\nAnswer the visitor from the material below only.\n\n"
    "参考资料如下：\n{{ item }}\n\nCite the page you used at the end.\n\n"
)
_HISTORY = (
    "{% for turn in chat_history %}user:\n{{ turn.q }}\nassistant:\n{{ turn.a }}\n{% endfor %}"
)


def test_reference_material_above_the_conversation_the_prompt_writes_is_per_request() -> None:
    source = _RETRIEVED + _HISTORY + "\nuser:\n{{ question }}\n"
    assert codes(source, path="flow/chat.jinja2") == ["PC106"]


def test_reference_material_followed_only_by_the_question_stays_quiet() -> None:
    source = _RETRIEVED + "user:\n{{ question }}\n"
    assert codes(source, path="flow/chat.jinja2") == []


def test_a_section_of_data_followed_only_by_labels_between_fields_stays_quiet() -> None:
    source = (
        "## Document\n{{ left }}\n\n## Notes\n{{ notes }}\n\n## Error\n{{ error }}\n\n"
        "Fix it and answer with the corrected text only.\n"
    )
    assert codes(source * 1, path="prompts/fix.j2") == []


def test_a_labelled_field_or_a_sentence_under_a_data_heading_is_judged_by_its_own_line() -> None:
    field = _ROLE + "## Source document\nAuthor: {{ author }}" + _REVIEW
    assert codes(field, path="prompts/review.j2") == []
    sentence = _ROLE + "## Source document\nWritten for {{ audience }} readers." + _REVIEW
    assert codes(sentence, path="prompts/review.j2") == []


def test_a_section_of_data_in_an_included_file_keeps_its_bar(tmp_path: Path) -> None:
    (tmp_path / "material.j2").write_text("## Source document\n{{ left }}\n", encoding="utf-8")
    prompt = tmp_path / "review.j2"
    prompt.write_text(_ROLE + '{% include "material.j2" %}' + _REVIEW, encoding="utf-8")
    found = [f for f in lint_paths([prompt]) if f.severity != "info"]
    assert [(f.code, f.line) for f in found] == [("PC106", 3)]


def test_a_format_field_under_a_label_that_names_the_data_is_a_section_of_data() -> None:
    half = STATIC[: len(STATIC) // 2]  # about 150 tokens: under PC106's 300 of a `{field}`
    source = "Document to review:\n{left}\n\nHow to review:\n" + half
    assert codes(source, path="prompts/review.txt") == ["PC106"]
    assert codes(source.replace("Document to review", "Tone"), path="prompts/review.txt") == []
