"""
`prompt_cache_options` (explicit mode, a 30m TTL) is OpenAI's own setting and is not documented
on Azure OpenAI, so the planner writes none there; but a hand-written Azure request that carries
it was passed by `inspect` as if it did something (exit 0, nothing said). It is now a problem
naming the setting, what is known and the fix; OpenAI's own request keeps it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptcache.cli import main
from promptcache.vendors import get_vendor

SYSTEM = "You are the support agent. " + "Answer in one line. " * 400


def _chat(**extra: object) -> dict[str, object]:
    return {
        "model": "support-gpt",
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Hi"}],
        **extra,
    }


def test_azure_names_the_openai_only_setting() -> None:
    check = get_vendor("azure-openai").check_markers
    assert check is not None
    present, problems = check(_chat(prompt_cache_options={"mode": "explicit", "ttl": "30m"}))
    assert present == []
    [problem] = problems
    assert problem.startswith("prompt_cache_options") and "Azure OpenAI" in problem
    assert "not documented" in problem and "Fix:" in problem
    assert check(_chat(prompt_cache_retention="24h")) == ([], [])


def test_inspect_says_it_on_azure_not_on_openai(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(_chat(prompt_cache_options={"ttl": "30m"})))
    assert main(["inspect", str(path), "--vendor", "azure"]) == 1
    assert "prompt_cache_options" in capsys.readouterr().out
    assert main(["inspect", str(path), "--vendor", "openai", "--model", "gpt-5.6"]) == 0
    capsys.readouterr()
