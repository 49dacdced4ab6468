"""
Amazon Nova on Bedrock caches the system prompt and messages, not tools (AWS's prompt-caching
tables, vendors-cloud.md: "Nova: no tools caching"). The builder wrote a `cachePoint` into
`toolConfig.tools` for Nova as for Claude, and `inspect` passed such a request by; now the
planner keeps Nova's tools unmarked (the system's cache point covers them) and `inspect` and
the builder say what a tools cache point on Nova is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptcache import InputError, Prompt, get_adapter
from promptcache.cli import main
from promptcache.vendors.bedrock_converse import cache_point_problems, caches_tools

NOVA = "us.amazon.nova-pro-v1:0"
CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
TOOL = {
    "name": "lookup",
    "description": "Look up an order by its id. " * 400,
    "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}},
}


def _prompt() -> Prompt:
    return Prompt().add_tools(TOOL).add_system("Shipwell policy. " * 1500).with_tail("q")


def _points(section: list[dict[str, Any]]) -> int:
    return sum("cachePoint" in block for block in section)


def test_nova_gets_no_tools_cache_point_and_claude_still_does() -> None:
    adapter = get_adapter("bedrock-converse")
    nova = adapter.to_request(_prompt(), model=NOVA)
    claude = adapter.to_request(_prompt(), model=CLAUDE)
    assert _points(nova["toolConfig"]["tools"]) == 0 and _points(nova["system"]) == 1
    assert _points(claude["toolConfig"]["tools"]) == 1


def test_which_models_cache_tools() -> None:
    assert caches_tools("amazon.nova-lite-v1:0") is False
    assert caches_tools(NOVA) is False
    assert caches_tools(CLAUDE) is True
    assert caches_tools("meta.llama4-maverick-17b-instruct-v1:0") is None


def _marked_tools(model: str) -> dict[str, Any]:
    return {
        "modelId": model,
        "toolConfig": {
            "tools": [
                {"toolSpec": {"name": "t", "inputSchema": {"json": {"type": "object"}}}},
                {"cachePoint": {"type": "default"}},
            ]
        },
        "system": [{"text": "Policy. " * 1500}, {"cachePoint": {"type": "default"}}],
        "messages": [{"role": "user", "content": [{"text": "q"}]}],
    }


def test_a_tools_cache_point_on_nova_is_a_problem_naming_the_fix() -> None:
    [problem] = cache_point_problems(_marked_tools(NOVA), tools=False)
    assert problem.startswith("toolConfig.tools[1]:") and "Nova" in problem
    assert "Fix:" in problem and "system" in problem
    assert cache_point_problems(_marked_tools(CLAUDE), tools=True) == []


def test_inspect_says_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nova.json"
    path.write_text(json.dumps(_marked_tools(NOVA)))
    assert main(["inspect", str(path)]) == 1
    assert "toolConfig.tools[1]" in capsys.readouterr().out
    path.write_text(json.dumps(_marked_tools(CLAUDE)))
    assert main(["inspect", str(path)]) == 0


def test_a_plan_that_marks_novas_tools_is_refused() -> None:
    from promptcache import plan

    claude_plan = plan(
        _prompt(), vendor="bedrock-converse", model="anthropic.claude-sonnet-4-5-20250929-v1:0"
    )
    assert any(b.path.startswith("tools") for b in claude_plan.breakpoints)
    with pytest.raises(InputError, match=r"toolConfig\.tools.*Nova"):
        get_adapter("bedrock-converse").to_request(_prompt(), model=NOVA, plan=claude_plan)


def test_the_emulator_caches_nothing_at_a_nova_tools_point() -> None:
    from promptcache.sim import BedrockEmulator, ManualClock

    client = BedrockEmulator(clock=ManualClock()).client()
    only_tools = _marked_tools(NOVA)
    only_tools["system"] = [{"text": "Short."}]
    nova = client.converse(**only_tools)["usage"]
    assert nova["cacheWriteInputTokens"] == 0  # Nova: the tools point caches nothing
    claude = {**only_tools, "modelId": CLAUDE}
    claude["toolConfig"] = {
        "tools": [
            {
                "toolSpec": {
                    "name": "t",
                    "description": "Look it up. " * 600,
                    "inputSchema": {"json": {"type": "object"}},
                }
            },
            {"cachePoint": {"type": "default"}},
        ]
    }
    assert client.converse(**claude)["usage"]["cacheWriteInputTokens"] > 1024
    nova_long = {**claude, "modelId": NOVA}
    assert client.converse(**nova_long)["usage"]["cacheWriteInputTokens"] == 0
