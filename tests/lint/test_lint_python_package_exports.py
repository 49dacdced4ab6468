"""A name a package re-exports (`from .query import TEMPLATE` in `prompts/__init__.py`, imported
as `from app.prompts import TEMPLATE`) is the name it re-exports: a prompt template or a date
helper reached that way is followed as if imported from its own module (the real shape: a
research agent's nodes format a date into instructions imported from the prompts package)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from promptcache.lint import LintConfig, lint_paths

TEMPLATE = '''
QUERY_INSTRUCTIONS = """Your goal is to write web search queries for a research assistant.
Instructions:
- The current date is {current_date}.
- Prefer a single query unless the question has several distinct parts.
- Never write more than three queries, and never two that ask the same thing.
- Each query must gather the most recent information available.
Format:
- Answer with a JSON object holding "rationale" (one sentence) and "query" (a list).
Example:
Topic: Which grew more last year, the revenue of a company or its number of customers?
{{"rationale": "Both figures are needed to compare them.", "query": ["revenue growth", "customers"]}}
Context: {topic}"""
'''

DATES = """
from datetime import datetime
def today():
    return datetime.now().strftime("%Y-%m-%d")
"""

NODE = """
from langchain_openai import ChatOpenAI
from app.prompts import QUERY_INSTRUCTIONS
from app.utils import today
def write_queries(topic):
    text = QUERY_INSTRUCTIONS.format(current_date=today(), topic=topic)
    return ChatOpenAI(model="m").invoke(text)
"""


def _lint(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    found = lint_paths([tmp_path], config=LintConfig(root=tmp_path))
    return sorted((Path(f.path).name, f.line, f.code) for f in found)


def _files(prompts_init: str, utils_init: str) -> dict[str, str]:
    return {
        "app/__init__.py": "",
        "app/prompts/__init__.py": prompts_init,
        "app/prompts/query.py": TEMPLATE,
        "app/utils/__init__.py": utils_init,
        "app/utils/dates.py": DATES,
        "app/nodes.py": NODE,
    }


def test_a_template_and_a_date_helper_re_exported_by_their_packages(tmp_path: Path) -> None:
    files = _files("from .query import QUERY_INSTRUCTIONS\n", "from .dates import today\n")
    assert [code for *_, code in _lint(tmp_path, files)] == ["PC501"]


def test_an_absolute_re_export_is_followed_too(tmp_path: Path) -> None:
    files = _files(
        "from app.prompts.query import QUERY_INSTRUCTIONS\n", "from app.utils.dates import today\n"
    )
    assert [code for *_, code in _lint(tmp_path, files)] == ["PC501"]


def test_re_exports_that_import_each_other_end(tmp_path: Path) -> None:
    # A package whose name leads back to itself: not followed forever, and nothing is claimed.
    files = _files("from app.prompts import QUERY_INSTRUCTIONS\n", "from .dates import today\n")
    assert _lint(tmp_path, files) == []


def test_a_package_s_own_agents_package_is_followed(tmp_path: Path) -> None:
    # `agents` is also the OpenAI Agents SDK's package: a project's own is read as its code.
    files = _files("from .query import QUERY_INSTRUCTIONS\n", "from .dates import today\n")
    files = {name.replace("app/", "agents/"): text for name, text in files.items()}
    files["agents/nodes.py"] = NODE.replace("from app.", "from agents.")
    assert [code for *_, code in _lint(tmp_path, files)] == ["PC501"]
