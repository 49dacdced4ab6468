"""
What the child-process test modules share (`aiobotocore_compat`, `openllmetry_indexed`): they
run a release that cannot sit beside the test environment's own, so they import nothing but the
standard library from here, before they put their `--target` folder first on the path.
"""

from __future__ import annotations

import logging
import socket
from typing import Any


class KeptLogs(logging.Handler):
    """Every message logged, kept to be searched (for prompt text, above all)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def loopback_only() -> None:
    """As tests/conftest.py does in the test process: nothing leaves 127.0.0.1."""
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and not (host.startswith("127.") or host in ("::1", "localhost")):
            raise OSError(f"the child tried to reach the network: {address!r}")
        return real_connect(self, address)

    socket.socket.connect = guarded  # type: ignore[method-assign]
