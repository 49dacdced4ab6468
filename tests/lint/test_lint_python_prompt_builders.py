"""
Prompt builders whose callers the analysis does not see, and static text in scripts of more
than one byte a character (issue reqA, session 33), in cases of our own, each with the line its
finding must be written at, and quiet twins.

- `def build_review_prompt(title, body): return f"...{title}..." + RULES` in a prompts module
  that nothing in the project calls (its caller is outside what is linted): a builder's
  parameters are what each prompt it builds is made from, so one written above the builder's
  long static text costs that text on every call. A call in the project says what it passes
  (and is judged there): then the builder is quiet, as it is for a stable name, a constant
  default and short static text.
- Static text in Chinese or Japanese was weighed at four characters a token, as ASCII is: a
  CJK character is about one token (promptcache's own estimate), so a few hundred characters of
  instructions after a value were taken for a few dozen tokens and never judged.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig, lint_paths

RULES = "List the three strongest selling points, each with the evidence a buyer would ask for. "
LONG = RULES * 8
# About 160 characters of instructions in Chinese (our own words): ~40 tokens at four
# characters a token, over a hundred as a tokenizer counts them.
CJK = "请根据以上商品信息，写出三条最能打动买家的卖点，并为每一条给出买家会关心的依据。" * 4


def lint_project(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, int | None]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = textwrap.dedent(text).replace("LONG", repr(LONG)).replace("CJK", repr(CJK))
        path.write_text(text, encoding="utf-8")
    found = lint_paths([tmp_path], config=LintConfig(root=tmp_path))
    return sorted(
        (Path(f.path).name, f.line, f.written_at)
        for f in found
        if f.code == "PC502" and f.severity != "info"
    )


BUILDER = """
def build_review_prompt(title: str, body: str) -> str:
    return f\"\"\"Write a product review.
Title: {title}
Body: {body}
\"\"\" + LONG
"""


def test_a_builder_no_call_in_the_project_makes_is_judged(tmp_path: Path) -> None:
    found = lint_project(tmp_path, {"app/prompts.py": BUILDER})
    assert ("prompts.py", 2, 4) in found  # `title`, written on line 4
    assert ("prompts.py", 2, 5) in found  # `body`


def test_a_builder_the_project_calls_is_judged_at_its_calls(tmp_path: Path) -> None:
    caller = """
    from app.prompts import build_review_prompt
    def review():
        return build_review_prompt("Kettle", "Boils fast.")
    """
    found = lint_project(tmp_path, {"app/prompts.py": BUILDER, "app/review.py": caller})
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            """
            def build_review_prompt(language: str, tone: str) -> str:
                return f"Answer in {language}, {tone}.\\n" + LONG
            """,
            id="stable-names",
        ),
        pytest.param(
            """
            def build_review_prompt(title: str, body: str = "none") -> str:
                return f"Review: {body}\\n" + LONG
            """,
            id="a-constant-default",
        ),
        pytest.param(
            """
            def build_review_prompt(title: str) -> str:
                return f"Review the product called {title}. Be brief."
            """,
            id="short-static-text",
        ),
        pytest.param(
            """
            def build_review_prompt(title: str) -> str:
                return LONG + f"Product: {title}"
            """,
            id="the-parameter-at-the-end",
        ),
        pytest.param(
            """
            def review_notes(title: str) -> str:
                return f"Product: {title}\\n" + LONG
            """,
            id="not-named-as-a-prompt",
        ),
    ],
)
def test_quiet_builders(tmp_path: Path, source: str) -> None:
    assert lint_project(tmp_path, {"app/prompts.py": source}) == []


def test_static_text_in_chinese_is_weighed_as_tokens(tmp_path: Path) -> None:
    source = """
    from openai import OpenAI
    client = OpenAI()
    def ask(question):
        text = "商品问题：" + question + CJK
        return client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": text}]
        )
    """
    assert [line for _, line, _ in lint_project(tmp_path, {"ask.py": source})] == [5]


def test_as_many_ascii_characters_stay_quiet(tmp_path: Path) -> None:
    source = """
    from openai import OpenAI
    client = OpenAI()
    SHORT = "x" * 160
    def ask(question):
        text = "Question: " + question + SHORT
        return client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": text}]
        )
    """
    assert lint_project(tmp_path, {"ask.py": source}) == []


# A service function that formats a module constant's template with its parameters and sends it
# as the only user turn (after a one-line system message), called from a route outside what is
# linted: the parameters are what each request is made from (issue 21, unk7).
TICKET_PROMPT = '''
TICKET_PROMPT = """Here is a support ticket.

{ticket}

""" + LONG
'''

SENDER = """
from openai import OpenAI
client = OpenAI()
def send(prompt: str) -> str:
    reply = client.chat.completions.create(
        model="m",
        messages=[
            {"role": "system", "content": "You are a helpdesk assistant."},
            {"role": "user", "content": prompt},
        ],
    )
    return reply.choices[0].message.content
"""

SERVICE = """
from app.llm import send
from app.prompts import TICKET_PROMPT
def triage_ticket(subject: str, details: str) -> str:
    ticket = f"Subject: {subject}\\nDetails: {details}"
    prompt = TICKET_PROMPT.format(ticket=ticket)
    return send(prompt)
"""


def ticket_project(service: str, **more: str) -> dict[str, str]:
    files = {"app/prompts.py": TICKET_PROMPT, "app/llm.py": SENDER, "app/service.py": service}
    files.update({f"app/{name}.py": text for name, text in more.items()})
    return files


def test_a_parameter_written_into_the_newest_turn_of_a_function_no_call_makes(
    tmp_path: Path,
) -> None:
    found = lint_project(tmp_path, ticket_project(SERVICE))
    # Reported at each parameter, written where the template is filled (line 6), the fix's place.
    assert found == [("service.py", 4, 6), ("service.py", 4, 6)]


def test_the_place_a_helper_of_the_module_fills_the_template_is_named(tmp_path: Path) -> None:
    service = """
    from app.llm import send
    from app.prompts import TICKET_PROMPT
    def _ask(ticket):
        prompt = TICKET_PROMPT.format(ticket=ticket)
        return send(prompt)
    def triage_ticket(report: str) -> str:
        return _ask(report.strip())
    """
    assert lint_project(tmp_path, ticket_project(service)) == [("service.py", 7, 5)]


@pytest.mark.parametrize(
    ("service", "more"),
    [
        pytest.param(
            SERVICE,
            {"routes": "from app.service import triage_ticket\ntriage_ticket('a', 'b')\n"},
            id="called-in-the-project-with-constants",
        ),
        pytest.param(
            SERVICE.replace("subject: str, details: str", "tone: str, language: str")
            .replace("{subject}", "{tone}")
            .replace("{details}", "{language}"),
            {},
            id="names-of-settings",
        ),
        pytest.param(
            SERVICE.replace("subject: str, details: str", 'subject: str = "", details: str = ""'),
            {},
            id="constant-defaults",
        ),
        pytest.param(
            SERVICE.replace("TICKET_PROMPT.format(ticket=ticket)", "'Be brief. ' + ticket"),
            {},
            id="short-static-text-after-it",
        ),
        pytest.param(
            SERVICE.replace("TICKET_PROMPT.format(ticket=ticket)", "TICKET_PROMPT + ticket"),
            {},
            id="the-data-after-the-instructions",
        ),
    ],
)
def test_quiet_newest_turn_parameters(tmp_path: Path, service: str, more: dict[str, str]) -> None:
    assert lint_project(tmp_path, ticket_project(service, **more)) == []


def test_a_parameter_in_the_system_prompt_is_not_taken_for_the_request_data(
    tmp_path: Path,
) -> None:
    sender = SENDER.replace('"You are a helpdesk assistant."', "prompt").replace(
        '{"role": "user", "content": prompt}', '{"role": "user", "content": "Go."}'
    )
    files = ticket_project(SERVICE)
    files["app/llm.py"] = sender
    assert lint_project(tmp_path, files) == []
