"""
Values that reach a request only through a function the analysis runs on demand: the clock is
made in a module whose text names no request API (so it is never analysed on its own, only
when a caller asks for a summary), and reaches the sink through a method called on `self`, a
decorated function, `functools.partial`, a lambda passed as a callback, or an in-house wrapper
in a third module. The analysis is shortened only where it can prove nothing is lost: each of
these must still be found, at the request that sends it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig
from promptcache.lint.python import PythonLinter

LONG = "Follow the refund policy exactly as written in section four. " * 20

CLOCK = """
    from datetime import datetime
    def stamp():
        return datetime.now().isoformat()
    """

CALLERS = [
    (
        "method-via-self",
        """
        from app.clock import stamp
        class Desk:
            def __init__(self, client):
                self.client = client
            def header(self):
                return f"Now {stamp()}. " + LONG
            def ask(self, question):
                return self.client.messages.create(model="m", max_tokens=9,
                    system=self.header(), messages=[{"role": "user", "content": question}])
        """,
    ),
    (
        "decorated-function",
        """
        import functools
        from app.clock import stamp
        def logged(fn):
            @functools.wraps(fn)
            def inner(*args, **kwargs):
                return fn(*args, **kwargs)
            return inner
        @logged
        def header():
            return f"Now {stamp()}. " + LONG
        def ask(client, question):
            return client.messages.create(model="m", max_tokens=9, system=header(),
                messages=[{"role": "user", "content": question}])
        """,
    ),
    (
        "functools-partial",
        """
        import functools
        from app.clock import stamp
        def build(persona, when):
            return f"You are {persona}. Now {when}. " + LONG
        def ask(client, question):
            make = functools.partial(build, when=stamp())
            return client.messages.create(model="m", max_tokens=9, system=make("a clerk"),
                messages=[{"role": "user", "content": question}])
        """,
    ),
    (
        "lambda-callback",
        """
        from app.clock import stamp
        def run(client, make, question):
            return client.messages.create(model="m", max_tokens=9, system=make(),
                messages=[{"role": "user", "content": question}])
        def ask(client, question):
            return run(client, lambda: f"Now {stamp()}. " + LONG, question)
        """,
    ),
    (
        "wrapper-in-a-third-module",
        """
        from app.clock import stamp
        from app.llm import send
        def ask(question):
            system_prompt = f"Now {stamp()}. " + LONG
            return send(system_prompt, question)
        """,
    ),
]

LLM = """
    import anthropic
    client = anthropic.Anthropic()
    def send(system, question):
        return client.messages.create(model="m", max_tokens=9, system=system,
            messages=[{"role": "user", "content": question}])
    """


def _lint(tmp_path: Path, caller: str) -> list[str]:
    files = {
        "app/__init__.py": "",
        "app/clock.py": CLOCK,
        "app/llm.py": LLM,
        "app/agent.py": caller,
    }
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).replace("LONG", repr(LONG)), encoding="utf-8")
    linter = PythonLinter(LintConfig(root=tmp_path), root=tmp_path)
    found = linter.lint_file(tmp_path / "app/agent.py", display="app/agent.py")
    return [f"{f.code} {f.message.split(' reaches ')[0]}" for f in found]


@pytest.mark.parametrize("caller", [c for _, c in CALLERS], ids=[n for n, _ in CALLERS])
def test_a_clock_made_in_a_module_analysed_only_on_demand_is_found(
    tmp_path: Path, caller: str
) -> None:
    found = _lint(tmp_path, caller)
    assert any(f.startswith("PC501") and "app/clock.py:4" in f for f in found), found
