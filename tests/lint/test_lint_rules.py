"""Each rule's bad and good cases, including the position-aware and tracked-value ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcache.lint import lint_file, lint_source

from ._helpers import SHORT, STATIC, codes, config

# (id, template, expected codes). Every rule has at least one bad and one good case here.
CASES = [
    # PC001 - parse errors are findings
    ("pc001-unclosed-if", "{% if tools %}Use tools.\n" + STATIC, ["PC001"]),
    ("pc001-bad-expression", "You are {{ persona }.", ["PC001"]),
    ("pc001-good", "You are {{ persona }}.", []),
    # PC101 - volatile calls and filters
    ("pc101-now-top", "Now: {{ now() }}\n" + STATIC, ["PC101"]),
    ("pc101-datetime-chain", "{{ datetime.now().isoformat() }}\n" + STATIC, ["PC101"]),  # A6
    ("pc101-utcnow", "{{ datetime.utcnow() }}" + STATIC, ["PC101"]),
    ("pc101-date-today", "{{ date.today() }}" + STATIC, ["PC101"]),
    ("pc101-time-time", "{{ time.time() }}" + STATIC, ["PC101"]),
    ("pc101-uuid4", "Request {{ uuid4() }}" + STATIC, ["PC101"]),
    ("pc101-uuid-module", "Request {{ uuid.uuid4().hex }}" + STATIC, ["PC101"]),
    ("pc101-random-module", "{{ random.randint(1, 9) }}" + STATIC, ["PC101"]),
    ("pc101-random-filter", "{{ greetings | random }}" + STATIC, ["PC101"]),
    ("pc101-secrets", "{{ secrets.token_hex(8) }}" + STATIC, ["PC101"]),
    ("pc101-in-argument", "{{ format_date(now(), 'short') }}" + STATIC, ["PC101"]),
    ("pc101-at-end", STATIC + "Now: {{ now() }}", []),
    ("pc101-short-tail", STATIC + "Now: {{ now() }}\n" + SHORT, []),
    ("pc101-stable-call", "{{ render_tools(tools) }}" + STATIC, []),
    ("pc101-stable-filter", "{{ items | sort | join(', ') }}" + STATIC, []),
    # Computed early, rendered late: only where it renders counts.
    ("set-top-render-bottom", "{% set ts = now() %}" + STATIC + "Time: {{ ts }}", []),
    ("set-top-render-top", "{% set ts = now() %}Time: {{ ts }}\n" + STATIC, ["PC101"]),
    ("set-block-render-top", "{% set s %}{{ now() }}{% endset %}{{ s }}" + STATIC, ["PC101"]),
    ("set-block-render-bottom", "{% set s %}{{ now() }}{% endset %}" + STATIC + "{{ s }}", []),
    ("set-stable-shadows", "{% set date = '2024-01-01' %}{{ date }}" + STATIC, []),
    (
        "set-tainted-in-one-branch",
        "{% if x %}{% set t = now() %}{% else %}{% set t = 'n/a' %}{% endif %}{{ t }}" + STATIC,
        ["PC101"],
    ),
    (
        "namespace-attr",
        "{% set ns = namespace() %}{% set ns.t = now() %}{{ ns.t }}" + STATIC,
        ["PC101"],
    ),
    ("with-block", "{% with t = now() %}{{ t }}{% endwith %}" + STATIC, ["PC101"]),
    # PC102 - per-request variables
    ("pc102-user-attr", "Hello {{ user.name }}.\n" + STATIC, ["PC102"]),
    ("pc102-user-item", "Hello {{ user['name'] }}.\n" + STATIC, ["PC102"]),
    ("pc102-request-id", "Request {{ request_id }}\n" + STATIC, ["PC102"]),
    ("pc102-current-time-upper", "Time: {{CURRENT_TIME}}\n" + STATIC, ["PC102"]),  # A7
    ("pc102-current-date", "Date: {{ current_date }}\n" + STATIC, ["PC102"]),  # A6
    ("pc102-question-end", STATIC + "Question: {{ question }}", []),
    ("pc102-stable-var", "You are {{ persona }}.\n" + STATIC, []),
    ("pc102-loop-shadow", "{% for question in faq %}{{ question }}{% endfor %}" + STATIC, []),
    # PC105 - str.format / f-string / LangChain placeholders that Jinja passes through (A5)
    # PC106 - a variable of unknown meaning above a long static block (ten times the threshold)
    ("pc106-persona-above-long-rules", "You are {{ persona }}.\n" + STATIC * 4, ["PC106"]),
    ("pc106-persona-above-short-rules", "You are {{ persona }}.\n" + STATIC, []),
    ("pc105-current-datetime", "Current time: {current_datetime}\n" + STATIC, ["PC105"]),
    ("pc105-user-attr", "Answer for {user.name}.\n" + STATIC, ["PC105"]),
    ("pc105-second-line", "You are terse.\nAsked: {question}\n" + STATIC, ["PC105"]),
    ("pc105-below-tail", STATIC + "{# promptcache: tail #}\nTime: {current_datetime}", []),
    ("pc105-stable-name", "Answer in a {tone} tone.\n" + STATIC, []),
    ("pc105-json-example", 'Reply as {"answer": "..."} or {{ "{}" }}.\n' + STATIC, []),
    ("pc105-escaped-braces", "Write {{ '{{' }}current_time{{ '}}' }} literally.\n" + STATIC, []),
    (
        "pc102-macro-param-shadow",
        "{% macro q(question) %}{{ question }}{% endmacro %}{{ q('fixed') }}" + STATIC,
        [],
    ),
    # PC103 - branches and loops on per-request values
    (
        "pc103-if-user",
        "{% if user.is_admin %}You may change settings.{% endif %}\n" + STATIC,
        ["PC103"],
    ),
    ("pc103-elif", "{% if mode %}a{% elif session_id %}b{% endif %}" + STATIC, ["PC103"]),
    ("pc103-if-time", "{% if now().hour < 12 %}Good morning.{% endif %}" + STATIC, ["PC103"]),
    ("pc103-for-user", "{% for o in user.orders %}#{% endfor %}" + STATIC, ["PC103"]),
    ("pc103-if-at-end", STATIC + "{% if user.is_admin %}" + STATIC + "{% endif %}", []),
    ("pc103-if-config", "{% if tools %}Use the tools.{% endif %}" + STATIC, []),
    ("pc103-if-defined", "{% if user is defined %}Hi.{% endif %}" + STATIC, []),
    # PC104 - macros (includes/imports/extends are tested with files below)
    (
        "pc104-macro-now",
        "{% macro stamp() %}{{ now() }}{% endmacro %}{{ stamp() }}" + STATIC,
        ["PC104"],
    ),
    (
        "pc104-macro-rendered-late",
        "{% macro stamp() %}{{ now() }}{% endmacro %}" + STATIC + "{{ stamp() }}",
        [],
    ),
    (
        "pc104-macro-stable",
        "{% macro rule(n) %}Rule {{ n }}.{% endmacro %}{{ rule(1) }}" + STATIC,
        [],
    ),
    (
        "pc104-nested-macro",
        "{% macro a() %}{{ uuid4() }}{% endmacro %}{% macro b() %}[{{ a() }}]{% endmacro %}"
        "{{ b() }}" + STATIC,
        ["PC104"],
    ),
    (
        "pc104-recursive-macro",
        "{% macro r(n) %}{% if n %}{{ r(n - 1) }}{% endif %}{% endmacro %}{{ r(3) }}" + STATIC,
        [],
    ),
    (
        "pc104-call-block",
        "{% macro box() %}{{ now() }}{{ caller() }}{% endmacro %}{% call box() %}x{% endcall %}"
        + STATIC,
        ["PC104"],
    ),
    (
        "pc104-set-from-macro",
        "{% macro stamp() %}{{ now() }}{% endmacro %}{% set s = stamp() %}{{ s }}" + STATIC,
        ["PC104"],
    ),
    # PC002 - what could not be checked is said, as an info finding
    ("pc002-dynamic-include", "{% include name %}" + STATIC, ["PC002"]),
    ("pc002-extension-tag", "{% now 'utc', '%Y-%m-%d' %}\n" + STATIC, ["PC002"]),
    ("pc002-static-include-optional", "{% include 'x.j2' ignore missing %}" + STATIC, []),
    # PC003 - Handlebars (dotprompt) is not Jinja: skipped with a notice, not a parse error
    ("pc003-handlebars", "{{#if food}}Cook {{food}}.{{/if}}\n" + STATIC, ["PC003"]),
    ("pc003-jinja-if", "{% if food %}Cook {{ food }}.{% endif %}\n" + STATIC, []),
    # PC201 - unsorted iteration of a mapping built per request (known by its name)
    (
        "pc201-items",
        "{% for k, v in request.headers.items() %}{{ k }}{% endfor %}" + STATIC,
        ["PC201"],
    ),
    ("pc201-keys", "{% for k in user.settings.keys() %}{{ k }}{% endfor %}" + STATIC, ["PC201"]),
    ("pc201-values", "{% for v in session.data.values() %}{{ v }}{% endfor %}" + STATIC, ["PC201"]),
    (
        "pc103-per-request-items-filter",
        "{% for k, v in retrieved_facts | items %}{{ k }}{% endfor %}" + STATIC,
        ["PC103", "PC102"],  # the loop is over per-request data: the prefix forks anyway
    ),
    ("pc201-output-join", "{{ request.headers.keys() | join(', ') }}" + STATIC, ["PC201"]),
    ("pc201-dictsort", "{% for k, v in tools | dictsort %}{{ k }}{% endfor %}" + STATIC, []),
    (
        "pc201-sorted-items",
        "{% for k, v in request.headers.items() | sort %}{{ k }}{% endfor %}" + STATIC,
        [],
    ),
    (
        "pc201-at-end",
        STATIC + "{% for k, v in request.headers.items() %}{{ k }}{% endfor %}",
        [],
    ),
    # A mapping not known to be per-request (app data, tool schemas) is not reported...
    ("pc201-stable-name", "{% for k, v in tools.items() %}{{ k }}{% endfor %}" + STATIC, []),
    # ... nor a dict written in the template: its order is the template's.
    (
        "pc201-dict-literal",
        "{% for k, v in {'b': 1, 'a': 2}.items() %}{{ k }}{% endfor %}" + STATIC,
        [],
    ),
    # The tail marker ends the cacheable prefix.
    ("marker-tail", "{{ persona }}\n{# promptcache: tail #}\nNow {{ now() }}\n" + STATIC, []),
    ("marker-trim", "{{ persona }}\n{#- promptcache: tail -#}\n{{ now() }}\n" + STATIC, []),
    (
        "marker-below-volatile",
        "Now {{ now() }}\n" + STATIC + "{# promptcache: tail #}\n",
        ["PC101"],
    ),
    ("marker-plain-comment", "{# just a comment #}{{ now() }}" + STATIC, ["PC101"]),
]


@pytest.mark.parametrize(
    ("template", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_rule_cases(template: str, expected: list[str]) -> None:
    assert codes(template) == expected


def test_every_rule_has_a_bad_and_a_good_case() -> None:
    from promptcache.lint import RULES

    chat_rules = {"PC301", "PC302"}  # covered in test_lint_chat.py
    chat_rules |= {c for c in RULES if c.startswith("PC5")}  # test_lint_python_rules.py
    for code in set(RULES) - chat_rules:
        bad = [c for c in CASES if code in c[2]]
        good = [c for c in CASES if c[0].startswith(code.lower()) and not c[2]]
        assert bad, f"no bad case for {code}"
        assert good, f"no good case for {code}"


def test_message_names_the_value_and_tokens_at_risk() -> None:
    (finding,) = lint_source("Now: {{ now() }}\n" + STATIC, path="system.j2")
    assert finding.path == "system.j2"
    assert (finding.line, finding.column) == (1, 9)
    assert finding.tokens_at_risk is not None and finding.tokens_at_risk > 250
    assert "`now()`" in finding.message
    assert f"~{finding.tokens_at_risk} tokens" in finding.message
    assert finding.severity == "warning"


def test_tracked_value_is_reported_where_it_renders() -> None:
    source = "{% set ts = now() %}\nIntro.\nTime: {{ ts }}\n" + STATIC
    (finding,) = lint_source(source)
    assert (finding.line, finding.column) == (3, 10)
    assert "set from volatile call `now()` on line 1" in finding.message


def test_macro_is_reported_at_the_call_site() -> None:
    source = "{% macro stamp() %}\n{{ now() }}\n{% endmacro %}\nA\n{{ stamp() }}\n" + STATIC
    (finding,) = lint_source(source)
    assert (finding.code, finding.line, finding.column) == ("PC104", 5, 4)
    assert "macro `stamp()` (line 2) renders volatile call `now()`" in finding.message


def test_threshold_decides_what_matters() -> None:
    source = "{{ now() }}" + "word " * 40  # about 50 tokens follow
    assert codes(source) == []
    assert codes(source, config=config(threshold=20)) == ["PC101"]
    (finding,) = lint_source(source, config=config(threshold=20))
    assert 40 <= (finding.tokens_at_risk or 0) <= 60


def test_configured_names() -> None:
    source = "{{ clock.read() }} {{ tenant_id }}\n" + STATIC
    assert codes(source) == []
    custom = config(
        volatile_calls=(*config().volatile_calls, "clock.*"),
        per_request=(*config().per_request, "tenant_*"),
    )
    assert codes(source, config=custom) == ["PC101", "PC102"]
    assert codes("{{ user_guide }}" + STATIC) == ["PC102"]
    assert codes("{{ user_guide }}" + STATIC, config=config(stable=("user_guide",))) == []


def test_select_and_ignore() -> None:
    source = "{{ now() }}{{ user.name }}" + STATIC
    assert codes(source) == ["PC101", "PC102"]
    assert codes(source, config=config(ignore=("PC102",))) == ["PC101"]
    assert codes(source, config=config(select=("PC102",))) == ["PC102"]
    assert codes(source, config=config(select=("PC1",), ignore=("PC101",))) == ["PC102"]


@pytest.mark.parametrize(
    ("comment", "expected"),
    [
        ("{# noqa: PC101 #}", []),
        ("{# noqa #}", []),
        ("{#- noqa: PC102, PC101 -#}", []),
        ("{# noqa: PC102 #}", ["PC101"]),
    ],
)
def test_noqa(comment: str, expected: list[str]) -> None:
    assert codes("Now {{ now() }} " + comment + "\n" + STATIC) == expected


def test_noqa_applies_to_its_line_only() -> None:
    assert codes("{# noqa #}\nNow {{ now() }}\n" + STATIC) == ["PC101"]


# -- includes, imports and parent templates (PC104) --------------------------------------------


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")


def _file_codes(folder: Path, name: str) -> list[str]:
    return [f.code for f in lint_file(folder / name)]


def test_include_volatile_partial(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "stamp.j2": "Generated at {{ now() }}.",
            "main.j2": "{% include 'stamp.j2' %}\n" + STATIC,
            "ok.j2": STATIC + "{% include 'stamp.j2' %}",
        },
    )
    (finding,) = lint_file(tmp_path / "main.j2")
    assert (finding.code, finding.line, finding.column) == ("PC104", 1, 4)
    assert "included template 'stamp.j2' (line 1) renders volatile call `now()`" in finding.message
    assert _file_codes(tmp_path, "ok.j2") == []


def test_include_is_followed_transitively(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "a.j2": "{% include 'b.j2' %}\n" + STATIC,
            "b.j2": "B {% include 'c.j2' %}",
            "c.j2": "C {{ request_id }}",
        },
    )
    (finding,) = lint_file(tmp_path / "a.j2")
    assert finding.code == "PC104"
    assert "'b.j2'" in finding.message and "'c.j2'" in finding.message
    assert "request_id" in finding.message


def test_include_static_text_counts_as_content_at_risk(tmp_path: Path) -> None:
    _write(tmp_path, {"manual.j2": STATIC, "main.j2": "{{ now() }}{% include 'manual.j2' %}"})
    assert _file_codes(tmp_path, "main.j2") == ["PC101"]


def test_include_cycle_and_missing_and_dynamic(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "x.j2": "{% include 'y.j2' %}{% include 'missing.j2' ignore missing %}"
            "{% include name %}" + STATIC,
            "y.j2": "{% include 'x.j2' %}",
        },
    )
    # The cycle is followed once and `ignore missing` is the author's choice; the name computed
    # at render time could be anything, so it is reported as not checked (info).
    (note,) = lint_file(tmp_path / "x.j2")
    assert (note.code, note.severity) == ("PC002", "info")
    assert "computed at render time" in note.message


def test_include_sees_tainted_context(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {"show.j2": "{{ ts }}", "main.j2": "{% set ts = now() %}{% include 'show.j2' %}" + STATIC},
    )
    assert _file_codes(tmp_path, "main.j2") == ["PC104"]


def test_import_and_from_import(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "helpers.j2": "{% macro stamp() %}{{ now() }}{% endmacro %}"
            "{% macro rule(n) %}Rule {{ n }}{% endmacro %}",
            "a.j2": "{% import 'helpers.j2' as h %}{{ h.stamp() }}" + STATIC,
            "b.j2": "{% from 'helpers.j2' import stamp as s %}{{ s() }}" + STATIC,
            "c.j2": "{% from 'helpers.j2' import stamp, rule %}{{ rule(1) }}"
            + STATIC
            + "{{ stamp() }}",
        },
    )
    (finding,) = lint_file(tmp_path / "a.j2")
    assert finding.code == "PC104"
    assert "macro `stamp()` (line 1 of" in finding.message and "helpers.j2" in finding.message
    assert _file_codes(tmp_path, "b.j2") == ["PC104"]
    assert _file_codes(tmp_path, "c.j2") == []


def test_extends_volatile_parent(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "base.j2": "Time {{ now() }}\n{% block body %}{% endblock %}",
            "child.j2": "{% extends 'base.j2' %}{% block body %}" + STATIC + "{% endblock %}",
        },
    )
    (finding,) = lint_file(tmp_path / "child.j2")
    assert (finding.code, finding.line) == ("PC104", 1)
    assert "parent template 'base.j2' (line 1) renders volatile call `now()`" in finding.message


def test_extends_child_block_keeps_its_own_location(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "base.j2": "{% block head %}{% endblock %}\n"
            + STATIC
            + "{% block tail %}{% endblock %}",
            "top.j2": "{% extends 'base.j2' %}\n{% block head %}{{ user.name }}{% endblock %}",
            "bottom.j2": "{% extends 'base.j2' %}\n{% block tail %}{{ user.name }}{% endblock %}",
        },
    )
    (finding,) = lint_file(tmp_path / "top.j2")
    assert (finding.code, finding.line) == ("PC102", 2)
    assert _file_codes(tmp_path, "bottom.j2") == []


def test_extends_unresolved_parent_still_lints_blocks(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {"c.j2": "{% extends 'nowhere.j2' %}{% block b %}{{ now() }}" + STATIC + "{% endblock %}"},
    )
    assert _file_codes(tmp_path, "c.j2") == ["PC002", "PC101"]


def test_extends_chain_most_derived_block_wins(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "base.j2": "{% block head %}{% endblock %}\n" + STATIC,
            "mid.j2": "{% extends 'base.j2' %}{% block head %}{{ now() }}{% endblock %}",
            "leaf.j2": "{% extends 'mid.j2' %}{% block head %}Stable head.{% endblock %}",
        },
    )
    assert _file_codes(tmp_path, "leaf.j2") == []
    assert _file_codes(tmp_path, "mid.j2") == ["PC101"]


def test_search_path_resolves_includes(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "partials/stamp.j2": "{{ now() }}",
            "prompts/main.j2": "{% include 'stamp.j2' %}" + STATIC,
        },
    )
    # Not found: reported as not checked (an info finding), never passed as clean.
    assert _file_codes(tmp_path, "prompts/main.j2") == ["PC002"]
    found = lint_file(
        tmp_path / "prompts/main.j2", config=config(root=tmp_path, search_path=("partials",))
    )
    assert [f.code for f in found] == ["PC104"]


def test_extends_chain_leaf_block_keeps_its_location(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "base.j2": "{% block head %}{% endblock %}\n" + STATIC,
            "mid.j2": "{% extends 'base.j2' %}{% block head %}Mid.{% endblock %}",
            "leaf.j2": "{% extends 'mid.j2' %}\n{% block head %}{{ request_id }}{% endblock %}",
        },
    )
    (finding,) = lint_file(tmp_path / "leaf.j2")
    assert (finding.code, finding.line) == ("PC102", 2)
