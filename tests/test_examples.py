"""The README's first command runs examples/layout.py: it must work offline, with no key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

LAYOUT = Path(__file__).resolve().parents[1] / "examples" / "layout.py"


def test_layout_example_runs_offline() -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    result = subprocess.run(
        [sys.executable, str(LAYOUT)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Request 2 repeats the first 5 blocks of request 1" in out
    assert "cache_control on history[2]" in out  # the end of the shared prefix, not the tail
    assert "Warning" not in result.stderr
