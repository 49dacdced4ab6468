"""
The project's tasks, one place for CI (`.ci/run`) and contributors alike:

    nox -s lint         # ruff check, ruff format --check, mypy --strict
    nox -s tests        # the whole suite, in parallel (the README's second command)
    nox -s docs         # the pictures, then the site: mkdocs build --strict
    nox -s build        # sdist and wheel, then twine check

Sessions run in the environment nox is started from (`pip install -e '.[dev]'` first): no
virtualenv per session, so CI and a contributor run the same tools at the same versions.
"""

from __future__ import annotations

import glob
import shutil

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = ["lint", "tests", "docs", "build"]

# The suite's command, as the README's second command runs it (tests/test_front_door.py).
PYTEST = ("python", "-m", "pytest", "-n", "auto")


@nox.session
def lint(session: nox.Session) -> None:
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy", "--strict", "promptcache")


@nox.session
def tests(session: nox.Session) -> None:
    session.run(*PYTEST, *session.posargs)


@nox.session
def docs(session: nox.Session) -> None:
    session.run("python", "docs/images/generate.py")
    session.run("mkdocs", "build", "--strict")


@nox.session
def build(session: nox.Session) -> None:
    shutil.rmtree("dist", ignore_errors=True)
    session.run("python", "-m", "build", "--no-isolation")
    session.run("twine", "check", "--strict", *sorted(glob.glob("dist/*")))
