"""
Python 3.12 f-strings (PEP 701) read on an older Python: the same quote, a backslash, a comment
or a line break inside a replacement field. Real 3.12 code is not a broken file: its tree is
read through an offset-preserving rewrite (every position that of the original file), and a
file that is broken, or holds what cannot be rewritten exactly, stays PC500 with the parser's
own message and nothing else.

The expected trees are written by hand: what 3.12 gives for each line, in the form the running
parser gives for the equivalent f-string.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

from promptcache.lint import LintConfig
from promptcache.lint.python import PythonLinter, fix_source, lint_python_source
from promptcache.lint.python._parse import parse_module, parse_python

OLDER = sys.version_info < (3, 12)
older_only = pytest.mark.skipif(not OLDER, reason="3.12 reads these strings itself")


def _parsed_by_the_running_python(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


def _value(source: str) -> str:
    """The dump (no positions) of the value of the module's only assignment."""
    (statement,) = parse_module(source).body
    assert isinstance(statement, ast.Assign)
    return ast.dump(statement.value)


def _sub(name: str, key: str) -> str:
    return (
        f"Subscript(value=Name(id='{name}', ctx=Load()), slice=Constant(value='{key}'), ctx=Load())"
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            'label = f"Customer: {row["name"]}"\n',
            f"JoinedStr(values=[Constant(value='Customer: '), "
            f"FormattedValue(value={_sub('row', 'name')}, conversion=-1)])",
            id="same-quote-in-a-field",
        ),
        pytest.param(
            'url = f"calling {\n    self.base_url}/api/generate"\n',
            "JoinedStr(values=[Constant(value='calling '), FormattedValue(value=Attribute("
            "value=Name(id='self', ctx=Load()), attr='base_url', ctx=Load()), conversion=-1), "
            "Constant(value='/api/generate')])",
            id="line-break-in-a-single-quoted-field",
        ),
        pytest.param(
            'context = f"Documents:\\n{"\\n---\\n".join(chunks)}"\n',
            "JoinedStr(values=[Constant(value='Documents:\\n'), FormattedValue(value=Call("
            "func=Attribute(value=Constant(value='\\n---\\n'), attr='join', ctx=Load()), "
            "args=[Name(id='chunks', ctx=Load())], keywords=[]), conversion=-1)])",
            id="backslash-in-a-field",
        ),
        pytest.param(
            'note = f"{\n    total  # the running sum\n}"\n',
            "JoinedStr(values=[FormattedValue(value=Name(id='total', ctx=Load()), conversion=-1)])",
            id="comment-in-a-field",
        ),
        pytest.param(
            'line = f"{f"{item["sku"]}"} x{count}"\n',
            f"JoinedStr(values=[FormattedValue(value=JoinedStr(values=[FormattedValue("
            f"value={_sub('item', 'sku')}, conversion=-1)]), conversion=-1), "
            "Constant(value=' x'), FormattedValue(value=Name(id='count', ctx=Load()), "
            "conversion=-1)])",
            id="nested-f-string-with-the-same-quote",
        ),
        pytest.param(
            'tag = f"{user["id"]!r:>{width}}" "-" f\'{user[\'it\']}\'\n',
            f"JoinedStr(values=[FormattedValue(value={_sub('user', 'id')}, conversion=114, "
            "format_spec=JoinedStr(values=[Constant(value='>'), FormattedValue(value=Name("
            "id='width', ctx=Load()), conversion=-1)])), Constant(value='-'), "
            f"FormattedValue(value={_sub('user', 'it')}, conversion=-1)])",
            id="joined-group-conversion-and-spec",
        ),
        pytest.param(
            'mark = f"{"é" if ok else "\\t"}"\n',
            "JoinedStr(values=[FormattedValue(value=IfExp(test=Name(id='ok', ctx=Load()), "
            "body=Constant(value='é'), orelse=Constant(value='\\t')), conversion=-1)])",
            id="literals-with-non-ascii-and-an-escape",
        ),
    ],
)
def test_a_312_f_string_gives_the_tree_312_means(source: str, expected: str) -> None:
    assert _value(source) == expected


@pytest.mark.parametrize(
    ("modern", "older"),
    [
        ('a = f"{d["k"]} and {d[\'j\']}"\n', "a = f\"{d['k']} and {d['j']}\"\n"),
        ('a = f"{ {"k": v}["k"] }"\n', "a = f\"{ {'k': v}['k'] }\"\n"),
        (
            'a = f"{", ".join(f"{k}={v!r}" for k, v in d.items())}"\n',
            "a = f\"{', '.join(f'{k}={v!r}' for k, v in d.items())}\"\n",
        ),
        ('a = f"{x:{"fmt"}}" f"{y!s}"\n', 'a = f"{x:{\'fmt\'}}" f"{y!s}"\n'),
        ('a = f"{"a" "b"}{"""c"""}"\n', "a = f\"{'a' 'b'}{'c'}\"\n"),
        ('a = (f"{r["x"]}"  # why\n     "tail")\n', 'a = (f"{r[\'x\']}"\n     "tail")\n'),
        ('a = f"{{{d["k"]}}}"\n', "a = f\"{{{d['k']}}}\"\n"),
        ('a = rf"\\d{d["k"]}\\{n}"\n', "a = rf\"\\d{d['k']}\\{n}\"\n"),
        ('a = f"\\N{BULLET} {d["k"]}"\n', "a = f\"\\N{BULLET} {d['k']}\"\n"),
    ],
)
def test_a_312_f_string_reads_as_its_older_spelling(modern: str, older: str) -> None:
    # the same program, written for the running parser by hand
    expected = ast.parse(older)
    assert ast.dump(parse_module(modern)) == ast.dump(expected)


def test_the_rewrite_is_used_only_when_the_running_parser_refuses_the_file() -> None:
    plain = "label = f\"Customer: {row['name']}\"\n"
    assert parse_python(plain)[1] is None
    modern = 'label = f"Customer: {row["name"]}"\n'
    rewrite = parse_python(modern)[1]
    assert (rewrite is None) == (not OLDER)


def test_positions_are_those_of_the_original_text() -> None:
    # non-ASCII text before the field and after the string, a field over two lines
    source = 'greeting = f"Grüße {user["näme"]} — {\n    clock.now()}" + suffix  # é\nafter = 1\n'
    tree = parse_module(source)
    names = {
        ast.get_source_segment(source, node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Name | ast.Call | ast.Subscript | ast.BinOp)
    }
    assert names >= {
        'user["näme"]',
        "user",
        "clock.now()",
        "clock",
        "suffix",
        'f"Grüße {user["näme"]} — {\n    clock.now()}" + suffix',
    }
    (after,) = (n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "after")
    assert (after.lineno, after.col_offset) == (3, 0)
    (joined,) = (n for n in ast.walk(tree) if isinstance(n, ast.JoinedStr))
    assert (joined.lineno, joined.col_offset, joined.end_lineno) == (1, 11, 2)
    (key,) = (n for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value == "näme")
    assert ast.get_source_segment(source, key) == '"näme"'


@older_only
@pytest.mark.parametrize(
    "source",
    [
        pytest.param('shown = f"{row["name"]=}"\n', id="self-documenting-field-with-a-mask"),
        pytest.param('x = f"{f"{f"{deep}"}"}"\n', id="three-levels-of-one-quote"),
        pytest.param('x = f"{row[\\\n"name"]}"\n', id="line-continuation-in-a-field"),
        pytest.param('match x:\n    case f"{row["k"]}":\n        pass\n', id="in-a-case-pattern"),
    ],
)
def test_what_cannot_be_rewritten_exactly_stays_the_parsers_error(source: str) -> None:
    with pytest.raises(SyntaxError) as raised:
        ast.parse(source)
    with pytest.raises(SyntaxError) as again:
        parse_module(source)
    assert (again.value.msg, again.value.lineno) == (raised.value.msg, raised.value.lineno)


# -- the lint -------------------------------------------------------------------------------------

REQUEST = """
    from datetime import datetime

    from openai import OpenAI

    client = OpenAI()
    POLICY = {"tone": "calm"}


    def answer(question):
        system = f"You answer questions about refunds. FILL Follow the refund policy exactly as written in section four. Follow the refund policy exactly as written in section four. Follow the refund policy exactly as written in section four. Follow the refund policy exactly as written in section four. Follow the refund policy exactly as written in section four."
        return client.chat.completions.create(
            model="gpt-4o",
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": question},
            ],
        )
"""


def _request(fill: str) -> str:
    return textwrap.dedent(REQUEST).replace("FILL", fill)


def test_a_clock_inside_a_312_f_string_is_found_where_it_is_written() -> None:
    source = _request('Today is {datetime.now().strftime("%Y-%m-%d")}.')
    found = lint_python_source(source, path="agent.py")
    assert [(f.code, f.line) for f in found] == [("PC501", 11)]
    line = source.split("\n")[10]
    assert found[0].column == line.index("datetime.now()") + 1


def test_a_per_request_value_inside_a_312_f_string_is_named_as_written() -> None:
    source = _request('Hello {session["user_name"]}.').replace(
        "def answer(question):", "def answer(question, session):"
    )
    found = lint_python_source(source, path="agent.py")
    assert [(f.code, f.line) for f in found] == [("PC502", 11)]
    assert found[0].column == source.split("\n")[10].index("session[") + 1
    assert found[0].message.startswith('`session["..."]` (per-request data)'), found[0].message


def test_a_constant_inside_a_312_f_string_stays_quiet() -> None:
    source = _request('Tone: {POLICY["tone"]}.')
    assert lint_python_source(source, path="agent.py") == []


def test_a_312_f_string_finding_is_suppressed_by_the_noqa_of_its_line() -> None:
    source = _request('Today is {datetime.now().strftime("%Y-%m-%d")}.').replace(
        'four."\n', 'four."  # noqa: PC501\n'
    )
    assert lint_python_source(source, path="agent.py") == []


def test_a_log_line_broken_inside_a_field_is_not_a_broken_file() -> None:
    source = textwrap.dedent(
        """
        import logging

        logger = logging.getLogger(__name__)


        async def generate(self, prompt):
            logger.debug(f"Sending request to the API: {
                         self.base_url}/api/generate")
            async with self.http() as client:
                return await client.post(f"{self.base_url}/api/generate", json={"prompt": prompt})
        """
    )
    assert lint_python_source(source, path="llm.py") == []


def test_a_broken_file_with_312_f_strings_is_pc500_and_nothing_else() -> None:
    source = _request('Today is {datetime.now().strftime("%Y-%m-%d")}.') + "def broken(:\n"
    try:
        ast.parse(source)
    except SyntaxError as exc:
        line = exc.lineno
    found = lint_python_source(source, path="agent.py")
    assert [(f.code, f.line) for f in found] == [("PC500", line)]
    assert "cannot parse the Python file" in found[0].message


def test_a_module_imported_with_312_f_strings_is_followed(tmp_path: Path) -> None:
    from ._helpers import project_findings

    files = {
        "prompts.py": """
            from datetime import datetime

            def system_prompt(profile):
                return f"Today is {datetime.now().strftime("%A")}. " + "Follow the refund policy exactly as written in section four. " * 20
        """,
        "agent.py": """
            from openai import OpenAI
            from prompts import system_prompt

            client = OpenAI()

            def answer(question, profile):
                return client.chat.completions.create(model="gpt-4o", messages=[
                    {"role": "system", "content": system_prompt(profile)},
                    {"role": "user", "content": question},
                ])
        """,
    }
    found = project_findings(tmp_path, files)
    assert ("prompts.py", 5, "PC500") not in found
    assert any(code == "PC501" for _, _, code in found), found


# -- --fix ----------------------------------------------------------------------------------------

FIXABLE = """
import json

from anthropic import Anthropic

client = Anthropic()


def ask(question, catalog, user):
    header = f"Catalog for {user["plan"]} customers:"
    system = header + json.dumps(catalog) + " Follow the refund policy exactly as written in section four." * 20
    return client.messages.create(model="m", max_tokens=9, system=system,
        messages=[{"role": "user", "content": question}])
"""


def _fix(source: str) -> tuple[str, int]:
    result = fix_source(source, display="agent.py", linter=PythonLinter(LintConfig()))
    return result.source, result.applied


def test_fix_outside_a_rewritten_string_maps_back_to_the_file() -> None:
    fixed, applied = _fix(FIXABLE)
    assert applied == 1
    assert fixed == FIXABLE.replace("json.dumps(catalog)", "json.dumps(catalog, sort_keys=True)")


@older_only
def test_fix_inside_a_rewritten_string_is_left_for_a_person() -> None:
    source = FIXABLE.replace(
        'header + json.dumps(catalog) + "', 'f"{header}{json.dumps(catalog["items"])}" + "'
    )
    assert not _parsed_by_the_running_python(source)
    found = PythonLinter(LintConfig()).lint_source(source, display="agent.py")
    assert any(f.code == "PC503" for f in found), found  # reported, still
    assert _fix(source) == (source, 0)


@older_only
def test_cli_fix_writes_a_rewritten_file_only_where_the_fix_maps_back(tmp_path: Path) -> None:
    from promptcache.cli import main

    (tmp_path / "pyproject.toml").write_text("[tool.promptcache.lint]\n", encoding="utf-8")
    inside = FIXABLE.replace(
        'header + json.dumps(catalog) + "', 'f"{header}{json.dumps(catalog["items"])}" + "'
    )
    for name, text, fixed in [
        ("outside.py", FIXABLE, FIXABLE.replace("(catalog)", "(catalog, sort_keys=True)")),
        ("inside.py", inside, inside),
    ]:
        path = tmp_path / name
        path.write_bytes(text.encode("utf-8"))
        main(["lint", "--fix", "--config", str(tmp_path / "pyproject.toml"), str(path)])
        assert path.read_bytes() == fixed.encode("utf-8"), name
