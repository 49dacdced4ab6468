"""
Per-request data that real request builders hide from the Python analysis (issue #21, corpus 2):
each case is our own reproduction of one mechanism, with the line its finding must be on, and a
twin done right that stays quiet.
"""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source
from tests.lint.test_lint_python_mechanisms import LONG, findings

# (id, source, expected (line, code) pairs); lines count from the first line of the dedented text.
FOUND = [
    (
        "a-state-key-read-with-get-above-static-instructions",
        """
        from openai import OpenAI
        client = OpenAI()
        def plan(state):
            prompt = f\"\"\"You plan coding tasks.
        Request:
        {state.get("user_input", "")}
        Plan format:
        \"\"\" + LONG
            return client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": prompt}]
            )
        """,
        [(7, "PC502")],
    ),
    (
        "gemini-contents-that-are-turns-keep-the-question-in-an-earlier-turn",
        """
        from google import genai
        client = genai.Client()
        def ask(question):
            return client.models.generate_content(model="gemini-2.5-flash", contents=[
                {"role": "user", "parts": [{"text": question}]},
                {"role": "model", "parts": [{"text": "Paris."}]},
                {"role": "user", "parts": [{"text": "And then?"}]},
            ])
        """,
        [(6, "PC502")],
    ),
    (
        "gemini-parts-of-one-turn-with-long-static-text-after-the-question",
        """
        import google.generativeai as genai
        model = genai.GenerativeModel("gemini-2.5-flash")
        def ask(image, question):
            return model.generate_content([f"Question: {question}. " + LONG, image]).text
        """,
        [(5, "PC502")],
    ),
    (
        "json-of-a-list-that-outside-dicts-were-appended-to",
        """
        import json
        from openai import OpenAI
        client = OpenAI()
        def answer(query, hits):
            found = []
            for hit in hits:
                found.append(hit.metadata)
            system = "Sources: " + json.dumps(found) + LONG
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": system}, {"role": "user", "content": query},
            ])
        """,
        [(9, "PC503")],
    ),
    (
        "a-per-request-slot-of-a-format-template-filled-from-a-search",
        """
        from openai import OpenAI
        from search import top_passages
        client = OpenAI()
        AUDIT = "Audit context:\\n{context}\\nAnalyse it in this structure:\\n" + LONG
        def audit(topic):
            found = top_passages(topic)
            prompt = AUDIT.format(
                context=found,
            )
            return client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": prompt}]
            )
        """,
        [(9, "PC502")],
    ),
    (
        "a-per-request-slot-of-a-langchain-template-filled-by-invoke",
        """
        from langchain_core.prompts import PromptTemplate
        QUIZ = PromptTemplate.from_template("Document:\\n{context}\\nWrite three questions. " + LONG)
        def quiz(llm, text):
            return (QUIZ | llm).invoke({"context": text[:3000]})
        """,
        [(5, "PC502")],
    ),
    (
        "a-per-request-slot-of-an-llmchain-template-filled-by-run",
        """
        from langchain.chains import LLMChain
        from langchain.prompts import PromptTemplate
        QUIZ = "Document content:\\n{context}\\nWrite three questions in this JSON form: " + LONG
        def quiz(llm, content):
            chain = LLMChain(llm=llm, prompt=PromptTemplate.from_template(QUIZ))
            return chain.run(context=content[:3000])
        """,
        [(7, "PC502")],
    ),
    (
        "a-sliding-window-of-the-history-spliced-after-the-system-prompt",
        """
        from openai import OpenAI
        client = OpenAI()
        def reply(history, question):
            recent = history[-6:]
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": LONG}, *recent, {"role": "user", "content": question},
            ])
        """,
        [(5, "PC507")],
    ),
    (
        "a-sliding-window-that-is-the-whole-messages",
        """
        import openai
        def loop(args, ask):
            messages = [{"role": "system", "content": "You are a helpful assistant."}]
            while True:
                messages.append({"role": "user", "content": ask()})
                answer = openai.ChatCompletion.create(
                    model=args.model, messages=messages[-args.max_history_len:]
                )
                messages.append({"role": "assistant", "content": answer})
        """,
        [(8, "PC507")],
    ),
    (
        "a-sliding-window-ending-the-messages-of-a-langchain-invoke",
        """
        from langchain_core.messages import SystemMessage
        def chat_node(state, llm):
            system = SystemMessage(content=LONG)
            return llm.invoke([system] + state["messages"][-6:])
        """,
        [(5, "PC507")],
    ),
    (
        "a-per-request-parameter-filled-with-the-callers-request-data",
        """
        from openai import OpenAI
        client = OpenAI()
        def table_context(table, metadata_query=None):
            return f"Table {table}. Variables: {metadata_query}. "
        def ask(question, user_query):
            system = table_context("sales", metadata_query=user_query) + LONG
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": system}, {"role": "user", "content": question},
            ])
        """,
        [(5, "PC502"), (7, "PC502")],
    ),
]

QUIET = [
    (
        "a-per-request-named-parameter-filled-with-a-constant",
        """
        from openai import OpenAI
        from warehouse import conn
        client = OpenAI()
        METADATA_QUERY = "SELECT name, definition FROM attributes;"
        def table_context(table, metadata_query=None):
            context = f"Table {table}."
            if metadata_query:
                context += f" Variables: {conn.query(metadata_query)}."
            return context
        def system_prompt():
            return table_context("sales", metadata_query=METADATA_QUERY) + LONG
        def ask(question):
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": system_prompt()},
                {"role": "user", "content": question},
            ])
        """,
    ),
    (
        "the-whole-history-and-a-truncated-question",
        """
        from openai import OpenAI
        client = OpenAI()
        def reply(history, question):
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": LONG}, *history,
                {"role": "user", "content": question[-2000:]},
            ])
        """,
    ),
    (
        "a-window-shown-to-the-user-not-sent",
        """
        from openai import OpenAI
        client = OpenAI()
        def reply(history, question, show):
            for turn in history[-10:]:
                show(turn)
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": LONG}, *history, {"role": "user", "content": question},
            ])
        """,
    ),
    (
        "an-llmchain-template-with-the-per-request-slot-last",
        """
        from langchain.chains import LLMChain
        from langchain.prompts import PromptTemplate
        QUIZ = LONG + "Document content:\\n{context}"
        def quiz(llm, content):
            chain = LLMChain(llm=llm, prompt=PromptTemplate.from_template(QUIZ))
            return chain.run(context=content)
        """,
    ),
    (
        "a-per-request-slot-filled-with-a-constant-schema",
        """
        from openai import OpenAI
        client = OpenAI()
        SCHEMA = "Table sales(id, day, amount)."
        SQL = "You write SQL for this schema:\\n{context}\\n" + LONG
        def ask(question):
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": SQL.format(context=SCHEMA)},
                {"role": "user", "content": question},
            ])
        """,
    ),
    (
        "a-per-request-slot-at-the-end-of-the-user-turn",
        """
        from openai import OpenAI
        from search import top_passages
        client = OpenAI()
        ASK = LONG + "Context:\\n{context}\\nAnswer briefly."
        def ask(topic):
            prompt = ASK.format(context=top_passages(topic))
            return client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": prompt}]
            )
        """,
    ),
    (
        "json-of-a-list-of-dict-literals-built-by-append",
        """
        import json
        from openai import OpenAI
        client = OpenAI()
        def answer(query, hits):
            pages = []
            for hit in hits:
                page = {"text": hit.page_content, "page": hit.metadata["page_label"]}
                pages.append(page)
            pages.insert(0, {"text": "Read these pages.", "page": 0})
            system = LONG + "Pages: " + json.dumps(pages)
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": system}, {"role": "user", "content": query},
            ])
        """,
    ),
    (
        "gemini-parts-of-one-turn-a-prompt-and-an-image",
        """
        import google.generativeai as genai
        model = genai.GenerativeModel("gemini-2.5-flash")
        def ask(image, question):
            prompt = f\"\"\"You analyse HR dashboards from the image. Never guess.
        User question:
        {question}
        Answer in three short sections.\"\"\"
            return model.generate_content([prompt, image]).text
        """,
    ),
    (
        "a-state-key-read-with-get-at-the-end-of-the-user-turn",
        """
        from openai import OpenAI
        client = OpenAI()
        def plan(state):
            prompt = LONG + f"Request: {state.get('user_input', '')}"
            return client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": prompt}]
            )
        """,
    ),
    (
        "a-stable-key-read-with-get",
        """
        from openai import OpenAI
        client = OpenAI()
        def plan(settings):
            prompt = f"You speak {settings.get('language', 'English')}. " + LONG
            return client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "system", "content": prompt}]
            )
        """,
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in FOUND], ids=[c[0] for c in FOUND])
def test_per_request_mechanism_is_found(source: str, expected: list[tuple[int, str]]) -> None:
    assert findings(source) == expected


@pytest.mark.parametrize("source", [c[1] for c in QUIET], ids=[c[0] for c in QUIET])
def test_per_request_twin_is_quiet(source: str) -> None:
    assert findings(source) == []


def test_a_finding_names_the_line_where_the_value_enters_the_prompt() -> None:
    source = textwrap.dedent(
        """
        from openai import OpenAI
        client = OpenAI()
        def follow_up(slots):
            companions = ", ".join(slots.get("companion_context") or [])
            system = f\"\"\"You guess what the user still needs.
        - Travelling with: {companions}
        Rules:
        \"\"\" + LONG
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": system}, {"role": "user", "content": "Go."},
            ])
        """
    ).replace("LONG", repr(LONG))
    [finding] = lint_python_source(source)
    assert (finding.line, finding.code, finding.written_at) == (5, "PC502", 7)


def test_a_value_placed_where_it_is_made_names_no_second_line() -> None:
    source = textwrap.dedent(
        """
        from openai import OpenAI
        client = OpenAI()
        def ask(question):
            system = f"Question: {question}. " + LONG
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": system}, {"role": "user", "content": "Go."},
            ])
        """
    ).replace("LONG", repr(LONG))
    [finding] = lint_python_source(source)
    assert (finding.line, finding.code, finding.written_at) == (5, "PC502", None)


def test_a_finding_names_the_placeholder_a_format_call_fills_with_it() -> None:
    source = textwrap.dedent(
        """
        from openai import OpenAI
        client = OpenAI()
        JUDGE = "Conversation so far:\\n{history}\\nScore it by this rubric:\\n" + LONG
        def judge(history):
            prompt = JUDGE.format(
                history=history,
            )
            return client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": prompt}]
            )
        """
    ).replace("LONG", repr(LONG))
    [finding] = lint_python_source(source)
    assert (finding.line, finding.code, finding.written_at) == (7, "PC502", 4)


# The template's own placeholders are where a value filled by `str.format` enters the prompt:
# the finding names that line (`written_at`), whatever the template is spelled as.
PLACED = [
    (
        "a triple-quoted local template, one of two with the same slot",
        '''
        from openai import OpenAI
        client = OpenAI()
        def short_prompt(question):
            text = """Question:
            {question}
            Be brief."""
            return text.format(question=question)
        def long_prompt(context, question):
            text = """You help one customer.

            About them: {context}

            Their question: {question}

            RULES"""
            return text.format(context=context, question=question)
        def answer(context, question):
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": long_prompt(context, question)},
                {"role": "user", "content": "Go."},
            ])
        ''',
        {("`context` (per-request parameter)", 12), ("`question` (per-request parameter)", 14)},
    ),
    (
        "positional fields of a module constant",
        """
        from openai import OpenAI
        client = OpenAI()
        GUIDE = (
            "Answer for the question below.\\\\n"
            "Question: {}\\\\n"
            "RULES"
        )
        def answer(question):
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": GUIDE.format(question)},
                {"role": "user", "content": "Go."},
            ])
        """,
        {("`question` (per-request parameter)", 6)},
    ),
    (
        "a numbered field in a template built from two literals",
        """
        from openai import OpenAI
        client = OpenAI()
        HEAD = "You sort support tickets. "
        BODY = '''The message reads:
        {0}
        RULES'''
        def triage(query):
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": (HEAD + BODY).format(query)},
                {"role": "user", "content": "Go."},
            ])
        """,
        {("`query` (per-request parameter)", 6)},
    ),
    (
        "format_map with a dict literal and with dict(...)",
        '''
        from openai import OpenAI
        client = OpenAI()
        GUIDE = """Help the user.
        Their question: {question}
        RULES"""
        def answer(question):
            prompt = GUIDE.format_map({"question": question})
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": prompt}, {"role": "user", "content": "Go."}])
        def again(query):
            prompt = GUIDE.format_map(dict(question=query))
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": prompt}, {"role": "user", "content": "Go."}])
        ''',
        {("`question` (per-request parameter)", 5), ("`query` (per-request parameter)", 5)},
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in PLACED], ids=[c[0] for c in PLACED]
)
def test_a_format_fill_is_placed_at_its_placeholder(source: str, expected: set[object]) -> None:
    rules = LONG.replace("'", "")
    found = lint_python_source(textwrap.dedent(source).replace("RULES", rules))
    placed = {(f.message.partition(" reaches")[0], f.written_at) for f in found}
    assert expected <= placed


def test_a_template_written_twice_keeps_the_format_call_as_its_place() -> None:
    # Two literals with the same text: which one this `.format` fills is not known, so the
    # finding keeps naming the call, never a guess.
    source = textwrap.dedent(
        """
        from openai import OpenAI
        client = OpenAI()
        A = "Context: {context}\\n" + LONG
        B = "Context: {context}\\n" + LONG
        def ask(context):
            prompt = A.format(
                context=context,
            )
            return client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "system", "content": prompt}]
            )
        """
    ).replace("LONG", repr(LONG))
    [finding] = lint_python_source(source)
    assert (finding.line, finding.written_at) == (8, 7)


GEMINI_PARTS = """
from google import genai
from google.genai import types
client = genai.Client()
def read_invoice(state: InvoiceState):
    invoice = types.Part.from_bytes(data=state["pdf"], mime_type="application/pdf")
    return client.models.generate_content(
        model="gemini-2.5-flash",
        contents=[
            invoice,
            LONG,
        ],
    ).text
"""


def test_a_document_part_before_a_static_prompt_opens_the_one_gemini_turn() -> None:
    # A list of parts is ONE user turn, in order: the invoice opens it, so every invoice sends
    # another prefix before the static instructions; the fix is to move the part, where the list
    # places it (line 10).
    [finding] = lint_python_source(GEMINI_PARTS.replace("LONG", repr(LONG)))
    assert (finding.line, finding.code, finding.written_at) == (6, "PC502", 10)
    assert "the newest turn" in finding.message


def test_a_document_part_after_the_static_prompt_stays_quiet() -> None:
    source = GEMINI_PARTS.replace("invoice,\n            LONG,", "LONG,\n            invoice,")
    assert "LONG,\n            invoice," in source
    assert lint_python_source(source.replace("LONG", repr(LONG))) == []


HELPER_WRITES_IT = """
from openai import OpenAI
client = OpenAI()
def _checklist_turns(wishes):
    user = (
        "The tenant's wishes:\\n"
        + "\\n- ".join(wishes)
        + "\\n\\n" + LONG
    )
    return [{"role": "system", "content": "You write checklists."}, {"role": "user", "content": user}]
def checklist(state: ChecklistState):
    return client.chat.completions.create(model="gpt-4o", messages=_checklist_turns(state["wishes"]))
"""


def test_a_value_a_helper_writes_into_its_text_names_the_helpers_line() -> None:
    # The helper of the same module writes its parameter into the turn on line 7 (the operand
    # added there, not the line the concatenation starts on): that is where the fix goes, for
    # whatever each caller passes.
    [finding] = lint_python_source(HELPER_WRITES_IT.replace("LONG", repr(LONG)))
    assert (finding.line, finding.code, finding.written_at) == (12, "PC502", 7)


def test_a_value_a_helper_writes_after_its_rules_stays_quiet() -> None:
    source = HELPER_WRITES_IT.replace('"\\n\\n" + LONG', '"\\n\\n"').replace(
        '"The tenant', 'LONG + "The tenant'
    )
    assert source.count("LONG") == 1
    assert lint_python_source(source.replace("LONG", repr(LONG))) == []


DEFAULTED = """
from openai import OpenAI
client = OpenAI()
def _turn(rules, context=""):
    return f"{context}\\n{rules}"
def reply():
    turn = {"role": "user", "content": _turn(LONG)}
    return client.chat.completions.create(model="gpt-4o", messages=[turn])
"""


def test_a_parameter_left_at_its_literal_default_does_not_vary_there() -> None:
    # Named like per-request data, but no caller passes it: it is "" at every such call.
    assert lint_python_source(DEFAULTED.replace("LONG", repr(LONG))) == []


def test_the_same_parameter_passed_the_requests_documents_is_found() -> None:
    source = DEFAULTED.replace("def reply():", "def reply(documents):").replace(
        "_turn(LONG)", "_turn(LONG, context=documents)"
    )
    found = [(f.line, f.code) for f in lint_python_source(source.replace("LONG", repr(LONG)))]
    assert (7, "PC502") in found, found


COUNTDOWN = """
from openai import OpenAI
client = OpenAI()
def rebut(debate, history, argument):
    system = f"You have {debate.counter.remaining_turns} turns left to make your case. " + LONG
    return client.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": argument},
    ])
"""


def test_a_remaining_count_in_the_system_prompt_is_found() -> None:
    # What remains drops by one every turn: a counter, whatever object holds it.
    assert findings(COUNTDOWN) == [(5, "PC502")]


def test_a_remaining_count_in_the_newest_turn_stays_quiet() -> None:
    source = COUNTDOWN.replace(
        'f"You have {debate.counter.remaining_turns} turns left to make your case. " + LONG',
        "LONG",
    ).replace(
        '"content": argument}',
        '"content": f"{argument} ({debate.counter.remaining_turns} turns left)"}',
    )
    assert "LONG\n" in source and "turns left)" in source
    assert findings(source) == []
