"""
OpenAI Responses tool search with namespaces (issue #23): "For namespaces, defer_loading applies
to the functions inside the namespace, not to the namespace object itself", and "for a namespace
or MCP server, the model sees only the namespace or server name and description at first"
(OpenAI's tool search guide). A namespace's deferred functions leave the prefix whole; its name,
description and loaded functions stay. Read alike by diff, the monitor, inspect and the emulator.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from promptcache import Monitor, diff
from promptcache.cli import main
from promptcache.sim import ManualClock, OpenAIEmulator
from promptcache.vendors import get_vendor

from . import pairs

_ORDERS = {
    "type": "function",
    "name": "list_open_orders",
    "description": "List open orders for a customer ID.",
    "defer_loading": True,
    "parameters": {
        "type": "object",
        "properties": {"customer_id": {"type": "string"}},
        "required": ["customer_id"],
        "additionalProperties": False,
    },
}
_REFUND = {
    "type": "function",
    "name": "refund_order",
    "description": "Refund an order by its ID.",
    "defer_loading": True,
    "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
}
_LOOKUP = {  # loaded: callable at once, so its whole definition is in the prefix
    "type": "function",
    "name": "lookup_customer",
    "description": "Find a customer by e-mail.",
    "parameters": {"type": "object", "properties": {"email": {"type": "string"}}},
}


def _request(members: list[dict[str, Any]], **namespace: Any) -> dict[str, Any]:
    request = pairs.openai_responses()
    request["instructions"] = pairs.GUIDE * 2  # over the 1,024-token implicit minimum
    crm = {
        "type": "namespace",
        "name": "crm",
        "description": "CRM tools for customer lookup and order management.",
        "tools": copy.deepcopy(members),
        **namespace,
    }
    request["tools"][1:1] = [crm, {"type": "tool_search"}]
    return request


def _wider(tool: dict[str, Any]) -> dict[str, Any]:
    wider = copy.deepcopy(tool)
    wider["parameters"]["properties"]["status"] = {"type": "string"}
    return wider


def _diff(a: dict[str, Any], b: dict[str, Any]) -> Any:
    return diff(a, b, "openai-responses")


def test_a_deferred_functions_parameters_in_a_namespace_are_not_in_the_prefix() -> None:
    result = _diff(_request([_LOOKUP, _ORDERS]), _request([_LOOKUP, _wider(_ORDERS)]))
    assert not result.invalidated and result.cause == "none"


def test_a_deferred_functions_description_in_a_namespace_is_not_in_the_prefix() -> None:
    # unlike a top-level deferred function, whose name and description the model sees
    other = dict(_ORDERS, description="List the open and held orders of a customer ID.")
    result = _diff(_request([_LOOKUP, _ORDERS]), _request([_LOOKUP, other]))
    assert not result.invalidated


def test_adding_deferred_functions_to_a_namespace_is_no_tools_change() -> None:
    result = _diff(_request([_LOOKUP, _ORDERS]), _request([_LOOKUP, _ORDERS, _REFUND]))
    assert not result.invalidated


def test_the_namespaces_own_description_is_in_the_prefix() -> None:
    other = _request([_ORDERS], description="CRM tools: customers, orders and refunds.")
    result = _diff(_request([_ORDERS]), other)
    assert result.invalidated and result.cause == "tools_changed"
    assert result.path is not None and result.path.startswith("tools[1]")


def test_a_loaded_function_in_a_namespace_is_in_the_prefix() -> None:
    result = _diff(_request([_LOOKUP, _ORDERS]), _request([_wider_lookup(), _ORDERS]))
    assert result.invalidated and result.cause == "tools_changed"


def _wider_lookup() -> dict[str, Any]:
    wider = copy.deepcopy(_LOOKUP)
    wider["parameters"]["properties"]["phone"] = {"type": "string"}
    return wider


def test_loading_a_namespaced_function_puts_it_in_the_prefix() -> None:
    loaded = dict(_ORDERS, defer_loading=False)
    result = _diff(_request([_LOOKUP, _ORDERS]), _request([_LOOKUP, loaded]))
    assert result.invalidated and result.cause == "tools_changed"


def test_the_rule_is_the_vendors_data() -> None:
    rules = get_vendor("openai-responses").rules
    assert rules.tool_groups == {"namespace": "tools"}
    assert rules.to_json()["tool_groups"] == {"namespace": "tools"}
    assert get_vendor("anthropic").rules.tool_groups == {}


def test_the_monitor_sees_no_change_when_a_namespaces_deferred_functions_change() -> None:
    events: list[Any] = []
    monitor = Monitor("openai-responses", on_invalidation=events.append, metrics=False)
    usage = {"input_tokens": 3_400, "output_tokens": 20, "total_tokens": 3_420}
    first = {"model": "gpt-5.4", "usage": dict(usage, input_tokens_details={"cached_tokens": 0})}
    # the vendor read less than the whole previous prompt: the monitor asks the diff why
    short = {
        "model": "gpt-5.4",
        "usage": dict(usage, input_tokens_details={"cached_tokens": 1_024}),
    }
    monitor.observe(_request([_LOOKUP, _ORDERS]), first, at=1_000.0, key="s")
    monitor.observe(_request([_LOOKUP, _wider(_ORDERS), _REFUND]), short, at=1_005.0, key="s")
    assert [e.cause for e in events] == ["none"]  # no tools change named: the server's miss
    assert events[0].server_side


def test_the_emulator_keeps_the_cache_when_a_namespaces_deferred_functions_change() -> None:
    clock = ManualClock(1_000.0)
    emulator = OpenAIEmulator(clock=clock)
    reads = []
    for members in ([_LOOKUP, _ORDERS], [_LOOKUP, _ORDERS], [_LOOKUP, _wider(_ORDERS), _REFUND]):
        status, answer = emulator.handle("POST", "/v1/responses", _request(members))
        assert status == 200, answer
        reads.append(answer["usage"]["input_tokens_details"]["cached_tokens"])
        clock.now += 5.0
    assert reads[0] == 0 and reads[2] == reads[1] > 1000


def _inspect(tmp_path: Path, request: dict[str, Any], capsys: Any) -> dict[str, Any]:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    assert main(["inspect", str(path), "--format", "json"]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def test_inspect_counts_the_namespace_without_its_deferred_functions(
    tmp_path: Path, capsys: Any
) -> None:
    bare = _inspect(tmp_path, _request([]), capsys)
    deferred = _inspect(tmp_path, _request([_ORDERS, _REFUND]), capsys)
    loaded = _inspect(tmp_path, _request([_LOOKUP, _ORDERS]), capsys)
    no_namespace = pairs.openai_responses()
    no_namespace["instructions"] = pairs.GUIDE * 2
    without = _inspect(tmp_path, no_namespace, capsys)
    tokens = [r["tokens"]["tools"] for r in (without, bare, deferred, loaded)]
    # the namespace's name and description are counted; its deferred functions are not; a
    # loaded one is
    assert tokens[0] < tokens[1] == tokens[2] < tokens[3]
    assert "crm" in [b["summary"] for b in deferred["blocks"] if b["layer"] == "tools"]
