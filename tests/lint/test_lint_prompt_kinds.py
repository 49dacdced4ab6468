"""
A prompt file's kind decides what follows its values (issue #21, item 3).

Each shape is a template we wrote after a mechanism of the corpus's misses and false alarms:

- a system prompt opens every request, so a value that changes from turn to turn (memory,
  retrieved context, the weather) at its very end still has the whole conversation after it;
  a date (once a day) and a value fixed per conversation (who is asking) do not;
- a prompt that writes the model's turn delimiters itself (`[INST] ... [/INST]`) is the whole raw
  prompt of one request: nothing follows it;
- a user turn is the newest message, where per-request values belong: a value there costs only
  a real block of instructions after it, not labels scattered between data fields, and the
  variables around it are the request's own data;
- a labelled one-line field (`Users online: {{ count }}`) is data of the request, outside a
  system prompt;
- a message that says it follows the conversation ("the messages above") is cached only within
  that conversation, where a value fixed per conversation does not change;
- a variable of unknown meaning (PC106) is reported above one long static block, not above
  static text that adds up between other values of the same record.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcache.lint import LintConfig, lint_paths, lint_source
from promptcache.lint._kinds import follows_conversation, looks_like_chat, prompt_kind

from ._helpers import STATIC, codes


def _codes(source: str, path: str) -> list[str]:
    return [f.code for f in lint_source(source, path=path) if f.severity != "info"]


# -- the kind of a prompt file ---------------------------------------------------------------------

KIND_CASES = [
    ("named-system", "Hello.", "prompts/system.j2", "system"),
    ("named-system-prompt", "Hello.", "templates/agent_system_prompt.jinja2", "system"),
    ("named-user", "Hello.", "prompts/user.j2", "user"),
    ("named-user-prompt", "Hello.", "prompts/user_prompt.jinja2", "user"),
    ("named-human", "Hello.", "prompts/human.j2", "user"),
    ("opens-with-you-are", "{# persona #}\n\nYou are a careful tutor.\n", "p/tutor.j2", "system"),
    ("opens-with-act-as", "I want you to act as a travel agent.\n", "p/travel.md", "system"),
    ("a-request", "Please summarise the article below.\n", "p/summary.j2", "other"),
    ("raw-inst-prompt", "<s>[INST] You are a classifier. {{ q }} [/INST]", "system.j2", "other"),
    ("raw-chatml-prompt", "<|im_start|>system\nYou are kind.<|im_end|>", "p/a.j2", "other"),
]


@pytest.mark.parametrize(
    ("source", "path", "kind"), [pytest.param(s, p, k, id=i) for i, s, p, k in KIND_CASES]
)
def test_the_kind_comes_from_the_name_then_the_opening_text(
    source: str, path: str, kind: str
) -> None:
    assert prompt_kind(source, path) == kind


# -- a system prompt: the conversation follows its end ---------------------------------------------

# A system prompt whose last section is refreshed for each request, sent before the history.
SYSTEM_ENDING_WITH = """\
You are the household assistant. Answer briefly and warmly.
Never invent appointments; say when you do not know.

<now>
{{ VALUE }}
</now>
"""

SYSTEM_END_CASES = [
    ("memory-at-the-end", "memory", "prompts/system.j2", ["PC102"]),
    ("retrieved-context-at-the-end", "context", "prompts/system_prompt.jinja2", ["PC102"]),
    ("the-weather-at-the-end", "weather", "prompts/system_prompt.jinja2", ["PC102"]),
    ("todays-summary-so-far", "today_so_far", "prompts/system.j2", ["PC102"]),
    ("opened-by-you-are-whatever-the-name", "memory", "prompts/assistant.j2", ["PC102"]),
    ("a-date-changes-once-a-day", "current_date", "prompts/system.j2", []),
    ("who-is-asking-is-fixed-per-conversation", "user_name", "prompts/system.j2", []),
    ("the-session-is-fixed-per-conversation", "session_id", "prompts/system.j2", []),
    ("a-value-of-unknown-meaning", "house_rules", "prompts/system.j2", []),
]


@pytest.mark.parametrize(
    ("value", "path", "expected"),
    [pytest.param(v, p, e, id=i) for i, v, p, e in SYSTEM_END_CASES],
)
def test_a_per_turn_value_at_the_end_of_a_system_prompt_has_the_conversation_after_it(
    value: str, path: str, expected: list[str]
) -> None:
    assert _codes(SYSTEM_ENDING_WITH.replace("VALUE", value), path) == expected


def test_the_finding_says_where_a_per_turn_value_belongs() -> None:
    (found,) = lint_source(SYSTEM_ENDING_WITH.replace("VALUE", "memory"), path="system.j2")
    assert "per-turn variable `memory` of a system prompt" in found.message
    assert "whole conversation" in found.message
    assert "newest user message" in found.message


def test_a_per_turn_value_at_the_end_of_a_user_turn_stays_quiet() -> None:
    assert _codes(SYSTEM_ENDING_WITH.replace("VALUE", "memory"), "prompts/user.j2") == []


def test_a_raw_single_turn_prompt_named_system_has_no_conversation_after_it() -> None:
    raw = (
        "<s>[INST]\nYou are a website classifier. Answer in strict JSON.\n"
        "Instruction: {{ query }}\n[/INST]"
    )
    assert _codes(raw, "prompts/system_prompt.jinja") == []


# -- a user turn: values belong there ------------------------------------------------------------

# A review request built per game: short labels between data fields, then a short task.
USER_TURN = """\
Please review {{ player_name }}'s game.

## Game facts
- Playing as: {{ color }}
- Result: {{ result }}
- Accuracy: {{ accuracy_pct }}%
- Errors: {{ blunders }} blunder(s), {{ mistakes }} mistake(s)

## Moves that need attention
{% for m in critical_moves %}
- Move {{ m.number }}: {{ m.san }} ({{ m.label }}), engine preferred {{ m.best }}
{% endfor %}

## Patterns the engine flagged
{{ themes | join(", ") }}

## Your task
Write a structured review. For each critical moment, name the principle that was broken
and explain it in plain words. Keep the tone warm and encouraging.
"""


def test_labels_between_the_data_fields_of_a_user_turn_are_not_reusable_content() -> None:
    assert _codes(USER_TURN, "templates/user.j2") == []


def test_a_long_block_of_instructions_after_a_value_in_a_user_turn_is_reported() -> None:
    assert _codes("Question: {{ question }}\n" + STATIC, "templates/user.j2") == ["PC102"]
    assert _codes(USER_TURN + STATIC, "templates/user.j2")[:1] == ["PC102"]


def test_variables_after_a_value_in_a_user_turn_are_the_requests_data() -> None:
    # `documents` itself is per-request now: a name of unknown meaning keeps the test's point
    source = "Today is {{ current_date }}.\n\n{{ reports }}\n\nSummarise them."
    assert _codes(source, "prompts/user_message.j2") == []
    assert _codes(source, "prompts/summarise.j2") == ["PC102"]  # kind unknown: may be stable


# -- labelled fields outside a system prompt ---------------------------------------------------

# A message built from the state of a live channel: every line a labelled value.
DATA_FIELDS = """\
{% if current_media %}
Currently playing: {{ current_media.title }}
Time remaining: {{ current_media.remaining }}
{% endif %}
{% if next_media %}
Next playing: {{ next_media.title }}, ({{ next_media.duration }})
{% endif %}
Users online: {{ channel_users }}
Active users: {{ active_users | join(', ') }}
(Just to mention: {{ proactive_note }})
"""


def test_a_message_made_of_labelled_data_fields_is_all_per_request() -> None:
    assert _codes(DATA_FIELDS, "templates/trigger.j2") == []


def test_a_variable_on_its_own_line_after_a_value_still_counts() -> None:
    source = DATA_FIELDS + "{{ channel_rules }}\n"
    assert "PC102" in _codes(source, "templates/trigger.j2")


def test_labelled_fields_in_a_system_prompt_may_still_be_reusable_content() -> None:
    source = "Date: {{ current_date }}\nTools: {{ tool_list }}\n"
    assert _codes(source, "prompts/system.j2") == ["PC102"]
    assert _codes(source, "prompts/notes.j2") == []


# -- a message that follows the conversation --------------------------------------------------

CHECKPOINT = """\
Tool-calling checkpoint. This is still the planning phase, not the final answer.
Current persona: {{ VALUE }}.
You have the full conversation and the earlier tool results in the messages above.
Decide whether one more tool call would materially improve accuracy or coverage; if the
context is sufficient, make no tool call. Do not write the final answer in this checkpoint,
and do not repeat tool calls whose results are already in the conversation. When you call
a tool, say in one sentence which gap in the sources it fills, and prefer the official
catalogue over secondary summaries.
"""


def test_a_value_fixed_per_conversation_in_a_message_after_it_is_quiet() -> None:
    assert _codes(CHECKPOINT.replace("VALUE", "user_type"), "prompts/checkpoint.j2") == []


def test_a_per_turn_value_in_a_message_after_the_conversation_is_still_reported() -> None:
    source = CHECKPOINT.replace("VALUE", "user_query")
    assert _codes(source, "prompts/checkpoint.j2") == ["PC102"]


def test_without_the_text_saying_so_a_per_conversation_value_is_still_reported() -> None:
    source = CHECKPOINT.replace("VALUE", "user_type").replace("in the messages above", "")
    assert _codes(source, "prompts/checkpoint.j2") == ["PC102"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("See the messages above.", True),
        ("Given the conversation so far, answer.", True),
        ("Use the above conversation.", True),
        ("Messages are listed below.", False),
        ("{# the conversation above #}Answer.", False),  # a comment is not what the model reads
    ],
)
def test_what_says_a_template_follows_the_conversation(text: str, expected: bool) -> None:
    assert follows_conversation(text) is expected


# -- a variable of unknown meaning above one long block ----------------------------------------

# ~120 tokens of static text: ten of them do not make one long block when values sit between.
_PARAGRAPH = "Speak from the persona; never summarise it and never quote it back as lore. " * 8


def test_unknown_values_spread_through_a_persona_prompt_are_not_reported() -> None:
    source = "".join(f"{_PARAGRAPH}\n{{{{ persona.trait_{n} }}}}\n" for n in range(10))
    assert _codes("You are {{ persona.name }}.\n" + source, "prompts/system.j2") == []


def test_an_unknown_value_above_one_long_static_block_is_still_reported() -> None:
    source = "You are {{ persona.name }}.\n" + _PARAGRAPH * 10
    assert _codes(source, "prompts/system.j2") == ["PC106"]


# -- a prompt file that writes the conversation turn by turn ----------------------------------

# A promptflow chat prompt: retrieved documents in the system section, then the history, each
# item written as `role:` and its content, then the question.
PROMPTY_RAG = """\
---
name: Docs chat
model:
    api: chat
inputs:
    documents:
        type: string
    question:
        type: string
    chat_history:
        type: list
---
system:
You answer questions about the product manual, citing the section you used.
# Documents
{{ VALUE }}

{% for item in chat_history %}
{{ item.role }}:
{{ item.content }}
{% endfor %}

user:
{{ question }}
"""


def test_a_per_turn_value_above_a_prompt_files_conversation_is_reported() -> None:
    (found,) = lint_source(PROMPTY_RAG.replace("VALUE", "documents"), path="chat.prompty")
    assert (found.code, found.line) == ("PC102", 16)
    assert "whole conversation" in found.message


def test_a_value_fixed_per_conversation_above_it_is_quiet() -> None:
    source = PROMPTY_RAG.replace("VALUE", "customer_name")
    assert _codes(source, "chat.prompty") == []


def test_the_conversation_written_turn_by_turn_is_not_content_of_unknown_size() -> None:
    # The turns are the conversation (not a fork on per-request data, nor content of unknown
    # size counted after the values above them), whatever its length.
    source = PROMPTY_RAG.replace("VALUE", "'no documents'")
    assert _codes(source, "chat.prompty") == []


def test_history_lines_written_inside_one_message_are_not_the_conversation() -> None:
    source = (
        "Memory: {{ memory }}\n"
        "{% for m in chat_history %}- {{ m.username }}: {{ m.message }}\n{% endfor %}"
    )
    assert _codes(source, "templates/trigger.j2") == []


# -- the value reaches the end of a system prompt through a partial, a set or a macro ------------

_OPENING = "You are the household assistant. Answer briefly and warmly.\n"


def test_a_per_turn_value_a_partial_renders_at_a_system_prompts_end_is_reported(
    tmp_path: Path,
) -> None:
    (tmp_path / "memory.j2").write_text("## Memory\n{{ memory }}\n", encoding="utf-8")
    system = tmp_path / "system.j2"
    system.write_text(_OPENING + '{% include "memory.j2" %}\n', encoding="utf-8")
    found = lint_paths([system], config=LintConfig(root=tmp_path))
    assert [(f.code, f.line) for f in found] == [("PC104", 2)]
    assert "whole conversation" in found[0].message


@pytest.mark.parametrize(
    "source",
    [
        _OPENING + "{% set notes = memory %}\n## Memory\n{{ notes }}\n",
        "{% macro notes() %}## Memory\n{{ memory }}{% endmacro %}" + _OPENING + "{{ notes() }}\n",
        _OPENING + "{% set notes %}## Memory\n{{ memory }}{% endset %}{{ notes }}\n",
    ],
    ids=["set", "macro", "set-block"],
)
def test_a_per_turn_value_carried_to_a_system_prompts_end_is_reported(source: str) -> None:
    found = lint_source(source, path="prompts/system.j2")
    assert len(found) == 1
    assert "whole conversation" in found[0].message


def test_you_are_given_introduces_a_tasks_inputs_not_a_role() -> None:
    assert prompt_kind("You are given a question and a reference answer.\n", "p/j.j2") == "other"
    assert prompt_kind("You're provided with the context below.\n", "p/j.j2") == "other"


def test_a_system_prompt_that_speaks_of_the_conversation_so_far_keeps_its_values() -> None:
    source = (
        "You are helping {{ user_name }}. Use the conversation so far to stay consistent.\n"
        + STATIC
    )
    assert _codes(source, "prompts/system.j2") == ["PC102"]


# -- a promptflow chat prompt: role lines, the history as turns, then the question --------------

PROMPTFLOW_CHAT = """\
system:
You are a helpful assistant for the product manual; cite the section you used.
# Search results
{{ VALUE }}

{% for item in chat_history %}
user:
{{ item.inputs.question }}
assistant:
{{ item.outputs.answer }}
{% endfor %}

user:
{{ question }}
"""


def test_a_history_written_with_role_lines_is_the_conversation() -> None:
    found = lint_source(PROMPTFLOW_CHAT.replace("VALUE", "search_results"), path="chat.jinja2")
    assert [(f.code, f.line) for f in found] == [("PC102", 4)]
    assert "whole conversation" in found[0].message


def test_the_question_after_the_conversation_of_a_role_lines_prompt_is_quiet() -> None:
    # The file opens with "You are": without its role lines it would read as a system prompt
    # and its last value as one the conversation follows.
    assert prompt_kind(PROMPTFLOW_CHAT, "chat.jinja2") == "other"
    assert _codes(PROMPTFLOW_CHAT.replace("VALUE", "'none'"), "chat.jinja2") == []


def test_a_sliding_window_over_a_prompt_files_history_is_pc507() -> None:
    source = PROMPTFLOW_CHAT.replace("VALUE", "'none'").replace(
        "in chat_history %}", "in chat_history[-6:] %}"
    )
    found = lint_source(source, path="chat.jinja2")
    assert [(f.code, f.line) for f in found] == [("PC507", 6)]


def test_a_sliding_window_over_a_chat_templates_messages_is_pc507() -> None:
    source = (
        "{%- for m in messages[-8:] -%}<|{{ m.role }}|>{{ m.content }}<|end|>{%- endfor -%}"
        "{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}"
    )
    assert codes(source, chat=True) == ["PC507"]
    assert codes(source.replace("messages[-8:]", "messages[1:]"), chat=True) == []


def test_single_braces_in_a_prompty_body_are_literal_text() -> None:
    # prompty renders its body with Jinja, which writes `{inputs}` out unchanged.
    source = "---\nname: tagger\n---\nsystem:\nAvailable tags: ${inputs}\n" + STATIC
    found = lint_source(source, path="basic.prompty")
    assert [f.code for f in found] == ["PC002"]
    assert [f.code for f in lint_source(source, path="basic.txt")] == ["PC105"]


# -- a .prompty file that names its inputs only in its sample ---------------------------------

PROMPTY_SAMPLE_ONLY = (
    """\
---
name: Writer
model:
    api: chat
sample:
    research_notes: What do campers do in winter?
    catalogue: ${file:products.json}
---
system:
You write magazine articles from the research below.
# Research
{{ research_notes }}
# Rules
"""
    + "Cite each fact and keep the tone light. " * 30
)


def test_a_prompty_samples_written_inline_name_its_inputs() -> None:
    from promptcache.lint._prompty import declared_inputs

    assert declared_inputs(PROMPTY_SAMPLE_ONLY) == ("research_notes",)  # not the file sample
    found = lint_source(PROMPTY_SAMPLE_ONLY, path="writer.prompty")
    assert [(f.code, f.line) for f in found] == [("PC102", 12)]


def test_declared_inputs_win_over_the_sample() -> None:
    from promptcache.lint._prompty import declared_inputs

    source = PROMPTY_SAMPLE_ONLY.replace(
        "sample:", "inputs:\n    topic:\n        type: string\nsample:"
    )
    assert declared_inputs(source) == ("topic",)


# -- a prompt that opens "You are ..." and holds the user's question is the request itself ---------

# A RAG task prompt rendered as the only message of a request: it opens by giving the model a
# role, then the retrieved context, the question, and a few short rules.
RAG_TASK = """\
You are a careful assistant that answers only from the documents given.
If the documents do not hold the answer, say so.

Documents:
{{ context }}

Question: {{ QUESTION }}

Keep the answer under five sentences and name the document you used.
"""


@pytest.mark.parametrize("name", ["question", "query", "user_input", "user_message", "input"])
def test_a_you_are_prompt_that_holds_the_question_is_one_request(name: str) -> None:
    source = RAG_TASK.replace("QUESTION", name)
    assert prompt_kind(source, "prompts/rag_answer.j2") == "other"
    assert _codes(source, "prompts/rag_answer.j2") == []


def test_a_named_system_prompt_holding_the_question_stays_a_system_prompt() -> None:
    source = RAG_TASK.replace("QUESTION", "question")
    assert prompt_kind(source, "prompts/system.j2") == "system"
    assert _codes(source, "prompts/system.j2") == ["PC102", "PC102"]


def test_the_question_above_a_long_static_block_is_still_reported() -> None:
    source = RAG_TASK.replace("QUESTION", "question") + STATIC + "\n"
    assert _codes(source, "prompts/rag_answer.j2") == ["PC102", "PC102"]


# -- what follows the user's question in the same message is that request's own ------------------

# A single-turn answer prompt: the notes, the question, then (on a retry) why the previous
# answer was rejected. The retry note is of unknown size but follows the newest turn's question.
ANSWER_WITH_RETRY_NOTE = """\
Answer from the notes below and cite them by number.

Notes:
{{ context }}

Question: {{ question }}
{% if rejection %}

Your previous answer was rejected:
{{ rejection }}
Try again.
{% endif %}
"""

# Earlier turns written inside the message, then retrieved chunks, then the question.
HISTORY_CHUNKS_QUESTION = """\
Answer the on-call engineer from the passages only.
{% if history %}
Earlier in this conversation:
{% for turn in history %}{{ turn.role }}: {{ turn.content }}
{% endfor %}
{% endif %}
Passages:
{% for c in chunks %}- {{ c.text }} [{{ c.id }}]
{% endfor %}
Question: {{ question }}
"""


def test_content_after_the_users_question_is_not_reusable() -> None:
    assert _codes(ANSWER_WITH_RETRY_NOTE, "prompts/answer.j2") == []


def test_retrieved_chunks_between_the_history_and_the_question_are_the_requests_own() -> None:
    assert _codes(HISTORY_CHUNKS_QUESTION, "prompts/answer.j2") == []


def test_a_long_static_block_after_the_question_and_its_note_is_still_reported() -> None:
    source = ANSWER_WITH_RETRY_NOTE.replace("Try again.", "Try again.\n" + STATIC)
    assert "PC102" in _codes(source, "prompts/answer.j2")


def test_chunks_above_long_static_instructions_are_reported() -> None:
    source = "Passages:\n{% for c in chunks %}- {{ c.text }}\n{% endfor %}\n" + STATIC + "\n"
    assert _codes(source, "prompts/answer.j2") == ["PC103", "PC102"]


# -- a pull request under review is the request's data, as an issue is -----------------------------

REVIEW_TASK = (
    """\
Review the pull request below for real problems and verify each against the code.

## Pull request: {{ PR.title }}
{{ PR.body }}

```diff
{{ PR.diff }}
```

"""
    + STATIC
    + "\n"
)


@pytest.mark.parametrize("name", ["pr", "pull_request", "pr_info"])
def test_a_pull_request_above_long_instructions_is_per_request(name: str) -> None:
    assert "PC102" in _codes(REVIEW_TASK.replace("PR", name), "prompts/review.j2")


# -- a value fixed per conversation in a system prompt: only static text it shows counts -----------

# An assistant's system prompt that greets the person and then names a few settings of the call:
# who is asking is fixed for the conversation, and what follows it is one short line and words.
GREETING_SYSTEM = """\
You are a support assistant for {{ product }}.
Help {{ user_name }} with their account questions.
Answer in a {{ tone }} and {{ register }} voice.
"""

# A coordinator's system prompt: the task it was given, then lists filled per call.
COORDINATOR_SYSTEM = """\
You are coordinating {{ task_type }} work for the team.

Capabilities:
{% for capability in capabilities %}
- {{ capability }}
{% endfor %}
{% if constraints %}
Constraints:
{% for constraint in constraints %}
  * {{ constraint }}
{% endfor %}
{% endif %}

Delegate to the specialists and merge their results.
"""


def test_a_per_conversation_value_followed_by_words_of_unknown_size_is_quiet() -> None:
    assert _codes(GREETING_SYSTEM, "prompts/chat.jinja2") == []


def test_a_per_conversation_value_followed_by_lists_of_unknown_size_is_quiet() -> None:
    assert _codes(COORDINATOR_SYSTEM, "prompts/coordinator.jinja2") == []


def test_a_per_conversation_value_above_a_long_static_block_is_still_reported() -> None:
    source = GREETING_SYSTEM.replace("account questions.", "account questions.\n" + STATIC)
    assert _codes(source, "prompts/chat.jinja2") == ["PC102"]


def test_a_per_turn_value_followed_by_content_of_unknown_size_is_still_reported() -> None:
    source = GREETING_SYSTEM.replace("user_name", "retrieved_notes")
    assert _codes(source, "prompts/chat.jinja2") == ["PC102"]


def test_outside_a_system_prompt_who_is_asking_above_unknown_content_is_still_reported() -> None:
    source = "Hello {{ user.name }}, session {{ session_id }}.\n{{ product_catalogue }}\n"
    assert _codes(source, "prompts/greeting.j2") == ["PC102"]


def test_a_per_conversation_value_above_the_tools_of_unknown_size_is_still_reported() -> None:
    source = (
        "You are a reviewer subagent.\n\nTask: {{ task_brief }}\n\n"
        "You can call these tools: {{ available_tools }}\n\nBe specific and brief.\n"
    )
    assert _codes(source, "prompts/reviewer.md") == ["PC102"]


# -- what a `user_*` name holds: the person (fixed per conversation) or their turn ---------------

# An analyst's system prompt pitched at the reader's level, with the guidance for that level.
LEVELLED_SYSTEM = """\
You are a {{ domain }} analysis expert.
Reader: {{ VALUE }}

Use up to {{ max_tools }} tools to gather information, then explain what you found.
{% if focus %}Focus on: {{ focus | join(", ") }}{% endif %}
Keep the answer under 300 words.
"""


@pytest.mark.parametrize("value", ["user_level", "user_expertise", "user_seniority", "user_tier"])
def test_an_attribute_of_the_person_asking_is_fixed_per_conversation(value: str) -> None:
    assert _codes(LEVELLED_SYSTEM.replace("VALUE", value), "prompts/analyst.jinja2") == []


@pytest.mark.parametrize("value", ["user_prompt", "user_memory", "user_context", "user_history"])
def test_the_users_turn_or_memory_in_a_system_prompt_is_still_per_turn(value: str) -> None:
    source = LEVELLED_SYSTEM.replace("VALUE", value)
    assert _codes(source, "prompts/analyst.jinja2") == ["PC102"]


def test_a_count_of_the_tools_is_not_the_tools() -> None:
    source = "You are helping {{ user_name }}.\nUse at most {{ max_tools }} tools, then answer.\n"
    assert _codes(source, "prompts/helper.j2") == []


# -- the newest items of a growing list (`[-3:]`) change from turn to turn -------------------------

# A game master's system prompt that recalls the last few moves, sent before the game's history.
GAME_MASTER_SYSTEM = """\
You are the game master. Describe each scene vividly and let the player's choices matter.

{% if moves %}Lately:
{% for move in moves[-3:] %}- {{ move.summary }}
{% endfor %}{% endif %}

Write two short paragraphs in the second person.
"""


def test_the_newest_items_of_a_list_at_the_end_of_a_system_prompt_are_per_turn() -> None:
    found = lint_source(GAME_MASTER_SYSTEM, path="prompts/game_master_system.j2")
    assert {f.line for f in found if f.severity != "info"} & {4, 5}
    assert any("newest" in f.message for f in found)


def test_the_newest_items_at_the_end_of_a_user_turn_stay_quiet() -> None:
    assert _codes(GAME_MASTER_SYSTEM, "prompts/game_master_user.j2") == []


def test_the_whole_list_of_unknown_meaning_is_not_judged_per_turn() -> None:
    source = GAME_MASTER_SYSTEM.replace("moves[-3:]", "moves")
    assert _codes(source, "prompts/game_master_system.j2") == []


# -- a system prompt that holds the history is followed by no conversation -------------------------

# A solver's system prompt that carries the steps so far itself; the user turn is one fixed line.
SOLVER_SYSTEM = """\
You are a careful mathematician solving competition problems one step at a time.

Give only the next step of the proof.

Problem:
{{ problem }}

{% if HISTORY %}Steps so far:
{{ HISTORY }}
{% endif %}
"""


@pytest.mark.parametrize("name", ["history", "chat_history", "transcript", "conversation"])
def test_a_system_prompt_holding_the_history_has_no_conversation_after_it(name: str) -> None:
    assert _codes(SOLVER_SYSTEM.replace("HISTORY", name), "prompts/policy.j2") == []


def test_a_system_prompt_writing_the_messages_itself_has_no_conversation_after_it() -> None:
    source = SOLVER_SYSTEM.replace(
        "{{ HISTORY }}", "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"
    ).replace("HISTORY", "messages")
    assert prompt_kind(source, "prompts/policy.j2") == "other"


def test_a_per_turn_value_at_the_end_of_a_system_prompt_without_history_is_still_reported() -> None:
    source = SOLVER_SYSTEM.replace("HISTORY", "memory")
    assert _codes(source, "prompts/policy.j2") == ["PC102"]


# -- in a user turn a variable of unknown meaning is the request's data ----------------------------

# A judge's only user message: the character under test, then the rubric, then the transcript.
JUDGE_USER = (
    "A player pretends to be the following character:\n=====\n{{ character_sheet }}\n=====\n\n"
    + STATIC
    + "\n\nConversation:\n{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}\n"
)


def test_a_value_of_unknown_meaning_above_a_block_of_instructions_in_a_user_turn() -> None:
    assert _codes(JUDGE_USER, "templates/judge_user.jinja") == ["PC106"]


def test_a_value_of_unknown_meaning_above_a_short_note_in_a_user_turn_is_quiet() -> None:
    source = JUDGE_USER.replace(STATIC, "Score each turn from 1 to 5.")
    assert _codes(source, "templates/judge_user.jinja") == []


def test_a_user_turn_quoting_the_conversation_is_not_a_chat_template() -> None:
    assert not looks_like_chat(JUDGE_USER, "templates/judge_user.jinja")
    assert not looks_like_chat(JUDGE_USER, "prompts/system.j2")
    assert looks_like_chat(JUDGE_USER, "templates/roles.jinja")  # no name says what it is
    assert looks_like_chat(JUDGE_USER + "{{ eos_token }}", "templates/judge_user.jinja")


# -- a system prompt that quotes the assistant's reply ----------------------------------------

# A note-keeper's instructions, named as a system prompt: the notes so far, then the newest
# exchange. The assistant's reply exists only once the request it answers is done, so a prompt
# that holds it is about a finished turn, sent alone: no conversation follows it.
NOTE_KEEPER = """\
You are a note keeper. Keep the notes short and never invent facts.
Answer with the updated notes only, as a bulleted list.

Notes so far:
{{ current_notes }}

The user wrote:
{{ user_message }}
REPLY
Updated notes:
"""


@pytest.mark.parametrize("reply", ["assistant_response", "assistant_reply", "bot_message"])
def test_a_system_prompt_that_holds_the_assistants_reply_is_one_request(reply: str) -> None:
    quoted = NOTE_KEEPER.replace("REPLY", f"\nThe assistant replied:\n{{{{ {reply} }}}}\n")
    assert prompt_kind(quoted, "prompts/notes_system_prompt.j2") == "user"
    assert _codes(quoted, "prompts/notes_system_prompt.j2") == []


def test_the_same_system_prompt_without_the_reply_keeps_the_conversation_after_it() -> None:
    alone = NOTE_KEEPER.replace("REPLY", "")
    assert prompt_kind(alone, "prompts/notes_system_prompt.j2") == "system"
    assert "PC102" in _codes(alone, "prompts/notes_system_prompt.j2")


# -- a system prompt's own instruction ---------------------------------------------------------

_CHECKER = "You are a careful grammar checker for a novelist.\n\n{{ instruction }}\n\n"


def test_an_instruction_in_a_system_prompt_is_of_unknown_meaning_there() -> None:
    # what a system prompt is made of: the deployment's strictness rules, a mode's extra text
    assert _codes(_CHECKER + STATIC, "prompts/system.j2") == []


def test_an_instruction_in_a_system_prompt_above_a_long_block_is_still_asked_about() -> None:
    assert _codes(_CHECKER + STATIC * 2, "prompts/system.j2") == ["PC106"]


def test_an_instruction_in_a_prompt_of_one_request_is_still_the_task() -> None:
    source = "Do what the instruction says.\n\n### Instruction:\n{{ instruction }}\n\n" + STATIC
    assert _codes(source, "prompts/alpaca.j2") == ["PC102"]


# -- a .prompty input that names the prompt's own fixed text ----------------------------------

# A note writer: the caller passes the house instructions and an example on every call, as it
# passes the transcript, but only the transcript differs from one call to the next.
PROMPTY_NOTE_WRITER = (
    """\
---
name: Visit note
inputs:
  transcript:
    type: string
  language:
    type: string
  note_instructions:
    type: string
  note_example:
    type: string
---
system:
You write visit notes from the transcript the clinician gives you.
Output language: {{language}}

## Instructions
{{note_instructions}}

## Example
{{note_example}}

## Tips
"""
    + STATIC
    + "\n\nuser:\n{{transcript}}\n"
)


def test_prompty_inputs_that_name_the_prompts_fixed_text_are_not_per_request() -> None:
    assert _codes(PROMPTY_NOTE_WRITER, "prompty/note.prompty") == []


def test_a_prompty_input_of_the_requests_own_data_above_the_tips_is_still_reported() -> None:
    source = PROMPTY_NOTE_WRITER.replace("{{note_example}}", "{{transcript}}")
    assert _codes(source, "prompty/note.prompty") == ["PC102"]


# -- a conversation quoted inside one message ---------------------------------------------------

# A tutor's prompt: the last exchanges quoted as text, each after an inline role label, then the
# requirements for the reply. The quote changes every turn, so the requirements after it are read
# again on each request; they are not a conversation that grows by appending messages.
_QUOTED = """\
Write the next tutor message for a {{ level }} learner.

## Recent exchanges
{% for turn in session_messages %}
{% if turn.kind == 'user' %}User: {{ turn.content }}
{% else %}AI: {{ turn.content }}
{% endif %}
{% endfor %}

REQUIREMENTS
"""


def test_a_conversation_quoted_above_requirements_is_per_request() -> None:
    found = [(c, n) for c, n, _ in _lines(_QUOTED.replace("REQUIREMENTS", STATIC))]
    assert ("PC102", 6) in found


def test_the_same_quote_at_the_end_of_the_prompt_is_quiet() -> None:
    assert _codes(_QUOTED.replace("REQUIREMENTS", "Reply now."), "prompts/next.j2") == []


def _lines(source: str) -> list[tuple[str, int, str]]:
    found = lint_source(source, path="prompts/next.j2")
    return [(f.code, f.line, f.message) for f in found if f.severity != "info"]
