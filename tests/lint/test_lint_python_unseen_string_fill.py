"""Plain prompt strings (a module constant or class attribute named as a prompt) with `{slot}`
placeholders that nothing in the project fills: the code that formats them lies elsewhere, so
each slot is judged where it is written, by its name; a string read anywhere in the project, a
slot with little static text after it, and text that `str.format` could not fill stay quiet."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig, lint_paths
from promptcache.lint.python import lint_python_source

from ._helpers import lint_beside

RULES = "Recommend only items in stock; state the price from the catalogue and never guess it. " * 6
WITH_UNKNOWN = LintConfig(select=("PC", "PC508"))


def findings(source: str, config: LintConfig | None = None) -> list[tuple[int, str, int | None]]:
    text = textwrap.dedent(source).replace("RULES", RULES)
    found = lint_python_source(text, config=config or LintConfig())
    return [(f.line, f.code, f.written_at) for f in found]


CASES = [
    (
        "module-system-prompt-profile-above-rules",
        # A prompts module: the shopper's profile opens the system prompt, the rules follow.
        '''
        SYSTEM_PROMPT = """You advise shoppers of a garden centre.
        Shopper profile: {user_profile}
        RULES"""
        ''',
        [(2, "PC502", 3)],
    ),
    (
        "class-attribute-template-question-first",
        # A namespace class of prompt texts for the service that formats them.
        '''
        class GardenPrompts:
            ANSWER_TEMPLATE = """Question from the shopper: {question}
        RULES"""
        ''',
        [(3, "PC502", None)],
    ),
    (
        "annotated-instruction-constant",
        '''
        PLANNER_INSTRUCTIONS: str = """Plan the visit for {customer_name}.
        RULES"""
        ''',
        [(2, "PC502", None)],
    ),
    (
        "escaped-json-braces-around-a-real-slot",
        # Doubled braces are a format string's escapes: the slot is still a slot.
        '''
        REPLY_PROMPT = """Context retrieved: {context}
        Reply as {{"answer": "...", "sources": []}}.
        RULES"""
        ''',
        [(2, "PC502", None)],
    ),
    # -- quiet twins ----------------------------------------------------------------------
    (
        "slot-at-the-end",
        '''
        SYSTEM_PROMPT = """You advise shoppers of a garden centre.
        RULES
        Shopper profile: {user_profile}"""
        ''',
        [],
    ),
    (
        "json-example-braces-are-no-placeholders",
        # Unescaped JSON: `str.format` could not fill this text, so its braces are no slots.
        '''
        EXTRACT_PROMPT = """Return {"question": "...", "items": []} for the message below.
        RULES"""
        ''',
        [],
    ),
    (
        "double-brace-template-only",
        '''
        SYSTEM_PROMPT = """You advise {{user_profile}} shoppers.
        RULES"""
        ''',
        [],
    ),
    (
        "formatted-in-its-module-with-a-constant",
        '''
        SYSTEM_PROMPT = """Shopper profile: {user_profile}
        RULES"""

        def system_text():
            return SYSTEM_PROMPT.format(user_profile="a returning shopper")
        ''',
        [],
    ),
    (
        "setting-name-slot",
        '''
        SYSTEM_PROMPT = """Answer in {language}.
        RULES"""
        ''',
        [],
    ),
    (
        "log-message-format",
        """
        LOG_TEMPLATE = "request {request_id} for {question} " + "took too long; retrying " * 40
        """,
        [],
    ),
    (
        "url-template",
        """
        SEARCH_TEMPLATE = "https://shop.example/search?q={query}&" + "facet=garden&" * 60
        """,
        [],
    ),
    (
        "sql-template",
        """
        ORDERS_TEMPLATE = "SELECT * FROM orders WHERE user_id = {user_id} " + "AND archived = 0 " * 40
        """,
        [],
    ),
    (
        "not-named-as-a-prompt",
        '''
        GREETING = """Shopper profile: {user_profile}
        RULES"""
        ''',
        [],
    ),
    (
        "inside-a-function",
        # A local is its function's business: the function's own flow judges it.
        '''
        def build():
            system_prompt = """Shopper profile: {user_profile}
        RULES"""
            return system_prompt
        ''',
        [],
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_unseen_string_fill_case(source: str, expected: list[tuple[int, str, int | None]]) -> None:
    assert findings(source) == expected


UNKNOWN = '''
SYSTEM_PROMPT = """You suggest plants for the {climate_zone} of a garden.
RULES"""
'''


def test_unknown_meaning_slot_is_asked_only_when_opted_in_above_a_long_text() -> None:
    assert findings(UNKNOWN) == []
    assert findings(UNKNOWN, WITH_UNKNOWN) == []  # ~100 tokens: short of the long prefix
    long = UNKNOWN.replace("RULES", "RULES" * 11)
    assert findings(long, WITH_UNKNOWN) == [(2, "PC508", None)]


PROMPTS = f'''
SYSTEM_PROMPT = """You advise shoppers of a garden centre.
Shopper profile: {{user_profile}}
{RULES}"""
'''


def _lint(tmp_path: Path, app: str | None) -> list[tuple[str, int, str]]:
    return lint_beside(tmp_path, "prompts.py", PROMPTS, {} if app is None else {"app.py": app})


def test_no_fill_in_the_project_judges_the_slot_where_it_is_written(tmp_path: Path) -> None:
    assert _lint(tmp_path, None) == [("prompts.py", 2, "PC502")]


def test_a_file_naming_the_constant_judges_instead(tmp_path: Path) -> None:
    # Only prompts.py is linted: app.py formats the text with a constant profile.
    app = """
        from prompts import SYSTEM_PROMPT

        def system_text():
            return SYSTEM_PROMPT.format(user_profile="a returning shopper")
        """
    assert _lint(tmp_path, app) == []


def _notes(tmp_path: Path, app: str) -> list[tuple[str, int, str, str]]:
    (tmp_path / "prompts.py").write_text(PROMPTS)
    (tmp_path / "app.py").write_text(textwrap.dedent(app))
    found = lint_paths([tmp_path / "prompts.py"], config=LintConfig(root=tmp_path))
    return [(Path(f.path).name, f.line, f.code, f.severity) for f in found]


def test_a_constant_handed_only_to_code_outside_the_project_is_not_followed(
    tmp_path: Path,
) -> None:
    # app.py gives the text to a library's agent, which fills the profile where nothing shows.
    app = """
        from prompts import SYSTEM_PROMPT
        from shopkit.agents import build_agent

        agent = build_agent(instructions=SYSTEM_PROMPT)
        """
    assert _notes(tmp_path, app) == [("prompts.py", 2, "PC506", "info")]


def test_a_constant_only_imported_elsewhere_is_not_followed(tmp_path: Path) -> None:
    app = """
        from prompts import SYSTEM_PROMPT

        __all__ = ["SYSTEM_PROMPT"]
        """
    assert _notes(tmp_path, app) == [("prompts.py", 2, "PC506", "info")]


def test_a_constant_handed_to_the_projects_own_function_is_followed(tmp_path: Path) -> None:
    app = """
        from prompts import SYSTEM_PROMPT
        from helpers import fill

        text = fill(SYSTEM_PROMPT, "a returning shopper")
        """
    (tmp_path / "helpers.py").write_text(
        "def fill(template, profile):\n    return template.format(user_profile=profile)\n"
    )
    assert _notes(tmp_path, app) == []


def test_a_constant_handed_to_a_known_request_is_followed(tmp_path: Path) -> None:
    app = """
        from langchain_core.messages import SystemMessage
        from prompts import SYSTEM_PROMPT

        opening = SystemMessage(content=SYSTEM_PROMPT)
        """
    assert _notes(tmp_path, app) == []
