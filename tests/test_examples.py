"""The README's first command runs examples/layout.py: it must work offline, with no key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


# The first README command installs `.[anthropic]` only: no vcrpy, nor the other [dev] tools.
_WITHOUT_DEV_TOOLS = (
    "import runpy, sys; sys.modules['vcr'] = None; sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


def run_offline(name: str) -> subprocess.CompletedProcess[str]:
    """Run `examples/<name>` in a fresh interpreter with every *_API_KEY removed, no vcrpy."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return subprocess.run(
        [sys.executable, "-W", "error", "-c", _WITHOUT_DEV_TOOLS, str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_layout_example_runs_offline() -> None:
    result = run_offline("layout.py")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Request 2 repeats the first 5 blocks of request 1" in out
    assert "cache_control on history[2]" in out  # the end of the shared prefix, not the tail
    assert "Warning" not in result.stderr


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("anthropic_usage.py", "read=1993"),
        ("openai_usage.py", "chat: uncached=0 write=0 read=1993"),
        ("gemini_usage.py", "cache created"),
    ],
)
def test_usage_examples_run_offline_on_the_emulator_without_vcr(name: str, shown: str) -> None:
    """They replayed vcrpy cassettes, which only `[dev]` installs: after the README's first
    command they ended in ModuleNotFoundError: No module named 'vcr'."""
    if name == "gemini_usage.py":
        pytest.importorskip("google.genai", reason="google-genai needs Python 3.11+")
    result = run_offline(name)
    assert result.returncode == 0, result.stderr
    assert shown in result.stdout and "USD" in result.stdout


def test_readme_first_command_runs_the_demo_offline() -> None:
    """The README's first line installs the Anthropic extra and runs `promptcache demo`."""
    readme = (EXAMPLES.parent / "README.md").read_text()
    first = next(line for line in readme.splitlines() if line.startswith("python3 -m venv"))
    assert first.endswith("pip install '.[anthropic]' && promptcache demo")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    result = subprocess.run(
        [sys.executable, "-m", "promptcache", "demo"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "saved" in result.stdout and "cause timestamp" in result.stdout


def test_the_readme_names_every_core_dependency() -> None:
    """The README's "Core dependencies" sentence lists what `pip install promptcache-sdk` pulls."""
    import re

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    root = EXAMPLES.parent
    required = tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {re.split(r"[<>=!~;\[ ]", spec, maxsplit=1)[0] for spec in required if ";" not in spec}
    readme = " ".join((root / "README.md").read_text().split())
    sentence = readme[readme.index("Core dependencies:") :].split(". ", 1)[0]
    assert names and all(re.search(rf"\b{re.escape(n)}\b", sentence) for n in names), (
        sorted(names),
        sentence,
    )
