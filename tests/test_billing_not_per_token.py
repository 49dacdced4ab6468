"""
A provisioned Azure deployment (PTU) is billed by the hour and Foundry bills Claude in Claude
Consumption Units: a per-token price is not their bill. Declared (`cost(billing=...)`,
`promptcache cost --billing`), the cost says "not priced per token" and leaves the total; a
Foundry cost not declared carries a note that its figures are list prices, not the bill.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcache import CacheUsage, InputError, cost
from promptcache.cli import main

USAGE = CacheUsage(uncached_input=1000, cache_read=9000, cache_write=0, output=500)


def test_a_declared_provisioned_deployment_is_not_priced_per_token() -> None:
    listed = cost(USAGE, model="gpt-4o", vendor="azure-openai")
    ptu = cost(USAGE, model="gpt-4o", vendor="azure-openai", billing="provisioned")
    assert listed.billing == "per-token" and listed.actual is not None
    assert ptu.billing == "provisioned" and ptu.actual is None and ptu.without_cache is None
    assert any("not priced per token (provisioned)" in n for n in ptu.notes)
    assert ptu.list_price == pytest.approx(listed.actual)  # kept, labelled, for comparison


def test_foundry_says_its_figures_are_list_prices_unless_declared_ccu() -> None:
    listed = cost(USAGE, model="claude-opus-4-5", vendor="foundry")
    assert listed.actual is not None
    assert any("Claude Consumption Units" in n and "not the bill" in n for n in listed.notes)
    ccu = cost(USAGE, model="claude-opus-4-5", vendor="foundry", billing="ccu")
    assert ccu.actual is None and any("not priced per token (CCU)" in n for n in ccu.notes)


def test_a_billing_name_not_known_is_refused_naming_the_choices() -> None:
    with pytest.raises(InputError, match=r"'ptu'.*provisioned"):
        cost(USAGE, model="gpt-4o", vendor="azure-openai", billing="ptu")


def test_cost_command_keeps_a_provisioned_deployment_out_of_the_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reply = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o-2024-08-06",
        "choices": [],
        "usage": {
            "prompt_tokens": 10000,
            "completion_tokens": 500,
            "prompt_tokens_details": {"cached_tokens": 9000},
        },
    }
    path = tmp_path / "reply.json"
    path.write_text(json.dumps(reply))
    args = ["cost", str(path), "--vendor", "azure-openai"]
    assert main([*args, "--billing", "provisioned"]) == 0
    out = capsys.readouterr().out
    assert "not priced per token (provisioned)" in out
    assert "total: USD unknown" in out and "not priced per token" in out.splitlines()[-1]
    assert main([*args, "--billing", "provisioned", "--format", "json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["responses"][0]["cost"]["billing"] == "provisioned"
    assert payload["responses"][0]["cost"]["actual"] is None
    assert payload["total"]["actual"] is None and payload["total"]["not_per_token"] == 1


def test_a_total_of_only_provisioned_responses_claims_no_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reply = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o-2024-08-06",
        "choices": [],
        "usage": {"prompt_tokens": 100, "completion_tokens": 5},
    }
    path = tmp_path / "reply.json"
    path.write_text(json.dumps(reply))
    args = ["cost", str(path), "--vendor", "azure-openai", "--billing", "provisioned"]
    assert main(args) == 0
    total = capsys.readouterr().out.splitlines()[-1]
    assert total.startswith("total: USD unknown: 1 of 1 responses are not priced per token")
    assert "others" not in total
