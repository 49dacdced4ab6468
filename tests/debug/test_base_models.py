"""
One mapping from a model id that names no model (a Bedrock application inference profile ARN)
to the model it serves, read by the monitor (`Monitor(base_models=...)`), `diff`
(`base_models=`, `--base-model`), `inspect` and `cost` (`--base-model`): the minimum, the 1-hour
option and the price are then the served model's. An ARN left out stays unknown, said.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from promptcache import InputError, Monitor
from promptcache.cli import main
from promptcache.debug.diff import diff

ARN = "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3d4e5f6"
HAIKU = "anthropic.claude-haiku-4-5-20251001-v1:0"  # 4,096-token minimum on Bedrock
SONNET = "anthropic.claude-sonnet-4-5-20250929-v1:0"  # 1,024
OLD = "anthropic.claude-3-7-sonnet-20250219-v1:0"  # no 1-hour cache on Bedrock
POLICY = "Refund policy for orders shipped abroad, with the usual exceptions. " * 110  # ~2,000


def _request(question: str, ttl: str | None = None) -> dict[str, Any]:
    point: dict[str, Any] = {"type": "default", **({"ttl": ttl} if ttl else {})}
    return {
        "modelId": ARN,
        "system": [{"text": POLICY}, {"cachePoint": point}],
        "messages": [{"role": "user", "content": [{"text": question}]}],
    }


def _nothing_cached() -> dict[str, Any]:
    return {
        "usage": {
            "inputTokens": 2000,
            "outputTokens": 5,
            "cacheReadInputTokens": 0,
            "cacheWriteInputTokens": 0,
        }
    }


def _causes(monitor: Monitor) -> list[str]:
    events = [monitor.observe(_request(q), _nothing_cached(), key="s1") for q in ("a?", "b?", "c?")]
    return [e.cause for e in events if e is not None]


def test_the_monitor_judges_a_mapped_arn_by_the_minimum_of_the_model_it_serves(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="promptcache")
    # ~2,000 tokens: under Haiku 4.5's 4,096, over Sonnet 4.5's 1,024
    haiku = Monitor("bedrock-converse", base_models={ARN: HAIKU})
    assert _causes(haiku) == ["below_minimum"]
    sonnet = Monitor(base_models={ARN: SONNET})  # detected formats read the mapping too
    assert _causes(sonnet) == ["not_cached"]
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "names no model" not in said
    assert "4096-token minimum" in said and HAIKU in said
    assert "123456789012" not in said  # the account is not logged


def test_an_arn_left_out_of_the_mapping_stays_unknown(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="promptcache")
    other = ARN.replace("a1b2c3d4e5f6", "ffffffffffff")
    assert _causes(Monitor("bedrock-converse", base_models={other: HAIKU})) == []
    said = [r.getMessage() for r in caplog.records if "names no model" in r.getMessage()]
    assert len(said) == 1 and "base_models=" in said[0]


def test_a_mapped_arn_and_its_base_id_are_two_names_of_one_model() -> None:
    usage = {"inputTokens": 5, "outputTokens": 5, "cacheReadInputTokens": 0}
    wrote = {"usage": {**usage, "cacheWriteInputTokens": 2000}}
    second = {**_request("b?"), "modelId": SONNET}
    details = []
    for monitor in (Monitor("bedrock-converse"), Monitor(base_models={ARN: SONNET})):
        monitor.observe(_request("a?"), wrote)
        event = monitor.observe(second, wrote)
        assert event is not None and event.cause == "model_changed"
        details.append(event.detail)
    assert "two names of one model" not in details[0]
    assert "possibly model_changed" in details[1] and "two names of one model" in details[1]


def test_a_bad_mapping_is_refused_naming_the_pair() -> None:
    with pytest.raises(InputError, match="not a pair of names"):
        Monitor(base_models={ARN: ""})
    with pytest.raises(InputError, match="must be a mapping"):
        Monitor(base_models=[ARN])  # type: ignore[arg-type]


def _edited() -> dict[str, Any]:
    """The request with its system prompt changed: what `a` cached is lost, if it was cached."""
    b = _request("a?")
    b["system"] = [{"text": POLICY + "Updated."}, *b["system"][1:]]
    return b


def test_diff_takes_the_mapping_for_the_minimum() -> None:
    a, b = _request("a?"), _edited()
    unmapped = diff(a, b)
    assert "minimum cacheable prefix is unknown" in unmapped.detail
    assert "base_models=" in unmapped.detail
    assert diff(a, b, base_models={ARN: HAIKU}).cause == "below_minimum"
    assert diff(a, b, base_models={ARN: SONNET}).cause != "below_minimum"


def _file(tmp_path: Path, name: str, data: dict[str, Any]) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_diff_command_takes_base_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = _file(tmp_path, "a.json", _request("a?")), _file(tmp_path, "b.json", _edited())
    assert main(["diff", a, b, "--base-model", HAIKU]) == 1
    assert "under the model's minimum" in capsys.readouterr().out
    main(["diff", a, b])
    assert "minimum cacheable prefix is unknown" in capsys.readouterr().out


def test_inspect_plans_and_checks_ttls_for_the_model_served(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = _file(tmp_path, "r.json", _request("a?", ttl="1h"))
    assert main(["inspect", file, "--bar", "never"]) == 0
    out = capsys.readouterr().out
    assert "minimum cacheable prefix is unknown" in out and "--base-model" in out
    assert main(["inspect", file, "--bar", "never", "--base-model", OLD]) == 1
    out = capsys.readouterr().out
    assert f"(serves {OLD})" in out
    assert "1h cachePoint on a model Bedrock offers only 5 minutes for" in out
    assert "end of the shared prefix" in out
    assert main(["inspect", file, "--bar", "never", "--base-model", HAIKU]) == 0
    assert "below" in capsys.readouterr().out  # Haiku's 4,096 minimum: nothing planned


def test_cost_prices_a_mapped_arn_as_the_model_it_serves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    usage = {"usage": {"inputTokens": 10, "outputTokens": 5, "cacheReadInputTokens": 2000}}
    file = _file(tmp_path, "u.json", {"usage": {**usage["usage"], "cacheWriteInputTokens": 0}})
    assert main(["cost", file, "--vendor", "bedrock", "--model", ARN]) == 2
    assert "price is unknown; pass --base-model" in capsys.readouterr().err
    assert main(["cost", file, "--vendor", "bedrock", "--model", ARN, "--base-model", SONNET]) == 0
    mapped = capsys.readouterr().out
    main(["cost", file, "--vendor", "bedrock", "--model", SONNET])
    direct = capsys.readouterr().out
    assert f"priced as {SONNET}" in mapped
    figure = direct.split("USD ")[1].split(" vs")[0]
    assert f"USD {figure} vs" in mapped  # the served model's price


def _log(tmp_path: Path, *questions: str) -> Path:
    usage = {"inputTokens": 10, "outputTokens": 5, "cacheWriteInputTokens": 2000}
    lines = [
        json.dumps(
            {
                "key": "s1",
                "at": 1764583200 + 60 * i,
                "request": _request(q),
                "response": {"usage": usage},
            }
        )
        for i, q in enumerate(questions)
    ]
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_report_prices_a_mapped_arn_as_the_model_it_serves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _log(tmp_path, "a?", "b?")
    assert main(["report", "--format", "json", str(log)]) == 0
    unmapped = json.loads(capsys.readouterr().out)["cost"]
    assert unmapped["actual"] is None and unmapped["unpriced_records"] == 2  # unknown, not guessed
    assert main(["report", "--format", "json", "--base-model", f"{ARN}={SONNET}", str(log)]) == 0
    mapped = json.loads(capsys.readouterr().out)["cost"]
    assert mapped["unpriced_records"] == 0 and mapped["actual"] > 0
    # priced as the served model: the same log with the base id itself costs the same
    base = log.read_text().replace(ARN, SONNET)
    (tmp_path / "base.jsonl").write_text(base)
    assert main(["report", "--format", "json", str(tmp_path / "base.jsonl")]) == 0
    assert json.loads(capsys.readouterr().out)["cost"]["actual"] == mapped["actual"]


def test_report_base_model_option_is_id_equals_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _log(tmp_path, "a?")
    assert main(["report", "--base-model", SONNET, str(log)]) == 2
    err = capsys.readouterr().err
    assert "expected ID=MODEL" in err and "Traceback" not in err
