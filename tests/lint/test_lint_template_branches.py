"""
Exclusive branches (issue #21, template precision): one request renders one branch of an
`{% if %} ... {% else %}`, so the static text of the other branches never follows a value
written in this one.

A real shape (an agent's system prompt, read with the code that renders it): the context block
shows the query results when there are some, and a long "no data loaded" explanation otherwise,
then a one-line footer. The results sit at the end of what is rendered; the linter counted the
other branch's explanation as static text after them and reported them.
"""

from __future__ import annotations

from ._helpers import STATIC, codes

# The value is in the first branch; the long text only in the branch it excludes.
ONLY_THE_OTHER_BRANCH = (
    "{% if memory.data %}\nData summary:\n{{ memory.data }}\n{% else %}\n"
    + STATIC
    + "\n{% endif %}\nBe concise.\n"
)


def test_text_of_the_excluded_branch_does_not_follow_a_value() -> None:
    assert codes(ONLY_THE_OTHER_BRANCH, path="agent.j2") == []


def test_text_of_a_later_elif_or_else_does_not_follow_a_value_in_an_elif() -> None:
    source = (
        "{% if mode == 'a' %}\nShort.\n{% elif memory.data %}\n{{ memory.data }}\n"
        "{% elif mode == 'c' %}\n" + STATIC + "\n{% else %}\n" + STATIC + "\n{% endif %}\nEnd.\n"
    )
    assert codes(source, path="agent.j2") == []


def test_text_after_the_endif_still_follows_a_value_in_a_branch() -> None:
    source = "{% if memory.data %}\n{{ memory.data }}\n{% else %}\nNo data.\n{% endif %}\n" + STATIC
    assert "PC102" in codes(source, path="agent.j2")  # and PC103: the branch itself varies


def test_the_rest_of_its_own_branch_still_follows_a_value() -> None:
    source = (
        "{% if memory.data %}\n{{ memory.data }}\n" + STATIC + "\n{% else %}\nNo data.\n{% endif %}"
    )
    assert codes(source, path="agent.j2") == ["PC102"]


def test_a_value_above_the_if_is_followed_by_the_longest_branch() -> None:
    # either branch may render after it: the long one costs its text on every request
    source = "{{ memory.data }}\n{% if mode %}\nShort.\n{% else %}\n" + STATIC + "\n{% endif %}\n"
    assert codes(source, path="agent.j2") == ["PC102"]


def test_a_long_block_in_the_longest_branch_still_counts_for_a_name_of_unknown_meaning() -> None:
    # PC106 needs one long block: the longest branch's block, not the branches' sum
    long_block = STATIC * 4  # over 1,000 tokens in one run
    source = "{{ persona }}\n{% if mode %}\n" + long_block + "\n{% else %}\nShort.\n{% endif %}\n"
    assert codes(source, path="agent.j2") == ["PC106"]


def test_history_in_one_branch_still_follows_a_value_above_the_if() -> None:
    source = (
        "{{ memory }}\n{% if compact %}\nShort.\n{% else %}\n"
        "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}\n{% endif %}"
    )
    found = codes(source, path="system.j2")
    assert found and found[0] == "PC102"


# -- a name of unknown meaning in a system prompt ----------------------------------------------
# A real shape: a data assistant's system prompt shows the tables the chat's connection selected,
# then about 800 tokens of static guidelines; the conversation follows. Each branch of its mode
# switch renders alone, so no branch reaches 1,000 tokens, but the conversation after the
# guidelines is lost with them whenever the tables change.
_GUIDELINES = STATIC * 2  # about 600 tokens: under 1,000, over 500
_SYSTEM_PROMPT = (
    "{% if mode == 'explain' %}\nExplain the query.\n{% else %}\nWrite the query.\n{% endif %}\n"
    "<database_context>\n{{ tables }}\n</database_context>\n" + _GUIDELINES
)


def test_a_name_of_unknown_meaning_above_a_system_prompts_guidelines_is_reported() -> None:
    assert codes(_SYSTEM_PROMPT, path="prompts/system.jinja2") == ["PC106"]


def test_the_same_block_in_a_prompt_of_unknown_kind_stays_quiet() -> None:
    assert codes(_SYSTEM_PROMPT, path="prompts/report.jinja2") == []


# -- text chosen by the value itself ---------------------------------------------------------

# A system prompt that names the kind of request, then writes the guidance for that kind: each
# kind's text renders only with that kind, so it is cached with it, whichever kind comes next.
_BY_KIND = (
    "You are a travel helper. Match the answer to the kind of request.\n\n"
    "{% if kind %}\nKind of request: {{ kind | upper }}\n\n"
    "{% if kind == 'flights' %}\n" + _GUIDELINES + "\n"
    "{% elif kind == 'hotels' %}\n" + _GUIDELINES + "\n"
    "{% else %}\nAnswer briefly.\n{% endif %}\n{% endif %}\n"
)


def test_text_chosen_by_the_same_value_does_not_follow_it() -> None:
    assert codes(_BY_KIND, path="prompts/helper_system.j2") == []


def test_text_chosen_by_another_value_still_follows_it() -> None:
    other = _BY_KIND.replace("{% if kind == 'flights' %}", "{% if season == 'flights' %}")
    other = other.replace("{% elif kind == 'hotels' %}", "{% elif season == 'hotels' %}")
    assert codes(other, path="prompts/helper_system.j2") == ["PC106"]


def test_text_chosen_by_a_test_of_the_value_that_holds_for_many_values_still_follows_it() -> None:
    truthy = _BY_KIND.replace("{% if kind == 'flights' %}", "{% if kind != 'flights' %}")
    assert codes(truthy, path="prompts/helper_system.j2") == ["PC106"]
