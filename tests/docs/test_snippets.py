"""Every page's ```python blocks run as written, in order, offline, and print what the page shows.

The README and every page under docs/ (docs/rules.md aside: its Python blocks are the linter's
bad and good examples, which tests/lint/test_lint_docs.py and test_lint_python_rules.py lint).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .snippets import Snippet, snippets

ROOT = Path(__file__).resolve().parents[2]
LINT_EXAMPLES = ROOT / "docs" / "rules.md"
PAGES = [
    ROOT / "README.md",
    *sorted(p for p in (ROOT / "docs").rglob("*.md") if p != LINT_EXAMPLES),
]
RUNNABLE = [p for p in PAGES if snippets(p.read_text(encoding="utf-8"))]


def _run(page: Path, tmp_path: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    result = tmp_path / "result.json"
    done = subprocess.run(
        [
            sys.executable,
            "-W",
            "error",
            str(ROOT / "tests" / "docs" / "snippets.py"),
            str(page),
            str(result),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0 and result.exists(), done.stderr
    return json.loads(result.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", RUNNABLE, ids=[str(p.relative_to(ROOT)) for p in RUNNABLE])
def test_page_snippets_run_as_written(page: Path, tmp_path: Path) -> None:
    outcome = _run(page, tmp_path)
    assert outcome["ok"], outcome["error"]


def test_a_text_block_right_after_a_python_block_is_its_output() -> None:
    page = "```python\nprint(1)\n```\n\n```text\n1\n```\nprose\n```python\nx = 2\n```\nsay\n```text\nno\n```\n"
    assert snippets(page) == [
        Snippet(line=2, code="print(1)", expected="1"),
        Snippet(line=10, code="x = 2", expected=None),
    ]


def test_a_wrong_output_or_a_network_call_fails_the_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```python\nprint('a')\n```\n\n```text\nb\n```\n", encoding="utf-8")
    assert "but the page shows" in str(_run(page, tmp_path)["error"])
    page.write_text(
        "```python\nimport socket\nsocket.create_connection(('192.0.2.1', 80), timeout=1)\n```\n",
        encoding="utf-8",
    )
    assert "tried to reach the network" in str(_run(page, tmp_path)["error"])
