"""
Framework prompt templates whose variables are filled later, by name: Haystack's
`ChatPromptBuilder` (a list of `ChatMessage`s with Jinja inside, filled by
`run(template_variables=..., **kwargs)`, or given its template at `run(template=...)`) and
Semantic Kernel's prompt functions (`{{$var}}`, handlebars `{{var}}` and jinja2 `{{ var }}`
templates in `KernelFunctionFromPrompt(prompt=...)`, `PromptTemplateConfig(template=...)`,
`kernel.invoke_prompt(...)`, filled by `KernelArguments` at `kernel.invoke(...)`). Each variable
is judged where the template puts it, as LangChain's `ChatPromptTemplate` variables are: a clock
or a per-request value with long static text after it, or with the conversation after its
message, is reported where it is filled; at the end it costs nothing. Real-shaped cases of ours
(the APIs as the frameworks' documentation gives them); each failed before the frameworks'
templates were read.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint.python import lint_python_source

LONG = "Follow the refund policy exactly as written in section four. " * 20


def _source(source: str) -> str:
    # LONG_YAML: the long instructions inside a YAML literal block, at its indentation
    text = textwrap.dedent(source).replace("LONG_YAML", LONG)
    return text.replace("LONG", repr(LONG))


def findings(source: str) -> list[tuple[int, str]]:
    found = lint_python_source(_source(source))
    return [(f.line, f.code) for f in found if f.severity != "info"]


def notes(source: str) -> list[tuple[int, str]]:
    found = lint_python_source(_source(source))
    return [(f.line, f.code) for f in found if f.severity == "info"]


HAYSTACK = [
    (
        "chat-builder-clock-in-system-message",
        """
        from datetime import datetime
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        template = [
            ChatMessage.from_system("Today is {{ today }}. You answer billing questions. " + LONG),
            ChatMessage.from_user("{{ question }}"),
        ]
        builder = ChatPromptBuilder(template=template)
        def answer(question):
            today = datetime.now().strftime("%Y-%m-%d %H:%M")
            return builder.run(template_variables={"today": today, "question": question})
        """,
        [(11, "PC501")],
    ),
    (
        "chat-builder-variables-as-keywords",
        """
        from datetime import datetime
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        builder = ChatPromptBuilder(template=[
            ChatMessage.from_system(text="Session started {{ started }}.\\n" + LONG),
            ChatMessage.from_user("{{ question }}"),
        ])
        def answer(question):
            return builder.run(started=datetime.now().isoformat(), question=question)
        """,
        [(10, "PC501")],
    ),
    (
        "chat-builder-clock-at-the-end-of-the-last-turn",
        """
        from datetime import datetime
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        builder = ChatPromptBuilder(template=[
            ChatMessage.from_system("You answer billing questions. " + LONG),
            ChatMessage.from_user("{{ question }}\\nAsked at {{ now }}"),
        ])
        def answer(question):
            return builder.run(template_variables={"now": datetime.now().isoformat(),
                                                   "question": question})
        """,
        [],
    ),
    (
        "chat-builder-documents-then-question-in-the-last-turn",
        """
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        template = [
            ChatMessage.from_system("You answer from the documents only. " + LONG),
            ChatMessage.from_user(
                "Documents:\\n{% for doc in documents %}{{ doc.content }}\\n{% endfor %}"
                "Question: {{ question }}"
            ),
        ]
        builder = ChatPromptBuilder(template=template, required_variables=["question"])
        def answer(retriever, question):
            documents = retriever.run(query=question)["documents"]
            return builder.run(template_variables={"documents": documents, "question": question})
        """,
        [],
    ),
    (
        "chat-builder-template-given-at-run-with-history-after-the-system-message",
        """
        from datetime import date
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        SYSTEM = "You are the support assistant. " + LONG + " Today is {{ today }}."
        builder = ChatPromptBuilder()
        def reply(history, question):
            messages = [ChatMessage.from_system(SYSTEM), *history, ChatMessage.from_user("{{ q }}")]
            return builder.run(template=messages,
                               template_variables={"today": date.today().isoformat(), "q": question})
        """,
        [(10, "PC501")],
    ),
    (
        "chat-builder-per-request-documents-above-static-instructions",
        """
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        builder = ChatPromptBuilder(template=[
            ChatMessage.from_system("Context:\\n{% for d in documents %}{{ d.content }}{% endfor %}\\n" + LONG),
            ChatMessage.from_user("{{ question }}"),
        ])
        def answer(store, question):
            documents = store.similarity_search(question)
            return builder.run(template_variables={"documents": documents, "question": question})
        """,
        # the search's result, and the question it passes through (as for LangChain's)
        [(9, "PC502"), (9, "PC502")],
    ),
    (
        "chat-builder-static-values-are-clean",
        """
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        builder = ChatPromptBuilder(template=[
            ChatMessage.from_system("You are {{ name }}, the support assistant. " + LONG),
            ChatMessage.from_user("{{ question }}"),
        ])
        def answer(question):
            return builder.run(template_variables={"name": "Ada", "question": question})
        """,
        [],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in HAYSTACK], ids=[c[0] for c in HAYSTACK]
)
def test_haystack_chat_prompt_builder(source: str, expected: list[tuple[int, str]]) -> None:
    assert findings(source) == expected


def test_haystack_chat_builder_whose_messages_are_unseen_is_not_followed() -> None:
    # The template comes from somewhere the analysis cannot read: where the clock lands is
    # unknown, so it is a note (PC506), neither clean nor a buster it may not be.
    source = """
        from datetime import datetime
        from haystack.components.builders import ChatPromptBuilder
        def answer(load_template, question):
            builder = ChatPromptBuilder(template=load_template("support"))
            return builder.run(template_variables={"now": datetime.now().isoformat()})
        """
    assert findings(source) == []
    assert notes(source) == [(6, "PC506")]


SEMANTIC_KERNEL = [
    (
        "prompt-function-filled-by-kernel-invoke",
        """
        from datetime import datetime
        from semantic_kernel import Kernel
        from semantic_kernel.functions import KernelArguments, KernelFunctionFromPrompt
        kernel = Kernel()
        answer = KernelFunctionFromPrompt(
            function_name="answer", plugin_name="support",
            prompt="The time is {{$now}}. " + LONG + "Question: {{$input}}",
        )
        async def reply(question):
            arguments = KernelArguments(now=datetime.now().isoformat(), input=question)
            return await kernel.invoke(answer, arguments)
        """,
        [(11, "PC501")],
    ),
    (
        "prompt-function-variable-at-the-end-is-clean",
        """
        from datetime import datetime
        from semantic_kernel import Kernel
        from semantic_kernel.functions import KernelArguments, KernelFunctionFromPrompt
        kernel = Kernel()
        answer = KernelFunctionFromPrompt(
            function_name="answer", prompt=LONG + "Question: {{$input}} (asked {{ $now }})",
        )
        async def reply(question):
            return await kernel.invoke(
                answer, KernelArguments(now=datetime.now().isoformat(), input=question)
            )
        """,
        [],
    ),
    (
        "template-config-added-to-the-kernel-invoked-by-keyword",
        """
        from datetime import date
        from semantic_kernel import Kernel
        from semantic_kernel.functions import KernelArguments
        from semantic_kernel.prompt_template import InputVariable, PromptTemplateConfig
        config = PromptTemplateConfig(
            template="Today: {{$today}}\\n" + LONG + "{{$request}}",
            name="triage",
            template_format="semantic-kernel",
            input_variables=[InputVariable(name="today"), InputVariable(name="request")],
        )
        def build(kernel: Kernel):
            return kernel.add_function(
                plugin_name="desk", function_name="triage", prompt_template_config=config
            )
        async def triage(kernel, request):
            function = build(kernel)
            return await kernel.invoke(
                function=function,
                arguments=KernelArguments(today=date.today().isoformat(), request=request),
            )
        """,
        [(20, "PC501")],
    ),
    (
        "handlebars-template-filled-through-function-invoke",
        """
        import uuid
        from semantic_kernel.functions import KernelArguments, KernelFunctionFromPrompt
        summarise = KernelFunctionFromPrompt(
            function_name="summarise",
            prompt="Run {{run_id}}.\\n" + LONG + "{{text}}",
            template_format="handlebars",
        )
        async def run(kernel, text):
            return await summarise.invoke(kernel, KernelArguments(run_id=str(uuid.uuid4()), text=text))
        """,
        [(10, "PC501")],
    ),
    (
        "jinja2-template-per-request-documents-above-instructions",
        """
        from semantic_kernel.functions import KernelArguments, KernelFunctionFromPrompt
        from semantic_kernel.prompt_template import PromptTemplateConfig
        config = PromptTemplateConfig(
            template="{% for d in documents %}{{ d }}\\n{% endfor %}" + LONG + "{{ question }}",
            template_format="jinja2",
        )
        grounded = KernelFunctionFromPrompt(function_name="grounded", prompt_template_config=config)
        async def ask(kernel, store, question):
            documents = store.similarity_search(question)
            return await kernel.invoke(grounded, KernelArguments(documents=documents, question=question))
        """,
        [(10, "PC502"), (10, "PC502")],
    ),
    (
        "invoke-prompt-with-arguments",
        """
        from datetime import datetime
        from semantic_kernel.functions import KernelArguments
        async def ask(kernel, question):
            return await kernel.invoke_prompt(
                prompt="Now: {{$now}}\\n" + LONG + "{{$q}}",
                arguments=KernelArguments(now=datetime.now().isoformat(), q=question),
            )
        """,
        [(7, "PC501")],
    ),
    (
        "static-arguments-are-clean",
        """
        from semantic_kernel.functions import KernelArguments, KernelFunctionFromPrompt
        answer = KernelFunctionFromPrompt(function_name="answer",
                                          prompt="You are {{$persona}}. " + LONG + "{{$input}}")
        async def reply(kernel, question):
            return await kernel.invoke(answer, KernelArguments(persona="Ada", input=question))
        """,
        [],
    ),
    (
        "yaml-prompt-in-code",
        """
        from datetime import datetime
        from semantic_kernel.functions import KernelArguments, KernelFunctionFromPrompt
        PROMPT_YAML = '''
        name: Triage
        template_format: semantic-kernel
        template: |
          The date is {{$today}}.
          LONG_YAML
          Ticket: {{$ticket}}
        input_variables:
          - name: today
          - name: ticket
        '''
        triage = KernelFunctionFromPrompt.from_yaml(PROMPT_YAML)
        async def run(kernel, ticket):
            return await kernel.invoke(triage, KernelArguments(today=datetime.now().isoformat(), ticket=ticket))
        """,
        [(17, "PC501")],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"), [c[1:] for c in SEMANTIC_KERNEL], ids=[c[0] for c in SEMANTIC_KERNEL]
)
def test_semantic_kernel_prompt_templates(source: str, expected: list[tuple[int, str]]) -> None:
    assert findings(source) == expected


def test_semantic_kernel_yaml_prompt_read_from_a_file_is_not_followed() -> None:
    source = """
        from datetime import datetime
        from pathlib import Path
        from semantic_kernel.functions import KernelArguments, KernelFunctionFromPrompt
        triage = KernelFunctionFromPrompt.from_yaml(Path("prompts/triage.yaml").read_text())
        async def run(kernel, ticket):
            return await kernel.invoke(triage, KernelArguments(today=datetime.now().isoformat()))
        """
    assert findings(source) == []
    assert notes(source) == [(7, "PC506")]


LANGCHAIN_FORMATTED_ELSEWHERE = [
    (
        "prompt-template-module-constant-formatted-in-a-function",
        """
        from datetime import datetime
        from langchain_core.prompts import PromptTemplate
        policy = PromptTemplate.from_template("Now {now}. " + LONG + "{question}")
        def build(question):
            return policy.format(now=datetime.now().isoformat(), question=question)
        """,
        [(6, "PC501")],
    ),
    (
        "chat-prompt-template-format-messages-in-a-node",
        """
        from datetime import date
        from langchain_core.prompts import ChatPromptTemplate
        triage = ChatPromptTemplate.from_messages(
            [("system", "Today is {today}. " + LONG), ("human", "{question}")]
        )
        def node(state):
            return triage.format_messages(today=str(date.today()), question=state["question"])
        """,
        [(8, "PC501")],
    ),
    (
        "prompt-template-value-at-the-end-formatted-elsewhere",
        """
        from datetime import datetime
        from langchain_core.prompts import PromptTemplate
        PROMPT = PromptTemplate.from_template(LONG + "{question} (asked {now})")
        def build(question):
            return PROMPT.format(now=datetime.now().isoformat(), question=question)
        """,
        [],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"),
    [c[1:] for c in LANGCHAIN_FORMATTED_ELSEWHERE],
    ids=[c[0] for c in LANGCHAIN_FORMATTED_ELSEWHERE],
)
def test_langchain_template_formatted_in_another_function(
    source: str, expected: list[tuple[int, str]]
) -> None:
    # `.format(` is every str.format: the pre-scan skipped such a call unless a word on its
    # line was a request API's or a prompt's (`prompt.format(`), so a template whose name is
    # neither (`policy`), formatted apart from where it was made, was never judged (the first
    # case failed before; `format_messages(` was already followed).
    assert findings(source) == expected


def test_semantic_kernel_template_format_known_only_at_run_time_reads_every_syntax() -> None:
    source = """
        from datetime import datetime
        from semantic_kernel.functions import KernelArguments, KernelFunctionFromPrompt
        def make(template_format):
            return KernelFunctionFromPrompt(function_name="answer", template_format=template_format,
                                            prompt="Now {{ now }}. " + LONG + "{{$input}}")
        async def reply(kernel, fmt, question):
            arguments = KernelArguments(now=datetime.now().isoformat(), input=question)
            return await kernel.invoke(make(fmt), arguments)
        """
    assert findings(source) == [(8, "PC501")]


SEMANTIC_KERNEL_AGENTS = [
    (
        "agent-instructions-template-filled-by-its-arguments",
        """
        from datetime import datetime
        from semantic_kernel.agents import ChatCompletionAgent
        from semantic_kernel.functions import KernelArguments
        def make_agent(service):
            return ChatCompletionAgent(
                service=service, name="Support",
                instructions="It is {{$now}}. " + LONG,
                arguments=KernelArguments(now=datetime.now().isoformat()),
            )
        """,
        [(9, "PC501")],
    ),
    (
        "agent-instructions-filled-at-get-response",
        """
        from datetime import datetime
        from semantic_kernel.agents import ChatCompletionAgent
        from semantic_kernel.functions import KernelArguments
        agent = ChatCompletionAgent(name="Support", instructions="You help {{$team}}. Now: {{$now}}.")
        async def answer(thread, question):
            return await agent.get_response(
                messages=question, thread=thread,
                arguments=KernelArguments(team="billing", now=datetime.now().isoformat()),
            )
        """,
        # at the end of the instructions, yet before the whole conversation
        [(9, "PC501")],
    ),
    (
        "agent-instructions-with-constant-arguments-are-clean",
        """
        from semantic_kernel.agents import ChatCompletionAgent
        from semantic_kernel.functions import KernelArguments
        agent = ChatCompletionAgent(name="StoryTeller",
            instructions="Tell a story about {{$topic}} that is {{$length}} sentences long.",
            arguments=KernelArguments(topic="Dog", length="3"))
        """,
        [],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"),
    [c[1:] for c in SEMANTIC_KERNEL_AGENTS],
    ids=[c[0] for c in SEMANTIC_KERNEL_AGENTS],
)
def test_semantic_kernel_agent_instructions_template(
    source: str, expected: list[tuple[int, str]]
) -> None:
    assert findings(source) == expected


def test_a_prompt_functions_result_is_the_models_answer() -> None:
    # What a prompt function returns is this request's answer: per-request data in a prefix.
    source = """
        import anthropic
        from semantic_kernel.functions import KernelArguments, KernelFunctionFromPrompt
        client = anthropic.Anthropic()
        summarise = KernelFunctionFromPrompt(function_name="summarise", prompt="Summarise: {{$text}}")
        async def ask(kernel, text, history, question):
            summary = await summarise.invoke(kernel, KernelArguments(text=text))
            return client.messages.create(model="claude-sonnet-4-5", max_tokens=512,
                system="Summary so far: " + str(summary) + LONG,
                messages=[*history, {"role": "user", "content": question}])
        """
    assert findings(source) == [(7, "PC502")]


HAYSTACK_PIPELINES = [
    (
        "chat-builder-in-a-pipeline-filled-by-component-name",
        """
        from datetime import datetime
        from haystack import Pipeline
        from haystack.components.builders import ChatPromptBuilder
        from haystack.components.generators.chat import OpenAIChatGenerator
        from haystack.dataclasses import ChatMessage
        template = [
            ChatMessage.from_system("Current time: {{ now }}. " + LONG),
            ChatMessage.from_user("{{ query }}"),
        ]
        pipe = Pipeline()
        pipe.add_component("prompt_builder", ChatPromptBuilder(template=template))
        pipe.add_component("llm", OpenAIChatGenerator(model="gpt-4o-mini"))
        pipe.connect("prompt_builder.prompt", "llm.messages")
        def ask(query):
            now = datetime.now().isoformat()
            return pipe.run(data={"prompt_builder": {"template_variables": {"now": now, "query": query}}})
        """,
        [(16, "PC501")],
    ),
    (
        "prompt-builder-in-a-pipeline-flat-inputs",
        """
        from datetime import date
        from haystack import Pipeline
        from haystack.components.builders import PromptBuilder
        pipe = Pipeline()
        pipe.add_component("builder", PromptBuilder(template="Today is {{ today }}.\\n" + LONG + "{{ query }}"))
        def ask(query):
            return pipe.run({"today": date.today().isoformat(), "query": query})
        """,
        [(8, "PC501")],
    ),
    (
        "pipeline-value-at-the-end-is-clean",
        """
        from datetime import datetime
        from haystack import Pipeline
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        pipe = Pipeline()
        pipe.add_component("prompt_builder", ChatPromptBuilder(template=[
            ChatMessage.from_system(LONG), ChatMessage.from_user("{{ query }} ({{ now }})")]))
        def ask(query):
            return pipe.run({"prompt_builder": {"query": query, "now": datetime.now().isoformat()}})
        """,
        [],
    ),
    (
        "pipeline-built-in-init-run-in-a-method",
        """
        from datetime import datetime
        from haystack import Pipeline
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        class Assistant:
            def __init__(self):
                self.pipeline = Pipeline()
                self.pipeline.add_component("prompt_builder", ChatPromptBuilder(template=[
                    ChatMessage.from_system("Session {{ started }}. " + LONG),
                    ChatMessage.from_user("{{ query }}")]))
            def ask(self, query):
                started = datetime.now().isoformat()
                return self.pipeline.run({"prompt_builder": {"template_variables": {"started": started, "query": query}}})
        """,
        [(13, "PC501")],
    ),
]


HAYSTACK_PIPELINES.append(
    (
        "pipeline-made-by-a-function",
        """
        from datetime import datetime
        from haystack import Pipeline
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        def build_pipeline():
            pipe = Pipeline()
            pipe.add_component("prompt_builder", ChatPromptBuilder(template=[
                ChatMessage.from_system("Session {{ started }}. " + LONG),
                ChatMessage.from_user("{{ query }}")]))
            return pipe
        PIPE = build_pipeline()
        def ask(query):
            return PIPE.run({"prompt_builder": {"started": datetime.now().isoformat(), "query": query}})
        """,
        [(14, "PC501")],
    )
)


@pytest.mark.parametrize(
    ("source", "expected"),
    [c[1:] for c in HAYSTACK_PIPELINES],
    ids=[c[0] for c in HAYSTACK_PIPELINES],
)
def test_haystack_pipeline_fills_its_builders(source: str, expected: list[tuple[int, str]]) -> None:
    assert findings(source) == expected


@pytest.mark.parametrize(
    "call",
    [
        'kernel.invoke(plugin_name="Writer", function_name="Summarize", arguments=arguments)',
        'kernel.invoke(plugin["Summarize"], arguments)',
        'plugin["Summarize"].invoke(kernel, arguments)',
    ],
    ids=["by-name", "looked-up", "on-the-function"],
)
def test_semantic_kernel_function_not_seen_made_leaves_its_arguments_not_followed(
    call: str,
) -> None:
    # A plugin loaded from a folder of skprompt.txt files: its templates are not read, so a
    # clock in its arguments is a note (PC506), never taken as clean.
    source = f"""
        from datetime import datetime
        from semantic_kernel.functions import KernelArguments
        async def summarise(kernel, text):
            plugin = kernel.add_plugin(parent_directory="prompts", plugin_name="Writer")
            arguments = KernelArguments(input=text, now=datetime.now().isoformat())
            return await {call}
        """
    assert findings(source) == []
    assert notes(source) == [(6, "PC506")]  # where the clock is read


def test_semantic_kernel_arguments_with_nothing_varying_are_quiet() -> None:
    source = """
        from semantic_kernel.functions import KernelArguments
        async def summarise(kernel):
            return await kernel.invoke(plugin_name="Writer", function_name="Summarize",
                                       arguments=KernelArguments(style="brief"))
        """
    assert findings(source) == [] and notes(source) == []


HAYSTACK_CONNECTED = [
    (
        "retrieved-documents-connected-above-instructions",
        """
        from haystack import Pipeline
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        pipe = Pipeline()
        pipe.add_component("retriever", retriever)
        pipe.add_component("prompt_builder", ChatPromptBuilder(template=[
            ChatMessage.from_system("Context:\\n{% for d in documents %}{{ d.content }}\\n{% endfor %}" + LONG),
            ChatMessage.from_user("{{ query }}")]))
        pipe.connect("retriever.documents", "prompt_builder.documents")
        def ask(query):
            return pipe.run({"retriever": {"query": query}, "prompt_builder": {"query": query}})
        """,
        [(10, "PC502")],
    ),
    (
        "retrieved-documents-connected-into-the-last-turn-are-clean",
        """
        from haystack import Pipeline
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        pipe = Pipeline()
        pipe.add_component("prompt_builder", ChatPromptBuilder(template=[
            ChatMessage.from_system(LONG),
            ChatMessage.from_user("{% for d in documents %}{{ d.content }}{% endfor %}\\n{{ query }}")]))
        pipe.connect("retriever.documents", "prompt_builder.documents")
        def ask(query):
            return pipe.run({"retriever": {"query": query}, "prompt_builder": {"query": query}})
        """,
        [],
    ),
]


@pytest.mark.parametrize(
    ("source", "expected"),
    [c[1:] for c in HAYSTACK_CONNECTED],
    ids=[c[0] for c in HAYSTACK_CONNECTED],
)
def test_haystack_pipeline_connection_into_a_builder_is_per_request(
    source: str, expected: list[tuple[int, str]]
) -> None:
    # What a component sends a builder (`connect("retriever.documents", "prompt_builder.
    # documents")`) is made for this run: per-request data, judged where the template puts it.
    assert findings(source) == expected


# A Semantic Kernel plugin folder as the samples lay it out: one folder per prompt function
# (skprompt.txt, config.json), or a YAML prompt file, under parent_directory/plugin_name.
SK_APP = """
from datetime import datetime
from semantic_kernel import Kernel
from semantic_kernel.functions import KernelArguments

kernel = Kernel()
writer = kernel.add_plugin(parent_directory="prompts", plugin_name="Writer")

async def summarise(text):
    arguments = KernelArguments(input=text, now=datetime.now().isoformat())
    return await kernel.invoke(writer["Summarize"], arguments)

async def triage(ticket):
    return await writer["Triage"].invoke(kernel, KernelArguments(ticket=ticket, today=str(datetime.now().date())))
"""
SKPROMPT = "It is {{$now}}.\n" + LONG + "\nSummarize this:\n{{$input}}\n"
TRIAGE_YAML = (
    "name: Triage\ntemplate_format: handlebars\ntemplate: |\n  Ticket: {{ticket}}\n  "
    + LONG
    + "\n  Date: {{today}}\n"
)


def _sk_project(tmp_path: Path, *, prompts: bool = True) -> list[tuple[str, int, str]]:
    from promptcache.lint import LintConfig, lint_paths

    (tmp_path / "app.py").write_text(textwrap.dedent(SK_APP))
    if prompts:
        function = tmp_path / "prompts" / "Writer" / "Summarize"
        function.mkdir(parents=True)
        (function / "skprompt.txt").write_text(SKPROMPT)
        (function / "config.json").write_text('{"schema": 1, "description": "Summarize"}')
        (tmp_path / "prompts" / "Writer" / "Triage.yaml").write_text(TRIAGE_YAML)
    found = lint_paths([tmp_path / "app.py"], config=LintConfig(root=tmp_path))
    return [(f.code, f.line, f.severity) for f in found]


def test_semantic_kernel_plugin_folder_templates_are_read(tmp_path: Path) -> None:
    # The clock above the long instructions of skprompt.txt is a buster where it is read; the
    # YAML function's date comes at its end (quiet) and its ticket is the request's own data.
    assert _sk_project(tmp_path) == [("PC501", 10, "warning")]


def test_semantic_kernel_plugin_folder_that_is_missing_is_not_followed(tmp_path: Path) -> None:
    found = _sk_project(tmp_path, prompts=False)
    assert found == [("PC506", 10, "info"), ("PC506", 14, "info")]


def test_semantic_kernel_plugin_function_whose_prompt_cannot_be_read_is_not_followed(
    tmp_path: Path,
) -> None:
    _sk_project(tmp_path)
    (tmp_path / "prompts" / "Writer" / "Summarize" / "skprompt.txt").write_bytes(b"\xff\xfe bad")
    found = _sk_project_again(tmp_path)
    assert ("PC506", 10, "info") in found and ("PC501", 10, "warning") not in found


def _sk_project_again(tmp_path: Path) -> list[tuple[str, int, str]]:
    from promptcache.lint import LintConfig, lint_paths

    found = lint_paths([tmp_path / "app.py"], config=LintConfig(root=tmp_path))
    return [(f.code, f.line, f.severity) for f in found]


def test_semantic_kernel_plugin_config_nested_too_deeply_is_a_format_unknown(
    tmp_path: Path,
) -> None:
    # json.loads raises RecursionError on a config.json nested past its depth: it had escaped
    # as "the module is nested too deeply to analyse" (PC500 on app.py), losing its findings.
    _sk_project(tmp_path)
    config = tmp_path / "prompts" / "Writer" / "Summarize" / "config.json"
    config.write_text("[" * 100_000 + "]" * 100_000)
    assert _sk_project_again(tmp_path) == [("PC501", 10, "warning")]


HAYSTACK_PART_UNSEEN = """
from datetime import datetime
from haystack.components.builders import ChatPromptBuilder
from haystack.dataclasses import ChatMessage
import helpers
builder = ChatPromptBuilder(template=[{messages}])
def answer(question):
    today = datetime.now().strftime("%Y-%m-%d %H:%M")
    return builder.run(template_variables={{"today": today, "question": question}})
"""


@pytest.mark.parametrize(
    "messages",
    [
        'ChatMessage.from_system(helpers.SYSTEM), ChatMessage.from_user("{{ question }}")',
        'ChatMessage.from_system(helpers.SYSTEM + LONG), ChatMessage.from_user("{{ question }}")',
        'helpers.system_message(), ChatMessage.from_user("{{ question }}")',
        '*helpers.BASE, ChatMessage.from_user("{{ question }}")',
    ],
    ids=["text-unseen", "text-partly-unseen", "message-unseen", "messages-spliced"],
)
def test_haystack_chat_builder_with_a_message_unseen_leaves_its_variables_not_followed(
    messages: str,
) -> None:
    # Haystack renders every message of the template: a variable that no message the analysis
    # reads uses may be in the one it cannot read. The clock was reported nothing at all.
    source = HAYSTACK_PART_UNSEEN.format(messages=messages)
    assert findings(source) == []
    assert notes(source) == [(8, "PC506")]  # where the clock is read


def test_haystack_chat_builder_with_a_message_unseen_still_judges_the_seen_ones() -> None:
    source = HAYSTACK_PART_UNSEEN.format(
        messages='ChatMessage.from_system("Today is {{ today }}. " + LONG), '
        "ChatMessage.from_user(helpers.USER)"
    )
    assert findings(source) == [(8, "PC501")]


SK_PART_UNSEEN = """
from datetime import datetime
from semantic_kernel import Kernel
from semantic_kernel.functions import KernelArguments, KernelFunctionFromPrompt
from semantic_kernel.prompt_template import PromptTemplateConfig
import helpers
kernel = Kernel()
answer = KernelFunctionFromPrompt(function_name="answer", plugin_name="support", {prompt})
async def reply(question):
    arguments = KernelArguments(now=datetime.now().isoformat(), input=question)
    return await kernel.invoke(answer, arguments)
"""


@pytest.mark.parametrize(
    "prompt",
    [
        'prompt=helpers.HEAD + LONG + "Question: {{$input}}"',
        'prompt=f"{helpers.HEAD} " + LONG + "Question: {{$input}}"',
        'prompt_template_config=PromptTemplateConfig(template=helpers.HEAD + "Q: {{$input}}")',
    ],
    ids=["concatenated", "f-string", "config"],
)
def test_semantic_kernel_template_partly_unseen_leaves_its_other_variables_not_followed(
    prompt: str,
) -> None:
    # The part of the template made in another module may hold {{$now}}: the clock was quiet.
    source = SK_PART_UNSEEN.format(prompt=prompt)
    assert findings(source) == []
    assert notes(source) == [(10, "PC506")]


def test_semantic_kernel_invoke_prompt_partly_unseen_leaves_its_other_variables_not_followed() -> (
    None
):
    source = """
        from datetime import datetime
        from semantic_kernel import Kernel
        import helpers
        kernel = Kernel()
        async def reply(question):
            return await kernel.invoke_prompt(helpers.HEAD + " Q: {{$input}}",
                                              now=datetime.now().isoformat(), input=question)
        """
    assert findings(source) == [] and notes(source) == [(8, "PC506")]


HAYSTACK_RUN_UNSEEN = """
from datetime import datetime
from haystack import Pipeline
from haystack.components.builders import ChatPromptBuilder
from haystack.dataclasses import ChatMessage
import helpers
template = [ChatMessage.from_system("Current time: {{{{ now }}}}. " + LONG),
            ChatMessage.from_user("{{{{ query }}}}")]
pipe = Pipeline()
pipe.add_component("prompt_builder", ChatPromptBuilder(template=template))
def ask(query):
    now = datetime.now().isoformat()
    {run}
"""


@pytest.mark.parametrize(
    "run",
    [
        "return pipe.run(helpers.make(now, query))",
        'return pipe.run({helpers.NAME: {"template_variables": {"now": now, "query": query}}})',
        "return pipe.run({**helpers.inputs(now), 'query': query})",
        'return pipe.run({"prompt_builder": helpers.inputs(now, query)})',
    ],
    ids=["data-unseen", "component-name-unseen", "data-spread", "inputs-unseen"],
)
def test_haystack_pipeline_run_with_data_unseen_is_not_followed(run: str) -> None:
    # The pipeline holds a prompt builder; what its run fills it with cannot be read, so the
    # clock handed over is a note (PC506), not nothing.
    source = HAYSTACK_RUN_UNSEEN.format(run=run)
    assert findings(source) == []
    assert (12, "PC506") in notes(source)


@pytest.mark.parametrize(
    "source",
    [
        """
        from datetime import datetime
        from semantic_kernel import Kernel
        from semantic_kernel.functions import KernelFunctionFromPrompt
        import helpers
        kernel = Kernel()
        answer = KernelFunctionFromPrompt(function_name="answer", plugin_name="support",
                                          prompt="The time is {{$now}}. " + LONG + "Q: {{$input}}")
        async def reply(question):
            extra = helpers.extra(datetime.now())
            return await kernel.invoke(answer, input=question, **extra)
        """,
        """
        from datetime import datetime
        from haystack.components.builders import ChatPromptBuilder
        from haystack.dataclasses import ChatMessage
        import helpers
        builder = ChatPromptBuilder(template=[
            ChatMessage.from_system("Current time: {{ now }}. " + LONG),
            ChatMessage.from_user("{{ question }}")])
        def answer(question):
            extra = helpers.extra(datetime.now())
            return builder.run(question=question, **extra)
        """,
    ],
    ids=["semantic-kernel-invoke", "haystack-builder-run"],
)
def test_variables_spread_from_an_unread_mapping_are_not_followed(source: str) -> None:
    # `**extra` may hold any variable of the template: what varies in it was reported nothing.
    assert findings(source) == []
    assert notes(source) == [(10, "PC506")]
