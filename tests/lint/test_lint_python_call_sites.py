"""
Call-site evidence through the project's own objects (issue #21): a value is per-request where
the call that makes the object passes per-request data, whatever the attribute is named.

- An attribute the constructor sets from its parameter (`self.notes = notes`), read by another
  method: the instance made in a route handler with the request's data holds that data (the
  analysis read it with the method's own arguments instead, and lost it).
- A dataclass's or pydantic model's field (`Ctx(notes=...)`), read from a parameter
  (`ctx.notes`): the field the caller filled.

Each case is our own reproduction, with the line its finding must be on, and a quiet twin where
the object is made with constants or the data is in the newest turn.
"""

from __future__ import annotations

import textwrap

import pytest

from promptcache.lint.python import lint_python_source

RULES = "Answer in three sentences. Cite the policy section. Never promise refunds. " * 8

BOT = """
from flask import Flask, request
from openai import OpenAI
app = Flask(__name__)
class Bot:
    def __init__(self, notes, tone="plain"):
        self.notes = notes
        self.tone = tone
    def system(self):
        return f"Notes: {self.notes}\\n{RULES}"
    def ask(self, text):
        return OpenAI().chat.completions.create(
            model="gpt-4o",
            messages=[
                {"role": "system", "content": self.system()},
                {"role": "user", "content": text},
            ],
        )
@app.route("/ask", methods=["POST"])
def ask():
    return MAKE.ask(TEXT)
"""

CTX = """
from dataclasses import dataclass
from fastapi import FastAPI
from openai import OpenAI
app = FastAPI()
@dataclass
class Ctx:
    notes: str
    tone: str = "plain"
def build(ctx: Ctx, text: str):
    return OpenAI().chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "system", "content": f"Notes: {ctx.notes}\\n{RULES}"},
            {"role": "user", "content": text},
        ],
    )
@app.post("/ask")
def ask(payload: dict):
    return build(MAKE, TEXT)
"""

FIRE = [
    (
        "an-attribute-set-from-the-constructor-read-through-a-helper-method",
        BOT.replace("MAKE", 'Bot(request.json["notes"])').replace("TEXT", '"Go."'),
        (21, "PC502"),
    ),
    (
        "a-dataclass-field-filled-with-the-request",
        CTX.replace("MAKE", 'Ctx(notes=payload["notes"])').replace("TEXT", '"Go."'),
        (20, "PC502"),
    ),
    (
        "a-dataclass-field-filled-by-position",
        CTX.replace("MAKE", 'Ctx(payload["notes"])').replace("TEXT", '"Go."'),
        (20, "PC502"),
    ),
]

QUIET = [
    (
        "the-instance-made-with-a-constant",
        BOT.replace("MAKE", 'Bot("Shop hours are nine to five.")').replace(
            "TEXT", 'request.json["text"]'
        ),
    ),
    (
        "the-request-only-in-an-attribute-the-prompt-does-not-read",
        BOT.replace(
            "MAKE", 'Bot("Shop hours are nine to five.", tone=request.json["tone"])'
        ).replace("TEXT", '"Go."'),
    ),
    (
        "a-dataclass-made-with-a-constant",
        CTX.replace("MAKE", 'Ctx(notes="Shop hours are nine to five.")').replace(
            "TEXT", 'payload["text"]'
        ),
    ),
    (
        "the-request-only-in-a-field-the-prompt-does-not-read",
        CTX.replace("MAKE", 'Ctx("Shop hours.", tone=payload["tone"])').replace("TEXT", '"Go."'),
    ),
]


def findings(source: str) -> list[tuple[int, str]]:
    text = textwrap.dedent(source).replace("RULES", repr(RULES))
    return [(f.line, f.code) for f in lint_python_source(text)]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in FIRE], ids=[c[0] for c in FIRE])
def test_what_the_object_was_made_with_reaches_the_prefix(
    source: str, expected: tuple[int, str]
) -> None:
    found = findings(source)
    assert expected in found, found


@pytest.mark.parametrize("source", [c[1] for c in QUIET], ids=[c[0] for c in QUIET])
def test_an_object_made_with_constants_stays_quiet(source: str) -> None:
    assert [f for f in findings(source) if f[1] != "PC506"] == []
