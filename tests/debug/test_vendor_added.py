"""
inspect counts what the vendor adds where the vendor documents its size for the model (the
tool-use system prompt of the Claude 3 models), and keeps naming what it cannot count.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from promptcache.cli import main
from promptcache.vendors.anthropic import TOOL_PROMPT, added_tokens

from . import pairs

_GUIDE = (
    "You are a support agent for Acme Cloud. Follow the escalation policy, cite the runbook "
    "section you rely on, and never reveal internal ticket notes. "
)


def _inspect(tmp_path: Path, request: dict[str, Any], capsys: Any) -> Any:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    assert main(["inspect", str(path), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _haiku_3(**extra: Any) -> dict[str, Any]:
    question = [{"role": "user", "content": "Why do I get 502s after deploy?"}]
    return pairs.anthropic(
        system=_GUIDE * 20, messages=question, **{"model": "claude-3-haiku-20240307", **extra}
    )


def test_a_documented_tool_prompt_is_counted_and_lifts_the_prefix_over_the_minimum(
    tmp_path: Path, capsys: Any
) -> None:
    report = _inspect(tmp_path, _haiku_3(), capsys)
    own = report["tokens"]["cacheable_prefix"]
    assert own < 1024 <= own + 264  # the request's own text alone is under the minimum
    assert report["vendor_added"] == {TOOL_PROMPT: 264}
    assert report["tokens"]["vendor_added"] == 264
    assert TOOL_PROMPT not in report["unestimated"]
    # with the vendor's 264 tokens the prefix reaches the minimum: the breakpoint is planned
    assert any(bp["path"] == "system[0]" for bp in report["breakpoints"]["planned"])
    assert not any("below" in note and "system" in note for note in report["breakpoints"]["notes"])
    assert "264 the vendor adds" in report["breakpoints"]["notes"][0]


def test_the_tool_prompt_size_follows_tool_choice_and_model() -> None:
    tools = {"tools": pairs.TOOLS}
    assert added_tokens({**tools, "tool_choice": {"type": "any"}}, "claude-3-haiku-20240307") == {
        TOOL_PROMPT: 340
    }
    assert added_tokens(tools, "anthropic.claude-3-opus-20240229-v1:0") == {TOOL_PROMPT: 530}
    assert added_tokens(tools, "claude-3-sonnet@20240229") == {TOOL_PROMPT: 159}
    # not documented: a newer model, a Claude 3.5 model, `tool_choice: none`, no tools
    assert added_tokens(tools, "claude-sonnet-4-6") == {}
    assert added_tokens(tools, "claude-3-5-haiku-20241022") == {}
    assert added_tokens({**tools, "tool_choice": {"type": "none"}}, "claude-3-haiku-20240307") == {}
    assert added_tokens({}, "claude-3-haiku-20240307") == {}


def test_an_undocumented_model_keeps_the_tool_prompt_named(tmp_path: Path, capsys: Any) -> None:
    report = _inspect(tmp_path, _haiku_3(model="claude-sonnet-4-6"), capsys)
    assert report["vendor_added"] == {} and report["tokens"]["vendor_added"] == 0
    assert TOOL_PROMPT in report["unestimated"]
    path = tmp_path / "request.json"
    assert main(["inspect", str(path)]) == 0
    assert "not counted: the tool-use system prompt" in capsys.readouterr().out
