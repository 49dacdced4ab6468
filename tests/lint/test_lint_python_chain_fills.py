"""
Templates a framework fills itself (issue #21, `frameworks/`' `TemplateFill`s): a chain handed a
prompt template runs it on every request and puts the documents it retrieves in `{context}`.
No code of the project fills that variable, so its value was never seen; the real shape is
LangChain's conversational RAG: the system prompt closing with `{context}`, the chat history
after it. Each case is our own reproduction, with the line its finding must be on (where the
chain is made: where the variable is filled), and a quiet twin.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig
from promptcache.lint.python import PythonLinter, lint_python_source

# About 150 tokens of static instructions.
RULES = "Answer only from the context. Say you do not know when it is not there. " * 8

QA_PROMPT = """
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
SYSTEM = "You answer questions about the handbook. " + RULES + "\\n\\n{context}"
def get_qa_prompt():
    return ChatPromptTemplate.from_messages(
        [("system", SYSTEM), MessagesPlaceholder("chat_history"), ("human", "{input}")]
    )
"""

FIRE = [
    (
        "create-stuff-documents-chain-fills-context-before-the-history",
        QA_PROMPT
        + """
from langchain.chains.combine_documents import create_stuff_documents_chain
def make_chain(llm):
    return create_stuff_documents_chain(llm, get_qa_prompt())
""",
        (11, "PC502"),
    ),
    (
        "the-template-handed-through-the-projects-own-helper",
        QA_PROMPT
        + """
from langchain.chains.combine_documents import create_stuff_documents_chain
def create_qa_chain(llm, qa_prompt):
    return create_stuff_documents_chain(llm, qa_prompt)
def build(llm):
    return create_qa_chain(llm, get_qa_prompt())
""",
        (13, "PC502"),
    ),
    (
        "retrieval-qa-chain-type-kwargs-prompt",
        """
        from langchain.chains import RetrievalQA
        from langchain.prompts import PromptTemplate
        PROMPT = PromptTemplate(
            template="Context:\\n{context}\\n\\n" + RULES + "\\nQuestion: {question}",
            input_variables=["context", "question"],
        )
        def make(llm, retriever):
            return RetrievalQA.from_chain_type(
                llm, retriever=retriever, chain_type_kwargs={"prompt": PROMPT}
            )
        """,
        (9, "PC502"),
    ),
    (
        "llamaindex-query-engine-qa-template",
        """
        from llama_index.core import PromptTemplate
        QA = PromptTemplate("Context:\\n{context_str}\\n" + RULES + "\\nQuery: {query_str}")
        def engine(index):
            return index.as_query_engine(text_qa_template=QA)
        """,
        (5, "PC502"),
    ),
    (
        "a-mapping-piped-into-a-template-the-method-is-handed",
        """
        from langchain_core.prompts import PromptTemplate
        from langchain_core.runnables import RunnablePassthrough
        class Answerer:
            def __init__(self, llm):
                self.llm = llm
            def reply(self, retriever, question):
                chain = self._chain(self._prompt(), retriever)
                return chain.invoke(question)
            def _prompt(self):
                text = "Excerpts: {context}\\nAsked: {question}\\n" + RULES
                return PromptTemplate(input_variables=["context", "question"], template=text)
            def _chain(self, prompt, retriever):
                return {"context": retriever, "question": RunnablePassthrough()} | prompt | self.llm
        """,
        (8, "PC502"),
    ),
]

QUIET = [
    (
        "context-in-the-newest-turn",
        """
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
        from langchain.chains.combine_documents import create_stuff_documents_chain
        PROMPT = ChatPromptTemplate.from_messages(
            [
                ("system", "You answer questions about the handbook. " + RULES),
                MessagesPlaceholder("chat_history"),
                ("human", "Context:\\n{context}\\n\\nQuestion: {input}"),
            ]
        )
        def make_chain(llm):
            return create_stuff_documents_chain(llm, PROMPT)
        """,
    ),
    (
        "the-renamed-documents-variable-is-in-the-newest-turn",
        """
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
        from langchain.chains.combine_documents import create_stuff_documents_chain
        PROMPT = ChatPromptTemplate.from_messages(
            [
                ("system", "You answer questions. The {context} is the handbook. " + RULES),
                MessagesPlaceholder("chat_history"),
                ("human", "Excerpts:\\n{excerpts}\\n\\nQuestion: {input}"),
            ]
        )
        def make_chain(llm):
            return create_stuff_documents_chain(llm, PROMPT, document_variable_name="excerpts")
        """,
    ),
    (
        "a-query-engine-whose-context-closes-the-prompt",
        """
        from llama_index.core import PromptTemplate
        QA = PromptTemplate(RULES + "\\nContext:\\n{context_str}\\nQuery: {query_str}")
        def engine(index):
            return index.as_query_engine(text_qa_template=QA)
        """,
    ),
    (
        "a-mapping-piped-into-a-handed-template-that-ends-with-it",
        """
        from langchain_core.prompts import PromptTemplate
        from langchain_core.runnables import RunnablePassthrough
        class Answerer:
            def __init__(self, llm):
                self.llm = llm
            def reply(self, retriever, question):
                chain = self._chain(self._prompt(), retriever)
                return chain.invoke(question)
            def _prompt(self):
                text = RULES + "Excerpts: {context}\\nAsked: {question}\\n"
                return PromptTemplate(input_variables=["context", "question"], template=text)
            def _chain(self, prompt, retriever):
                return {"context": retriever, "question": RunnablePassthrough()} | prompt | self.llm
        """,
    ),
]


def findings(source: str) -> list[tuple[int, str]]:
    text = textwrap.dedent(source).replace("RULES", repr(RULES))
    return [(f.line, f.code) for f in lint_python_source(text)]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in FIRE], ids=[c[0] for c in FIRE])
def test_a_chains_own_documents_in_the_prefix_are_reported(
    source: str, expected: tuple[int, str]
) -> None:
    found = findings(source)
    assert expected in found, found


@pytest.mark.parametrize("source", [c[1] for c in QUIET], ids=[c[0] for c in QUIET])
def test_a_chains_documents_in_the_newest_turn_stay_quiet(source: str) -> None:
    assert [f for f in findings(source) if f[1] != "PC506"] == []


def test_the_template_made_in_another_module_is_filled_where_the_chain_is(
    tmp_path: Path,
) -> None:
    files = {
        "bot/prompts.py": QA_PROMPT,
        "bot/chains.py": """
from langchain.chains.combine_documents import create_stuff_documents_chain
def create_qa_chain(llm, qa_prompt):
    return create_stuff_documents_chain(llm, qa_prompt)
""",
        "app.py": """
from bot.prompts import get_qa_prompt
from bot.chains import create_qa_chain
def build(llm):
    return create_qa_chain(llm, get_qa_prompt())
""",
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).replace("RULES", repr(RULES)), encoding="utf-8")
    linter = PythonLinter(LintConfig(root=tmp_path), root=tmp_path)
    found = [(f.line, f.code) for f in linter.lint_file(tmp_path / "app.py", display="app.py")]
    assert (5, "PC502") in found, found
