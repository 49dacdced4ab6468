"""The README's first command runs examples/layout.py: it must work offline, with no key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_offline(name: str) -> subprocess.CompletedProcess[str]:
    """Run `examples/<name>` in a fresh interpreter with every *_API_KEY removed."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
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
