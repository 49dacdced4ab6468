"""
Values that reach a prompt template's text another way than by name (issue #21, template recall).

Real shapes (an agent planner's system prompt, read with the code that renders it):

- a list built in place: `{% set missing = [] %}`, then `{% set _ = missing.append(req) %}` under
  an `{% if %}` on what the request's memory holds, rendered later as each actor's "blocked,
  needs ..." line above the long static planning rules;
- a method of a per-request value: `{% if memory.get('data') %}`, `memory.keys()`, which the
  linter read as a call of unknown meaning rather than as the memory it reads.
"""

from __future__ import annotations

from ._helpers import STATIC, codes, config

_LIST_BUILT_UNDER_A_TEST = """\
{% for agent in agents %}
{%- set missing = [] %}
{%- for req in agent.requires %}
  {%- if req not in memory %}
    {%- set _ = missing.append(req) %}
  {%- endif %}
{%- endfor %}
### {{ agent.name }}{% if missing %} blocked, needs {{ missing | join(', ') }}{% endif %}
{% endfor %}
"""


def test_a_list_filled_under_a_test_on_a_per_request_value_is_reported_where_it_renders() -> None:
    found = codes(_LIST_BUILT_UNDER_A_TEST + STATIC, path="planner.j2")
    assert "PC102" in found


def test_a_list_filled_with_a_per_request_value_is_reported_where_it_renders() -> None:
    source = (
        "{% set seen = [] %}{% set _ = seen.append(memory.last) %}\n{{ seen | join(', ') }}\n"
        + STATIC
    )
    assert codes(source, path="planner.j2") == ["PC102"]


def test_a_list_filled_by_do_is_followed_too() -> None:
    source = (
        "{% set seen = [] %}{% do seen.append(memory.last) %}\n{{ seen | join(', ') }}\n" + STATIC
    )
    assert codes(source, path="planner.j2", config=config(extensions=("jinja2.ext.do",))) == [
        "PC102"
    ]


def test_a_list_filled_with_stable_values_stays_quiet() -> None:
    source = "{% set seen = [] %}{% set _ = seen.append(tool.name) %}\n{{ seen | join(', ') }}\n"
    assert codes(source + STATIC, path="planner.j2") == []


def test_a_method_of_a_per_request_value_is_that_value() -> None:
    source = "{% if memory.get('data') %}\nData is loaded.\n{% endif %}\n" + STATIC
    assert codes(source, path="planner.j2") == ["PC103"]


def test_a_method_of_a_stable_value_stays_quiet() -> None:
    source = "{% if tools.get('search') %}\nSearch is available.\n{% endif %}\n" + STATIC
    assert codes(source, path="planner.j2") == []


def test_a_membership_test_on_a_per_request_mappings_keys_is_a_test_on_it() -> None:
    source = "{% if 'data' not in memory.keys() %}\nNo data yet.\n{% endif %}\n" + STATIC
    assert codes(source, path="planner.j2") == ["PC103"]


def test_a_clock_formatted_by_its_method_is_the_clock() -> None:
    # an agent base prompt's first line: "Current date time {{ current_datetime.strftime(...) }}"
    source = "Current date time {{ current_datetime.strftime('%b %d, %Y %I:%M %p') }}\n" + STATIC
    assert codes(source, path="base.j2") == ["PC102"]


# -- a value written with a fallback ----------------------------------------------------------

# The message a texting companion answers, written with a fallback for when there is none: the
# label over it says it is what the user sent, whatever the value is called.
_TEXTED = "The user just texted:\nVALUE\n\nReply rules:\n" + STATIC


def test_a_value_written_with_a_fallback_is_the_value_its_label_names() -> None:
    for value in ('{{ sms.body or "" }}', "{{ sms.body if sms is defined else '(none)' }}"):
        assert codes(_TEXTED.replace("VALUE", value), path="prompts/reply.j2") == ["PC102"]


def test_the_same_value_with_a_fallback_under_a_label_of_no_ones_stays_quiet() -> None:
    label = _TEXTED.replace("The user just texted:", "House style notes:")
    assert codes(label.replace("VALUE", '{{ sms.body or "" }}'), path="prompts/reply.j2") == []


def test_a_number_formatted_into_the_text_is_the_number_it_formats() -> None:
    source = "Amount due: {{ '%.2f' | format(amount) }}\n\n" + STATIC * 4
    assert codes(source, path="prompts/invoice.j2") == ["PC106"]  # asked about by its name
    assert codes(source, path="prompts/invoice.j2", config=config(stable=("amount",))) == []
