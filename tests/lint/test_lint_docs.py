"""The rule docs are generated from the registry and stay complete and true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from promptcache.lint import RULES, LintConfig, lint_source
from promptcache.lint._docs import main, rules_markdown
from promptcache.lint._model import rule_from_docstring

ROOT = Path(__file__).resolve().parents[2]


def test_rules_md_is_up_to_date() -> None:
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == rules_markdown(), (
        "docs/rules.md is stale; run: python -m promptcache.lint._docs docs/rules.md"
    )


def test_docs_main_writes_the_page(tmp_path: Path) -> None:
    assert main([str(tmp_path / "rules.md")]) == 0
    assert (tmp_path / "rules.md").read_text(encoding="utf-8") == rules_markdown()
    assert main([]) == 2


@pytest.mark.parametrize("code", list(RULES))
def test_every_rule_is_documented(code: str) -> None:
    rule = RULES[code]
    assert re.fullmatch(r"PC\d{3}", code)
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)
    assert rule.summary and rule.why and rule.bad and rule.good
    assert rule.bad != rule.good
    assert bool(rule.fix) == (code not in ("PC001", "PC500")), (
        "a rule with findings to mend says how"
    )
    assert f"## {code}\n" in rules_markdown()


_NEEDS_FILES = {"PC104"}  # its example includes another template; tested in test_lint_rules
_PYTHON = {code for code in RULES if code.startswith("PC5")}  # tested in test_lint_python_rules


@pytest.mark.parametrize("code", sorted(set(RULES) - _NEEDS_FILES - _PYTHON))
def test_examples_do_what_they_say(code: str) -> None:
    rule = RULES[code]
    config = LintConfig(threshold=1)
    chat = code.startswith("PC3")
    found = lint_source(rule.bad, config=config, chat=chat)
    bad = [f.code for f in found]
    good = [f.code for f in lint_source(rule.good, config=config, chat=chat)]
    assert code in bad
    if code != "PC001":  # a parse error has no fix to suggest
        assert all(f.message.endswith(f"; {rule.fix}") for f in found if f.code == code)
    assert good == []


def test_pc104_example(tmp_path: Path) -> None:
    from promptcache.lint import lint_file

    rule = RULES["PC104"]
    (tmp_path / "helpers.j2").write_text("{% macro stamp() %}{{ now() }}{% endmacro %}")
    for name, text in (("bad.j2", rule.bad), ("good.j2", rule.good)):
        (tmp_path / name).write_text(text)
    config = LintConfig(threshold=1)
    assert "PC104" in [f.code for f in lint_file(tmp_path / "bad.j2", config=config)]
    assert lint_file(tmp_path / "good.j2", config=config) == []


def test_a_rule_docstring_without_sections_fails_loudly() -> None:
    with pytest.raises(ValueError, match="'Why:', 'Bad:' and 'Good:'"):
        rule_from_docstring("Summary only.", code="PC999", name="x", severity="warning")


def test_public_namespace_is_sorted_and_value_objects_are_frozen() -> None:
    import dataclasses
    import inspect

    import promptcache.lint as lint

    def isort_style(name: str) -> tuple[int, str]:
        return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)

    assert lint.__all__ == sorted(lint.__all__, key=isort_style)
    for name in lint.__all__:
        obj = getattr(lint, name)
        if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
            params = obj.__dataclass_params__  # type: ignore[attr-defined]
            assert params.frozen, f"{name} must be frozen"
            init = inspect.signature(obj.__init__)
            kinds = {p.kind for n, p in init.parameters.items() if n != "self"}
            assert kinds <= {inspect.Parameter.KEYWORD_ONLY}, f"{name} must be keyword-only"
