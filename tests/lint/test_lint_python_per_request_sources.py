"""
Per-request data told by where it comes from, not by its name (issue #21): a model's answer, a
retrieval, the newest turn of a conversation, the incoming request of a web, UI or CLI app (the
sources the framework modules declare). Each case is our own reproduction of a shape real code
has, with the line its finding must be on; each quiet twin is a shape that must stay clean: the
value followed only by the user turn, or kept as the conversation's own history.
"""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source
from promptcache.lint.python._request_data import DATA_SOURCES
from promptcache.lint.python.frameworks import FRAMEWORKS
from tests.lint.test_lint_python_mechanisms import LONG, findings

# (id, source, expected (line, code) pairs); lines count from the first line of the dedented text.
FOUND = [
    (
        "the-answer-of-one-call-opens-the-system-prompt-of-the-next",
        """
        from litellm import completion
        def reply(conversation):
            decision = completion(model="m", messages=[{"role": "user", "content": "Search?"}])
            notes = decision["choices"][0]["message"]["content"].strip()
            prompt = f"Context: {notes}\\n\\n" + LONG
            return completion(model="m", messages=[{"role": "system", "content": prompt}, *conversation])
        """,
        [(4, "PC502")],
    ),
    (
        "an-agents-chat-result-opens-the-system-prompt",
        """
        from openai import OpenAI
        from helpers import make_agent
        client = OpenAI()
        helper = make_agent()
        def reply(conversation):
            postman_reply = helper.chat([(m["role"], m["content"]) for m in conversation])
            system = f"Context: {postman_reply}\\n" + LONG
            return client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "system", "content": system}, *conversation]
            )
        """,
        [(7, "PC502")],
    ),
    (
        "documents-of-a-similarity-search-above-the-instructions",
        """
        from anthropic import Anthropic
        client = Anthropic()
        def answer(store, text, history):
            docs = store.similarity_search(text, k=4)
            joined = "\\n".join(d.page_content for d in docs)
            return client.messages.create(
                model="claude-sonnet-4-5",
                system=f"Documents:\\n{joined}\\n\\n" + LONG,
                messages=[*history, {"role": "user", "content": text}],
            )
        """,
        [(5, "PC502")],
    ),
    (
        "a-retrievers-invoke-in-the-system-message-before-the-history",
        """
        from langchain_core.messages import SystemMessage, HumanMessage
        def respond(llm, retriever, text, history):
            found = retriever.invoke(text)
            messages = [SystemMessage(content=f"Use: {found}\\n" + LONG), *history, HumanMessage(content=text)]
            return llm.invoke(messages)
        """,
        [(4, "PC502")],
    ),
    (
        "an-index-clients-search-formatted-into-a-template-slot",
        """
        from openai import OpenAI
        TEMPLATE = "Audit context:\\n{material}\\n\\nAnswer using this structure:\\n" + LONG
        client = OpenAI()
        def ask(index, text):
            hits = index.search(namespace="reports", query={"inputs": {"text": text}})
            chunks = [f"- {h['chunk']}" for h in hits]
            material = "\\n".join(chunks)
            prompt = TEMPLATE.format(
                material=material,
            )
            return client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": prompt}]
            )
        """,
        [(6, "PC502")],
    ),
    (
        "the-newest-turn-read-out-of-the-messages-into-the-system-prompt",
        """
        from openai import OpenAI
        client = OpenAI()
        def reply(messages):
            latest = messages[-1]["content"]
            system = {"role": "system", "content": f"The user now asks: {latest}\\n" + LONG}
            return client.chat.completions.create(model="gpt-4o", messages=[system, *messages])
        """,
        [(5, "PC502")],
    ),
    (
        "a-langgraph-nodes-state-read-into-the-system-message",
        """
        from langchain_core.messages import SystemMessage
        from langgraph.graph import StateGraph
        def call_model(state, llm):
            summary = state["summary"]
            system = SystemMessage(content=f"Summary so far: {summary}\\n" + LONG)
            return {"messages": [llm.invoke([system, *state["messages"]])]}
        graph = StateGraph(dict)
        graph.add_node("agent", call_model)
        """,
        [(5, "PC502")],
    ),
    (
        "a-fastapi-body-models-field-above-the-history",
        """
        from fastapi import Depends, FastAPI
        from openai import OpenAI
        app = FastAPI()
        client = OpenAI()
        @app.post("/chat")
        def chat(body, settings=Depends(object)):
            system = f"Profile: {body.profile}\\n" + LONG
            return client.chat.completions.create(
                model=settings.model,
                messages=[{"role": "system", "content": system}, *body.history],
            )
        """,
        [(8, "PC502")],
    ),
    (
        "a-flask-requests-json-above-the-history",
        """
        from flask import Flask, request
        from openai import OpenAI
        app = Flask(__name__)
        client = OpenAI()
        @app.route("/chat", methods=["POST"])
        def chat():
            profile = request.json["profile"]
            system = f"Profile: {profile}\\n" + LONG
            return client.chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "system", "content": system}, *request.json["history"]],
            )
        """,
        [(8, "PC502")],
    ),
    (
        "a-streamlit-chat-input-above-the-session-history",
        """
        import streamlit as st
        from openai import OpenAI
        client = OpenAI()
        if said := st.chat_input("Ask"):
            system = {"role": "system", "content": f"The user said: {said}\\n" + LONG}
            client.chat.completions.create(
                model="gpt-4o", messages=[system, *st.session_state.messages]
            )
        """,
        [(5, "PC502")],
    ),
    (
        "a-terminal-input-above-the-rolling-history",
        """
        import anthropic
        client = anthropic.Anthropic()
        history = []
        while True:
            said = input("You: ")
            client.messages.create(
                model="claude-sonnet-4-5", system=f"Asked: {said}\\n" + LONG, messages=history
            )
        """,
        [(6, "PC502")],
    ),
    (
        "a-gradio-handlers-message-in-the-system-prompt",
        """
        import gradio as gr
        from openai import OpenAI
        client = OpenAI()
        def respond(text, turns):
            system = {"role": "system", "content": f"Topic: {text}\\n" + LONG}
            return client.chat.completions.create(model="gpt-4o", messages=[system, *turns])
        gr.ChatInterface(respond).launch()
        """,
        [(6, "PC502")],
    ),
    (
        "a-chainlit-message-in-the-system-prompt",
        """
        import chainlit as cl
        from openai import AsyncOpenAI
        client = AsyncOpenAI()
        turns = []
        @cl.on_message
        async def main(msg):
            system = {"role": "system", "content": f"Topic: {msg.content}\\n" + LONG}
            await client.chat.completions.create(model="gpt-4o", messages=[system, *turns])
        """,
        [(8, "PC502")],
    ),
    (
        "the-history-of-a-chat-object-formatted-above-static-data",
        """
        import google.generativeai as genai
        from team import load_team_data
        class Bot:
            def __init__(self):
                self.model = genai.GenerativeModel("gemini-2.0-flash")
                self.turns = []
                self.base = f\"\"\"You are the team's guide. The conversation so far:
                {{conversation}}
                {load_team_data()}
                \"\"\"
            def ask(self, pergunta):
                self.turns.append({"role": "user", "content": pergunta})
                so_far = "\\n".join(f"{t['role']}: {t['content']}" for t in self.turns)
                prompt = self.base.format(conversation=so_far)
                contents = [{"role": "user", "parts": [prompt]}, {"role": "user", "parts": [pergunta]}]
                answer = self.model.generate_content(contents).text
                self.turns.append({"role": "model", "content": answer})
                return answer
        """,
        [(13, "PC502")],
    ),
    (
        "a-parameter-sent-as-the-users-turn-in-the-system-prompt-too",
        """
        from openai import OpenAI
        client = OpenAI()
        def reply(history, said):
            system = f"The user's last words: {said}\\n" + LONG
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": system}, *history, {"role": "user", "content": said},
            ])
        """,
        [(5, "PC502")],
    ),
    (
        "a-graph-nodes-topic-formatted-into-a-text-prompt-of-a-chat-model",
        """
        from langchain_google_genai import ChatGoogleGenerativeAI
        from langgraph.graph import StateGraph
        QUERY_WRITER = "Write search queries.\\nTopic: {topic}\\n\\nFormat them as:\\n" + LONG
        def generate_query(state, config):
            llm = ChatGoogleGenerativeAI(model="gemini-2.0-flash")
            formatted = QUERY_WRITER.format(topic=state["topic"])
            return {"queries": llm.invoke(formatted)}
        builder = StateGraph(dict)
        builder.add_node("generate_query", generate_query)
        """,
        [(7, "PC502")],
    ),
    (
        "the-newest-user-message-found-by-a-loop-above-the-history",
        """
        from litellm import completion
        def handle(conversation):
            latest = None
            for msg in reversed(conversation):
                if msg.get("role") == "user":
                    latest = msg["content"]
                    break
            system = f"Answer this: {latest}\\n" + LONG
            return completion(model="m", messages=[{"role": "system", "content": system}, *conversation])
        """,
        [(5, "PC502")],
    ),
    (
        "a-node-typed-as-taking-the-graphs-state-wherever-it-is-registered",
        """
        from langchain_core.messages import SystemMessage
        from .state import AgentState
        def summarize(state: AgentState, llm):
            notes = state["notes"]
            messages = [SystemMessage(content=f"Notes: {notes}\\n" + LONG), *state["messages"]]
            return {"messages": [llm.invoke(messages)]}
        """,
        [(5, "PC502")],
    ),
    (
        "a-method-registered-as-a-graph-node",
        """
        from langchain_core.messages import SystemMessage
        from langgraph.graph import StateGraph
        class Agent:
            def __init__(self, llm):
                self.llm = llm
                self.graph = StateGraph(dict)
                self.graph.add_node("plan", self.plan)
            def plan(self, state):
                messages = [SystemMessage(content=f"Goal: {state['goal']}\\n" + LONG), *state["messages"]]
                return {"messages": [self.llm.invoke(messages)]}
        """,
        [(10, "PC502")],
    ),
    (
        "a-system-message-made-apart-and-appended-before-the-history",
        """
        from langchain_core.messages import HumanMessage, SystemMessage
        async def respond(llm, message, history, retrieved):
            messages = [SystemMessage(content="You are a clinical assistant. " + LONG)]
            if retrieved:
                messages.append(SystemMessage(content=f"Relevant context:\\n{retrieved}"))
            for turn in history[-10:]:
                messages.append(HumanMessage(content=turn["content"]))
            messages.append(HumanMessage(content=message))
            return (await llm.ainvoke(messages)).content
        """,
        [(6, "PC502")],
    ),
    (
        "one-request-per-item-of-a-collection-with-the-instructions-after-the-item",
        """
        from anthropic import Anthropic
        client = Anthropic()
        def assess(core, related):
            results = []
            for title, abstract in related.items():
                prompt = f"Compare with this paper. Title: {title}. Abstract: {abstract}.\\n" + LONG
                answer = client.messages.create(
                    model="claude-sonnet-4-5", max_tokens=256,
                    messages=[{"role": "user", "content": prompt}],
                )
                results.append(answer)
            return results
        """,
        [(6, "PC502")],
    ),
    (
        "an-agents-sdk-agent-run-with-a-session-keeps-its-instructions-before-the-history",
        """
        from agents import Agent, Runner, SQLiteSession
        def instructions(run_ctx, agent):
            return f"Hello {run_ctx.context.user_name}. Answer politely."
        helper = Agent[dict](name="Helper", instructions=instructions)
        session = SQLiteSession("chat")
        Runner.run_sync(helper, "What should I eat today?", session=session)
        """,
        [(4, "PC502")],
    ),
    (
        "per-request-data-opening-a-function-named-as-the-system-prompt",
        """
        def get_system_prompt(user_name):
            return f"You help {user_name}. " + LONG
        """,
        [(3, "PC502")],
    ),
]

QUIET = [
    (
        "a-models-answer-kept-as-an-assistant-turn-of-the-history",
        """
        from openai import OpenAI
        client = OpenAI()
        messages = [
            {"role": "system", "content": "You are terse. " + LONG},
            {"role": "user", "content": "What is the capital of the moon?"},
        ]
        response = client.chat.completions.create(model="gpt-4.1", messages=messages)
        messages.append({"role": "assistant", "content": response.choices[0].message.content})
        messages.append({"role": "user", "content": "Are you sure?"})
        client.chat.completions.create(model="gpt-4.1", messages=messages)
        """,
    ),
    (
        "the-first-user-turn-of-a-conversation-that-was-answered",
        """
        from langchain_core.messages import HumanMessage, SystemMessage
        def run(llm, path):
            messages = [
                SystemMessage(content="You are a forensics assistant. " + LONG),
                HumanMessage(content=f"Analyse the memory image at {path}"),
            ]
            response = llm.invoke(messages)
            messages.append(response)
            messages.append(HumanMessage(content="And the processes?"))
            return llm.invoke(messages)
        run(object(), input("Image path: "))
        """,
    ),
    (
        "retrieved-documents-end-a-system-prompt-followed-only-by-the-question",
        """
        from openai import OpenAI
        client = OpenAI()
        query = input("> ")
        results = object().similarity_search(query=query)
        SYSTEM_PROMPT = f\"\"\"Answer from the context and cite its page numbers. {LONG}
        Context:
        {results}
        \"\"\"
        client.chat.completions.create(
            model="gpt-4.1",
            messages=[{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": query}],
        )
        """,
    ),
    (
        "a-search-for-a-constant-query",
        """
        from openai import OpenAI
        client = OpenAI()
        def reply(store, history):
            rules = store.similarity_search("house rules")
            system = f"Rules: {rules}\\n" + LONG
            return client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "system", "content": system}, *history]
            )
        """,
    ),
    (
        "a-compiled-regexs-search-is-not-a-retrieval",
        """
        import re
        from openai import OpenAI
        client = OpenAI()
        HEADING = re.compile(r"^# (.*)$")
        def reply(notes, history):
            title = HEADING.search(notes).group(1)
            system = f"Notes titled {title}.\\n" + LONG
            return client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "system", "content": system}, *history]
            )
        """,
    ),
    (
        "a-handlers-injected-settings-are-not-request-data",
        """
        from fastapi import Depends, FastAPI
        from openai import OpenAI
        app = FastAPI()
        client = OpenAI()
        @app.post("/chat")
        def chat(body, settings=Depends(object)):
            system = f"You are {settings.persona}.\\n" + LONG
            return client.chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "system", "content": system}, *body.history],
            )
        """,
    ),
    (
        "the-request-data-in-the-last-user-turn",
        """
        from flask import Flask, request
        from openai import OpenAI
        app = Flask(__name__)
        client = OpenAI()
        @app.route("/chat", methods=["POST"])
        def chat():
            return client.chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": LONG},
                    *request.json["history"],
                    {"role": "user", "content": request.json["text"]},
                ],
            )
        """,
    ),
    (
        "per-request-data-opening-a-later-turn-with-a-short-tail-after-it",
        """
        from datetime import datetime
        from openai import OpenAI
        client = OpenAI()
        def parse(said):
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": "You extract opening hours. " + LONG},
                {"role": "user", "content": said},
                {"role": "user", "content": f"Today is {datetime.now():%A %Y-%m-%d}"},
            ])
        """,
    ),
    (
        "a-graph-nodes-setup-parameters-are-not-its-state",
        """
        from functools import partial
        from langchain_core.messages import SystemMessage
        from langgraph.graph import StateGraph
        def react(state, llm, system_prompt):
            messages = [SystemMessage(content=system_prompt), *state["messages"]]
            return {"messages": [llm.invoke(messages)]}
        graph = StateGraph(dict)
        graph.add_node("react", partial(react, llm=object(), system_prompt="Be brief."))
        graph.add_node("react_again", react)
        """,
    ),
    (
        "a-system-message-in-a-list-followed-only-by-the-question",
        """
        from langchain_core.messages import HumanMessage, SystemMessage
        from .state import GraphState
        ROUTER = "You route a user question to a vectorstore or web search. Vectorstore: {summary}."
        def router_node(state: GraphState, llm):
            return llm.invoke([
                SystemMessage(content=ROUTER.format(summary=state["summary"])),
                HumanMessage(content=f"Question: {state['question']}"),
            ])
        """,
    ),
    (
        "a-helper-taking-the-system-prompt-from-any-system-turn-of-the-messages",
        """
        from ollama import chat
        def call_llm(messages, system_prompt=None):
            turns = []
            for msg in messages:
                if msg["role"] == "system":
                    system_prompt = msg["content"]
                else:
                    turns.append(msg)
            return chat(model="qwen3", messages=[{"role": "system", "content": system_prompt}, *turns])
        conversation = []
        while True:
            said = input("You: ")
            conversation.append({"role": "user", "content": said})
            call_llm(messages=conversation, system_prompt="You are Loki. " + LONG)
        """,
    ),
    (
        "a-persona-typed-in-once-opens-the-conversation-of-a-script",
        """
        from openai import OpenAI
        client = OpenAI()
        persona = input("Describe the persona: ")
        messages = [{"role": "system", "content": persona}]
        while True:
            messages.append({"role": "user", "content": input("You: ")})
            reply = client.chat.completions.create(model="deepseek-chat", messages=messages)
            messages.append({"role": "assistant", "content": reply.choices[0].message.content})
        """,
    ),
    (
        "the-same-prompt-sent-several-times-per-item-reads-the-cache",
        """
        from anthropic import Anthropic
        client = Anthropic()
        def generate(fields):
            for field in fields:
                for _ in range(5):
                    prompt = f"Field: {field}\\n" + LONG
                    client.messages.create(
                        model="claude-sonnet-4-5", max_tokens=256,
                        messages=[{"role": "user", "content": prompt}],
                    )
        """,
    ),
    (
        "a-prompt-built-per-item-and-only-printed",
        """
        def build_prompt(field):
            return f"Field: {field}\\n" + LONG
        def show(fields):
            for field in fields:
                print(build_prompt(field))
        """,
    ),
    (
        "a-history-converted-turn-by-turn-before-one-request",
        """
        from openai import OpenAI
        client = OpenAI()
        def reply(history, said):
            messages = [{"role": "system", "content": LONG}]
            for turn in history:
                messages.append({"role": turn["role"], "content": turn["text"]})
            messages.append({"role": "user", "content": said})
            return client.chat.completions.create(model="gpt-4o", messages=messages)
        """,
    ),
    (
        "an-agents-sdk-agent-run-only-with-one-text-has-nothing-after-its-instructions",
        """
        from agents import Agent, Runner
        def instructions(run_ctx, agent):
            premium = "You are a premium user." if run_ctx.context.is_premium else "Free user."
            return f"Hello {run_ctx.context.user_name}. {premium} Answer politely and completely."
        helper = Agent[dict](name="Helper", instructions=instructions)
        result = Runner.run_sync(helper, "What should I eat today?", context={"user_name": "A"})
        print(result.final_output)
        """,
    ),
    (
        "per-request-data-ending-a-function-named-as-the-system-prompt",
        """
        from textwrap import dedent
        def get_schedule_sysprompt(datetime):
            return dedent(\"\"\"
        You are a helpful house elf. You send push messages at regular intervals; keep them
        short, friendly and informative.

        It is now DATETIME
        \"\"\").replace("DATETIME", datetime)
        """,
    ),
    (
        "the-system-prompt-a-client-sends-with-its-request",
        """
        from fastapi import FastAPI, Request
        from openai import OpenAI
        app = FastAPI()
        client = OpenAI()
        @app.post("/generate")
        async def generate(request: Request, body):
            data = await request.json()
            system_prompt = data.get("system_prompt", "")
            persona = body.system_prompt
            return client.chat.completions.create(model="gpt-4o", messages=[
                {"role": "system", "content": system_prompt + persona + LONG},
                *data.get("chat_history", []),
                {"role": "user", "content": data["prompt"]},
            ])
        """,
    ),
    (
        "a-thread-pools-submit-registers-no-request-handler",
        """
        from concurrent.futures import ThreadPoolExecutor
        from openai import OpenAI
        client = OpenAI()
        def summarise(guide):
            system = {"role": "system", "content": f"Summarise the guide {guide}. " + LONG}
            return client.chat.completions.create(model="gpt-4o", messages=[system])
        with ThreadPoolExecutor() as pool:
            pool.submit(summarise, "house-rules.md")
        """,
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in FOUND], ids=[c[0] for c in FOUND])
def test_per_request_data_is_followed_from_where_it_comes(
    source: str, expected: list[tuple[int, str]]
) -> None:
    found = findings(source)
    for pair in expected:
        assert pair in found, found


@pytest.mark.parametrize("source", [c[1] for c in QUIET], ids=[c[0] for c in QUIET])
def test_per_request_data_in_its_place_stays_quiet(source: str) -> None:
    # PC508 may still ask about a parameter whose origin is not seen (`notes`): not a source
    assert [f for f in findings(source) if f[1] not in ("PC506", "PC508")] == []


def test_every_source_is_declared_by_a_framework_module() -> None:
    declared = [s for framework in FRAMEWORKS for s in framework.data]
    assert tuple(declared) == DATA_SOURCES
    kinds = {s.what for s in declared}
    for what in (
        "documents retrieved for this request",
        "the incoming request",
        "the user's input",
    ):
        assert what in kinds


def test_a_value_joined_into_text_first_is_written_where_it_fills_a_template_slot() -> None:
    # The retrieval's chunks are written into text on line 7; it enters the prompt at the
    # template's `{material}` slot on line 3 (filled on line 10), where the finding says it is
    # written (and the fix goes).
    source = FOUND[4][1]
    assert FOUND[4][0] == "an-index-clients-search-formatted-into-a-template-slot"
    found = [f for f in lint_python_source(textwrap.dedent(source).replace("LONG", repr(LONG)))]
    assert [(f.line, f.written_at) for f in found if f.code == "PC502"] == [(6, 3)]
