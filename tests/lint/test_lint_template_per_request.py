"""
Per-request values in real prompt files that the linter missed (issue #21, template recall).

Real shapes, each read with the code that fills it:

- a RAG system message filled by LangChain's `ChatPromptTemplate` (`{context}`, then
  `{output_structure}`, a `partial` of `PydanticOutputParser.get_format_instructions()`): the
  retrieved context sits above the parser's format instructions, a few hundred static tokens
  the linter took for a few words of text, because a `{field}` whose name it did not know was
  counted as the letters of its name;
- a multi-agent pipeline's prompt files (`backend_prompt.txt`, `qa_prompt.txt`), filled with
  `.replace("{{FEEDBACK}}", ...)`: the reviewer's feedback on the last attempt and the previous
  agents' outputs (`{{FRONTEND_OUTPUT}}`) above forty lines of static instructions;
- a system prompt that ends with the chunks retrieved for each message, sent before the recent
  history, named for their source (`{{ rag_context }}`, not `context`).
"""

from __future__ import annotations

from ._helpers import STATIC, codes, config

_PARSER_INSTRUCTIONS_AFTER_CONTEXT = (
    "You are a Used Car Buying Expert. Assist the user by answering their query based on the "
    "given context. Context: {context}. FOLLOW STRICT Output Structure: {output_structure}"
)


def test_a_format_field_of_unknown_meaning_after_a_per_request_one_is_content_after_it() -> None:
    assert codes(_PARSER_INSTRUCTIONS_AFTER_CONTEXT, path="prompts/rag_prompt.txt") == ["PC105"]


def test_a_format_field_of_unknown_meaning_before_the_per_request_one_stays_quiet() -> None:
    source = "You are a car expert. Output Structure: {output_structure}\nContext: {context}"
    assert codes(source, path="prompts/rag_prompt.txt") == []


def test_a_labelled_format_field_after_a_per_request_one_is_data_of_the_request() -> None:
    # an evaluation prompt's fields, each after its label: the request's own data
    source = "Rate the answer.\nQuestion: {question}\nReference: {reference}\nGrade:"
    assert codes(source, path="prompts/judge.txt") == []


def test_a_format_field_on_a_line_of_its_own_after_a_per_request_one_is_its_data() -> None:
    # `File: {file_path}`, then the file's code in its own section: the request's own data
    source = "You are a reviewer.\nFile: {file_path}\n\n```{language}\n{code}\n```"
    assert codes(source, path="prompts/refactor_prompt.txt") == []


def test_in_a_jinja_file_single_braces_stay_literal_text() -> None:
    source = "Context: {{ context }}\nReturn JSON shaped as {output_structure}"
    assert codes(source, path="prompts/rag.j2") == []


_PIPELINE_STEP = """\
You are a Senior Backend Software Engineer.

Your task is to implement the backend of the application based on the approved requirements.

APPROVED REQUIREMENTS

{{REQUIREMENTS}}

FEEDBACK

{{FEEDBACK}}

INSTRUCTIONS

"""


def test_feedback_on_the_last_attempt_above_static_instructions_is_per_request() -> None:
    found = codes(_PIPELINE_STEP + STATIC, path="prompts/backend_prompt.txt")
    assert "PC102" in found


def test_a_previous_steps_output_above_static_instructions_is_per_request() -> None:
    source = "You are a Senior QA Engineer.\n\nFRONTEND IMPLEMENTATION\n\n{{FRONTEND_OUTPUT}}\n\n"
    assert codes(source + STATIC, path="prompts/qa_prompt.txt") == ["PC102"]


def test_feedback_at_the_end_of_a_single_prompt_stays_quiet() -> None:
    source = "Write the section.\n" + STATIC + "\nFeedback: {{ feedback }}\n"
    assert codes(source, path="prompts/writer.j2") == []


def test_retrieved_context_named_for_retrieval_ends_a_system_prompt_before_the_history() -> None:
    source = "You are a warm assistant for the docs.\n" + STATIC + "\n### Context:\n"
    found = codes(source + "{{ rag_context }}\n", path="templates/system_prompt.j2")
    assert found == ["PC102"]


def test_retrieved_contexts_end_a_system_prompt_before_the_history_as_context_does() -> None:
    source = "You are a warm assistant for the docs.\n" + STATIC + "\n"
    assert codes(source + "{{ contexts }}\n", path="templates/system_prompt.j2") == ["PC102"]
    # the same passages as the last words of a prompt of one request cost nothing
    task = "Answer the reader from the docs.\n" + STATIC + "\n{{ contexts }}\n"
    assert codes(task, path="templates/answer.j2") == []


def test_a_catalogue_named_as_context_stays_content_of_unknown_size() -> None:
    source = "You have skills.\n**Available Skills:**\n{{SKILL_CONTEXT}}\n" + STATIC
    assert codes(source, path="prompts/p_skill_select.jinja") == []


_APPLICATION_ANSWER = """\
You are helping a student answer application questions.

Question: {question}

Candidate Profile:
{candidate_profile}

Rules:
- Max {max_words} words
- Be specific
"""


def test_what_follows_the_users_question_in_a_format_file_is_that_requests_own() -> None:
    # the placeholder's braces hid its name from the rule that the question's own tail (its
    # word limit, the profile) is the request's data, as it is for `{{ question }}`
    assert codes(_APPLICATION_ANSWER, path="prompts/qa_prompt.txt") == []


def test_a_format_field_of_unknown_meaning_after_the_question_in_prose_is_still_unknown() -> None:
    source = "Answer {context} using the format {output_structure} in the rules below.\n"
    assert codes(source, path="prompts/rag_prompt.txt") == ["PC105"]


_REFINE_QUERY = """\
Expert at refining search queries to find relevant {{ item_type }}.

Need to find {{ item_type }} relevant to query: "{{ original_query }}"

Suggest a refined search query to help find more appropriate {{ item_type }}.

Focus on:
"""


def test_a_query_or_question_qualified_by_where_it_came_from_is_per_request() -> None:
    # a retry prompt's original query, an evaluator's resolved question
    assert "PC102" in codes(_REFINE_QUERY + STATIC, path="prompts/refine_query.jinja2")
    source = "Resolved standalone question:\n{{ resolved_question }}\n\nRules:\n" + STATIC
    assert codes(source, path="prompts/evaluator.j2") == ["PC102"]


# A cold-email evaluator's prompt file, filled by `str.format` (its JSON example is written with
# doubled braces, so Jinja refuses it): the email under evaluation above a long static rubric.
_EMAIL_EVALUATOR = (
    "You will receive a cold email in JSON format:\n\nEMAIL:\n{{\n"
    '  "subject_line": "{subject_line}",\n  "body": "{body}"\n}}\n\n'
    "EVALUATION CRITERIA\n\n" + "Score the clarity of the value proposition from zero to ten. " * 90
)


def test_a_format_field_of_unknown_meaning_above_a_long_block_is_pc106() -> None:
    # the Jinja walker reports `{{ body }}` above such a block; a format file's `{body}` was
    # only content of unknown size, so nothing was reported
    assert "PC106" in codes(_EMAIL_EVALUATOR, path="prompts/evaluation_prompt.txt")


def test_a_format_field_declared_stable_is_not_pc106() -> None:
    stable = config(stable=("subject_line", "body"))
    assert codes(_EMAIL_EVALUATOR, path="prompts/evaluation_prompt.txt", config=stable) == []


def test_a_format_field_of_unknown_meaning_above_a_short_block_stays_quiet() -> None:
    source = 'EMAIL:\n{{\n  "body": "{body}"\n}}\nScore it from zero to ten.\n'
    assert codes(source, path="prompts/evaluation_prompt.txt") == []


def test_the_id_of_a_runs_step_is_its_progress() -> None:
    # a training module's grader: "A learner has submitted a free-form answer to STEP {step_id}"
    source = "A learner answered STEP {step_id}. Evaluate it with the rubric below.\n" + STATIC
    assert codes(source, path="prompts/evaluation_prompt.txt") == ["PC105"]


def test_a_single_brace_field_of_unknown_meaning_above_a_long_block_is_pc106_too() -> None:
    # a report explainer's prompt file that Jinja parses (no doubled braces): the uploaded
    # report's text on its own line above the long output structure; a field there was counted
    # as the letters of its name, never reported, where `{{ report_text }}` would be PC106
    source = "Analyze the following medical report text:\n\n---\n{report_text}\n---\n\n"
    assert "PC106" in codes(source + STATIC * 4, path="prompts/analysis_prompt.txt")
    stable = config(stable=("report_text",))
    assert codes(source + STATIC * 4, path="prompts/analysis_prompt.txt", config=stable) == []


def test_retrieved_documents_and_memories_are_per_request_as_chunks_and_memory_are() -> None:
    docs = "Answer from these:\n{% for d in documents %}- {{ d.text }}\n{% endfor %}\n"
    assert "PC102" in codes(docs + STATIC, path="prompts/answer.j2")
    assert codes("What you remember:\n{{ memories }}\n" + STATIC, path="prompts/chat.j2") == [
        "PC102"
    ]


# An intent classifier's prompt file: the email's subject and body above about eighteen lines
# (some 300 tokens) of response spec, under the 500 tokens PC106 asks of a system prompt's
# variable; a `{field}` is filled by the call that sends the text, so a shorter block is enough.
_INTENT_CLASSIFIER = (
    "You are an AI assistant specialized in classifying customer email intents.\n\n"
    "EMAIL BODY:\n{body}\n\nPlease respond with a JSON object containing:\n"
    + "- a field that names the intent category and explains it in a sentence\n"
    * 24
)


def test_a_format_field_above_a_dozen_lines_of_instructions_is_pc106() -> None:
    assert codes(_INTENT_CLASSIFIER, path="prompts/intent_prompt.txt") == ["PC106"]


def test_a_jinja_variable_of_a_system_prompt_still_needs_the_longer_block() -> None:
    source = _INTENT_CLASSIFIER.replace("{body}", "{{ body }}")
    assert codes(source, path="prompts/intent_prompt.j2") == []


def test_a_count_or_limit_field_is_configuration_not_asked_about() -> None:
    source = "Keep the list to at most this many items:\n{max_items}\n\n" + STATIC * 4
    assert codes(source, path="prompts/list_prompt.txt") == []
    assert codes(source.replace("max_items", "item_list"), path="prompts/list_prompt.txt") == [
        "PC106"
    ]
