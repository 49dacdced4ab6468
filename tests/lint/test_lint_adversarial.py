"""
`promptcache lint` against hostile input: odd encodings and line ends, file-system traps, broken
configuration, `--fix` on files it must not corrupt. Each test failed before its fix: a file the
linter could not read or check is said (an error, PC001/PC500, or a PC003 notice), never clean.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from promptcache.cli import main
from promptcache.lint import Finding, format_findings, lint_paths
from promptcache.lint.python import lint_python_source

# A request whose system prompt starts with a clock value, then ~600 tokens of static text.
BUSTED_PY = (
    "import datetime\n"
    "import anthropic\n"
    "client = anthropic.Anthropic()\n"
    "def ask(q):\n"
    '    system = f"Today is {datetime.datetime.now()}. " + "' + "Be helpful. " * 200 + '"\n'
    '    return client.messages.create(model="m", max_tokens=10, system=system,\n'
    '        messages=[{"role": "user", "content": q}])\n'
)


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- line ends ------------------------------------------------------------------------------------


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_python_line_ends_do_not_hide_a_finding(end: str) -> None:
    # Python reads a lone CR as a line end: the sink scan counted only \n, saw every trigger
    # on line 1, and called the module clean.
    findings = lint_python_source(BUSTED_PY.replace("\n", end), path="m.py")
    assert [(f.code, f.line) for f in findings] == [("PC501", 5)]


def test_noqa_on_a_lone_cr_line_applies_to_that_line_only() -> None:
    source = BUSTED_PY.replace("\n", "\r").replace("#", "")
    lines = source.split("\r")
    lines[0] += "  # noqa: PC501"  # not the finding's line (5)
    assert [f.line for f in lint_python_source("\r".join(lines), path="m.py")] == [5]
    lines[4] += "  # noqa: PC501"
    assert lint_python_source("\r".join(lines), path="m.py") == []


@pytest.mark.parametrize("separator", ["\x0c", "\u2028", "\x1c", "\x85"])
def test_noqa_lines_are_counted_as_python_counts_them(separator: str) -> None:
    # str.splitlines also splits at form feeds, U+2028 and other separators Python's tokenizer
    # keeps inside a line: a noqa comment was looked for on the wrong line.
    lines = BUSTED_PY.split("\n")
    lines[0] += f"  # {separator}"
    lines[4] += "  # noqa: PC501"
    assert lint_python_source("\n".join(lines), path="m.py") == []


# -- the file system ------------------------------------------------------------------------------

BUSTED_J2 = "Now: {{ now() }}\n" + "Static instruction text. " * 80 + "\n"


def _refuse_listing(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Make listing `folder` fail as chmod 000 does for a user (the tests run as root, whom
    permissions do not stop): `os.walk` lists folders with `os.scandir`."""
    real = os.scandir

    def scandir(path: object = ".") -> object:
        if os.path.realpath(str(path)) == os.path.realpath(folder):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)


def test_a_folder_that_cannot_be_listed_is_said_not_skipped_silently(
    here: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "prompts" / "locked").mkdir(parents=True)
    (here / "prompts" / "locked" / "system.j2").write_text(BUSTED_J2)
    (here / "prompts" / "clean.j2").write_text("Hello.\n")
    _refuse_listing(monkeypatch, here / "prompts" / "locked")
    assert main(["lint", "prompts"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("prompts/locked:1:1: PC003 skipped: a folder that cannot be listed")
    assert "Permission denied" in out


def test_a_named_folder_that_cannot_be_listed_is_an_error(
    here: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "prompts").mkdir()
    _refuse_listing(monkeypatch, here / "prompts")
    assert main(["lint", "prompts"]) == 2
    err = capsys.readouterr().err
    assert "cannot list the folder 'prompts': Permission denied" in err
    assert "internal error" not in err


def test_a_linked_folder_is_said_not_skipped_silently(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "shared").mkdir()
    (here / "shared" / "system.j2").write_text(BUSTED_J2)
    (here / "prompts").mkdir()
    (here / "prompts" / "shared").symlink_to(here / "shared")
    assert main(["lint", "prompts"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("prompts/shared:1:1: PC003 skipped: a symlink to a folder")


def test_a_file_named_twice_is_linted_once(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "prompts").mkdir()
    (here / "prompts" / "system.j2").write_text(BUSTED_J2)
    assert main(["lint", "prompts/system.j2", "./prompts/system.j2", "prompts"]) == 1
    assert len(capsys.readouterr().out.splitlines()) == 1


# -- configuration --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ("tool = 3\n", "`tool` must be a table"),
        ("[tool]\npromptcache = 'x'\n", "[tool.promptcache] must be a table"),
        ("[tool.promptcache.lint]\nselect = []\n", "select is empty"),
        ("[tool.promptcache.lint]\nselect = ['']\n", "'' is not a rule code"),
    ],
)
def test_a_broken_configuration_is_a_clear_error(
    here: Path, capsys: pytest.CaptureFixture[str], toml: str, said: str
) -> None:
    # Before: an internal error (AttributeError) for the first two; a run that reports nothing
    # (every rule off), or every rule on, for the others.
    (here / "pyproject.toml").write_text(toml)
    (here / "system.j2").write_text(BUSTED_J2)
    assert main(["lint", "system.j2"]) == 2
    err = capsys.readouterr().err
    assert said in err and "pyproject.toml" in err
    assert "internal error" not in err


# -- --fix ----------------------------------------------------------------------------------------

UNSORTED_PY = (
    "import json\n"
    "import anthropic\n"
    "client = anthropic.Anthropic()\n"
    "def ask(q, tools):\n"
    '    system = "Tools: " + json.dumps(tools) + "' + "Be helpful. " * 200 + '"\n'
    '    return client.messages.create(model="m", max_tokens=10, system=system,\n'
    '        messages=[{"role": "user", "content": q}])\n'
)
FIXED_LINE = b"json.dumps(tools, sort_keys=True)"


def _fixed(here: Path, name: str, data: bytes) -> bytes:
    (here / name).write_bytes(data)
    assert main(["lint", "--fix", name]) == 0
    return (here / name).read_bytes()


@pytest.mark.parametrize(
    ("prefix", "end"),
    [(b"", "\n"), (b"\xef\xbb\xbf", "\n"), (b"", "\r\n"), (b"\xef\xbb\xbf", "\r\n"), (b"", "\r")],
    ids=["lf", "bom", "crlf", "bom-crlf", "cr"],
)
def test_fix_keeps_the_bom_and_the_line_ends(here: Path, prefix: bytes, end: str) -> None:
    # Before: the BOM was dropped; a module with lone CR line ends was not fixed (nor reported).
    original = prefix + UNSORTED_PY.replace("\n", end).encode()
    fixed = _fixed(here, "agent.py", original)
    assert fixed == original.replace(b"json.dumps(tools)", FIXED_LINE)


def test_fix_keeps_a_declared_encoding(here: Path) -> None:
    # A PEP 263 coding comment is how Python reads the module: it was refused as "not UTF-8".
    original = b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + UNSORTED_PY.encode()
    fixed = _fixed(here, "agent.py", original)
    assert fixed == original.replace(b"json.dumps(tools)", FIXED_LINE)


@pytest.mark.parametrize("separator", ["\x0c", "\u2028"])
def test_fix_counts_lines_as_python_does(here: Path, separator: str) -> None:
    # The rewrite's offsets were found with str.splitlines, which splits at a form feed or
    # U+2028 Python keeps in a line: the edit landed elsewhere and was dropped (or worse).
    original = f"x = '{separator}'\n{UNSORTED_PY}".encode()
    fixed = _fixed(here, "agent.py", original)
    assert fixed == original.replace(b"json.dumps(tools)", FIXED_LINE)


def test_fix_is_idempotent(here: Path) -> None:
    once = _fixed(here, "agent.py", UNSORTED_PY.encode())
    assert _fixed(here, "agent.py", once) == once


def test_fix_refuses_a_read_only_file(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Root may rename over a read-only file: it was rewritten, and its mode with it.
    (here / "agent.py").write_text(UNSORTED_PY)
    (here / "agent.py").chmod(0o444)
    assert main(["lint", "--fix", "agent.py"]) == 2
    out, err = capsys.readouterr()
    assert "cannot fix 'agent.py': it is read-only" in err
    assert "PC503" in out  # still reported
    assert (here / "agent.py").read_text() == UNSORTED_PY


def test_fix_keeps_a_link_a_link(here: Path) -> None:
    (here / "real").mkdir()
    (here / "real" / "agent.py").write_text(UNSORTED_PY)
    (here / "agent.py").symlink_to(here / "real" / "agent.py")
    assert main(["lint", "--fix", "agent.py"]) == 0
    assert (here / "agent.py").is_symlink()
    assert FIXED_LINE in (here / "real" / "agent.py").read_bytes()


def test_fix_interrupted_mid_write_leaves_the_original(
    here: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "agent.py").write_text(UNSORTED_PY)
    (here / "agent.py.promptcache-fix").write_text("mine\n")  # a user's file, not ours to take

    def full_disk(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    assert main(["lint", "--fix", "agent.py"]) == 2
    assert "cannot write 'agent.py': the disk is full" in capsys.readouterr().err
    assert (here / "agent.py").read_text() == UNSORTED_PY
    assert sorted(p.name for p in here.iterdir()) == ["agent.py", "agent.py.promptcache-fix"]
    assert (here / "agent.py.promptcache-fix").read_text() == "mine\n"


# -- tokenizer_config.json ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "said"),
    [
        ('{"chat_template": 5}', "`chat_template` is a number"),
        ('{"chat_template": {"default": "x"}}', "`chat_template` is an object"),
        ('{"chat_template": [3]}', "`chat_template[0]` is a number"),
        ('{"chat_template": [{"name": "a", "template": 3}]}', "`chat_template[0]` is an object"),
        ("[1, 2]", "holds a JSON list"),
    ],
)
def test_a_chat_template_of_an_unknown_shape_is_not_clean(
    here: Path, capsys: pytest.CaptureFixture[str], config: str, said: str
) -> None:
    # Before: each was passed over, and the file reported clean.
    (here / "model").mkdir()
    (here / "model" / "tokenizer_config.json").write_text(config)
    assert main(["lint", "model"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("model/tokenizer_config.json:1:1: PC001 ") and said in out


@pytest.mark.parametrize("config", ["{}", '{"chat_template": null}', '{"model_max_length": 8}'])
def test_a_tokenizer_without_a_chat_template_is_clean(here: Path, config: str) -> None:
    (here / "tokenizer_config.json").write_text(config)
    assert main(["lint", "tokenizer_config.json"]) == 0


# -- outputs --------------------------------------------------------------------------------------


def _finding_at(path: str) -> Finding:
    return Finding(
        path=path, line=1, column=2, code="PC101", message="m", severity="error", tokens_at_risk=9
    )


def test_text_output_keeps_one_finding_a_line_whatever_the_file_name() -> None:
    # A newline in a file name split one finding over two lines: a reader of `path:line:col:`
    # lines (an editor, a CI matcher) saw a finding with no position and a line with no code.
    text = format_findings([_finding_at("new\nline.j2"), _finding_at("tab\there.j2")], "text")
    assert text.splitlines() == [
        "new\\nline.j2:1:2: PC101 m",
        "tab\\there.j2:1:2: PC101 m",
    ]


def test_coloured_text_output_keeps_one_finding_a_line(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "new\nline.j2").write_text(BUSTED_J2)
    assert main(["lint", "--color", "always", "new\nline.j2"]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert "new\\nline.j2" in line


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        ("prompts/a:b.j2", "prompts/a%3Ab.j2"),
        ("a:b.j2", "a%3Ab.j2"),  # read as a URI of scheme `a` before
        ("/srv/app/system prompt.j2", "file:///srv/app/system%20prompt.j2"),
        ("prompts/ñ#1?.j2", "prompts/%C3%B1%231%3F.j2"),
    ],
)
def test_sarif_locations_are_uri_references_of_the_file(path: str, uri: str) -> None:
    log = json.loads(format_findings([_finding_at(path)], "sarif"))
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    found = location["artifactLocation"]["uri"]
    assert found == uri
    parts = urlsplit(found)
    assert (parts.scheme, unquote(parts.path)) == (("file", path) if path[0] == "/" else ("", path))


def test_statistics_are_not_passed_off_as_json(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `--statistics --format json` printed the text table; `-o` dropped the statistics.
    (here / "system.j2").write_text(BUSTED_J2)
    assert main(["lint", "--statistics", "--format", "json", "system.j2"]) == 2
    err = capsys.readouterr().err
    assert "--statistics prints a table of counts" in err and "--format json" in err
    assert main(["lint", "--statistics", "-o", "counts.txt", "system.j2"]) == 1
    assert (here / "counts.txt").read_text() == "1\tPC101\tvolatile-call\n"


# -- the command line -----------------------------------------------------------------------------


def test_an_empty_path_is_refused_not_read_as_the_current_folder(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `promptcache lint "$TEMPLATES"` with the variable unset linted the current folder.
    (here / "system.j2").write_text(BUSTED_J2)
    assert main(["lint", ""]) == 2
    err = capsys.readouterr().err
    assert "an empty path" in err and "internal error" not in err


def test_max_bytes_past_the_ceiling_is_a_usage_error(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It was taken, then every file failed to read (PC001 per file) naming the flag.
    (here / "system.j2").write_text(BUSTED_J2)
    assert main(["lint", "--max-bytes", str(1 << 41), "system.j2"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--max-bytes" in err and "1,099,511,627,776" in err


def test_a_file_deleted_while_linting_is_said(
    here: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from promptcache.lint import _engine

    (here / "prompts").mkdir()
    (here / "prompts" / "a.j2").write_text(BUSTED_J2)
    (here / "prompts" / "b.j2").write_text(BUSTED_J2)
    real = _engine.read_source

    def read_then_delete(path: Path, **kwargs: int) -> str:
        text = real(path, **kwargs)
        (here / "prompts" / "b.j2").unlink(missing_ok=True)
        return text

    monkeypatch.setattr(_engine, "read_source", read_then_delete)
    assert main(["lint", "prompts"]) == 1
    out = capsys.readouterr().out
    assert "prompts/b.j2:1:1: PC001 " in out and "'prompts/b.j2': it does not exist" in out


# -- Python source ---------------------------------------------------------------------------------


def test_a_module_in_a_declared_encoding_is_linted(here: Path) -> None:
    # PEP 263: Python reads a module in the encoding its coding comment declares; it was
    # refused as "not UTF-8 text" (and told to save "the template" as UTF-8).
    (here / "agent.py").write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + BUSTED_PY.encode())
    (found,) = lint_paths(["agent.py"])
    assert (found.code, found.line) == ("PC501", 7)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"# coding: klingon\nx = 1\n", "unknown encoding: klingon"),
        (b"# coding: ascii\nx = '\xe9'\n", "not ascii text as it declares"),
        (b"x = '\xe9'\n", "not UTF-8 text: byte 0xe9"),
        ("x = 1\n".encode("utf-16"), "UTF-16 text, which Python does not read"),
    ],
)
def test_a_module_python_cannot_decode_is_pc500_saying_why(
    here: Path, data: bytes, said: str
) -> None:
    (here / "agent.py").write_bytes(data + b"system_prompt = 'x'\n")
    (found,) = lint_paths(["agent.py"])
    assert found.code == "PC500" and said in found.message and "template" not in found.message


def test_syntax_of_a_newer_python_says_which_python_parsed_it() -> None:
    # PEP 695 (3.12) read by 3.11 was only "invalid syntax": it reads like a broken file.
    source = "type Prompt = str\nsystem_prompt = 'x'\n"
    try:
        compile(source, "m.py", "exec", flags=0x400, dont_inherit=True)  # PyCF_ONLY_AST
    except SyntaxError:
        (found,) = lint_python_source(source, path="m.py")
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        assert found.code == "PC500" and f"as Python {version} reads it" in found.message
    else:
        assert lint_python_source(source, path="m.py") == []


# -- select and ignore ----------------------------------------------------------------------------


def test_select_does_not_silence_a_file_that_could_not_be_checked(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `select = ["PC1"]` ("the template rules") also dropped PC001: a template that does not
    # parse passed as clean. As ruff reports syntax errors whatever is selected, a file or part
    # that could not be checked is reported unless `ignore` names it.
    (here / "broken.j2").write_text("{% if %}\n")
    (here / "broken.py").write_text("def f(:\n")
    (here / "pyproject.toml").write_text('[tool.promptcache.lint]\nselect = ["PC1"]\n')
    assert main(["lint", "broken.j2", "broken.py"]) == 1
    out = capsys.readouterr().out
    assert [line.split()[1] for line in out.splitlines()] == ["PC001", "PC500"]
    (here / "pyproject.toml").write_text(
        '[tool.promptcache.lint]\nselect = ["PC1"]\nignore = ["PC001", "PC5"]\n'
    )
    assert main(["lint", "broken.j2", "broken.py"]) == 0
    assert capsys.readouterr().out == ""


# -- size -----------------------------------------------------------------------------------------


def test_a_long_one_line_template_is_linted_in_linear_work(monkeypatch: pytest.MonkeyPatch) -> None:
    # 2,000 outputs on one line took 83 s (1,000: 9 s; 200,000: no end in 300 s): each finding
    # listed every match of its name on the line and scanned back from each. Counted, not timed.
    from promptcache.lint import _engine, lint_source

    calls = 0
    real = _engine._inside

    def inside(text: str, position: int) -> str:
        nonlocal calls
        calls += 1
        return real(text, position)

    monkeypatch.setattr(_engine, "_inside", inside)
    outputs = 400
    # Every `a` is a finding's candidate (PC106: ~4,000 tokens of static text follow).
    source = "{{ now() }}" + "{{ a }} text " * outputs + "Static words. " * 2000
    findings = lint_source(source, path="long.j2")
    assert findings and calls <= 2 * outputs


def test_the_summary_of_notes_names_the_python_note_too(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A Python request that was not checked (PC506) was summed up as "parts that could not be
    # checked (PC002) or files skipped (PC003)", naming only the template codes.
    (here / "helper.py").write_text("def get_system_prompt(:\n")
    (here / "main.py").write_text(
        "import anthropic\nfrom helper import get_system_prompt\n"
        "anthropic.Anthropic().messages.create(model='m', max_tokens=1, "
        "system=get_system_prompt() + '" + "Be helpful. " * 200 + "', messages=[])\n"
    )
    assert main(["lint", "main.py"]) == 0
    out, err = capsys.readouterr()
    assert " PC506 " in out and "(PC002, PC506)" in err


def test_an_include_chain_past_the_depth_limit_is_said(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The depth limit is only met inside included files, whose notes are dropped: a clock 23
    # includes down was never checked, and the template was reported clean.
    for level in range(22):
        (here / f"t{level}.j2").write_text(f"{{% include 't{level + 1}.j2' %}}x")
    (here / "t22.j2").write_text("{{ now() }}")
    (here / "main.j2").write_text("Hello.\n{% include 't0.j2' %}\n" + "Static text. " * 80)
    assert main(["lint", "main.j2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("main.j2:2:1: PC002 could not check the templates below this line")


@pytest.mark.parametrize("cycle", [["a.j2"], ["a.j2", "b.j2"]], ids=["itself", "each-other"])
def test_templates_that_extend_each_other_are_said(
    here: Path, capsys: pytest.CaptureFixture[str], cycle: list[str]
) -> None:
    # Jinja cannot render them (it recurses without end); the linter reported them clean.
    block = "{% block body %}{{ now() }}" + "Static text. " * 80 + "{% endblock %}"
    for name, parent in zip(cycle, [*cycle[1:], cycle[0]], strict=True):
        (here / name).write_text(f"{{% extends '{parent}' %}}{block}")
    main(["lint", "a.j2"])
    out = capsys.readouterr().out
    assert "a.j2:1:1: PC002 could not check the parent template" in out
    assert "templates that extend each other" in out


def test_json_output_stays_one_document_when_a_fix_is_refused(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "agent.py").write_text(UNSORTED_PY)
    (here / "agent.py").chmod(0o444)
    (here / "broken.py").write_text("def f(:\n")
    assert main(["lint", "--fix", "--format", "json", "agent.py", "broken.py"]) == 2
    out, err = capsys.readouterr()
    assert [record["code"] for record in json.loads(out)] == ["PC503", "PC500"]
    assert "cannot fix 'agent.py'" in err


def test_what_an_included_template_could_not_check_is_said_where_it_is_included(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A partial on the search path (outside the folders linted) that includes a missing file:
    # the part it stands for was not checked, and nothing said so.
    (here / "shared").mkdir()
    (here / "shared" / "header.j2").write_text("Hello.\n{% include 'clock.j2' %}\n")
    (here / "prompts").mkdir()
    (here / "prompts" / "system.j2").write_text(
        "{% include 'header.j2' %}\n" + "Static text. " * 80
    )
    (here / "pyproject.toml").write_text('[tool.promptcache.lint]\nsearch-path = ["shared"]\n')
    assert main(["lint", "prompts"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("prompts/system.j2:1:1: PC002 could not check the included template")
    assert "'clock.j2'" in out and "header.j2, line 2" in out


# Each comment is built here, not written out: ruff would read it as its own directive.
@pytest.mark.parametrize(
    ("word", "rest"), [("noqa", " : PC999"), ("noqa", " :PC502"), ("NOQA", " : E501")]
)
def test_a_noqa_naming_other_codes_with_a_spaced_colon_is_not_a_blanket_one(
    word: str, rest: str
) -> None:
    # A spaced colon was read as a bare noqa: it silenced every finding on the line.
    comment = f"# {word}{rest}"
    lines = BUSTED_PY.split("\n")
    lines[4] += f"  {comment}"
    assert [f.code for f in lint_python_source("\n".join(lines), path="m.py")] == ["PC501"]
    lines[4] = lines[4].replace(comment, f"# {word} : PC501")
    assert lint_python_source("\n".join(lines), path="m.py") == []
