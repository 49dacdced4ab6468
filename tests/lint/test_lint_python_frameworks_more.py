"""The frameworks added after the first registry (`frameworks/`: CrewAI, Haystack, Semantic
Kernel, Mistral, Cohere, Ollama, AutoGen), the OpenAI-compatible clients that reach OpenAI's
sinks, and methods of a library's objects (`co = cohere.ClientV2()` ... `co.chat(...)`): one
real-shaped case of ours per mechanism, and the static case that must stay quiet."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig, lint_paths
from promptcache.lint.python import lint_python_source
from promptcache.lint.python._sinks import find_sink

LONG = "Follow the refund policy exactly as written in section four. " * 20


def findings(source: str) -> list[tuple[int, str]]:
    found = lint_python_source(textwrap.dedent(source).replace("LONG", repr(LONG)))
    return [(f.line, f.code) for f in found]


@pytest.mark.parametrize(
    ("dotted", "api"),
    [
        ("crewai.Agent", "CrewAI agent"),
        ("crewai.Task", "CrewAI task"),
        ("haystack.dataclasses.ChatMessage.from_system", "Haystack system message"),
        (
            "haystack.components.generators.chat.OpenAIChatGenerator().run",
            "Haystack chat generator",
        ),
        ("haystack.components.builders.PromptBuilder", "Haystack prompt builder"),
        ("history.add_system_message", "Semantic Kernel system message"),
        ("semantic_kernel.functions.KernelFunctionFromPrompt", "Semantic Kernel prompt function"),
        ("client.chat.complete", "Mistral chat"),
        ("cohere.ClientV2().chat", "Cohere chat"),
        ("ollama.chat", "Ollama chat"),
        ("ollama.AsyncClient().chat", "Ollama chat"),
        ("autogen_agentchat.agents.AssistantAgent", "AutoGen agent"),
        ("promptflow.tools.aoai.chat", "promptflow LLM tool"),  # listed first, still wins
        ("app.loader.tokenizer.apply_chat_template", "Hugging Face chat template"),
        ("bot.chat", None),  # an unknown object's `chat` is no library's
        ("myapp.Agent", None),
        ("cohere_tools.chat", None),  # a root is a package name, not a prefix of one
    ],
)
def test_sinks_are_found_by_resolved_name(dotted: str, api: str | None) -> None:
    sink = find_sink(dotted)
    assert (sink.api if sink else None) == api


CASES = [
    (
        "crewai-clock-in-goal",
        """
        from datetime import datetime
        from crewai import Agent
        analyst = Agent(role="Analyst", goal=f"Report on markets as of {datetime.now()}",
                        backstory=LONG)
        """,
        [(4, "PC501")],
    ),
    (
        "crewai-kickoff-fills-goal-per-run",
        """
        from crewai import Agent, Crew, Task
        writer = Agent(role="Writer", goal="Narrate compelling stories about {topic}",
                       backstory=LONG)
        story = Task(description="Write the story.", expected_output="A story", agent=writer)
        crew = Crew(agents=[writer], tasks=[story])
        def generate(topic):
            return crew.kickoff(inputs={"topic": topic})
        """,
        [(8, "PC502")],
    ),
    (
        "crewai-kickoff-constant-input",
        """
        from crewai import Agent, Crew, Task
        writer = Agent(role="Writer", goal="Narrate compelling stories about {topic}",
                       backstory=LONG)
        story = Task(description="Write the story.", expected_output="A story", agent=writer)
        crew = Crew(agents=[writer], tasks=[story])
        result = crew.kickoff(inputs={"topic": "lighthouses"})
        """,
        [],
    ),
    (
        "crewai-task-placeholder-above-static-text",
        """
        from crewai import Agent, Crew, Task
        writer = Agent(role="Writer", goal="Write well", backstory=LONG)
        story = Task(description="Subject: {subject}. " + LONG, expected_output="A story",
                     agent=writer)
        crew = Crew(agents=[writer], tasks=[story])
        def generate(subject):
            return crew.kickoff(inputs={"subject": subject})
        """,
        [(8, "PC502")],
    ),
    (
        "crewai-task-placeholder-at-its-end",
        """
        from crewai import Agent, Crew, Task
        writer = Agent(role="Writer", goal="Write well", backstory=LONG)
        story = Task(description=LONG + "Subject: {subject}.", expected_output="A story",
                     agent=writer)
        crew = Crew(agents=[writer], tasks=[story])
        def generate(subject):
            return crew.kickoff(inputs={"subject": subject})
        """,
        [],
    ),
    (
        "haystack-system-message-and-generator",
        """
        from datetime import datetime
        from haystack.dataclasses import ChatMessage
        from haystack.components.generators.chat import OpenAIChatGenerator
        generator = OpenAIChatGenerator(model="gpt-4o-mini")
        def answer(history, question):
            system = ChatMessage.from_system(f"Now {datetime.now()}. " + LONG)
            return generator.run(messages=[system, *history, ChatMessage.from_user(question)])
        """,
        [(7, "PC501")],
    ),
    (
        "haystack-generator-earlier-turn",
        """
        import time
        from haystack.dataclasses import ChatMessage
        from haystack.components.generators.chat import OpenAIChatGenerator
        generator = OpenAIChatGenerator(model="gpt-4o-mini")
        def answer(history, question):
            opening = {"role": "user", "content": f"Session {time.time()}"}
            return generator.run(messages=[opening, *history, ChatMessage.from_user(question)])
        """,
        [(7, "PC501")],
    ),
    (
        "haystack-prompt-builder-run",
        """
        from datetime import date
        from haystack.components.builders import PromptBuilder
        builder = PromptBuilder(template="Today is {{ today }}.\\n" + LONG + "{{ question }}")
        def prompt(question):
            return builder.run(today=date.today().isoformat(), question=question)
        """,
        [(6, "PC501")],
    ),
    (
        "haystack-prompt-builder-value-at-the-end",
        """
        from datetime import date
        from haystack.components.builders import PromptBuilder
        builder = PromptBuilder(template=LONG + "Today is {{ today }}. {{ question }}")
        def prompt(question):
            return builder.run(today=date.today().isoformat(), question=question)
        """,
        [],
    ),
    (
        "semantic-kernel-system-message",
        """
        from datetime import datetime
        from semantic_kernel.contents import ChatHistory
        def start(question):
            history = ChatHistory()
            history.add_system_message(f"Now {datetime.now()}. " + LONG)
            history.add_user_message(question)
            return history
        """,
        [(6, "PC501")],
    ),
    (
        "semantic-kernel-kept-history-is-a-conversation",
        """
        from datetime import datetime
        from semantic_kernel.contents import ChatHistory
        class Session:
            def __init__(self):
                self.history = ChatHistory()
                self.history.add_system_message(f"Session opened {datetime.now()}. " + LONG)
        """,
        [],
    ),
    (
        "semantic-kernel-history-created-with-its-system-message-and-kept",
        """
        from datetime import datetime
        from semantic_kernel.contents import ChatHistory
        class Session:
            def __init__(self):
                self.history = ChatHistory(system_message=f"Opened {datetime.now()}. " + LONG)
        """,
        [],
    ),
    (
        "semantic-kernel-history-created-per-request",
        """
        from datetime import datetime
        from semantic_kernel.contents import ChatHistory
        def start(question):
            history = ChatHistory(system_message=f"Now {datetime.now()}. " + LONG)
            history.add_user_message(question)
            return history
        """,
        [(5, "PC501")],
    ),
    (
        "semantic-kernel-prompt-function",
        """
        import uuid
        from semantic_kernel.functions import KernelFunctionFromPrompt
        summarise = KernelFunctionFromPrompt(function_name="summarise", plugin_name="notes",
            prompt=f"Run {uuid.uuid4()}. " + LONG + "{{$input}}")
        """,
        [(5, "PC501")],
    ),
    (
        "mistral-chat-complete",
        """
        import time
        from mistralai import Mistral
        client = Mistral(api_key="k")
        def ask(history, question):
            opening = {"role": "user", "content": f"Session {time.time()}"}
            return client.chat.complete(model="mistral-small-latest",
                messages=[opening, *history, {"role": "user", "content": question}])
        """,
        [(6, "PC501")],
    ),
    (
        "cohere-v1-preamble-on-a-client-object",
        """
        from datetime import datetime
        import cohere
        co = cohere.Client("k")
        def ask(history, question):
            return co.chat(model="command-r", message=question, chat_history=history,
                           preamble=f"Now {datetime.now()}. " + LONG)
        """,
        [(7, "PC501")],
    ),
    (
        "cohere-v2-messages",
        """
        import time
        import cohere
        co = cohere.ClientV2("k")
        def ask(history, question):
            opening = {"role": "user", "content": f"Session {time.time()}"}
            return co.chat(model="command-a-03-2025",
                messages=[opening, *history, {"role": "user", "content": question}])
        """,
        [(6, "PC501")],
    ),
    (
        "ollama-client-object-positional-messages",
        """
        import time
        from ollama import Client
        client = Client(host="http://127.0.0.1:11434")
        def ask(history, question):
            opening = {"role": "user", "content": f"Session {time.time()}"}
            return client.chat("llama3.2", [opening, *history, {"role": "user", "content": question}])
        """,
        [(6, "PC501")],
    ),
    (
        "ollama-module-chat-static",
        """
        import ollama
        def ask(history, question):
            return ollama.chat(model="llama3.2", messages=[{"role": "system", "content": LONG},
                *history, {"role": "user", "content": question}])
        """,
        [],
    ),
    (
        "autogen-system-message",
        """
        from datetime import date
        from autogen_agentchat.agents import AssistantAgent
        def helper(client):
            return AssistantAgent("helper", model_client=client,
                                  system_message=f"Today is {date.today()}. " + LONG)
        """,
        [(6, "PC501")],
    ),
    (
        "groq-openai-compatible",
        """
        import time
        from groq import Groq
        client = Groq()
        def ask(history, question):
            opening = {"role": "user", "content": f"Session {time.time()}"}
            return client.chat.completions.create(model="llama-3.3-70b-versatile",
                messages=[opening, *history, {"role": "user", "content": question}])
        """,
        [(6, "PC501")],
    ),
    (
        "together-openai-compatible",
        """
        import time
        from together import Together
        client = Together()
        def ask(history, question):
            opening = {"role": "user", "content": f"Session {time.time()}"}
            return client.chat.completions.create(model="m",
                messages=[opening, *history, {"role": "user", "content": question}])
        """,
        [(6, "PC501")],
    ),
    (
        "deepseek-openrouter-through-openai",
        """
        import time
        from openai import OpenAI
        deepseek = OpenAI(base_url="https://api.deepseek.com", api_key="k")
        router = OpenAI(base_url="https://openrouter.ai/api/v1", api_key="k")
        def ask(history, question):
            opening = {"role": "user", "content": f"Session {time.time()}"}
            turns = [opening, *history, {"role": "user", "content": question}]
            deepseek.chat.completions.create(model="deepseek-chat", messages=turns)
            return router.chat.completions.create(model="x/y", messages=turns)
        """,
        [(7, "PC501")],  # one finding where the value enters, for both calls
    ),
    (
        "unknown-object-system-message-still-followed",
        """
        from datetime import datetime
        def ask(llm, history, question):
            return llm.chat(messages=[{"role": "system", "content": f"Now {datetime.now()}. " + LONG},
                                      *history, {"role": "user", "content": question}])
        """,
        [(4, "PC501")],
    ),
    (
        "unknown-object-preamble-is-no-cohere-call",
        """
        from datetime import datetime
        def ask(bot, question):
            return bot.chat(preamble=f"Now {datetime.now()}. " + LONG, message=question)
        """,
        [],
    ),
]


AGENTS_SDK = """
from agents import Agent, Runner
def play(memory, user_input):
    narrator = Agent(name="Narrator", instructions=LONG + f"Story so far: {memory}. Go on.")
    return Runner.run_sync(starting_agent=narrator, input=user_input)
"""

CASES += [
    (
        "agents-sdk-run-with-a-session",
        AGENTS_SDK.replace("input=user_input)", "input=user_input, session=memory)"),
        [(4, "PC502")],
    ),
    (
        "agents-sdk-run-with-earlier-items",
        AGENTS_SDK.replace("input=user_input)", "input=memory + [user_input])"),
        [(4, "PC502")],
    ),
    (
        "agents-sdk-run-with-a-list-bound-to-a-name",
        AGENTS_SDK.replace(
            "    return Runner", "    items = [*memory, user_input]\n    return Runner"
        ).replace("input=user_input)", "input=items)"),
        [(4, "PC502")],
    ),
]

# A self-hosted model given the prompt a tokenizer's chat template renders (vLLM's offline
# `LLM.generate`): the messages are the request's, whoever loaded the tokenizer.
CHAT_TEMPLATE = """
from app.loader import engine, tokenizer
def answer(question):
    turns = [
        {"role": "system", "content": "You answer about notices."},
        {"role": "user", "content": f"Question: {question}\\n" + LONG},
    ]
    prompt = tokenizer.apply_chat_template(turns, tokenize=False, add_generation_prompt=True)
    return engine.generate(prompt)
"""

CASES += [
    ("hugging-face-chat-template-with-the-question-above-the-rules", CHAT_TEMPLATE, [(6, "PC502")]),
    (
        "hugging-face-chat-template-with-the-question-after-the-rules",
        CHAT_TEMPLATE.replace(
            'f"Question: {question}\\n" + LONG', 'LONG + f"Question: {question}"'
        ),
        [],
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_framework_case(source: str, expected: list[tuple[int, str]]) -> None:
    assert findings(source) == expected


def test_crewai_kickoff_in_another_module_fills_the_agents_goal(tmp_path: Path) -> None:
    # The agents are made in one module and the crew run from a handler in another, as a
    # CrewAI app lays them out: the per-run input is reported where it fills the placeholder.
    (tmp_path / "agents.py").write_text(
        textwrap.dedent(
            f"""
            from crewai import Agent
            researcher = Agent(role="Senior Researcher",
                               goal="Uncover ground breaking technologies in {{topic}}",
                               backstory={LONG!r})
            """
        )
    )
    (tmp_path / "crew.py").write_text(
        textwrap.dedent(
            """
            from crewai import Crew, Process, Task
            from agents import researcher
            research = Task(description="Research the field.", expected_output="A report",
                            agent=researcher)
            crew = Crew(agents=[researcher], tasks=[research], process=Process.sequential)
            def generate_article(topic):
                return crew.kickoff(inputs={"topic": topic})
            """
        )
    )
    found = lint_paths([tmp_path], config=LintConfig(root=tmp_path))
    assert [(Path(f.path).name, f.line, f.code) for f in found] == [("crew.py", 8, "PC502")]


AGENTS_YAML = """
researcher:
  role: >
    {topic} Senior Data Researcher
  goal: >
    Uncover cutting-edge developments in {topic}
  backstory: >
    You're a seasoned researcher with a knack for uncovering the latest developments.
"""
TASKS_YAML = """
research_task:
  description: >
    Conduct a thorough research about the field, given the current year is {current_year}.
  expected_output: >
    A list with 10 bullet points of the most relevant information
  agent: researcher
"""
CREW_BASE = """
from crewai import Agent, Crew, Process, Task
from crewai.project import CrewBase, agent, crew, task

@CrewBase
class Research:
    agents_config = "config/agents.yaml"
    tasks_config = "config/tasks.yaml"

    @agent
    def researcher(self) -> Agent:
        return Agent(config=self.agents_config["researcher"], verbose=True)

    @task
    def research_task(self) -> Task:
        return Task(config=self.tasks_config["research_task"])

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
"""
MAIN = """
from datetime import datetime
from research.crew import Research

def run():
    inputs = {"topic": "AI LLMs", "current_year": str(datetime.now().year)}
    Research().crew().kickoff(inputs=inputs)

def run_with(topic):
    Research().crew().kickoff(inputs={"topic": topic, "current_year": "2026"})
"""


def _crew_project(
    tmp_path: Path, *, config: bool = True, agents: str = AGENTS_YAML
) -> list[tuple[str, int, str]]:
    # The crew's package, with `agents` as its agents.yaml (none of its YAML without `config`):
    # the findings as (file name, line, code), in order.
    package = tmp_path / "research"
    (package / "config").mkdir(parents=True)
    (package / "crew.py").write_text(CREW_BASE)
    (package / "main.py").write_text(MAIN)
    if config:
        (package / "config" / "agents.yaml").write_text(agents)
        (package / "config" / "tasks.yaml").write_text(TASKS_YAML)
    found = lint_paths([tmp_path], config=LintConfig(root=tmp_path))
    return [(Path(f.path).name, f.line, f.code) for f in found]


def test_crewai_yaml_configuration_placeholders_are_followed(tmp_path: Path) -> None:
    # The layout `crewai create` makes: agents and tasks in YAML next to a `@CrewBase` class,
    # the crew run from main.py. A per-run topic fills the agent's role (its system prompt); the
    # year fills the end of a task's description, the user turn, with little text after it.
    assert _crew_project(tmp_path) == [("main.py", 10, "PC502")]


def test_crewai_configuration_that_cannot_be_read_is_not_followed(tmp_path: Path) -> None:
    # Where the inputs land is unknown: an info note (PC506) at each kickoff that passes a value
    # which varies, never "clean"; the run with constants only says nothing.
    found = _crew_project(tmp_path, config=False)
    assert found == [("main.py", 6, "PC506"), ("main.py", 10, "PC506")]


def test_crewai_configuration_without_pyyaml_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PyYAML is CrewAI's, not ours: where it is missing (a hook's own environment), the
    # configuration is not read, and the kickoffs say so rather than pass as clean.
    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` raises ImportError
    assert _crew_project(tmp_path) == [("main.py", 6, "PC506"), ("main.py", 10, "PC506")]


def test_crewai_configuration_that_is_not_yaml_is_not_followed(tmp_path: Path) -> None:
    codes = set(_crew_project(tmp_path, agents="researcher: [unclosed\n  role: {topic}\n"))
    assert ("main.py", 10, "PC502") not in codes and ("main.py", 10, "PC506") in codes


def test_crewai_configuration_nested_too_deeply_is_not_followed(tmp_path: Path) -> None:
    # PyYAML's composer recurses once per level: a deeply nested agents.yaml raised
    # RecursionError, reported as main.py "nested too deeply to analyse" (PC500), not PC506.
    # Deeper than the recursion limit whatever it is (a library of the suite may have raised it:
    # then 5,000 levels parsed in the whole suite's run and nothing was reported at all).
    depth = max(5000, 2 * sys.getrecursionlimit())
    codes = set(_crew_project(tmp_path, agents="[" * depth + "]" * depth))
    assert ("main.py", 10, "PC506") in codes
    assert not any(code == "PC500" for _, _, code in codes), codes


def test_crewai_configuration_that_is_not_a_mapping_is_not_followed(tmp_path: Path) -> None:
    # YAML that parses but is no mapping of names to entries (a list, a bare word): CrewAI cannot
    # read agents from it, and neither can the analysis; the crew's inputs are not followed.
    codes = set(_crew_project(tmp_path, agents="- researcher\n- writer\n"))
    assert ("main.py", 10, "PC506") in codes
