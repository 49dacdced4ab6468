"""The front door: a short README whose commands are the ones CI runs, and a site with every page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_a_door_not_the_manual() -> None:
    assert len(README.splitlines()) <= 300
    for page in re.findall(r"\]\((docs/[^)#]+)", README):
        assert (ROOT / page).is_file(), page


def test_ci_runs_the_readme_s_test_command_through_the_task_runner() -> None:
    second = next(line for line in README.splitlines() if "pip install -e '.[dev]'" in line)
    readme_pytest = second.rsplit("&& ", 1)[1]
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    (pytest_args,) = re.findall(r"^PYTEST = \(([^)]*)\)", noxfile, re.MULTILINE)
    assert readme_pytest == " ".join(a.strip().strip('"') for a in pytest_args.split(","))
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for session in ("lint", "tests", "docs", "build"):
        assert f"\nnox -s {session}" in ci, session
        assert re.search(rf"^def {session}\(session", noxfile, re.MULTILINE), session


def test_the_repository_s_own_hooks_run_ruff_and_mypy() -> None:
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    entries = [hook["entry"] for repo in config["repos"] for hook in repo["hooks"]]
    assert entries == ["ruff check --fix", "ruff format", "mypy --strict promptcache"]


def _nav_pages(entries: list[object]) -> list[str]:
    pages: list[str] = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += _nav_pages(value) if isinstance(value, list) else [str(value)]
    return pages


def test_every_page_is_in_the_site_s_navigation_and_every_entry_exists() -> None:
    """`mkdocs build --strict` fails on either; CI builds the site, this says so sooner."""
    yaml = pytest.importorskip("yaml")
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    nav = _nav_pages(config["nav"])
    docs = ROOT / "docs"
    assert all((docs / page).is_file() for page in nav), nav
    pages = {p.relative_to(docs).as_posix() for p in docs.rglob("*.md")}
    assert pages == set(nav), sorted(pages ^ set(nav))
