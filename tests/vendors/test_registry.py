"""The vendor registry: one home per request format, every rule filled, names from one place."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import pkgutil
from pathlib import Path
from typing import Any

import pytest

import promptcache.vendors as vendors
from promptcache import InputError
from promptcache._commands._io import vendor_name
from promptcache._pricing import load_min_tokens, load_prices
from promptcache.adapters import ADAPTER_NAMES, get_adapter
from promptcache.cli import build_parser, main
from promptcache.debug.causes import CAUSES
from promptcache.vendors import (
    TTL_SECONDS,
    VENDOR_NAMES,
    VENDORS,
    CacheRules,
    Vendor,
    detect_vendor,
    get_vendor,
    resolve_vendor,
)

PACKAGE = Path(vendors.__file__).parent
LAYERS = {"tools", "system", "messages"}


def test_every_vendor_module_is_registered() -> None:
    import importlib

    modules = [m.name for m in pkgutil.iter_modules([str(PACKAGE)]) if not m.name.startswith("_")]
    records = [importlib.import_module(f"promptcache.vendors.{m}").VENDOR for m in modules]
    assert sorted(v.name for v in records) == sorted(VENDOR_NAMES)
    assert VENDOR_NAMES == ADAPTER_NAMES  # every format has its writer, and no writer is homeless


@pytest.mark.parametrize("vendor", VENDORS, ids=lambda v: v.name)
def test_every_vendor_fills_every_rule(vendor: Vendor) -> None:
    rules = vendor.rules
    described = rules.to_json()
    for field in dataclasses.fields(CacheRules):
        if field.name not in ("capabilities", "automatic_capabilities"):
            assert field.name in described, f"{field.name} is not described"
    assert rules.marking in ("explicit", "automatic")
    assert rules.capabilities.marking == rules.marking or rules.explicit_switch is not None
    assert rules.granularity_tokens > 0
    assert set(rules.render_order) == LAYERS and len(rules.render_order) == 3
    assert rules.min_tokens_key in load_min_tokens().vendors  # minimums from the shipped table
    assert set(rules.capabilities.ttls) <= set(TTL_SECONDS)
    assert all(s.cause in CAUSES for s in rules.invalidating)
    assert set(rules.miss_reasons.values()) <= set(CAUSES)
    assert rules.default_ttl_seconds is None or rules.default_ttl_seconds > 0
    assert vendor.call_paths and set(vendor.call_paths.values()) <= {
        "call",
        "iter",
        "chat-session",
        "anthropic-manager",
        "chat-manager",
        "responses-manager",
    }
    assert vendor.name not in vendor.aliases and vendor.title
    if rules.marking == "explicit":
        assert rules.capabilities.max_breakpoints > 0
    if rules.min_tokens_key != "engine":  # self-hosted engines have no price list
        assert rules.min_tokens_key in load_prices().vendors


def test_names_are_unique_and_case_insensitive() -> None:
    names = [n for v in VENDORS for n in (v.name, *v.aliases)]
    assert len(names) == len(set(names))
    for vendor in VENDORS:
        for name in (vendor.name, *vendor.aliases):
            assert get_vendor(name.upper()) is vendor
            assert get_vendor(f" {name.title()} ") is vendor


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("openai", "openai"),
        ("OpenAI-Responses", "openai-responses"),
        ("responses", "openai-responses"),
        ("Vertex", "vertex-gemini"),
        ("google", "gemini"),
        ("Azure", "azure-openai"),
        ("AnthropicVertex", "vertex-anthropic"),
        ("vllm", "engine"),
        ("SGLang", "engine"),
        ("llama.cpp", "engine"),
    ],
)
def test_the_aliases_the_issue_names(alias: str, name: str) -> None:
    assert get_vendor(alias).name == name
    assert get_adapter(alias).name == name


def test_unknown_names_list_every_name() -> None:
    with pytest.raises(InputError, match="anthropic, openai, openai-responses, gemini, engine"):
        get_vendor("bedrock-mantle-nowhere")


def _vendor_options() -> dict[str, argparse.Action]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found = {}
    for command, subparser in sub.choices.items():
        for action in subparser._actions:
            if "--vendor" in action.option_strings:
                found[command] = action
    return found


def test_every_commands_vendor_option_comes_from_the_registry() -> None:
    options = _vendor_options()
    assert set(options) >= {"diff", "inspect", "report", "cost"}
    for command, action in options.items():
        assert action.type is vendor_name, command
        assert action.choices is None, command  # no hand-written list to drift
        for vendor in VENDORS:
            for name in (vendor.name, *vendor.aliases):
                assert action.type(name.upper()) == vendor.name


# The readers of vendor rules: they hold no vendor table of their own. (Adapters write requests
# with their SDK's own details; `_wrap.py` is being reworked on its own branch.)
READERS = (
    "debug",
    "_commands",
    "_report.py",
    "_plan.py",
    "_ingest.py",
    "_pricing.py",
    "_monitor.py",
    "_diff.py",
)


def test_no_rule_reader_keeps_a_vendor_table() -> None:
    # The names live in the registry: a tuple, set or dict keyed by two or more of them elsewhere
    # is a second table that can drift (the old diff/inspect/report/cost --vendor lists did).
    root = PACKAGE.parent
    known = {n for v in VENDORS for n in (v.name, *v.aliases)}
    offenders = []
    paths = [p for name in READERS for p in sorted(root.glob(name)) for p in [p, *p.rglob("*.py")]]
    for path in {p for p in paths if p.suffix == ".py"}:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            elts = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
            if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)) and elts:
                names = {e.value for e in elts if isinstance(e, ast.Constant) and e.value in known}
                if len(names) >= 2:
                    offenders.append(f"{path.relative_to(root)}:{node.lineno} {names}")
    assert not offenders, offenders


def test_vendors_command_prints_every_vendor(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vendors"]) == 0
    out = capsys.readouterr().out
    for vendor in VENDORS:
        assert vendor.title in out and vendor.name in out
    assert "only at cache markers" in out and "every prefix" in out


def test_vendors_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vendors", "--format", "json"]) == 0
    listed: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    assert [v["name"] for v in listed] == list(VENDOR_NAMES)
    by_name = {v["name"]: v for v in listed}
    assert "vllm" in by_name["engine"]["aliases"]
    assert by_name["anthropic"]["rules"]["max_breakpoints"] == 4
    assert by_name["gemini"]["rules"]["min_tokens_default"] == 4096  # the shipped table's
    assert by_name["openai"]["rules"]["granularity_tokens"] == 128
    for described in listed:
        assert {"name", "aliases", "rules"} <= set(described)


# -- detection ------------------------------------------------------------------------------


def test_detection_needs_a_shape_that_says_which() -> None:
    bare = {"messages": [{"role": "user", "content": "hi"}]}
    with pytest.raises(InputError, match=r"could be Anthropic Messages .* or OpenAI Chat"):
        detect_vendor(bare)
    assert detect_vendor({**bare, "model": "claude-sonnet-4-6"}).name == "anthropic"
    assert detect_vendor({**bare, "model": "gpt-5.4"}).name == "openai"
    assert detect_vendor({**bare, "model": "Qwen/Qwen3-8B"}).name == "engine"
    assert detect_vendor({"input": "hi", "model": "gpt-5.4"}).name == "openai-responses"
    assert detect_vendor({"contents": "hi", "model": "gemini-2.5-pro"}).name == "gemini"


def test_a_named_vendor_must_fit_the_request() -> None:
    anthropic_body = {"model": "claude-x", "system": "s", "messages": []}
    with pytest.raises(InputError, match=r"not read as Gemini .* has a top-level 'messages'"):
        resolve_vendor(anthropic_body, "gemini")
    # "openai" names both of OpenAI's formats: the one that fits is taken
    assert resolve_vendor({"input": "hi"}, "openai").name == "openai-responses"


# -- every command without --vendor, on every format ----------------------------------------

MODELS = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-5.4",
    "openai-responses": "gpt-5.4",
    "gemini": "gemini-2.5-pro",
    "engine": "Qwen/Qwen3-8B",
    "bedrock-converse": "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "bedrock-invoke": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
    "vertex-anthropic": "claude-sonnet-4-5@20250929",
    "vertex-gemini": "projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro",
    "azure-openai": "my-gpt-deployment",
    "azure-openai-responses": "my-gpt-deployment",
    "foundry": "claude-opus-5",
    "bedrock-mantle": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
}
RESPONSES = {
    "anthropic": {
        "type": "message",
        "model": "claude-sonnet-4-6",
        "usage": {"input_tokens": 5, "cache_read_input_tokens": 900, "output_tokens": 2},
    },
    "openai": {
        "object": "chat.completion",
        "model": "gpt-5.4",
        "usage": {"prompt_tokens": 905, "completion_tokens": 2, "total_tokens": 907},
    },
    "openai-responses": {
        "object": "response",
        "model": "gpt-5.4",
        "usage": {"input_tokens": 905, "output_tokens": 2, "total_tokens": 907},
    },
    "gemini": {
        "modelVersion": "gemini-2.5-pro",
        "usageMetadata": {"promptTokenCount": 905, "candidatesTokenCount": 2},
    },
    "engine": {
        "object": "chat.completion",
        "model": "Qwen/Qwen3-8B",
        "usage": {"prompt_tokens": 905, "completion_tokens": 2, "total_tokens": 907},
    },
    "bedrock-converse": {
        "output": {"message": {"role": "assistant", "content": [{"text": "ok"}]}},
        "stopReason": "end_turn",
        "usage": {
            "inputTokens": 5,
            "outputTokens": 2,
            "totalTokens": 907,
            "cacheReadInputTokens": 900,
            "cacheWriteInputTokens": 0,
        },
    },
    "bedrock-invoke": {
        "type": "message",
        "usage": {"input_tokens": 5, "cache_read_input_tokens": 900, "output_tokens": 2},
    },
}
# A platform answers in the format it serves (Azure fills `model` with the model itself).
RESPONSES["vertex-anthropic"] = {**RESPONSES["anthropic"], "model": "claude-sonnet-4-5"}
RESPONSES["vertex-gemini"] = {**RESPONSES["gemini"]}
RESPONSES["azure-openai"] = {**RESPONSES["openai"], "model": "gpt-4o-2024-11-20"}
RESPONSES["azure-openai-responses"] = {**RESPONSES["openai-responses"], "model": "gpt-4o"}
RESPONSES["foundry"] = {**RESPONSES["anthropic"], "model": "claude-opus-5"}
RESPONSES["bedrock-mantle"] = {**RESPONSES["anthropic"], "model": "claude-sonnet-4-5"}


@pytest.mark.parametrize("vendor", VENDOR_NAMES)
def test_every_command_works_without_a_vendor(
    vendor: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from promptcache import Prompt, Tool

    prompt = (
        Prompt()
        .add_tools(Tool(name="lookup", description="Find.", input_schema={"type": "object"}))
        .add_system("You are the support agent.")
        .with_tail("Where is my order?")
    )
    request = get_adapter(vendor).to_request(prompt, model=MODELS[vendor])
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request))
    assert main(["inspect", str(path), "--format", "json"]) == 0
    # a platform is detected where its body carries its mark; Azure's and Foundry's never do
    spec = get_vendor(vendor)
    said = vendor if spec.serves is None or spec.detects(request) else spec.serves
    assert json.loads(capsys.readouterr().out)["vendor"] == said
    # a prompt this short is under every minimum: nothing was cached, so nothing was kept (no
    # marker for the explicit vendors; under the minimum for the automatic ones)
    from promptcache._pricing import load_min_tokens

    explicit = get_vendor(vendor).rules.caches_only_at_markers
    minimum = load_min_tokens().minimum(get_vendor(vendor).family, MODELS[vendor])
    # the prompt is about 30 tokens: past an engine's one KV block (16), under every hosted
    # vendor's minimum (1,024 and more)
    cause = "not_cached" if explicit else "below_minimum" if minimum > 100 else "none"
    assert main(["diff", str(path), str(path), "--format", "json"]) == (cause != "none")
    out = json.loads(capsys.readouterr().out)
    assert out["invalidated"] is False
    assert out["cause"] == cause
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"request": request, "response": RESPONSES[vendor]}) + "\n")
    assert main(["report", str(log), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["records"] == 1
    answer = tmp_path / "response.json"
    answer.write_text(json.dumps(RESPONSES[vendor]))
    if vendor == "engine":  # self-hosted: no price list, and cost says so
        assert main(["cost", str(answer), "--model", "Qwen/Qwen3-8B"]) == 2
        assert "no prices for vendor 'engine'" in capsys.readouterr().err
    elif vendor in ("bedrock-converse", "bedrock-invoke"):  # no model in the response: asked
        assert main(["cost", str(answer), "--format", "json"]) == 2
        assert "names no model; pass --model" in capsys.readouterr().err
        assert main(["cost", str(answer), "--model", MODELS[vendor], "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["responses"][0]["usage"]["output"] == 2
    else:
        assert main(["cost", str(answer), "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["responses"][0]["usage"]["output"] == 2


def test_every_api_that_takes_a_vendor_takes_its_aliases() -> None:
    from promptcache import CacheUsage, Monitor, Prompt, cost, diff, plan
    from promptcache._report import build_report

    usage = CacheUsage(uncached_input=10, cache_read=100, cache_write=50, output=1)
    assert cost(usage, model="claude-sonnet-4-6", vendor="Claude").actual == pytest.approx(
        cost(usage, model="claude-sonnet-4-6", vendor="anthropic").actual
    )
    assert plan(Prompt().add_system("x"), vendor="VLLM", model="q").vendor == "engine"
    assert plan(Prompt().add_system("x"), vendor="Responses", model="gpt-5.6").vendor == (
        "openai-responses"
    )
    assert Monitor("SGLang", metrics=False).vendor == "engine"
    request = {"model": "gpt-5.4", "messages": [{"role": "user", "content": "hi"}]}
    assert diff(request, request, "Azure-OpenAI").vendor == "azure-openai"
    line = json.dumps({"request": request, "usage": {"prompt_tokens": 3, "completion_tokens": 1}})
    assert build_report([line], vendor="CHAT").records == 1


@pytest.mark.parametrize("vendor", VENDORS, ids=lambda v: v.name)
@pytest.mark.parametrize(
    "response",
    [{}, {"id": "x", "usage": None}, {"id": "x", "choices": [], "model": "m"}],
    ids=["empty", "usage-null", "no-usage"],
)
def test_a_response_without_usage_is_refused_not_read_as_zero_tokens(
    vendor: Vendor, response: dict[str, Any]
) -> None:
    # Chat, Responses, Anthropic and the engines read these as 0 input tokens and unknown
    # reads: a priced, counted record of a call whose usage we never saw.
    with pytest.raises(InputError) as caught:
        vendor.read_usage(response)
    assert "usage" in str(caught.value)
