"""
A value made in another module than the request it reaches: the finding stays at the request (it
decides the risk) and names the place the value is made as `made_at`, (that file, line), carried
by JSON and as a SARIF related location, so a reader at the send finds the cut or the clock.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from promptcache.lint import Finding, LintConfig, format_findings, lint_paths

RULES = "Answer questions about the garden centre's plants and opening hours only. " * 30

# A helper module keeps the newest turns; the bot puts them after its static system prompt.
WINDOW = """
def recent_turns(turns, keep):
    kept = list(turns)
    return kept[-keep:]
"""

BOT = f"""
from openai import OpenAI
from store.window import recent_turns

client = OpenAI()
RULES = "{RULES}"


def reply(turns, question):
    history = recent_turns(turns, 10)
    messages = [{{"role": "system", "content": RULES}}, *history, {{"role": "user", "content": question}}]
    return client.chat.completions.create(model="gpt-4o-mini", messages=messages)
"""

# A helper module stamps the time; the bot writes it above its static system prompt.
CLOCK = """
from datetime import datetime


def banner():
    return f"Current time: {datetime.now().isoformat()}"
"""

STAMPED = f"""
from openai import OpenAI
from clock import banner

client = OpenAI()
RULES = "{RULES}"


def reply(question):
    system = banner() + "\\n" + RULES
    messages = [{{"role": "system", "content": system}}, {{"role": "user", "content": question}}]
    return client.chat.completions.create(model="gpt-4o-mini", messages=messages)
"""


def _lint(root: Path, files: dict[str, str]) -> list[Finding]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    found = lint_paths([root], config=LintConfig(root=root))
    return [f for f in found if f.severity != "info"]


def test_a_window_cut_in_another_module_names_where_it_is_cut(tmp_path: Path) -> None:
    (finding,) = _lint(tmp_path, {"store/window.py": WINDOW, "bot.py": BOT})
    assert (Path(finding.path).name, finding.line, finding.code) == ("bot.py", 9, "PC507")
    assert finding.made_at == (str(tmp_path / "store" / "window.py"), 3)


def test_the_whole_history_from_another_module_is_quiet(tmp_path: Path) -> None:
    whole = WINDOW.replace("kept[-keep:]", "kept")
    assert _lint(tmp_path, {"store/window.py": whole, "bot.py": BOT}) == []


def test_a_window_cut_in_the_sending_module_is_reported_at_the_cut(tmp_path: Path) -> None:
    # The same file: the finding is on the cut's own line, and there is no other place to name.
    inline = BOT.replace("recent_turns(turns, 10)", "list(turns)[-10:]")
    (finding,) = _lint(tmp_path, {"bot.py": inline})
    assert (finding.line, finding.code, finding.made_at) == (9, "PC507", None)


def test_a_clock_made_in_another_module_names_where_it_is_made(tmp_path: Path) -> None:
    found = _lint(tmp_path, {"clock.py": CLOCK, "bot.py": STAMPED})
    assert found
    assert {(f.code, f.made_at) for f in found} == {("PC501", (str(tmp_path / "clock.py"), 5))}


def test_a_static_banner_from_another_module_is_quiet(tmp_path: Path) -> None:
    static = CLOCK.replace("{datetime.now().isoformat()}", "the garden centre")
    assert _lint(tmp_path, {"clock.py": static, "bot.py": STAMPED}) == []


def test_json_and_sarif_carry_where_the_value_is_made(tmp_path: Path) -> None:
    findings = _lint(tmp_path, {"store/window.py": WINDOW, "bot.py": BOT})
    (record,) = json.loads(format_findings(findings, "json"))
    assert record["made_at"] == {"path": str(tmp_path / "store" / "window.py"), "line": 3}
    (result,) = json.loads(format_findings(findings, "sarif"))["runs"][0]["results"]
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"]["artifactLocation"]["uri"].endswith("/store/window.py")
    assert related["physicalLocation"]["region"]["startLine"] == 3
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 9


def test_sarif_with_both_related_places_validates(tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
    both = Finding(
        path="bot.py", line=9, column=1, code="PC507", message="a window", severity="warning",
        written_at=7, made_at=("store/window.py", 3),
    )  # fmt: skip
    log = json.loads(format_findings([both], "sarif"))
    jsonschema.validate(log, schema)
    related = log["runs"][0]["results"][0]["relatedLocations"]
    assert [(r["id"], r["physicalLocation"]["artifactLocation"]["uri"]) for r in related] == [
        (0, "bot.py"),
        (1, "store/window.py"),
    ]


def test_a_finding_made_here_has_no_made_at_in_json(tmp_path: Path) -> None:
    inline = BOT.replace("recent_turns(turns, 10)", "list(turns)[-10:]")
    findings = _lint(tmp_path, {"bot.py": inline})
    (record,) = json.loads(format_findings(findings, "json"))
    assert record["made_at"] is None
    (result,) = json.loads(format_findings(findings, "sarif"))["runs"][0]["results"]
    assert "relatedLocations" not in result


# A template written in one module and filled per request in another: the finding stays where
# the value is read and names the template's placeholder, in the other file, as `written_in`.
TEMPLATE = '''
ANSWER = """Answer the visitor's question about the garden centre.

## Question
{question}

""" + "Use only the catalogue and the opening hours; never invent a plant or a price.\\n" * 30
'''

FILLED = """
from langchain_core.prompts import PromptTemplate
from langchain_openai import ChatOpenAI

from prompts import ANSWER

llm = ChatOpenAI(model="gpt-4o-mini")


def answer(state):
    question = state["question"]
    prompt = PromptTemplate.from_template(ANSWER)
    chain = prompt | llm
    return chain.invoke({"question": question})
"""


def test_a_template_imported_from_another_module_names_its_placeholder(tmp_path: Path) -> None:
    (finding,) = _lint(tmp_path, {"prompts.py": TEMPLATE, "answer.py": FILLED})
    assert (Path(finding.path).name, finding.line, finding.code) == ("answer.py", 10, "PC502")
    assert finding.written_in == (str(tmp_path / "prompts.py"), 4)
    assert (finding.written_at, finding.made_at) == (None, None)
    assert f"(written at {tmp_path / 'prompts.py'}:4)" in format_findings([finding], "text")
    (record,) = json.loads(format_findings([finding], "json"))
    assert record["written_in"] == {"path": str(tmp_path / "prompts.py"), "line": 4}


def test_a_placeholder_after_the_static_text_of_an_imported_template_is_quiet(
    tmp_path: Path,
) -> None:
    last = TEMPLATE.replace("## Question\n{question}\n\n", "") + "ANSWER += '{question}'\n"
    assert _lint(tmp_path, {"prompts.py": last, "answer.py": FILLED}) == []


def test_a_template_written_in_the_same_module_names_its_line_as_written_at(
    tmp_path: Path,
) -> None:
    body = textwrap.dedent(TEMPLATE).lstrip("\n")
    here = FILLED.replace("from prompts import ANSWER\n", body)
    (finding,) = _lint(tmp_path, {"answer.py": here})
    assert (finding.written_at, finding.written_in) == (7, None)  # `{question}`, line 7


FORMATTED = """
from openai import OpenAI

from prompts import ANSWER

client = OpenAI()


def answer(question):
    text = ANSWER.format(question=question)
    return client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": text}]
    )
"""


def test_an_imported_template_filled_by_format_names_its_placeholder(tmp_path: Path) -> None:
    (finding,) = _lint(tmp_path, {"prompts.py": TEMPLATE, "answer.py": FORMATTED})
    assert (Path(finding.path).name, finding.line, finding.code) == ("answer.py", 9, "PC502")
    assert finding.written_in == (str(tmp_path / "prompts.py"), 4)


def test_an_imported_template_filled_by_format_at_its_end_is_quiet(tmp_path: Path) -> None:
    last = TEMPLATE.replace("## Question\n{question}\n\n", "") + "ANSWER += '{question}'\n"
    assert _lint(tmp_path, {"prompts.py": last, "answer.py": FORMATTED}) == []
