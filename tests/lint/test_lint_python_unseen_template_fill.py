"""LangChain and LlamaIndex prompt templates that nothing in the project fills (the app that
formats them lies elsewhere): the variables of a chat template's system messages, or of a single
template's text, are judged where they are written, by their names; a template the project reads
again (formatted, piped, handed on, imported by another file) is judged as before."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig
from promptcache.lint.python import lint_python_source

from ._helpers import lint_beside

POLICY = (
    "Quote the warranty clause you rely on; never offer a refund the clause does not grant. " * 6
)
WITH_UNKNOWN = LintConfig(select=("PC", "PC508"))


def findings(source: str, config: LintConfig | None = None) -> list[tuple[int, str, int | None]]:
    text = textwrap.dedent(source).replace("POLICY", repr(POLICY))
    found = lint_python_source(text, config=config or LintConfig())
    return [(f.line, f.code, f.written_at) for f in found]


CASES = [
    (
        "module-chat-template-profile-above-policy",
        # A prompts module: the customer's profile opens the system message, the policy follows.
        """
        from langchain_core.prompts import ChatPromptTemplate

        SUPPORT_PROMPT = ChatPromptTemplate.from_messages(
            [
                ("system", "You are helping {customer_profile} with a warranty claim. " + POLICY),
                ("human", "{question}"),
            ]
        )
        """,
        [(4, "PC502", 6)],
    ),
    (
        "factory-returns-a-single-template",
        # A function hands the template to whoever builds the chain: the query comes first.
        """
        from langchain_core.prompts import PromptTemplate

        def claim_prompt():
            return PromptTemplate.from_template("The claim reads: {query}\\n" + POLICY)
        """,
        [(5, "PC502", None)],
    ),
    (
        "local-only-returned",
        # Bound to a local first, then returned: still the factory's template.
        """
        from llama_index.core import PromptTemplate

        def build_qa_template():
            template = PromptTemplate("Retrieved passages:\\n{context_str}\\n" + POLICY + "{query_str}")
            return template
        """,
        [(5, "PC502", None)],
    ),
    (
        "attribute-of-a-class-never-read",
        # Set on the object for an app outside the package to format.
        """
        from langchain_core.prompts import ChatPromptTemplate

        class ClaimDesk:
            def __init__(self):
                self.desk_prompt = ChatPromptTemplate.from_messages(
                    [("system", "Claimant: {user_name}. " + POLICY), ("human", "{question}")]
                )
        """,
        [(6, "PC502", 7)],
    ),
    (
        "held-in-a-module-dict-of-templates",
        # A registry of prompts by task, for the service that picks one per route.
        """
        from langchain_core.prompts import ChatPromptTemplate, PromptTemplate

        PROMPTS = {
            "claims": ChatPromptTemplate.from_messages(
                [("system", "Claimant history: {chat_history}. " + POLICY), ("human", "{question}")]
            ),
            "summary": PromptTemplate.from_template(POLICY + "Summarise: {question}"),
        }
        """,
        [(5, "PC502", 6)],
    ),
    (
        "class-attribute-with-message-template-objects",
        # A namespace class of prompts; the system message is a message-template object.
        """
        from langchain_core.prompts import (
            ChatPromptTemplate,
            HumanMessagePromptTemplate,
            SystemMessagePromptTemplate,
        )

        class Prompts:
            CLAIM = ChatPromptTemplate.from_messages(
                [
                    SystemMessagePromptTemplate.from_template("Customer: {customer_name}. " + POLICY),
                    HumanMessagePromptTemplate.from_template("{question}"),
                ]
            )
        """,
        [(9, "PC502", 11)],
    ),
    (
        "chain-factory-pipes-the-template-and-returns-it",
        # The factory returns the chain; whoever runs it (outside the project) fills it.
        """
        from langchain_core.output_parsers import StrOutputParser
        from langchain_core.prompts import ChatPromptTemplate

        def build_claim_chain(llm):
            prompt = ChatPromptTemplate.from_messages(
                [("system", "Earlier turns: {chat_history}\\n" + POLICY), ("human", "{question}")]
            )
            chain = prompt | llm | StrOutputParser()
            return chain
        """,
        [(6, "PC502", 7)],
    ),
    (
        "module-chain-piped-from-a-module-template",
        # A module-level template piped once into a module-level chain nothing here runs.
        """
        from langchain_openai import ChatOpenAI
        from langchain_core.prompts import ChatPromptTemplate

        CLAIM_PROMPT = ChatPromptTemplate.from_messages(
            [("system", "Account on file: {user_info}. " + POLICY), ("human", "{question}")]
        )
        CLAIM_CHAIN = CLAIM_PROMPT.pipe(ChatOpenAI(model="gpt-4o-mini"))
        """,
        [(5, "PC502", 6)],
    ),
    (
        "quiet-chain-run-in-the-module",
        # The chain is run in the module with a constant: the fill is seen, and nothing varies.
        """
        from langchain_core.prompts import ChatPromptTemplate

        def answer(llm, question):
            prompt = ChatPromptTemplate.from_messages(
                [("system", "Earlier turns: {chat_history}\\n" + POLICY), ("human", "{question}")]
            )
            chain = prompt | llm
            return chain.invoke({"chat_history": "none", "question": question})
        """,
        [],
    ),
    (
        "quiet-template-filled-by-a-mapping-first",
        # A mapping piped into the template fills it: the template rules judge the fill.
        """
        from langchain_core.prompts import ChatPromptTemplate
        from langchain_core.runnables import RunnablePassthrough

        PROMPT = ChatPromptTemplate.from_messages(
            [("system", "Earlier turns: {chat_history}\\n" + POLICY), ("human", "{question}")]
        )

        def build(llm):
            return {"chat_history": lambda _: "none", "question": RunnablePassthrough()} | PROMPT | llm
        """,
        [],
    ),
    (
        "system-message-template-alone-context-above-policy",
        # A system message template kept for a chat template made elsewhere.
        """
        from langchain_core.prompts import SystemMessagePromptTemplate

        CLAIM_SYSTEM = SystemMessagePromptTemplate.from_template("Passages: {context}\\n" + POLICY)
        """,
        [(4, "PC502", None)],
    ),
    (
        "quiet-system-message-template-alone-context-last",
        # The same with the passages at its end: whether a conversation follows is not seen.
        """
        from langchain_core.prompts import SystemMessagePromptTemplate

        CLAIM_SYSTEM = SystemMessagePromptTemplate.from_template(POLICY + "Passages: {context}")
        """,
        [],
    ),
    (
        "chat-template-context-last-above-the-history",
        # The conversation follows the system message: the passages cost all of it.
        """
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder

        PROMPT = ChatPromptTemplate.from_messages(
            [
                ("system", POLICY + "Passages: {context}"),
                MessagesPlaceholder("history"),
                ("human", "{question}"),
            ]
        )
        """,
        [(4, "PC502", 6)],
    ),
    (
        "legacy-chain-made-and-never-run-here",
        # A legacy chain built at import for the service that runs it.
        """
        from langchain.chains import LLMChain
        from langchain_openai import ChatOpenAI
        from langchain_core.prompts import PromptTemplate

        CLAIM_TEMPLATE = PromptTemplate(
            template="Earlier turns: {chat_history}\\n" + POLICY + "Claim: {question}",
            input_variables=["chat_history", "question"],
        )
        claim_chain = LLMChain(llm=ChatOpenAI(), prompt=CLAIM_TEMPLATE)
        """,
        [(6, "PC502", 7)],
    ),
    (
        "quiet-legacy-chain-run-with-constants",
        # The chain is run here: the fill is seen, with the same history text every time.
        """
        from langchain.chains import LLMChain
        from langchain_openai import ChatOpenAI
        from langchain_core.prompts import PromptTemplate

        CLAIM_TEMPLATE = PromptTemplate(
            template="Earlier turns: {chat_history}\\n" + POLICY + "Claim: {question}",
            input_variables=["chat_history", "question"],
        )
        claim_chain = LLMChain(llm=ChatOpenAI(), prompt=CLAIM_TEMPLATE)

        def answer(question):
            return claim_chain.run(chat_history="(none)", question=question)
        """,
        [],
    ),
    (
        "made-in-an-import-fallback",
        # Bound in an `except` block (an older LangChain's import path): the same template.
        """
        try:
            from langchain_core.prompts import ChatPromptTemplate
        except ImportError:
            from langchain.prompts import ChatPromptTemplate
            LEGACY = True
        else:
            LEGACY = False
        try:
            import claims_catalog
        except ImportError:
            PROMPT = ChatPromptTemplate.from_messages(
                [("system", "Claimant: {user_name}. " + POLICY), ("human", "{question}")]
            )
        """,
        [(12, "PC502", 13)],
    ),
    (
        "quiet-setting-named-variable",
        # The reply language and the persona are set per deployment, as their names say.
        """
        from langchain_core.prompts import ChatPromptTemplate

        PROMPT = ChatPromptTemplate.from_messages(
            [("system", "Answer in {reply_language} as {persona}. " + POLICY), ("human", "{question}")]
        )
        """,
        [],
    ),
    (
        "quiet-human-turn-variable",
        # Only the system message is judged: the question in the user turn is where it belongs.
        """
        from langchain_core.prompts import ChatPromptTemplate

        PROMPT = ChatPromptTemplate.from_messages(
            [("system", POLICY), ("human", "{question}\\nAnswer in one short paragraph.")]
        )
        """,
        [],
    ),
    (
        "quiet-variable-at-the-end-of-the-system-message",
        # The retrieved context closes the system message: little static text after it.
        """
        from langchain_core.prompts import ChatPromptTemplate

        PROMPT = ChatPromptTemplate.from_messages(
            [("system", POLICY + "Context:\\n{context}"), ("human", "{question}")]
        )
        """,
        [],
    ),
    (
        "quiet-filled-in-the-module-with-constants",
        # The fill is seen: the profile is the same text every time.
        """
        from langchain_core.prompts import ChatPromptTemplate

        PROMPT = ChatPromptTemplate.from_messages(
            [("system", "You help {customer_profile}. " + POLICY), ("human", "{question}")]
        )

        def answer(llm, question):
            chain = PROMPT | llm
            return chain.invoke({"customer_profile": "a retail customer", "question": question})
        """,
        [],
    ),
    (
        "quiet-partially-filled-as-it-is-made",
        # `.partial` fills it where it is made: the template rules judge what it passes.
        """
        from langchain_core.prompts import ChatPromptTemplate

        PROMPT = ChatPromptTemplate.from_messages(
            [("system", "You help {customer_profile}. " + POLICY), ("human", "{question}")]
        ).partial(customer_profile="a retail customer")
        """,
        [],
    ),
    (
        "quiet-handed-on-as-it-is-made",
        # Made inside the call that uses it: an agent the framework runs, filled as it fills it.
        """
        from langchain.agents import create_tool_calling_agent
        from langchain_core.prompts import PromptTemplate

        def make_agent(llm, tools):
            return create_tool_calling_agent(
                llm, tools, PromptTemplate.from_template("{query}\\n" + POLICY)
            )
        """,
        [],
    ),
    (
        "legacy-chain-returned-by-its-factory",
        # The legacy chain is made around the template and returned: whoever runs it fills it.
        """
        from langchain.chains import LLMChain
        from langchain_core.prompts import PromptTemplate

        def make_chain(llm):
            return LLMChain(llm=llm, prompt=PromptTemplate.from_template("{query}\\n" + POLICY))
        """,
        [(6, "PC502", None)],
    ),
    (
        "quiet-factory-called-in-the-module",
        # The factory is read in its module: what fills it is followed there, as before.
        """
        from langchain_core.prompts import PromptTemplate

        def claim_prompt():
            return PromptTemplate.from_template("The claim reads: {query}\\n" + POLICY)

        def runner(llm):
            return claim_prompt() | llm
        """,
        [],
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_unseen_fill_case(source: str, expected: list[tuple[int, str, int | None]]) -> None:
    assert findings(source) == expected


UNKNOWN = """
from langchain_core.prompts import ChatPromptTemplate

RECRUITER = ChatPromptTemplate.from_messages(
    [("system", "You screen candidates for {job_title}. " + POLICY * 9), ("human", "{question}")]
)
"""


def test_unknown_meaning_variable_is_asked_only_when_opted_in() -> None:
    # Neither per-request nor a setting by its name, above a long block of static text: PC508,
    # which runs only when selected.
    assert findings(UNKNOWN) == []
    assert findings(UNKNOWN, WITH_UNKNOWN) == [(4, "PC508", 5)]


def test_unknown_meaning_variable_above_short_text_is_not_asked() -> None:
    short = UNKNOWN.replace("POLICY * 9", "POLICY")
    assert findings(short, WITH_UNKNOWN) == []


PROMPTS = """
from langchain_core.prompts import ChatPromptTemplate

SUPPORT_PROMPT = ChatPromptTemplate.from_messages(
    [("system", "You are helping {customer_profile}. " + POLICY), ("human", "{question}")]
)
""".replace("POLICY", repr(POLICY))


def _lint(tmp_path: Path, app: str | None) -> list[tuple[str, int, str]]:
    return lint_beside(tmp_path, "prompts.py", PROMPTS, {} if app is None else {"app.py": app})


def test_no_fill_in_the_project_judges_the_variable_where_it_is_written(tmp_path: Path) -> None:
    assert _lint(tmp_path, None) == [("prompts.py", 4, "PC502")]


def test_a_fill_in_another_file_of_the_project_judges_instead(tmp_path: Path) -> None:
    # Only prompts.py is linted (a pre-commit run on the file changed): app.py fills the
    # template with a constant profile, so nothing varies above the policy.
    app = """
        from prompts import SUPPORT_PROMPT

        def answer(llm, question):
            chain = SUPPORT_PROMPT | llm
            return chain.invoke({"customer_profile": "a retail customer", "question": question})
        """
    assert _lint(tmp_path, app) == []
