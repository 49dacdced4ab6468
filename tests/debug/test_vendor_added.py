"""
inspect counts what the vendor adds where the vendor documents its size for the model (the
tool-use system prompt of the models in Anthropic's table), and keeps naming what it cannot count.
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
    # `none` costs what `auto` does while tools are given; nothing without tools
    none = {**tools, "tool_choice": {"type": "none"}}
    assert added_tokens(none, "claude-3-haiku-20240307") == {TOOL_PROMPT: 264}
    assert added_tokens({}, "claude-3-haiku-20240307") == {}
    # not documented: a model the vendor's table does not list
    assert added_tokens(tools, "claude-opus-4-8") == {}


def test_an_undocumented_model_keeps_the_tool_prompt_named(tmp_path: Path, capsys: Any) -> None:
    report = _inspect(tmp_path, _haiku_3(model="claude-opus-4-8"), capsys)
    assert report["vendor_added"] == {} and report["tokens"]["vendor_added"] == 0
    assert TOOL_PROMPT in report["unestimated"]
    path = tmp_path / "request.json"
    assert main(["inspect", str(path)]) == 0
    assert "not counted: the tool-use system prompt" in capsys.readouterr().out


# -- the Claude 4 models: Anthropic's tool-use overview page, "Pricing" ---------------------------

CLAUDE_4 = [
    "claude-opus-4-7",
    "claude-opus-4-6",
    "claude-opus-4-5-20251101",
    "claude-opus-4-1-20250805",
    "claude-opus-4-20250514",
    "claude-sonnet-4-6",
    "claude-sonnet-4-5-20250929",
    "claude-sonnet-4-20250514",
    "claude-3-7-sonnet-20250219",
    "claude-haiku-4-5-20251001",
    # the same models as Bedrock and Vertex AI name them
    "anthropic.claude-sonnet-4-5-20250929-v1:0",
    "us.anthropic.claude-opus-4-1-20250805-v1:0",
    "claude-opus-4-1@20250805",
]


def test_the_claude_4_tool_prompt_is_counted_for_every_listed_model() -> None:
    tools = {"tools": pairs.TOOLS}
    for model in CLAUDE_4:
        for choice, size in (("auto", 346), ("none", 346), ("any", 313), ("tool", 313)):
            request = {**tools, "tool_choice": {"type": choice}}
            assert added_tokens(request, model) == {TOOL_PROMPT: size}, (model, choice)
        assert added_tokens(tools, model) == {TOOL_PROMPT: 346}, model  # auto by default


def test_claude_3_5_haiku_has_its_own_size() -> None:
    tools = {"tools": pairs.TOOLS}
    assert added_tokens(tools, "claude-3-5-haiku-20241022") == {TOOL_PROMPT: 264}
    any_tool = {**tools, "tool_choice": {"type": "any"}}
    assert added_tokens(any_tool, "claude-3-5-haiku-latest") == {TOOL_PROMPT: 340}


def test_inspect_counts_the_claude_4_tool_prompt(tmp_path: Path, capsys: Any) -> None:
    report = _inspect(tmp_path, _haiku_3(model="claude-sonnet-4-6"), capsys)
    assert report["vendor_added"] == {TOOL_PROMPT: 346}
    assert report["tokens"]["vendor_added"] == 346
    assert TOOL_PROMPT not in report["unestimated"]
