"""
Fuzz the Python analysis with the standard library's own sources: it must never crash.

By default a fixed sample of modules is analysed whole and hypothesis splices random top-level
statements of random modules together; PROMPTCACHE_FUZZ_EXAMPLES=20000 (or any number) runs the
whole standard library and that many spliced modules.
"""

from __future__ import annotations

import ast
import os
import random
import sysconfig
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptcache.lint import RULES, LintConfig, format_findings
from promptcache.lint.python import PythonLinter

STDLIB = Path(sysconfig.get_paths()["stdlib"])
LONG_RUN = os.environ.get("PROMPTCACHE_FUZZ_EXAMPLES")
EXAMPLES = int(LONG_RUN or "60")
# A request API named in a comment makes the linter analyse the module instead of skipping it.
FORCE = "# messages.create\n"
REQUEST_FRAGMENTS = [
    "import time, json, uuid\nfrom datetime import datetime\n",
    "def _ask(client, history, question, user_name):\n"
    "    system = f'{datetime.now()} {user_name}' + json.dumps({k: 1 for k in set(history)})\n"
    "    return client.messages.create(model='m', system=system, messages=[*history, question])\n",
    "SYSTEM_PROMPT = 'Today: %s' % time.time()\n",
    "_ask(None, [], 'q', 'n')\n",
]


@lru_cache(maxsize=1)
def _modules() -> list[Path]:
    return sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)


def _check(linter: PythonLinter, source: str, display: str) -> None:
    found = linter.lint_source(source, display=display)
    for finding in found:
        assert finding.code in RULES and finding.line >= 1 and finding.column >= 1
    for fmt in ("text", "json", "sarif", "github"):
        format_findings(found, fmt)


def _sample() -> list[Path]:
    modules = _modules()
    return modules if LONG_RUN else random.Random(15).sample(modules, min(40, len(modules)))


@pytest.mark.parametrize("path", _sample(), ids=lambda p: str(p.relative_to(STDLIB)))
def test_standard_library_modules_never_crash(path: Path) -> None:
    try:
        source = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        pytest.skip("not UTF-8 text")
    linter = PythonLinter(LintConfig(root=STDLIB, threshold=1))
    _check(linter, FORCE + source, str(path))


@lru_cache(maxsize=256)
def _statements(index: int) -> tuple[str, ...]:
    path = _modules()[index % len(_modules())]
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError, ValueError):
        return ()
    return tuple(ast.unparse(node) for node in tree.body)


@st.composite
def spliced_modules(draw: st.DrawFn) -> str:
    parts = [FORCE]
    for _ in range(draw(st.integers(1, 6))):
        statements = _statements(draw(st.integers(0, 10**6)))
        if statements:
            start = draw(st.integers(0, len(statements) - 1))
            parts.extend(statements[start : start + draw(st.integers(1, 8))])
        parts.append(draw(st.sampled_from(REQUEST_FRAGMENTS)))
    return "\n".join(parts)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not LONG_RUN,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(spliced_modules())
def test_spliced_standard_library_code_never_crashes(source: str) -> None:
    _check(PythonLinter(LintConfig(threshold=1)), source, "spliced.py")


def test_pathological_modules_are_findings_not_crashes() -> None:
    linter = PythonLinter(LintConfig())
    deep = FORCE + "x = " + "(" * 200 + "1" + ")" * 200 + "\n"
    chain = FORCE + "s = 'a'\n" + "".join(f"s = s + f'{{s}}{i}'\n" for i in range(400))
    recursive = FORCE + "def f(x):\n    return f(x) + g(x)\ndef g(x):\n    return f(x)\nf(1)\n"
    for source in (deep, chain, recursive, FORCE + "\x00", FORCE + "def (:\n"):
        _check(linter, source, "odd.py")
