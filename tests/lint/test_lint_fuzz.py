"""
Fuzz the linter: generated and mutated templates never crash it.

The default run is small; set PROMPTCACHE_FUZZ_EXAMPLES (e.g. 20000) for a long run.
"""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptcache.lint import RULES, LintConfig, format_findings, lint_file, lint_source

from ._helpers import STATIC

EXAMPLES = int(os.environ.get("PROMPTCACHE_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not os.environ.get("PROMPTCACHE_FUZZ_EXAMPLES"),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
CONFIG = LintConfig(threshold=5)

FRAGMENTS = [
    "Static text. ",
    STATIC[:200],
    "\n",
    "{{ now() }}",
    "{{ user.name }}",
    "{current_datetime}",  # PC105: a placeholder left for str.format
    "{user.name}",
    "{",
    "}",
    "{{ x }}",
    "{% if user.admin %}",
    "{% if x %}",
    "{% elif y %}",
    "{% else %}",
    "{% endif %}",
    "{% for k, v in d.items() %}",
    "{% for m in messages %}",
    "{% for i in range(3) %}",
    "{% endfor %}",
    "{% set t = now() %}",
    "{{ t }}",
    "{% set b %}",
    "{% endset %}",
    "{% macro m(a) %}",
    "{% endmacro %}",
    "{{ m(1) }}",
    "{% call m(2) %}",
    "{% endcall %}",
    "{% include 'a.j2' %}",
    "{% import 'a.j2' as h %}",
    "{{ h.m() }}",
    "{% from 'a.j2' import m %}",
    "{% extends 'a.j2' %}",
    "{% block b %}",
    "{% endblock %}",
    "{# promptcache: tail #}",
    "{# noqa: PC101 #}",
    "{# c #}",
    "{{ d | random }}",
    "{% with z = uuid4() %}",
    "{% endwith %}",
    "{% filter upper %}",
    "{% endfilter %}",
    "{{ '<think>\\n\\n</think>' }}",
    "{{ c.split('</think>')[-1] }}",
    "{% if loop.last %}",
    "{% if add_generation_prompt %}",
    "{{ strftime_now('%Y') }}",
    "{% do x.append(1) %}",
    "{% set ns = namespace(a=1) %}",
    "{% set ns.a = now() %}",
    "{{ ns.a }}",
    "{% raw %}",
    "{% endraw %}",
    "{%- ",
    " -%}",
    "{{",
    "}}",
    "{%",
    "%}",
    "{#",
    "#}",
    "{% generation %}",
    "{% endgeneration %}",
    "{{ 1 + }}",
    "{{ (((( }}",
    "\x00",
    "é",
    "🙂",
    "{{ 9" + "9" * 5000 + " }}",
    "{{ " + "(" * 300 + "1" + ")" * 300 + " }}",
]


@st.composite
def templates(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(FRAGMENTS), max_size=30))
    return "".join(parts)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    base = draw(templates())
    chars = list(base)
    for _ in range(draw(st.integers(0, 5))):
        if not chars:
            break
        index = draw(st.integers(0, len(chars) - 1))
        action = draw(st.sampled_from(["drop", "dup", "swap", "char"]))
        if action == "drop":
            del chars[index]
        elif action == "dup":
            chars.insert(index, chars[index])
        elif action == "swap":
            other = draw(st.integers(0, len(chars) - 1))
            chars[index], chars[other] = chars[other], chars[index]
        else:
            chars[index] = draw(st.characters())
    return "".join(chars)


def _check(source: str, **kwargs: object) -> None:
    findings = lint_source(source, config=CONFIG, **kwargs)  # type: ignore[arg-type]
    for finding in findings:
        assert finding.line >= 1 and finding.column >= 1
        assert finding.code in RULES
    for fmt in ("text", "json", "sarif", "github"):
        format_findings(findings, fmt)


@FUZZ
@given(templates())
def test_generated_templates_never_crash(source: str) -> None:
    _check(source)
    _check(source, chat=True)


@FUZZ
@given(mutated())
def test_mutated_templates_never_crash(source: str) -> None:
    _check(source)


@FUZZ
@given(st.text(max_size=300))
def test_arbitrary_text_never_crashes(source: str) -> None:
    _check(source)


@settings(
    max_examples=min(EXAMPLES, 60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.binary(max_size=300))
def test_arbitrary_bytes_are_findings_not_crashes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "t.j2"
    path.write_bytes(data)
    for finding in lint_file(path, config=CONFIG):
        assert finding.code.startswith("PC")


def test_includes_between_fuzzed_files_never_crash(tmp_path: Path) -> None:
    # Mutually recursive and self-including files, imports of broken files.
    (tmp_path / "a.j2").write_text("{% include 'a.j2' %}{% import 'b.j2' as h %}{{ h.m() }}")
    (tmp_path / "b.j2").write_text("{% macro m() %}{{ h.m() }}{% include 'a.j2' %}{% endmacro %}")
    (tmp_path / "c.j2").write_text("{% extends 'c.j2' %}{% from 'broken.j2' import x %}{{ x() }}")
    (tmp_path / "broken.j2").write_text("{% macro x( %}")
    for name in ("a.j2", "b.j2", "c.j2", "broken.j2"):
        lint_file(tmp_path / name, config=CONFIG)
