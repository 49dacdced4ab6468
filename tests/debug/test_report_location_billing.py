"""
`report` prices a log as `cost` prices one response: a Claude on Vertex AI call at its location's
tier (the record's own `location`, else `--location`; none or an unknown one at the global rate,
with a note that it may be 10% more, never silently), and a deployment not billed per token
(`--billing provisioned|ccu`) as "not priced per token", its list prices kept apart, in the text,
JSON and HTML outputs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptcache import CacheUsage, InputError, cost
from promptcache._report import build_report
from promptcache.cli import main

SONNET = "claude-sonnet-4-5@20250929"  # Vertex's name; +10% off the global endpoint
USAGES = [  # (uncached, write, read, output) of a session's three turns
    (1200, 3000, 0, 200),
    (150, 400, 3000, 180),
    (120, 300, 3400, 160),
]


def _record(turn: int, *, location: Any = None, model: str = SONNET) -> dict[str, Any]:
    uncached, write, read, output = USAGES[turn]
    record: dict[str, Any] = {
        "vendor": "vertex-anthropic",
        "key": "session-1",
        "at": 1_764_374_400.0 + 10 * turn,
        "request": {
            "model": model,
            "anthropic_version": "vertex-2023-10-16",
            "max_tokens": 400,
            "system": [{"type": "text", "text": "You are terse.", "cache_control": {}}],
            "messages": [{"role": "user", "content": f"question {i}"} for i in range(turn + 1)],
        },
        "response": {
            "id": f"msg_{turn}",
            "model": "claude-sonnet-4-5",
            "usage": {
                "input_tokens": uncached,
                "cache_creation_input_tokens": write,
                "cache_read_input_tokens": read,
                "output_tokens": output,
            },
        },
    }
    if location is not None:
        record["location"] = location
    return record


def _log(tmp_path: Path, records: list[dict[str, Any]], name: str = "log.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _costs(location: str | None, model: str = SONNET, vendor: str = "vertex-anthropic") -> float:
    """What `cost()` says the three turns cost at `location`, one by one."""
    total = 0.0
    for uncached, write, read, output in USAGES:
        usage = CacheUsage(
            uncached_input=uncached, cache_read=read, cache_write=write, output=output
        )
        priced = cost(usage, model=model, vendor=vendor, location=location)
        assert priced.actual is not None
        total += priced.actual
    return total


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["report", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _notes(data: dict[str, Any]) -> dict[str, int]:
    return {n["note"]: n["records"] for n in data["cost"]["notes"]}


def test_location_prices_a_vertex_log_at_its_tier_as_cost_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _log(tmp_path, [_record(t) for t in range(3)])
    regional = _json(capsys, str(log), "--location", "us-east5")
    world = _json(capsys, str(log), "--location", "global")
    assert regional["cost"]["actual"] == pytest.approx(_costs("us-east5"))
    assert world["cost"]["actual"] == pytest.approx(_costs("global"))
    assert regional["cost"]["actual"] == pytest.approx(world["cost"]["actual"] * 1.1)
    assert regional["cost"]["without_cache"] == pytest.approx(world["cost"]["without_cache"] * 1.1)
    [(note, records)] = _notes(regional).items()
    assert records == 3 and "regional rate (us-east5)" in note and "derived" in note
    assert main(["report", str(log), "--location", "eu"]) == 0
    text = capsys.readouterr().out
    assert "note: 3 records: priced at Vertex AI's multi-region rate (eu)" in text


def test_a_record_naming_its_location_wins_over_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [_record(t, location="global" if t == 0 else None) for t in range(3)]
    data = _json(capsys, str(_log(tmp_path, records)), "--location", "us-east5")
    notes = _notes(data)
    assert notes["priced at Vertex AI's global rate (location global)"] == 1
    assert [n for n, c in notes.items() if "regional rate (us-east5)" in n and c == 2]
    in_log = _json(capsys, str(_log(tmp_path, [_record(t, location="us") for t in range(3)])))
    assert in_log["cost"]["actual"] == pytest.approx(_costs("us"))


def test_no_location_or_an_unknown_one_is_the_global_rate_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _log(tmp_path, [_record(t) for t in range(3)])
    data = _json(capsys, str(log))
    assert data["cost"]["actual"] == pytest.approx(_costs("global"))
    [(note, records)] = _notes(data).items()
    assert records == 3 and note.startswith("location not given") and "10% more" in note
    unknown = _json(capsys, str(log), "--location", "atlantis-1x")
    assert unknown["cost"]["actual"] == pytest.approx(_costs("global"))
    [(note, _)] = _notes(unknown).items()
    assert note.startswith("location 'atlantis-1x' not known") and "global rate" in note


def test_models_priced_the_same_everywhere_carry_no_location_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = "claude-sonnet-4@20250514"
    log = _log(tmp_path, [_record(t, model=old) for t in range(3)])
    data = _json(capsys, str(log), "--location", "us-east5")
    assert data["cost"]["notes"] == []
    assert data["cost"]["actual"] == pytest.approx(_costs("global", model=old))


def test_a_location_that_is_not_a_name_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [_record(0), _record(1, location={"region": "us"}), _record(2, location="US East")]
    data = _json(capsys, str(_log(tmp_path, records)))
    assert data["records"] == 1
    reasons = [p["reason"] for p in data["skipped"]["named"]]
    assert len(reasons) == 2 and all(
        "'location' must be a Vertex AI location" in r for r in reasons
    )
    with pytest.raises(InputError, match=r"location= must be a Vertex AI location.*'Us East'"):
        build_report([], location="Us East")
    assert main(["report", str(tmp_path / "log.jsonl"), "--location", "Us East"]) == 2
    err = capsys.readouterr().err
    assert "'Us East'" in err and "Traceback" not in err


def test_provisioned_billing_is_not_priced_per_token_and_keeps_list_prices_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _log(tmp_path, [_record(t, location="global") for t in range(3)])
    listed = _json(capsys, str(log))
    ptu = _json(capsys, str(log), "--billing", "provisioned")
    assert ptu["cost"]["billing"] == "provisioned" and listed["cost"]["billing"] == "per-token"
    assert ptu["cost"]["actual"] is None and ptu["cost"]["without_cache"] is None
    assert ptu["cost"]["savings"] is None and listed["cost"]["list_price"] is None
    kept = ptu["cost"]["list_price"]
    assert kept["actual"] == pytest.approx(listed["cost"]["actual"])
    assert kept["without_cache"] == pytest.approx(listed["cost"]["without_cache"])
    assert kept["savings"] == pytest.approx(listed["cost"]["savings"])
    assert any(n.startswith("not priced per token (provisioned)") for n in _notes(ptu))
    assert all(c["cost_lost"] is None for c in ptu["invalidations"])
    assert main(["report", str(log), "--billing", "ccu", "--by", "key"]) == 0
    text = capsys.readouterr().out
    assert "cost           not priced per token (CCU); at list prices" in text
    assert "not priced per token (CCU): Foundry bills Claude" in text
    by_key = [line for line in text.splitlines() if "records  hit" in line]
    assert by_key and all("$" not in line for line in by_key)  # no per-token group cost


def test_the_html_page_says_it_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _log(tmp_path, [_record(t) for t in range(3)])
    page = tmp_path / "report.html"
    assert main(["report", str(log), "--html", str(page), "--billing", "provisioned"]) == 0
    html = page.read_text()
    assert 'id="cost">not priced per token (provisioned)</b>' in html
    assert 'id="list-price">$' in html
    assert "3 records: location not given: priced at Vertex AI&#x27;s global rate" in html
    capsys.readouterr()


def test_foundry_figures_are_said_to_be_list_prices_unless_billing_is_declared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [_record(t) for t in range(3)]
    for record in records:
        record["vendor"] = "foundry"
        record["request"]["model"] = "claude-opus-4-5"
        del record["request"]["anthropic_version"]
    log = _log(tmp_path, records)
    listed = _notes(_json(capsys, str(log)))
    assert [n for n, c in listed.items() if "Claude Consumption Units" in n and c == 3]
    ccu = _notes(_json(capsys, str(log), "--billing", "ccu"))
    assert list(ccu) == [next(n for n in ccu if n.startswith("not priced per token (CCU)"))]


def test_a_billing_name_not_known_is_refused() -> None:
    with pytest.raises(InputError, match=r"'ptu'.*provisioned"):
        build_report([], billing="ptu")


def test_records_left_unpriced_say_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    arn = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"
    records = []
    for turn in range(2):
        record = _record(turn)
        record["vendor"] = "bedrock-invoke"
        record["request"]["model"] = arn
        record["request"]["anthropic_version"] = "bedrock-2023-05-31"
        records.append(record)
    records.append({**_record(2), "vendor": "anthropic"})
    records[-1]["request"] = {**records[-1]["request"], "model": "claude-nonexistent-9"}
    del records[-1]["request"]["anthropic_version"]
    data = _json(capsys, str(_log(tmp_path, records)))
    assert data["cost"]["unpriced_records"] == 3
    notes = _notes(data)
    assert [c for n, c in notes.items() if "names no model" in n and "--base-model" in n] == [2]
    assert [c for n, c in notes.items() if "no price row for anthropic" in n] == [1]


def test_a_records_vertex_endpoint_names_its_location(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a gateway's log names the endpoint, not the location: the location is read from it
    regional = "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/"
    records = [{**_record(t), "endpoint": regional} for t in range(2)]
    records.append({**_record(2), "endpoint": "aiplatform.googleapis.com"})
    notes = _notes(_json(capsys, str(_log(tmp_path, records)), "--location", "eu"))
    assert [c for n, c in notes.items() if "regional rate (us-east5)" in n] == [2]
    assert notes["priced at Vertex AI's global rate (location global)"] == 1
