"""
Real llama.cpp servers (xllamacpp + SmolLM2-135M) on 127.0.0.1, started once per test session and
always stopped. Missing packages fail loudly with the install command: these tests are part of
the default suite, so a skipped engine would be a silent pass.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator

import pytest

from promptcache.serving.llamacpp import LlamaServer, smollm2_path


def _require_engine() -> None:
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.fail("xllamacpp is not installed: pip install -e '.[dev]'", pytrace=False)
    try:
        smollm2_path()
    except ImportError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def llama() -> Iterator[LlamaServer]:
    """One server with llama.cpp's defaults (one slot, host-RAM prompt cache on)."""
    _require_engine()
    with LlamaServer(n_ctx=4096) as server:
        yield server


@pytest.fixture(scope="session")
def replica_pair() -> Iterator[tuple[LlamaServer, LlamaServer]]:
    """
    Two replicas that each keep only their most recent prefix (one slot, host-RAM cache off), as
    replicas under memory pressure do: where a request lands decides whether it hits.
    """
    _require_engine()
    with (
        LlamaServer(n_ctx=2048, threads=1, cache_ram_mib=0) as first,
        LlamaServer(n_ctx=2048, threads=1, cache_ram_mib=0) as second,
    ):
        yield first, second
