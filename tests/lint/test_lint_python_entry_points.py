"""
Per-request entry points as data (issue #21, `frameworks/`' `DataSource`s): the functions a
framework calls once per request, whose parameters hold that request's data whatever they are
named, and the parameters it fills with its own objects (never the request's). Each case is our
own reproduction of a real shape: the data opens a system prompt above long static rules, with
the line its finding must be on, and a quiet twin where the same data is in the newest turn or
the parameter is the framework's own object.
"""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source

# About 150 tokens of static rules: the conversation's cacheable part, after the value.
RULES = "Answer in three sentences. Cite the policy section. Never promise refunds. " * 8

FIRE = [
    (
        "aws-lambda-handler-event-in-the-bedrock-system-prompt",
        """
        import json
        import boto3
        client = boto3.client("bedrock-runtime")
        def lambda_handler(event, context):
            body = json.loads(event["body"])
            return client.converse(
                modelId="anthropic.claude-3-haiku",
                system=[{"text": "Customer profile: " + body["profile"] + "\\n" + RULES}],
                messages=body["history"],
            )
        """,
        (6, "PC502"),
    ),
    (
        "azure-function-typed-request",
        """
        import azure.functions as func
        from openai import OpenAI
        def main(req: func.HttpRequest) -> func.HttpResponse:
            ticket = req.get_json()["ticket"]
            reply = OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"Ticket: {ticket}\\n{RULES}"},
                    {"role": "user", "content": "Draft the reply."},
                ],
            )
            return func.HttpResponse(reply.choices[0].message.content)
        """,
        (5, "PC502"),
    ),
    (
        "django-view-typed-request-of-any-name",
        """
        from django.http import HttpRequest, JsonResponse
        from openai import OpenAI
        def summarise(req: HttpRequest):
            doc = req.POST["doc"]
            OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"Document: {doc}\\n{RULES}"},
                    {"role": "user", "content": "Summarise it."},
                ],
            )
            return JsonResponse({})
        """,
        (5, "PC502"),
    ),
    (
        "slack-bolt-listener-event",
        """
        from slack_bolt import App
        from openai import OpenAI
        app = App()
        @app.event("app_mention")
        def on_mention(event, say):
            text = event["text"]
            reply = OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"The user asked: {text}\\n{RULES}"},
                    {"role": "user", "content": "Answer."},
                ],
            )
            say(reply.choices[0].message.content)
        """,
        (7, "PC502"),
    ),
    (
        "celery-task-arguments",
        """
        from celery import shared_task
        from openai import OpenAI
        @shared_task(bind=True)
        def draft_reply(self, ticket_text, thread):
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[{"role": "system", "content": f"Ticket: {ticket_text}\\n{RULES}"}, *thread],
            )
        """,
        (8, "PC502"),
    ),
    (
        "rq-job-enqueued-by-name",
        """
        from redis import Redis
        from rq import Queue
        from openai import OpenAI
        def summarise(article):
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"Article: {article}\\n{RULES}"},
                    {"role": "user", "content": "Summarise it."},
                ],
            )
        def submit(text):
            Queue(connection=Redis()).enqueue(summarise, text)
        """,
        (9, "PC502"),
    ),
    (
        "aiohttp-handler-registered-with-add-post",
        """
        from aiohttp import web
        from openai import AsyncOpenAI
        async def handle(incoming):
            payload = await incoming.json()
            reply = await AsyncOpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"Shop notes: {payload['notes']}\\n{RULES}"},
                    {"role": "user", "content": payload["message"]},
                ],
            )
            return web.json_response({"reply": reply.choices[0].message.content})
        app = web.Application()
        app.router.add_post("/chat", handle)
        """,
        (5, "PC502"),
    ),
    (
        "websockets-connection-handler",
        """
        import websockets
        from openai import AsyncOpenAI
        async def converse(conn):
            said = await conn.recv()
            await AsyncOpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"Said: {said}\\n{RULES}"},
                    {"role": "user", "content": "Reply."},
                ],
            )
        async def main():
            async with websockets.serve(converse, "", 8001):
                pass
        """,
        (5, "PC502"),
    ),
]

QUIET = [
    (
        "a-tasks-settings-arguments-are-the-callers-kept-settings",
        """
        from celery import shared_task
        from openai import OpenAI
        @shared_task
        def get_bot_response(message_list, system_prompt, language, model_name):
            return OpenAI().chat.completions.create(
                model=model_name,
                messages=[{"role": "system", "content": f"{system_prompt} {language} only."}]
                + message_list,
            )
        """,
    ),
    (
        "lambda-event-in-the-newest-turn",
        """
        import json
        import boto3
        client = boto3.client("bedrock-runtime")
        def lambda_handler(event, context):
            body = json.loads(event["body"])
            return client.converse(
                modelId="anthropic.claude-3-haiku",
                system=[{"text": RULES}],
                messages=[{"role": "user", "content": [{"text": body["q"]}]}],
            )
        """,
    ),
    (
        "lambda-runtime-context-is-not-the-request",
        """
        import boto3
        client = boto3.client("bedrock-runtime")
        def lambda_handler(event, context):
            return client.converse(
                modelId="anthropic.claude-3-haiku",
                system=[{"text": f"Function {context.function_name}.\\n{RULES}"}],
                messages=[{"role": "user", "content": [{"text": event["q"]}]}],
            )
        """,
    ),
    (
        "slack-bolt-injected-objects-are-not-the-request",
        """
        from slack_bolt import App
        from openai import OpenAI
        app = App()
        @app.event("app_mention")
        def on_mention(event, say, context, client):
            bot = context.bot_id
            reply = OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"You are <@{bot}>.\\n{RULES}"},
                    {"role": "user", "content": event["text"]},
                ],
            )
            say(reply.choices[0].message.content)
        """,
    ),
    (
        "a-function-of-two-parameters-not-named-as-a-handler",
        """
        from openai import OpenAI
        def render(kind, style):
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"Kind {kind}, style {style}.\\n{RULES}"},
                    {"role": "user", "content": "Go."},
                ],
            )
        """,
    ),
    (
        "a-task-decorator-of-a-module-importing-no-task-queue",
        """
        from openai import OpenAI
        from myproject.scheduling import board
        @board.task
        def weekly(persona):
            return OpenAI().chat.completions.create(
                model="gpt-4o",
                messages=[
                    {"role": "system", "content": f"You are {persona}.\\n{RULES}"},
                    {"role": "user", "content": "Write the weekly note."},
                ],
            )
        """,
    ),
]


def findings(source: str) -> list[tuple[int, str]]:
    text = textwrap.dedent(source).replace("RULES", repr(RULES))
    return [(f.line, f.code) for f in lint_python_source(text)]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in FIRE], ids=[c[0] for c in FIRE])
def test_an_entry_points_request_data_in_the_prefix_is_reported(
    source: str, expected: tuple[int, str]
) -> None:
    found = findings(source)
    assert expected in found, found


@pytest.mark.parametrize("source", [c[1] for c in QUIET], ids=[c[0] for c in QUIET])
def test_data_in_its_place_and_the_frameworks_own_objects_stay_quiet(source: str) -> None:
    assert [f for f in findings(source) if f[1] != "PC506"] == []


# Call-site evidence: a helper's parameter named like per-request data (`file_path`) whose
# value it returns is per-request where a caller passes per-request data, and the caller's
# constant where it passes a configuration constant (the real shape: a memory manager loading
# its fact file, named in the settings, into the system prompt).
MEMORY_HELPER = """
import json
from openai import OpenAI
from settings import FACTS_FILE
class Memory:
    def load(self, file_path):
        with open(file_path) as f:
            return json.load(f)
memory = Memory()
def reply(text, path):
    facts = memory.load(PATH)
    return OpenAI().chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": f"Known facts: {facts}\\n{RULES}"},
            {"role": "user", "content": text},
        ],
    )
"""


def test_a_configuration_constant_passed_to_a_per_request_named_parameter_is_quiet() -> None:
    source = MEMORY_HELPER.replace("PATH", "FACTS_FILE")
    assert [f for f in findings(source) if f[1] != "PC506"] == []


def test_the_same_helper_handed_a_callers_per_request_value_is_reported() -> None:
    found = findings(MEMORY_HELPER.replace("PATH", "path"))
    assert (7, "PC502") in found, found
