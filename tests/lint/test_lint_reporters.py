"""Output formats: text, json, sarif (validated against the 2.1.0 schema), github."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcache import InputError
from promptcache.lint import RULES, Finding, format_findings, lint_source

from ._helpers import STATIC

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def _findings() -> list[Finding]:
    found = lint_source("Now {{ now() }}\n" + STATIC, path="prompts/system, v2.j2")
    found += lint_source("{% if %}", path="prompts/broken.j2")
    return found


def test_text() -> None:
    text = format_findings(_findings(), "text")
    first, second = text.splitlines()
    assert first.startswith("prompts/system, v2.j2:1:8: PC101 volatile call `now()`")
    assert second.startswith("prompts/broken.j2:1:1: PC001 cannot parse the template")


def test_json_is_a_stable_list_of_objects() -> None:
    records = json.loads(format_findings(_findings(), "json"))
    assert [sorted(r) for r in records] == [
        [
            "code",
            "column",
            "line",
            "made_at",
            "message",
            "path",
            "severity",
            "tokens_at_risk",
            "written_at",
            "written_in",
        ]
    ] * 2
    assert records[0]["code"] == "PC101" and records[0]["tokens_at_risk"] > 100
    assert records[1]["tokens_at_risk"] is None and records[1]["severity"] == "error"
    assert json.loads(format_findings([], "json")) == []


def test_sarif_validates_against_the_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    for findings in (_findings(), []):
        log = json.loads(format_findings(findings, "sarif"))
        jsonschema.validate(log, schema)
    log = json.loads(format_findings(_findings(), "sarif"))
    run = log["runs"][0]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == list(RULES)
    result = run["results"][0]
    assert result["ruleId"] == "PC101"
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "PC101"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "prompts/system%2C%20v2.j2"
    assert location["region"] == {"startLine": 1, "startColumn": 8}
    assert result["properties"]["tokensAtRisk"] > 100


def test_sarif_schema_rejects_a_broken_log() -> None:
    # The check above can fail: the schema does reject a result without a message.
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    log = json.loads(format_findings(_findings(), "sarif"))
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, schema)


def test_github_annotations_escape_properties_and_data() -> None:
    finding = Finding(
        path="a:b,c.j2",
        line=3,
        column=4,
        code="PC102",
        message="50% of it\nis lost",
        severity="warning",
        tokens_at_risk=9,
    )
    line = format_findings([finding], "github")
    assert line == (
        "::warning file=a%3Ab%2Cc.j2,line=3,col=4,title=PC102 per-request-variable"
        "::50%25 of it%0Ais lost\n"
    )


def test_unknown_format() -> None:
    with pytest.raises(InputError, match="unknown format 'xml'"):
        format_findings([], "xml")


def test_sarif_with_the_line_where_the_value_is_written_validates() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    source = (
        "{% macro header() %}\nToday is {{ now() }}.\n{% endmacro %}\n{{ header() }}\n" + STATIC
    )
    log = json.loads(format_findings(lint_source(source), "sarif"))
    jsonschema.validate(log, json.loads(SCHEMA.read_text(encoding="utf-8")))
    (related,) = log["runs"][0]["results"][0]["relatedLocations"]
    assert related["physicalLocation"]["region"] == {"startLine": 2}


def test_text_and_github_name_the_line_where_the_value_is_written() -> None:
    # A reader of plain text, or of a pull request's annotations, sees where the fix goes too.
    source = (
        "{% macro header() %}\nToday is {{ now() }}.\n{% endmacro %}\n{{ header() }}\n" + STATIC
    )
    found = lint_source(source)
    assert [f.written_at for f in found] == [2]
    assert format_findings(found, "text").rstrip("\n").endswith("(written at line 2)")
    assert format_findings(found, "github").rstrip("\n").endswith("(written at line 2)")
