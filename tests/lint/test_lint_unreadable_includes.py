"""
Every file lint opens goes through the bounded reader: an included, imported or parent template,
a project module read for cross-module resolution and the file being linted itself. A FIFO, a
device (`/dev/zero` behind a symlink), a non-UTF-8 or an over-large file is named in a finding,
never read without bound, never waited on. Each lint runs in a child process with a deadline and
a memory cap, so a hang or an endless read fails the test in seconds (and is killed) instead of
stalling the suite or filling the machine's memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig
from promptcache.lint.python import PythonLinter

from ._helpers import STATIC

_DEADLINE_S = 30
_MEMORY_CAP = 3 << 30  # address space of the child: /dev/zero read to the end stops here
_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
_zero = pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
_CHILD = textwrap.dedent(
    """
    import json, resource, sys
    from pathlib import Path
    resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
    from promptcache.lint import LintConfig, lint_file
    from promptcache.lint.python import PythonLinter
    kind, path, root, max_bytes, search = sys.argv[1:6]
    config = LintConfig(
        root=Path(root), max_bytes=int(max_bytes), search_path=tuple(filter(None, search.split(",")))
    )
    if kind == "python":
        found = PythonLinter(config, root=Path(root)).lint_file(Path(path), display=Path(path).name)
    else:
        found = lint_file(Path(path), config=config)
    print(json.dumps([[f.code, f.line, f.message] for f in found]))
    """
).format(cap=_MEMORY_CAP)


def _lint(
    path: Path,
    *,
    python: bool = False,
    max_bytes: int = 2000,
    search: tuple[str, ...] = (),
    root: Path | None = None,
) -> list[tuple[str, int, str]]:
    """The (code, line, message) of each finding for `path`, linted in a bounded child process."""
    kind = "python" if python else "template"
    argv = [kind, str(path), str(root or path.parent), str(max_bytes)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, *argv, ",".join(search)],
            capture_output=True,
            text=True,
            timeout=_DEADLINE_S,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"lint still running after {_DEADLINE_S}s: it waits on a read")
    assert done.returncode == 0, done.stderr[-2000:]
    return [(code, line, message) for code, line, message in json.loads(done.stdout)]


def _plant(kind: str, path: Path) -> str:
    """Make `path` the bad file `kind` names; what the finding must say about it."""
    if kind == "fifo":
        os.mkfifo(path)
        return "is a FIFO (named pipe)"
    if kind == "dev-zero-link":
        path.symlink_to("/dev/zero")
        return "is a device"
    if kind == "utf16":
        path.write_bytes(("Hello {{ name }}. " + STATIC[:600]).encode("utf-16"))
        return "UTF-16"
    if kind == "latin1":
        path.write_bytes(b"Caf\xe9 {{ name }}. " + STATIC.encode())
        return "not UTF-8 text: byte 0xe9"
    assert kind == "too-large"
    path.write_text("{{ now() }}" + STATIC * 4, encoding="utf-8")  # ~5 KB, a volatile call first
    return "over the 2,000-byte input limit"


_KINDS = [
    pytest.param("fifo", marks=_fifo),
    pytest.param("dev-zero-link", marks=_zero),
    "utf16",
    "latin1",
    "too-large",
]
_TAGS = {
    "include": "{% include 'part.j2' %}",
    "import": "{% import 'part.j2' as part %}{{ part.x }}",
    "extends": "{% extends 'part.j2' %}{% block b %}hi{% endblock %}",
}


@pytest.mark.parametrize("tag", sorted(_TAGS))
@pytest.mark.parametrize("kind", _KINDS)
def test_an_unreadable_template_it_loads_is_named_in_a_finding(
    tag: str, kind: str, tmp_path: Path
) -> None:
    said = _plant(kind, tmp_path / "part.j2")
    main = tmp_path / "main.j2"
    main.write_text(_TAGS[tag] + "\n" + STATIC[:900], encoding="utf-8")
    found = _lint(main)
    notes = [message for code, _, message in found if code == "PC002"]
    assert notes, found
    (note,) = notes
    assert str(tmp_path / "part.j2") in note and said in note, note
    assert "not found" not in note  # it is there: it could not be read


def test_a_readable_template_after_a_fifo_on_the_search_path_is_used(tmp_path: Path) -> None:
    """A non-file where Jinja looks first is passed over, as Jinja's loader passes it over."""
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "first" / "part.j2")
    (tmp_path / "second" / "part.j2").write_text("{{ now() }}", encoding="utf-8")
    main = tmp_path / "main.j2"
    main.write_text("{% include 'part.j2' %}\n" + STATIC, encoding="utf-8")
    found = _lint(main, max_bytes=1 << 20, search=("first", "second"))
    assert [code for code, _, _ in found] == ["PC104"], found


@pytest.mark.parametrize("kind", _KINDS)
def test_the_file_being_linted_is_read_with_the_bound(kind: str, tmp_path: Path) -> None:
    """`lint_file` on the file itself: the same checks as any input, a PC001 naming the reason."""
    path = tmp_path / "t.j2"
    said = _plant(kind, path)
    ((code, _, message),) = _lint(path)
    assert code == "PC001" and said in message, message


@pytest.mark.parametrize("kind", _KINDS)
def test_a_python_file_being_linted_is_read_with_the_bound(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "app.py"
    said = _plant(kind, path)
    ((code, _, message),) = _lint(path, python=True)
    assert code == "PC500" and said in message, message


_AGENT = """
    from app.prompts import build_system
    def ask(client, question):
        return client.messages.create(model="m", max_tokens=9, system=build_system(),
            messages=[{"role": "user", "content": question}])
    """
_PROMPTS = 'import time\ndef build_system():\n    return f"Now {time.time()}." + "x" * 10\n'


@pytest.mark.parametrize(
    "kind",
    [pytest.param("fifo", marks=_fifo), pytest.param("dev-zero-link", marks=_zero), "too-large"],
)
def test_an_unreadable_project_module_is_not_followed(kind: str, tmp_path: Path) -> None:
    """The helper's module cannot be read: its value is reported as not followed (PC506)."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "app" / "agent.py").write_text(textwrap.dedent(_AGENT), encoding="utf-8")
    prompts = tmp_path / "app" / "prompts.py"
    if kind == "too-large":
        prompts.write_text(_PROMPTS + "# padding\n" * 300, encoding="utf-8")
    else:
        _plant(kind, prompts)
    found = _lint(tmp_path / "app" / "agent.py", python=True, root=tmp_path)
    assert [(line, code) for code, line, _ in found] == [(4, "PC506")], found
    assert "cannot be read" in found[0][2], found


def test_a_readable_project_module_within_the_bound_is_followed(tmp_path: Path) -> None:
    """The twin of the test above: the same module, readable, is followed to its clock."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "app" / "agent.py").write_text(textwrap.dedent(_AGENT), encoding="utf-8")
    (tmp_path / "app" / "prompts.py").write_text(_PROMPTS, encoding="utf-8")
    linter = PythonLinter(LintConfig(root=tmp_path, max_bytes=2000), root=tmp_path)
    found = linter.lint_file(tmp_path / "app" / "agent.py", "agent.py")
    assert [f.code for f in found] == ["PC501"], found


_RENDERS_A_FILE = """
    from datetime import datetime
    from jinja2 import Environment, FileSystemLoader
    env = Environment(loader=FileSystemLoader("templates"))
    def ask(client, question):
        system = env.get_template("system.j2").render(date=datetime.now())
        return client.messages.create(model="m", max_tokens=9, system=system,
            messages=[{"role": "user", "content": question}])
    """


@pytest.mark.parametrize(("max_bytes", "code"), [(100_000, "PC501"), (1000, "PC506")])
def test_a_template_file_python_renders_is_read_with_the_bound(
    max_bytes: int, code: str, tmp_path: Path
) -> None:
    """Over the bound, the template's text is unknown (not followed), not read whole."""
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "system.j2").write_text("Today: {{ date }}.\n" + STATIC, "utf-8")
    (tmp_path / "agent.py").write_text(textwrap.dedent(_RENDERS_A_FILE), encoding="utf-8")
    linter = PythonLinter(LintConfig(root=tmp_path, max_bytes=max_bytes), root=tmp_path)
    found = linter.lint_file(tmp_path / "agent.py", "agent.py")
    assert [(f.line, f.code) for f in found] == [(6, code)], found
