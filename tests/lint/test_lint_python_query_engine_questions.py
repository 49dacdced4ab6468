"""
A text asked of a LlamaIndex query engine (issue 21, stop 34), in cases of our own: a daily
report's `prompt` opens with today's date above its static instructions, and the function only
asks it of `index.as_query_engine(...)`. A text named as a prompt is judged as a template
wherever it is sent; but a query engine retrieves for the text and places it after the nodes
it retrieved (its QA template ends with `{query_str}`), so nothing in it is before reusable
content. The same text sent to the model itself is still reported.
"""

from __future__ import annotations

from promptcache.lint.python import lint_python_source

ASKED = '''
from datetime import datetime

from llama_index.core import SummaryIndex
from llama_index.llms.openai import OpenAI

llm = OpenAI(model="gpt-4o-mini")


def daily_report(documents):
    prompt = f"""Today is {datetime.now():%d/%m/%Y}.
        You are an analyst who writes the daily report on the shop's orders.
        Point out unusual orders, returns that grew, and products that sold out.
        Write the report in Markdown, in under three hundred words, with one heading a topic.
        Name each product as the catalogue does, and give each figure with its unit.
        Never guess a figure that the orders do not show; say that it is missing.
        Close with the three actions the team should take today, most urgent first.
        """
    index = SummaryIndex.from_documents(documents)
    query_engine = index.as_query_engine(llm=llm, similarity_top_k=5)
    return query_engine.query(prompt)
'''

# The same prompt completed by the model directly: the date opens the request.
SENT = ASKED.replace("return query_engine.query(prompt)", "return llm.complete(prompt)")


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_python_source(source, path="report.py")]


def test_a_text_only_asked_of_a_query_engine_is_quiet() -> None:
    assert _codes(ASKED) == []


def test_the_same_text_sent_to_the_model_is_reported() -> None:
    assert (11, "PC501") in _codes(SENT)
