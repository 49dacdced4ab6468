"""The docs' committed picture is what the script draws today (docs/images/generate.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_inspect_bar_picture_is_current() -> None:
    pytest.importorskip("anthropic")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}  # no NO_COLOR, no FORCE_COLOR
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "images" / "generate.py"), "--check"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    svg = (ROOT / "docs" / "images" / "inspect-bar.svg").read_text(encoding="utf-8")
    assert "cdnjs" not in svg and "@font-face" not in svg  # nothing fetched when it is opened
