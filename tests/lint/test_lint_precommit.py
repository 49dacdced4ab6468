"""The `promptcache-lint` hook, run by a real `pre-commit` on a temporary repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ._helpers import STATIC

ROOT = Path(__file__).resolve().parents[2]


def _manifest() -> list[dict[str, object]]:
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(hooks, list)
    return hooks


def test_manifest_declares_the_hook() -> None:
    (hook,) = _manifest()
    assert hook["id"] == "promptcache-lint"
    assert hook["types"] == ["jinja"]
    assert hook["entry"] == "promptcache lint"
    assert hook["language"] == "python"


def test_hook_is_documented() -> None:
    docs = (ROOT / "README.md").read_text(encoding="utf-8")
    for hook in _manifest():
        assert f"id: {hook['id']}" in docs


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_pre_commit_runs_the_hook(tmp_path: Path) -> None:
    pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install pre-commit)")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (hook,) = _manifest()
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "test@example.com")
    _git(repo, "config", "user.name", "test")
    # The manifest's hook, run as a local hook: language `system` uses the promptcache installed
    # in this environment instead of building one (no network).
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n"
        f"  - id: {hook['id']}\n    name: {hook['name']}\n    entry: {hook['entry']}\n"
        f"    language: system\n    types: {hook['types']}\n"
        f"    require_serial: {str(hook['require_serial']).lower()}\n",
        encoding="utf-8",
    )
    (repo / "system.j2").write_text("Now: {{ now() }}\n" + STATIC, encoding="utf-8")
    (repo / "clean.jinja").write_text("You are {{ persona }}.\n" + STATIC, encoding="utf-8")
    (repo / "notes.md").write_text("{{ now() }}" + STATIC, encoding="utf-8")  # not jinja
    _git(repo, "add", ".")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "PRE_COMMIT_COLOR": "never",
    }
    command = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
    failed = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "promptcache lint" in failed.stdout and "Failed" in failed.stdout
    assert "system.j2:1:9: PC101" in failed.stdout
    assert "notes.md" not in failed.stdout and "clean.jinja" not in failed.stdout

    (repo / "system.j2").write_text("{{ persona }}\n" + STATIC + "Now: {{ now() }}\n")
    _git(repo, "add", ".")
    passed = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
