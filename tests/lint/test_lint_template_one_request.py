"""
Templates whose values close one request, and what content after a value may be reused (issue
#21, item 3: false alarms on clean real templates, measured on templates of projects in no
corpus; each shape below is ours, written after one of their mechanisms).

- An evaluation prompt opens by giving the model a role ("You are an expert evaluator ..."),
  then holds the answer it grades: it is the whole of one request, not a system prompt that a
  conversation follows, as one holding the user's question already is.
- Jinja's loop counters (`loop.index`, `loop.length`) are numbers, not content of unknown size.
- A `str.format` placeholder after a label on its line (`Result: {result}`, with an ASCII or a
  full-width colon) is a field of the request's data, as a labelled Jinja value already is.

Each quiet case has a twin that is still reported.
"""

from __future__ import annotations

import pytest

from promptcache.lint import LintConfig, lint_source
from promptcache.lint._kinds import prompt_kind

from ._helpers import STATIC


def _findings(source: str, path: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in lint_source(source, path=path) if f.severity != "info"]


# -- an evaluation prompt that holds the answer it grades is one request --------------------------

# A reasoning grader: a role, what it is given, a short rubric, then the answer to grade last.
TRACE_GRADER = """\
You are an expert assistant for grading scientific reasoning.
You are given a JSON object with the question, the reference trace and the model's trace.

Grade how closely the model's trace follows the reference trace:
- close to 1.0 when it gives the same causes and the same numbers,
- close to 0.5 when it catches part of the reasoning but skips steps,
- close to 0.0 when it is wrong or off topic.

Return only the score, a number between 0 and 1.

Answer to grade:
{{ ANSWER }}
"""


@pytest.mark.parametrize("name", ["answer", "model_answer", "pred_answer", "prediction"])
def test_a_you_are_grader_holding_the_answer_it_grades_is_one_request(name: str) -> None:
    source = TRACE_GRADER.replace("ANSWER", name)
    assert prompt_kind(source, "templates/trace_grader_v2.j2") == "other"
    assert _findings(source, "templates/trace_grader_v2.j2") == []


def test_a_grader_named_as_a_system_prompt_stays_one() -> None:
    source = TRACE_GRADER.replace("ANSWER", "answer")
    assert prompt_kind(source, "templates/grader_system.j2") == "system"
    assert _findings(source, "templates/grader_system.j2") == [("PC102", 12)]


def test_the_graded_answer_above_a_long_rubric_is_still_reported() -> None:
    source = TRACE_GRADER.replace("ANSWER", "answer") + STATIC + "\n"
    assert _findings(source, "templates/trace_grader_v2.j2") == [("PC102", 12)]


def test_a_persona_prompt_without_an_answer_to_grade_stays_a_system_prompt() -> None:
    source = TRACE_GRADER.replace("{{ ANSWER }}", "{{ context }}")
    assert prompt_kind(source, "templates/trace_grader_v2.j2") == "system"
    assert _findings(source, "templates/trace_grader_v2.j2") == [("PC102", 12)]


# A game host's system prompt: it holds an `answer`, but grades nothing; the player's turns follow.
RIDDLE_HOST = """\
You are the host of a riddle game played over many turns.
The current time is {{ current_time }}.
The secret word the player must guess is {{ NAME }}. Never reveal it; give a hint when asked.
"""


@pytest.mark.parametrize("name", ["answer", "fallback_answer", "completion"])
def test_an_answer_in_a_prompt_that_grades_nothing_leaves_it_a_system_prompt(name: str) -> None:
    """The graded-answer names make a one-request prompt only where the text grades (judge2:
    a riddle host's secret `answer`, a support bot's canned `fallback_answer` silenced the clock
    above them, though the conversation follows)."""
    source = RIDDLE_HOST.replace("NAME", name)
    assert prompt_kind(source, "prompts/riddle_host.j2") == "system"
    assert ("PC102", 2) in _findings(source, "prompts/riddle_host.j2")  # the clock


# -- Jinja's loop counters are small numbers ---------------------------------------------------

# A rerank prompt: the query, a count of the fragments, the fragments numbered, an output shape.
RERANK = """\
Query: {{ query }}

Below are {{ chunks|length }} fragments retrieved from the notes.
Rate each fragment's relevance to the query from 0 to 100, with a one-line reason.

{% for chunk in chunks %}
--- Fragment {{ loop.index }} of {{ loop.length }} ---
ID: {{ chunk.chunk_id }}
Text: {{ chunk.text }}
{% endfor %}

Return a JSON array of {"chunk_id": ..., "score": ..., "reason": ...}.
"""


def test_loop_counters_after_a_value_are_not_content_of_unknown_size() -> None:
    assert _findings(RERANK, "prompts/rerank.j2") == []


def test_a_stable_variable_of_unknown_size_after_the_value_still_counts() -> None:
    source = RERANK.replace("{{ loop.length }}", "{{ rating_guide }}")
    assert ("PC102", 3) in _findings(source, "prompts/rerank.j2")


def test_an_item_the_loop_looks_at_is_not_a_counter() -> None:
    source = RERANK.replace("{{ loop.length }}", "{{ loop.nextitem }}")
    assert ("PC102", 3) in _findings(source, "prompts/rerank.j2")


# -- labelled str.format placeholders are the request's data --------------------------------------

# A stop-or-continue judge written for str.format: the rules, a JSON shape in doubled braces,
# then the request's fields, each after a label (here with full-width colons).
STOP_JUDGE = """\
Decide whether the agent should keep working on the user's request. Output JSON only.

Stop when the request is fully answered, when information is missing and cannot be obtained,
when a tool keeps failing, or when the user asked to stop. Continue otherwise.

{{"need_continue": true, "reason": "...", "next_action": "continue_tool | ask_user | finish"}}

用户请求：{user_query}
已执行动作：{executed_actions}
当前结果：{current_result}
"""


@pytest.mark.parametrize("colon", ["：", ":"])
def test_labelled_format_fields_after_a_placeholder_are_the_requests_data(colon: str) -> None:
    source = STOP_JUDGE.replace("：", colon)
    assert _findings(source, "prompts/stop_judge.prompt") == []


def test_an_unlabelled_format_field_after_a_placeholder_still_counts() -> None:
    # after a value other than the user's question: what follows `{user_query}` is that
    # request's own, labelled or not, as after `{{ user_query }}`
    fields = "已执行动作：{executed_actions}\n当前结果：{current_result}\n"
    source = STOP_JUDGE.replace(fields, "当前结果：{current_result}\n{executed_actions}\n")
    assert _findings(source, "prompts/stop_judge.prompt") == [("PC105", 9)]


@pytest.mark.parametrize("colon", ["：", ":"])
def test_a_labelled_jinja_value_with_either_colon_is_a_field(colon: str) -> None:
    source = "检索结果：{{ search_results }}\n备注：{{ result_notes }}\n".replace("：", colon)
    assert _findings(source, "prompts/stop_check.j2") == []
    assert _findings(source.replace(f"备注{colon}", ""), "prompts/stop_check.j2") == [("PC102", 1)]


# -- a tool list is the most stable content of a prompt ------------------------------------------

# A coding agent's system prompt: its tools listed from the deployment's tool objects, then long
# fixed working rules.
AGENT_SYSTEM = (
    "You are the repository assistant. You read and write files and run commands.\n\n"
    "## Tools\n"
    "{% for tool in TOOLS %}\n- **{{ tool.name }}**: {{ tool.description }}\n{% endfor %}\n\n"
    "## How to work\n" + STATIC * 2 + "\n"
)


@pytest.mark.parametrize("name", ["tools", "available_tools", "agent.tools", "functions"])
def test_a_tool_list_above_long_rules_is_not_of_unknown_meaning(name: str) -> None:
    assert _findings(AGENT_SYSTEM.replace("TOOLS", name), "prompts/agent_system.j2") == []


@pytest.mark.parametrize("name", ["house_rules", "tool_count"])
def test_another_list_above_long_rules_is_still_reported(name: str) -> None:
    assert _findings(AGENT_SYSTEM.replace("TOOLS", name), "prompts/agent_system.j2") == [
        ("PC106", 4)
    ]


# -- a date the deployment fixes is not today's date -----------------------------------------------

# An assistant's system prompt that states the model's knowledge cutoff above its fixed rules.
CUTOFF_SYSTEM = "You are Atlas, the outfitters' support assistant.\nKnowledge cutoff: {{ DATE }}.\n"
CUTOFF_SYSTEM += STATIC * 2 + "\n"


@pytest.mark.parametrize("name", ["knowledge_cutoff_date", "model_release_date", "build_date"])
def test_a_date_the_deployment_fixes_is_not_per_request(name: str) -> None:
    assert _findings(CUTOFF_SYSTEM.replace("DATE", name), "prompts/system.j2") == []


@pytest.mark.parametrize("name", ["current_date", "booking_date", "cutoff_time", "release_date"])
def test_a_date_of_the_request_is_still_reported(name: str) -> None:
    assert _findings(CUTOFF_SYSTEM.replace("DATE", name), "prompts/system.j2") == [("PC102", 2)]


# A coach's system prompt: the client's own dates, above the coach's fixed rules.
CLIENT_SYSTEM = "You are Atlas, the gym's coaching assistant.\nClient's date: {{ DATE }}.\n"
CLIENT_SYSTEM += STATIC * 2 + "\n"


@pytest.mark.parametrize("name", ["training_date", "cutoff_date", "last_trained_date"])
def test_a_training_or_cutoff_date_alone_is_not_the_deployments(name: str) -> None:
    """`training` and `cutoff` name the model's dates only beside `model`, `knowledge`, `data`
    (judge2: a client's `training_date`, a search's `cutoff_date` went quiet)."""
    assert _findings(CLIENT_SYSTEM.replace("DATE", name), "prompts/system.j2") == [("PC102", 2)]


@pytest.mark.parametrize(
    "name",
    ["model_training_date", "training_data_date", "model_cutoff_date", "trained_cutoff_date"],
)
def test_a_training_or_cutoff_date_of_the_model_stays_quiet(name: str) -> None:
    assert _findings(CUTOFF_SYSTEM.replace("DATE", name), "prompts/system.j2") == []


def test_a_deployment_date_named_as_per_request_is_reported() -> None:
    source = CUTOFF_SYSTEM.replace("DATE", "knowledge_cutoff_date")
    config = LintConfig(per_request=(*LintConfig().per_request, "knowledge_cutoff_date"))
    found = [f.code for f in lint_source(source, path="prompts/system.j2", config=config)]
    assert found == ["PC102"]


# A chat template whose system header names the model's release, then the conversation.
RELEASE_CHAT = """\
{{- bos_token }}
{{- '<|im_start|>system\\nYou are Orca, released on ' + DATE + '.<|im_end|>\\n' }}
{%- for message in messages %}
{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}
"""


def test_a_chat_templates_release_date_is_not_todays_date() -> None:
    assert _findings(RELEASE_CHAT.replace("DATE", "release_date"), "chat_template.jinja") == []


def test_a_chat_templates_date_of_today_is_still_reported() -> None:
    source = RELEASE_CHAT.replace("DATE", "today_date")
    assert _findings(source, "chat_template.jinja") == [("PC301", 2)]


# -- a prompt holding the newest turn counts one block of instructions after a value ---------------

# A retail assistant's single-request prompt: a role, the retrieved documentation, the customer's
# orders and profile, each under a short heading, then the question and a short instruction.
SHOP_REQUEST = """\
You are the shop's assistant. Answer briefly, using the customer's name.

# Documentation
{% for item in retrieved_docs %}
catalog: {{ item.id }}
item: {{ item.title }}
content: {{ item.content }}
{% endfor %}
Reference the documentation you used, by catalog number, and never quote a price or a stock
level that the documentation does not give: say that you do not know it and where to find it.

# Previous orders
Use the orders as context for the question they ask: a customer who bought boots may be asking
about the same boots, and one who returned an item may be asking about the refund.
{% for order in customer.orders %}
name: {{ order.name }}
{% endfor %}

# Customer
The customer is {{ customer.first_name }}, a {{ customer.membership }} member.

# Question
{{ question }}

# Instructions
Suggest other items that go well with the ones found above, by name and description, and say
why each one fits what the customer already has. Be brief and concise, and use a friendly tone.
"""


def test_headings_and_lines_between_the_fields_of_one_request_are_not_reusable() -> None:
    assert _findings(SHOP_REQUEST, "prompts/shop_chat.j2") == []


def test_one_long_block_after_the_documentation_is_still_reported() -> None:
    source = SHOP_REQUEST.replace("Reference the documentation", STATIC + "\nReference the")
    assert ("PC103", 4) in _findings(source, "prompts/shop_chat.j2")


def test_the_same_text_without_the_question_still_adds_up() -> None:
    source = SHOP_REQUEST.replace("{{ question }}", "{{ topic }}")
    assert ("PC103", 4) in _findings(source, "prompts/shop_chat.j2")


# -- "You are tasked with ..." sets a one-off task, not a role -----------------------------------

# A transcript summariser: the task, how to structure the summary, then the transcript last.
SUMMARY_TASK = (
    "OPENING summarizing a video transcript for the weekly digest.\n\n"
    "Read the whole transcript, then write a short introduction, the key insights as bullets and"
    " up to three notable quotes. Use markdown headings.\n\n"
    "<transcript>\n{{ context }}\n</transcript>\n"
)


def test_a_prompt_that_opens_with_its_task_is_not_a_system_prompt() -> None:
    source = SUMMARY_TASK.replace("OPENING", "You are tasked with")
    assert prompt_kind(source, "prompts/video_summary.jinja2") == "other"
    assert _findings(source, "prompts/video_summary.jinja2") == []


def test_a_prompt_that_gives_the_model_a_role_stays_a_system_prompt() -> None:
    source = SUMMARY_TASK.replace("OPENING", "You are a careful editor who is good at")
    assert prompt_kind(source, "prompts/video_summary.jinja2") == "system"
    assert _findings(source, "prompts/video_summary.jinja2") == [("PC102", 6)]


# -- a date in the last lines of a system prompt's context block -----------------------------------

# A concierge's system prompt: the house rules, then a context block of one-line fields.
CONCIERGE = (
    "You are the concierge of the Alpine Hotel.\n"
    + STATIC
    + "\n## Context\nToday: {{ current_date }}\nGuest: {{ guest_name }}\nRoom: {{ room_number }}\n"
)


def test_a_date_above_the_other_fields_of_a_context_block_is_quiet() -> None:
    assert _findings(CONCIERGE, "prompts/concierge_system.j2") == []


def test_a_date_above_the_tools_is_still_reported() -> None:
    source = CONCIERGE + "Tools:\n{{ tools | tojson }}\n"
    assert _findings(source, "prompts/concierge_system.j2") == [("PC102", 4)]


def test_a_date_above_long_static_text_is_still_reported() -> None:
    source = CONCIERGE + STATIC + "\n"
    assert _findings(source, "prompts/concierge_system.j2") == [("PC102", 4)]


def test_a_per_turn_value_in_the_context_block_is_still_reported() -> None:
    source = CONCIERGE.replace("{{ current_date }}", "{{ memory }}")
    assert _findings(source, "prompts/concierge_system.j2") == [("PC102", 4)]
