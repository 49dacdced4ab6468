"""A model no row of the minimum-token table names gets the default minimum, said as assumed."""

from __future__ import annotations

import pytest

from promptcache import Prompt, plan

_TEXT = "Policy text. " * 400


def _prompt() -> Prompt:
    return Prompt().add_system(_TEXT).with_tail("hi")


@pytest.mark.parametrize(
    ("vendor", "model"),
    [
        ("anthropic", "claude-nonexistent"),
        ("foundry", "claude-nonexistent"),
        ("bedrock-converse", "anthropic.claude-nonexistent-v9:0"),
        ("gemini", "gemini-9-ultra"),
    ],
)
def test_unlisted_model_says_its_minimum_is_assumed(vendor: str, model: str) -> None:
    notes = " ".join(plan(_prompt(), vendor=vendor, model=model).notes)
    assert "in no row of the minimum-token table" in notes
    assert "assumed" in notes


@pytest.mark.parametrize(
    ("vendor", "model"),
    [
        ("openai", "gpt-4o"),
        ("anthropic", "claude-sonnet-4-5"),
        ("bedrock-converse", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
        ("vertex-anthropic", "claude-sonnet-4-5@20250929"),
        ("engine", "my-finetune"),
        # one documented minimum for every model of the vendor: nothing is assumed
        ("openai", "nonexistent-model-x"),
        ("azure-openai", "my-prod-deployment"),
    ],
)
def test_listed_model_or_engine_has_no_such_note(vendor: str, model: str) -> None:
    notes = " ".join(plan(_prompt(), vendor=vendor, model=model).notes)
    assert "minimum-token table" not in notes


def test_explicit_minimum_needs_no_note() -> None:
    notes = plan(_prompt(), vendor="anthropic", model="claude-nonexistent", min_tokens=1024).notes
    assert not any("minimum-token table" in n for n in notes)
