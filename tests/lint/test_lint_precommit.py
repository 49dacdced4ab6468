"""The `promptcache-lint` hook, run by a real `pre-commit` on a temporary repository."""

from __future__ import annotations

import os
import re
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
    # The trigger is the linter's default include globs, not pre-commit's file types (which
    # know no .prompt or .prompty).
    pattern = re.compile(hook["files"])
    for name in ("a.j2", "a.jinja", "a.jinja2", "a.prompt", "p/a.prompty", "agent.py"):
        assert pattern.search(name), name
    assert pattern.search("model/tokenizer_config.json")
    assert not pattern.search("notes.md") and not pattern.search("config.json")
    assert "types_or" not in hook
    assert hook["entry"] == "promptcache lint"
    assert hook["language"] == "python"
    # A changed partial must lint the templates that include it: the hook lints the folder.
    assert hook["pass_filenames"] is False


def test_hook_is_documented() -> None:
    docs = (ROOT / "README.md").read_text(encoding="utf-8")
    for hook in _manifest():
        assert f"id: {hook['id']}" in docs


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A git repository with the manifest's hook installed, and the environment to run it."""
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
        f"    language: system\n    files: '{hook['files']}'\n"
        f"    require_serial: {str(hook['require_serial']).lower()}\n"
        f"    pass_filenames: {str(hook['pass_filenames']).lower()}\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "PRE_COMMIT_COLOR": "never",
    }
    return repo, env


def _pre_commit(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pre_commit", "run", *args]
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)


def test_pre_commit_runs_the_hook(tmp_path: Path) -> None:
    repo, env = _repo(tmp_path)
    (repo / "system.j2").write_text("Now: {{ now() }}\n" + STATIC, encoding="utf-8")
    (repo / "clean.jinja").write_text("You are {{ persona }}.\n" + STATIC, encoding="utf-8")
    (repo / "notes.md").write_text("{{ now() }}" + STATIC, encoding="utf-8")  # not jinja
    (repo / "agent.py").write_text(
        "import time\n\ndef ask(client, history):\n    return client.messages.create(\n"
        "        model='m', max_tokens=9, system=f't={time.time()}', messages=history)\n",
        encoding="utf-8",
    )
    _git(repo, "add", ".")
    failed = _pre_commit(repo, env, "--all-files")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "promptcache lint" in failed.stdout and "Failed" in failed.stdout
    assert "system.j2:1:9: PC101" in failed.stdout
    assert "agent.py:5:46: PC501" in failed.stdout
    assert "notes.md" not in failed.stdout and "clean.jinja" not in failed.stdout

    (repo / "system.j2").write_text("{{ persona }}\n" + STATIC + "Now: {{ now() }}\n")
    (repo / "agent.py").write_text("def ask(client, history):\n    return history\n")
    _git(repo, "add", ".")
    passed = _pre_commit(repo, env, "--all-files")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout


def test_a_prompty_file_alone_triggers_the_hook_and_is_linted(tmp_path: Path) -> None:
    repo, env = _repo(tmp_path)
    (repo / "chat.prompty").write_text(
        "---\nname: chat\ninputs:\n  question:\n    type: string\n---\n"
        "system:\nAsked: {{ question }}\n" + STATIC,
        encoding="utf-8",
    )
    _git(repo, "add", ".")
    failed = _pre_commit(repo, env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "chat.prompty:" in failed.stdout


def test_changing_only_a_partial_lints_the_templates_that_include_it(tmp_path: Path) -> None:
    repo, env = _repo(tmp_path)
    (repo / "partials").mkdir()
    (repo / "partials" / "header.j2").write_text("You are the support agent.\n")
    (repo / "system.j2").write_text("{% include 'partials/header.j2' %}\n" + STATIC)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "templates")
    # Only the partial changes, and only the partial is staged.
    (repo / "partials" / "header.j2").write_text("You are the support agent. {{ now() }}\n")
    _git(repo, "add", "partials/header.j2")
    failed = _pre_commit(repo, env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "system.j2:1:4: PC104" in failed.stdout  # reported where the partial is included


def test_readme_pins_the_release_tag_of_this_version() -> None:
    """The README's `rev:` is this version's release tag (`v0.1.0`), not a bare commit hash:
    `pre-commit autoupdate` moves a tag to the newest release, and a tag says which one runs.
    Where the tag exists in this checkout, it must ship the hook."""
    import promptcache

    docs = (ROOT / "README.md").read_text(encoding="utf-8")
    (rev,) = re.findall(r"^\s*rev: (\S+)", docs, re.MULTILINE)
    assert rev == f"v{promptcache.__version__}", rev
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{promptcache.__version__}]" in changelog  # a release, not a wish
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return
    shown = subprocess.run(
        ["git", "show", f"{rev}:.pre-commit-hooks.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if "unknown revision" in shown.stderr or "invalid object name" in shown.stderr:
        return  # not tagged yet in this checkout: the release tags it (CONTRIBUTING.md)
    assert shown.returncode == 0, f"rev {rev} does not ship the hook: {shown.stderr}"
    assert "id: promptcache-lint" in shown.stdout
