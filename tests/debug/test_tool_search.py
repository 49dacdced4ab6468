"""
Anthropic tool search: tools with `defer_loading: true` are not rendered into the cached prefix
(the model meets them through `tool_reference` blocks in the conversation), so adding or removing
one is no tools change. One rule of the Anthropic vendor, read by diff, the monitor, inspect and
the emulator alike.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from promptcache import InputError, Monitor, diff
from promptcache.cli import main
from promptcache.sim import AnthropicEmulator, ManualClock
from promptcache.vendors import get_vendor

from . import pairs

SEARCH_TOOL = {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}


def _deferred(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"Manage {name.split('_')[-1]} records in the CRM (found by tool search).",
        "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}},
        "defer_loading": True,
    }


def _request(deferred: list[str], **kw: Any) -> dict[str, Any]:
    tools = [SEARCH_TOOL, *copy.deepcopy(pairs.TOOLS)]
    tools[1:1] = [_deferred(n) for n in deferred]  # deferred tools sit among the loaded ones
    return pairs.anthropic(tools=tools, **kw)


def test_deferred_tools_are_not_in_the_anthropic_prefix() -> None:
    vendor = get_vendor("anthropic")
    paths = [
        e.path
        for e in vendor.elements(_request(["crm_contacts", "crm_deals"]))
        if e.layer == "tools"
    ]
    # the loaded tools keep their indices in the request; the deferred ones are absent
    assert paths == ["tools[0]", "tools[3]", "tools[4]", "tools[5]"]


def test_adding_deferred_tools_is_no_tools_change() -> None:
    a, b = _request([]), _request(["crm_contacts", "crm_deals"])
    result = diff(a, b, "anthropic")
    assert not result.invalidated and result.cause == "none"


def test_a_real_change_after_deferred_tools_moved_is_found_where_it_is() -> None:
    a = _request(["crm_contacts"])
    b = _request(
        ["crm_deals", "crm_tickets"], system=pairs.with_header("Now: 2026-11-29T20:41:07Z")
    )
    result = diff(a, b, "anthropic")
    assert (result.cause, result.layer) == ("timestamp", "system")


def test_a_loaded_tool_added_is_still_a_tools_change() -> None:
    loaded = dict(_deferred("crm_notes"), defer_loading=False)
    a = _request(["crm_contacts"])
    b = copy.deepcopy(a)
    b["tools"].insert(2, loaded)
    assert diff(a, b, "anthropic").cause == "tools_changed"


def _emulator_usage(emulator: AnthropicEmulator, body: dict[str, Any]) -> dict[str, Any]:
    status, answer = emulator.handle("POST", "/v1/messages", {"max_tokens": 16, **body})
    assert status == 200, answer
    return dict(answer["usage"])


def test_the_emulator_and_the_monitor_keep_the_cache_when_deferred_tools_change() -> None:
    clock = ManualClock(1_000.0)
    emulator = AnthropicEmulator(clock=clock)
    events: list[Any] = []
    monitor = Monitor("anthropic", on_invalidation=events.append, metrics=False)
    first, second = _request([]), _request(["crm_contacts", "crm_deals", "crm_tickets"])
    used = _emulator_usage(emulator, first)
    monitor.observe(first, {"usage": used, "model": first["model"]}, at=1_000.0, key="s")
    clock.now = 1_020.0
    again = _emulator_usage(emulator, second)
    monitor.observe(second, {"usage": again, "model": second["model"]}, at=1_020.0, key="s")
    # the emulator reads what the first request wrote: deferred tools are not in the prefix
    assert again["cache_read_input_tokens"] == used["cache_creation_input_tokens"] > 1000
    assert again["input_tokens"] == used["input_tokens"]
    assert events == []


def test_inspect_leaves_deferred_tools_out_of_the_tools_layer(tmp_path: Path, capsys: Any) -> None:
    counts = []
    for deferred in ([], ["crm_contacts", "crm_deals", "crm_tickets"]):
        path = tmp_path / f"request-{len(deferred)}.json"
        path.write_text(json.dumps(_request(deferred)))
        assert main(["inspect", str(path), "--format", "json"]) == 0
        report = json.loads(capsys.readouterr().out)
        counts.append(report)
    assert _tools_tokens(counts[0]) == _tools_tokens(counts[1])


def _tools_tokens(report: dict[str, Any]) -> Any:
    return report["tokens"]["tools"]


# -- OpenAI Responses tool search ------------------------------------------------------------
# "For an individual deferred function, the model still sees the function name and description,
# so in practice tool search is mostly deferring the parameter schema" (OpenAI's tool search
# guide): unlike Anthropic's, a deferred function is in the prefix, its parameters are not.


def _responses(deferred_schema: dict[str, Any], **deferred: Any) -> dict[str, Any]:
    request = pairs.openai_responses()
    request["tools"][1:1] = [
        {"type": "tool_search"},
        {
            "type": "function",
            "name": "crm_contacts",
            "description": "Manage contact records in the CRM (found by tool search).",
            "parameters": deferred_schema,
            "defer_loading": True,
            **deferred,
        },
    ]
    return request


_SCHEMA = {"type": "object", "properties": {"id": {"type": "string"}}}
_WIDER = {"type": "object", "properties": {"id": {"type": "string"}, "tag": {"type": "string"}}}


def test_a_deferred_responses_functions_parameters_are_not_in_the_prefix() -> None:
    result = diff(_responses(_SCHEMA), _responses(_WIDER), "openai-responses")
    assert not result.invalidated and result.cause == "none"
    assert get_vendor("openai-responses").rules.unrendered_tool_flag == "defer_loading"


def test_a_deferred_responses_functions_description_is_in_the_prefix() -> None:
    other = _responses(_SCHEMA, description="Manage contact and lead records in the CRM.")
    result = diff(_responses(_SCHEMA), other, "openai-responses")
    assert result.invalidated and result.cause == "tools_changed"


def test_loading_a_responses_function_shows_its_parameters() -> None:
    result = diff(_responses(_SCHEMA), _responses(_SCHEMA, defer_loading=False), "openai-responses")
    assert result.invalidated and result.cause == "tools_changed"


def test_inspect_counts_a_deferred_responses_function_without_its_parameters(
    tmp_path: Path, capsys: Any
) -> None:
    counts = []
    for schema in (_SCHEMA, _WIDER):
        path = tmp_path / "request.json"
        path.write_text(json.dumps(_responses(schema)))
        assert main(["inspect", str(path), "--format", "json"]) == 0
        counts.append(_tools_tokens(json.loads(capsys.readouterr().out)))
    assert counts[0] == counts[1]


def test_the_openai_emulator_keeps_the_cache_when_a_deferred_schema_changes() -> None:
    from promptcache.sim import OpenAIEmulator

    clock = ManualClock(1_000.0)
    emulator = OpenAIEmulator(clock=clock)
    reads = []
    for schema in (_SCHEMA, _SCHEMA, _WIDER):
        body = _responses(schema)
        body["instructions"] = pairs.GUIDE * 2  # over the 1,024-token implicit minimum
        status, answer = emulator.handle("POST", "/v1/responses", body)
        assert status == 200, answer
        reads.append(answer["usage"]["input_tokens_details"]["cached_tokens"])
        clock.now += 5.0
    assert reads[0] == 0 and reads[2] == reads[1] > 1000


def test_a_marker_on_a_deferred_tool_is_refused_as_the_api_refuses_it(
    tmp_path: Path, capsys: Any
) -> None:
    from promptcache.adapters.anthropic import check_markers

    request = _request(["crm_contacts"])
    request["tools"][1]["cache_control"] = {"type": "ephemeral"}
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    assert main(["inspect", str(path), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert any(
        "tools[1]" in p and "defer_loading cannot use prompt caching" in p
        for p in report["markers"]["problems"]
    )
    with pytest.raises(InputError, match="last tool without defer_loading"):
        check_markers(request)


def test_diff_says_a_marker_on_a_deferred_tool_cached_nothing() -> None:
    a = _request(["crm_contacts"])
    a["tools"][1]["cache_control"] = {"type": "ephemeral"}
    b = _request(["crm_contacts", "crm_deals"])
    result = diff(a, b, "anthropic")
    assert not result.invalidated and result.cause == "not_cached"
    assert "tools[1]" in result.detail and "defer_loading" in result.detail
    plain = diff(_request(["crm_contacts"]), b, "anthropic")
    assert plain.cause == "none"  # the same requests without that marker
