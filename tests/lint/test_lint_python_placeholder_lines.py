"""
A finding about a value filled into a framework template's `{placeholder}` names the line the
placeholder is written on (`written_at`): that is where the fix goes (move it after the static
instructions), while the finding stays where the value is read or the template filled. Cases of
ours in each fill path's real call shape: LangChain templates filled by `.format`, `.invoke`,
`.partial`; a chain that fills `{context}` itself; CrewAI tasks and agents filled at kickoff;
a Haystack chat builder's messages and a Semantic Kernel prompt function.
"""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source

LONG = "Follow the refund policy exactly as written in section four. " * 20

CASES = [
    (
        "prompt-template-formatted-in-a-function",
        '''
        from datetime import datetime
        from langchain_core.prompts import PromptTemplate
        policy = PromptTemplate.from_template("""You answer billing questions.
        The time is {now}.
        RULES
        {question}""")
        def build(question):
            return policy.format(now=datetime.now().isoformat(), question=question)
        ''',
        [(9, "PC501", 5)],
    ),
    (
        "chat-template-invoked-with-a-dict",
        '''
        from datetime import date
        from langchain_core.prompts import ChatPromptTemplate
        triage = ChatPromptTemplate.from_messages([
            ("system", """You sort tickets.
        Today: {today}
        RULES"""),
            ("human", "{question}"),
        ])
        def node(state):
            return triage.invoke({"today": str(date.today()), "question": state["question"]})
        ''',
        [(11, "PC501", 6)],
    ),
    (
        "chat-template-partial",
        """
        import time
        from langchain_core.prompts import ChatPromptTemplate
        guide = ChatPromptTemplate.from_messages(
            [
                ("system", "Clock: {clock}\\n" "RULES"),
                ("human", "{question}"),
            ]
        )
        def make():
            return guide.partial(clock=time.ctime())
        """,
        [(11, "PC501", 6)],
    ),
    (
        "a-chain-fills-the-context-itself",
        '''
        from langchain.chains.combine_documents import create_stuff_documents_chain
        from langchain_core.prompts import ChatPromptTemplate
        SYSTEM = """Use the passages below.

        {context}

        RULES"""
        def get_prompt():
            return ChatPromptTemplate.from_messages([("system", SYSTEM), ("human", "{input}")])
        def make(llm):
            return create_stuff_documents_chain(llm, get_prompt())
        ''',
        [(12, "PC502", 6)],
    ),
    (
        "crew-kickoff-input-named-by-two-tasks",
        '''
        import streamlit as st
        from crewai import Agent, Crew, Task
        analyst = Agent(role="Analyst", goal="Study stocks.", backstory="Careful.")
        fetch = Task(description="Fetch prices of {symbol}.", expected_output="A table.",
                     agent=analyst)
        study = Task(
            description="""
            Study {symbol} and write a report.
            """,
            expected_output="RULES",
            agent=analyst,
        )
        crew = Crew(agents=[analyst], tasks=[fetch, study])
        symbol = st.text_input("Symbol:")
        crew.kickoff(inputs={"symbol": symbol})
        ''',
        [(15, "PC502", 9)],
    ),
    (
        "crew-kickoff-input-in-an-agent-backstory",
        '''
        from crewai import Agent, Crew, Task
        writer = Agent(
            role="Writer",
            goal="Write posts.",
            backstory="""You write for readers of
            {audience}. RULES""",
        )
        post = Task(description="Write a post.", expected_output="A post.", agent=writer)
        def run(audience):
            return Crew(agents=[writer], tasks=[post]).kickoff(inputs={"audience": audience})
        ''',
        [(11, "PC502", 7)],
    ),
    (
        "haystack-chat-builder",
        '''
        from datetime import datetime
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        template = [
            ChatMessage.from_system("""You answer billing questions.
        Today is {{ today }}.
        RULES"""),
            ChatMessage.from_user("{{ question }}"),
        ]
        builder = ChatPromptBuilder(template=template)
        def answer(question):
            return builder.run(template_variables={"today": datetime.now().isoformat()})
        ''',
        [(13, "PC501", 7)],
    ),
    (
        "semantic-kernel-prompt-function",
        '''
        from datetime import datetime
        from semantic_kernel import Kernel
        from semantic_kernel.functions import KernelArguments, KernelFunctionFromPrompt
        kernel = Kernel()
        answer = KernelFunctionFromPrompt(
            function_name="answer", plugin_name="support",
            prompt="""You help with orders.
        The time is {{$now}}.
        RULES
        Question: {{$input}}""",
        )
        async def reply(question):
            arguments = KernelArguments(now=datetime.now().isoformat(), input=question)
            return await kernel.invoke(answer, arguments)
        ''',
        [(14, "PC501", 9)],
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_template_fill_names_its_placeholder_line(
    source: str, expected: list[tuple[int, str, int]]
) -> None:
    text = textwrap.dedent(source).replace("RULES", LONG)
    found = lint_python_source(text)
    placed = [(f.line, f.code, f.written_at) for f in found if f.severity != "info"]
    assert placed == expected


def test_a_chain_that_fills_a_module_template_in_a_plain_function_is_followed() -> None:
    # No word of a prompt or a request API on the lines of `make`: the fill call itself is what
    # marks it for the analysis (it was skipped, and the `{context}` finding silently lost).
    source = textwrap.dedent(
        """
        from langchain.chains.combine_documents import create_stuff_documents_chain
        from langchain_core.prompts import ChatPromptTemplate
        qa = ChatPromptTemplate.from_messages(
            [("system", "Use the passages below.\\n{context}\\nRULES"), ("human", "{input}")]
        )
        def make(llm):
            return create_stuff_documents_chain(llm, qa)
        """
    ).replace("RULES", LONG)
    found = [(f.line, f.code, f.written_at) for f in lint_python_source(source)]
    assert found == [(8, "PC502", 5)]


def test_a_placeholder_is_placed_in_a_file_with_crlf_line_ends_and_non_ascii_text() -> None:
    source = textwrap.dedent(
        '''
        from openai import OpenAI
        client = OpenAI()
        GUIDE = """Réponds à l’utilisateur.
        Question posée : {question}
        RULES"""
        def answer(question):
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": GUIDE.format(question=question)},
                {"role": "user", "content": "Go."},
            ])
        '''
    ).replace("RULES", LONG)
    found = lint_python_source(source.replace("\n", "\r\n"))
    assert [(f.line, f.code, f.written_at) for f in found] == [(9, "PC502", 5)]


def test_a_placeholder_in_an_f_string_template_is_placed() -> None:
    # `{{today}}` in an f-string is the template's `{today}`; the f-string's own `{today}` field
    # on the line above is not it.
    source = textwrap.dedent(
        '''
        from datetime import date
        from langchain_core.prompts import PromptTemplate
        today = "x"
        policy = PromptTemplate.from_template(f"""You help {today} users.
        Today is {{today}}.
        RULES
        {{question}}""")
        def build(question):
            return policy.format(today=str(date.today()), question=question)
        '''
    ).replace("RULES", LONG)
    found = lint_python_source(source)
    assert [(f.line, f.code, f.written_at) for f in found] == [(10, "PC501", 6)]
