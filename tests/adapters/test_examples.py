"""The vendor examples run offline (cassette replay) with no API key set."""

from __future__ import annotations

import pytest

from .._recording import google_genai
from ..test_examples import run_offline


@pytest.mark.parametrize("name", ["anthropic_usage.py", "openai_usage.py", "gemini_usage.py"])
def test_example_runs_offline(name: str) -> None:
    if name.startswith("gemini"):
        google_genai()
    result = run_offline(name)
    assert result.returncode == 0, result.stderr
    assert "total_input=" in result.stdout
    assert " USD" in result.stdout  # the price's own currency, not a "$" whatever it is
    assert "Traceback" not in result.stderr
