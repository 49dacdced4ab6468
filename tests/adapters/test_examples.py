"""The vendor examples run offline (cassette replay) with no API key set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .._recording import google_genai

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


@pytest.mark.parametrize("name", ["anthropic_usage.py", "openai_usage.py", "gemini_usage.py"])
def test_example_runs_offline(name: str) -> None:
    if name.startswith("gemini"):
        google_genai()
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "total_input=" in result.stdout
    assert "Traceback" not in result.stderr
