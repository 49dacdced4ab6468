"""get_adapter, capabilities as data, the minimum-token table and lazy SDK imports."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from promptcache import InputError, MissingDependencyError
from promptcache.adapters import ADAPTER_NAMES, Adapter, Capabilities, get_adapter


def test_names() -> None:
    assert ADAPTER_NAMES == (
        "anthropic",
        "openai",
        "openai-responses",
        "gemini",
        "engine",
        "bedrock-converse",
        "bedrock-invoke",
        "vertex-anthropic",
        "vertex-gemini",
        "azure-openai",
        "azure-openai-responses",
        "foundry",
        "bedrock-mantle",
    )


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_every_adapter_follows_the_protocol(name: str) -> None:
    adapter = get_adapter(name)
    assert isinstance(adapter, Adapter)
    caps = type(adapter).capabilities  # class-level data
    assert isinstance(caps, Capabilities)
    assert dataclasses.is_dataclass(caps)
    with pytest.raises(dataclasses.FrozenInstanceError):
        caps.max_breakpoints = 99  # type: ignore[misc]


def test_unknown_name_lists_the_valid_ones() -> None:
    with pytest.raises(
        InputError, match="unknown vendor 'palm'; use one of anthropic, openai, openai-res"
    ):
        get_adapter("palm")


def test_names_are_case_insensitive_with_aliases() -> None:
    assert get_adapter("Claude").name == "anthropic"
    assert get_adapter("vLLM").name == "engine"
    assert get_adapter("Responses").name == "openai-responses"


def test_capabilities() -> None:
    anthropic = get_adapter("anthropic").capabilities
    assert (anthropic.max_breakpoints, anthropic.lookback_blocks, anthropic.ttls) == (
        4,
        20,
        ("1h", "5m"),
    )
    assert anthropic.ttl_order == "non-increasing" and anthropic.marking == "explicit"
    openai = get_adapter("openai")
    assert openai.capabilities.max_breakpoints == 4 and openai.capabilities.lookback_blocks is None
    assert openai.capabilities_for("gpt-5.4").marking == "automatic"
    assert openai.capabilities_for("gpt-5.4").increment_tokens == 128
    assert get_adapter("gemini").capabilities.marking == "automatic"


@pytest.mark.parametrize(
    ("name", "model", "expected"),
    [
        ("anthropic", "claude-opus-5", 512),
        ("anthropic", "claude-opus-5-5", 1024),
        ("anthropic", "claude-sonnet-4-6-20260115", 1024),
        ("anthropic", "claude-haiku-4-5@20251001", 4096),
        ("anthropic", "us.anthropic.claude-opus-4-7-v1:0", 2048),
        ("anthropic", "claude-new-thing", 1024),
        ("openai", "gpt-5.6-terra", 1024),
        ("openai-responses", "gpt-4o", 1024),
        ("gemini", "models/gemini-2.5-flash", 2048),
        ("gemini", "gemini-2.5-flash-lite", 2048),
        ("gemini", "gemini-3.5-flash", 4096),
        ("engine", "qwen3-8b", 16),
    ],
)
def test_minimum_tokens_from_the_shipped_table(name: str, model: str, expected: int) -> None:
    assert get_adapter(name).min_cacheable_tokens(model) == expected


def test_minimum_tokens_user_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    override = tmp_path / "mins.json"
    override.write_text(
        json.dumps({"vendors": {"anthropic": {"models": {"claude-sonnet-4-6": 2048}}}})
    )
    monkeypatch.setenv("PROMPTCACHE_MIN_TOKENS", str(override))
    assert get_adapter("anthropic").min_cacheable_tokens("claude-sonnet-4-6") == 2048
    assert get_adapter("anthropic").min_cacheable_tokens("claude-opus-5") == 512  # merged


def test_a_bad_override_file_says_what_is_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    monkeypatch.setenv("PROMPTCACHE_MIN_TOKENS", str(bad))
    with pytest.raises(InputError, match="not valid JSON"):
        get_adapter("anthropic").min_cacheable_tokens("claude-opus-5")


@pytest.mark.parametrize(
    ("name", "module", "extra"),
    [
        ("anthropic", "anthropic", "anthropic"),
        ("openai", "openai", "openai"),
        ("gemini", "google.genai", "gemini"),
        ("bedrock-converse", "boto3", "bedrock"),
    ],
)
def test_missing_sdk_names_the_pip_command(
    name: str, module: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` raise ImportError
    monkeypatch.setattr("promptcache._errors._NEEDS_PYTHON", {})  # whatever Python runs this
    with pytest.raises(MissingDependencyError) as info:
        get_adapter(name).client(api_key="x")
    assert f"pip install 'promptcache-sdk[{extra}]'" in str(info.value)


def test_an_sdk_this_python_is_too_old_for_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "google.genai", None)
    monkeypatch.setattr("promptcache._errors._NEEDS_PYTHON", {"google-genai": (99, 1)})
    with pytest.raises(MissingDependencyError, match=r"need Python 99\.1 or newer, and this is"):
        get_adapter("gemini").client(api_key="x")


def test_adapters_import_no_sdk() -> None:
    import subprocess

    code = (
        "import sys; from promptcache.adapters import get_adapter\n"
        "for n in ('anthropic','openai','openai-responses','gemini','engine'): get_adapter(n)\n"
        "print(sorted(m for m in ('anthropic','openai','google.genai') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_clients_are_built_lazily() -> None:
    client = get_adapter("openai").client(api_key="sk-test")
    assert type(client).__name__ == "OpenAI"
    assert type(get_adapter("anthropic").async_client(api_key="k")).__name__ == "AsyncAnthropic"
    bedrock = get_adapter("bedrock").client(
        region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
    )
    assert bedrock.meta.service_model.service_name == "bedrock-runtime"
    invoke = get_adapter("bedrock-invoke").client(
        aws_region="us-east-1", aws_access_key="x", aws_secret_key="y"
    )
    assert type(invoke).__name__ == "AnthropicBedrock"
