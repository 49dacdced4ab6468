"""
The Python lint's findings on a large generated project, held equal to a recorded run.

Performance work on the analysis must not change a single finding: this generates a project of
several packages (copies of the suite's own request-building cases, so imports resolve per package, and
modules spliced from the corpus's own statements with busters and cross-module calls mixed in),
lints it as the CLI does, and compares every field of every finding with
`data/python_equivalence.json` (each message by its SHA-256, to keep the file small). That file was recorded by the code before the performance pass
(commit 3a4285b); record it again only for a change meant to alter findings:

    python -m tests.lint.test_lint_python_equivalence --record

The recorded findings depend on the `ast` of the Python that recorded them (column offsets of
literals inside f-strings changed in 3.12): on another minor version the test is skipped.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
from dataclasses import fields, replace
from pathlib import Path

import pytest

from promptcache.lint import LintConfig, lint_paths
from promptcache.lint.python._flow import passed_through
from promptcache.lint.python._values import Taint

CORPUS = Path(__file__).parent / "pycorpus"
RECORDED = Path(__file__).parent / "data" / "python_equivalence.json"
PACKAGES = 3
SPLICED_MODULES = 160

# Code that makes or passes on variation, spliced between the corpus's statements. `{other}` is
# another generated module of the same package: its helpers are followed across modules.
FRAGMENTS = (
    "import json, time, uuid, random, hashlib\nfrom datetime import datetime, date\n",
    "from .{other} import build_system, TOOLS, helper\n",
    "def build_system(user_name, docs):\n"
    "    head = f'Today is {{datetime.now():%Y-%m-%d}}. You help {{user_name}}.'\n"
    "    return head + '\\n'.join(d['text'] for d in docs) + 'Answer from the handbook. ' * 30\n",
    "TOOLS = [{{'name': n, 'input_schema': json.dumps({{'type': 'object', 'properties': "
    "{{k: {{'type': 'string'}} for k in set(n)}}}})}} for n in ('lookup', 'refund')]\n",
    "def helper(question):\n    return {{'role': 'user', 'content': question}}\n",
    "def ask(client, history, question, request):\n"
    "    system = build_system(request.user.name, request.docs)\n"
    "    return client.messages.create(model='m', system=system, tools=TOOLS,\n"
    "                                  messages=[*history, helper(question)])\n",
    "SYSTEM_PROMPT = 'Session %s. ' % uuid.uuid4() + 'Follow the refund policy. ' * 40\n",
    "def chat(client, messages, session_id):\n"
    "    params = {{'model': 'gpt-4o', 'messages': [{{'role': 'system', 'content': "
    "SYSTEM_PROMPT + str(session_id)}}, *messages]}}\n"
    "    return client.chat.completions.create(**params)\n",
    "def order(names):\n    return sorted(names, key=hash) + list({{'a', 'b'}})\n",
    "PROMPT = '{{persona}} at {{now}}: ' + 'Stay on topic. ' * 50\n"
    "def render(template, persona):\n"
    "    return PROMPT.format(persona=persona, now=time.time())\n",
    "ask(None, [], 'q', None)\nchat(None, [], random.random())\n",
)


def _statements(path: Path) -> list[str]:
    """The module's top-level statements as their own source text (the same on every Python)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    return [
        "".join(lines[node.lineno - 1 : node.end_lineno])
        for node in ast.parse(source).body
        if node.col_offset == 0 and node.end_lineno is not None
    ]


def write_project(root: Path) -> list[Path]:
    """The generated project: PACKAGES packages, each a corpus copy and spliced modules."""
    rng = random.Random(2026)
    corpus = sorted(p for p in CORPUS.rglob("*.py"))
    pool = [s for path in corpus for s in _statements(path)]
    for index in range(PACKAGES):
        package = root / f"service{index}"
        shutil.copytree(CORPUS, package, ignore=shutil.ignore_patterns("*.md", "__pycache__"))
        generated = package / "generated"
        generated.mkdir()
        for number in range(SPLICED_MODULES):
            parts = []
            for _ in range(rng.randint(2, 7)):
                parts.extend(rng.sample(pool, rng.randint(1, 4)))
                other = f"gen{rng.randrange(SPLICED_MODULES):03d}"
                parts.append(rng.choice(FRAGMENTS).format(other=other))
            (generated / f"gen{number:03d}.py").write_text("\n".join(parts), encoding="utf-8")
        for folder in [package, *(p for p in package.rglob("*") if p.is_dir())]:
            (folder / "__init__.py").touch()
    return sorted(root.rglob("*.py"))


def findings_of(root: Path) -> list[list[object]]:
    """Every finding of linting the project as the CLI does, its paths relative to `root`."""
    files = write_project(root)
    found = lint_paths(files, config=LintConfig(root=root, include=("*.py",)))
    # Findings name files relative to the working folder when inside it, else absolute.
    try:
        prefix = root.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        prefix = root.as_posix()
    return [
        [
            f.path.replace(prefix, "<root>"),
            f.line,
            f.column,
            f.code,
            f.severity,
            f.tokens_at_risk,
            hashlib.sha256(f.message.replace(prefix, "<root>").encode()).hexdigest()[:16],
        ]
        for f in found
    ]


# A clock that reaches the system prompt by two paths from one site: through a `.format` the
# analysis cannot see into, and straight through an f-string (b06 of the corpus has this shape).
TWO_PATHS = """
from datetime import datetime

def get_system_prompt(custom: str = "") -> str:
    now = datetime.now().strftime("%H:%M")
    prompt = custom or DEFAULT
    if "{now}" in prompt:
        return prompt.format(now=now)
    return f"{prompt} Time: {now}"
"""


def test_a_site_reached_by_two_paths_gets_one_finding_whatever_the_hash_seed() -> None:
    # The one finding kept for a site was the first of its hits in set order, which follows
    # string hashes: two runs of the same code named different paths in the message.
    script = (
        "import json, sys; from promptcache.lint.python import lint_python_source; "
        "print(json.dumps([f.message for f in lint_python_source(sys.stdin.read())]))"
    )
    outputs = set()
    for seed in range(12):
        done = subprocess.run(
            [sys.executable, "-c", script],
            input=TWO_PATHS,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1, outputs
    messages = json.loads(outputs.pop())
    assert len(messages) == 1
    # Of equal cost, the path the analysis followed whole is the one named.
    assert "assumed to pass through" not in messages[0]


# A helper writing several parts of its parameter into the text, one per line: what the caller
# passes is one value, written on each of those lines.
PARTS_WRITTEN = """
from openai import OpenAI
client = OpenAI()
def _turn(profile):
    text = f"Sleep: {profile.sleep}\\n"
    text += f"Load: {profile.load}\\n"
    text += f"Pulse: {profile.pulse}\\n"
    text += f"Mood: {profile.mood}\\n"
    return text + "Plan the week by these rules. " * 60
def reply(context):
    return client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": _turn(context)}]
    )
"""


def test_the_line_a_helper_writes_a_value_on_is_its_first_whatever_the_hash_seed() -> None:
    # Each part is its own dependency, all standing for the caller's one value: the line kept
    # was the first part's in set order, which follows string hashes.
    script = (
        "import json, sys; from promptcache.lint.python import lint_python_source; "
        "print(json.dumps([(f.line, f.written_at) for f in lint_python_source(sys.stdin.read())]))"
    )
    outputs = set()
    for seed in range(8):
        done = subprocess.run(
            [sys.executable, "-c", script],
            input=PARTS_WRITTEN,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1, outputs
    assert json.loads(outputs.pop()) == [[12, 5]]


def _version() -> str:
    return f"{sys.version_info.major}.{sys.version_info.minor}"


def test_findings_on_a_generated_project_are_the_recorded_ones(tmp_path: Path) -> None:
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    if recorded["python"] != _version():
        pytest.skip(f"recorded on Python {recorded['python']}, this is {_version()}")
    found = findings_of(tmp_path)
    # Large enough to mean something: every rule fires, from hundreds of modules.
    assert len(found) >= 1000
    assert {row[3] for row in found} >= {"PC501", "PC502", "PC503", "PC504", "PC505"}
    for index, (now, then) in enumerate(zip(found, recorded["findings"], strict=False)):
        assert now == then, f"finding {index} differs"
    assert len(found) == len(recorded["findings"])


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        rows = findings_of(Path(folder))
    lines = ",\n".join(json.dumps(row) for row in rows)
    RECORDED.write_text(
        f'{{"python": "{_version()}", "findings": [\n{lines}\n]}}\n', encoding="utf-8"
    )
    print(f"recorded {len(rows)} findings in {RECORDED}")


def test_a_taint_passed_through_a_call_keeps_every_other_field() -> None:
    # `passed_through` builds the taint field by field (for speed): a field added to `Taint`
    # must be added there too, or it would be lost on every unseen call.
    taint = Taint(
        code="PC501",
        label="`datetime.now()`",
        path="app.py",
        line=3,
        column=7,
        via=("wrap()",),
        fix=("sorted", 3, 6, 3, 20),
        fixable=True,
        written=5,
        written_item=True,
        unread="PC502",
        param="user_name",
        answer=True,
        element=True,
    )
    assert {f.name for f in fields(Taint)} == {
        "code", "label", "path", "line", "column", "via", "fix", "fixable", "written",
        "written_item", "unread", "param", "answer", "element",
    }  # fmt: skip
    assert passed_through(taint, "fmt()") == replace(taint, via=("wrap()", "fmt()"))
    assert passed_through(taint, "fmt()").written == 5  # not part of equality: checked apart
    assert passed_through(taint, "fmt()").answer  # nor is this one
    assert passed_through(taint, "fmt()").written_item  # nor this
    assert passed_through(taint, "fmt()").unread == "PC502"  # nor this
    assert passed_through(taint, "fmt()").element  # nor this
