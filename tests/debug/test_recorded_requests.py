"""
Requests as recorded traffic shows them (issue #23), which the vendor accepted: Anthropic
`system` messages inside `messages`, a `container_upload` block, server tools' blocks, a Gemini
body that names its model only in the call, a Gemini request reading an explicit cache.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from promptcache import InputError, Monitor, diff
from promptcache.cli import main

from . import pairs


def _with_system_messages() -> dict[str, Any]:
    request = pairs.anthropic()
    # A harness injects reminders as system messages between the turns; the API took it and
    # wrote, then read, the prefix.
    request["messages"].insert(
        3, {"role": "system", "content": "Reminder: never paste internal ticket notes."}
    )
    return request


def _inspect(tmp_path: Path, request: dict[str, Any], capsys: Any, *extra: str) -> Any:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    code = main(["inspect", str(path), "--format", "json", *extra])
    return code, json.loads(capsys.readouterr().out or "null")


def test_system_messages_inside_messages_are_read_everywhere(tmp_path: Path, capsys: Any) -> None:
    a = _with_system_messages()
    b = pairs.next_turn(a, 1)
    assert diff(a, b, "anthropic").cause == "none"
    assert diff(a, b).vendor == "anthropic"  # detected, not refused
    events: list[Any] = []
    monitor = Monitor(on_invalidation=events.append, metrics=False)
    usage = {"input_tokens": 20, "output_tokens": 9, "cache_creation_input_tokens": 1590}
    monitor.observe(a, {"type": "message", "usage": usage}, at=1_000.0)
    code, report = _inspect(tmp_path, a, capsys)
    assert code == 0 and report["vendor"] == "anthropic"
    assert report["tokens"]["history"] > 0


def test_a_system_message_in_an_openai_shaped_body_is_not_anthropic() -> None:
    body = {
        "model": "gpt-5.4",
        "max_tokens": 100,
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
    }
    assert diff(body, body).vendor == "openai"
    with pytest.raises(InputError, match="role 'system'"):
        diff(body, body, "anthropic")


def test_inspect_reads_a_container_upload_and_server_tool_blocks(
    tmp_path: Path, capsys: Any
) -> None:
    request = pairs.anthropic(
        tools=[
            *copy.deepcopy(pairs.TOOLS),
            {"type": "code_execution_20250825", "name": "code_execution"},
        ]
    )
    request["messages"][-1]["content"].insert(
        0, {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}
    )
    request["messages"].insert(
        -1,
        {
            "role": "assistant",
            "content": [
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_01",
                    "name": "code_execution",
                    "input": {"code": "import pandas as pd; print(pd.read_csv('data.csv').shape)"},
                },
                {
                    "type": "code_execution_tool_result",
                    "tool_use_id": "srvtoolu_01",
                    "content": {
                        "type": "code_execution_result",
                        "stdout": "(120, 4)\n",
                        "stderr": "",
                        "return_code": 0,
                    },
                },
            ],
        },
    )
    code, report = _inspect(tmp_path, request, capsys)
    assert code == 0
    assert report["tokens"]["tail"] > 10  # the upload is counted with the question it came with


def _gemini_response(prompt: int, cached: int) -> dict[str, Any]:
    return {
        "model_version": "gemini-2.5-flash",
        "usage_metadata": {"prompt_token_count": prompt, "cached_content_token_count": cached},
    }


def test_a_gemini_body_without_a_model_is_keyed_by_the_responses_model() -> None:
    events: list[Any] = []
    monitor = Monitor("gemini", on_invalidation=events.append, metrics=False)
    first = {k: v for k, v in pairs.gemini().items() if k != "model"}
    second = copy.deepcopy(first)
    second["config"]["system_instruction"] = pairs.with_header("Now: 2026-11-29T20:41:07Z")
    monitor.observe(first, _gemini_response(2400, 2100), at=1_000.0)
    monitor.observe(second, _gemini_response(2420, 0), at=1_010.0)
    assert [e.key for e in events] == ["gemini:gemini-2.5-flash"]
    assert monitor.key_of(first) == "gemini:unknown-model"


def test_inspect_honours_a_gemini_cached_content(tmp_path: Path, capsys: Any) -> None:
    request = pairs.gemini()
    request["config"] = {"cached_content": "cachedContents/7k2pq9runbook"}
    code, report = _inspect(tmp_path, request, capsys)
    assert code == 0 and report["cached_content"] == "cachedContents/7k2pq9runbook"
    path = tmp_path / "request.json"
    assert main(["inspect", str(path)]) == 0
    assert "explicit cache: cachedContents/7k2pq9runbook" in capsys.readouterr().out


# -- equivalent forms -------------------------------------------------------------------------


def test_a_text_block_list_turned_into_the_same_string_is_no_change() -> None:
    a = pairs.anthropic()
    b = copy.deepcopy(a)
    b["system"] = a["system"][0]["text"]  # a framework flattened the blocks (the marker went)
    b["messages"][0]["content"] = [{"type": "text", "text": a["messages"][0]["content"]}]
    b["messages"][3]["content"] = [{"type": "text", "text": a["messages"][3]["content"]}]
    result = diff(a, b, "anthropic")
    assert not result.invalidated and result.cause == "none"
    assert diff(b, a, "anthropic").cause == "none"


def test_a_block_with_more_than_text_is_not_the_string() -> None:
    a = pairs.anthropic()
    b = copy.deepcopy(a)
    b["messages"][0]["content"] = [
        {
            "type": "text",
            "text": a["messages"][0]["content"],
            "citations": [{"type": "char_location"}],
        }
    ]
    assert diff(a, b, "anthropic").cause == "content_changed"


# -- what the estimate cannot count -----------------------------------------------------------


def test_inspect_names_what_the_vendor_adds_to_an_anthropic_request(
    tmp_path: Path, capsys: Any
) -> None:
    request = pairs.anthropic(
        tools=[*copy.deepcopy(pairs.TOOLS), {"type": "web_search_20250305", "name": "web_search"}]
    )
    code, report = _inspect(tmp_path, request, capsys, "--model", "claude-sonnet-4-6")
    assert code == 0
    # the tool-use system prompt has a documented size for the model (counted); the server
    # tool's definition has none (named)
    assert any("tool-use system prompt" in what for what in report["vendor_added"])
    assert any("web_search_20250305" in what for what in report["unestimated"])
    assert any("leave out what the vendor adds" in n for n in report["breakpoints"]["notes"])


def test_inspect_says_a_responses_follow_up_continues_stored_context(
    tmp_path: Path, capsys: Any
) -> None:
    follow_up = {
        "model": "gpt-5.4",
        "previous_response_id": "resp_68f1c0a2b7e48193",
        "tools": [{"type": "web_search"}],
        "input": [{"role": "user", "content": "And the week before?"}],
    }
    code, report = _inspect(tmp_path, follow_up, capsys)
    assert code == 0
    assert any("previous_response_id" in what for what in report["unestimated"])
    assert any("web_search" in what for what in report["unestimated"])
    path = tmp_path / "request.json"
    assert main(["inspect", str(path)]) == 0
    assert "not counted: the stored context previous_response_id" in capsys.readouterr().out


def test_a_plain_request_has_nothing_uncounted(tmp_path: Path, capsys: Any) -> None:
    request = pairs.anthropic(tools=[])
    del request["tools"]
    code, report = _inspect(tmp_path, request, capsys)
    assert code == 0 and report["unestimated"] == []


def test_report_reads_system_messages_inside_messages(tmp_path: Path, capsys: Any) -> None:
    first = _with_system_messages()
    second = pairs.next_turn(first, 1)
    log = tmp_path / "log.jsonl"
    records = [
        {
            "at": 1_000.0,
            "request": first,
            "response": {
                "type": "message",
                "model": first["model"],
                "usage": {
                    "input_tokens": 20,
                    "output_tokens": 9,
                    "cache_creation_input_tokens": 1590,
                    "cache_read_input_tokens": 0,
                },
            },
        },
        {
            "at": 1_020.0,
            "request": second,
            "response": {
                "type": "message",
                "model": first["model"],
                "usage": {
                    "input_tokens": 30,
                    "output_tokens": 9,
                    "cache_creation_input_tokens": 40,
                    "cache_read_input_tokens": 1590,
                },
            },
        },
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["report", str(log), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["records"] == 2 and data["skipped"]["lines"] == 0
