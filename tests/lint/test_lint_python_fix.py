"""`promptcache lint --fix`: only `sort_keys=True` and `sorted(...)`, and only where safe."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from promptcache.cli import main
from promptcache.lint import LintConfig
from promptcache.lint.python import PythonLinter, fix_source

BUSTERS = textwrap.dedent(
    """
    import json

    ENABLED = {"search", "calculator"}


    def ask(client, question, tools, history):
        catalog = {t.name: t.schema for t in tools}
        system = "Tools: " + json.dumps(catalog, indent=2) + " Enabled: " + ", ".join(ENABLED)
        return client.messages.create(model="m", max_tokens=9, system=system,
            messages=[*history, {"role": "user", "content": question}])
    """
)


def _fix(source: str) -> str:
    linter = PythonLinter(LintConfig())
    return fix_source(source, display="agent.py", linter=linter).source


def test_fix_adds_sort_keys_and_sorted() -> None:
    fixed = _fix(BUSTERS)
    assert "json.dumps(catalog, indent=2, sort_keys=True)" in fixed
    assert '", ".join(sorted(ENABLED))' in fixed
    ast.parse(fixed)
    assert PythonLinter(LintConfig()).lint_source(fixed, display="agent.py") == []


def test_fix_leaves_what_it_cannot_prove_safe() -> None:
    source = textwrap.dedent(
        """
        import json, time

        def ask(client, question, options, names):
            system = json.dumps(options, **FORMAT) + ", ".join(set(names)) + str(time.time())
            return client.messages.create(model="m", max_tokens=9, system=system, messages=[])
        """
    )
    # **FORMAT may already set sort_keys; set(names) may hold unorderable values; a clock is
    # a design decision: none is rewritten.
    assert _fix(source) == source


def test_fix_counts_only_what_it_rewrote() -> None:
    # `sort_keys=False` is the user's own choice: it is reported, not rewritten, and the count
    # of fixes (shown as "Fixed N problem(s).") must not include it.
    source = textwrap.dedent(
        """
        import json

        def ask(client, question, tools, rules):
            catalog = {t.name: t.schema for t in tools}
            policy = {r.name: r.text for r in rules}
            system = "Tools: " + json.dumps(catalog) + " Rules: " + json.dumps(policy, sort_keys=False)
            return client.messages.create(model="m", max_tokens=9, system=system, messages=[])
        """
    )
    result = fix_source(source, display="agent.py", linter=PythonLinter(LintConfig()))
    assert "json.dumps(catalog, sort_keys=True)" in result.source
    assert "json.dumps(policy, sort_keys=False)" in result.source
    assert result.applied == 1


def test_cli_fix_rewrites_in_place_and_reports_the_rest(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    agent = tmp_path / "agent.py"
    agent.write_text(
        BUSTERS.replace('" Enabled: "', 'f" at {time.time()} "').replace(
            "import json", "import json\nimport time"
        ),
        encoding="utf-8",
    )
    (tmp_path / "pyproject.toml").write_text("[tool.promptcache.lint]\n", encoding="utf-8")
    code = main(["lint", "--fix", "--config", str(tmp_path / "pyproject.toml"), str(agent)])
    text = agent.read_text(encoding="utf-8")
    assert "sort_keys=True" in text and "join(sorted(ENABLED))" in text
    assert code == 1  # the clock is still there, and reported
    out = capsys.readouterr()
    assert "PC501" in out.out and "PC503" not in out.out and "PC504" not in out.out
    assert "Fixed 2 problem(s)." in out.err


def test_cli_fix_keeps_the_file_mode(tmp_path: Path) -> None:
    # The rewrite replaces the file with a new one: it must keep the permissions (an
    # executable script stays executable).
    agent = tmp_path / "agent.py"
    agent.write_text(BUSTERS, encoding="utf-8")
    agent.chmod(0o750)
    (tmp_path / "pyproject.toml").write_text("[tool.promptcache.lint]\n", encoding="utf-8")
    main(["lint", "--fix", "--config", str(tmp_path / "pyproject.toml"), str(agent)])
    assert "sort_keys=True" in agent.read_text(encoding="utf-8")
    assert agent.stat().st_mode & 0o777 == 0o750


def _fixed_and_clean(source: str) -> str:
    """The fixed source, checked to parse and to re-lint clean."""
    before = PythonLinter(LintConfig()).lint_source(source, display="agent.py")
    assert before, "the case must have a finding to fix"
    fixed = _fix(source)
    ast.parse(fixed)
    assert PythonLinter(LintConfig()).lint_source(fixed, display="agent.py") == []
    return fixed


def test_fix_sorts_keys_of_every_serialiser_that_takes_sort_keys() -> None:
    source = textwrap.dedent(
        """
        import simplejson

        def ask(client, question, defaults, overrides):
            settings = {**defaults, **overrides}
            system = "Settings: " + simplejson.dumps(settings) + "Follow the policy. " * 60
            return client.messages.create(model="m", max_tokens=9, system=system,
                messages=[{"role": "user", "content": question}])
        """
    )
    assert "simplejson.dumps(settings, sort_keys=True)" in _fixed_and_clean(source)


def test_fix_sorts_a_set_comprehension_of_strings() -> None:
    source = textwrap.dedent(
        """
        def ask(client, question, catalogue):
            sources = {f"- {entry['source']}" for entry in catalogue}
            system = "Cite only:\\n" + "\\n".join(sources) + "Follow the policy. " * 60
            return client.messages.create(model="m", max_tokens=9, system=system,
                messages=[{"role": "user", "content": question}])
        """
    )
    assert '"\\n".join(sorted(sources))' in _fixed_and_clean(source)


def test_fix_sorts_a_set_of_strings_iterated_by_a_for_loop() -> None:
    source = textwrap.dedent(
        """
        NAMES = {"search", "fetch", "calculator"}

        def ask(client, question):
            lines = []
            for name in NAMES:
                lines.append(f"- {name}")
            system = "Tools:\\n" + "\\n".join(lines) + "Follow the policy. " * 60
            return client.messages.create(model="m", max_tokens=9, system=system,
                messages=[{"role": "user", "content": question}])
        """
    )
    assert "for name in sorted(NAMES):" in _fixed_and_clean(source)


def test_fix_adds_the_sort_keys_option_to_orjson_called_through_its_module() -> None:
    source = textwrap.dedent(
        """
        import orjson as oj

        def ask(client, history, question, tools, flags):
            catalog = {t.name: t.schema for t in tools}
            system = "Tools: " + oj.dumps(catalog).decode() + "Follow the policy. " * 60
            extra = "Flags: " + oj.dumps(flags, option=oj.OPT_INDENT_2).decode()
            return client.messages.create(model="m", max_tokens=9, system=system + extra,
                messages=[*history, {"role": "user", "content": question}])
        """
    )
    fixed = _fix(source)
    assert "oj.dumps(catalog, option=oj.OPT_SORT_KEYS)" in fixed
    assert "oj.dumps(flags, option=(oj.OPT_INDENT_2) | oj.OPT_SORT_KEYS)" in fixed
    ast.parse(fixed)
    # nothing is left but, with the opt-in PC508 selected, its question about `flags`
    assert PythonLinter(LintConfig()).lint_source(fixed, display="agent.py") == []
    asked = PythonLinter(LintConfig(select=("PC", "PC508"))).lint_source(fixed, display="agent.py")
    assert [f.code for f in asked] == ["PC508"]


def test_fix_leaves_a_bare_imported_orjson_dumps() -> None:
    # `from orjson import dumps`: the flag would need an import the module does not have.
    source = textwrap.dedent(
        """
        from orjson import dumps

        def ask(client, history, question, tools):
            system = "Tools: " + dumps({t.name: t.schema for t in tools}).decode() + "Rules. " * 80
            return client.messages.create(model="m", max_tokens=9, system=system,
                messages=[*history, {"role": "user", "content": question}])
        """
    )
    assert _fix(source) == source


def test_fix_sorts_sets_of_strings_built_by_set_operations_and_frozenset() -> None:
    source = textwrap.dedent(
        """
        FROZEN = frozenset({"search", "fetch"})

        def ask(client, history, question):
            tags = {"x", "y"} | {"z"}
            kept = {"a", "b", "c"} - {"b"}
            system = ",".join(tags) + ";".join(kept) + ", ".join(list(FROZEN)) + "Rules. " * 80
            return client.messages.create(model="m", max_tokens=9, system=system,
                messages=[*history, {"role": "user", "content": question}])
        """
    )
    fixed = _fixed_and_clean(source)
    assert '",".join(sorted(tags))' in fixed
    assert '";".join(sorted(kept))' in fixed
    assert '", ".join(list(sorted(FROZEN)))' in fixed


def test_fix_leaves_a_union_with_a_set_of_unknown_elements() -> None:
    source = textwrap.dedent(
        """
        def ask(client, history, question, extra):
            tags = {"x", "y"} | set(extra)
            system = ",".join(tags) + "Rules. " * 80
            return client.messages.create(model="m", max_tokens=9, system=system,
                messages=[*history, {"role": "user", "content": question}])
        """
    )
    assert _fix(source) == source
