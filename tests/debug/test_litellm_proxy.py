"""
`MonitorLogger` in the LiteLLM proxy: the real proxy, started on 127.0.0.1 with a config that
names the callback, forwards the real OpenAI SDK's calls to a stub upstream, and the monitor in
the proxy names the field that broke the cache.

The proxy's dependencies come with `litellm[proxy]`, whose releases pin a `litellm-proxy`
package (and `litellm-proxy-extras`/`litellm-enterprise` versions) that the package index this
project installs from does not carry, so CI does not install them and this test skips there,
saying so. It passed on 2026-11-30 (litellm 1.110.2) in a separate venv holding the proxy's
other dependencies, installed by hand:

    pip install litellm==1.110.2 fastapi starlette uvicorn uvloop backoff apscheduler \
        python-multipart pyjwt cryptography pynacl rq websockets fastapi-sso 'mcp<3' \
        semver expression soundfile pytest vcrpy pyyaml -e .
    python -m pytest tests/debug/test_litellm_proxy.py
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .._recording import LITELLM_OFFLINE, stub_server
from .test_litellm_logger import GPT, NAME, SYSTEM, chat_reply

pytest.importorskip("litellm")

CALLBACKS = """
import json, os
from promptcache import Monitor
from promptcache.debug.litellm_logger import MonitorLogger

def _write(event):
    with open(os.environ["PROMPTCACHE_TEST_EVENTS"], "a") as out:
        out.write(json.dumps(event.to_json()) + "\\n")

monitor_logger = MonitorLogger(Monitor(on_invalidation=_write, metrics=False))
"""

CONFIG = """
model_list:
  - model_name: {model}
    litellm_params:
      model: openai/{model}
      api_base: {upstream}/v1
      api_key: sk-upstream-test
litellm_settings:
  callbacks: promptcache_callbacks.monitor_logger
general_settings:
  master_key: {master_key}
"""


def _proxy_importable() -> bool:
    if any(importlib.util.find_spec(name) is None for name in ("fastapi", "uvicorn")):
        return False
    probe = "import litellm.proxy.proxy_server"
    env = {**os.environ, **LITELLM_OFFLINE}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, env=env, timeout=180)
    return done.returncode == 0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[tuple[Any, Any, Path]]:
    if not _proxy_importable():
        pytest.skip(
            "the LiteLLM proxy's dependencies are not installed (litellm[proxy] pins "
            "litellm-proxy, which the package index does not carry)"
        )
    events = tmp_path / "events.jsonl"
    with stub_server() as upstream:
        (tmp_path / "promptcache_callbacks.py").write_text(CALLBACKS)
        config = tmp_path / "config.yaml"
        master_key = f"sk-{secrets.token_hex(32)}"  # the proxy refuses to start without one
        config.write_text(CONFIG.format(model=GPT, upstream=upstream.url, master_key=master_key))
        port = _free_port()
        env = {**os.environ, **LITELLM_OFFLINE, "PROMPTCACHE_TEST_EVENTS": str(events)}
        command = [sys.executable, "-m", "litellm.proxy.proxy_cli", "--config", str(config)]
        command += ["--host", "127.0.0.1", "--port", str(port)]
        log = (tmp_path / "proxy.log").open("w")
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_ready(url, server, tmp_path / "proxy.log")
            import openai

            yield (
                openai.OpenAI(base_url=f"{url}/v1", api_key=master_key, max_retries=0),
                upstream,
                events,
            )
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()


def _wait_ready(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the proxy exited ({server.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/health/liveliness", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"the proxy did not answer in 120 s:\n{log.read_text()[-3000:]}")


def _events(path: Path, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        lines = path.read_text().splitlines() if path.exists() else []
        if len(lines) >= count:
            break
        time.sleep(0.1)
    time.sleep(0.3)  # and nothing more comes
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_the_proxy_names_the_field_that_broke_the_cache(proxy: tuple[Any, Any, Path]) -> None:
    client, upstream, events = proxy
    upstream.serve([chat_reply(1), chat_reply(2), chat_reply(3)])
    systems = [SYSTEM, SYSTEM, SYSTEM.replace("Refund policy", "Refund  policy", 1)]
    for system in systems:
        client.chat.completions.create(
            model=GPT,
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": f"I am {NAME}."},
            ],
            extra_body={"metadata": {"promptcache_key": "tenant-7"}},
        )
    assert len(upstream.seen) == 3
    # the key stays in the proxy: LiteLLM does not forward its metadata upstream
    assert all("metadata" not in json.loads(body) for body in upstream.bodies)
    seen = _events(events, 2)
    assert [(e["cause"], e["path"], e["key"]) for e in seen] == [
        ("none", None, "tenant-7"),
        ("whitespace", "messages[0].content", "tenant-7"),
    ]
